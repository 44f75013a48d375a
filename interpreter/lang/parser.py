"""The expression language's parser: text to parse tree, once per distinct text.

:func:`parse` reads an expression with Lark (LALR, the grammar in ``expression.lark``, its
analysis cached in the user's cache folder) into a tree of :class:`Node` and :class:`Tok`,
refusing texts over the length and nesting limits and naming common mistakes (``&&``, ``=``...)
with file:line:column and a caret excerpt.  Trees are kept per text in the process, and a
ruleset's trees can be saved and loaded as JSON (:func:`save_trees`, :func:`preload_trees`), so
that a second load needs neither Lark nor parsing.

Imports: the roots (errors, limits) and the loader's number limit; Lark, lazily.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import ExpressionSyntaxError, Mark
from ..limits import MAX_EXPRESSION_CHARS, MAX_NESTING

_GRAMMAR = Path(__file__).with_name("expression.lark")
_PARSER = None  # a lark.Lark, built on first use (importing Lark costs ~50 ms: not for `import interpreter`)


def _parser():
    global _PARSER
    if _PARSER is None:
        from lark import Lark

        options = {"parser": "lalr", "propagate_positions": True, "maybe_placeholders": True}
        grammar = _GRAMMAR.read_text(encoding="utf-8")
        cache = _parser_cache_path()
        if cache is not None:
            try:  # the grammar's analysis, saved by Lark: ~80 ms once, ~5 ms after
                _PARSER = Lark(grammar, cache=str(cache), **options)
            except Exception:  # noqa: BLE001 - a damaged or unwritable cache: build without it
                _PARSER = None
        if _PARSER is None:
            _PARSER = Lark(grammar, **options)
    return _PARSER


def _parser_cache_path():
    """Where Lark keeps the grammar's analysis: in the user's own cache folder (never a shared
    temporary folder, since Lark's cache is a pickle), or None when there is none."""
    from ..loader.schema import _cache_dir

    d = _cache_dir()
    if d is None:
        return None
    d = d.parent
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    import lark

    return d / f"expression-grammar-lark{lark.__version__}.cache"


# ---------------------------------------------------------------------------------------------
# Parsing

#: Common mistakes: (regex on the text, message).  Checked when a parse fails, and run as a test.
COMMON_MISTAKES: list[tuple[str, str]] = [
    (r"&&", "use `and` instead of `&&`"),
    (r"\|\|", "use `or` instead of `||`"),
    (r"(?<![=!<>])=(?!=)", "use `==` to compare; `=` only names a keyword argument"),
    (r"!(?!=)", "use `not` instead of `!`"),
    (r"\bnull\b|\bnil\b", "write `none` for the absence of a value"),
    (r"\belif\b", "there is no `elif`: nest `a if c else (b if d else e)`"),
    (r"\blambda\b", "there is no `lambda`: use a generator such as `max(c.rank for c in zone)`"),
    (r"\?.*:", "there is no `c ? a : b`: write `a if c else b`"),
]


def mark_in(mark: Mark | None, line: int, column: int) -> Mark | None:
    """The file mark of (line, column) inside an expression that starts at ``mark``."""
    if mark is None:
        return None
    if line <= 1:
        return Mark(mark.file, mark.line, mark.column + column - 1)
    # A later line of the text: a literal block's lines all start at its indentation.
    return Mark(mark.file, mark.line + line - 1, mark.column + column - 1)


def excerpt(text: str, line: int, column: int) -> str:
    lines = text.splitlines() or [""]
    src = lines[min(line, len(lines)) - 1]
    return f"    {src}\n    {' ' * (column - 1)}^"


#: Grammar nodes that only group their parent's parts (not a level of nesting of their own).
_WRAPPERS = frozenset({"exprs", "pairs", "pair", "args", "comp_clauses", "comp_for", "comp_if", "targets"})


def shorten(text: str, n: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


def _check_nesting(tree, text: str, mark: Mark | None) -> None:
    """Raise unless ``tree`` nests at most MAX_NESTING levels (checked without recursion)."""
    todo = [(tree, 1)]
    while todo:
        node, depth = todo.pop()
        if not hasattr(node, "data"):  # a token
            continue
        if depth > MAX_NESTING:
            meta = node.meta
            line, column = (meta.line, meta.column) if not meta.empty else (1, 1)
            raise ExpressionSyntaxError(
                f"expression `{shorten(text)}` nests more than {MAX_NESTING} levels deep (brackets, operators,"
                " calls); simplify it or split it with `let` or a function",
                mark_in(mark, line, column),
            )
        todo.extend((ch, depth if getattr(ch, "data", None) in _WRAPPERS else depth + 1) for ch in node.children)


#: Parse trees by expression text: each distinct text is parsed once per process (variants and
#: repeated formulas share them; trees are never changed after parsing).
_PARSED: dict[str, Any] = {}
_MAX_PARSED = 100_000
#: The expression texts parsed while a ruleset compiles (set by the compiler), for save_trees.
RECORD: set | None = None


class Node:
    """A node of a parse tree: ``data`` (the rule's name), ``children`` (nodes and tokens),
    ``meta`` (its ``line``/``column`` in the expression).  Parse trees are made of these and
    :class:`Tok` whether they come from Lark or from the tree cache (:func:`preload_trees`)."""

    __slots__ = ("data", "children", "meta")

    def __init__(self, data: str, children: list, meta: Meta):
        self.data, self.children, self.meta = data, children, meta

    def __repr__(self) -> str:
        return f"Node({self.data!r}, {self.children!r})"


class Meta:
    """Where a node starts in its expression (``empty``: no position known)."""

    __slots__ = ("line", "column", "empty")

    def __init__(self, line: int, column: int, empty: bool):
        self.line, self.column, self.empty = line, column, empty


class Tok(str):
    """A token of a parse tree: its text, with ``type``, ``line`` and ``column``."""

    def __new__(cls, type_: str, value: str, line: int, column: int):
        t = super().__new__(cls, value)
        t.type, t.line, t.column = type_, line, column
        return t


def _own(tree) -> Any:
    """A Lark tree as :class:`Node`/:class:`Tok` (without recursion: trees nest 100 deep)."""
    def convert(x):
        if x is None:
            return None
        if hasattr(x, "data"):
            m = x.meta
            empty = getattr(m, "empty", True)
            return Node(str(x.data), [], Meta(getattr(m, "line", 1) if not empty else 1,
                                              getattr(m, "column", 1) if not empty else 1, empty))
        return Tok(str(x.type), str(x), x.line or 1, x.column or 1)

    root = convert(tree)
    todo = [(tree, root)]
    while todo:
        src, dst = todo.pop()
        if not hasattr(src, "data"):
            continue
        for ch in src.children:
            mine = convert(ch)
            dst.children.append(mine)
            if ch is not None and hasattr(ch, "data"):
                todo.append((ch, mine))
    return root


def _to_json(tree) -> Any:
    """A tree as JSON data: a node ``[data, line, column, empty, child...]``, a token
    ``{"t": type, "v": text, "l": line, "c": column}``, a missing optional part ``null``."""
    if tree is None:
        return None
    if isinstance(tree, Node):
        m = tree.meta
        return [tree.data, m.line, m.column, m.empty, *[_to_json(ch) for ch in tree.children]]
    return {"t": tree.type, "v": str(tree), "l": tree.line, "c": tree.column}


def _from_json(data) -> Any:
    if data is None:
        return None
    if isinstance(data, dict):
        return Tok(str(data["t"]), str(data["v"]), int(data["l"]), int(data["c"]))
    return Node(str(data[0]), [_from_json(ch) for ch in data[4:]], Meta(int(data[1]), int(data[2]), bool(data[3])))


def _trees_path(text: str) -> Any:
    """The tree cache file of a ruleset whose text is ``text`` (with the grammar's digest in
    the name), or None without a cache folder."""
    d = _trees_dir()
    if d is None:
        return None
    h = _grammar_digest().copy()
    h.update(text.encode("utf-8", "surrogatepass"))
    return d / f"{h.hexdigest()}.json"


def _trees_dir() -> Any:
    """The folder of the tree cache files, or None without a cache folder."""
    from ..loader.schema import _cache_dir

    d = _cache_dir()
    return None if d is None else d.parent / "trees"


@lru_cache(maxsize=1)
def _grammar_digest():
    """SHA-256 of the grammar file, read once: the start of every tree cache file's name."""
    import hashlib

    return hashlib.sha256(_GRAMMAR.read_bytes())


def preload_trees(source_text: str, file: Any = None) -> bool:
    """Load the parse trees saved for a ruleset file whose text is ``source_text`` (see
    :func:`save_trees`): its expressions then need neither Lark nor parsing.  False when there
    is no usable cache.  A damaged cache file is ignored (and parsed anew).

    When the text has none (the file was edited since), the trees saved for the last text of
    the same ``file`` (its path) are loaded all the same, and False returned: every expression
    the edit left as it was is not parsed again (a tree depends on its text alone), and the
    caller saves the new text's trees."""
    path = _trees_path(source_text)
    if path is None:
        return False
    if _load_trees(path):
        return True
    if file is not None:
        latest = _latest_path(file)
        try:
            name = latest.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeError):
            return False
        if re.fullmatch(r"[0-9a-f]{64}\.json", name):
            _load_trees(path.parent / name)
    return False


def _load_trees(path) -> bool:
    """Read a tree cache file into the parsed trees (at most once per version of the file)."""
    import json

    try:
        st = path.stat()
    except OSError:
        return False
    seen = (str(path), st.st_mtime_ns, st.st_size)
    if seen in _PRELOADED:  # this process read this file already (a variant after its base)
        return True
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        trees = {str(k): _from_json(v) for k, v in data.items()}
    except (OSError, ValueError, TypeError, KeyError, IndexError, RecursionError):
        return False
    for k, v in trees.items():
        if len(_PARSED) < _MAX_PARSED:
            _PARSED.setdefault(k, v)
    if len(_PRELOADED) < 64:
        _PRELOADED.add(seen)
    return True


def _latest_path(file: Any) -> Any:
    """The file naming the tree cache of ``file``'s last saved text (the grammar's digest and the
    resolved path in its name); called only with a cache folder."""
    h = _grammar_digest().copy()
    h.update(b"\0file\0" + str(Path(file).resolve()).encode("utf-8", "surrogatepass"))
    return _trees_dir() / "latest" / f"{h.hexdigest()}.txt"


#: The tree files :func:`preload_trees` read in this process: (path, modification time, size).
_PRELOADED: set = set()


def save_trees(source_text: str, texts, file: Any = None) -> None:
    """Save the parse trees of ``texts`` (expression texts of one ruleset file) for the next
    run, and remember them as the last of ``file`` (its path; see :func:`preload_trees`);
    nothing happens without a cache folder or when it cannot be written."""
    import json

    path = _trees_path(source_text)
    if path is None:
        return
    data = {t: _to_json(_PARSED[t]) for t in texts if t in _PARSED}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
        tmp.replace(path)
        if file is not None:
            latest = _latest_path(file)
            latest.parent.mkdir(parents=True, exist_ok=True)
            tmp = latest.with_suffix(".tmp")
            tmp.write_text(path.name, encoding="utf-8")
            tmp.replace(latest)
    except (OSError, ValueError, RecursionError):
        pass


def parse(text: str, mark: Mark | None = None) -> Any:
    """Parse expression ``text``; ``mark`` is where it stands in its file.

    Returns the Lark tree.  Raises:
        ExpressionSyntaxError: with the mark of the offending character and a caret excerpt.
    """
    if not isinstance(text, str):
        text = str(text)
    if RECORD is not None and len(RECORD) < _MAX_PARSED:
        RECORD.add(text)
    tree = _PARSED.get(text)
    if tree is not None:
        return tree
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ExpressionSyntaxError(
            f"expression `{shorten(text)}` is {len(text)} characters long; the limit is {MAX_EXPRESSION_CHARS}"
            " (split it with `let` or a function)",
            mark,
        )
    parser = _parser()
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

    try:
        tree = _own(parser.parse(text))
        _check_nesting(tree, text, mark)
        if len(_PARSED) < _MAX_PARSED:
            _PARSED[text] = tree
        return tree
    except UnexpectedInput as exc:
        line, column = exc.line if exc.line > 0 else 1, exc.column if exc.column > 0 else len(text) + 1
        if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
            found = "the end of the expression"
            line, column = 1, len(text) + 1
        elif isinstance(exc, UnexpectedCharacters):
            found = repr(text[exc.pos_in_stream]) if exc.pos_in_stream < len(text) else "end"
        else:
            found = repr(str(exc.token))
        expected = sorted(getattr(exc, "expected", None) or getattr(exc, "allowed", None) or [])
        hint = ""
        for pattern, message in COMMON_MISTAKES:
            if re.search(pattern, text):
                hint = f" ({message})"
                break
        exp = ""
        if expected:
            names = [_TOKEN_NAMES.get(e, e.lower()) for e in expected][:8]
            exp = f"expected {', '.join(names)}; "
        raise ExpressionSyntaxError(
            f"cannot parse expression `{text}`: {exp}found {found}{hint}",
            mark_in(mark, line, column),
            excerpt(text, line, column),
        ) from None


_TOKEN_NAMES = {
    "NAME": "a name",
    "NUMBER": "a number",
    "STRING": "a string",
    "RPAR": "`)`",
    "LPAR": "`(`",
    "RSQB": "`]`",
    "LSQB": "`[`",
    "RBRACE": "`}`",
    "COMMA": "`,`",
    "COLON": "`:`",
    "DOT": "`.`",
    "ELSE": "`else`",
    "IN": "`in`",
    "MINUS": "`-`",
    "PLUS": "`+`",
    "STAR": "`*`",
    "SLASH": "`/`",
    "__ANON_0": "a name",
}
