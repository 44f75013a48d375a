"""One seat's view of a game, as sections to draw: the step shared by the terminal and the browser.

:func:`seat_sections` reads only an observation (``State.observation(p)``, or
:func:`interpreter.views.render.view_observation`'s, which adds the display's public text) and the
compiled ruleset's declarations; it never sees the state.  :mod:`interpreter.views.termview` draws
the sections as text and :mod:`interpreter.views.webview` as HTML, so both show the same things.

A section is a dict with a ``kind``:

- ``text``: ``lines`` (a display's header or footer);
- ``board``: ``board`` (a display board, already evaluated: see
  :func:`interpreter.views.render.display_data`);
- ``grid``: ``title``, ``zone``, ``cells`` ({(x, y): pile}) — a keyed zone of (x, y) places;
- ``map``: ``title``, ``map`` (name), ``zones``, ``pieces`` ({node: [component id]}),
  ``colour``/``label`` (node attributes, or None);
- ``piles``: ``title``, ``zone``, ``rows`` ([(seat or None, pile)], the viewer's own first), and
  ``acts`` (option names attached to the pile, ``display.table``'s ``acts``) when declared;
- ``keyed``: ``title``, ``zone``, ``rows`` ([(key, pile)]) — a keyed zone of other keys (``acts``
  as for piles);
- ``track``: ``title``, ``var``, ``rows`` ([(seat or None, value or None)]), ``low``, ``high``;
- ``counter``: ``title``, ``var``, ``rows`` ([(seat or None, value)]); with ``cells`` (names,
  ``display.table``'s ``cells``) each row's value is a list of one value per cell;
  both with ``acts`` (option names attached to the item) when declared.

A *pile* is ``{"ids": [component id], "show": "all" | "top" | "count"}``, ``{"count": n,
"backs": [[back, k], ...]}`` for a zone the viewer may not look into (the backs another seat's
hand shows, when the cards' kind declares ``back:``), with ``"contents": [[component id, k], ...]``
when the viewer knows which components lie there but not their order (``owner_contents``,
``public_contents``: each look by the id of its first component, with how many; the
observation's ``ids`` are not drawn), or
``{"subs": [pile]}`` for a zone with a ``count``.
Values are the observation's JSON values; ``None`` is a value withheld from the viewer.

With a ``display``, the sections are its header, board, map, table and footer; without one,
a generic view: every zone by owner and the variables marked ``shown: true``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..engine.state import encode_value

if TYPE_CHECKING:  # pragma: no cover
    from ..compile.ruleset import Ruleset

__all__ = ["seat_sections", "places", "seat_order", "changed_props", "seat_name", "value_text", "visible_ids", "action_cards",
           "action_text_cards"]


def seat_name(player: int) -> str:
    """The name people see for 0-based seat ``player``: ``P1`` for seat 0."""
    return f"P{player + 1}"


def value_text(rs: Ruleset, v: Any, withheld: str = "?") -> str:
    """An observation's JSON value as people read it: components by label, ``withheld`` for a
    value the viewer may not see (None), ``yes``/``no`` for truth values, a record's fields as
    ``name value`` pairs."""
    if v is None:
        return withheld
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, dict):
        if "c" in v:
            c = rs.by_id.get(v["c"])
            return c.label if c is not None else str(v["c"])
        if "t" in v:
            return "(" + ", ".join(value_text(rs, x, withheld) for x in v["t"]) + ")"
        if "d" in v:
            return ", ".join(f"{value_text(rs, k, withheld)} {value_text(rs, x, withheld)}"
                             for k, x in v["d"] if x is not None) or "-"
        if "count" in v:
            return f"{v['count']} hidden"
    if isinstance(v, list):
        return "[" + ", ".join(value_text(rs, x, withheld) for x in v) + "]"
    return str(v)


def changed_props(rs: Ruleset, cid: str, props: Any) -> list[tuple[Any, Any]]:
    """The mutable properties of component ``cid`` (the observation's ``props[cid]``, a
    ``{"d": [[name, value], ...]}`` record) that differ from the ones it starts the game with,
    as ``(name, value)`` pairs: what a person sees changed on a card (a mat turned, a card
    tapped), not a list of every property at its starting value.  Withheld (None) values are
    left out."""
    if not isinstance(props, dict) or "d" not in props:
        return []
    c = rs.by_id.get(cid)
    start = {}
    if c is not None:
        start = {k: encode_value(v) for k, v in (getattr(rs, "initial_props", {}) or {}).get(c.index, {}).items()}
    return [(k, v) for k, v in props["d"] if v is not None and (k not in start or start[k] != v)]


def visible_ids(rs: Ruleset, obs: dict) -> set[str]:
    """The ids of the components whose identity the observation shows in its zones (a zone the
    viewer may not look into is a count there, so its cards are not among them)."""
    out: set[str] = set()

    def walk(z: Any) -> None:
        if isinstance(z, str):
            out.add(z)
        elif isinstance(z, list):
            for x in z:
                walk(x)

    for name, z in (obs.get("zones") or {}).items():
        decl = rs.zones.get(name)
        if decl is not None and decl.keyed and isinstance(z, list):
            for entry in z:  # [[key, ids], ...]: keys are places or names, never components
                if isinstance(entry, list) and len(entry) == 2:
                    walk(entry[1])
        else:
            walk(z)
    return out


def action_cards(rs: Ruleset, obs: dict, action: Any) -> list:
    """The faces (:class:`interpreter.views.faces.Face`) of the components an action names (its
    arguments, nested tuples included) that the viewer of ``obs`` can see: a card the
    observation does not show has no face here, whatever the action.  ``action``: an
    :class:`~interpreter.model.Action`.  Returns a list in the order of the arguments."""
    from ..model import Component
    from .faces import face_of

    seen = visible_ids(rs, obs)
    out: list = []

    def walk(v: Any) -> None:
        if isinstance(v, Component):
            f = face_of(rs, v.id) if v.id in seen else None
            if f is not None and f not in out:
                out.append(f)
        elif isinstance(v, tuple):
            for x in v:
                walk(x)

    for a in getattr(action, "args", ()):
        walk(a)
    return out


def action_text_cards(rs: Ruleset, obs: dict, text: str) -> list:
    """As :func:`action_cards` for an action's canonical text (``put(card-k03)``, as the
    observation's ``decision`` lists them): the faces of the visible components it names."""
    import re

    from .faces import face_of

    seen = visible_ids(rs, obs)
    out: list = []
    for token in re.split(r"[(),\s]+", str(text)):
        f = face_of(rs, token) if token in seen else None
        if f is not None and f not in out:
            out.append(f)
    return out


def seat_order(n: int, me: int | None) -> list[int]:
    """The seats in the order a view lists them: the viewer's own first, then the others."""
    if me is None:
        return list(range(n))
    return [me] + [p for p in range(n) if p != me]


def places(outcome: dict, tiebreaks: bool = False) -> list[tuple[int, list[int], Any]]:
    """The final places of an outcome (``Outcome.to_json()``): ``[(place, [seats], score)]``,
    best first: the winners, then the other seats, each in the outcome's ``ranking`` (by score,
    then the ruleset's tie-breaks; by score, highest first, when the outcome has no ranking).
    Seats that nothing separates share a place (competition ranking: 1, 1, 3): both winners or
    neither, equal scores, and no tie-break in the ruleset (``tiebreaks``: it has one, so the
    ranking's order decided between them).  The one numbering of the terminal, the browser and
    ``tapster play``'s score table."""
    scores = outcome.get("scores") or []
    winners = set(outcome.get("winners") or [])
    ranking = outcome.get("ranking")

    def num(p):
        s = scores[p]
        return s if isinstance(s, (int, float)) and not isinstance(s, bool) else float("-inf")

    if not isinstance(ranking, list) or sorted(ranking) != list(range(len(scores))):
        ranking = sorted(range(len(scores)), key=lambda p: -num(p))
    order = sorted(range(len(ranking)), key=lambda i: (ranking[i] not in winners, i))
    out: list = []
    prev = None
    for i, k in enumerate(order):
        p = ranking[k]
        if (prev is not None and not tiebreaks and (p in winners) == (prev in winners)
                and type(scores[p]) is type(scores[prev]) and scores[p] == scores[prev]):
            out[-1][1].append(p)
        else:
            out.append((i + 1, [p], scores[p]))
        prev = p
    return out


def seat_sections(rs: Ruleset, obs: dict) -> list[dict]:
    """The sections of ``obs["player"]``'s view (None: an observer), in drawing order."""
    return _Sections(rs, obs).build()


def _pile(z: Any, show: str = "all") -> dict:
    if isinstance(z, dict) and "count" in z:
        pile = {"count": z["count"], "backs": z.get("backs") or []}
        if "contents" in z:  # known contents, unknown order: a count per look
            pile["contents"] = z["contents"]
        return pile
    if isinstance(z, list) and z and isinstance(z[0], (list, dict)):
        return {"subs": [_pile(s, show) for s in z]}
    if isinstance(z, list):
        return {"ids": list(z), "show": show}
    return {"ids": [], "show": show}


class _Sections:
    def __init__(self, rs: Ruleset, obs: dict):
        self.rs, self.obs = rs, obs
        self.n = obs["num_players"]
        self.me = obs.get("player")
        self.display = obs.get("display") or {}

    def build(self) -> list[dict]:
        d = self.display
        if getattr(self.rs, "display", None) is None or not d:
            return self.generic()
        out: list[dict] = []
        if d.get("header"):
            out.append({"kind": "text", "lines": list(d["header"])})
        if d.get("board") is not None:
            out.append({"kind": "board", "board": d["board"]})
        if d.get("map"):
            m = d["map"]
            zones = [m["zone"]] if m.get("zone") else []
            out.append(self.map_section(m["name"], zones, m.get("colour"), m.get("label"), m.get("edges")))
        for item in d.get("table") or []:
            out.append(self.item(item))
        if d.get("footer"):
            out.append({"kind": "text", "lines": list(d["footer"])})
        return out

    # -- declared items ---------------------------------------------------------------------
    def item(self, it: dict) -> dict:
        kind, name, title = it["kind"], it["name"], it["title"]
        if kind in ("hand", "pile"):
            sec = self.zone_section(name, title, it.get("show") or "all")
            if it.get("acts"):
                sec["acts"] = list(it["acts"])
            return sec
        value = self.obs["vars"].get(name)
        rows = self.var_rows(name, value)
        acts = {"acts": list(it["acts"])} if it.get("acts") else {}
        if kind == "track":
            nums = [v for _, v in rows if isinstance(v, (int, float)) and not isinstance(v, bool)]
            low = it.get("low")
            high = it.get("high")
            low = low if low is not None else min([0, *nums])
            high = high if high is not None else max([low + 1, *nums])
            return {"kind": "track", "title": title, "var": name, "rows": rows, "low": low, "high": high, **acts}
        if it.get("cells"):
            return {"kind": "counter", "title": title, "var": name, "rows": self.cell_rows(name, value, len(it["cells"])),
                    "cells": list(it["cells"]), **acts}
        return {"kind": "counter", "title": title, "var": name, "rows": rows, **acts}

    def cell_rows(self, name: str, value: Any, k: int) -> list:
        """A counter's rows with ``cells`` (k names): ``[(seat, [values])]``, the viewer's own
        first — each seat's list of a per-player variable (at most k values: a list that grows,
        such as the dice rolled, fills the first cells), or seat p's run ``value[p * k:(p + 1) *
        k]`` of a shared list; a value of another shape (or withheld) as :meth:`var_rows`."""
        decl = self.rs.vars.get(name)
        if name in self.obs["vars"] and isinstance(value, list):
            if decl is not None and decl.per_player and len(value) == self.n and all(isinstance(v, list) and len(v) <= k for v in value):
                return [(p, list(value[p])) for p in seat_order(self.n, self.me)]
            if (decl is None or not decl.per_player) and len(value) >= self.n * k:
                return [(p, list(value[p * k:(p + 1) * k])) for p in seat_order(self.n, self.me)]
        return self.var_rows(name, value)

    def var_rows(self, name: str, value: Any) -> list:
        decl = self.rs.vars.get(name)
        if name not in self.obs["vars"]:  # a hidden variable: nobody sees it
            return [(None, None)]
        if decl is not None and decl.per_player and isinstance(value, list) and len(value) == self.n:
            return [(p, value[p]) for p in seat_order(self.n, self.me)]
        return [(None, value)]

    def zone_section(self, name: str, title: str, show: str = "all") -> dict:
        decl = self.rs.zones[name]
        z = self.obs["zones"][name]
        if decl.keyed and isinstance(z, list):
            keys = [k for k, _ in z]
            if keys and all(_is_place(k) for k in keys):
                return {"kind": "grid", "title": title, "zone": name,
                        "cells": {(k["t"][0], k["t"][1]): _pile(ids, show) for k, ids in z}}
            return {"kind": "keyed", "title": title, "zone": name, "rows": [(k, _pile(ids, show)) for k, ids in z]}
        if decl.per_player and isinstance(z, list) and len(z) == self.n:
            return {"kind": "piles", "title": title, "zone": name,
                    "rows": [(p, _pile(z[p], show)) for p in seat_order(self.n, self.me)]}
        return {"kind": "piles", "title": title, "zone": name, "rows": [(None, _pile(z, show))]}

    def map_section(self, map_name: str, zones: list[str], colour: str | None, label: str | None,
                    edge_style: dict | None = None) -> dict:
        """A map: the pieces of the keyed ``zones`` by node, and its edges (:meth:`map_edges`)."""
        pieces: dict = {}
        for zname in zones:
            z = self.obs["zones"].get(zname)
            if not isinstance(z, list):
                continue
            for k, ids in z:
                if isinstance(ids, list) and ids:
                    pieces.setdefault(k, []).extend(ids)
        gm = (getattr(self.rs, "maps", {}) or {}).get(map_name)
        edges = self.map_edges(gm, edge_style or {}) if gm is not None else []
        return {"kind": "map", "title": f"Map {map_name}", "map": map_name, "zones": zones, "pieces": pieces,
                "colour": colour, "label": label, "edges": edges}

    def map_edges(self, gm: Any, style: dict) -> list[dict]:
        """Every edge of map ``gm`` in table order as ``{a, b, colour, dashes, label, owner, id}``
        (``id``: the edge's component, part of the map's public data, or None):
        ``colour``/``dashes``/``label`` the edge attributes ``style`` names (None when it names
        none), ``owner`` the seat whose per-player zone holds the
        edge's component as this seat's observation shows it (None: in a shared zone, or not
        seen), so nothing here reads past the observation."""
        owners: dict = {}
        if gm.edge_kind:
            for zname, z in self.obs["zones"].items():
                decl = self.rs.zones.get(zname)
                if decl is not None and decl.per_player and isinstance(z, list) and len(z) == self.n:
                    for p, ids in enumerate(z):
                        for i in _ids_in(ids):
                            owners[i] = p
        out = []
        for a, b in gm.edge_list:
            d = gm.graph.edges[a, b]
            c = d.get("component")
            out.append({"a": a, "b": b, "colour": d.get(style["colour"]) if style.get("colour") else None,
                        "dashes": d.get(style["dashes"]) if style.get("dashes") else None,
                        "label": d.get(style["label"]) if style.get("label") else None,
                        "owner": owners.get(c.id) if c is not None else None,
                        "id": c.id if c is not None else None})
        return out

    # -- the generic view -------------------------------------------------------------------
    def generic(self) -> list[dict]:
        out: list[dict] = []
        maps = getattr(self.rs, "maps", {}) or {}
        on_maps: dict = {}
        for name, z in self.obs["zones"].items():
            decl = self.rs.zones[name]
            title = name.replace("_", " ")
            if decl.keyed and isinstance(z, list):
                keys = [k for k, _ in z]
                gm = next((m for m in maps.values() if keys and all(_hashable(k) and k in m.graph for k in keys)), None)
                if gm is not None and not all(_is_place(k) for k, _ in z):
                    if gm.name not in on_maps:
                        on_maps[gm.name] = len(out)
                        out.append(self.map_section(gm.name, [name], None, None))
                    else:
                        sec = out[on_maps[gm.name]]
                        sec["zones"].append(name)
                        sec.update(self.map_section(gm.name, sec["zones"], None, None))
                    continue
            out.append(self.zone_section(name, title))
        for name, decl in self.rs.vars.items():
            if not getattr(decl, "shown", False) or name not in self.obs["vars"]:
                continue
            value = self.obs["vars"][name]
            rows = self.var_rows(name, value)
            nums = [v for _, v in rows if v is not None]
            title = name.replace("_", " ")
            if decl.per_player and nums and all(type(v) is int for v in nums):
                out.append({"kind": "track", "title": title, "var": name, "rows": rows,
                            "low": min([0, *nums]), "high": max([1, *nums])})
            else:
                out.append({"kind": "counter", "title": title, "var": name, "rows": rows})
        return out


def _ids_in(z: Any) -> list:
    """The component ids an observed zone lists (nested lists walked; counts of hidden ones skipped)."""
    if isinstance(z, str):
        return [z]
    if isinstance(z, list):
        return [i for x in z for i in _ids_in(x)]
    return []


def _is_place(k: Any) -> bool:
    return isinstance(k, dict) and "t" in k and len(k["t"]) == 2 and all(type(x) is int for x in k["t"])


def _hashable(k: Any) -> bool:
    return isinstance(k, (str, int, float))
