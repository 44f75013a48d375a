"""Checked data references: procedure names that a ``call: {dynamic: ...}`` builds from table
data or parameters, checked against the procedures when the ruleset is compiled (so
``tapster validate`` refuses them, rather than a game failing with ``no procedure named``).

A dynamic call's name expression is read as a chain of ``+`` (``'ab_' + c.power``,
``'ch_' + c.effect + '_now'``, a lone ``c.effect``); each part must be one whose values are
known without playing:

- a text literal;
- a field of components (``c.effect``, a field no component kind declares mutable): the text in
  that field of every component that has it (the table cells);
- a parameter (``mode``): its text; an item of one (``abilities[i]``, ``costs['x']``): each
  text item or value of the parameter's list or record.

Any other part (a variable, a ``let`` name, a call) leaves the call unchecked, as the code
generator's own reading does (:func:`interpreter.engine.flowgen._candidates` narrows by the
leading text only).  Values that are not texts (a number, none) and empty texts are left out: a
``'ab_' + c.power`` where some kinds hold no power is fine when the rules never call it for
them; and where one part is read from the table, a component kind none of whose cells makes a
procedure's name is taken as one the call never gets (``'ab_' + c.name`` for action cards, in a
deck whose coins have names too), so a typo is caught among its kind's good cells.  Every
name the parts can make must be a procedure's; one that is not is reported at the cell or
parameter that made it (``file:line:col``), with the call's place, the nearest procedure names
and the fix.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from ..engine import flow
from ..errors import CompileError, close_matches

__all__ = ["check_dynamic_calls", "check_by_players", "MAX_NAMES"]

#: Names one dynamic call's parts may make at most for the check (more: left unchecked).
MAX_NAMES = 100_000


def check_dynamic_calls(ctx, rs) -> list[CompileError]:
    """The errors of every ``call: {dynamic: ...}`` in ``ctx.blocks`` (every compiled block:
    setup, flow, procedures, triggers) whose name is built from a constant prefix and table
    data or parameters (see the module's notes) and can name a procedure that does not exist.

    ``ctx``: the compilation context (its ``blocks``, ``procedures``, ``mutable``, ``doc`` and
    ``component_rows``); ``rs``: the ruleset being built (its ``components`` and ``params``).
    One error per (name, cell) pair, in the order the calls were compiled.
    """
    errors: list[CompileError] = []
    reported: set = set()
    for block in ctx.blocks:
        for eff in block.effects:
            if type(eff) is not flow.Call or eff.dynamic is None or eff.dynamic.source is None:
                continue
            tree, scope = eff.dynamic.source
            parts = _chain(tree)
            values = [_values(ctx, rs, part, scope) for part in parts]
            if any(v is None for v in values) or all(len(v) == 1 and v[0][1] is None for v in values):
                continue  # a part known only in play; or no data at all (a literal name)
            data_parts = [i for i, v in enumerate(values) if any(src is not None for _, src in v)]
            if len(data_parts) == 1:  # one column: only the kinds some of whose cells name procedures
                values[data_parts[0]] = _called_kinds(ctx, values, data_parts[0])
            total = 1
            for v in values:
                total *= len(v)
            if total == 0 or total > MAX_NAMES:
                continue
            for combo in product(*values):
                name = "".join(text for text, _ in combo)
                if name in ctx.procedures:
                    continue
                source = next(src for _, src in combo if src is not None)
                key = (name, source[0])
                if key in reported:
                    continue
                reported.add(key)
                errors.append(_error(ctx, eff, name, source))
    return errors


def check_by_players(ctx, rs, texts) -> list[CompileError]:
    """The errors of every value per player count that some game of ``rs`` cannot read: each
    ``by_players(c.FIELD)`` or ``by_players(PARAM)`` in the expressions ``texts`` (the texts
    the compilation parsed) whose table cells of ``FIELD`` (or the parameter) hold a record
    keyed by seat counts without one of the counts from ``players: min`` to ``max``.  Reported
    at the cell or parameter (``file:line:col``), naming the missing counts and the fix; a
    value that is not a record is the same for every count and fine.  One error per cell."""
    from ..errors import TapsterError
    from ..lang.parser import parse

    counts = list(range(rs.min_players, rs.max_players + 1))
    errors: list[CompileError] = []
    reported: set = set()
    for text in sorted(texts):
        try:
            tree = parse(text)
        except TapsterError:
            continue
        todo = [tree]
        while todo:
            node = todo.pop()
            kids = getattr(node, "children", None)
            if kids is None:
                continue
            todo.extend(kids)
            if getattr(node, "data", None) != "call" or kids[0] != "by_players" or len(kids) < 2:
                continue
            args = getattr(kids[1], "children", None) or []
            if len(args) != 1:
                continue
            arg = args[0]
            kind = getattr(arg, "data", None)
            if kind == "attr":
                field = str(arg.children[1])
                places = [(c.fields.get(field), f"the table cell `{field}` of `{c.id}`", _cell_mark(ctx, c.id, field))
                          for c in rs.components if field not in ctx.mutable]
            elif kind == "name" and str(arg.children[0]) in rs.params:
                pname = str(arg.children[0])
                places = [(rs.params[pname], f"the parameter `{pname}`", _param_mark(ctx, pname, None))]
            else:
                continue
            for value, what, mark in places:
                if not isinstance(value, dict) or (what, text) in reported:
                    continue
                missing = [n for n in counts if n not in value]
                if missing:
                    reported.add((what, text))
                    shown = ", ".join(str(n) for n in missing)
                    errors.append(CompileError(
                        f"{what} is a value per player count for `{text}` but has none for {shown} player(s) "
                        f"(the game takes {rs.min_players} to {rs.max_players}; expected a key for each count, found "
                        f"{', '.join(str(k) for k in value) or 'none'}): add "
                        f"{', '.join(f'`{n}: VALUE`' for n in missing)}", mark))
    return errors


def _called_kinds(ctx, values: list, i: int) -> list:
    """The values of part ``i`` (the one part read from data) whose component kind has at least
    one cell that makes a procedure's name with the other parts (literals) around it, and every
    parameter's: a kind none of whose cells names a procedure is taken as one the call never
    gets (coins in a deck whose action cards name abilities by the same field)."""
    before = "".join(v[0][0] for v in values[:i])
    after = "".join(v[0][0] for v in values[i + 1:])
    called = {src[2] for text, src in values[i] if before + text + after in ctx.procedures}
    return [(text, src) for text, src in values[i] if src[2] is None or src[2] in called]


def _error(ctx, eff, name: str, source: tuple) -> CompileError:
    what, mark = source[0], source[1]
    close = close_matches(name, list(ctx.procedures), n=3)
    hint = f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""
    where = eff.dynamic.mark
    at = f" ({where.file}:{where.line}:{where.column})" if where is not None else ""
    return CompileError(
        f"{what} makes the procedure name `{name}` in `call: {{dynamic: {eff.dynamic.text}}}`{at}, "
        f"and no procedure has that name{hint} (expected one of the procedures the call can name: "
        f"fix the value, or add the procedure `{name}`)", mark)


def _chain(tree: Any) -> list:
    """The operands of a chain of ``+`` (``a + b + c`` parses as ``(a + b) + c``), in order."""
    parts = []
    todo = [tree]
    while todo:
        node = todo.pop()
        if getattr(node, "data", None) == "add":
            todo.extend(reversed(node.children))
        else:
            parts.append(node)
    return parts


def _values(ctx, rs, node: Any, scope) -> list[tuple[str, tuple | None]] | None:
    """The texts ``node`` can give, each with where it comes from (``(what, mark, component
    kind or None)``, None for a literal), or None when they are not known without playing."""
    from ..lang.builtins import unescape

    data = getattr(node, "data", None)
    if data == "string":
        return [(unescape(str(node.children[0])[1:-1]), None)]
    if data == "attr":
        field = str(node.children[1])
        if field in ctx.mutable:
            return None
        out = []
        for c in rs.components:
            v = c.fields.get(field)
            if type(v) is str and v and field not in ("id", "kind"):
                out.append((v, (f"the table cell `{field}: {v}` of `{c.id}`", _cell_mark(ctx, c.id, field), c.kind)))
        return _distinct(out) if out else None
    if data == "name":
        pname = str(node.children[0])
        if pname in scope.locals or pname not in rs.params:
            return None
        v = rs.params[pname]
        if type(v) is str and v:
            return [(v, (f"the parameter `{pname}: {v}`", _param_mark(ctx, pname, None), None))]
        return None
    if data == "index":
        base = node.children[0]
        if getattr(base, "data", None) != "name":
            return None
        pname = str(base.children[0])
        if pname in scope.locals or pname not in rs.params:
            return None
        container = rs.params[pname]
        if isinstance(container, dict):
            items = list(container.items())
        elif isinstance(container, (list, tuple)):
            items = list(enumerate(container))
        else:
            return None
        out = [(v, (f"the parameter `{pname}`'s item `{v}`", _param_mark(ctx, pname, k), None))
               for k, v in items if type(v) is str and v]
        return _distinct(out) if out else None
    return None


def _distinct(values: list) -> list:
    """``values`` with one entry per text (the first source of each kept)."""
    seen: dict = {}
    for text, src in values:
        seen.setdefault(text, src)
    return list(seen.items())


def _cell_mark(ctx, ident: str, field: str):
    """The mark of component ``ident``'s cell ``field``: in an inline item, the value's own;
    in a table file, its row's."""
    rmark, rpath = ctx.component_rows.get(ident, (None, None))
    return ctx.doc.text_mark(rpath + (field,)) if rpath is not None else rmark


def _param_mark(ctx, pname: str, key: Any):
    """The mark of parameter ``pname``'s value (its item ``key`` when given), written
    ``name: value`` or ``name: {value: ...}``; the nearest written place otherwise."""
    path = ("params", pname)
    if path + ("value",) in ctx.doc.marks:
        path += ("value",)
    return ctx.doc.text_mark(path + ((key,) if key is not None else ()))
