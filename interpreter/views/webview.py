"""A seat's view of a game as HTML, built only from what that seat may see.

:func:`seat_html` takes a ruleset, an observation (``State.observation(p)``, or better
:func:`interpreter.views.render.view_observation` ``(state, p)``, which adds the display's public
text) and ``State.visible_log(p)``, and never the state itself, so a page cannot show what its
seat may not see: two positions with the same observation and account draw the same page,
byte for byte.  What is drawn comes from :func:`interpreter.views.view.seat_sections`, the step the
terminal's :mod:`interpreter.views.termview` shares, so both show the same things:

- the ruleset's ``display``: header and footer lines; its board as a grid of places (x to the
  right, y downward), each place its evaluated lines; its table: hands and piles as labelled
  cards (``data-id`` the component id, the label as text, the fields in the tooltip), a zone the
  seat may not look into as a face-down pile with its count; tracks with each seat's marker;
  counters; its map as an SVG of the map's nodes at their ``x``/``y`` attributes (y growing
  upward, as longitude/latitude) with the pieces on them;
- without a display, every zone by owner (a keyed zone of ``(x, y)`` places as a grid, of map
  nodes on the map) and the variables marked ``shown: true``;
- the legal actions are buttons (the decision's labels, the action text as value), the game's
  account is the seat's visible log, the final scores a table of places (ties share a place).

Every text is escaped (:func:`html.escape`): ruleset labels are data, never markup.
"""

from __future__ import annotations

import math
import re
from html import escape
from typing import TYPE_CHECKING, Any

from ..loader.maps import SEAT_COLOURS
from .faces import face_of
from .view import action_text_cards, changed_props, places, seat_name, seat_sections, value_text, visible_ids

if TYPE_CHECKING:  # pragma: no cover
    from ..compile.ruleset import Ruleset

__all__ = ["seat_html"]

#: The most cells a track draws one by one (longer tracks are drawn as bars).
MAX_TRACK_CELLS = 40


def seat_html(rs: Ruleset, obs: dict, log: list[str], seat_names: list[str] | None = None) -> str:
    """The HTML fragment of one seat's page for observation ``obs`` and account ``log``
    (``State.visible_log(p)``).

    ``seat_names``: a label per seat (``"P1 (you)"``, ``"P2 (random)"``); default ``P1``...
    Returns a ``<div class="table-view">`` string.  Raises nothing for well-formed observations.
    """
    n = obs["num_players"]
    names = seat_names or [seat_name(p) for p in range(n)]
    v = _View(rs, obs, names)
    parts = ['<div class="table-view">', v.status(), v.actions(), v.outcome()]
    parts.append('<div class="board">')
    for sec in seat_sections(rs, obs):
        parts.append(getattr(v, "s_" + sec["kind"])(sec))
    parts.append("</div>")
    parts.append('<details class="account" open><summary>Account</summary><ol class="log">')
    for line in log[-200:]:
        parts.append(f"<li>{escape(line)}</li>")
    parts.append("</ol></details>")
    parts.append("</div>")
    return "".join(p for p in parts if p)


_PLACE = re.compile(r"\((-?\d+), (-?\d+)\)")


def table_acts(rs: Ruleset, obs: dict) -> dict[str, list[int]]:
    """Click-to-act: the legal actions of the seat's decision attached to the things on the
    table they name, ``{thing: [action index]}``, a thing being a visible component's id or a
    place ``"x,y"`` (an ``(x, y)`` argument).  Built from the observation's decision (canonical
    action texts) and the components it shows; a card the seat cannot see never gets one."""
    d = obs.get("decision") or {}
    seen = visible_ids(rs, obs)
    out: dict[str, list[int]] = {}
    for i, text in enumerate(d.get("actions") or []):
        text = str(text)
        things = {t for t in re.split(r"[(),\s]+", text) if t in seen}
        things |= {f"{x},{y}" for x, y in _PLACE.findall(text)}
        for t in sorted(things):
            out.setdefault(t, []).append(i)
    return out


class _View:
    def __init__(self, rs: Ruleset, obs: dict, names: list[str]):
        self.rs = rs
        self.obs = obs
        self.names = names
        self.n = obs["num_players"]
        self.me = obs["player"]
        self.acts = table_acts(rs, obs)

    # -- texts -----------------------------------------------------------------------------------
    def label(self, cid: str) -> str:
        c = self.rs.by_id.get(cid)
        return c.label if c is not None else cid

    def value_text(self, v: Any) -> str:
        return value_text(self.rs, v, withheld="-")

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
            faces = action_text_cards(self.rs, self.obs, a)  # the cards it names that this seat sees: their faces, short
            tip = "\n\n".join("\n".join([f.title, *f.lines]) for f in faces)
            small = "".join(f'<small class="face-line">{escape(f.one_line())}</small>' for f in faces)
            out.append(f'<button class="action" data-action="{escape(a, quote=True)}" data-index="{i}"'
                       + (f' title="{escape(tip, quote=True)}"' if tip else "") + f'>{escape(str(lab))}{small}</button>')
        out.append("</div></div>")
        return "".join(out)

    def outcome(self) -> str:
        oc = self.obs.get("outcome")
        if not oc:
            return ""
        winners = set(oc.get("winners") or [])
        rows = []
        for place, seats, score in places(oc):
            shared = len(seats) > 1
            for p in seats:
                won = p in winners
                rows.append(f'<tr class="{"winner" if won else ""}"><td class="place">{place}{" (shared)" if shared else ""}</td>'
                            f'<td>{escape(self.names[p])}</td><td>{escape(self.value_text(score))}</td>'
                            f'<td>{"winner" if won else ""}</td></tr>')
        reason = escape(str(oc.get("reason", "")))
        return ('<div class="outcome"><h3>Final scores</h3><table class="scores"><tr><th>Place</th><th>Seat</th><th>Score</th>'
                '<th></th></tr>' + "".join(rows) + f'</table><p class="reason">Game over: {reason}.</p></div>')

    def cards(self, pile: dict) -> str:
        """A pile (see :mod:`interpreter.views.view`) as labelled cards, or a face-down count."""
        if "count" in pile:
            k = pile["count"]
            if not k:
                return '<div class="pile empty">empty</div>'
            backs = "".join(f'<span class="back" title="face down">{escape(str(b))}{" ×" + str(n) if n > 1 else ""}</span>'
                            for b, n in pile.get("backs") or [])
            if backs:
                return f'<div class="pile hidden-pile" title="face down ({k})">{backs}</div>'
            return f'<div class="pile hidden-pile" title="face down"><span class="back">{k}</span> face down</div>'
        if "subs" in pile:
            return '<div class="groups">' + "".join(
                f'<div class="group"><span class="group-name">{i + 1}</span>{self.cards(sub)}</div>'
                for i, sub in enumerate(pile["subs"])) + "</div>"
        ids = pile["ids"]
        if not ids:
            return '<div class="pile empty">empty</div>'
        show = pile.get("show")
        if show == "count":
            return f'<div class="pile counted"><span class="count">{len(ids)}</span></div>'
        if show == "top":
            return (f'<div class="pile top-only">{self.card(ids[-1])}<span class="count">{len(ids)} in all</span></div>')
        return '<div class="pile">' + "".join(self.card(cid) for cid in ids) + "</div>"

    def card(self, cid: str) -> str:
        """A visible card: its label (or its face's title), the properties that changed, and with
        a face (``display.faces``) the whole face, shown on hover, focus or tap (the card takes
        the keyboard focus); without one, its fields in the tooltip."""
        c = self.rs.by_id.get(cid)
        kind = c.kind if c is not None else "unknown"
        face = face_of(self.rs, cid)
        tip = ""
        if face is not None:
            tip = "\n".join([face.title, *face.lines])
        elif c is not None:
            tip = ", ".join(f"{k}: {v}" for k, v in c.fields.items() if k not in ("id", "kind") and not isinstance(v, (list, dict)))
        props = (self.obs.get("props") or {}).get(cid)
        # a component's properties that changed since the game began, on its face
        shown = " · ".join(f"{self.value_text(k)} {self.value_text(v)}" for k, v in changed_props(self.rs, cid, props))
        extra = f'<small class="props">{escape(shown)}</small>' if shown else ""
        acts = self.acts_attr(cid)
        if face is not None:
            extra += ('<div class="face" role="tooltip"><b>' + escape(face.title) + "</b>"
                      + "".join(f"<span>{escape(line)}</span>" for line in face.lines) + "</div>")
            return (f'<div class="card has-face{" actionable" if acts else ""} kind-{escape(kind, quote=True)}" '
                    f'data-id="{escape(cid, quote=True)}" tabindex="0"{acts} '
                    f'title="{escape(tip, quote=True)}">{escape(face.short)}{extra}</div>')
        return (f'<div class="card{" actionable" if acts else ""} kind-{escape(kind, quote=True)}" data-id="{escape(cid, quote=True)}"'
                f'{" tabindex=" + chr(34) + "0" + chr(34) if acts else ""}{acts} '
                f'title="{escape(tip, quote=True)}">{escape(self.label(cid))}{extra}</div>')

    def acts_attr(self, thing: str) -> str:
        """`` data-acts="i j"`` for a thing some legal actions name (click-to-act), else ''."""
        idx = self.acts.get(thing)
        return f' data-acts="{" ".join(map(str, idx))}"' if idx else ""

    # -- sections (interpreter.views.view) ----------------------------------------------------------
    def who(self, p: int | None) -> str:
        return "" if p is None else self.names[p]

    def s_text(self, sec: dict) -> str:
        lines = [ln for ln in sec["lines"] if ln != ""]
        if not lines:
            return ""
        return '<div class="display-text">' + "".join(f'<p class="line">{escape(ln)}</p>' for ln in lines) + "</div>"

    def s_board(self, sec: dict) -> str:
        b = sec["board"]
        title = escape((b.get("zone") or "board").replace("_", " "))
        edges = "".join(f'<p class="edge side-{int(side)}">{escape(text)}</p>' for side, text in b["edges"])
        cells = {(x, y): rows for x, y, rows in b["cells"]}
        named = [tuple(map(int, t.split(","))) for t in self.acts if "," in t]  # places an action names: drawn too
        if not cells and not named:
            return f'<section class="display-board"><h3>{title}</h3>{edges}<p class="empty">empty</p></section>'
        xs = [x for x, _ in cells] + [x for x, _ in named]
        ys = [y for _, y in cells] + [y for _, y in named]
        x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
        out = [f'<section class="display-board"><h3>{title}</h3>{edges}'
               f'<div class="grid board-grid" style="grid-template-columns: repeat({x1 - x0 + 1}, minmax(3em, 11em))">']
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                rows = cells.get((x, y))
                acts = self.acts_attr(f"{x},{y}")
                more = ' actionable" tabindex="0' if acts else ""
                if rows is None:
                    out.append(f'<div class="cell empty{more}" data-place="{x},{y}"{acts}>{escape(b["empty"])}</div>')
                    continue
                inner = "".join(
                    '<div class="cell-line">' + "".join(f'<span class="part">{escape(t)}</span>' for t in parts) + "</div>"
                    for parts in rows)
                out.append(f'<div class="cell{more}" data-place="{x},{y}"{acts}>{inner}</div>')
        out.append("</div></section>")
        return "".join(out)

    def s_piles(self, sec: dict) -> str:
        name = escape(sec["zone"], quote=True)
        title = f'<h3>{escape(sec["title"])}</h3>'
        rows = sec["rows"]
        if len(rows) == 1 and rows[0][0] is None:
            return f'<section class="zone" data-zone="{name}">{title}{self.cards(rows[0][1])}</section>'
        body = "".join(
            f'<div class="seat-zone{" mine" if p == self.me else ""}"><span class="owner">{escape(self.who(p))}</span>'
            f'{self.cards(pile)}</div>' for p, pile in rows)
        return f'<section class="zone per-player" data-zone="{name}">{title}{body}</section>'

    def s_keyed(self, sec: dict) -> str:
        body = "".join(f'<div class="keyed"><span class="key">{escape(self.value_text(k))}</span>{self.cards(pile)}</div>'
                       for k, pile in sec["rows"])
        body = body or '<div class="pile empty">empty</div>'
        return (f'<section class="zone keyed-zone" data-zone="{escape(sec["zone"], quote=True)}">'
                f'<h3>{escape(sec["title"])}</h3>{body}</section>')

    def s_grid(self, sec: dict) -> str:
        cells = sec["cells"]
        xs = [x for x, _ in cells]
        ys = [y for _, y in cells]
        x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
        head = (f'<section class="zone grid-zone" data-zone="{escape(sec["zone"], quote=True)}">'
                f'<h3>{escape(sec["title"])}</h3>')
        if (x1 - x0 + 1) * (y1 - y0 + 1) > 2500:
            return head + "".join(f'<div class="keyed">({x}, {y}) {self.cards(p)}</div>'
                                  for (x, y), p in sorted(cells.items())) + "</section>"
        out = [head, f'<div class="grid" style="grid-template-columns: repeat({x1 - x0 + 1}, minmax(6em, 1fr))">']
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                pile = cells.get((x, y))
                inner = self.cards(pile) if pile is not None else ""
                out.append(f'<div class="cell" data-place="{x},{y}"><span class="place">({x}, {y})</span>{inner}</div>')
        out.append("</div></section>")
        return "".join(out)

    def s_map(self, sec: dict) -> str:
        gm = (getattr(self.rs, "maps", {}) or {}).get(sec["map"])
        if gm is None:
            return ""
        zones = " ".join(sec["zones"])
        svg = self.map_svg(gm, sec["pieces"], sec.get("colour"), sec.get("label"), sec.get("edges"))
        return (f'<section class="zone map-zone" data-zones="{escape(zones, quote=True)}">'
                f'<h3>{escape(sec["title"])}</h3>{svg}</section>')

    def s_track(self, sec: dict) -> str:
        lo, hi = sec["low"], sec["high"]
        rows = []
        for p, x in sec["rows"]:
            who = escape(self.who(p) or sec["title"])
            if x is None:
                rows.append(f'<div class="track-row"><span class="owner">{who}</span> hidden</div>')
                continue
            if not isinstance(x, (int, float)) or isinstance(x, bool):
                rows.append(f'<div class="track-row"><span class="owner">{who}</span> {escape(self.value_text(x))}</div>')
                continue
            if isinstance(lo, int) and isinstance(hi, int) and 0 < hi - lo + 1 <= MAX_TRACK_CELLS:
                cells = "".join(f'<span class="space{" on" if i == x else ""}">{i}</span>' for i in range(lo, hi + 1))
            else:
                pct = 100 * min(max((x - lo) / ((hi - lo) or 1), 0), 1)
                cells = f'<span class="bar"><span class="fill" style="width:{pct:.0f}%"></span></span><b>{x}</b>'
            rows.append(f'<div class="track-row"><span class="owner">{who}</span><span class="spaces">{cells}</span></div>')
        return (f'<section class="track" data-var="{escape(sec["var"], quote=True)}"><h3>{escape(sec["title"])}</h3>'
                + "".join(rows) + "</section>")

    def s_counter(self, sec: dict) -> str:
        rows = sec["rows"]
        if len(rows) == 1 and rows[0][0] is None:
            text = self.value_text(rows[0][1])
        else:
            text = "; ".join(f"{self.who(p)}: {self.value_text(v)}" for p, v in rows)
        return (f'<section class="counter" data-var="{escape(sec["var"], quote=True)}"><span class="name">'
                f'{escape(sec["title"])}</span> <span class="value">{escape(text)}</span></section>')

    def map_svg(self, gm: Any, pieces: dict, colour_attr: str | None = None, label_attr: str | None = None,
                edges: list | None = None) -> str:
        """The map as SVG.  ``edges`` (the view's ``{a, b, colour, dashes, label, owner}``, see
        :meth:`interpreter.views.view._Sections.map_edges`): an edge with a colour, length (``dashes``
        segments), label or owner is drawn so (an owner as a wide band of its seat's colour under
        the route, named in its title); a plain edge is the grey road line."""
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
        styled = {(e["a"], e["b"]): e for e in edges or ()
                  if any(e.get(k) is not None for k in ("colour", "dashes", "label", "owner"))}
        for a, b in g.edges():
            (x1, y1), (x2, y2) = at(a), at(b)
            e = styled.get((a, b)) or styled.get((b, a))
            if e is None:
                out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" class="road"/>')
                continue
            line = f'x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"'
            owner = e.get("owner")
            title = f"{a} – {b}" + (f": {self.who(owner)}" if owner is not None else "")
            out.append(f'<g class="route"><title>{escape(title)}</title>')
            if owner is not None:
                out.append(f'<line {line} class="owned seat-{int(owner)}" stroke="{SEAT_COLOURS[owner % len(SEAT_COLOURS)]}" '
                           'stroke-width="14" stroke-opacity="0.5" stroke-linecap="round"/>')
            colour = e.get("colour")
            stroke = colour if isinstance(colour, str) and colour.replace("#", "").isalnum() else "#888"
            n = e.get("dashes")
            dash = ""
            if type(n) is int and 1 <= n <= 50:
                seg = math.hypot(x2 - x1, y2 - y1) / n
                dash = f' stroke-dasharray="{seg * 0.8:.1f} {seg * 0.2:.1f}" stroke-dashoffset="{-seg * 0.1:.1f}"'
            out.append(f'<line {line} stroke="{escape(stroke, quote=True)}" stroke-width="5"{dash}/>')
            if e.get("label") is not None:
                out.append(f'<text x="{(x1 + x2) / 2:.1f}" y="{(y1 + y2) / 2 - 6:.1f}" class="route-label" '
                           f'text-anchor="middle">{escape(str(e["label"]))}</text>')
            out.append("</g>")
        for node, d in g.nodes(data=True):
            x, y = at(node)
            colour = d.get(colour_attr or "colour")
            fill = colour if isinstance(colour, str) and colour.isalpha() else "lightgrey"
            name = d.get(label_attr or "name", node)
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
