"""Benchmark of the PettingZoo adapter (interpreter/interop/pettingzoo.py): AEC steps per second
of a random legal policy on Tapster's games against PettingZoo's own ``tictactoe_v3`` and
``connect_four_v3`` in the same run (those need ``pygame``; without it they are left out).
Prints one JSON object.

    python tools/bench_pettingzoo.py [--seconds 3.0] [--rulesets tic_tac_toe,connect_four,kuhn_poker,beer_flights]

A step is one ``last()`` and one ``step()`` of the acting agent (its observation built, an action
drawn from its mask with numpy), resets included.  Each rate is the best of three runs of about
``--seconds / 3`` in process CPU time (this machine is shared and noisy).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from interpreter.interop.pettingzoo import env  # noqa: E402


def steps_per_second(make, seconds: float) -> int:
    """Random-policy AEC steps per CPU second of the environment ``make()`` gives (best of three)."""
    e = make()
    rng = np.random.default_rng(0)
    best = 0.0
    for _ in range(3):
        n, game = 0, 0
        t0 = time.process_time()
        while True:
            e.reset(seed=game)
            game += 1
            for _agent in e.agent_iter():
                obs, _, term, trunc, _ = e.last()
                if term or trunc:
                    e.step(None)
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    e.step(int(legal[rng.integers(len(legal))]))
                n += 1
            dt = time.process_time() - t0
            if dt >= seconds / 3:
                break
        best = max(best, n / dt)
    return round(best)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rulesets", default="tic_tac_toe,connect_four,kuhn_poker,beer_flights")
    args = parser.parse_args()
    out: dict = {"tapster": {name: steps_per_second(lambda name=name: env(name), args.seconds) for name in args.rulesets.split(",")}}
    try:
        from pettingzoo.classic import connect_four_v3, tictactoe_v3
    except ImportError as exc:  # PettingZoo's classic games import pygame
        out["pettingzoo"] = f"not measured: {exc}"
    else:
        out["pettingzoo"] = {"tictactoe_v3": steps_per_second(tictactoe_v3.env, args.seconds),
                             "connect_four_v3": steps_per_second(connect_four_v3.env, args.seconds)}
        for ours, theirs in (("tic_tac_toe", "tictactoe_v3"), ("connect_four", "connect_four_v3")):
            if ours in out["tapster"]:
                out.setdefault("ratio", {})[ours] = round(out["pettingzoo"][theirs] / out["tapster"][ours], 2)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
