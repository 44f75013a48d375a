"""Benchmark of loading a ruleset into OpenSpiel (issue 47): for each ruleset, the wall seconds of
``load_ruleset`` and of ``interop.openspiel.load_game`` after it, cold (a fresh process and an
empty cache: the encoding's seeded playouts are played) and warm (a fresh process reading what
an earlier load stored in ``$TAPSTER_CACHE_DIR/results``).  Prints one JSON object.

    python tools/bench_load_game.py [RULESET ...] [--repeat 3]

Each figure is the best of ``--repeat`` runs, each in its own process (so no in-process cache
helps), in wall seconds (this machine is shared and noisy: the best run is the least disturbed).
Without RULESET, every shipped ruleset.  ``load_game`` cold is dominated by the encoding's 32
seeded random playouts (``interpreter/interop/encoding.py``, "How the index spaces are built");
warm, by reading and decoding their stored findings.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: One measurement, run in a child process: prints [load_ruleset seconds, load_game seconds].
_CHILD = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
from interpreter import load_ruleset
t0 = time.perf_counter()
load_ruleset(sys.argv[1])
t1 = time.perf_counter()
from interpreter.interop.openspiel import load_game
t2 = time.perf_counter()
load_game(sys.argv[1])
t3 = time.perf_counter()
print(json.dumps([t1 - t0, t3 - t2]))
"""


def measure(name: str, cache: str) -> tuple[float, float]:
    """(load_ruleset, load_game) wall seconds of ``name`` in a fresh process whose cache folder
    is ``cache`` (empty text: no cache)."""
    env = {**os.environ, "TAPSTER_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", _CHILD, name], env=env, capture_output=True, text=True, check=True)
    first, second = json.loads(proc.stdout.strip().splitlines()[-1])
    return first, second


def main() -> None:
    from interpreter import available_rulesets

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rulesets", nargs="*")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    out = {}
    for name in args.rulesets or available_rulesets():
        cold, warm, ruleset = [], [], []
        for _ in range(max(1, args.repeat)):
            with tempfile.TemporaryDirectory(prefix="tapster-bench-") as d:
                cache = str(Path(d) / "cache")
                r, g = measure(name, cache)  # an empty cache: the playouts are played and stored
                ruleset.append(r)
                cold.append(g)
                r, g = measure(name, cache)  # the same files and engine: the stored findings
                ruleset.append(r)
                warm.append(g)
        out[name] = {"load_ruleset": round(min(ruleset), 3), "load_game_cold": round(min(cold), 3),
                     "load_game_warm": round(min(warm), 3)}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
