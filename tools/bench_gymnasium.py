"""Benchmark of the Gymnasium adapter (interpreter/interop/gymnasium.py): steps per second of the
vector env of a ruleset (default tic-tac-toe, 256 games, random opponents through the engine's
playout loop) and of the single-agent env, a random legal learner action per step.  Prints one
JSON object.

    python tools/bench_gymnasium.py [--ruleset tic_tac_toe] [--num-envs 256] [--seconds 3.0]

A step of the vector env steps every game once (``num_envs`` environment steps); its rate is
environment steps per CPU second (process time: this machine is shared and noisy), the best of
three runs of about ``--seconds / 3``.  The learner's actions are drawn from its masks with numpy
(outside the environment, as a learner would; included in the time).  The issue's target for
tic-tac-toe with 256 games is 100,000 steps/s.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from interpreter.interop.gymnasium import env, vector_env  # noqa: E402


def _pick(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action id per row of ``masks`` (0 for a row with none)."""
    scores = rng.random(masks.shape) * masks
    return scores.argmax(axis=1)


def vector_rate(ruleset: str, num_envs: int, seconds: float) -> dict:
    """Environment steps per CPU second of the vector env (best of three), and the time split."""
    v = vector_env(ruleset, num_envs=num_envs)
    rng = np.random.default_rng(0)
    best, games = 0.0, 0
    obs, _ = v.reset(seed=0)
    for _ in range(3):
        n = 0
        t0 = time.process_time()
        while True:
            obs, _, term, trunc, _ = v.step(_pick(obs["action_mask"], rng))
            games += int(term.sum() + trunc.sum())
            n += num_envs
            dt = time.process_time() - t0
            if dt >= seconds / 3:
                break
        best = max(best, n / dt)
    return {"num_envs": num_envs, "steps_per_second": round(best), "games_finished": games}


def single_rate(ruleset: str, seconds: float) -> float:
    """Steps per CPU second of one single-agent env (best of three)."""
    e = env(ruleset)
    rng = np.random.default_rng(0)
    best = 0.0
    for _ in range(3):
        n = 0
        t0 = time.process_time()
        obs, _ = e.reset(seed=n)
        while True:
            obs, _, term, trunc, _ = e.step(int(_pick(obs["action_mask"][None], rng)[0]))
            n += 1
            if term or trunc:
                obs, _ = e.reset()
            dt = time.process_time() - t0
            if dt >= seconds / 3:
                break
        best = max(best, n / dt)
    return round(best)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", default="tic_tac_toe")
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    out = {"ruleset": args.ruleset, "vector": vector_rate(args.ruleset, args.num_envs, args.seconds),
           "single_steps_per_second": single_rate(args.ruleset, args.seconds), "target_vector_steps_per_second": 100_000}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
