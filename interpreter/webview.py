"""A seat's view of a game as HTML, built only from what that seat may see.

:func:`seat_html` takes a ruleset, ``State.observation(p)`` and ``State.visible_log(p)`` and
never the state itself, so a page cannot show what its seat may not see: two positions with the
same observation and account draw the same page, byte for byte.  Nothing here knows a game;
the drawing follows the shapes of the data:

- a zone's components are labelled cards (``data-id`` the component id, the label as text, the
  fields in the tooltip); a zone the seat may not look into is a face-down pile with its count;
  per-player zones are grouped by seat, nested zones by their index;
- a keyed zone whose keys are ``(x, y)`` places is a grid (x to the right, y downward); a keyed
  zone whose keys are nodes of one of the ruleset's maps is drawn on an SVG of that map, the
  nodes at their ``x``/``y`` attributes (y growing upward, as longitude/latitude);
- a per-player variable of whole numbers is a track with each seat's marker; a flat list of
  numbers with ``-1`` for an empty cell is a board: ``rows`` x ``columns`` parameters (stored
  column by column, row 0 at the bottom: ``board[col * rows + row]``) or a square (row by row),
  the seats' marks named by a parameter listing one name per seat;
- the legal actions are buttons (the decision's labels, the action text as value), the game's
  account is the seat's visible log, the final scores a table.

Every text is escaped (:func:`html.escape`): ruleset labels are data, never markup.
"""

from __future__ import annotations

import math
from html import escape
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import Ruleset

__all__ = ["seat_html", "seat_name_html"]

#: The most cells a track draws one by one (longer tracks are drawn as bars).
MAX_TRACK_CELLS = 40


def seat_name_html(p: int) -> str:
    """``P1`` for seat 0: seats as people count them."""
    return f"P{p + 1}"


def seat_html(rs: Ruleset, obs: dict, log: list[str], seat_names: list[str] | None = None) -> str:
    """The HTML fragment of one seat's page for observation ``obs`` (``State.observation(p)``)
    and account ``log`` (``State.visible_log(p)``).

    ``seat_names``: a label per seat (``"P1 (you)"``, ``"P2 (random)"``); default ``P1``...
    Returns a ``<div class="table-view">`` string.  Raises nothing for well-formed observations.
    """
    n = obs["num_players"]
    names = seat_names or [seat_name_html(p) for p in range(n)]
    v = _View(rs, obs, names)
    parts = ['<div class="table-view">', v.status(), v.actions(), v.outcome()]
    parts.append('<div class="board">')
    parts.append(v.var_boards())
    parts.append(v.zones())
    parts.append(v.tracks())
    parts.append(v.other_vars())
    parts.append("</div>")
    parts.append('<details class="account" open><summary>Account</summary><ol class="log">')
    for line in log[-200:]:
        parts.append(f"<li>{escape(line)}</li>")
    parts.append("</ol></details>")
    parts.append("</div>")
    return "".join(p for p in parts if p)


class _View:
    def __init__(self, rs: Ruleset, obs: dict, names: list[str]):
        self.rs = rs
        self.obs = obs
        self.names = names
        self.n = obs["num_players"]
        self.me = obs["player"]
        self.drawn_vars: set[str] = set()

    # -- texts -----------------------------------------------------------------------------------
    def label(self, cid: str) -> str:
        c = self.rs.by_id.get(cid)
        return c.label if c is not None else cid

    def value_text(self, v: Any) -> str:
        if v is None:
            return "-"
        if isinstance(v, bool):
            return "yes" if v else "no"
        if isinstance(v, dict):
            if "c" in v:
                return self.label(v["c"])
            if "t" in v:
                return "(" + ", ".join(self.value_text(x) for x in v["t"]) + ")"
            if "d" in v:
                return "{" + ", ".join(f"{self.value_text(k)}: {self.value_text(x)}" for k, x in v["d"]) + "}"
            if "count" in v:
                return f"{v['count']} hidden"
        if isinstance(v, list):
            return "[" + ", ".join(self.value_text(x) for x in v) + "]"
        return str(v)

    # -- parts -----------------------------------------------------------------------------------
    def status(self) -> str:
        o = self.obs
        bits = [f'<h2>{escape(self.rs.title)}{" (" + escape(self.rs.variant) + ")" if self.rs.variant else ""}</h2>']
        bits.append(f'<p class="you">You are <b>{escape(self.names[self.me])}</b>.</p>')
        if o["finished"]:
            bits.append('<p class="turn">The game is over.</p>')
        else:
            deciding = o.get("deciding") or []
            who = ", ".join(escape(self.names[p]) for p in deciding if 0 <= p < self.n)
            mine = self.me in deciding
            bits.append(f'<p class="turn{" mine" if mine else ""}">{"Your turn" if mine else "Waiting for " + who}'
                        f'{" (phase " + escape(str(o["phase"])) + ")" if o.get("phase") else ""}; '
                        f'your turns so far: {o["turns"][self.me]}</p>')
        return '<div class="status">' + "".join(bits) + "</div>"

    def actions(self) -> str:
        d = self.obs.get("decision")
        if not d:
            return ""
        out = [f'<div class="decision"><p class="prompt">{escape(str(d["prompt"] or "Choose"))}</p><div class="actions">']
        for i, (a, lab) in enumerate(zip(d["actions"], d["labels"])):
            out.append(f'<button class="action" data-action="{escape(a, quote=True)}" data-index="{i}">'
                       f'{escape(str(lab))}</button>')
        out.append("</div></div>")
        return "".join(out)

    def outcome(self) -> str:
        oc = self.obs.get("outcome")
        if not oc:
            return ""
        winners = set(oc.get("winners") or [])
        rows = []
        for p in range(self.n):
            score = oc["scores"][p] if p < len(oc.get("scores", [])) else ""
            rows.append(f'<tr class="{"winner" if p in winners else ""}"><td>{escape(self.names[p])}</td>'
                        f'<td>{escape(self.value_text(score))}</td><td>{"winner" if p in winners else ""}</td></tr>')
        reason = escape(str(oc.get("reason", "")))
        return ('<div class="outcome"><h3>Final scores</h3><table class="scores"><tr><th>Seat</th><th>Score</th><th></th></tr>'
                + "".join(rows) + f'</table><p class="reason">Game over: {reason}.</p></div>')

    def cards(self, ids: Any) -> str:
        if isinstance(ids, dict) and "count" in ids:
            k = ids["count"]
            if not k:
                return '<div class="pile empty">empty</div>'
            return f'<div class="pile hidden-pile" title="face down"><span class="back">{k}</span> face down</div>'
        if not isinstance(ids, list):
            return f'<span class="value">{escape(self.value_text(ids))}</span>'
        if ids and isinstance(ids[0], (list, dict)):
            return '<div class="groups">' + "".join(
                f'<div class="group"><span class="group-name">{i + 1}</span>{self.cards(sub)}</div>' for i, sub in enumerate(ids)
            ) + "</div>"
        if not ids:
            return '<div class="pile empty">empty</div>'
        return '<div class="pile">' + "".join(self.card(cid) for cid in ids) + "</div>"

    def card(self, cid: str) -> str:
        c = self.rs.by_id.get(cid)
        kind = c.kind if c is not None else "unknown"
        tip = ""
        if c is not None:
            tip = ", ".join(f"{k}: {v}" for k, v in c.fields.items() if k not in ("id", "kind") and not isinstance(v, (list, dict)))
        props = (self.obs.get("props") or {}).get(cid)
        shown = ""
        if isinstance(props, dict) and "d" in props:  # a component's changing properties, on its face
            shown = " · ".join(f"{self.value_text(k)} {self.value_text(v)}" for k, v in props["d"] if v is not None)
        elif props:
            shown = self.value_text(props)
        extra = f'<small class="props">{escape(shown)}</small>' if shown else ""
        return (f'<div class="card kind-{escape(kind, quote=True)}" data-id="{escape(cid, quote=True)}" '
                f'title="{escape(tip, quote=True)}">{escape(self.label(cid))}{extra}</div>')

    def zones(self) -> str:
        out: list = []
        on_maps: dict = {}
        maps = getattr(self.rs, "maps", {}) or {}
        for name, z in self.obs["zones"].items():
            decl = self.rs.zones[name]
            title = f'<h3>{escape(name.replace("_", " "))}</h3>'
            if decl.keyed and isinstance(z, list):
                keys = [k for k, _ in z]
                if keys and all(_is_place(k) for k in keys):
                    out.append(f'<section class="zone grid-zone" data-zone="{escape(name, quote=True)}">{title}'
                               f'{self.place_grid(z)}</section>')
                    continue
                gm = next((m for m in maps.values() if keys and all(_hashable(k) and k in m.graph for k in keys)), None)
                if gm is not None:  # every zone on one map is drawn on one picture of it
                    if gm.name not in on_maps:
                        on_maps[gm.name] = (gm, [])
                        out.append(("map", gm.name))
                    on_maps[gm.name][1].append((name, z))
                    continue
                body = "".join(f'<div class="keyed"><span class="key">{escape(self.value_text(k))}</span>{self.cards(ids)}</div>'
                               for k, ids in z)
                body = body or '<div class="pile empty">empty</div>'
                out.append(f'<section class="zone keyed-zone" data-zone="{escape(name, quote=True)}">{title}{body}</section>')
                continue
            if decl.per_player and isinstance(z, list):
                body = "".join(
                    f'<div class="seat-zone{" mine" if p == self.me else ""}"><span class="owner">{escape(self.names[p])}</span>'
                    f'{self.cards(sub)}</div>' for p, sub in enumerate(z)
                )
                out.append(f'<section class="zone per-player" data-zone="{escape(name, quote=True)}">{title}{body}</section>')
                continue
            out.append(f'<section class="zone" data-zone="{escape(name, quote=True)}">{title}{self.cards(z)}</section>')
        for i, part in enumerate(out):
            if isinstance(part, tuple):
                gm, zs = on_maps[part[1]]
                names = ", ".join(escape(n.replace("_", " ")) for n, _ in zs)
                out[i] = (f'<section class="zone map-zone" data-zones="{escape(" ".join(n for n, _ in zs), quote=True)}">'
                          f'<h3>Map {escape(gm.name)}: {names}</h3>{self.map_svg(gm, zs)}</section>')
        return '<div class="zones">' + "".join(out) + "</div>" if out else ""

    def place_grid(self, z: list) -> str:
        cells = {(k["t"][0], k["t"][1]): ids for k, ids in z}
        xs = [x for x, _ in cells]
        ys = [y for _, y in cells]
        x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
        if (x1 - x0 + 1) * (y1 - y0 + 1) > 2500:
            return "".join(f'<div class="keyed">({x}, {y}) {self.cards(ids)}</div>' for (x, y), ids in sorted(cells.items()))
        out = [f'<div class="grid" style="grid-template-columns: repeat({x1 - x0 + 1}, minmax(6em, 1fr))">']
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                ids = cells.get((x, y))
                inner = self.cards(ids) if ids is not None else ""
                out.append(f'<div class="cell" data-place="{x},{y}"><span class="place">({x}, {y})</span>{inner}</div>')
        out.append("</div>")
        return "".join(out)

    def map_svg(self, gm: Any, zones: list) -> str:
        g = gm.graph
        pos = {}
        for node, d in g.nodes(data=True):
            x, y = d.get("x"), d.get("y")
            if isinstance(x, (int, float)) and isinstance(y, (int, float)):
                pos[node] = (float(x), float(y))
        if len(pos) != g.number_of_nodes():  # no coordinates: nodes on a circle
            nodes = list(g.nodes)
            pos = {node: (math.cos(2 * math.pi * i / len(nodes)), math.sin(2 * math.pi * i / len(nodes))) for i, node in enumerate(nodes)}
        xs = [p[0] for p in pos.values()]
        ys = [p[1] for p in pos.values()]
        w, h = 900.0, 640.0
        sx = (w - 80) / ((max(xs) - min(xs)) or 1)
        sy = (h - 60) / ((max(ys) - min(ys)) or 1)
        s = min(sx, sy)

        def at(node):
            x, y = pos[node]
            return 40 + (x - min(xs)) * s, h - 30 - (y - min(ys)) * s  # y grows upward

        out = [f'<svg class="map" viewBox="0 0 {w:.0f} {h:.0f}" xmlns="http://www.w3.org/2000/svg" role="img" '
               f'aria-label="map {escape(gm.name, quote=True)}">']
        for a, b in g.edges():
            (x1, y1), (x2, y2) = at(a), at(b)
            out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" class="road"/>')
        pieces: dict = {}
        for _, z in zones:
            for k, ids in z:
                if isinstance(ids, list):
                    pieces.setdefault(k, []).extend(ids)
        for node, d in g.nodes(data=True):
            x, y = at(node)
            colour = d.get("colour")
            fill = colour if isinstance(colour, str) and colour.isalpha() else "lightgrey"
            name = d.get("name", node)
            out.append(f'<g class="node" data-node="{escape(str(node), quote=True)}"><circle cx="{x:.1f}" cy="{y:.1f}" r="6" '
                       f'fill="{escape(fill, quote=True)}"/><title>{escape(str(node))} {escape(str(name))}</title>'
                       f'<text x="{x + 8:.1f}" y="{y - 4:.1f}" class="node-label">{escape(str(name))}</text></g>')
        for node, ids in pieces.items():
            if node not in g or not ids:
                continue
            x, y = at(node)
            for j, cid in enumerate(ids[:6]):
                out.append(f'<text x="{x + 8:.1f}" y="{y + 12 + 10 * j:.1f}" class="piece" data-id="{escape(cid, quote=True)}">'
                           f'{escape(self.label(cid))}</text>')
            if len(ids) > 6:
                out.append(f'<text x="{x + 8:.1f}" y="{y + 72:.1f}" class="piece">+{len(ids) - 6}</text>')
        out.append("</svg>")
        return "".join(out)

    def tracks(self) -> str:
        out = []
        for name, value in self.obs["vars"].items():
            decl = self.rs.vars[name]
            if not decl.per_player or not isinstance(value, list) or len(value) != self.n:
                continue
            nums = [x for x in value if x is not None]
            if not nums or not all(type(x) is int for x in nums):
                continue
            self.drawn_vars.add(name)
            lo, hi = min(0, *nums), max(max(nums), 1)
            rows = []
            for p, x in enumerate(value):
                if x is None:
                    rows.append(f'<div class="track-row"><span class="owner">{escape(self.names[p])}</span> hidden</div>')
                    continue
                if hi - lo + 1 <= MAX_TRACK_CELLS:
                    cells = "".join(f'<span class="space{" on" if i == x else ""}">{i}</span>' for i in range(lo, hi + 1))
                else:
                    pct = 100 * (x - lo) / (hi - lo)
                    cells = f'<span class="bar"><span class="fill" style="width:{pct:.0f}%"></span></span><b>{x}</b>'
                rows.append(f'<div class="track-row"><span class="owner">{escape(self.names[p])}</span>'
                            f'<span class="spaces">{cells}</span></div>')
            out.append(f'<section class="track" data-var="{escape(name, quote=True)}"><h3>{escape(name.replace("_", " "))}</h3>'
                       + "".join(rows) + "</section>")
        return '<div class="tracks">' + "".join(out) + "</div>" if out else ""

    def var_boards(self) -> str:
        out = []
        params = getattr(self.rs, "params", {}) or {}
        marks = next((v for v in params.values() if isinstance(v, list) and len(v) == self.n
                      and all(isinstance(x, str) for x in v)), None)
        for name, value in self.obs["vars"].items():
            if self.rs.vars[name].per_player or not isinstance(value, list) or len(value) < 4:
                continue
            if not all(type(x) is int for x in value) or -1 not in value and not any(x >= 0 for x in value):
                continue
            if not all(-1 <= x < self.n for x in value):
                continue
            rows, cols = params.get("rows"), params.get("columns")
            if isinstance(rows, int) and isinstance(cols, int) and rows * cols == len(value):
                index = lambda r, c, rows=rows: c * rows + (rows - 1 - r)  # column by column, row 0 at the bottom
            else:
                side = math.isqrt(len(value))
                if side * side != len(value):
                    continue
                rows = cols = side
                index = lambda r, c, cols=cols: r * cols + c
            self.drawn_vars.add(name)
            cells = []
            for r in range(rows):
                for c in range(cols):
                    x = value[index(r, c)]
                    mark = "" if x < 0 else (marks[x] if marks else seat_name_html(x))
                    cells.append(f'<div class="cell{"" if x < 0 else " seat-" + str(x)}" data-cell="{index(r, c)}">{escape(mark)}</div>')
            out.append(f'<section class="var-board" data-var="{escape(name, quote=True)}"><h3>{escape(name.replace("_", " "))}</h3>'
                       f'<div class="grid board-grid" style="grid-template-columns: repeat({cols}, 3em)">{"".join(cells)}</div></section>')
        return "".join(out)

    def other_vars(self) -> str:
        rows = []
        for name, value in self.obs["vars"].items():
            if name in self.drawn_vars:
                continue
            decl = self.rs.vars[name]
            if decl.per_player and isinstance(value, list) and len(value) == self.n:
                text = "; ".join(f"{self.names[p]}: {self.value_text(x)}" for p, x in enumerate(value))
            else:
                text = self.value_text(value)
            rows.append(f'<tr><th>{escape(name.replace("_", " "))}</th><td>{escape(text)}</td></tr>')
        if not rows:
            return ""
        return '<details class="vars"><summary>Counters and notes</summary><table>' + "".join(rows) + "</table></details>"


def _is_place(k: Any) -> bool:
    return (isinstance(k, dict) and "t" in k and len(k["t"]) == 2 and all(type(x) is int for x in k["t"]))


def _hashable(k: Any) -> bool:
    return isinstance(k, (str, int, float))
