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

In the same run, for scale: PettingZoo's own ``tictactoe_v3`` (a random legal policy, one
``last()`` and ``step()`` per step; needs ``pygame``) and OpenSpiel's C++ ``tic_tac_toe`` (random
playouts through ``pyspiel``), with their ratios to the vector env; ``--no-baselines`` leaves
them out.  ``--split`` adds where a vector step's time goes (the learner's picks, the games'
moves, the observations and masks), microseconds per environment step.
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


def split(ruleset: str, num_envs: int, steps: int = 200) -> dict:
    """Microseconds of CPU per environment step in the learner's picks (numpy, outside the
    environment), the games (the learner's move, the opponents', resets, returns) and the
    observations and masks, over ``steps`` vector steps."""
    v = vector_env(ruleset, num_envs=num_envs)
    rng = np.random.default_rng(0)
    obs, _ = v.reset(seed=0)
    spent = {"picks": 0.0, "games": 0.0, "observations": 0.0}
    for _ in range(steps):
        t0 = time.process_time()
        actions = _pick(obs["action_mask"], rng).tolist()
        t1 = time.process_time()
        done = v._done.tolist()
        ended = np.zeros(num_envs, bool)
        for i, g in enumerate(v._games):
            if done[i]:
                g.reset(None)
                continue
            _r, term, trunc, _ill = g.step(actions[i])
            ended[i] = term or trunc
        v._done = ended
        t2 = time.process_time()
        obs = v._observations()
        t3 = time.process_time()
        spent["picks"] += t1 - t0
        spent["games"] += t2 - t1
        spent["observations"] += t3 - t2
    return {k: round(x / (steps * num_envs) * 1e6, 2) for k, x in spent.items()}


def baselines(seconds: float) -> dict:
    """PettingZoo's ``tictactoe_v3`` and OpenSpiel's C++ ``tic_tac_toe``, steps per CPU second."""
    tools = Path(__file__).resolve().parent
    sys.path.insert(0, str(tools))
    out: dict = {}
    try:
        from bench_pettingzoo import steps_per_second as aec_rate
        from pettingzoo.classic import tictactoe_v3
    except ImportError as exc:  # PettingZoo's classic games import pygame
        out["pettingzoo_tictactoe_v3"] = f"not measured: {exc}"
    else:
        out["pettingzoo_tictactoe_v3"] = aec_rate(tictactoe_v3.env, seconds)
    try:
        import pyspiel
        from bench_openspiel import steps_per_second as spiel_rate
    except ImportError as exc:
        out["openspiel_cpp_tic_tac_toe"] = f"not measured: {exc}"
    else:
        out["openspiel_cpp_tic_tac_toe"] = round(spiel_rate(pyspiel.load_game("tic_tac_toe"), seconds))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", default="tic_tac_toe")
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--no-baselines", action="store_true", help="Leave out PettingZoo's and OpenSpiel's own games.")
    parser.add_argument("--split", action="store_true", help="Add where a vector step's time goes.")
    args = parser.parse_args()
    vector = vector_rate(args.ruleset, args.num_envs, args.seconds)
    out = {"ruleset": args.ruleset, "vector": vector,
           "single_steps_per_second": single_rate(args.ruleset, args.seconds), "target_vector_steps_per_second": 100_000}
    if args.split:
        out["vector_microseconds_per_step"] = split(args.ruleset, args.num_envs)
    if not args.no_baselines:
        base = out["baselines"] = baselines(args.seconds)
        rate = vector["steps_per_second"]
        out["vector_over_baseline"] = {k: round(rate / v, 2) for k, v in base.items() if isinstance(v, (int, float))}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
