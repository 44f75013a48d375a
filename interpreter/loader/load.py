"""Stage 1: read YAML and data tables safely, keeping file:line:column for every node.

Only the safe loader is used (the C ``CSafeLoader`` where available), so a ruleset can never run
code.  The YAML is composed into a node tree once; plain Python data is built from it while the
mark of every node is recorded under its path (a tuple of keys and indexes).  Alias bombs
("billion laughs"), recursive aliases, absurd nesting, duplicate keys and oversized files are
refused with a :class:`~interpreter.errors.LoadError`.
"""

from __future__ import annotations

import copy
import csv
import io
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..errors import LoadError, Mark
from ..limits import MAX_INT_BITS, MAX_NUMBER_CHARS, MAX_YAML_EXPANDED
from ..limits import MAX_YAML_BYTES as MAX_BYTES
from ..limits import MAX_YAML_DEPTH as MAX_DEPTH
from ..limits import MAX_YAML_NODES as MAX_NODES

#: Texts of a ruleset (keys, names, values) of at most this many characters are interned: the
#: game reads its variables, fields and map attributes by name at every step, and a dict finds
#: a key that is the same object as its own by one pointer test, without comparing characters.
MAX_INTERNED = 64
_intern = sys.intern

__all__ = ["Document", "load_yaml", "load_yaml_text", "load_table", "MAX_BYTES", "MAX_NODES", "MAX_DEPTH"]


_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SCALAR_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null")}


@dataclass
class Document:
    """Plain data read from a file, and the mark of every node.

    ``data``: dicts, lists, str, int, float, bool, None; ``marks``: path tuple -> Mark (of a
    mapping's value, its key's mark: an error about an entry points at its key); ``file``: the
    file's path as given; ``texts``: path tuple -> the Mark of the first character of a text
    value's own text (after an opening quote; a block scalar's first content line), so that an
    error inside an expression points at its column in the file (:meth:`text_mark`).
    """

    data: Any
    marks: dict = field(default_factory=dict)
    file: str = ""
    texts: dict = field(default_factory=dict)

    def text_mark(self, path: tuple) -> Mark:
        """Where the text of the scalar at ``path`` starts in the file (see ``texts``), else
        :meth:`mark`."""
        m = self.texts.get(tuple(path))
        return m if m is not None else self.mark(path)

    def mark(self, path: tuple) -> Mark:
        """The mark of the node at ``path``, or of its nearest ancestor that has one."""
        path = tuple(path)
        while path:
            m = self.marks.get(path)
            if m is not None:
                return m
            path = path[:-1]
        return self.marks.get((), Mark(self.file, 1, 1))


#: The files read while :func:`recording` is active (paths as given), else None.
_READS: list[str] | None = None


def _note_read(path: str | Path) -> None:
    """Record that ``path`` is read (or tried); a no-op outside :func:`recording`."""
    if _READS is not None:
        _READS.append(str(path))


@contextmanager
def recording():
    """Within the block every file the loader reads or tries to read (a ruleset, its tables) is
    recorded, so that a result computed from them can be remembered by their contents
    (:mod:`interpreter.loader.results`).  Yields the list of paths (nested blocks also report to
    the outer one)."""
    global _READS
    outer, _READS = _READS, []
    try:
        yield _READS
    finally:
        reads = _READS
        _READS = outer
        if outer is not None:
            outer.extend(reads)


def _read(path: Path) -> str:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise LoadError(f"cannot read {path}: {exc.strerror or exc}") from None
    if size > MAX_BYTES:
        raise LoadError(f"{path} is {size} bytes; the limit is {MAX_BYTES} bytes", Mark(str(path), 1, 1))
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise LoadError(f"{path} is not UTF-8 text ({exc.reason})", Mark(str(path), 1, 1)) from None
    except OSError as exc:
        raise LoadError(f"cannot read {path}: {exc.strerror or exc}") from None


def yaml_hint(problem: str) -> str:
    """What usually causes the YAML parser's ``problem`` (text to append to its message, or "")."""
    if "expected ',' or '}'" in problem or "expected ',' or ']'" in problem:
        return (" (a comma, colon or brace inside a flow mapping or list `{...}`/`[...]` ends the value there:"
                " quote an expression that holds one, e.g. `{if: \"a, or b\"}`)")
    if "did not find expected key" in problem or "did not find expected '-' indicator" in problem \
            or "expected <block end>" in problem:
        return (" (check the indentation: every key of one mapping and every `- ` item of one list starts in"
                " the same column, with spaces, not tabs)")
    if "mapping values are not allowed" in problem:
        return (" (a `: ` inside a plain value starts a mapping: quote the value, e.g. `log: \"Score: {x}\"`,"
                " or check the indentation of the line)")
    if "cannot start any token" in problem or "found a tab character" in problem:
        return " (YAML indents with spaces only, not tabs; a value starting with `@` or a backquote must be quoted)"
    return ""


def load_yaml(path: str | Path) -> Document:
    """Read a YAML file safely.  Raises LoadError (with file:line:column) on any problem.

    A file read before and unchanged since (the same size and modification time) is not parsed
    again: ``tapster validate`` reads a ruleset once for its base and every variant.  Each call
    returns its own copy of the data."""
    path = Path(path)
    _note_read(path)
    try:
        st = path.stat()
        key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    except OSError:
        key = None
    hit = _DOCUMENTS.get(key) if key is not None else None
    if hit is None:
        hit = load_yaml_text(_read(path), str(path))
        if key is not None:
            if len(_DOCUMENTS) >= 64:
                _DOCUMENTS.clear()
            _DOCUMENTS[key] = hit
    return Document(_copy_data(hit.data), dict(hit.marks), hit.file, dict(hit.texts))


def _copy_data(v: Any) -> Any:
    """A copy of loaded YAML data: mappings, lists and sets copied all the way down, everything
    else (text, numbers, booleans, null, dates: immutable) shared.  The data's own copy, several
    times faster than ``copy.deepcopy`` (which ``tapster validate`` paid once per variant); a
    value an alias repeats is copied at each place it appears (the loader bounds how large that
    makes it)."""
    t = type(v)
    if t is dict:
        return {k: _copy_data(x) for k, x in v.items()}
    if t is list:
        return [_copy_data(x) for x in v]
    if t is set:
        return set(v)
    if t in _SCALARS:
        return v
    return copy.deepcopy(v)


_SCALARS = frozenset({str, int, float, bool, type(None), bytes})


_DOCUMENTS: dict[tuple, Document] = {}


def load_yaml_text(text: str, file: str = "<string>") -> Document:
    """Read YAML text safely; ``file`` names it in marks.

    Raises:
        LoadError: syntax errors, duplicate keys, unsupported tags, alias bombs (more than
            MAX_NODES nodes, or more than MAX_YAML_EXPANDED characters of values, with the
            aliases written out), recursive aliases, nesting deeper than MAX_DEPTH, text larger
            than MAX_BYTES.
    """
    if len(text.encode("utf-8", errors="replace")) > MAX_BYTES:
        raise LoadError(f"{file} is larger than {MAX_BYTES} bytes", Mark(file, 1, 1))
    loader = _Loader(text)
    try:
        try:
            node = loader.get_single_node()
        except yaml.MarkedYAMLError as exc:
            m = exc.problem_mark or exc.context_mark
            mark = Mark(file, m.line + 1, m.column + 1) if m else Mark(file, 1, 1)
            problem = exc.problem or exc.context or "invalid YAML"
            if exc.context and exc.problem:
                problem = f"{exc.context}: {exc.problem}"
            raise LoadError(f"YAML syntax error: {problem}{yaml_hint(problem)}", mark) from None
        except yaml.reader.ReaderError as exc:  # a character YAML does not allow (a control character)
            code = exc.character if isinstance(exc.character, int) else ord(exc.character[:1] or "\0")
            raise LoadError(
                f"YAML syntax error: {exc.reason}; found the character U+{code:04X}",
                _position_mark(text, exc.position, file),
            ) from None
        except yaml.YAMLError as exc:
            raise LoadError(f"YAML error: {exc}", Mark(file, 1, 1)) from None
        except RecursionError:
            raise LoadError(f"nesting deeper than {MAX_DEPTH} levels", Mark(file, 1, 1)) from None
        doc = Document(None, {}, file)
        if node is None:
            return doc
        builder = _Builder(loader, doc, text)
        doc.data = builder.build(node, (), 0)
        return doc
    finally:
        loader.dispose()


def _position_mark(text: str, position: int, file: str) -> Mark:
    """The mark of ``position`` in ``text``: a UTF-8 byte offset from the C loader, a character
    offset from the pure-Python one."""
    if _Loader is yaml.SafeLoader:
        before = text[:position]
    else:
        before = text.encode("utf-8", errors="replace")[:position].decode("utf-8", errors="replace")
    return Mark(file, before.count("\n") + 1, len(before) - before.rfind("\n"))


class _Builder:
    def __init__(self, loader, doc: Document, text: str = ""):
        self.loader = loader
        self.doc = doc
        self.text = text  # the source, for where a block scalar's text starts
        self.lines: list[str] | None = None
        self.count = 0
        self.chars = 0  # characters of the scalars built so far, aliases written out
        self.active: set[int] = set()

    def mark(self, node) -> Mark:
        m = node.start_mark
        return Mark(self.doc.file, m.line + 1, m.column + 1)

    def text_mark(self, node) -> Mark | None:
        """Where a scalar's text starts: a plain scalar at its mark, a quoted one a column after,
        a literal or folded block (``|``, ``>``) at its first content line's indentation; None
        for an empty block."""
        m = node.start_mark
        style = node.style
        if style in ("'", '"'):
            return Mark(self.doc.file, m.line + 1, m.column + 2)
        if style in ("|", ">"):
            if self.lines is None:
                self.lines = self.text.split("\n")
            for i in range(m.line + 1, min(node.end_mark.line + 1, len(self.lines))):
                line = self.lines[i]
                if line.strip():
                    return Mark(self.doc.file, i + 1, len(line) - len(line.lstrip(" ")) + 1)
            return None
        return Mark(self.doc.file, m.line + 1, m.column + 1)

    def build(self, node, path: tuple, depth: int) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise LoadError(
                f"the document expands to more than {MAX_NODES} nodes (an alias bomb?)", self.mark(node)
            )
        if depth > MAX_DEPTH:
            raise LoadError(f"nesting deeper than {MAX_DEPTH} levels", self.mark(node))
        self.doc.marks.setdefault(path, self.mark(node))
        if isinstance(node, yaml.ScalarNode):
            text = self.text_mark(node)
            if text is not None:
                self.doc.texts[path] = text
            self.chars += len(node.value)
            if self.chars > MAX_YAML_EXPANDED:
                raise LoadError(
                    f"the document expands to more than {MAX_YAML_EXPANDED:,} characters of values with its aliases"
                    " written out (an alias bomb?); write a long text once and refer to it less often", self.mark(node))
            return self.scalar(node)
        if node.tag not in ("tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"):
            raise LoadError(f"unsupported YAML tag {node.tag}", self.mark(node))
        key = id(node)
        if key in self.active:
            raise LoadError("recursive alias: a node contains itself", self.mark(node))
        self.active.add(key)
        try:
            if isinstance(node, yaml.SequenceNode):
                return [self.build(item, path + (i,), depth + 1) for i, item in enumerate(node.value)]
            if isinstance(node, yaml.MappingNode):
                out: dict = {}
                for knode, vnode in node.value:
                    if knode.tag == "tag:yaml.org,2002:merge":
                        raise LoadError("merge keys (`<<`) are not supported", self.mark(knode))
                    if not isinstance(knode, yaml.ScalarNode):
                        raise LoadError("a mapping key must be a plain value", self.mark(knode))
                    self.chars += len(knode.value)
                    k = self.scalar(knode)
                    if isinstance(k, (bool, float)) or k is None:
                        # YAML 1.1 reads a plain `on:`, `yes:` or `null:` key as a boolean or
                        # null; a ruleset's keys are names, so keep the text as written.
                        k = _intern(knode.value) if len(knode.value) <= MAX_INTERNED else knode.value
                    if k in out:
                        first = self.doc.marks.get(path + (k,))
                        where = f" (first at line {first.line})" if first else ""
                        raise LoadError(f"duplicate key {k!r}{where}", self.mark(knode))
                    self.doc.marks[path + (k,)] = self.mark(knode)
                    out[k] = self.build(vnode, path + (k,), depth + 1)
                return out
        finally:
            self.active.discard(key)
        raise LoadError(f"unsupported YAML node {node.tag}", self.mark(node))  # pragma: no cover

    def scalar(self, node) -> Any:
        tag = node.tag
        if tag == "tag:yaml.org,2002:timestamp":
            return node.value  # dates stay text: rulesets hold JSON-like data only
        if tag not in _SCALAR_TAGS:
            raise LoadError(f"unsupported YAML tag {tag}", self.mark(node))
        if tag == "tag:yaml.org,2002:int" and len(node.value) > MAX_NUMBER_CHARS:
            raise LoadError(f"a number of {len(node.value)} characters; the limit is {MAX_NUMBER_CHARS} "
                            f"(whole numbers of at most {MAX_INT_BITS} bits)", self.mark(node))
        try:
            value = self.loader.construct_object(node)
        except yaml.YAMLError as exc:
            raise LoadError(f"bad value {node.value[:60]!r}: {exc}", self.mark(node)) from None
        except (ValueError, OverflowError) as exc:
            raise LoadError(f"bad value {node.value[:60]!r}: {exc}", self.mark(node)) from None
        if type(value) is int and value.bit_length() > MAX_INT_BITS:
            raise LoadError(f"a whole number of {value.bit_length()} bits; the limit is {MAX_INT_BITS} bits",
                            self.mark(node))
        if type(value) is str and len(value) <= MAX_INTERNED:
            return _intern(value)
        return value


def _number(text: str) -> Any:
    t = text.strip()
    if t == "":
        return None
    if len(t) > MAX_NUMBER_CHARS and t.lstrip("+-").isdigit():
        return t  # too long to be a number of a game: kept as text
    for conv in (int, float):
        try:
            return conv(t)
        except ValueError:
            pass
    if t.lower() in ("true", "false"):
        return t.lower() == "true"
    return _intern(t) if len(t) <= MAX_INTERNED else t


def _csv_lines(reader, path: Path):
    """The rows of a CSV ``reader``; a malformed table (a cell over the csv module's size limit,
    say) is a LoadError at its line."""
    try:
        yield from reader
    except csv.Error as exc:
        raise LoadError(f"not a valid CSV table: {exc}", Mark(str(path), max(reader.line_num, 1), 1)) from None


def load_table(base: Path, relpath: str, mark: Mark) -> tuple[list[dict], list[Mark]]:
    """Read a data table (CSV with a header row, or a YAML list of mappings) at ``relpath``
    relative to ``base``.

    CSV cells that look like numbers or booleans become numbers or booleans; empty cells None.
    Returns the rows and one mark per row.

    Raises:
        LoadError: missing file, a path outside the ruleset's folder, ragged CSV rows, a YAML
            table that is not a list of mappings.
    """
    rel = Path(relpath)
    if rel.is_absolute() or ".." in rel.parts:
        raise LoadError(f"a table is included by a relative path inside the ruleset's folder, not {relpath!r}", mark)
    path = base / rel
    _note_read(path)
    # The real path must lie inside the ruleset's folder: a symbolic link (or a linked folder)
    # pointing outside it is refused, and its target is never read nor named.
    try:
        inside = path.resolve(strict=True).is_relative_to(base.resolve(strict=True))
    except (OSError, RuntimeError):
        raise LoadError(f"table {relpath!r} not found (looked at {path})", mark) from None
    if not inside:
        raise LoadError(f"table {relpath!r} lies outside the ruleset's folder (through a symbolic link); "
                        "tables must be files inside it", mark)
    if not path.is_file():
        raise LoadError(f"table {relpath!r} is not a regular file", mark)
    if path.suffix.lower() == ".csv":
        text = _read(path)
        # `#` comment lines become blank lines, so line numbers stay true.
        text = "\n".join("" if ln.lstrip().startswith("#") else ln for ln in text.split("\n"))
        reader = csv.reader(io.StringIO(text))
        lines = _csv_lines(reader, path)
        rows: list[dict] = []
        marks: list[Mark] = []
        header: list[str] = []
        for header in lines:
            if header and any(c.strip() for c in header):
                break
        if not header:
            raise LoadError("the table is empty: expected a header row", Mark(str(path), 1, 1))
        header = [_intern(h.strip()) for h in header]
        if len(set(header)) != len(header) or "" in header:
            raise LoadError("the header row has an empty or repeated column name", Mark(str(path), 1, 1))
        for row in lines:
            if not row or all(not c.strip() for c in row):
                continue
            line = reader.line_num
            if len(row) != len(header):
                raise LoadError(
                    f"expected {len(header)} cells ({', '.join(header)}), found {len(row)}",
                    Mark(str(path), line, 1),
                )
            rows.append({h: _number(c) for h, c in zip(header, row)})
            marks.append(Mark(str(path), line, 1))
        return rows, marks
    doc = load_yaml(path)
    if not isinstance(doc.data, list) or not all(isinstance(r, dict) for r in doc.data):
        raise LoadError("a YAML table must be a list of mappings", doc.mark(()))
    for i, r in enumerate(doc.data):
        for k in r:
            if not isinstance(k, str):  # `1: x`: fields are read by name (`c.rank`)
                raise LoadError(f"a column name is text, found {k!r}", doc.mark((i, k)))
    return doc.data, [doc.mark((i,)) for i in range(len(doc.data))]
