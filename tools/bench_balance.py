"""Games per second of ``tapster analyse`` on this machine: in-process (1 job), a local pool of
2 processes, and Ray (2 CPUs; its start-up measured apart), for a few rulesets with random
agents.  The numbers are the same for every backend (checked here too).

    python tools/bench_balance.py [--games N]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from interpreter.analysis.balance import Tally, metrics
from interpreter.analysis.runner import play_run
from interpreter.analysis.simulate import SimSpec
from interpreter.compile.compiler import load_ruleset


def measure(name: str, games: int, jobs: int, backend: str) -> tuple[float, str]:
    rs = load_ruleset(name)
    n = rs.default_players
    spec = SimSpec(str(Path(rs.path).resolve()), None, (), n, 1, ("random",) * n)
    t = Tally(n)
    start = time.perf_counter()
    play_run(spec, range(games), t, jobs=jobs, backend=backend, ruleset=rs)
    return games / (time.perf_counter() - start), json.dumps(metrics(t))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--rulesets", default="beer_flights,drink_and_beat,beer_knight")
    ap.add_argument("--no-ray", action="store_true", help="leave Ray out (its start-up takes seconds)")
    args = ap.parse_args()
    ray = None
    if not args.no_ray:
        try:
            import ray
        except ImportError:
            print("Ray not installed: pip install 'tapster[ray]'")
    if ray is not None:
        start = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
                 runtime_env={"py_modules": [str(Path(__file__).resolve().parent.parent / "interpreter")]})
        ray.get(ray.remote(lambda: 0).remote())
        print(f"Ray start-up: {time.perf_counter() - start:.1f} s")
    ray_column = f"{'Ray (2 CPUs)':>14}" if ray is not None else ""
    print(f"{'ruleset':<16}{'1 process':>12}{'2 processes':>14}{ray_column}  games/s, {args.games} games")
    for name in args.rulesets.split(","):
        one, m1 = measure(name, args.games, 1, "local")
        two, m2 = measure(name, args.games, 2, "local")
        row = f"{name:<16}{one:>12.0f}{two:>14.0f}"
        if ray is not None:
            r, m3 = measure(name, args.games, 2, "ray")
            assert m3 == m1
            row += f"{r:>14.0f}"
        assert m1 == m2
        print(row)
    if ray is not None:
        ray.shutdown()


if __name__ == "__main__":
    main()
