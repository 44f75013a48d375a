"""Benchmark of the OpenSpiel adapter under a tree algorithm: 100 iterations of OpenSpiel's
Python ``CFRPlusSolver`` on Tapster's Kuhn poker (through interpreter/interop/openspiel.py), on OpenSpiel's
own plain-Python ``python_kuhn_poker`` and on its C++ ``kuhn_poker``, in one run.  Prints one JSON
object: CPU seconds per game (best of ``--repeat`` runs, each from a cold start: Tapster's shared
tree nodes dropped before each; the machine is shared and noisy), the
exploitability reached (the same on all three when the games are the same), and ``ratio``:
Tapster's time / ``python_kuhn_poker``'s (the target is at most 1.5).

    python tools/bench_cfr.py [--iterations 100] [--repeat 3] [--profile]

``--profile`` prints the functions where Tapster's run spends its time (cProfile, cumulative).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyspiel  # noqa: E402
from open_spiel.python.algorithms import cfr, exploitability  # noqa: E402
from open_spiel.python.games import kuhn_poker as _python_kuhn_poker  # noqa: E402, F401 - registers python_kuhn_poker

from interpreter.interop.openspiel import load_game  # noqa: E402


def run(game, iterations: int) -> tuple[float, float]:
    """CPU seconds for ``iterations`` CFR+ iterations on ``game`` (a new solver), and the
    exploitability of the average policy after them."""
    t0 = time.process_time()
    solver = cfr.CFRPlusSolver(game)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    elapsed = time.process_time() - t0
    return elapsed, float(exploitability.exploitability(game, solver.average_policy()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    games = {
        "tapster_kuhn_poker": lambda: load_game("kuhn_poker"),
        "python_kuhn_poker": lambda: pyspiel.load_game("python_kuhn_poker"),
        "kuhn_poker (C++)": lambda: pyspiel.load_game("kuhn_poker"),
    }
    if args.profile:
        game = games["tapster_kuhn_poker"]()
        prof = cProfile.Profile()
        prof.enable()
        run(game, args.iterations)
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(30)
        return
    out: dict = {"iterations": args.iterations, "games": {}}
    for name, make in games.items():
        best, expl = None, None
        for _ in range(args.repeat):
            game = make()
            if name.startswith("tapster"):  # cold: the tree's shared nodes of an earlier run dropped
                game.encoding.__dict__.pop("nodes", None)
                game.encoding.__dict__.pop("root_node", None)
            seconds, expl = run(game, args.iterations)
            best = seconds if best is None else min(best, seconds)
        out["games"][name] = {"cpu_seconds": round(best, 3), "exploitability": round(expl, 6)}
    g = out["games"]
    out["ratio"] = round(g["tapster_kuhn_poker"]["cpu_seconds"] / g["python_kuhn_poker"]["cpu_seconds"], 2)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
