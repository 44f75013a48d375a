"""Drawing a game for people: the ``display:`` a ruleset declares, evaluated for one seat.

Nothing here knows a game.  A display has four parts, all optional::

    display:
      header: ["Turn {turns_taken}"]            # text lines before the board (templates)
      board:                                    # a grid of places, each drawn as a box of lines
        zone: field                             # a keyed zone whose keys are (x, y) places, or
        # places: "[((i % 3, i // 3), board[i]) for i in range(9)]"   # (place, value) pairs
        let: {m: "top(stack)"}                  # names computed per place; `key` and `stack`
                                                #   (zone) or `key` and `value` (places) are bound
        cell:                                   # the lines of an occupied place: a template, or
          - "{m.name}"                          #   [left, centre, right] templates on one line
          - ["{m.west}", "", "{m.east}"]
        width: 11                               # characters inside a place (at least; default 0)
        empty: "."                              # text of an empty place inside the extent
        edges:                                  # markers outside the board, one line each
          - {side: "marker_side", text: "MARKER"}   # side: a bearing 0/90/180/270, or none (hidden)
      table:                                    # what lies on the table, drawn from each seat's
        - {hand: hand, title: Hands}            #   observation: a per-player zone, one row per seat
        - {pile: deck, show: count}             #   a zone: all | top | count (hidden: a count)
        - {track: score, min: 0, max: 30}       #   a number per seat (or one) on a track
        - {counter: round, if: "round > 0"}    #   a value shown by name (per seat if per-player);
                                                #   `if:` (public) draws an item only when it holds
        - {counter: bp, cells: colours}         #   a list as named cells, a row per seat
      map: {name: belgium, zone: pawns, colour: colour, label: name}   # pieces on a map
      round: round                              # the variable counting rounds (turn headers)
      footer:                                   # a template, or one line per item:
        - {for: p, in: players, text: "P{p + 1}: {score[p]}"}

**Hidden information.**  Header, footer and board are evaluated on the game state, so each is
checked when the ruleset compiles (:mod:`interpreter.views.publicity`): a line or a board that could
read what some seat may not see is *private*.  A seat's view (:func:`view_observation` with a
seat) leaves private parts out; only an observer (no seat) sees them.  ``table`` and ``map``
items are drawn by :mod:`interpreter.views.view` from the observation itself, where hidden zones are
counts.  ``tapster check`` and ``validate`` name each private part and what it reads.

:func:`view_observation` returns ``State.observation(p)`` with the display's public parts
evaluated under ``"display"``; :func:`draw_board` draws a board as text; :func:`render_board`
is the observer's text of header, board and footer (None without a display).  The extent drawn
is the rectangle of the occupied places; columns and rows are labelled with their x and y.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import TapsterError
from ..lang.builtins import _extent
from ..lang.expression import Env
from ..limits import MAX_BOARD_CELLS, MAX_CELL_WIDTH
from .faces import compile_faces
from .publicity import Knowledge, private_read, template_expressions

if TYPE_CHECKING:  # pragma: no cover
    from ..compile.compiler import Ctx
    from ..engine.state import State

__all__ = ["Display", "TableItem", "compile_display", "draw_board", "render_board", "view_observation"]

#: The kinds of ``display.table`` items (the key that names the item's zone or variable).
TABLE_KINDS = ("hand", "pile", "track", "counter")


class Line:
    """A compiled header or footer entry: ``lines(env) -> list of str``; ``why`` None when it
    reads only what every seat sees, else the reason it is private; ``text`` its source and
    ``mark`` its place in the file."""

    __slots__ = ("lines", "why", "text", "mark")


class BoardDisplay:
    """A compiled ``display.board``: ``zone`` name (or None) or ``places`` (Compiled giving
    (place, value) pairs), per-place ``lets`` ((name, Compiled)), ``lines`` (each a tuple of one
    template or three: left, centre, right), ``width``, ``empty`` text, ``edges`` ((side
    Compiled, text template)), ``side_acts`` (the options whose actions are attached to a side of
    the board: their first argument is the side's bearing); ``why`` None when public, else why it
    is private."""

    __slots__ = ("zone", "places", "lets", "lines", "width", "empty", "edges", "side_acts", "why", "mark")


class TableItem:
    """A ``display.table`` item: ``kind`` (hand | pile | track | counter), ``name`` (the zone
    or variable), ``title``, ``show`` (all | top | count, for zones), ``low``/``high`` (a
    track's range, or None to fit the values), ``cond`` (``if:``, a Compiled condition reading
    only public information: the item is drawn when it holds; None: always), ``acts`` (the
    options whose actions are attached to the item in the browser: a zone's pile, the deciding
    seat's own for a hand; one of a zone's ``count`` groups when the action's first argument is
    a whole number, the group's index; a track or counter, the seat's own row of a per-player
    variable), ``cells`` (a counter's names of its cells, or None: see :func:`_cell_names`)."""

    __slots__ = ("kind", "name", "title", "show", "low", "high", "cond", "acts", "cells")

    def to_json(self) -> dict:
        """The item as JSON data (what :mod:`interpreter.views.view` reads)."""
        out = {"kind": self.kind, "name": self.name, "title": self.title, "show": self.show,
               "low": self.low, "high": self.high, "acts": [dict(a) if isinstance(a, dict) else a for a in self.acts]}
        if self.cells is not None:
            out["cells"] = list(self.cells)
        return out


class Display:
    """A compiled ``display``: ``header`` and ``footer`` (lists of :class:`Line`), the
    ``board`` (or None), the ``table`` items and the ``map`` (a dict: name, zone, colour,
    label; or None), ``round`` (the public variable counting rounds, for turn headers, or
    None) and ``faces`` (``{component id: Face}``, :mod:`interpreter.views.faces`)."""

    __slots__ = ("header", "footer", "board", "table", "map", "round", "faces")

    def private_parts(self) -> list[tuple[str, str, str, Any]]:
        """Every private part: ``(where, source text, why, mark)``, e.g. ``("display.footer[1]",
        "...", "reads `coin` (a variable declared `visibility: owner`)", Mark)``, for the
        authoring checks (``validate`` notes, ``check``'s ``views hide``)."""
        out = []
        for part in ("header", "footer"):
            for i, line in enumerate(getattr(self, part)):
                if line.why is not None:
                    out.append((f"display.{part}[{i}]", line.text, line.why, line.mark))
        if self.board is not None and self.board.why is not None:
            out.append(("display.board", self.board.zone or "places", self.board.why, self.board.mark))
        return out


def _knowledge(ctx: Ctx) -> Knowledge:
    return Knowledge(
        {n: z.visibility for n, z in ctx.zones.items()},
        {n: v.visibility for n, v in ctx.vars.items()},
        ctx.rs.params,
        ctx.rs.maps,
        ctx.functions,
        ctx.mutable,
        ((ctx.data.get("outcome") or {}).get("score") if isinstance(ctx.data, dict) else None),
    )


def _why_template(know: Knowledge, text: Any, locals_: dict) -> str | None:
    for part in template_expressions(text):
        why = private_read(part, know, locals_)
        if why is not None:
            return why
    return None


def _why_expr(know: Knowledge, text: Any, locals_: dict) -> str | None:
    return private_read(text, know, locals_) if isinstance(text, str) else None


def compile_display(ctx: Ctx, spec: Any) -> Display | None:
    """Compile a ruleset's ``display`` section (None when absent).

    Raises:
        CompileError: the board's zone is not a keyed zone, or it has both or neither of
            ``zone``/``places``; a table item names no declared zone or variable, or a hand
            a zone that is not per player; expression problems in templates.
    """
    if not spec:
        return None
    path = ("display",)
    scope = ctx.scope
    know = _knowledge(ctx)
    d = Display()
    d.header = [_text_line(ctx, know, t, path + ("header", i), scope) for i, t in enumerate(spec.get("header") or [])]
    d.footer = [_text_line(ctx, know, t, path + ("footer", i), scope) for i, t in enumerate(spec.get("footer") or [])]
    d.board = _compile_board(ctx, know, spec.get("board"), path + ("board",)) if spec.get("board") else None
    d.table = [_table_item(ctx, know, item, path + ("table", i)) for i, item in enumerate(spec.get("table") or [])]
    d.faces = compile_faces(ctx, spec.get("faces"), spec.get("abilities"))
    d.round = spec.get("round")
    if d.round is not None:
        decl = ctx.vars.get(d.round)
        if decl is None or decl.per_player or decl.visibility != "public":
            raise ctx.error(f"`round` must name a public variable that is not per player, not {d.round!r}", path + ("round",))
    m = spec.get("map")
    d.map = None
    if m:
        if m.get("name") not in ctx.rs.maps:
            raise ctx.error(f"`name` must name a map declared under `maps:`, not {m.get('name')!r}", path + ("map", "name"))
        zone = m.get("zone")
        if zone is not None and (zone not in ctx.zones or not ctx.zones[zone].keyed):
            raise ctx.error(f"`zone` must name a keyed zone, not {zone!r}", path + ("map", "zone"))
        edges = m.get("edges") or {}
        gm = ctx.rs.maps[m["name"]]
        known = sorted({k for *_, d in gm.graph.edges(data=True) for k in d if k != "component"})
        for key in ("colour", "dashes", "label"):
            attr = edges.get(key)
            if attr is not None and attr not in known:
                raise ctx.error(f"`edges.{key}` names {attr!r}, which no edge of map `{m['name']}` has "
                                f"(its attributes: {', '.join(known) or 'none'})", path + ("map", "edges", key))
        d.map = {"name": m["name"], "zone": zone, "colour": m.get("colour"), "label": m.get("label"), "edges": dict(edges)}
    return d


def _compile_board(ctx: Ctx, know: Knowledge, bspec: dict, bpath: tuple) -> BoardDisplay:
    scope = ctx.scope
    b = BoardDisplay()
    b.mark = ctx.mark(bpath)
    b.zone = bspec.get("zone")
    b.places = None
    b.why = None
    if (b.zone is None) == ("places" not in bspec):
        raise ctx.error("a board takes `zone` (a keyed zone of (x, y) places) or `places` (an expression), not both",
                        bpath)
    if b.zone is not None:
        decl = ctx.zones.get(b.zone)
        if decl is None or not decl.keyed:
            raise ctx.error(f"`zone` must name a keyed zone (declared `keyed: true`), not {b.zone!r}", bpath + ("zone",))
        bound = ["key", "stack"]
        if decl.visibility != "public":
            b.why = f"draws `{b.zone}`, a zone declared `visibility: {decl.visibility}`"
    else:
        b.places = ctx.expr(bspec["places"], bpath + ("places",), scope)
        bound = ["key", "value"]
        b.why = _why_expr(know, bspec["places"], {})
    level = {n: 3 if b.why else 0 for n in bound}
    cell_scope = scope.with_locals(bound)
    b.lets = []
    for name, expr in (bspec.get("let") or {}).items():
        ctx.check_local_name(name, bpath + ("let", name))
        b.lets.append((name, ctx.expr(expr, bpath + ("let", name), cell_scope)))
        why = _why_expr(know, expr, level)
        b.why = b.why or why
        level[name] = 3 if why else 0
        cell_scope = cell_scope.with_locals([name])
    b.lines = []
    for i, line in enumerate(bspec.get("cell") or []):
        lpath = bpath + ("cell", i)
        if isinstance(line, list):
            if len(line) != 3:
                raise ctx.error("a cell line is a template or [left, centre, right] templates", lpath)
            b.lines.append(tuple(ctx.template(t, lpath + (j,), cell_scope) for j, t in enumerate(line)))
            for t in line:
                b.why = b.why or _why_template(know, t, level)
        else:
            b.lines.append((ctx.template(line, lpath, cell_scope),))
            b.why = b.why or _why_template(know, line, level)
    b.width = min(int(bspec.get("width", 0)), MAX_CELL_WIDTH)
    b.empty = str(bspec.get("empty", ""))
    b.side_acts = _act_names(ctx, bspec.get("side_acts"), bpath + ("side_acts",))
    b.edges = []
    for i, e in enumerate(bspec.get("edges") or []):
        epath = bpath + ("edges", i)
        ctx.require(e, ("side", "text"), epath)
        b.edges.append((ctx.expr(e["side"], epath + ("side",), scope), ctx.template(e["text"], epath + ("text",), scope)))
        b.why = b.why or _why_expr(know, e["side"], {}) or _why_template(know, e["text"], {})
    return b


def _table_item(ctx: Ctx, know: Knowledge, spec: Any, path: tuple) -> TableItem:
    if not isinstance(spec, dict):
        raise ctx.error(f"a table item is a mapping with one of {', '.join(TABLE_KINDS)}", path)
    kinds = [k for k in TABLE_KINDS if k in spec]
    if len(kinds) != 1:
        raise ctx.error(f"a table item names exactly one of {', '.join(TABLE_KINDS)}, found {kinds or 'none'}", path)
    t = TableItem()
    t.kind = kinds[0]
    t.name = spec[t.kind]
    t.title = str(spec.get("title", str(t.name).replace("_", " ")))
    t.show = spec.get("show", "all")
    t.cond = None
    if "if" in spec:
        t.cond = ctx.expr(spec["if"], path + ("if",), ctx.scope)
        why = _why_expr(know, spec["if"], {})
        if why is not None:
            raise ctx.error(f"a table item's `if` decides what every seat sees, so it may read only public information; "
                            f"it {why}", path + ("if",))
    t.low = spec.get("min")
    t.high = spec.get("max")
    t.acts = _item_acts(ctx, spec.get("acts"), path + ("acts",))
    t.cells = _cell_names(ctx, t.kind, spec.get("cells"), path + ("cells",))
    for bound in ("low", "high"):
        v = getattr(t, bound)
        if isinstance(v, str):  # a parameter's name
            if v not in ctx.rs.params:
                raise ctx.error(f"`{'min' if bound == 'low' else 'max'}` is a number or a parameter's name; "
                                f"there is no parameter {v!r}", path + ("min" if bound == "low" else "max",))
            v = ctx.rs.params[v]
            setattr(t, bound, v)
        if v is not None and (not isinstance(v, (int, float)) or isinstance(v, bool)):
            raise ctx.error(f"`{'min' if bound == 'low' else 'max'}` must be a number or a parameter holding one",
                            path + ("min" if bound == "low" else "max",))
    if t.kind in ("hand", "pile"):
        decl = ctx.zones.get(t.name)
        if decl is None:
            raise ctx.error(f"`{t.kind}` must name a declared zone, not {t.name!r}", path + (t.kind,))
        if t.kind == "hand" and not decl.per_player:
            raise ctx.error(f"`hand` names a per-player zone; `{t.name}` is one shared zone: use `pile`", path + ("hand",))
    else:
        if t.name not in ctx.vars:
            raise ctx.error(f"`{t.kind}` must name a declared variable, not {t.name!r}", path + (t.kind,))
    return t


def _act_names(ctx: Ctx, names: Any, path: tuple) -> tuple[str, ...]:
    """``acts``/``side_acts``: a list of option names (the ``action:`` of options of the flow's
    ``choose`` effects), checked against the options declared.

    Raises:
        CompileError: not a list of names, or a name no option has (with the names there are)."""
    if names is None:
        return ()
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ctx.error("a list of option names (each an option's `action:`) was expected", path)
    known = {o.name for c in getattr(ctx, "chooses", ()) for o in c.options}
    for i, n in enumerate(names):
        if n not in known:
            raise ctx.error(f"no option is named {n!r} (the options: {', '.join(sorted(known)) or 'none'})", path + (i,))
    return tuple(names)


def _cell_names(ctx: Ctx, kind: str, names: Any, path: tuple) -> tuple[str, ...] | None:
    """A counter's ``cells``: the names of the cells its variable's list is drawn as, one cell
    per element (a per-player variable: each seat's list; a shared list: seat p's run of k
    elements from index p * k, k the number of names).  A list of texts, or a parameter's name
    holding one.  With ``acts``, an action whose first whole-number argument is i goes on cell i
    of the deciding seat's row, any other on the row as a whole.  None when absent.

    Raises:
        CompileError: on an item that is no counter, or not a non-empty list of texts (nor a
            parameter holding one)."""
    if names is None:
        return None
    if kind != "counter":
        raise ctx.error(f"`cells` is for a counter, not a {kind}", path)
    if isinstance(names, str):
        if names not in ctx.rs.params:
            raise ctx.error(f"`cells` is a list of names or a parameter's name; there is no parameter {names!r}", path)
        names = ctx.rs.params[names]
    if not isinstance(names, (list, tuple)) or not names or not all(isinstance(n, str) for n in names):
        raise ctx.error(f"`cells` must be a non-empty list of names (or a parameter holding one), found {names!r}", path)
    return tuple(names)


def _item_acts(ctx: Ctx, entries: Any, path: tuple) -> tuple:
    """A table item's ``acts``: option names, or ``{option: NAME, arg: VALUE}`` — the option's
    actions are attached to the item only when one of their top-level arguments is VALUE (the
    red deck carries ``trade(c, red)``, the blue deck ``trade(c, blue)``).  Returns a tuple
    of names and ``{"option", "arg"}`` dicts (``arg`` as text, as the action's canonical text
    writes it).

    Raises:
        CompileError: not a list; an entry neither a name nor such a mapping; a name no option
            has; an ``arg`` that is not a string or number."""
    if entries is None:
        return ()
    if not isinstance(entries, list):
        raise ctx.error("a list of option names (each an option's `action:`) was expected", path)
    known = {o.name for c in getattr(ctx, "chooses", ()) for o in c.options}
    out: list = []
    for i, e in enumerate(entries):
        where = path + (i,)
        if isinstance(e, dict):
            extra = sorted(set(map(str, e)) - {"option", "arg"})
            if extra or "option" not in e or "arg" not in e:
                raise ctx.error(f"an `acts` entry is an option's name or {{option: NAME, arg: VALUE}}, found keys "
                                f"{sorted(map(str, e))}", where)
            arg = e["arg"]
            if isinstance(arg, bool) or not isinstance(arg, (str, int, float)):
                raise ctx.error(f"`arg` is the text or number an action's argument must be, found {arg!r}", where + ("arg",))
            name, where = e["option"], where + ("option",)
        elif isinstance(e, str):
            name = e
        else:
            raise ctx.error("a list of option names (each an option's `action:`) was expected", where)
        if name not in known:
            raise ctx.error(f"no option is named {name!r} (the options: {', '.join(sorted(map(str, known))) or 'none'})", where)
        out.append({"option": name, "arg": str(e["arg"])} if isinstance(e, dict) else name)
    return tuple(out)


def _text_line(ctx: Ctx, know: Knowledge, spec: Any, path: tuple, scope) -> Line:
    """A header or footer entry: a template (one line), or ``{for: NAME, in: EXPR, text: TEMPLATE}``
    (one line per item)."""
    line = Line()
    line.mark = ctx.mark(path)
    if isinstance(spec, dict):
        ctx.require(spec, ("for", "in", "text"), path)
        name = spec["for"]
        ctx.check_local_name(name, path + ("for",))
        items = ctx.expr(spec["in"], path + ("in",), scope)
        text = ctx.template(spec["text"], path + ("text",), scope.with_locals([name]))
        why = _why_expr(know, spec["in"], {})
        line.why = why or _why_template(know, spec["text"], {name: 3 if why else 0})
        line.text = str(spec["text"])

        def lines(env):
            out = []
            for item in items(env):
                env.loc = {name: item}
                out.append(text(env))
            return out

        line.lines = lines
        return line
    text = ctx.template(spec, path, scope)
    line.why = _why_template(know, spec, {})
    line.text = str(spec)
    line.lines = lambda env: [text(env)]
    return line


# ---------------------------------------------------------------------------------------------
# Run time


def display_data(state: State, player: int | None) -> dict:
    """The display's evaluated parts for ``player`` (None: an observer, who sees every part):
    ``{"header": [str], "board": board data or None, "footer": [str], "table": [item],
    "map": dict or None}``; private parts are left out for a seat.  Board data: ``{"cells":
    [[x, y, [[part, ...], ...]], ...], "width", "empty", "edges": [[side, text]], "height"}``.

    Raises:
        ExpressionError: a template failed (a ruleset bug); TapsterError: the board's places
            are not whole-number (x, y) pairs or span more than MAX_BOARD_CELLS.
    """
    d = getattr(state.ruleset, "display", None)
    if d is None:
        return {}
    env = Env(state, {})
    out: dict = {"header": [], "footer": []}
    for part in ("header", "footer"):
        for line in getattr(d, part):
            if player is not None and line.why is not None:
                continue
            env.loc = {}
            out[part].extend(line.lines(env))
    board = d.board
    out["board"] = _board_data(state, board) if board is not None and (player is None or board.why is None) else None
    table = []
    for t in d.table:
        if t.cond is not None:
            env.loc = {}
            if not t.cond(env):
                continue
        table.append(t.to_json())
    out["table"] = table
    out["map"] = dict(d.map) if d.map else None
    return out


def view_observation(state: State, player: int | None) -> dict:
    """What ``player`` may see, with the display: ``State.observation(player)`` plus
    ``"display"`` (:func:`display_data`).  ``player`` None is an observer who sees everything
    (every zone's contents, every variable and property, every display part): for the
    omniscient account of a game among agents and ``tapster replay --all``, never for a seat.
    """
    obs = state.observation(player)
    obs["display"] = display_data(state, player)
    return obs


def render_board(state: State) -> str | None:
    """The ruleset's ``display`` header, board and footer for an observer, as text, or None
    when it declares none.

    Raises:
        ExpressionError: a template failed (a ruleset bug); TapsterError: bad board places.
    """
    if getattr(state.ruleset, "display", None) is None:
        return None
    data = display_data(state, None)
    out = list(data["header"])
    if data["board"] is not None:
        out.extend(draw_board(data["board"]))
    out.extend(data["footer"])
    return "\n".join(out)


def _board_data(state: State, b: BoardDisplay) -> dict:
    env = Env(state, {})
    if b.zone is not None:
        pairs = list(state.zones[b.zone].items())
        bound = "stack"
    else:
        env.loc = {}
        try:
            pairs = [tuple(p) for p in b.places(env)]
        except TypeError:
            raise TapsterError("display: `places` must give (place, value) pairs") from None
        if any(len(p) != 2 for p in pairs):
            raise TapsterError("display: `places` must give (place, value) pairs")
        bound = "value"
    keys = [k for k, _ in pairs]
    try:
        ext = _extent(keys)
    except (ValueError, TypeError) as exc:
        raise TapsterError(f"display: the board's keys are not (x, y) places ({exc})") from None
    if ext is not None:
        if not all(type(v) is int for v in ext):
            raise TapsterError(f"display: the board's places must be whole-number (x, y) pairs, found {ext}")
        cells = (ext[1] - ext[0] + 1) * (ext[3] - ext[2] + 1)
        if cells > MAX_BOARD_CELLS:
            raise TapsterError(f"display: the board spans {cells} places; a board drawing holds at most "
                               f"{MAX_BOARD_CELLS} (the limit)")
    edges = []
    for side, text in b.edges:
        env.loc = {}
        s = side(env)
        if s is not None:
            edges.append([s % 360, text(env)])
    cells_out = []
    for key, value in pairs:
        env.loc = {"key": key, bound: value}
        for name, expr in b.lets:
            env.loc[name] = expr(env)
        cells_out.append([key[0], key[1], [[t(env) for t in parts] for parts in b.lines]])
    return {"zone": b.zone, "cells": cells_out, "width": b.width, "empty": b.empty, "edges": edges, "height": max(1, len(b.lines)),
            "side_acts": list(b.side_acts)}


def draw_board(data: dict) -> list[str]:
    """A board (:func:`display_data`'s ``"board"``) drawn as text lines: a box per place,
    columns labelled with x and rows with y, markers beside it."""
    cells = {(x, y): rows for x, y, rows in data["cells"]}
    edges = [(s, t) for s, t in data["edges"]]
    height = data["height"]
    if not cells:
        lines = [f"({data.get('zone') or 'the board'} is empty)"]
        return [t for s, t in edges if s == 0] + lines + [t for s, t in edges if s != 0]
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    width = data["width"]
    for rows in cells.values():
        for parts in rows:
            width = max(width, sum(len(p) for p in parts) + (2 if len(parts) == 3 else 0))
    width = max(width, len(data["empty"]), max(len(str(x)) for x in range(x0, x1 + 1)))

    def fit(parts) -> str:
        if len(parts) == 1:
            return parts[0].center(width)
        left, centre, right = parts
        room = width - len(left) - len(right)
        return left + centre.center(room) + right

    label_w = max(len(str(y)) for y in range(y0, y1 + 1))
    left_edge = " ".join(t for s, t in edges if s == 270)
    pad = len(left_edge) + 1 if left_edge else 0
    right_edge = " ".join(t for s, t in edges if s == 90)
    indent = " " * (pad + label_w + 1)
    rule = indent + "+" + "+".join("-" * width for _ in range(x0, x1 + 1)) + "+"
    grid = [indent + " " + " ".join(str(x).center(width) for x in range(x0, x1 + 1))]
    grid.append(rule)
    middle_rows = []
    for y in range(y0, y1 + 1):
        for i in range(height):
            texts = []
            for x in range(x0, x1 + 1):
                rows = cells.get((x, y))
                if rows is None:
                    texts.append((data["empty"] if i == (height - 1) // 2 else "").center(width))
                else:
                    texts.append(fit(rows[i]) if i < len(rows) else " " * width)
            label = str(y).rjust(label_w) if i == (height - 1) // 2 else " " * label_w
            grid.append(" " * pad + label + " |" + "|".join(texts) + "|")
            middle_rows.append(len(grid) - 1)
        grid.append(rule)
    # The left and right markers stand beside the middle line of the grid.
    mid = middle_rows[len(middle_rows) // 2]
    if left_edge:
        grid[mid] = left_edge + grid[mid][len(left_edge):]
    if right_edge:
        grid[mid] = grid[mid] + " " + right_edge
    total = len(rule)
    top = [(" " * (pad + label_w + 1)) + t.center(total - pad - label_w - 1) for s, t in edges if s == 0]
    bottom = [(" " * (pad + label_w + 1)) + t.center(total - pad - label_w - 1) for s, t in edges if s == 180]
    return [ln.rstrip() for ln in top + grid + bottom]
