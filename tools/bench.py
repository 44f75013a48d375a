"""Benchmark: random-agent playouts per second for every shipped ruleset and variant, in one
process, side by side with hand-written plain-Python versions (tools/beer_flights_plain.py,
tools/tic_tac_toe_plain.py) as the speed limit; clone cost and memory per game state; perft;
import, load and validate times.  Prints one JSON object.

    python tools/bench.py [--seconds 2.0] [--players N] [--perft-depth 7] [--quick]

Each rate is the best of three timed runs of about ``--seconds / 3`` each, timed in process
CPU time (this machine is shared and noisy: a run only ever slows down, and CPU time ignores
the time another process held the core).  ``ratio`` is hand-written / interpreter with the
same player count: how many times slower the interpreter is than plain Python.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
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


def state_costs(name: str, variant: str | None, players: int | None) -> dict:
    """Clone time (µs, best of 5 × 200) and memory (bytes a clone allocates) of a state a few
    random moves into a game."""
    rs = load_ruleset(name, variant)
    n = players if players and rs.min_players <= players <= rs.max_players else rs.default_players
    st = rs.new_game(n, seed=3)
    agent = Rng(3)
    for _ in range(12):
        if st.finished:
            break
        legal = st.legal_actions()
        st.apply(legal[agent.below(len(legal))])
    best = float("inf")
    for _ in range(5):
        t0 = time.process_time()
        for _ in range(200):
            st.clone()
        best = min(best, (time.process_time() - t0) / 200)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    twin = st.clone()
    size = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del twin
    return {"clone_us": round(best * 1e6, 1), "state_bytes": size}


def _process_seconds(code: str) -> float:
    """Wall time of a fresh ``python -c code`` (best of three)."""
    best = float("inf")
    # Bytecode caches as an installed package has them (some shells set PYTHONDONTWRITEBYTECODE).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, cwd=ROOT, env=env)
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, cwd=ROOT, env=env)
        best = min(best, time.perf_counter() - t0)
    return best


def cold_start() -> dict:
    """Import, load and validate times, each in a fresh process (warm disk and caches)."""
    base = _process_seconds("pass")
    out = {"import_ms": round((_process_seconds("import interpreter") - base) * 1000)}
    for name in available_rulesets():
        load = _process_seconds(f"from interpreter import load_ruleset; load_ruleset({name!r})")
        out[f"load_ms:{name}"] = round((load - base) * 1000 - out["import_ms"])
        code = f"import sys; from interpreter.cli import main; sys.exit(main(['validate', {name!r}]))"
        out[f"validate_s:{name}"] = round(_process_seconds(code), 2)
    return out


def perft_figures(depth: int) -> dict:
    """Complete-game perft of tic-tac-toe (Tapster and by hand) and Connect Four to ``depth``."""
    import tic_tac_toe_plain as ttt

    from interpreter.cli import perft

    out = {}
    t0 = time.process_time()
    leaves, nodes = perft(load_ruleset("tic_tac_toe").new_game(2), None)
    out["tic_tac_toe"] = {"leaves": leaves, "nodes": nodes, "seconds": round(time.process_time() - t0, 2)}
    t0 = time.process_time()
    out["tic_tac_toe_hand_written"] = {"leaves": ttt.perft(), "seconds": round(time.process_time() - t0, 2)}
    if "connect_four" in available_rulesets():
        t0 = time.process_time()
        leaves, nodes = perft(load_ruleset("connect_four").new_game(2), depth)
        out["connect_four"] = {"depth": depth, "leaves": leaves, "nodes": nodes,
                               "seconds": round(time.process_time() - t0, 2)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="time per figure (default 2)")
    ap.add_argument("--players", type=int, default=4, help="players where the ruleset allows (default 4)")
    ap.add_argument("--perft-depth", type=int, default=7, help="Connect Four perft depth (default 7)")
    ap.add_argument("--quick", action="store_true", help="playouts and ratios only")
    args = ap.parse_args(argv)

    import beer_flights_plain as plain
    import tic_tac_toe_plain as ttt

    results: dict = {"interpreter": {}}
    for name in available_rulesets():
        rs = load_ruleset(name)
        for variant in [None, *rs.variants]:
            key = name if variant is None else f"{name}:{variant}"
            results["interpreter"][key] = interpreter_rate(name, variant, args.players, args.seconds)
            if not args.quick:
                results["interpreter"][key].update(state_costs(name, variant, args.players))
    deck = plain.load_deck()
    hand: dict = {}
    for players in (2, 4):
        agent = Rng(1)
        rate = _rate(lambda i: plain.playout(deck, players, i, agent), args.seconds)  # noqa: B023
        mine = interpreter_rate("beer_flights", None, players, args.seconds)["playouts_per_s"]
        hand[f"beer_flights_{players}p"] = {
            "hand_written_per_s": round(rate, 1), "tapster_per_s": mine, "ratio": round(rate / mine, 2)}
    agent = Rng(1)
    rate = _rate(lambda i: ttt.playout(agent), args.seconds)
    mine = interpreter_rate("tic_tac_toe", None, 2, args.seconds)["playouts_per_s"]
    hand["tic_tac_toe"] = {"hand_written_per_s": round(rate, 1), "tapster_per_s": mine, "ratio": round(rate / mine, 2)}
    results["side_by_side"] = hand
    if not args.quick:
        results["perft"] = perft_figures(args.perft_depth)
        results["cold_start"] = cold_start()
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
