"""Drawing a game for people: the board a ruleset declares under ``display:``, as text.

A ruleset that lays components out on a grid declares how to draw it; nothing here knows a
game.  The grid is a keyed zone whose keys are ``(x, y)`` places (x to the right, y downward)::

    display:
      header: ["Turn {turns_taken}"]            # text lines before the board (templates)
      board:
        zone: field                             # the keyed zone drawn as a grid
        let: {m: "top(stack)"}                  # names computed per place; `key` and `stack` are bound
        cell:                                   # the lines of an occupied place: a template, or
          - "{m.name}"                          #   [left, centre, right] templates on one line
          - ["{m.west}", "", "{m.east}"]
        width: 11                               # characters inside a place (at least; default 0)
        empty: "."                              # text of an empty place inside the extent
        edges:                                  # markers outside the board, one line each
          - {side: "marker_side", text: "MARKER"}   # side: a bearing 0/90/180/270, or none (hidden)
      footer:                                   # a template, or one line per item:
        - {for: p, in: players, text: "P{p + 1}: {hand[p]}"}

:func:`render_board` returns the drawing (or None when the ruleset declares no ``display``); a
driver such as ``tapster play`` prints it after each turn.  The extent drawn is the rectangle of
the occupied places; columns and rows are labelled with their x and y.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .builtins import _extent
from .errors import TapsterError
from .expression import Env
from .limits import MAX_BOARD_CELLS, MAX_CELL_WIDTH

if TYPE_CHECKING:  # pragma: no cover
    from .compiler import Ctx
    from .state import State

__all__ = ["Display", "compile_display", "render_board"]


class BoardDisplay:
    """A compiled ``display.board``: ``zone`` name, per-place ``lets`` ((name, Compiled)),
    ``lines`` (each a tuple of one template or three: left, centre, right), ``width``,
    ``empty`` text, ``edges`` ((side Compiled, text template))."""

    __slots__ = ("zone", "lets", "lines", "width", "empty", "edges")


class Display:
    """A compiled ``display``: ``header`` and ``footer`` templates and the ``board`` (or None)."""

    __slots__ = ("header", "footer", "board")


def compile_display(ctx: Ctx, spec: Any) -> Display | None:
    """Compile a ruleset's ``display`` section (None when absent).

    Raises:
        CompileError: the board's zone is not a keyed zone; expression problems in templates.
    """
    if not spec:
        return None
    path = ("display",)
    scope = ctx.scope
    d = Display()
    d.header = [_text_line(ctx, t, path + ("header", i), scope) for i, t in enumerate(spec.get("header") or [])]
    d.footer = [_text_line(ctx, t, path + ("footer", i), scope) for i, t in enumerate(spec.get("footer") or [])]
    d.board = None
    bspec = spec.get("board")
    if bspec:
        bpath = path + ("board",)
        b = BoardDisplay()
        b.zone = bspec.get("zone")
        decl = ctx.zones.get(b.zone)
        if decl is None or not decl.keyed:
            raise ctx.error(
                f"`zone` must name a keyed zone (declared `keyed: true`), not {b.zone!r}", bpath + ("zone",)
            )
        cell_scope = scope.with_locals(["key", "stack"])
        b.lets = []
        for name, expr in (bspec.get("let") or {}).items():
            ctx.check_local_name(name, bpath + ("let", name))
            b.lets.append((name, ctx.expr(expr, bpath + ("let", name), cell_scope)))
            cell_scope = cell_scope.with_locals([name])
        b.lines = []
        for i, line in enumerate(bspec.get("cell") or []):
            lpath = bpath + ("cell", i)
            if isinstance(line, list):
                if len(line) != 3:
                    raise ctx.error("a cell line is a template or [left, centre, right] templates", lpath)
                b.lines.append(tuple(ctx.template(t, lpath + (j,), cell_scope) for j, t in enumerate(line)))
            else:
                b.lines.append((ctx.template(line, lpath, cell_scope),))
        b.width = min(int(bspec.get("width", 0)), MAX_CELL_WIDTH)
        b.empty = str(bspec.get("empty", ""))
        b.edges = []
        for i, e in enumerate(bspec.get("edges") or []):
            epath = bpath + ("edges", i)
            ctx.require(e, ("side", "text"), epath)
            b.edges.append((ctx.expr(e["side"], epath + ("side",), scope), ctx.template(e["text"], epath + ("text",), scope)))
        d.board = b
    return d


def _text_line(ctx: Ctx, spec: Any, path: tuple, scope):
    """A header or footer entry: a template (one line), or ``{for: NAME, in: EXPR, text: TEMPLATE}``
    (one line per item).  Compiled to ``f(env) -> list of lines``."""
    if isinstance(spec, dict):
        ctx.require(spec, ("for", "in", "text"), path)
        name = spec["for"]
        ctx.check_local_name(name, path + ("for",))
        items = ctx.expr(spec["in"], path + ("in",), scope)
        text = ctx.template(spec["text"], path + ("text",), scope.with_locals([name]))

        def lines(env):
            out = []
            for item in items(env):
                env.loc = {name: item}
                out.append(text(env))
            return out

        return lines
    text = ctx.template(spec, path, scope)
    return lambda env: [text(env)]


def render_board(state: State) -> str | None:
    """The ruleset's ``display`` drawn for ``state`` as text, or None when it declares none.

    Raises:
        ExpressionError: a template failed (a ruleset bug), or the board zone's keys are not
            ``(x, y)`` places.
    """
    d = getattr(state.ruleset, "display", None)
    if d is None:
        return None
    env = Env(state, {})
    out = []
    for lines in d.header:
        env.loc = {}
        out.extend(lines(env))
    if d.board is not None:
        out.extend(_board(state, d.board))
    for lines in d.footer:
        env.loc = {}
        out.extend(lines(env))
    return "\n".join(out)


def _board(state: State, b: BoardDisplay) -> list[str]:
    zone = state.zones[b.zone]
    try:
        ext = _extent(zone)
    except ValueError as exc:
        raise TapsterError(f"display: the keys of `{b.zone}` are not (x, y) places ({exc})") from None
    if ext is not None:
        if not all(type(v) is int for v in ext):
            raise TapsterError(f"display: the places of `{b.zone}` must be whole-number (x, y) pairs, found {ext}")
        cells = (ext[1] - ext[0] + 1) * (ext[3] - ext[2] + 1)
        if cells > MAX_BOARD_CELLS:
            raise TapsterError(f"display: `{b.zone}` spans {cells} places; a board drawing holds at most "
                               f"{MAX_BOARD_CELLS} (the limit)")
    env = Env(state, {})
    edges = []
    for side, text in b.edges:
        env.loc = {}
        s = side(env)
        if s is not None:
            edges.append((s % 360, text(env)))
    if ext is None:
        lines = [f"({b.zone} is empty)"]
        return [t for s, t in edges if s == 0] + lines + [t for s, t in edges if s != 0]
    x0, x1, y0, y1 = ext
    cells: dict = {}
    for key, stack in zone.items():
        env.loc = {"key": key, "stack": stack}
        for name, expr in b.lets:
            env.loc[name] = expr(env)
        cells[key] = [tuple(t(env) for t in parts) for parts in b.lines]
    height = max(1, len(b.lines))
    width = b.width
    for rows in cells.values():
        for parts in rows:
            width = max(width, sum(len(p) for p in parts) + (2 if len(parts) == 3 else 0))
    width = max(width, len(b.empty), max(len(str(x)) for x in range(x0, x1 + 1)))

    def fit(parts: tuple) -> str:
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
                    texts.append((b.empty if i == (height - 1) // 2 else "").center(width))
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

