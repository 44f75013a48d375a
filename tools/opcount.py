"""Bytecodes per decision, by function: a profile of random playouts that noise cannot move.

    python tools/opcount.py RULESET [--players N] [--games G] [--top K] [--api] [--json]

Plays ``G`` seeded random games (seeds 0..G-1, one agent generator seeded 1) on the fastest path
(:func:`interpreter.engine.playout.playout`, as ``tools/bench.py``'s ``tapster`` column) or,
with ``--api``, through ``legal_actions`` + ``apply``, and counts every Python bytecode executed
(``sys.settrace`` with ``f_trace_opcodes``), grouped by function: generated functions by their
name (``blk_*``, ``legal``, ``f_<ruleset function>``...), the engine's by file and name.  It
prints the bytecodes per decision of each and the total.

Why: this machine is shared and noisy, and timings move by 10-20% from run to run; a count of
bytecodes is the same in every run (the games are seeded), so a change that saves 3% shows as
3%.  Bytecodes are not time (a call, an allocation, a big-int product cost more than a load),
so a change is measured in both: here for what it removed, in ``tools/bench.py`` for what it
gained.  Tracing makes the games about 30 times slower: a few games are enough.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# numpy is imported before the trace: an agent's generator imports it on its first numpy block
# (rng._numpy_block), a cost paid once, not per decision
import numpy  # noqa: E402, F401

from interpreter import load_ruleset  # noqa: E402
from interpreter.engine.playout import playout  # noqa: E402
from interpreter.engine.rng import Rng  # noqa: E402


def count(name: str, players: int | None, games: int, api: bool = False) -> tuple[int, Counter]:
    """Play ``games`` seeded random games of ruleset ``name``; return (decisions, bytecodes by
    function), where a function is ``(name, file)`` (file ``generated`` for the ruleset's own
    generated code)."""
    rs = load_ruleset(name)
    n = players or rs.default_players
    agent = Rng(1)
    below = agent.below
    decisions = 0

    def pick(choose, actions, seats):
        nonlocal decisions
        decisions += 1
        return below(len(actions))

    states = [rs.new_game(n, seed=i) for i in range(games)]
    counts: Counter = Counter()

    def trace(frame, event, arg):
        frame.f_trace_opcodes = True
        if event == "opcode":
            co = frame.f_code
            f = co.co_filename
            counts[(co.co_name, "generated" if f == "<tapster generated>" else Path(f).name)] += 1
        return trace

    sys.settrace(trace)
    try:
        for st in states:
            if api:
                while not st.finished:
                    legal = st.legal_actions()
                    decisions += 1
                    st.apply(legal[below(len(legal))])
            else:
                playout(st, pick)
    finally:
        sys.settrace(None)
    # the benchmark's own policy is not the engine's
    for key in [k for k in counts if k[1] == Path(__file__).name]:
        del counts[key]
    return decisions, counts


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ruleset")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--top", type=int, default=30, help="functions to list (default 30)")
    ap.add_argument("--api", action="store_true", help="through legal_actions + apply instead of the playout loop")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    a = ap.parse_args(argv)
    decisions, counts = count(a.ruleset, a.players, a.games, a.api)
    total = sum(counts.values())
    per = max(decisions, 1)
    if a.json:
        print(json.dumps({"ruleset": a.ruleset, "games": a.games, "decisions": decisions,
                          "bytecodes_per_decision": round(total / per, 1),
                          "by_function": [{"function": f, "file": file, "per_decision": round(c / per, 1)}
                                          for (f, file), c in counts.most_common(a.top)]}))
        return
    print(f"{a.ruleset}: {a.games} games, {decisions} decisions, {total / per:,.1f} bytecodes a decision")
    for (f, file), c in counts.most_common(a.top):
        print(f"{c / per:10.1f}  {100 * c / total:5.1f}%  {f}  ({file})")


if __name__ == "__main__":
    main()
