"""Simulation and analysis: many games between agents (the batch a worker process plays), the
summary statistics of a run, and perft (counting the game tree).  The CLI (``interpreter.cli``)
only parses arguments and prints what these compute.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from .agents import make_agent
from .compiler import load_ruleset
from .errors import TapsterError
from .ruleset import Ruleset
from .state import State

__all__ = ["SimSpec", "play_batch", "remember_ruleset", "summarise", "perft", "game_seed", "agent_seed", "SHARED_WIN_NOTE"]

SHARED_WIN_NOTE = "a shared win counts 1/k to each of its k winners"


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
    for i in indices:
        gs = game_seed(spec.seed, i)
        agents = [make_agent(name, agent_seed(gs, p)) for p, name in enumerate(spec.agents)]
        n = 0
        try:
            st = rs.new_game(spec.players, seed=gs)
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


def summarise(results: list[tuple], n: int, elapsed: float) -> dict:
    """Statistics of ``(index, scores, winners, actions)`` results, in game order (so the sums do
    not depend on which process played which game): wins per seat (a shared win counts 1/k to
    each of k winners), win rate, mean and sample standard deviation of scores, game length
    (mean/min/max actions), draws (games with no winner), playouts per second, seconds."""
    games = len(results)
    wins = [0.0] * n
    draws = 0
    scores: list[list] = [[] for _ in range(n)]
    lengths = []
    for _, sc, winners, length in results:
        if winners:
            share = 1 / len(winners)
            for w in winners:
                wins[w] += share
        else:
            draws += 1
        for p in range(n):
            scores[p].append(sc[p])
        lengths.append(length)

    def mean(xs):
        try:
            return statistics.fmean(xs)
        except (TypeError, ValueError):
            return None

    def sd(xs):
        try:
            return statistics.stdev(xs) if len(xs) > 1 else 0.0
        except (TypeError, ValueError):
            return None

    return {
        "games": games,
        "wins": wins,
        "win_rate": [w / games for w in wins],
        "shared_wins": SHARED_WIN_NOTE,
        "score_mean": [mean(s) for s in scores],
        "score_sd": [sd(s) for s in scores],
        "length": {"mean": statistics.fmean(lengths), "min": min(lengths), "max": max(lengths)},
        "draws": draws,
        "playouts_per_second": games / elapsed if elapsed > 0 else None,
        "seconds": elapsed,
    }


# ---------------------------------------------------------------------------------------------
# Perft


def perft(st: State, depth: int | None) -> tuple[int, int]:
    """Count the leaves of the game tree below ``st``: the states ``depth`` decisions deep (a
    game that ends sooner is one leaf), or every complete game when ``depth`` is None.  Returns
    ``(leaves, nodes)`` where nodes counts every state visited, ``st`` included.  ``st`` is
    used up (the last branch of each node reuses its state instead of a clone).  In the sample
    chance mode chance inside the tree follows the state's generator (one deterministic outcome
    per path); for a state with explicit chance every outcome of a chance point is a branch and
    counts as a step of ``depth``."""
    nodes = 0
    leaves = 0
    stack = [(st, depth)]
    pop, push = stack.pop, stack.append
    while stack:
        s, d = pop()
        nodes += 1
        if s.finished or d == 0:
            leaves += 1
            continue
        d = None if d is None else d - 1
        actions = s.legal_actions()
        last = len(actions) - 1
        for i, a in enumerate(actions):
            child = s if i == last else s.clone()
            child.apply(a)
            push((child, d))
    return leaves, nodes
