"""The checks that hidden information stays hidden: ``observations hide``, ``secret
decisions`` and ``views hide`` (see :mod:`.check` for what each asserts).  Each takes a Ruleset
and a plan of seeds and returns its detail line (and notes), or raises
:class:`~interpreter.analysis.check_games.CheckFailure` naming what leaked, to whom, and the
usual fix.

Imports: :mod:`.check_games` (the games played), the engine (state, the flow runner for a
decision's own effects, the random generator for determinised worlds) and the views (each
seat's view and its drawn text).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from ..compile.ruleset import Ruleset
from ..engine import flow as flow_engine
from ..engine.rng import Rng
from ..engine.state import State
from ..views.render import view_observation
from ..views.termview import seat_text
from .check_games import MOVE_LIMIT, Game, games_played


def _visible_ids(obs_zone) -> set:
    if isinstance(obs_zone, dict):
        return set()
    out = set()
    for item in obs_zone:
        if isinstance(item, str):
            out.add(item)
        else:
            out |= _visible_ids(item)
    return out


def _owned_leaves(z, decl) -> Iterator[tuple[int | None, list]]:
    """(owner or None, the components) of each part of zone ``z`` declared by ``decl``."""
    def leaves(x, depth):
        if depth == 0:
            yield x
        else:
            for s in x:
                yield from leaves(s, depth - 1)

    if decl.keyed:  # a dict of stacks
        yield None, [c for stack in z.values() for c in stack]
    elif decl.per_player:
        for owner, sub in enumerate(z):
            yield owner, [c for leaf in leaves(sub, decl.depth - 1) for c in leaf]
    else:
        yield None, [c for leaf in leaves(z, decl.depth) for c in leaf]


def check_observations(rs: Ruleset, seeds) -> str:
    """At every move, each seat's observation is JSON data and shows no component of a hidden
    zone (an ``owner`` zone of another seat, a ``hidden`` zone) nor, by its id, one of a zone
    whose order it may not know (``owner_contents``, ``public_contents``: a count per kind
    only).  Raises :class:`CheckFailure`."""
    looks = 0
    for seed in seeds:
        g = Game(rs, rs.default_players, seed, seeds)
        rng = Rng(seed)
        while not g.st.is_terminal() and len(g.actions) < MOVE_LIMIT:
            st = g.st
            for p in range(st.num_players):
                try:
                    obs = st.observation(p)
                except Exception as exc:  # noqa: BLE001 - a decision's label that fails to render, say
                    raise g.fail(f"the observation of seat P{p + 1} raised {type(exc).__name__}: {exc}") from None
                try:
                    json.dumps(obs)
                except (TypeError, ValueError) as exc:
                    raise g.fail(f"the observation of seat {p} is not JSON data: {exc}") from None
                for decl in rs.zone_list:
                    if decl.visibility == "public":
                        continue
                    for owner, comps in _owned_leaves(st.zones[decl.name], decl):
                        if decl.visibility == "owner" and owner == p:
                            continue
                        seen = obs["zones"][decl.name] if owner is None else obs["zones"][decl.name][owner]
                        leaked = {c.id for c in comps} & _visible_ids(seen)
                        if leaked:
                            whose = f" of seat P{owner + 1}" if owner is not None else ""
                            raise g.fail(f"zone {decl.name}{whose} shows {sorted(leaked)} to seat P{p + 1}")
                looks += 1
            g.apply(rng.choice(g.legal()))
    return f"{looks} observations hid what they must"


def _others_view(st: State, seat: int) -> list:
    return [(q, json.dumps(st.observation(q), sort_keys=True), st.visible_log(q)) for q in range(st.num_players) if q != seat]


def _just_after(st: State, action) -> State:
    """A copy of ``st`` just after ``action``'s own effects (the option's ``do`` and what it
    calls, up to the next decision) and before the flow goes on: a reveal that follows later
    in the flow legitimately tells everyone which card it was."""
    probe = st.clone()
    choose, loc, _, _ = probe.pending
    probe.pending = None
    probe.stack = []
    choose.resume(probe, loc, action)
    flow_engine.run(probe, finish=False)
    return probe


def _secret_part(obs_a: str, log_a: list, obs_b: str, log_b: list) -> str:
    """What differs between two views of a seat (observation JSON text and log lines)."""
    diff = _difference(json.loads(obs_a), json.loads(obs_b))
    if diff is not None:
        path, x, y = diff
        return f"its observation's {path} is {_shown(x)} after one, {_shown(y)} after the other"
    k = next((i for i, (x, y) in enumerate(zip(log_a, log_b)) if x != y), min(len(log_a), len(log_b)))
    x = repr(log_a[k]) if k < len(log_a) else "no line"
    y = repr(log_b[k]) if k < len(log_b) else "no line"
    return f"its log line {k + 1} is {x} after one, {y} after the other"


def check_secret_decisions(rs: Ruleset, seeds) -> str:
    """At a ``secret: true`` decision, the actions of one option (which card goes face down)
    leave every other seat's observation and log identical.  Raises :class:`CheckFailure`."""
    if not any(c.secret for c in rs.chooses):
        return "no secret decision (nothing to check)"
    checked = 0
    for seed in seeds:
        g = Game(rs, rs.default_players, seed, seeds)
        rng = Rng(seed + 100)
        while not g.st.is_terminal() and len(g.actions) < MOVE_LIMIT:
            st = g.st
            choose = st.pending[0]
            if choose.secret:
                seat = st.current_players()[0]
                groups: dict = {}
                for a in st.legal_actions():
                    groups.setdefault(a.name, []).append(a)
                for actions in groups.values():
                    views = [_others_view(_just_after(st, a), seat) for a in actions]
                    for a, v in zip(actions[1:], views[1:]):
                        if v != views[0]:
                            what, part = next((q, _secret_part(o0, lg0, o, lg)) for (q, o, lg), (_, o0, lg0) in zip(v, views[0])
                                              if o != o0 or lg != lg0)
                            raise g.fail(f"secret decision {choose.name}: seat P{what + 1} can tell {actions[0]} from {a}: "
                                         f"{part}; the usual fix: record the choice in a `visibility: owner` variable, "
                                         "move and log nothing until everyone has chosen, then reveal")
                    checked += len(actions) > 1
            g.apply(rng.choice(g.legal()))
    if not checked:
        return "no secret decision with two actions of one option was reached"
    return f"{checked} secret decisions revealed nothing to the others"


#: Positions per game at which ``views hide`` compares each seat's view with a world.
VIEW_WORLDS = 60

#: Worlds per seat at the end of each game (the outcome reads everything, so an outcome that
#: depends on a card never revealed differs in some worlds only).
END_WORLDS = 8


def _difference(a, b, path: str = "") -> tuple[str, object, object] | None:
    """The first place where JSON data ``a`` and ``b`` differ: (path such as
    ``outcome.winners`` or ``zones.hand[1]``, a's value there, b's), or None when equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if a.get(k) != b.get(k):
                return _difference(a.get(k), b.get(k), f"{path}.{k}" if path else str(k))
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _difference(x, y, f"{path}[{i}]")
        return None
    return None if a == b else (path, a, b)


def _shown(value) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


def _view_fix(path: str, seat: str) -> str:
    """What the part at ``path`` of a seat's view that differs usually means, and the usual fix."""
    head = path.split(".")[0].split("[")[0]
    if head == "outcome":
        return (f"The outcome depends on something {seat} has not seen; the usual fix: reveal it through a public zone "
                "before the game ends (at a showdown, move each hand to a `visibility: public` zone and read the cards "
                "there)")
    if head == "vars":
        return (f"The variable follows something {seat} cannot see; the usual fix: reveal what it reads through a "
                "public zone first, or declare the variable `visibility: owner`")
    if head == "display":
        return (f"The display reads something {seat} cannot see; the usual fix: reveal it through a public zone first, "
                "or draw the part only while it is public (`if:`)")
    if head == "zones":
        return f"The zone shows {seat} what its `visibility` hides; the usual fix: check the zone's `visibility`"
    return (f"It follows something {seat} cannot see; the usual fix: reveal that through a public zone first (move "
            "the cards to a `visibility: public` zone), or hide the part")


def check_views(rs: Ruleset, seeds) -> tuple[str, list[str]]:
    """At every move of random games the display renders for each seat and for an observer,
    at up to :data:`VIEW_WORLDS` moves a game (and in :data:`END_WORLDS` worlds at its end)
    each seat's view (``view_observation`` and its text) is the same in a determinised world
    as in the game.  Returns the detail and a note per private display part.  Raises
    :class:`CheckFailure` naming the part that differs (``outcome.winners``,
    ``zones.hand[1]``, ``display.footer[0]``...) with its value in the game and in the world,
    and the usual fix."""
    notes = []
    if rs.display is not None:
        notes = [f"shown only to observers: {where} at {mark} ({text!r}) {why}"
                 for where, text, why, mark in rs.display.private_parts()]
    compared = looks = 0
    for seed in seeds:
        g = Game(rs, rs.default_players, seed, seeds)
        rng = Rng(seed + 200)
        worlds = 0
        while len(g.actions) < MOVE_LIMIT:
            st = g.st
            try:
                seat_text(rs, view_observation(st, None))
                views = [view_observation(st, p) for p in range(st.num_players)]
                texts = [seat_text(rs, v) for v in views]
            except Exception as exc:  # noqa: BLE001 - a display template's error is the failure
                raise g.fail(f"drawing the display raised {type(exc).__name__}: {exc}") from None
            looks += 1
            end = st.is_terminal()
            if worlds < VIEW_WORLDS or end:
                worlds += 1
                for p in range(st.num_players):
                    for k in range(END_WORLDS if end else 1):
                        world = st.determinize(p, Rng(seed * 1000 + len(g.actions) * 10 + p + 10_000_000 * k))
                        other = view_observation(world, p)
                        if other != views[p] or seat_text(rs, other) != texts[p]:
                            raise g.fail(_view_leak(p, views[p], other, texts[p], seat_text(rs, other)))
                        compared += 1
            if end:
                break
            g.apply(rng.choice(g.legal()))
    return f"{looks} positions drawn; {compared} views the same in worlds the seat cannot tell apart ({games_played(seeds)})", notes


def _view_leak(p: int, view: dict, other: dict, text: str, other_text: str) -> str:
    """The failure message of seat ``p``'s view differing in a world: the part, both values, the fix."""
    seat = f"P{p + 1}"
    diff = _difference(view, other)
    if diff is not None:
        path, mine, theirs = diff
        part = f"{path} is {_shown(mine)} in the game, {_shown(theirs)} in the world"
    else:
        path = "text"
        line = next((i for i, (x, y) in enumerate(zip(text.splitlines(), other_text.splitlines())) if x != y), None)
        if line is None:
            part = "its drawn text differs"
        else:
            part = f"line {line + 1} of its text is {text.splitlines()[line]!r} in the game, {other_text.splitlines()[line]!r} in the world"
    return (f"seat {seat}'s view differs in a world {seat} cannot tell from the game: {part}, so it shows something "
            f"{seat} may not see. {_view_fix(path, seat)}")
