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
- the decision's question above the table; every legal action is attached to the things on the
  table it names (:func:`table_acts`: a visible card, a board's place — with the components the
  seat sees there —, a map's node or route, ``data-acts``) or that the display attaches it to (a
  ``table`` item's ``acts``: the pile, the seat's own row, one of its groups, a counter's cell; the board's
  ``side_acts``: a side of the board, drawn as a strip around the grid), and clicking them (or
  Enter on the focused thing) takes it — at once when one click singles it out, else each click
  narrows the actions to those naming everything clicked (``static/table.js``);
- what the things alone cannot single out — a question naming nothing on the table (yes/no,
  "draw two cards"), the way of a move to a node when the display attaches none of the ways to
  a thing (on foot or by boat), the pile a trade draws
  from — gets a *table-side control*: a dashed chip on the table with the words of its label
  that are not the things' (``Move to …``, ``Pass``; :func:`table_controls`), clicked
  like a thing.  This is the decided answer for actions with no table thing: a control drawn
  with the table, not the list of buttons;
- below the table, every legal action as a button (the accessible fallback list); the game's
  account is the seat's visible log, the final scores a table of places (ties share a place).

Click targets and controls are built from the observation's own decision and what the page draws
of the observation (and the ruleset's public maps): another seat's page carries none.

Every text is escaped (:func:`html.escape`): ruleset labels are data, never markup.
"""

from __future__ import annotations

import math
import re
from html import escape
from typing import TYPE_CHECKING, Any

from ..loader.maps import SEAT_COLOURS
from .faces import face_of
from .maplabels import LINE_HEIGHT, block_size, place_labels
from .view import action_text_cards, changed_props, places, seat_name, seat_sections, value_text, visible_ids

if TYPE_CHECKING:  # pragma: no cover
    from ..compile.ruleset import Ruleset

__all__ = ["seat_html"]

#: The most cells a track draws one by one (longer tracks are drawn as bars).
MAX_TRACK_CELLS = 40
#: The font sizes of a map's node names and of the pieces under them (pixels of the picture).
LABEL_SIZE, PIECE_SIZE = 10.0, 11.0


def seat_html(rs: Ruleset, obs: dict, log: list[str], seat_names: list[str] | None = None) -> str:
    """The HTML fragment of one seat's page for observation ``obs`` and account ``log``
    (``State.visible_log(p)``).

    ``seat_names``: a label per seat (``"P1 (you)"``, ``"P2 (random)"``); default ``P1``...
    Returns a ``<div class="table-view">`` string.  Raises nothing for well-formed observations.
    """
    n = obs["num_players"]
    names = seat_names or [seat_name(p) for p in range(n)]
    v = _View(rs, obs, names)
    parts = ['<div class="table-view">', v.status(), v.prompt(), v.outcome()]
    parts.append('<div class="board">')
    drawn = [getattr(v, "s_" + sec["kind"])(sec) for sec in seat_sections(rs, obs)]
    parts.append(v.controls())  # after the sections: for the actions that what they drew does not single out
    parts.extend(drawn)
    parts.append("</div>")
    parts.append(v.actions())  # the fallback: every legal action as a button, below the table
    parts.append('<details class="account" open><summary>Account</summary><ol class="log">')
    for line in log[-200:]:
        parts.append(f"<li>{escape(line)}</li>")
    parts.append("</ol></details>")
    parts.append("</div>")
    return "".join(p for p in parts if p)


_PLACE = re.compile(r"\((-?\d+), (-?\d+)\)")


def _ids(z: Any) -> list[str]:
    """The component ids in an observed stack (nested lists walked; hidden counts skipped)."""
    if isinstance(z, str):
        return [z]
    if isinstance(z, list):
        return [i for x in z for i in _ids(x)]
    return []


def _args(text: str) -> list[str]:
    """The top-level arguments of an action's canonical text, stripped (``trade(card-3, red)``
    ``["card-3", "red"]``, ``a(f(1, 2), 3)`` ``["f(1, 2)", "3"]``, ``b`` ``[]``)."""
    if "(" not in text:
        return []
    depth, parts, arg = 0, [], ""
    for ch in text[text.index("(") + 1:].rstrip(")"):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(arg.strip())
            arg = ""
            continue
        arg += ch
    parts.append(arg.strip())
    return parts


def _first_int(text: str) -> int | None:
    """The first top-level argument of an action's canonical text that is a whole number
    (``a(1)`` 1, ``b(90)`` 90, ``c(card-3, 270)`` 270), else None."""
    whole = [int(a) for a in _args(text) if re.fullmatch(r"-?\d+", a)]
    return whole[0] if whole else None


def table_acts(rs: Ruleset, obs: dict) -> dict[str, list[int]]:
    """Click-to-act: the legal actions of the seat's decision attached to the things on the
    table they name, ``{thing: [action index]}``, a thing being a visible component's id (a map's
    edge component too: the map is public), a place ``"x,y"`` (an ``(x, y)`` argument) or a map
    node ``"node:N"``; and the things the display attaches options to (``display.table``'s
    ``acts``: a zone's pile ``"zone:Z"``, or its group ``"zone:Z:k"`` when the zone has
    ``count`` groups and the action's first whole-number argument is k; a track or counter
    ``"var:V"``, or its cell ``"var:V:k"`` when the counter has ``cells`` and the action's first
    whole-number argument is k; an entry ``{option, arg}`` attaches only the option's actions one
    of whose top-level arguments is ``arg``; ``display.board``'s
    ``side_acts``: a side of the board ``"side:B"``, B the action's first whole-number argument as
    a bearing 0, 90, 180 or 270).  Built from the observation's decision (canonical action texts), the
    components it shows, its display data and the ruleset's maps; a card the seat cannot see
    never gets one."""
    d = obs.get("decision") or {}
    seen = set(visible_ids(rs, obs))
    nodes: set[str] = set()
    for gm in (getattr(rs, "maps", {}) or {}).values():
        nodes.update(str(n) for n in gm.graph.nodes)
        seen.update(c.id for _, _, c in gm.graph.edges(data="component") if c is not None)
    disp = obs.get("display") or {}
    zone_of: dict[str, list[str]] = {}  # option -> the zones whose piles carry its actions
    var_of: dict[str, list[str]] = {}  # option -> the tracks and counters carrying its actions
    arg_of: dict[tuple[str, str], str] = {}  # (option, thing) -> the argument its actions must have there
    celled: set[str] = set()  # the counters drawn as cells (``cells``)
    for item in disp.get("table") or []:
        for opt in item.get("acts") or ():
            zone = item["kind"] in ("hand", "pile")
            if isinstance(opt, dict):  # {option, arg}: only the actions with that argument
                arg_of[(opt["option"], f"zone:{item['name']}" if zone else f"var:{item['name']}")] = opt["arg"]
                opt = opt["option"]
            (zone_of if zone else var_of).setdefault(opt, []).append(item["name"])
        if item.get("cells"):
            celled.add(item["name"])
    board = disp.get("board") or {}
    sides = set(board.get("side_acts") or ())
    merging = {o.name for c in getattr(rs, "chooses", ()) for o in c.options if getattr(o, "merge", False)}
    beside = _copies_beside(rs, obs) if merging else {}
    out: dict[str, list[int]] = {}
    for i, text in enumerate(d.get("actions") or []):
        text = str(text)
        words = set(re.split(r"[(),\s]+", text))
        things = {t for t in words if t in seen}
        if text.split("(")[0] in merging:  # identical components merged: any copy beside the one named
            things |= {x for t in list(things) for x in beside.get(t, ())}
        things |= {f"{x},{y}" for x, y in _PLACE.findall(text)}
        things |= {f"node:{t}" for t in words if t in nodes and t not in seen}
        opt = text.split("(")[0]
        for z in zone_of.get(opt, ()):
            if (opt, f"zone:{z}") in arg_of and arg_of[(opt, f"zone:{z}")] not in _args(text):
                continue
            decl = rs.zones.get(z)
            k = _first_int(text)
            grouped = decl is not None and getattr(decl, "count", None) is not None
            things.add(f"zone:{z}:{k}" if grouped and k is not None else f"zone:{z}")
        things |= {_var_thing(v, text, v in celled) for v in var_of.get(opt, ())
                   if arg_of.get((opt, f"var:{v}"), None) in (None, *_args(text))}
        if opt in sides:
            b = _first_int(text)
            if b is not None and b % 90 == 0:
                things.add(f"side:{b % 360}")
        for t in sorted(things):
            out.setdefault(t, []).append(i)
    return out


def _copies_beside(rs: Ruleset, obs: dict) -> dict[str, list[str]]:
    """For each component the observation shows in a pile: the ids of the components identical
    to it (:attr:`~interpreter.model.Component.look`) in the same pile, itself included, so that
    an action of an option with ``merge_identical: true`` is taken by a click on any copy."""
    out: dict[str, list[str]] = {}
    by_id = rs.by_id

    def walk(z: Any) -> None:
        if not isinstance(z, list):
            return
        ids = [x for x in z if isinstance(x, str) and x in by_id]
        if ids:
            looks: dict = {}
            for x in ids:
                looks.setdefault(by_id[x].look, []).append(x)
            for same in looks.values():
                for x in same:
                    out[x] = same
        for x in z:
            if isinstance(x, list):
                walk(x)

    for name, z in (obs.get("zones") or {}).items():
        decl = rs.zones.get(name)
        if decl is not None and decl.keyed and isinstance(z, list):
            for entry in z:
                if isinstance(entry, list) and len(entry) == 2:
                    walk(entry[1])
        else:
            walk(z)
    return out


def _var_thing(var: str, text: str, celled: bool) -> str:
    """The thing of a track or counter ``var`` carrying action ``text``: ``"var:V"`` (the seat's
    row), or for a counter drawn as cells (``cells``) ``"var:V:i"``, cell i, when the action's
    first whole-number argument is i."""
    k = _first_int(text) if celled else None
    return f"var:{var}:{k}" if k is not None else f"var:{var}"


def _thing_text(rs: Ruleset, thing: str) -> list[str]:
    """The words a label may use for ``thing`` (a component's face short form, title and label;
    a node's id and names; a place ``(x, y)``), longest first."""
    out: list[str] = []
    if thing.startswith("node:"):
        node = thing[5:]
        out.append(node)
        for gm in (getattr(rs, "maps", {}) or {}).values():
            if node in gm.graph:
                out.extend(str(v) for v in gm.graph.nodes[node].values() if isinstance(v, str))
    elif "," in thing and thing.replace(",", "").replace("-", "").isdigit():
        x, y = thing.split(",")
        out.append(f"({x}, {y})")
    else:
        c = rs.by_id.get(thing)
        face = face_of(rs, thing)
        out.extend([face.short, face.title] if face is not None else [])
        out.extend([c.label, thing] if c is not None else [thing])
    return sorted({t for t in out if t}, key=len, reverse=True)


def table_controls(rs: Ruleset, obs: dict, acts: dict[str, list[int]]) -> list[tuple[str, list[int]]]:
    """The table-side controls of a decision: what a seat clicks on the table, beside the cards,
    places and map nodes, for the actions those things alone do not single out.

    An action is taken by clicking the things it names (:func:`table_acts`); when they name no
    other action, nothing more is needed.  Otherwise — a yes/no question naming nothing, a move
    naming the same node on foot or by boat, a trade naming a card and the pile to draw from —
    the action's label with the things' words replaced by ``…`` is a control
    (``Move to … by bus``, ``Discard … for a card from the draw pile``, ``Draw two
    cards``); actions of the same option whose controls differ only in what follows their shared
    words share one control (``Move to …``) when the things still tell them apart.  Returns
    ``[(control text, [action index])]`` in the order of the actions.  Built from the seat's own
    decision (its labels) and ``acts`` — :func:`table_acts` restricted to the things the page
    drew (a card drawn as text in a board's cell is no thing to click): nothing another seat
    could not see."""
    d = obs.get("decision") or {}
    texts = [str(a) for a in d.get("actions") or []]
    labels = [str(x) for x in d.get("labels") or texts]
    things: dict[int, list[str]] = {i: [] for i in range(len(texts))}
    for t, idx in acts.items():
        for i in idx:
            things[i].append(t)
    everyone = set(range(len(texts)))

    def narrowed(i: int, extra: set[int] | None = None) -> set[int]:
        left = set(everyone if extra is None else extra)
        for t in things[i]:
            left &= set(acts[t])
        return left

    def derived(i: int) -> str:
        label = labels[i]
        for t in things[i]:
            for word in _thing_text(rs, t):
                if word and word in label:
                    label = label.replace(word, "…", 1)
                    break
        return label

    name = [t.split("(")[0] for t in texts]
    need = [i for i in range(len(texts)) if not things[i] or narrowed(i) != {i}]
    controls: dict[str, list[int]] = {}
    by_option: dict[str, list[int]] = {}
    for i in need:
        by_option.setdefault(name[i], []).append(i)
    for opt, idx in by_option.items():
        group = {i for i in range(len(texts)) if name[i] == opt}
        words = [derived(i).split() for i in idx]
        shared: list[str] = []
        for k in range(min(len(w) for w in words)):
            if all(w[k] == words[0][k] for w in words):
                shared.append(words[0][k])
            else:
                break
        if len(idx) > 1 and shared and all(narrowed(i, group) == {i} for i in idx) and any(things[i] for i in idx):
            same = all(w == words[0] for w in words)
            text = " ".join(words[0]) if same else " ".join(shared) + ("" if shared[-1] == "…" else " …")
            controls.setdefault(text, []).extend(sorted(group))
            continue
        for i in idx:
            controls.setdefault(derived(i), []).append(i)
    return [(t, sorted(set(idx))) for t, idx in sorted(controls.items(), key=lambda kv: min(kv[1]))]


#: A keyed zone (a supply of piles) of more rows than this is drawn as a grid of columns.
KEYED_GRID_FROM = 6


class _View:
    def __init__(self, rs: Ruleset, obs: dict, names: list[str]):
        self.rs = rs
        self.obs = obs
        self.names = names
        self.n = obs["num_players"]
        self.me = obs["player"]
        self.acts = table_acts(rs, obs)
        self.drawn: set[str] = set()  # the things drawn with their actions (acts_attr)

    # -- texts -----------------------------------------------------------------------------------
    def label(self, cid: str) -> str:
        c = self.rs.by_id.get(cid)
        return c.label if c is not None else cid

    def value_text(self, v: Any) -> str:
        return value_text(self.rs, v, withheld="-")

    # -- parts -----------------------------------------------------------------------------------
    def controls(self) -> str:
        """The table-side controls (:func:`table_controls`): chips on the table, each naming what
        its click adds to the cards, places or map nodes clicked (``data-acts`` as theirs)."""
        if not self.obs.get("decision") or self.me not in (self.obs.get("deciding") or []):
            return ""
        chips = "".join(f'<span class="control actionable" tabindex="0" data-acts="{" ".join(map(str, idx))}">{escape(text)}</span>'
                        for text, idx in table_controls(self.rs, self.obs, {t: self.acts[t] for t in self.drawn}))
        return f'<section class="table-controls" aria-label="moves on the table">{chips}</section>' if chips else ""

    def status(self) -> str:
        o = self.obs
        bits = [f'<h2>{escape(self.rs.title)}{" (" + escape(self.rs.variant) + ")" if self.rs.variant else ""}</h2>']
        if self.me is None:
            bits.append('<p class="you">You are watching: public information only.</p>')
        else:
            bits.append(f'<p class="you">You are <b>{escape(self.names[self.me])}</b>.</p>')
        if o["finished"]:
            bits.append('<p class="turn">The game is over.</p>')
        else:
            deciding = o.get("deciding") or []
            who = ", ".join(escape(self.names[p]) for p in deciding if 0 <= p < self.n)
            mine = self.me is not None and self.me in deciding and bool(o.get("decision"))  # a pending decision of this seat
            # where the game stands: the display's first header line (the round in the ruleset's words), else the phase
            header = [str(x) for x in ((o.get("display") or {}).get("header") or []) if str(x).strip()]
            where = f" · {escape(header[0])}" if header else (f" (phase {escape(str(o['phase']).replace('_', ' '))})"
                                                               if o.get("phase") else "")
            turns = f"; your turns so far: {o['turns'][self.me]}" if self.me is not None else ""
            bits.append(f'<p class="turn{" mine" if mine else ""}">{"Your turn" if mine else "Waiting for " + who}'
                        f'{where}{turns}</p>')
        return '<div class="status">' + "".join(bits) + "</div>"

    def prompt(self) -> str:
        """The question of the seat's decision, above the table (where its answer is clicked)."""
        d = self.obs.get("decision")
        if not d:
            return ""
        return (f'<div class="decision"><p class="prompt">{escape(str(d["prompt"] or "Choose"))}</p>'
                '<p class="hint">Click on the table: a card, a pile, a place or side of the board, a map node or route, '
                'or a dashed control where one is drawn (Enter on the keyboard); every move is also in the list below the '
                'table.</p></div>')

    def actions(self) -> str:
        """The fallback: every legal action as a button (the accessible list), below the table."""
        d = self.obs.get("decision")
        if not d:
            return ""
        out = ['<details class="decision-list" open><summary>All your moves as a list</summary><div class="actions">']
        for i, (a, lab) in enumerate(zip(d["actions"], d["labels"])):
            faces = action_text_cards(self.rs, self.obs, a)  # the cards it names that this seat sees: their faces, short
            tip = "\n\n".join("\n".join([f.title, *f.lines]) for f in faces)
            small = "".join(f'<small class="face-line">{escape(f.one_line())}</small>' for f in faces)
            out.append(f'<button class="action" data-action="{escape(a, quote=True)}" data-index="{i}"'
                       + (f' title="{escape(tip, quote=True)}"' if tip else "") + f'>{escape(str(lab))}{small}</button>')
        out.append("</div></details>")
        return "".join(out)

    def outcome(self) -> str:
        oc = self.obs.get("outcome")
        if not oc:
            return ""
        winners = set(oc.get("winners") or [])
        rows = []
        for place, seats, score in places(oc, bool(self.rs.tiebreaks)):
            shared = len(seats) > 1
            for p in seats:
                won = p in winners
                rows.append(f'<tr class="{"winner" if won else ""}"><td class="place">{place}{" (shared)" if shared else ""}</td>'
                            f'<td>{escape(self.names[p])}</td><td>{escape(self.value_text(score))}</td>'
                            f'<td>{"winner" if won else ""}</td></tr>')
        reason = escape(str(oc.get("reason", "")))
        return ('<div class="outcome"><h3>Final scores</h3><table class="scores"><tr><th>Place</th><th>Seat</th><th>Score</th>'
                '<th></th></tr>' + "".join(rows) + f'</table><p class="reason">Game over: {reason}.</p></div>')

    def cards(self, pile: dict, zone: str | None = None) -> str:
        """A pile (see :mod:`interpreter.views.view`) as labelled cards, or a face-down count;
        ``zone``: the zone of the viewer's own pile, whose groups carry the actions attached to
        them (``zone:Z:k``, :func:`table_acts`)."""
        if "count" in pile:
            k = pile["count"]
            if not k:
                return '<div class="pile empty">empty</div>'
            if "contents" in pile:  # known contents, unknown order: a count per look
                looks = "".join(f'<span class="back look" title="in it, order unknown">{escape(self.look(cid))}'
                                f'{" ×" + str(n) if n > 1 else ""}</span>' for cid, n in pile["contents"])
                return f'<div class="pile hidden-pile contents-pile" title="face down ({k}), order unknown">{looks}</div>'
            backs = "".join(f'<span class="back" title="face down">{escape(str(b))}{" ×" + str(n) if n > 1 else ""}</span>'
                            for b, n in pile.get("backs") or [])
            if backs:
                return f'<div class="pile hidden-pile" title="face down ({k})">{backs}</div>'
            return f'<div class="pile hidden-pile" title="face down"><span class="back">{k}</span> face down</div>'
        if "subs" in pile:
            out = []
            for i, sub in enumerate(pile["subs"]):
                acts = self.acts_attr(f"zone:{zone}:{i}") if zone is not None else ""
                more = ' actionable" tabindex="0' if acts else ""
                out.append(f'<div class="group{more}"{acts}><span class="group-name">{i + 1}</span>{self.cards(sub)}</div>')
            return '<div class="groups">' + "".join(out) + "</div>"
        ids = pile["ids"]
        if not ids:
            return '<div class="pile empty">empty</div>'
        show = pile.get("show")
        if show == "count":
            return f'<div class="pile counted"><span class="count">{len(ids)}</span></div>'
        if show == "top":  # and a card under it that a legal action names (the pile is seen whole: ids)
            under = "".join(self.card(cid) for cid in ids[:-1] if isinstance(cid, str) and self.acts.get(cid))
            return (f'<div class="pile top-only">{under}{self.card(ids[-1])}<span class="count">{len(ids)} in all</span></div>')
        return '<div class="pile">' + "".join(self.card(cid) for cid in ids) + "</div>"

    def look(self, cid: str) -> str:
        """A kind of card the seat knows lies in a pile (not which copy, nor where): its face's
        short form, or its label."""
        face = face_of(self.rs, cid)
        return face.short if face is not None else self.label(cid)

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
        if idx:
            self.drawn.add(thing)
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
        """The display's board: a grid of places, each its lines; a place carries the actions
        naming it and those naming a component the seat sees there (a mat drawn as text in its
        cell is clicked in the cell); the sides ``side_acts`` attaches actions to are drawn around
        the grid, each carrying its actions, with the board's markers on their sides."""
        b = sec["board"]
        title = escape((b.get("zone") or "board").replace("_", " "))
        at: dict[tuple[int, int], list[str]] = {}  # place -> the components the seat sees there
        z = (self.obs.get("zones") or {}).get(b.get("zone") or "")
        if isinstance(z, list):
            for entry in z:
                if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], dict) and len(entry[0].get("t") or ()) == 2:
                    at[tuple(entry[0]["t"])] = [i for i in _ids(entry[1]) if i in self.acts]
        cells = {(x, y): rows for x, y, rows in b["cells"]}
        named = [tuple(map(int, t.split(","))) for t in self.acts if "," in t and ":" not in t]  # places an action names: drawn too
        sided = {int(t[5:]) for t in self.acts if t.startswith("side:")}
        markers: dict[int, str] = {}  # side -> the markers beside it
        for side, text in b["edges"]:
            markers[int(side)] = (markers.get(int(side), "") + " " + text).strip()
        edges = "".join(f'<p class="edge side-{int(side)}">{escape(text)}</p>' for side, text in b["edges"])
        if not cells and not named:
            return f'<section class="display-board"><h3>{title}</h3>{edges}<p class="empty">empty</p></section>'
        xs = [x for x, _ in cells] + [x for x, _ in named]
        ys = [y for _, y in cells] + [y for _, y in named]
        x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
        out = [f'<section class="display-board"><h3>{title}</h3><div class="board-frame">']
        for side in sorted(sided | set(markers)):  # each marker on its side; a side with moves is clicked
            acts = self.acts_attr(f"side:{side}")
            more = ' actionable" tabindex="0' if acts else ""
            out.append(f'<div class="board-side side-{side}{more}" data-side="{side}"{acts}>{escape(markers.get(side, ""))}</div>')
        out.append(f'<div class="grid board-grid" style="grid-template-columns: repeat({x1 - x0 + 1}, minmax(3em, 11em))">')
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                rows = cells.get((x, y))
                acts = self.cell_acts(f"{x},{y}", at.get((x, y), []))
                more = ' actionable" tabindex="0' if acts else ""
                if rows is None:
                    out.append(f'<div class="cell empty{more}" data-place="{x},{y}"{acts}>{escape(b["empty"])}</div>')
                    continue
                inner = "".join(
                    '<div class="cell-line">' + "".join(f'<span class="part">{escape(t)}</span>' for t in parts) + "</div>"
                    for parts in rows)
                out.append(f'<div class="cell{more}" data-place="{x},{y}"{acts}>{inner}</div>')
        out.append("</div></div></section>")
        return "".join(out)

    def cell_acts(self, place: str, ids: list[str]) -> str:
        """`` data-acts`` of a board's place: the actions naming the place or a component the
        seat sees there (each such thing counted as drawn), else ''."""
        idx: set[int] = set()
        for thing in [place, *ids]:
            if self.acts.get(thing):
                self.drawn.add(thing)
                idx.update(self.acts[thing])
        return f' data-acts="{" ".join(map(str, sorted(idx)))}"' if idx else ""

    def s_piles(self, sec: dict) -> str:
        """A zone's piles; with ``acts`` (``display.table``), the pile (the seat's own row of a
        per-player zone) and its groups carry the actions attached to them (:func:`table_acts`)."""
        zone = sec["zone"]
        name = escape(zone, quote=True)
        title = f'<h3>{escape(sec["title"])}</h3>'
        rows = sec["rows"]
        attached = bool(sec.get("acts"))
        if len(rows) == 1 and rows[0][0] is None:
            acts = self.acts_attr(f"zone:{zone}") if attached else ""
            more = ' actionable" tabindex="0' if acts else ""
            return (f'<section class="zone{more}" data-zone="{name}"{acts}>{title}'
                    f'{self.cards(rows[0][1], zone if attached else None)}</section>')
        body = []
        for p, pile in rows:
            mine = attached and p == self.me
            acts = self.acts_attr(f"zone:{zone}") if mine else ""
            more = ' actionable" tabindex="0' if acts else ""
            body.append(f'<div class="seat-zone{" mine" if p == self.me else ""}{more}"{acts}>'
                        f'<span class="owner">{escape(self.who(p))}</span>{self.cards(pile, zone if mine else None)}</div>')
        return f'<section class="zone per-player" data-zone="{name}">{title}{"".join(body)}</section>'

    def s_keyed(self, sec: dict) -> str:
        body = "".join(f'<div class="keyed"><span class="key">{escape(self.value_text(k))}</span>{self.cards(pile)}</div>'
                       for k, pile in sec["rows"])
        if len(sec["rows"]) > KEYED_GRID_FROM:  # a wide supply: a grid that fits the panel
            body = f'<div class="keyed-grid">{body}</div>'
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

    def var_acts(self, sec: dict, p: int | None) -> str:
        """`` data-acts`` (with the actionable class's attributes) of a track's or counter's row
        for seat ``p`` (None: the whole variable): the actions ``acts`` attaches to it, on the
        deciding seat's own row of a per-player variable, else ''."""
        if not sec.get("acts") or (p is not None and p != self.me):
            return ""
        acts = self.acts_attr(f"var:{sec['var']}")
        return f' tabindex="0"{acts}' if acts else ""

    def s_track(self, sec: dict) -> str:
        lo, hi = sec["low"], sec["high"]
        rows = []
        for p, x in sec["rows"]:
            who = escape(self.who(p) or sec["title"])
            acts = self.var_acts(sec, p)
            cls = "track-row actionable" if acts else "track-row"
            if x is None:
                rows.append(f'<div class="{cls}"{acts}><span class="owner">{who}</span> hidden</div>')
                continue
            if not isinstance(x, (int, float)) or isinstance(x, bool):
                rows.append(f'<div class="{cls}"{acts}><span class="owner">{who}</span> {escape(self.value_text(x))}</div>')
                continue
            if isinstance(lo, int) and isinstance(hi, int) and 0 < hi - lo + 1 <= MAX_TRACK_CELLS:
                cells = "".join(f'<span class="space{" on" if i == x else ""}">{i}</span>' for i in range(lo, hi + 1))
            else:
                pct = 100 * min(max((x - lo) / ((hi - lo) or 1), 0), 1)
                cells = f'<span class="bar"><span class="fill" style="width:{pct:.0f}%"></span></span><b>{x}</b>'
            rows.append(f'<div class="{cls}"{acts}><span class="owner">{who}</span><span class="spaces">{cells}</span></div>')
        return (f'<section class="track" data-var="{escape(sec["var"], quote=True)}"><h3>{escape(sec["title"])}</h3>'
                + "".join(rows) + "</section>")

    def s_counter(self, sec: dict) -> str:
        rows = sec["rows"]
        var = escape(sec["var"], quote=True)
        if sec.get("cells") and any(isinstance(v, list) for _, v in rows):
            return self.counter_cells(sec)
        if len(rows) == 1 and rows[0][0] is None:
            acts = self.var_acts(sec, None)
            return (f'<section class="counter{" actionable" if acts else ""}" data-var="{var}"{acts}><span class="name">'
                    f'{escape(sec["title"])}</span> <span class="value">{escape(self.value_text(rows[0][1]))}</span></section>')
        values = []
        for p, v in rows:  # a value per seat; the seat's own carries the actions attached to it
            acts = self.var_acts(sec, p)
            values.append(f'<span class="value{" actionable" if acts else ""}"{acts}>'
                          f'{escape(self.who(p))}: {escape(self.value_text(v))}</span>')
        return (f'<section class="counter" data-var="{var}"><span class="name">{escape(sec["title"])}</span> '
                + "; ".join(values) + "</section>")

    def counter_cells(self, sec: dict) -> str:
        """A counter drawn as cells (``cells``): a row per seat, its owner then a cell per name
        with its value; on the deciding seat's own row the owner carries the actions attached to
        the row (``var:V``) and cell i those whose first whole-number argument is i
        (``var:V:i``, :func:`table_acts`)."""
        var = sec["var"]
        rows = []
        for p, v in sec["rows"]:
            acts = self.var_acts(sec, p)
            mine = bool(sec.get("acts")) and p == self.me
            parts = [f'<span class="value{" actionable" if acts else ""}"{acts}>{escape(self.who(p) or sec["title"])}</span>']
            if isinstance(v, list):
                for i, (name, x) in enumerate(zip(sec["cells"], v)):
                    cell = self.acts_attr(f"var:{var}:{i}") if mine else ""
                    more = ' actionable" tabindex="0' if cell else ""
                    parts.append(f'<span class="cell-value{more}" data-cell="{i}"{cell}>{escape(name)} '
                                 f'<b>{escape(self.value_text(x))}</b></span>')
            else:
                parts.append(f'<span class="cell-value">{escape(self.value_text(v))}</span>')
            rows.append(f'<div class="counter-row{" mine" if p == self.me else ""}">{"".join(parts)}</div>')
        return (f'<section class="counter cells" data-var="{escape(var, quote=True)}"><span class="name">'
                f'{escape(sec["title"])}</span>{"".join(rows)}</section>')

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
            acts = self.acts_attr(e["id"]) if e.get("id") is not None else ""
            more = ' actionable" tabindex="0' if acts else ""
            rid = f' data-route="{escape(str(e["id"]), quote=True)}"' if e.get("id") is not None else ""
            out.append(f'<g class="route{more}"{rid}{acts}><title>{escape(title)}</title>')
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
            if acts:  # a wide band the pointer hits anywhere along the route, gaps of its dashes included
                out.append(f'<line {line} class="hit" stroke="transparent" stroke-width="14" pointer-events="stroke"/>')
            if e.get("label") is not None:
                out.append(f'<text x="{(x1 + x2) / 2:.1f}" y="{(y1 + y2) / 2 - 6:.1f}" class="route-label" '
                           f'text-anchor="middle">{escape(str(e["label"]))}</text>')
            out.append("</g>")
        # the nodes' dots, then each node's label block (its name, the pieces on it) where it
        # overlaps no other block and no dot (interpreter.views.maplabels), a leader line to a block
        # moved away from a crowded node
        nodes = list(g.nodes(data=True))
        points = [at(node) for node, _ in nodes]
        blocks = []
        for node, d in nodes:
            name = str(d.get(label_attr or "name", node))
            ids = [cid for cid in pieces.get(node) or () if isinstance(cid, str)] if node in pieces else []
            lines = [(name, LABEL_SIZE)] + [(self.label(cid), PIECE_SIZE) for cid in ids[:6]]
            if len(ids) > 6:
                lines.append((f"+{len(ids) - 6}", PIECE_SIZE))
            blocks.append((lines, ids[:6]))
        boxes = place_labels(points, [block_size(lines) for lines, _ in blocks], w, h)
        for (node, d), (x, y) in zip(nodes, points, strict=True):
            colour = d.get(colour_attr or "colour")
            fill = colour if isinstance(colour, str) and colour.isalpha() else "lightgrey"
            name = d.get(label_attr or "name", node)
            acts = self.acts_attr("node:" + str(node))
            more = ' class="node actionable" tabindex="0"' if acts else ' class="node"'
            out.append(f'<g{more} data-node="{escape(str(node), quote=True)}"{acts}><circle cx="{x:.1f}" cy="{y:.1f}" r="6" '
                       f'fill="{escape(fill, quote=True)}"/><title>{escape(str(node))} {escape(str(name))}</title></g>')
        for (node, _), (x, y), (lines, ids), box in zip(nodes, points, blocks, boxes, strict=True):
            if box is None:
                continue
            acts = self.acts_attr("node:" + str(node))
            more = ' actionable" tabindex="-1' if acts else ""
            out.append(f'<g class="label{more}" data-label="{escape(str(node), quote=True)}"{acts}>')
            if box.leader:
                lx = min(max(x, box.x0), box.x1)
                ly = min(max(y, box.y0), box.y1)
                out.append(f'<line x1="{x:.1f}" y1="{y:.1f}" x2="{lx:.1f}" y2="{ly:.1f}" class="leader" pointer-events="none"/>')
            top = box.y0
            for k, (text, size) in enumerate(lines):
                top += LINE_HEIGHT * size
                base = top - (LINE_HEIGHT - 1) * size - 0.2 * size  # the baseline inside the line's box
                cls = "node-label" if k == 0 else "piece"
                data = f' data-id="{escape(ids[k - 1], quote=True)}"' if 0 < k <= len(ids) else ""
                out.append(f'<text x="{box.x0:.1f}" y="{base:.1f}" class="{cls}" font-size="{size:g}"{data}>{escape(text)}</text>')
            out.append("</g>")
        out.append("</svg>")
        return "".join(out)
