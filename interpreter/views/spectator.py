"""What someone without a seat may see of a running game (issue 48): public information only.

A spectator's observation is built from the seats' own observations (``State.observation``
with the display's public parts, :func:`~interpreter.views.render.view_observation`), never from
the whole state: a zone or variable of one seat is taken as another seat sees it (a hidden
hand is a count there), a property only when every seat sees it alike, anything else only
when every seat sees the same value.  No decision is included.  The account is the public
lines of the log only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .render import view_observation

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.state import State

__all__ = ["public_log", "public_observation"]


def _count(value: Any) -> dict:
    """A zone's contents as a count only (a solo game's own zone, seen by nobody else)."""
    if isinstance(value, dict) and "count" in value:
        return {"count": value["count"]}
    n = 0
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, str):
            n += 1
    return {"count": n}


def _common(values: list, per_player: bool, n: int, zone: bool) -> tuple[bool, Any]:
    """The value every seat may show a spectator, or ``(False, None)`` for none."""
    if all(v == values[0] for v in values):
        if n > 1 or not per_player:
            return True, values[0]
    if per_player and all(isinstance(v, list) and len(v) == n for v in values):
        if n == 1:
            return True, [_count(values[0][0]) if zone else None]
        return True, [values[(i + 1) % n][i] for i in range(n)]  # seat i's part as the next seat sees it
    return False, None


def public_observation(state: State) -> dict:
    """The observation of a spectator: only what every seat may see (see the module).  Its
    ``player`` is None and it has no ``decision``; ``deciding``, the turn, the phase, the outcome
    and the display's public parts are as every seat sees them."""
    rs = state.ruleset
    n = state.num_players
    seats = [view_observation(state, p) for p in range(n)]
    out = {k: v for k, v in seats[0].items() if k not in ("zones", "vars", "props", "decision", "player")}
    out["player"] = None
    out["spectator"] = True
    for key, decls, zone in (("zones", rs.zones, True), ("vars", rs.vars, False)):
        part = {}
        for name in seats[0].get(key, {}):
            decl = decls.get(name)
            ok, value = _common([s[key].get(name) for s in seats], bool(getattr(decl, "per_player", False)), n, zone)
            if ok:
                part[name] = value
        out[key] = part
    props = {}
    for cid, value in (seats[0].get("props") or {}).items():
        if all((s.get("props") or {}).get(cid, object()) == value for s in seats):
            props[cid] = value
    if props:
        out["props"] = props
    if any(s.get("display") != seats[0].get("display") for s in seats):
        out["display"] = {}
    return out


def public_log(state: State) -> list[str]:
    """The lines of ``state``'s account every seat may read (none addressed to a seat)."""
    return [text for to, text in (state.log or ()) if to is None]
