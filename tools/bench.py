"""Benchmark: random-agent playouts per second for every shipped ruleset and variant, in one
process, plus the hand-written plain-Python Beer Flights (tools/beer_flights_plain.py) as the
speed limit.  Prints one JSON object.

    python tools/bench.py [--seconds 2.0] [--players N]

Each figure is the best of three timed runs of about ``--seconds / 3`` each (the machine's
noise only ever slows a run down).  ``ratio`` is hand-written / interpreter for Beer Flights with
the same player count: how many times slower the interpreter is than plain Python.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from interpreter import available_rulesets, load_ruleset  # noqa: E402
from interpreter.rng import Rng  # noqa: E402


def _rate(run_one, seconds: float) -> float:
    best = 0.0
    i = 0
    for _ in range(3):
        n = 0
        t0 = time.process_time()
        while True:
            run_one(i)
            i += 1
            n += 1
            dt = time.process_time() - t0
            if dt >= seconds / 3:
                break
        best = max(best, n / dt)
    return best


def interpreter_rate(name: str, variant: str | None, players: int | None, seconds: float) -> dict:
    rs = load_ruleset(name, variant)
    n = players if players and rs.min_players <= players <= rs.max_players else rs.default_players
    agent = Rng(1)
    decisions = [0]

    def one(i):
        st = rs.new_game(n, seed=i)
        while not st.finished:
            legal = st.legal_actions()
            st.apply(legal[agent.below(len(legal))])
            decisions[0] += 1

    rate = _rate(one, seconds)
    return {"players": n, "playouts_per_s": round(rate, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="time per figure (default 2)")
    ap.add_argument("--players", type=int, default=4, help="players where the ruleset allows (default 4)")
    args = ap.parse_args(argv)

    import beer_flights_plain as plain

    results: dict = {"interpreter": {}}
    for name in available_rulesets():
        rs = load_ruleset(name)
        for variant in [None, *rs.variants]:
            key = name if variant is None else f"{name}:{variant}"
            results["interpreter"][key] = interpreter_rate(name, variant, args.players, args.seconds)
    deck = plain.load_deck()
    agent = Rng(1)
    bf_players = results["interpreter"]["beer_flights"]["players"]
    hand = _rate(lambda i: plain.playout(deck, bf_players, i, agent), args.seconds)
    results["hand_written_beer_flights"] = {"players": bf_players, "playouts_per_s": round(hand, 1)}
    interp = results["interpreter"]["beer_flights"]["playouts_per_s"]
    results["beer_flights_ratio_hand_over_interpreter"] = round(hand / interp, 2)
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
