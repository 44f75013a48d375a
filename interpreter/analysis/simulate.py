"""Simulation and analysis: many games between agents (the batch a worker process plays), the
summary statistics of a run, and perft (counting the game tree).  The CLI (``interpreter.cli``)
only parses arguments and prints what these compute.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from ..agents.core import RandomAgent, make_agent
from ..compile.compiler import load_ruleset
from ..compile.ruleset import Ruleset
from ..engine import flow
from ..engine.playout import playout, take
from ..engine.rng import Rng, seed_states
from ..engine.state import State
from ..errors import TapsterError

__all__ = [
    "SimSpec", "Summary", "Tally", "run_games", "play_batch", "remember_ruleset", "summarise",
    "perft", "perft_subtrees", "PerftTable", "game_seed", "agent_seed", "SHARED_WIN_NOTE", "DRAW_NOTE", "is_draw",
]

SHARED_WIN_NOTE = "a shared win counts 1/k to each of its k winners"

#: What a draw is, in the words ``simulate``, ``analyse`` and ``compare`` all print.
DRAW_NOTE = "a draw: no winner, or every seat won (a split pot)"


def is_draw(winners, players: int) -> bool:
    """A game is a draw when it has no winner, or (with two seats or more) every seat won
    together, as a split pot (``winners: players``) does; ``simulate``, ``analyse`` and
    ``compare`` count draws by this one definition.  A shared win of some of the seats is not
    a draw (each winner counts 1/k of a win)."""
    return not winners or (players > 1 and len(set(winners)) == players)


# ---------------------------------------------------------------------------------------------
# Seeds: everything a game draws derives from --seed, so a game is reproducible.


def game_seed(seed: int, index: int) -> str:
    """The seed of game ``index`` of a simulation run with ``seed`` (the pair (seed, index))."""
    return f"{seed}:{index}"


def agent_seed(seed: int | str, seat: int) -> str:
    """The seed of the agent in ``seat`` of the game seeded with ``seed``."""
    return f"{seed}:agent:{seat}"


# ---------------------------------------------------------------------------------------------
# Simulation


@dataclass(frozen=True)
class SimSpec:
    """What every game of a simulation shares (picklable, sent to worker processes)."""

    path: str
    variant: str | None
    params: tuple
    players: int
    seed: int
    agents: tuple[str, ...]


_RULESETS: dict = {}  # per process: (path, variant, params) -> Ruleset


def remember_ruleset(spec: SimSpec, rs: Ruleset) -> None:
    """Let this process's batches of ``spec`` use the already compiled ``rs``."""
    _RULESETS[(spec.path, spec.variant, spec.params)] = rs


def _ruleset_for(spec: SimSpec) -> Ruleset:
    key = (spec.path, spec.variant, spec.params)
    rs = _RULESETS.get(key)
    if rs is None:
        params = dict(spec.params)
        rs = load_ruleset(spec.path, spec.variant, {"params": params} if params else None)
        _RULESETS[key] = rs
    return rs


def play_batch(spec: SimSpec, indices: range) -> list[tuple]:
    """Play games ``indices`` of a simulation; one ``(index, scores, winners, actions)`` tuple per
    game, or ``(index, None, message, 0)`` for a game the ruleset failed in (the error's text;
    an exception would lose its mark crossing processes)."""
    rs = _ruleset_for(spec)
    results = []
    # every seat random: no agent objects, only their generators, seeded as RandomAgent seeds
    # them (agent_seed's text, its game's seed hashed once for every seat)
    random_only = all(name == "random" for name in spec.agents)
    suffixes = [agent_seed("", p) for p in range(len(spec.agents))]
    for i in indices:
        gs = game_seed(spec.seed, i)
        if random_only:
            agents = None
            rngs = [Rng.from_state(s) for s in seed_states(gs, suffixes)]
        else:
            agents = [make_agent(name, agent_seed(gs, p)) for p, name in enumerate(spec.agents)]
        n = 0
        try:
            st = rs.new_game(spec.players, seed=gs)
            if agents is None:
                n = _random_playout(st, rs, rngs)
                rs.check_length(st, n)
                agents = [_random_agent(r) for r in rngs]  # for the loop below, should the game go on
            elif all(type(a) is RandomAgent for a in agents):
                n = _random_playout(st, rs, [a.rng for a in agents])
                rs.check_length(st, n)
            while not st.finished:
                p = st.current_players()[0]
                st.apply(agents[p].act(st, p))
                n += 1
                rs.check_length(st, n)
            out = st.outcome()
        except TapsterError as exc:
            results.append((i, None, str(exc), n))
            continue
        results.append((i, out.scores, out.winners, n))
    return results


def _random_agent(rng: Rng) -> RandomAgent:
    """A :class:`RandomAgent` drawing from ``rng`` (as ``RandomAgent(seed)`` draws from ``Rng(seed)``)."""
    agent = RandomAgent.__new__(RandomAgent)
    agent.rng = rng
    return agent


def _random_playout(st: State, rs: Ruleset, rngs: list) -> int:
    """Play ``st`` to its end with random agents whose generators are ``rngs`` (one per seat),
    inside the generated code (:func:`interpreter.engine.playout.playout`): the actions
    :class:`~interpreter.agents.core.RandomAgent` would take, drawn in the same order; returns
    the number of actions taken.  It stops, the game going on, after the ruleset's longest game
    (:meth:`Ruleset.length_limit`), for the caller's :meth:`Ruleset.check_length` to raise, as
    the agents' loop does.
    """
    limit = rs.length_limit(st.num_players)
    taken = 0

    def pick(choose, actions, seats):
        nonlocal taken
        if taken >= limit:
            return None
        taken += 1
        return rngs[seats[0]].below(len(actions))

    playout(st, pick)
    return taken


def summarise(results: list[tuple], n: int, elapsed: float) -> dict:
    """The :class:`Tally` summary of a list of results (in any order)."""
    t = Tally(n)
    for r in sorted(results, key=lambda r: r[0]):
        t.add(r)
    return t.summary(elapsed)


def run_games(spec: SimSpec, games: int, jobs: int, on_batch=None):
    """Play games ``0 .. games - 1`` of ``spec`` and yield their results in game order, streaming:
    batches of games run in ``jobs`` worker processes (in this one for ``jobs == 1``), at most
    four per worker in flight, finished batches held only until the ones before them are in.
    ``on_batch(k)`` is called as each batch of k games finishes (a progress bar).  Closing the
    generator (or a KeyboardInterrupt) stops the workers at once."""
    batch = max(1, min(200, -(-games // (jobs * 8))))
    starts = iter(range(0, games, batch))
    if jobs == 1:
        for i in starts:
            out = play_batch(spec, range(i, min(i + batch, games)))
            if on_batch is not None:
                on_batch(len(out))
            yield from out
        return
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    pool = ProcessPoolExecutor(max_workers=jobs)
    try:
        in_flight: dict = {}
        ready: dict[int, list] = {}
        next_start = 0

        def submit() -> bool:
            i = next(starts, None)
            if i is None:
                return False
            in_flight[pool.submit(play_batch, spec, range(i, min(i + batch, games)))] = i
            return True

        for _ in range(jobs * 4):
            if not submit():
                break
        while in_flight:
            done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
            for f in done:
                i = in_flight.pop(f)
                ready[i] = f.result()
                if on_batch is not None:
                    on_batch(len(ready[i]))
                submit()
            while next_start in ready:
                out = ready.pop(next_start)
                next_start += batch
                yield from out
    finally:
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.terminate()  # a Ctrl-C or a closed generator stops the workers now, not after their batch
        pool.shutdown(wait=False, cancel_futures=True)


class Tally:
    """The running statistics of a simulation, fed one ``(index, scores, winners, actions)``
    result at a time in game order, in constant memory whatever the number of games: wins per
    seat (a shared win counts 1/k to each of k winners), win rate, mean and sample standard
    deviation of scores (exact sums, so the figures equal :mod:`statistics`' and do not depend
    on which process played which game), game length (mean/min/max actions), draws
    (:func:`is_draw`: no winner, or every seat won).  ``first_failure`` is the first game (in order) the ruleset failed in, as its
    ``(index, None, message, actions)`` tuple; such a game is not counted.

    :meth:`add_batch` takes a batch of consecutive games in any order of batches: batches that
    arrive early wait (the caller bounds how many are in flight) until the ones before them
    are in."""

    def __init__(self, n: int, first: int = 0) -> None:
        self.n = n
        self.games = 0
        self.wins = [0.0] * n
        self.draws = 0
        self.no_winner = 0  # draws with no winner (the others: every seat won, each counted 1/n)
        # exact sums: whole numbers as ints, a fraction once a float score comes (Fraction(x) is
        # exact); None once a seat's score is not a number
        self.sums: list = [0] * n
        self.squares: list = [0] * n
        self.length_sum = 0
        self.length_min: int | None = None
        self.length_max: int | None = None
        self.first_failure: tuple | None = None
        self._next = first
        self._waiting: dict[int, list] = {}

    @property
    def waiting(self) -> int:
        """Batches received ahead of their turn."""
        return len(self._waiting)

    def add_batch(self, results: list[tuple]) -> None:
        """Add a batch of results of consecutive games (its first game's index first)."""
        if not results:
            return
        self._waiting[results[0][0]] = results
        while self._next in self._waiting:
            batch = self._waiting.pop(self._next)
            for r in batch:
                self.add(r)
            self._next = batch[-1][0] + 1

    def add(self, result: tuple) -> None:
        """Add the result of the next game."""
        _, scores, winners, length = result
        if scores is None:
            if self.first_failure is None:
                self.first_failure = result
            return
        self.games += 1
        if winners:
            share = 1 / len(winners)
            for w in winners:
                self.wins[w] += share
        else:
            self.no_winner += 1
        if is_draw(winners, self.n):
            self.draws += 1
        for p in range(self.n):
            if self.sums[p] is None:
                continue
            x = scores[p]
            t = type(x)
            if t is not int:
                if t is not float and t is not bool or x != x or x in (math.inf, -math.inf):
                    self.sums[p] = self.squares[p] = None
                    continue
                x = Fraction(x)
            self.sums[p] += x
            self.squares[p] += x * x
        self.length_sum += length
        self.length_min = length if self.length_min is None else min(self.length_min, length)
        self.length_max = length if self.length_max is None else max(self.length_max, length)

    def summary(self, elapsed: float) -> dict:
        """The statistics as a JSON-ready dict (``playouts_per_second`` and ``seconds`` from
        ``elapsed`` seconds)."""
        games = self.games

        def mean(p):
            return None if self.sums[p] is None or not games else float(Fraction(self.sums[p]) / games)

        def sd(p):
            if self.sums[p] is None or not games:
                return None
            if games == 1:
                return 0.0
            total = Fraction(self.sums[p])
            var = (self.squares[p] - total * total / games) / (games - 1)
            return math.sqrt(var)

        return {
            "games": games,
            "wins": self.wins,
            "win_rate": [w / games if games else None for w in self.wins],
            "shared_wins": SHARED_WIN_NOTE,
            "score_mean": [mean(p) for p in range(self.n)],
            "score_sd": [sd(p) for p in range(self.n)],
            "length": {"mean": self.length_sum / games if games else None, "min": self.length_min, "max": self.length_max},
            "draws": self.draws,
            "no_winner": self.no_winner,
            "draw": DRAW_NOTE,
            "playouts_per_second": games / elapsed if elapsed > 0 else None,
            "seconds": elapsed,
        }


class Summary(Tally):
    """A :class:`Tally` fed one game at a time in game order (``add``), read with ``result``."""

    def result(self, elapsed: float) -> dict:
        """The statistics as JSON data (``elapsed``: seconds the run took)."""
        return self.summary(elapsed)


# ---------------------------------------------------------------------------------------------
# Perft


class PerftTable:
    """Perft's transposition table: ``(state, depth left) -> (leaves, nodes)`` below it, so that a
    position reached by several move orders is counted once and its counts reused (chess
    engines' perft with hashing).  Exact: a state's key is its whole saved form
    (``State.to_json()`` as JSON, without the narration log, which no rule reads), the data a game
    is saved and resumed from, so two states with one key have the same future.

    Bounded: keys take at most ``max_bytes`` (beyond it, known positions are still reused, new
    ones are not stored).  Adaptive: when the first ``probe`` look-ups find fewer than
    ``min_hits`` of them known (a game whose positions rarely repeat, as most card games), the
    table switches itself off, so such a game pays a key only ``probe`` times."""

    def __init__(self, max_bytes: int = 64 * 1024 * 1024, probe: int = 4096, min_hits: float = 0.05):
        self.entries: dict = {}
        self.bytes = 0
        self.max_bytes = max_bytes
        self.on = True
        self.lookups = 0
        self.hits = 0
        self.probe = probe
        self.min_hits = min_hits

    def key(self, st: State, depth: int | None):
        """The key of ``st`` with ``depth`` decisions left, or None when the table is off."""
        if not self.on:
            return None
        import json

        try:
            data = st.to_json()
        except TapsterError:  # a state too large to save: too large to remember
            self.on = False
            return None
        data.pop("log", None)
        return json.dumps(data, sort_keys=True, separators=(",", ":"), default=str), depth

    def get(self, key) -> tuple[int, int] | None:
        """The ``(leaves, nodes)`` stored for ``key``, or None (counting the look-up)."""
        self.lookups += 1
        found = self.entries.get(key)
        if found is not None:
            self.hits += 1
        if self.lookups == self.probe and self.hits < self.min_hits * self.probe:
            self.on = False
            self.entries.clear()
        return found

    def put(self, key, counts: tuple[int, int]) -> None:
        """Remember ``counts`` for ``key`` while the table is on and within its bytes."""
        if self.on and self.bytes < self.max_bytes:
            self.entries[key] = counts
            self.bytes += len(key[0]) + 100  # the key's text and the entry's own


def _take(st: State, index: int) -> None:
    """``st.apply(st.legal_actions()[index])`` without the look-up (:func:`interpreter.engine.playout.take`),
    a ruleset's value of the wrong kind reported as ``apply`` reports it (never a traceback).

    Raises:
        FlowError, ExpressionError: the ruleset failed while running (the state is not to be
            played on).
    """
    try:
        take(st, index)
    except flow.PYTHON_ERRORS as exc:
        raise flow.unexpected(exc) from None


def perft(st: State, depth: int | None, table: PerftTable | None = None) -> tuple[int, int]:
    """Count the leaves of the game tree below ``st``: the states ``depth`` decisions deep (a
    game that ends sooner is one leaf), or every complete game when ``depth`` is None.  Returns
    ``(leaves, nodes)`` where nodes counts every state visited, ``st`` included.  ``st`` is
    used up (the last branch of each node reuses its state instead of a clone).  In the sample
    chance mode chance inside the tree follows the state's generator (one deterministic outcome
    per path); for a state with explicit chance every outcome of a chance point is a branch and
    counts as a step of ``depth``.

    Work saved, counts unchanged: one step above ``depth`` the children are counted, not built
    (each is a leaf whatever it holds: bulk counting); a position met again with the same depth
    left reuses its counts from ``table`` (a :class:`PerftTable`; a fresh one when None; pass one
    table to several calls to share it).

    Raises:
        FlowError, ExpressionError: the ruleset fails while a position is built.
    """
    if table is None:
        table = PerftTable()
    # Each open frame: [leaves, nodes, key, children still to count].
    frames: list = []

    def visit(s: State, d: int | None):
        """(leaves, nodes) below ``s`` when known at once; else a frame is opened (None)."""
        if s.finished or d == 0:
            return 1, 1
        key = table.key(s, d)
        if key is not None:
            found = table.get(key)
            if found is not None:
                return found
        actions = s.legal_actions()
        if d == 1:  # every child is a leaf, however the game goes on
            return len(actions), 1 + len(actions)
        d = None if d is None else d - 1
        children = []
        last = len(actions) - 1
        for i in range(len(actions)):
            child = s if i == last else s.clone()
            _take(child, i)
            children.append(child)
        frames.append([0, 1, key, children, d])
        return None

    done = visit(st, depth)
    while frames:
        f = frames[-1]
        children = f[3]
        if children:
            got = visit(children.pop(), f[4])
            if got is not None:
                f[0] += got[0]
                f[1] += got[1]
            continue
        frames.pop()
        done = (f[0], f[1])
        if f[2] is not None:
            table.put(f[2], done)
        if frames:
            frames[-1][0] += done[0]
            frames[-1][1] += done[1]
    return done


def perft_subtrees(st: State, depth: int | None, want: int = 16) -> tuple[list, int]:
    """The tree below ``st`` cut, level by level, into at least ``want`` subtrees (fewer when the
    tree is smaller): ``([(state, depth left)], nodes above them)``; the subtrees' perft counts
    plus those nodes are ``perft(st, depth)``'s (the CLI's progress bar counts the subtrees).
    ``st`` is used up, as by :func:`perft`."""
    level, nodes = [(st, depth)], 0
    while len(level) < want:
        deeper, grew = [], False
        for s, d in level:
            if s.finished or d == 0:
                deeper.append((s, d))  # a leaf: a subtree of one node
                continue
            grew, nodes = True, nodes + 1
            actions = s.legal_actions()
            for i in range(len(actions)):
                child = s if i == len(actions) - 1 else s.clone()
                _take(child, i)
                deeper.append((child, None if d is None else d - 1))
        if not grew:
            break
        level = deeper
    return level, nodes
