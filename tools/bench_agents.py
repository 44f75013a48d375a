"""How strong the search agents are, and what a decision costs (issue 18): not a timed test.

    python tools/bench_agents.py [--quick]
    python tools/bench_agents.py --targets [--games N]

Tic-tac-toe: ``mcts`` with 1,000 iterations against ``random`` (it must never lose) and against
itself (a draw in at least 90% of games).  Beer Flights, Beer Cards and Drink & Beat: ``ismcts``
against ``random`` and against ``greedy``, seats rotated, with the mean margin of the searcher's
win share over its fair share and a 95% interval (normal approximation; the interval must
exclude zero).  Each line gives the CPU seconds per decision of the searcher.

``--targets``: issue 24's search targets, the CPU seconds of one whole game (every agent's
choices and every move) of Beer Knight (2 players) and of Belgian Beers Race (3 players) with one
``ismcts:iterations=100`` player in seat 0 against ``random`` (targets: 2 s and 8 s); games seeded
``0:0``, ``0:1``, ... as ``tapster simulate --seed 0`` seeds them, so runs before and after a change
play the same games; each line ends with a digest of the game's actions (the same digest: the same
choices).
"""

from __future__ import annotations

import argparse
import hashlib
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interpreter import load_ruleset  # noqa: E402
from interpreter.agents.core import make_agent  # noqa: E402
from interpreter.analysis.simulate import agent_seed, game_seed  # noqa: E402


def play(rs, specs, seed):
    """One game; returns (outcome, CPU seconds spent in seat 0's... each seat's agent, decisions)."""
    n = len(specs)
    st = rs.new_game(n, seed=seed)
    agents = [make_agent(s, agent_seed(seed, p)) for p, s in enumerate(specs)]
    spent = [0.0] * n
    decisions = [0] * n
    while not st.is_terminal():
        p = st.current_players()[0]
        t = time.process_time()
        a = agents[p].act(st, p)
        spent[p] += time.process_time() - t
        decisions[p] += 1
        st.apply(a)
    return st.outcome(), spent, decisions


def share(outcome, p):
    w = outcome.winners
    n = len(outcome.scores)
    if not w:
        return 1.0 / n
    return 1.0 / len(w) if p in w else 0.0


def match(name, searcher, other, games, players=None, seed=0):
    rs = load_ruleset(name)
    n = players or rs.default_players
    margins, cost, count, losses, draws = [], 0.0, 0, 0, 0
    for g in range(games):
        seat = g % n  # the searcher's seat rotates
        specs = [searcher if p == seat else other for p in range(n)]
        out, spent, dec = play(rs, specs, game_seed(seed, g))
        s = share(out, seat)
        margins.append(s - 1.0 / n)
        cost += spent[seat]
        count += dec[seat]
        losses += out.winners != () and seat not in out.winners
        draws += not out.winners or len(out.winners) == n
    mean = sum(margins) / len(margins)
    sd = math.sqrt(sum((m - mean) ** 2 for m in margins) / max(len(margins) - 1, 1))
    half = 1.96 * sd / math.sqrt(len(margins))
    print(f"{name:15} {searcher:28} vs {other:28} {games:4} games: margin {mean:+.3f} ± {half:.3f} "
          f"(95%: {'excludes' if abs(mean) > half else 'INCLUDES'} 0); searcher lost {losses}, draws {draws}; "
          f"{cost / max(count, 1) * 1000:.1f} ms CPU per decision", flush=True)
    return mean, half, losses, draws


#: Issue 24's search targets: (ruleset, players, CPU seconds a game may take, default games).
TARGETS = [("beer_knight", 2, 2.0, 3), ("belgian_beers_race", 3, 8.0, 2)]


def targets(games: int | None, searcher: str = "ismcts:iterations=100") -> None:
    """Print the CPU seconds of whole games with ``searcher`` in seat 0 against ``random``."""
    for name, n, goal, default in TARGETS:
        rs = load_ruleset(name)
        specs = [searcher] + ["random"] * (n - 1)
        times = []
        for g in range(games if games is not None else default):
            seed = game_seed(0, g)
            st = rs.new_game(n, seed=seed)
            agents = [make_agent(s, agent_seed(seed, p)) for p, s in enumerate(specs)]
            taken = []
            t0 = time.process_time()
            while not st.is_terminal():
                p = st.current_players()[0]
                a = agents[p].act(st, p)
                taken.append(str(a))
                st.apply(a)
            dt = time.process_time() - t0
            times.append(dt)
            digest = hashlib.sha256(" ".join(taken).encode()).hexdigest()[:12]
            print(f"{name:20} game {seed:5} {searcher} vs random: {dt:6.2f} s CPU, {len(taken)} decisions, "
                  f"winners {list(st.outcome().winners)}, actions {digest}", flush=True)
        mean = sum(times) / len(times)
        print(f"{name:20} mean {mean:.2f} s CPU a game (target <= {goal:g} s: {'met' if mean <= goal else 'NOT met'})", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer games and iterations (a smoke run)")
    ap.add_argument("--games", type=int, default=None, help="games of every match (overrides the defaults)")
    ap.add_argument("--iterations", type=int, default=None, help="iterations of every searcher (overrides the defaults)")
    ap.add_argument("--targets", action="store_true", help="only issue 24's search targets: CPU seconds of a whole game")
    args = ap.parse_args()
    if args.targets:
        targets(args.games, f"ismcts:iterations={args.iterations or 100}")
        return
    q = args.quick

    def games(quick: int, full: int) -> int:
        return args.games if args.games is not None else quick if q else full

    ttt = f"mcts:iterations={args.iterations or 1000}"
    match("tic_tac_toe", ttt, "random", games(20, 200))
    match("tic_tac_toe", ttt, ttt, games(10, 100))
    it = args.iterations or (100 if q else 300)
    for name in ("beer_flights", "beer_cards", "drink_and_beat"):
        for other in ("random", "greedy"):
            match(name, f"ismcts:iterations={it}", other, games(10, 40), players=2)


if __name__ == "__main__":
    main()
