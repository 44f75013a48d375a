"""Generic invariants of any ruleset (``tapster check``; OpenSpiel's random_sim_test, in spirit).

Every check plays random games over several seeds and reports a :class:`CheckResult`; a failed
check carries the seed and the action sequence that reproduce the failure.  The checks are:

- ``games end``: random games end, every pending decision lists an action, the outcome has a
  score and a place per seat, every log line (logs are on) renders, and the game stays inside
  the ruleset's declared facts (each score within ``outcome: {range}``, their sum
  ``outcome: {sum}``, no more decisions than ``limits: {actions}``); the decisions the games
  never reached (or reached fewer than :data:`PER_DECISION` times) are named in notes;
- ``score at every step``: the ruleset's score (``outcome.score``) is defined for every seat at
  every step of the games, not only at the end: greedy agents, searches cut at their depth and
  ``tapster analyse``'s score trace read it mid-game;
- ``legal actions apply``: every listed legal action applies to a copy, an unlisted one is
  refused with :class:`IllegalActionError` and the state unchanged;
- ``clone and JSON round trip``: a clone and a ``to_json``/``from_json`` copy continue exactly
  as the original under the same actions, and playing them leaves the original unchanged;
- ``same seed, same game``: two games with the same seed and agent seed are equal byte for byte;
- ``observations hide``: an observation never shows a component of a zone the seat may not see;
- ``secret decisions``: at a ``secret: true`` decision the actions of one option leave every
  other seat's observation and log identical (their information set is one);
- ``views hide``: each seat's view (the observation with the display's public text, drawn as
  the terminal draws it) is the same in a world the seat cannot tell apart from the game
  (``State.determinize``), and the display renders for every seat and an observer; the parts
  of the display that only an observer sees (they read hidden information) are named in notes;
  a failure names the part of the view that differs (a zone, a variable, the outcome, a display
  line) with both values, and the usual fix;
- ``templates render``: every template of the flow (a decision's prompt, an option's label, a
  ``log`` line, an ``end_game`` reason) renders without error wherever random games reach it,
  the prompt and every label at every decision; the templates never reached are named in a
  note (a PASS: random games need not reach every line).  A prompt, label or log line that
  shows a raw identifier from a component's table (a snake_case cell such as ``from_discard``)
  fails it, naming the template: players read words (a card's ability belongs on its face,
  ``display.faces``, or in the template's own words).

How many games: given seeds (``tapster check --games N`` plays seeds 1..N), or by default a
:class:`Games` plan per check: at least :data:`MIN_GAMES` games, then on while its share of the
time budget lasts (up to :data:`ENOUGH_GAMES` games: small games are played many times, which is
what catches a leak that shows only in some deals), and on past it until every decision the games
reach has been reached :data:`PER_DECISION` times, within a hard limit of
:data:`HARD_LIMIT` times the share.  The seed of a failure reproduces it whatever the budget.

The test suite (``tests/analysis/test_invariants.py``) runs these same functions on every shipped ruleset.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ..compile.facts import enumerate_tree, outcome_problem
from ..compile.ruleset import Ruleset
from ..engine import flow as flow_engine
from ..engine.rng import Rng
from ..engine.state import State
from ..errors import IllegalActionError
from ..interop.encoding import static_actions
from ..views.render import view_observation
from ..views.termview import seat_text

__all__ = ["CheckResult", "CheckFailure", "CHECKS", "SEEDS", "Games", "BUDGET", "run_checks", "run_check"]

#: Seeds for a quick run (``tapster check --games 3``; the default is a :class:`Games` plan).
SEEDS = (1, 2, 3)

#: The default time budget of ``tapster check``, in processor seconds per ruleset (and variant),
#: shared equally by the checks: a small game is then played :data:`ENOUGH_GAMES` times per check
#: (a three-card poker's 200 games take well under the budget), a long one a few times (a
#: three-day race on a map: 3 to 20 games), about 2 to 6 seconds a ruleset in all.
BUDGET = 4.0

#: Games each check plays at least, by default.
MIN_GAMES = 3

#: Games after which a check stops by default even while its time lasts (once every decision
#: reached has been reached :data:`PER_DECISION` times).
ENOUGH_GAMES = 200

#: Times each decision (``choose``) the games reach must be reached before a check stops.
PER_DECISION = 5

#: A check stops at this many times its share of the budget, whatever it has reached.
HARD_LIMIT = 3

#: ``templates render`` plays up to this many times as many games again (on the next seeds)
#: while a template written in the ruleset has not rendered.
EXTRA_GAMES = 4

#: ``games end`` compares the declared facts with the whole tree when it has at most this many
#: states (a three-card poker's 58; a larger tree is left to the played games, to keep the check quick).
TREE_STATES = 2_000

#: Moves after which a game counts as not ending.
MOVE_LIMIT = 20_000


class Games:
    """The seeds one check plays: ``fixed`` seeds, or (``fixed`` None) an adaptive plan: seeds
    1, 2, ... while fewer than :data:`MIN_GAMES` were played, or the check's ``seconds`` (of
    processor time, so that a busy machine changes the number of games little) last
    (and fewer than :data:`ENOUGH_GAMES` were played), or a decision reached so far was reached
    fewer than :data:`PER_DECISION` times; never past :data:`HARD_LIMIT` times ``seconds``
    (after :data:`MIN_GAMES`).  Iterate it once per check; a check's games count the decisions
    they reach in ``reached`` (``choose`` name -> times pending), ``played`` counts the seeds
    handed out and finished, ``stopped`` says why the plan stopped (for the detail line)."""

    def __init__(self, fixed=None, seconds: float = BUDGET / 8):
        self.fixed = None if fixed is None else tuple(fixed)
        self.seconds = seconds
        self.reached: Counter = Counter()
        self.played = 0
        self.stopped = ""
        self.start = time.process_time()

    def __len__(self) -> int:
        return self.played

    def elapsed(self) -> float:
        """Processor seconds (this process's, so that other work on the machine changes the
        number of games little) since the plan started."""
        return time.process_time() - self.start

    def short(self) -> list[str]:
        """The decisions reached fewer than :data:`PER_DECISION` times."""
        return sorted(k for k, v in self.reached.items() if v < PER_DECISION)

    def _enough(self) -> bool:
        if self.played < MIN_GAMES:
            return False
        elapsed = self.elapsed()
        if elapsed >= HARD_LIMIT * self.seconds:
            self.stopped = "the time limit"
            return True
        if self.short():
            return False
        if elapsed >= self.seconds:
            self.stopped = "the time budget"
            return True
        if self.played >= ENOUGH_GAMES:
            self.stopped = f"{ENOUGH_GAMES} games"
            return True
        return False

    def __iter__(self) -> Iterator[int]:
        self.start = time.process_time()
        self.played = 0
        self.reached.clear()
        if self.fixed is not None:
            for seed in self.fixed:
                yield seed
                self.played += 1
            return
        seed = 0
        while not self._enough():
            seed += 1
            yield seed
            self.played += 1

    def next_seed(self) -> int:
        """The first seed after those handed out (for games played on beyond the plan)."""
        if self.fixed is not None:
            return max(self.fixed, default=0) + 1
        return self.played + 1


class CheckFailure(Exception):
    """An invariant does not hold: ``message`` says which, ``seed`` and ``players`` make the game,
    ``actions`` (action strings, in order) replay it from the start to the failing point."""

    def __init__(self, message: str, seed: int | None = None, players: int | None = None, actions: list[str] | None = None):
        super().__init__(message)
        self.message = message
        self.seed = seed
        self.players = players
        self.actions = list(actions or [])


@dataclass
class CheckResult:
    """One check on one ruleset (and variant): ``ok``; ``detail`` (a line saying what was
    checked, or what failed); on failure ``seed``, ``players`` and ``actions`` reproducing it;
    ``notes``: lines worth reading on a pass (the templates no game reached)."""

    name: str
    ok: bool
    detail: str
    seed: int | None = None
    players: int | None = None
    actions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """The result as JSON data (``name``, ``ok``, ``detail``, ``seed``, ``players``, ``actions``, ``notes``)."""
        return {"name": self.name, "ok": self.ok, "detail": self.detail, "seed": self.seed,
                "players": self.players, "actions": self.actions, "notes": self.notes}


class _Game:
    """A game being played with a record of its actions (for the reproduction of a failure)."""

    def __init__(self, rs: Ruleset, players: int, seed: int, seeds: Games | None = None):
        self.seed, self.players = seed, players
        self.actions: list[str] = []
        self.reached = seeds.reached if isinstance(seeds, Games) else None
        try:
            self.st = rs.new_game(players, seed=seed, log=True)
        except Exception as exc:  # noqa: BLE001 - an error in `setup` (a log line too) is the failure
            raise self.fail(f"setting up the game raised {type(exc).__name__}: {exc}") from None

    def fail(self, message: str) -> CheckFailure:
        return CheckFailure(message, self.seed, self.players, self.actions)

    def apply(self, action) -> None:
        self.actions.append(str(action))
        if self.reached is not None and self.st.pending is not None:
            self.reached[getattr(self.st.pending[0], "name", None)] += 1
        try:
            self.st.apply(action)
        except Exception as exc:  # noqa: BLE001 - any error (a broken log template too) is the failure
            raise self.fail(f"{type(exc).__name__}: {exc}") from None

    def legal(self) -> list:
        try:
            legal = self.st.legal_actions()
        except Exception as exc:  # noqa: BLE001
            raise self.fail(f"listing the legal actions raised {type(exc).__name__}: {exc}") from None
        if not legal:
            raise self.fail("a pending decision lists no legal action")
        return legal


def _player_counts(rs: Ruleset) -> list[int]:
    return sorted({rs.min_players, rs.default_players, rs.max_players})


def _random_game(rs: Ruleset, players: int, seed: int, agent_seed: int, seeds: Games | None = None) -> _Game:
    g = _Game(rs, players, seed, seeds)
    rng = Rng(agent_seed)
    longest = getattr(rs.facts.get(players), "actions", None)
    while not g.st.is_terminal():
        if len(g.actions) >= MOVE_LIMIT:
            raise g.fail(f"the game did not end in {MOVE_LIMIT} moves")
        if longest is not None and len(g.actions) >= longest:
            raise g.fail(f"the game goes on after {longest} decisions, the declared longest game "
                         f"(`limits: {{actions: {longest}}}` with {players} players)")
        g.apply(rng.choice(g.legal()))
    for p in range(players):
        for line in g.st.visible_log(p):
            if not isinstance(line, str):
                raise g.fail(f"a log line of seat {p} is not text: {line!r}")
    return g


def _decl_mark(rs: Ruleset, name) -> str:
    choose = next((c for c in rs.chooses if c.name == name), None)
    mark = getattr(choose, "mark", None)
    return f" ({mark.file}:{mark.line}:{mark.column})" if mark is not None else ""


def _coverage_notes(rs: Ruleset, seeds: Games) -> list[str]:
    """A note per decision (``choose``) the games never reached or reached fewer than
    :data:`PER_DECISION` times."""
    games = f"{len(seeds)} game{'s' if len(seeds) != 1 else ''}"
    notes = [f"decision {c.name}{_decl_mark(rs, c.name)} never reached in {games}"
             for c in rs.chooses if not seeds.reached.get(c.name)]
    notes += [f"decision {name}{_decl_mark(rs, name)} reached only {seeds.reached[name]} times in {games}"
              for name in seeds.short()]
    return notes


def _stopped(seeds: Games) -> str:
    return f" (stopped by {seeds.stopped})" if seeds.stopped else ""


def _games_played(seeds: Games) -> str:
    why = f", stopped by {seeds.stopped}" if seeds.stopped else ""
    return f"{len(seeds)} seed{'s' if len(seeds) != 1 else ''}{why}"


def check_games_end(rs: Ruleset, seeds: Games) -> tuple[str, list[str]]:
    """Random games end with an outcome: a score and a place for every seat, winners among the
    seats, a reason, inside the declared facts (:func:`interpreter.compile.facts.outcome_problem`).
    Returns the detail and the notes: each decision the games never reached (or reached fewer
    than :data:`PER_DECISION` times), each action whose ids are not derived from its ``in:``.
    Raises :class:`CheckFailure`."""
    games = 0
    flow_engine.SHORT_DRAWS.clear()
    for seed in seeds:
        for players in _player_counts(rs):
            g = _random_game(rs, players, seed, seed * 7, seeds)
            out = g.st.outcome()
            if len(out.scores) != players:
                raise g.fail(f"the outcome has {len(out.scores)} scores for {players} seats")
            if sorted(out.ranking) != list(range(players)):
                raise g.fail(f"the ranking {out.ranking} is not a place for each of {players} seats")
            if not set(out.winners) <= set(range(players)):
                raise g.fail(f"winners {out.winners} are not seats")
            if not out.reason:
                raise g.fail("the outcome gives no reason")
            problem = outcome_problem(rs, players, out.scores, len(g.actions))
            if problem is not None:
                raise g.fail(problem)
            games += 1
    reached = ", ".join(f"{k} {v}" for k, v in sorted(seeds.reached.items(), key=lambda kv: str(kv[0])))
    exact = []
    for players in _player_counts(rs):
        tree = enumerate_tree(rs, players, budget=TREE_STATES)
        if tree is None:
            continue
        problem = _facts_against_tree(rs, players, tree)
        if problem is not None:
            raise CheckFailure(problem, players=players)
        exact.append(str(players))
    tail = f"; the declared facts are the enumerated tree's with {', '.join(exact)} players" if exact else ""
    return (f"{games} random games ended with an outcome ({_games_played(seeds)}; decisions reached: {reached or 'none'}){tail}",
            _coverage_notes(rs, seeds) + _encoding_warnings(rs) + _short_draw_notes(games))


def _short_draw_notes(games: int) -> list[str]:
    """A note per ``move`` declared ``on_empty: short`` that drew from an empty zone in these
    games (the declared choice reached: worth a look), with how often."""
    notes = [f"move at {mark} drew short (on_empty: short) {n} time(s) in {games} games"
             for mark, n in sorted(flow_engine.SHORT_DRAWS.items(), key=lambda kv: str(kv[0]))]
    flow_engine.SHORT_DRAWS.clear()
    return notes


def check_score(rs: Ruleset, seeds: Games) -> str:
    """At every step of random games (before each decision, and at the end) the ruleset's score
    (``outcome.score``) is defined for every seat: greedy agents, searches cut at their depth and
    the score trace of ``tapster analyse`` read it mid-game.  Raises :class:`CheckFailure` with
    the step (the actions before it), the seat and the error."""
    steps = 0
    mark = getattr(rs.score_expr, "mark", None)
    where = f" at {mark.file}:{mark.line}:{mark.column}" if mark is not None else ""
    for seed in seeds:
        g = _Game(rs, rs.default_players, seed, seeds)
        rng = Rng(seed * 3 + 1)
        while len(g.actions) < MOVE_LIMIT:
            st = g.st
            for p in range(st.num_players):
                try:
                    st.score(p)
                except Exception as exc:  # noqa: BLE001 - the error is the failure reported
                    k = len(g.actions)
                    when = "at the end of the game" if st.is_terminal() else \
                        f"before the game ends (step {k + 1}, after {k} action{'s' if k != 1 else ''})"
                    raise g.fail(f"the score (outcome.score{where}) of seat P{p + 1} is undefined {when}: "
                                 f"{type(exc).__name__}: {exc}. Greedy agents, searches cut at their depth and "
                                 "`tapster analyse`'s score trace read the score mid-game: make it defined at every "
                                 "step (e.g. `... if len(board) else 0` where it reads a card not yet dealt)") from None
            steps += 1
            if st.is_terminal():
                break
            g.apply(rng.choice(g.legal()))
    return f"{steps} steps scored for every seat ({_games_played(seeds)})"


def _encoding_warnings(rs: Ruleset) -> list[str]:
    """A warning per option whose action ids cannot be derived from its ``in:`` (the encoding
    widens the values playouts show, which creates ids no listing may produce)."""
    out = []
    for _choose, o, derived in static_actions(rs, rs.default_players):
        if derived is None:
            out.append(f"warning: action `{o.name}` ({o.mark}): its ids are not derived from its `in:`, which reads values "
                       "not known without playing (a variable, a `let`, an attribute); the OpenSpiel and PettingZoo encoding "
                       "widens the values seen in playouts, creating ids no listing may produce")
    return out


def _facts_against_tree(rs: Ruleset, players: int, tree) -> str | None:
    """What the declared facts of ``rs`` get wrong against the whole tree (enumerated): a bound
    or a longest game that is not the true one, a sum that varies."""
    declared = rs.facts.get(players)
    if declared is None:
        return None
    if declared.range is not None and tuple(declared.range) != (tree.lowest, tree.highest):
        return (f"`outcome: {{range: [{declared.range[0]}, {declared.range[1]}]}}` with {players} players is not the true extremes: "
                f"the whole tree's scores run from {tree.lowest} to {tree.highest}")
    if declared.sum is not None and tree.sums != {round(declared.sum, 9)}:
        return f"`outcome: {{sum: {declared.sum}}}` with {players} players: the whole tree's outcomes add up to {sorted(tree.sums)}"
    if declared.actions is not None and declared.actions != tree.longest:
        return (f"`limits: {{actions: {declared.actions}}}` with {players} players is not the longest game: "
                f"the whole tree's longest takes {tree.longest} decisions")
    return None


def check_same_seed(rs: Ruleset, seeds) -> str:
    """The same seed and agent seed give the same game, byte for byte.  Raises :class:`CheckFailure`."""
    for seed in seeds:
        a = _random_game(rs, rs.default_players, seed, seed + 4, seeds)
        b = _random_game(rs, rs.default_players, seed, seed + 4)
        if a.actions != b.actions:
            k = next((i for i, (x, y) in enumerate(zip(a.actions, b.actions)) if x != y), min(len(a.actions), len(b.actions)))
            raise CheckFailure(f"the same seed played differently from move {k + 1}", seed, rs.default_players, a.actions[:k + 1])
        if json.dumps(a.st.to_json(), sort_keys=True) != json.dumps(b.st.to_json(), sort_keys=True):
            raise a.fail("the same seed and actions ended in different states")
    return f"{len(seeds)} seeds replayed identically{_stopped(seeds)}"


def check_round_trip(rs: Ruleset, seeds) -> str:
    """Every 5th move, a clone and a JSON round trip continue identically to the original for
    8 moves, and playing them leaves the original unchanged.  Raises :class:`CheckFailure`."""
    branches = 0
    for seed in seeds:
        g = _Game(rs, rs.default_players, seed, seeds)
        rng = Rng(seed + 1)
        step = 0
        while not g.st.is_terminal() and step < MOVE_LIMIT:
            if step % 5 == 0:
                st = g.st
                before = st.to_json()
                live, copy = st.clone(), st.clone()
                saved = State.from_json(rs, json.loads(json.dumps(before)))
                if saved.to_json() != before:
                    raise g.fail("State.from_json(state.to_json()) differs from the state")
                branch_rng = Rng(step)
                line: list[str] = []
                for _ in range(8):
                    if live.is_terminal():
                        break
                    a = branch_rng.choice(live.legal_actions())
                    line.append(str(a))
                    live.apply(a)
                    copy.apply(a)
                    saved.apply(str(a))
                    if not copy.to_json() == live.to_json() == saved.to_json():
                        raise CheckFailure("a clone or JSON copy continued differently under the same actions",
                                           seed, g.players, g.actions + line)
                if st.to_json() != before:
                    raise CheckFailure("playing a clone changed the original", seed, g.players, g.actions + line)
                branches += 1
            g.apply(rng.choice(g.legal()))
            step += 1
    return f"{branches} branches continued identically"


def check_legal_actions(rs: Ruleset, seeds, per_game: int = 40) -> str:
    """Every listed legal action (up to 12 per decision) applies to a copy; an unlisted action
    is refused with :class:`IllegalActionError` listing the legal ones, and the state is
    unchanged.  Raises :class:`CheckFailure`."""
    tried = 0
    for seed in seeds:
        g = _Game(rs, rs.default_players, seed, seeds)
        rng = Rng(seed)
        moves = 0
        while not g.st.is_terminal() and moves < per_game:
            legal = g.legal()
            for a in legal[:12]:
                probe = g.st.clone()
                try:
                    probe.apply(a)
                except Exception as exc:  # noqa: BLE001 - any error is the failure reported
                    raise CheckFailure(f"the listed action {a} does not apply: {type(exc).__name__}: {exc}",
                                       seed, g.players, g.actions + [str(a)]) from None
                tried += 1
            before = g.st.to_json()
            try:
                g.st.apply("no_such_action(42)")
            except IllegalActionError as exc:
                if set(exc.legal) != set(legal):
                    raise g.fail("the refusal of an unlisted action lists other legal actions") from None
            except Exception as exc:  # noqa: BLE001 - a label that fails to render while refusing, say
                raise g.fail(f"refusing an unlisted action raised {type(exc).__name__}: {exc}") from None
            else:
                raise g.fail("the unlisted action no_such_action(42) was accepted")
            if g.st.to_json() != before:
                raise g.fail("a refused action changed the state")
            g.apply(rng.choice(legal))
            moves += 1
    return f"{tried} listed actions applied, unlisted ones refused"


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
    zone (an ``owner`` zone of another seat, a ``hidden`` zone).  Raises :class:`CheckFailure`."""
    looks = 0
    for seed in seeds:
        g = _Game(rs, rs.default_players, seed, seeds)
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
        g = _Game(rs, rs.default_players, seed, seeds)
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
        g = _Game(rs, rs.default_players, seed, seeds)
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
    return f"{looks} positions drawn; {compared} views the same in worlds the seat cannot tell apart ({_games_played(seeds)})", notes


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


_TEMPLATE_KINDS = {"prompt": "prompt", "label": "label", "text": "log line", "reason": "end_game reason"}


def _template_sites(rs: Ruleset) -> list[tuple[object, str]]:
    """(holder, attribute) of every template the flow renders: each decision's ``prompt``, each
    option's ``label``, each ``log`` effect's ``text``, each ``end_game`` effect's ``reason``."""
    sites: list[tuple[object, str]] = []
    for choose in rs.chooses:
        sites.append((choose, "prompt"))
        sites += [(o, "label") for o in choose.options]
    for block in rs.blocks:
        for eff in block.effects:
            eff = getattr(eff, "inner", eff)  # an explicit-chance wrapper holds the effect
            verb = getattr(eff, "verb", None)
            if verb == "log":
                sites.append((eff, "text"))
            elif verb == "end_game":
                sites.append((eff, "reason"))
    return sites


#: A snake_case word: two or more lower-case words joined by ``_`` (``from_discard``).
_SNAKE = re.compile(r"(?<![A-Za-z0-9_])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![A-Za-z0-9_])")


def raw_cells(rs: Ruleset) -> dict[str, tuple[str, str]]:
    """The snake_case words of the components' tables (text cells such as ``from_discard``):
    ``{word: (an id of a component holding it, the field)}``.  A player never reads one of these
    raw: a template that shows one fails ``templates render``."""
    out: dict[str, tuple[str, str]] = {}
    for c in rs.components:
        for name, value in c.fields.items():
            if name in ("id", "kind") or not isinstance(value, str):
                continue
            if _SNAKE.fullmatch(value) and value not in out:
                out[value] = (c.id, name)
    return out


class _TemplateRecorder:
    """While entered, every flow template of ``rs`` is replaced by a wrapper that records that it
    rendered (``rendered``: site indexes) or the first one that failed (``failed``: index and
    exception); leaving restores the ruleset's own functions."""

    def __init__(self, rs: Ruleset):
        info = {id(t[0]): t[1:] for t in getattr(rs, "templates", ())}
        self.sites = []
        for holder, attr in _template_sites(rs):
            fn = getattr(holder, attr)
            mark, text, written = info.get(id(fn), (getattr(holder, "mark", None), "?", True))
            self.sites.append((holder, attr, fn, mark, text, written))
        self.rendered: set[int] = set()
        self.failed: tuple[int, Exception] | None = None
        self.cells = raw_cells(rs)
        #: site index -> (the raw word, the text it rendered, (component id, field), (seed, players, actions)):
        #: the first time each showed one
        self.raw: dict[int, tuple] = {}
        self.where: tuple = (None, None, [])  # the game being played: seed, players, its actions so far

    def _wrap(self, i: int, fn):
        rendered = self.rendered
        cells = self.cells
        raw = self.raw

        def template(env):
            try:
                out = fn(env)
            except Exception as exc:
                if self.failed is None:
                    self.failed = (i, exc)
                raise
            rendered.add(i)
            if cells and i not in raw and "_" in out:
                for word in _SNAKE.findall(out):
                    if word in cells:
                        seed, players, actions = self.where
                        raw[i] = (word, out, cells[word], (seed, players, list(actions)))
                        break
            return out

        return template

    def __enter__(self) -> _TemplateRecorder:
        for i, (holder, attr, fn, *_rest) in enumerate(self.sites):
            setattr(holder, attr, self._wrap(i, fn))
        return self

    def __exit__(self, *exc) -> None:
        for holder, attr, fn, *_rest in self.sites:
            setattr(holder, attr, fn)

    def describe(self, i: int) -> str:
        _, attr, _, mark, text, _ = self.sites[i]
        shown = text if len(text) <= 60 else text[:57] + "..."
        where = f" at {mark.file}:{mark.line}:{mark.column}" if mark is not None else ""
        return f"{_TEMPLATE_KINDS[attr]} {shown!r}{where}"

    def failure(self, exc: Exception, seed: int, players: int, actions: list[str]) -> CheckFailure:
        """The failure to report for ``exc``, naming the template that raised when one did."""
        if self.failed is not None:
            i, err = self.failed
            return CheckFailure(f"the {self.describe(i)} does not render: {type(err).__name__}: {err}", seed, players, actions)
        if isinstance(exc, CheckFailure):
            return exc
        return CheckFailure(f"{type(exc).__name__}: {exc}", seed, players, actions)


def check_templates(rs: Ruleset, seeds) -> tuple[str, list[str]]:
    """Random games (logs on; each player count, each seed, then up to :data:`EXTRA_GAMES` times
    as many on the next seeds while a written template has not rendered) render every
    decision's prompt and the label of every legal action at every decision, every ``log``
    line and ``end_game`` reason they reach.  Returns the detail and a note per template written in the ruleset that
    no game reached.  Raises :class:`CheckFailure` naming the template (file:line:col and its
    text) that raised, with the seed and actions that reach it."""
    recorder = _TemplateRecorder(rs)
    if not recorder.sites:
        return "no template (nothing to check)", []
    written = [i for i, site in enumerate(recorder.sites) if site[5]]
    games = 0

    def play(seed: int, plan) -> None:
        nonlocal games
        for players in _player_counts(rs):
            games += 1
            actions: list[str] = []
            try:
                g = _Game(rs, players, seed, plan)
                actions = g.actions
                recorder.where = (seed, players, actions)
                rng = Rng(seed * 7 + 3)
                while not g.st.is_terminal():
                    if len(g.actions) >= MOVE_LIMIT:
                        raise g.fail(f"the game did not end in {MOVE_LIMIT} moves")
                    g.st.decision()  # the prompt and every label
                    g.apply(rng.choice(g.legal()))
            except Exception as exc:  # noqa: BLE001 - a template's error is the failure reported
                raise recorder.failure(exc, seed, players, actions) from None

    with recorder:
        for seed in seeds:
            play(seed, seeds)
        # While a written template is unrendered, up to EXTRA_GAMES times as many games on the next
        # seeds (by default within twice the check's share of the budget).
        first = seeds.next_seed() if isinstance(seeds, Games) else max(seeds) + 1
        budget = 2 * seeds.seconds if isinstance(seeds, Games) and seeds.fixed is None else None
        for seed in range(first, first + EXTRA_GAMES * len(seeds)):
            if all(i in recorder.rendered for i in written):
                break
            if budget is not None and seeds.elapsed() >= budget:
                break
            play(seed, None)
    if recorder.raw:
        i, (word, text, (cid, field), (seed, players, actions)) = min(recorder.raw.items())
        more = len(recorder.raw) - 1
        raise CheckFailure(f"the {recorder.describe(i)} shows `{word}`, a raw table cell (the `{field}` of {cid}), to players: "
                           f"{text!r}; say it in words (a card's ability belongs on its face: display.faces and "
                           f"display.abilities)" + (f"; {more} more template(s) do the same" if more else ""),
                           seed, players, list(actions))
    missed = [recorder.describe(i) for i in written if i not in recorder.rendered]
    detail = (f"{len(written) - len(missed)} of {len(written)} templates rendered (prompts, labels, log lines, "
              f"end_game reasons) in {games} games")
    if missed:
        detail += f"; {len(missed)} never reached (see the notes)"
    return detail, [f"not reached: {m}" for m in missed]


#: (name, function(rs, seeds) -> detail, or (detail, notes)) in the order they run.
CHECKS: list[tuple[str, Callable[[Ruleset, tuple], str | tuple[str, list[str]]]]] = [
    ("games end", check_games_end),
    ("score at every step", check_score),
    ("legal actions apply", check_legal_actions),
    ("clone and JSON round trip", check_round_trip),
    ("same seed, same game", check_same_seed),
    ("observations hide", check_observations),
    ("secret decisions", check_secret_decisions),
    ("views hide", check_views),
    ("templates render", check_templates),
]


def _plan(seeds, seconds: float | None) -> Games:
    if isinstance(seeds, Games):
        return seeds
    if seeds is None:
        return Games(None, (BUDGET if seconds is None else seconds) / len(CHECKS))
    return Games(tuple(seeds))


def run_check(rs: Ruleset, name: str, seeds=None, budget: float | None = None) -> CheckResult:
    """Run the check called ``name`` (a name of :data:`CHECKS`) on ``rs`` over ``seeds`` (an
    iterable of seeds), or by default a :class:`Games` plan given its share of ``budget``
    seconds (default :data:`BUDGET`, the budget of all the checks of one ruleset).

    Any exception a game raises (a broken log template, an effect error) is a failure too,
    reported with its type and message and the moves up to it.

    Raises:
        KeyError: no check called ``name``.
    """
    fn = dict(CHECKS)[name]
    try:
        detail = fn(rs, _plan(seeds, budget))
        if isinstance(detail, tuple):
            return CheckResult(name, True, detail[0], notes=list(detail[1]))
        return CheckResult(name, True, detail)
    except CheckFailure as f:
        return CheckResult(name, False, f.message, f.seed, f.players, f.actions)
    except Exception as exc:  # noqa: BLE001 - the error is the failure reported
        return CheckResult(name, False, f"{type(exc).__name__}: {exc}")


def run_checks(rs: Ruleset, seeds=None, budget: float | None = None) -> list[CheckResult]:
    """Every check of :data:`CHECKS` on ``rs`` over ``seeds`` (default: a :class:`Games` plan
    per check within ``budget`` seconds for them all), in order (one result each)."""
    return [run_check(rs, name, seeds, budget) for name, _ in CHECKS]
