"""A seat's view of a game as terminal text, built only from what that seat may see.

:func:`seat_text` takes a ruleset and ``State.observation(p)`` and never the state itself, so
the text cannot show what the seat may not see: two positions with the same observation draw
the same text, character for character.  It is the terminal's counterpart of
:mod:`interpreter.webview` and follows the same shapes of the data:

- zones are listed by owner (the seat's own first, marked "you"), components by their labels,
  identical ones counted ("Beer Barrel ×48"); a zone the seat may not look into is
  "N face down"; nested zones are shown by their index;
- a keyed zone whose keys are ``(x, y)`` places is drawn as a grid of cells;
- a per-player variable of whole numbers is a track with each seat's value; other variables
  are listed by name, per seat where they are per-player, withheld values as ``?``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import Ruleset

__all__ = ["seat_text"]

#: The widest a grid cell's text is drawn (longer labels are cut with "…").
CELL_WIDTH = 14


def _seat(p: int) -> str:
    return f"P{p + 1}"


def seat_text(rs: Ruleset, obs: dict, names: list[str] | None = None) -> str:
    """The table as seat ``obs["player"]`` sees it, as plain text lines.

    ``rs``: the compiled ruleset (for component labels and zone/variable declarations).
    ``obs``: ``State.observation(p)`` (the only game data read).  ``names``: one name per seat
    (default ``P1``, ``P2``, ...).  Returns a string of lines joined by ``\\n``.
    """
    v = _View(rs, obs, names or [_seat(p) for p in range(obs["num_players"])])
    return "\n".join(v.lines())


class _View:
    def __init__(self, rs: Ruleset, obs: dict, names: list[str]):
        self.rs = rs
        self.obs = obs
        self.names = names
        self.n = obs["num_players"]
        self.me = obs["player"]

    def label(self, cid: Any) -> str:
        c = self.rs.by_id.get(cid) if isinstance(cid, str) else None
        return c.label if c is not None else str(cid)

    def value(self, v: Any) -> str:
        if v is None:
            return "?"
        if isinstance(v, bool):
            return "yes" if v else "no"
        if isinstance(v, dict):
            if "c" in v:
                return self.label(v["c"])
            if "t" in v:
                return "(" + ", ".join(self.value(x) for x in v["t"]) + ")"
            if "d" in v:
                return ", ".join(f"{self.value(k)} {self.value(x)}" for k, x in v["d"] if x is not None) or "-"
            if "count" in v:
                return f"{v['count']} hidden"
        if isinstance(v, list):
            return "[" + ", ".join(self.value(x) for x in v) + "]"
        return str(v)

    def pile(self, z: Any) -> str:
        if isinstance(z, dict) and "count" in z:
            return f"{z['count']} face down" if z["count"] else "empty"
        if not isinstance(z, list):
            return self.value(z)
        if z and isinstance(z[0], (list, dict)):
            return "  |  ".join(f"{i + 1}: {self.pile(sub)}" for i, sub in enumerate(z))
        if not z:
            return "empty"
        runs: list[list] = []
        for cid in z:
            text = self.card(cid)
            if runs and runs[-1][0] == text:
                runs[-1][1] += 1
            else:
                runs.append([text, 1])
        return ", ".join(t if k == 1 else f"{t} ×{k}" for t, k in runs)

    def card(self, cid: Any) -> str:
        props = (self.obs.get("props") or {}).get(cid)
        shown = self.value(props) if props else ""
        return self.label(cid) + (f" ({shown})" if shown and shown != "-" else "")

    def header(self) -> list[str]:
        o = self.obs
        title = self.rs.title + (f" ({self.rs.variant})" if self.rs.variant else "")
        if o["finished"]:
            state = "the game is over"
        else:
            deciding = o.get("deciding") or []
            state = "your turn" if self.me in deciding else "waiting for " + ", ".join(self.names[p] for p in deciding)
        return [f"== {title}: what {self.names[self.me]} sees ({state}) =="]

    def owners(self) -> list[int]:
        return [self.me] + [p for p in range(self.n) if p != self.me]

    def lines(self) -> list[str]:
        out = self.header()
        for name, z in self.obs["zones"].items():
            decl = self.rs.zones[name]
            title = name.replace("_", " ")
            if decl.keyed and isinstance(z, list):
                keys = [k for k, _ in z]
                if keys and all(_is_place(k) for k in keys):
                    out.append(f"{title}:")
                    out.extend("  " + row for row in self.grid(z))
                else:
                    out.append(f"{title}:")
                    out.extend(f"  {self.value(k)}: {self.pile(ids)}" for k, ids in z if ids != [])
                    if all(ids == [] for _, ids in z):
                        out[-1] += " empty"
                continue
            if decl.per_player and isinstance(z, list) and len(z) == self.n:
                out.append(f"{title}:")
                for p in self.owners():
                    out.append(f"  {self.names[p]}{' (you)' if p == self.me else ''}: {self.pile(z[p])}")
                continue
            out.append(f"{title}: {self.pile(z)}")
        for name, val in self.obs["vars"].items():
            decl = self.rs.vars[name]
            title = name.replace("_", " ")
            if decl.per_player and isinstance(val, list) and len(val) == self.n:
                out.append(f"{title}: " + "; ".join(
                    f"{self.names[p]}{' (you)' if p == self.me else ''} {self.value(val[p])}" for p in self.owners()))
            else:
                out.append(f"{title}: {self.value(val)}")
        oc = self.obs.get("outcome")
        if oc:
            winners = set(oc.get("winners") or [])
            out.append("final scores: " + "; ".join(
                f"{self.names[p]} {self.value(s)}{' (winner)' if p in winners else ''}" for p, s in enumerate(oc.get("scores", []))))
        return out

    def grid(self, z: list) -> list[str]:
        cells = {(k["t"][0], k["t"][1]): ids for k, ids in z}
        xs = [x for x, _ in cells]
        ys = [y for _, y in cells]
        x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
        if x1 - x0 + 1 > 12 or y1 - y0 + 1 > 40:
            return [f"({x}, {y}) {self.pile(ids)}" for (x, y), ids in sorted(cells.items()) if ids != []]
        width = 3
        texts = {}
        for key, ids in cells.items():
            t = "" if ids == [] else self.pile(ids)
            if len(t) > CELL_WIDTH:
                t = t[: CELL_WIDTH - 1] + "…"
            texts[key] = t
            width = max(width, len(t))
        rows = ["   " + " ".join(str(x).center(width) for x in range(x0, x1 + 1))]
        for y in range(y0, y1 + 1):
            rows.append(f"{y:>2} " + " ".join(
                (texts.get((x, y)) or ("." if (x, y) in cells else " ")).center(width) for x in range(x0, x1 + 1)))
        return rows


def _is_place(k: Any) -> bool:
    return isinstance(k, dict) and "t" in k and len(k["t"]) == 2 and all(type(x) is int for x in k["t"])
