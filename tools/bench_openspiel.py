"""Benchmark of the OpenSpiel adapter (interpreter/interop/openspiel.py): OpenSpiel steps per second of
Tapster's tic-tac-toe against OpenSpiel's own C++ ``tic_tac_toe`` in the same run, and OpenSpiel's
CFR and CFR+ on Tapster's Kuhn poker against its own ``kuhn_poker``.  Prints one JSON object.

    python tools/bench_openspiel.py [--seconds 3.0] [--iterations 100,200,500]

A step is one ``legal_actions()`` and one ``apply_action()`` of a random playout through the
``pyspiel`` API (chance outcomes sampled where there are any).  Each rate is the best of three
timed runs of about ``--seconds / 3`` each, in process CPU time (this machine is shared and
noisy).  ``ratio`` is OpenSpiel's rate / Tapster's.  For CFR: the exploitability (NashConv / 2)
of the average policy and the first player's value under it (-1/18 at an equilibrium) after
each number of iterations, with the CPU seconds taken.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402
from open_spiel.python.algorithms import cfr, expected_game_score, exploitability  # noqa: E402

from interpreter.interop.openspiel import load_game  # noqa: E402


def steps_per_second(game, seconds: float) -> float:
    """Random-playout steps per CPU second through the pyspiel API (best of three runs)."""
    rng = np.random.RandomState(0)
    best = 0.0
    for _ in range(3):
        n = 0
        t0 = time.process_time()
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probs = zip(*state.chance_outcomes())
                    state.apply_action(int(rng.choice(outcomes, p=probs)))
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[rng.randint(len(legal))])
                n += 1
            dt = time.process_time() - t0
            if dt >= seconds / 3:
                break
        best = max(best, n / dt)
    return best


def cfr_run(game, solver_class, checkpoints: list[int]) -> list[dict]:
    """Exploitability and first-player value after each checkpoint's iterations."""
    solver = solver_class(game)
    out = []
    done = 0
    t0 = time.process_time()
    for target in checkpoints:
        while done < target:
            solver.evaluate_and_update_policy()
            done += 1
        elapsed = time.process_time() - t0
        policy = solver.average_policy()
        value = expected_game_score.policy_value(game.new_initial_state(), [policy, policy])[0]
        out.append({
            "iterations": done,
            "exploitability": float(exploitability.exploitability(game, policy)),
            "value_p1": float(value),
            "value_error": float(abs(value + 1 / 18)),
            "cpu_seconds": round(elapsed, 3),
        })
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--iterations", default="100,200,500")
    args = parser.parse_args()
    checkpoints = sorted(int(x) for x in args.iterations.split(","))
    tapster_ttt = load_game("tic_tac_toe")
    own_ttt = pyspiel.load_game("tic_tac_toe")
    t_rate = steps_per_second(tapster_ttt, args.seconds)
    o_rate = steps_per_second(own_ttt, args.seconds)
    tapster_kuhn = load_game("kuhn_poker")
    own_kuhn = pyspiel.load_game("kuhn_poker")
    result = {
        "tic_tac_toe_steps_per_second": {"tapster": round(t_rate), "openspiel": round(o_rate), "ratio": round(o_rate / t_rate, 1)},
        "kuhn_poker_cfr": {
            source: {
                "cfr": cfr_run(game, cfr.CFRSolver, checkpoints),
                "cfr_plus": cfr_run(game, cfr.CFRPlusSolver, checkpoints),
            }
            for source, game in (("tapster", tapster_kuhn), ("openspiel", own_kuhn))
        },
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
