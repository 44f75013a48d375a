"""A seat's view of a game as terminal text, built only from what that seat may see.

:func:`seat_text` takes a ruleset and an observation — ``State.observation(p)``, or better
:func:`interpreter.views.render.view_observation` ``(state, p)``, which adds the display's public
text — and never the state itself, so the text cannot show what the seat may not see: two
positions with the same observation draw the same text, character for character.  The sections
come from :func:`interpreter.views.view.seat_sections` (shared with the browser's
:mod:`interpreter.views.webview`):

- the ruleset's ``display``: its header and footer lines, its board drawn as a grid of boxes,
  its table (hands and piles by owner, the seat's own first and marked "you"; a zone the seat
  may not look into is "N face down"; tracks and counters), its map as pieces by node;
- without a display, every zone by owner, a keyed zone of ``(x, y)`` places as a grid, and the
  variables marked ``shown: true``; withheld values are ``?``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .faces import face_of
from .render import draw_board
from .view import changed_props, places, seat_name, seat_sections, value_text

if TYPE_CHECKING:  # pragma: no cover
    from ..compile.ruleset import Ruleset

__all__ = ["seat_text", "seat_blocks", "face_text"]

#: The widest a grid cell's text is drawn (longer labels are cut with "…").
CELL_WIDTH = 14
#: The size in characters of a map's picture.
MAP_WIDTH, MAP_HEIGHT = 60, 16
#: The most edges the terminal lists under a map (a route board; a larger network is only drawn).
MAP_ROUTES = 200
#: The most spaces a track draws one by one (longer tracks show the value as a number).
MAX_TRACK_SPACES = 30


def seat_text(rs: Ruleset, obs: dict, names: list[str] | None = None) -> str:
    """The table as seat ``obs["player"]`` sees it (an observer for None), as text lines.

    ``rs``: the compiled ruleset (labels and declarations).  ``obs``: the seat's observation
    (the only game data read).  ``names``: one name per seat (default ``P1``, ``P2``, ...).
    Returns a string of lines joined by ``\\n``.
    """
    v = _View(rs, obs, names or [seat_name(p) for p in range(obs["num_players"])])
    return "\n".join(v.lines())


def seat_blocks(rs: Ruleset, obs: dict, names: list[str] | None = None) -> tuple[list[str], list[tuple[str, list[str]]], list[str]]:
    """:func:`seat_text` in parts: ``(header lines, [(section title, lines)], final lines)``,
    empty sections left out, so that a caller can draw only the sections that changed."""
    v = _View(rs, obs, names or [seat_name(p) for p in range(obs["num_players"])])
    return v.header(), v.blocks(), v.final()


#: A keyed zone (a supply of piles) of more rows than this is drawn in columns, and so is a face-up
#: row of more cards than this that does not fit on one line (a market, a long hand).
KEYED_COLUMNS_FROM = 6
#: The width the columns of a wide zone fit in (a narrow terminal's).
COLUMNS_WIDTH = 78


def columns(items: list[str], width: int) -> list[str]:
    """``items`` in columns of equal width, filled row by row, indented two spaces, within
    ``width`` characters (one column when an item is wider than half of it)."""
    w = max(len(t) for t in items)
    k = max(1, (width - 2 + 3) // (w + 3))
    return ["  " + "   ".join(t.ljust(w) for t in items[i:i + k]).rstrip() for i in range(0, len(items), k)]


#: Sections that draw the table itself (pinned on a person's screen).
BOARD_KINDS = ("board", "grid", "map")


def board_titles(rs: Ruleset, obs: dict) -> list[str]:
    """The titles (as :func:`seat_blocks` names them) of the sections of ``obs`` that draw the
    board — a board, a grid, a map — and the display's header line (the round, the centre of the
    table, in the ruleset's words)."""
    out = []
    for i, sec in enumerate(seat_sections(rs, obs)):
        if sec["kind"] in BOARD_KINDS:
            out.append(str(sec.get("title") or f"{sec['kind']} {i}"))
        elif sec["kind"] == "text" and i == 0:
            out.append(str(sec.get("title") or "header"))
    return out


def _pile_empty(pile: dict) -> bool:
    if "count" in pile:
        return not pile["count"]
    if "subs" in pile:
        return all(_pile_empty(sub) for sub in pile["subs"])
    return not pile.get("ids")


def _is_empty(sec: dict) -> bool:
    """A section with nothing in it: every pile empty, or every value an empty list or text."""
    kind = sec["kind"]
    if kind in ("piles", "keyed"):
        return all(_pile_empty(pile) for _, pile in sec["rows"])
    if kind == "counter":
        return all(isinstance(v, (list, str)) and not v for _, v in sec["rows"])
    if kind == "text":
        return not any(line for line in sec["lines"])
    return False


def _without_empty(sec: dict) -> dict:
    """A section of piles by seat without the seats whose pile is empty (a one-row section kept)."""
    if sec["kind"] != "piles" or len(sec["rows"]) <= 1:
        return sec
    rows = [(p, pile) for p, pile in sec["rows"] if not _pile_empty(pile)]
    return dict(sec, rows=rows or sec["rows"])


def face_text(face: Any) -> list[str]:
    """A card's face (:class:`interpreter.views.faces.Face`) in full, as text lines: its title, then
    its lines indented."""
    return [face.title] + [f"  {line}" for line in face.lines]


class _View:
    def __init__(self, rs: Ruleset, obs: dict, names: list[str]):
        self.rs = rs
        self.obs = obs
        self.names = names
        self.n = obs["num_players"]
        self.me = obs.get("player")

    def who(self, p: int | None) -> str:
        if p is None:
            return ""
        return self.names[p] + (" (you)" if p == self.me else "")

    def label(self, cid: Any) -> str:
        c = self.rs.by_id.get(cid) if isinstance(cid, str) else None
        return c.label if c is not None else str(cid)

    def card(self, cid: Any) -> str:
        """A visible card: its face's short form (its label without a face), then the
        properties that changed."""
        props = (self.obs.get("props") or {}).get(cid)
        changed = changed_props(self.rs, cid, props)
        shown = ", ".join(f"{value_text(self.rs, k)} {value_text(self.rs, v)}" for k, v in changed)
        face = face_of(self.rs, cid)
        return (face.short if face is not None else self.label(cid)) + (f" ({shown})" if shown else "")

    def look(self, cid: Any) -> str:
        """A kind of card the seat knows lies in a pile (not which copy, nor where): its face's
        short form, or its label."""
        face = face_of(self.rs, cid)
        return face.short if face is not None else self.label(cid)

    def pile(self, pile: dict) -> str:
        if "contents" in pile:  # known contents, unknown order
            kinds = ", ".join(self.look(cid) + ("" if k == 1 else f" ×{k}") for cid, k in pile["contents"])
            return f"{pile['count']} face down, order unknown: {kinds}" if pile["count"] else "empty"
        if "count" in pile:
            backs = ", ".join(b if k == 1 else f"{b} ×{k}" for b, k in pile.get("backs") or [])
            return (f"{pile['count']} face down" + (f" ({backs})" if backs else "")) if pile["count"] else "empty"
        if "subs" in pile:
            return "  |  ".join(f"{i + 1}: {self.pile(sub)}" for i, sub in enumerate(pile["subs"]))
        ids = pile["ids"]
        if not ids:
            return "empty"
        if pile.get("show") == "count":
            return f"{len(ids)}"
        if pile.get("show") == "top":
            return f"{self.card(ids[-1])} on top, {len(ids)} in all"
        return ", ".join(self.pile_items(pile))

    def pile_items(self, pile: dict) -> list[str]:
        """The face-up cards of ``pile`` as :meth:`pile` lists them (a run of the same card as
        ``card ×k``); empty for a pile drawn any other way (face down, a count, the top card)."""
        ids = pile.get("ids")
        if not ids or "count" in pile or "subs" in pile or pile.get("show") in ("count", "top"):
            return []
        runs: list[list] = []
        for cid in ids:
            text = self.card(cid)
            if runs and runs[-1][0] == text:
                runs[-1][1] += 1
            else:
                runs.append([text, 1])
        return [t if k == 1 else f"{t} ×{k}" for t, k in runs]

    def wide_row(self, title: str, pile: dict) -> list[str] | None:
        """A face-up row of more than :data:`KEYED_COLUMNS_FROM` cards too wide for one line of
        :data:`COLUMNS_WIDTH` characters (a market, a long hand), in columns under ``title``, or
        a pile whose contents the seat knows but not their order too wide for one line, its
        kinds in columns; None for any other pile (drawn on one line as before)."""
        if "contents" in pile and pile["count"]:  # known contents, unknown order: the kinds in columns
            items = [self.look(cid) + ("" if k == 1 else f" ×{k}") for cid, k in pile["contents"]]
            if len(title) + 2 + len(self.pile(pile)) <= COLUMNS_WIDTH:
                return None
            return [f"{title}: {pile['count']} face down, order unknown:"] + columns(items, COLUMNS_WIDTH)
        items = self.pile_items(pile)
        if len(items) <= KEYED_COLUMNS_FROM or len(title) + 2 + len(", ".join(items)) <= COLUMNS_WIDTH:
            return None
        return [f"{title}:"] + columns(items, COLUMNS_WIDTH)

    def header(self) -> list[str]:
        o = self.obs
        title = self.rs.title + (f" ({self.rs.variant})" if self.rs.variant else "")
        if o["finished"]:
            state = "the game is over"
        else:
            deciding = o.get("deciding") or []
            state = ("your turn" if self.me in deciding
                     else "waiting for " + ", ".join(self.names[p] for p in deciding if 0 <= p < self.n))
        viewer = "an observer" if self.me is None else self.names[self.me]
        return [f"== {title}: what {viewer} sees ({state}) =="]

    def lines(self) -> list[str]:
        out = self.header()
        for _title, lines in self.blocks():
            out.extend(lines)
        return out + self.final()

    def blocks(self) -> list[tuple[str, list[str]]]:
        """The sections as ``(title, lines)``, in drawing order; empty sections are left out (a
        pile or hand with no card, a counter whose every value is an empty list)."""
        out = []
        for i, sec in enumerate(seat_sections(self.rs, self.obs)):
            lines = getattr(self, "s_" + sec["kind"])(_without_empty(sec))
            if lines and not _is_empty(sec):
                name = sec.get("title") or (("header" if i == 0 else "footer") if sec["kind"] == "text" else f"{sec['kind']} {i}")
                out.append((str(name), lines))
        return out

    def final(self) -> list[str]:
        out: list[str] = []
        oc = self.obs.get("outcome")
        if oc:
            winners = set(oc.get("winners") or [])
            out.append("final scores: " + "; ".join(
                f"{place}. " + " and ".join(self.names[p] for p in seats) + f" {value_text(self.rs, score)}"
                + (" (winner)" if seats[0] in winners else "") + (" (a shared place)" if len(seats) > 1 else "")
                for place, seats, score in places(oc, bool(self.rs.tiebreaks))))
            if oc.get("reason"):
                out.append(f"game over: {oc['reason']}")
        return out

    # -- sections ---------------------------------------------------------------------------
    def s_text(self, sec: dict) -> list[str]:
        return [ln for ln in sec["lines"] if ln != ""]

    def s_board(self, sec: dict) -> list[str]:
        return draw_board(sec["board"])

    def s_piles(self, sec: dict) -> list[str]:
        rows = sec["rows"]
        if len(rows) == 1 and rows[0][0] is None:
            wide = self.wide_row(sec["title"], rows[0][1])
            return wide if wide is not None else [f"{sec['title']}: {self.pile(rows[0][1])}"]
        out = [f"{sec['title']}:"]
        for p, pile in rows:
            wide = self.wide_row(f"  {self.who(p)}", pile)
            if wide is None:
                out.append(f"  {self.who(p)}: {self.pile(pile)}")
            else:  # the seat's name, then its cards in columns indented under it
                out += [wide[0]] + ["  " + line for line in wide[1:]]
        return out

    def s_keyed(self, sec: dict) -> list[str]:
        rows = [(k, pile) for k, pile in sec["rows"] if pile.get("ids") != []]
        if not rows:
            return [f"{sec['title']}: empty"]
        items = [f"{value_text(self.rs, k)}: {self.pile(pile)}" for k, pile in rows]
        if len(items) > KEYED_COLUMNS_FROM:  # a wide supply: in columns
            return [f"{sec['title']}:"] + columns(items, COLUMNS_WIDTH)
        return [f"{sec['title']}:"] + [f"  {item}" for item in items]

    def s_grid(self, sec: dict) -> list[str]:
        cells = sec["cells"]
        out = [f"{sec['title']}:"]
        xs = [x for x, _ in cells]
        ys = [y for _, y in cells]
        x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
        if x1 - x0 + 1 > 12 or y1 - y0 + 1 > 40:
            return out + [f"  ({x}, {y}) {self.pile(p)}" for (x, y), p in sorted(cells.items()) if p.get("ids") != []]
        width = 3
        texts = {}
        for key, pile in cells.items():
            t = "" if pile.get("ids") == [] else self.pile(pile)
            if len(t) > CELL_WIDTH:
                t = t[: CELL_WIDTH - 1] + "…"
            texts[key] = t
            width = max(width, len(t))
        out.append("     " + " ".join(str(x).center(width) for x in range(x0, x1 + 1)))
        for y in range(y0, y1 + 1):
            out.append(f"  {y:>2} " + " ".join(
                (texts.get((x, y)) or ("." if (x, y) in cells else " ")).center(width) for x in range(x0, x1 + 1)))
        return out

    def s_map(self, sec: dict) -> list[str]:
        gm = (getattr(self.rs, "maps", {}) or {}).get(sec["map"])
        out = [f"{sec['title']}:"]
        occupied = sorted(sec["pieces"].items(), key=lambda kv: str(kv[0]))
        letters = {node: (chr(ord("A") + i) if i < 26 else "*") for i, (node, _) in enumerate(occupied)}
        if gm is not None:
            keys = not sec.get("zones")  # no pieces to letter: each node shows its key, the names below use them
            out.extend(("  " + row).rstrip() for row in self.map_picture(gm, letters, keys))

        def name(node) -> str:
            if gm is not None and sec.get("label") and node in gm.graph:
                return f"{gm.graph.nodes[node].get(sec['label'], node)} ({node})"
            return str(node)

        if not occupied and sec.get("zones"):  # a map without a zone of pieces shows only its routes
            out.append("  no pieces on the map")
        for node, ids in occupied:
            out.append(f"  {letters[node]} {name(node)}: {self.pile({'ids': ids, 'show': 'all'})}")
        return out + self.map_routes(sec.get("edges") or [], name)

    def map_routes(self, edges: list[dict], name) -> list[str]:
        """The map's edges as a compact list, one a line: its ends by name, its label and colour
        (the display's ``edges:`` attributes) and its owner; nothing for a map of more than
        MAP_ROUTES edges with none styled or owned (a plain road network is the picture)."""
        styled = [e for e in edges if e.get("owner") is not None or e.get("label") is not None or e.get("colour") is not None]
        if not styled or len(edges) > MAP_ROUTES:
            return []
        out = ["  routes:"]
        for e in edges:
            bits = [str(x) for x in (e.get("label"), e.get("colour")) if x is not None]
            owner = "" if e.get("owner") is None else f"  {self.who(e['owner'])}"
            out.append(f"    {name(e['a'])} – {name(e['b'])}{' (' + ', '.join(bits) + ')' if bits else ''}{owner}")
        return out

    def map_picture(self, gm: Any, letters: dict, keys: bool = False) -> list[str]:
        """The map's nodes at their ``x``/``y`` attributes (y growing upward) on a grid of
        MAP_WIDTH x MAP_HEIGHT characters: ``·`` a node, its letter (``letters``: node -> the
        letter naming it in the list below the picture) a node with pieces; none without
        coordinates.  With ``keys`` (a map without pieces), a node's key is written from its
        place instead of the dot where it fits without touching another node's text (the routes
        below name the nodes as ``Name (KEY)``)."""
        pos = {}
        for node, d in gm.graph.nodes(data=True):
            x, y = d.get("x"), d.get("y")
            if not isinstance(x, (int, float)) or not isinstance(y, (int, float)) or isinstance(x, bool):
                return []
            pos[node] = (float(x), float(y))
        if not pos:
            return []
        xs = [p[0] for p in pos.values()]
        ys = [p[1] for p in pos.values()]
        w, h = MAP_WIDTH - 1, MAP_HEIGHT - 1
        grid = [[" "] * MAP_WIDTH for _ in range(MAP_HEIGHT)]
        cells = {}
        for node, (x, y) in sorted(pos.items(), key=lambda kv: kv[0] in letters):  # lettered nodes drawn last, on top
            col = round((x - min(xs)) / ((max(xs) - min(xs)) or 1) * w)
            row = h - round((y - min(ys)) / ((max(ys) - min(ys)) or 1) * h)
            grid[row][col] = letters.get(node, "·")
            cells[node] = (row, col)
        if keys:
            for node, (row, col) in sorted(cells.items(), key=lambda kv: (kv[1], str(kv[0]))):
                text = str(node)
                start = min(col, MAP_WIDTH - len(text))
                if len(text) > MAP_WIDTH or start < 0:
                    continue
                span = range(max(start - 1, 0), min(start + len(text) + 1, MAP_WIDTH))
                if all(grid[row][c] == " " or c == col for c in span):  # one space apart from any other text
                    for i, ch in enumerate(text):
                        grid[row][start + i] = ch
        return ["".join(r) for r in grid]

    def s_track(self, sec: dict) -> list[str]:
        low, high = sec["low"], sec["high"]
        out = [f"{sec['title']}:"]
        small = isinstance(low, int) and isinstance(high, int) and 0 < high - low + 1 <= MAX_TRACK_SPACES
        for p, v in sec["rows"]:
            who = self.who(p) or sec["title"]
            if v is None:
                out.append(f"  {who}: ?")
            elif small and isinstance(v, int) and not isinstance(v, bool) and low <= v <= high:
                spaces = "".join("●" if i == v else "·" for i in range(low, high + 1))
                out.append(f"  {who}: {low} {spaces} {high}  ({v})")
            else:
                out.append(f"  {who}: {value_text(self.rs, v)}")
        return out

    def s_counter(self, sec: dict) -> list[str]:
        rows = sec["rows"]
        if sec.get("cells"):  # a value per named cell: "P1 yellow 2, brown 0"
            names = sec["cells"]
            return [f"{sec['title']}: " + "; ".join(
                f"{self.who(p)} " + (", ".join(f"{c} {value_text(self.rs, x)}" for c, x in zip(names, v))
                                     if isinstance(v, list) and len(v) <= len(names) else value_text(self.rs, v))
                for p, v in rows)]
        if len(rows) == 1 and rows[0][0] is None:
            return [f"{sec['title']}: {value_text(self.rs, rows[0][1])}"]
        return [f"{sec['title']}: " + "; ".join(f"{self.who(p)} {value_text(self.rs, v)}" for p, v in rows)]
