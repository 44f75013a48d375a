"""Load-time warnings: YAML that loads and validates but rarely means what it says (issue 17).

- the text ``'none'``/``'None'`` (YAML's null is ``null`` or ``~``) or a quoted ``'true'``/
  ``'false'`` in a place that takes a value (``vars``, ``initial:``, ``params``): ``x is none`` is
  false for it;
- a string that parses as an expression (``initial: "[-1] * 42"``) in a place that takes a value,
  not an expression: it stays that text;
- a component's inline row (``items:``) with a field named by words and spaces and no value
  (``{text: brew two beers, a grain each}``): inside ``{...}`` a ``, `` ended the text before it.

``tapster validate`` prints them (``file:line:col: warning: ...``) and fails on them with
``--strict``.  Which keys take values and which take expressions is listed in docs/reference.md
("Values and expressions").
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..errors import Mark, TapsterError
from ..lang.expression import parse
from ..loader.load import Document

__all__ = ["LoadWarning", "warnings"]

_NULL_WORDS = {"none", "None", "NONE", "nil", "Null"}
_BOOL_WORDS = {"true", "True", "TRUE", "false", "False", "FALSE", "yes", "no"}
_OPERATOR_CHARS = set(" ([*/+<>=%")


@dataclass(frozen=True)
class LoadWarning:
    """A warning at ``mark`` (file:line:column, or None): ``message`` says what was found and what
    to write instead."""

    message: str
    mark: Mark | None

    def __str__(self) -> str:
        where = f"{self.mark.file}:{self.mark.line}:{self.mark.column}: " if self.mark else ""
        return f"{where}warning: {self.message}"


def _strings(value, path: tuple, depth: int = 0) -> Iterator[tuple[tuple, str]]:
    if depth > 64:
        return
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, path + (i,), depth + 1)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, path + (k,), depth + 1)


def _value_places(data: dict, base: tuple = ()) -> Iterator[tuple[tuple, object, str]]:
    """(path, value, key name) of every place in ``data`` that takes a value, not an expression."""
    for name, spec in (data.get("vars") or {}).items() if isinstance(data.get("vars"), dict) else ():
        if isinstance(spec, dict):
            if "initial" in spec:
                yield base + ("vars", name, "initial"), spec["initial"], f"vars: {name}: initial"
        else:
            yield base + ("vars", name), spec, f"vars: {name}"
    for name, spec in (data.get("params") or {}).items() if isinstance(data.get("params"), dict) else ():
        if isinstance(spec, dict) and "value" in spec:
            yield base + ("params", name, "value"), spec["value"], f"params: {name}: value"
        else:
            yield base + ("params", name), spec, f"params: {name}"


def _check(text: str) -> str | None:
    if text in _NULL_WORDS:
        return f"the text {text!r}, not nothing: YAML's null is `null` or `~` (`x is none` is false for {text!r})"
    if text in _BOOL_WORDS:
        return f"the text {text!r}, not a boolean: write true or false unquoted"
    if _OPERATOR_CHARS & set(text):
        try:
            tree = parse(text)
        except TapsterError:
            return None
        if getattr(tree, "data", None) not in ("name", "number", "string"):
            return (f"the text {text!r} ({len(text)} characters), not its value: this key takes a value, not an "
                    "expression; write the value itself (a list as [..]) or compute it in `setup`")
    return None


def _cut_rows(data: dict, base: tuple = ()) -> Iterator[tuple[tuple, str]]:
    """(path, key) of every field of a component's inline row (``items:``) whose name holds a
    space and whose value is null: the rest of a text a ``, `` cut off inside a flow mapping."""
    kinds = data.get("components")
    for kind, spec in kinds.items() if isinstance(kinds, dict) else ():
        items = spec.get("items") if isinstance(spec, dict) else None
        for i, row in enumerate(items) if isinstance(items, list) else ():
            for key, value in row.items() if isinstance(row, dict) else ():
                if isinstance(key, str) and " " in key.strip() and value is None:
                    yield base + ("components", kind, "items", i, key), key


def warnings(doc: Document) -> list[LoadWarning]:
    """The warnings of a ruleset document (its base keys and each variant's), in document order."""
    data = doc.data if isinstance(doc.data, dict) else {}
    places = list(_value_places(data))
    variants = data.get("variants")
    if isinstance(variants, dict):
        for v, over in variants.items():
            if isinstance(over, dict):
                places += _value_places(over, ("variants", v))
    out = []
    for path, value, key in places:
        for spath, text in _strings(value, path):
            problem = _check(text)
            if problem:
                out.append(LoadWarning(f"{key}: {problem}", doc.mark(spath)))
    for path, key in _cut_rows(data):
        out.append(LoadWarning(
            f"components: {path[1]}: items: the row has a field `{key}` with no value: inside `{{...}}` a `, ` ends a "
            f"text, so the words after it became a field; quote the whole text (`\"..., {key}\"`)", doc.mark(path)))
    return out
