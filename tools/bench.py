"""Benchmark: random playouts per second, hand-written plain Python against Tapster, side by side.

    python tools/bench.py [--seconds 2.0 | --games N] [--quick] [--json] [--players 4] [--perft-depth 7]

For every game with a hand-written baseline - tic-tac-toe, Beer Flights with 2 and 4 players,
Beer Knight with 2, Belgian Beers Race with 3 (tools/*_plain.py, each as lean as plain Python
gets) - the same run measures three sides, alternately, with the same kind of random agent (every
decision uniform among the legal actions): the hand-written game, ``tapster`` (the fastest path a
random playout takes, the one ``simulate`` and the search agents' rollouts use: decisions taken
inside the generated code, :mod:`interpreter.engine.playout`) and ``tapster_api``
(``legal_actions`` + ``apply`` at every decision, as a researcher's own loop does); it prints
games/s and decisions/s of each and the ratios (hand-written / Tapster: how many times slower
the interpreter is; ``side_by_side[i].tapster_api`` in ``--json``).  A decision is
one pending choice of the ruleset (one ``apply``), one with a single legal action included; the
baselines count theirs the same way.  One more row, ``tic-tac-toe, rules as written``, plays
the ruleset's own logic in lean plain Python (a list board, the player found by counting, all
eight lines checked after every mark: ``tic_tac_toe_plain.playout_as_written``): against it the
ratio is the interpreter's own overhead, apart from what the hand-written algorithm (bit masks,
only the lines through the last mark) saves.  The full run (without ``--quick``) adds playouts per
second for every shipped ruleset and variant, clone cost and memory of a state, perft, and
import, load and validate times.

With ``--seconds S`` each rate is the best of three timed runs of about S / 3 each; with
``--games N`` each of the three runs plays N / 3 games (at least one).  Times are process CPU
time: this machine is shared and noisy, a run only ever slows down, and CPU time ignores the
time another process held the core.  ``--quick`` measures only the side-by-side table (0.6 s a
figure unless ``--seconds`` or ``--games`` says otherwise).  ``--json`` prints one JSON object
instead of the table.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from interpreter import available_rulesets, load_ruleset  # noqa: E402
from interpreter.engine.rng import Rng  # noqa: E402


def _run(run_one, budget: tuple[str, float], start: int) -> tuple[float, int, int]:
    """Play games ``run_one(i) -> decisions`` (i = start, start + 1, ...) until ``budget``
    (``("seconds", s)`` of process CPU time or ``("games", n)``) is spent; return (CPU seconds,
    games, decisions)."""
    kind, amount = budget
    games = decisions = 0
    t0 = time.process_time()
    while True:
        decisions += run_one(start + games)
        games += 1
        dt = time.process_time() - t0
        if (dt >= amount) if kind == "seconds" else (games >= amount):
            return max(dt, 1e-9), games, decisions


def _best_rates(sides: list, budget: tuple[str, float]) -> list[dict]:
    """For each ``run_one`` in ``sides``, the best games/s and decisions/s of three runs of a third
    of ``budget`` each, the sides taking turns (so a slow spell on the shared box hits both)."""
    kind, amount = budget
    third = (kind, amount / 3 if kind == "seconds" else max(1, round(amount / 3)))
    best = [{"games_per_s": 0.0, "decisions_per_s": 0.0} for _ in sides]
    start = [0] * len(sides)
    for _ in range(3):
        for k, run_one in enumerate(sides):
            dt, games, decisions = _run(run_one, third, start[k])
            start[k] += games
            best[k]["games_per_s"] = max(best[k]["games_per_s"], games / dt)
            best[k]["decisions_per_s"] = max(best[k]["decisions_per_s"], decisions / dt)
    return [{k: round(v, 1) for k, v in b.items()} for b in best]


def tapster_playout(name: str, variant: str | None, players: int):
    """``run_one(i)``: one random game of the ruleset with seed ``i`` on the fastest path a random
    playout takes, the one ``tapster simulate`` and the search agents' rollouts use
    (:func:`interpreter.engine.playout.playout`: each decision taken inside the generated code,
    uniform among the legal actions, from one agent generator); returns the decisions taken."""
    from interpreter.engine.playout import playout

    rs = load_ruleset(name, variant)
    agent = Rng(1)
    below = agent.below
    taken = 0

    def pick(choose, actions, seats):
        nonlocal taken
        taken += 1
        return below(len(actions))

    def one(i: int) -> int:
        nonlocal taken
        taken = 0
        playout(rs.new_game(players, seed=i), pick)
        return taken

    return one


def tapster_api_playout(name: str, variant: str | None, players: int):
    """``run_one(i)``: one random game of the ruleset with seed ``i`` through the public API
    (``legal_actions`` and ``apply`` at every decision, as a researcher's loop does); returns
    the decisions taken."""
    rs = load_ruleset(name, variant)
    agent = Rng(1)

    def one(i: int) -> int:
        st = rs.new_game(players, seed=i)
        d = 0
        while not st.finished:
            legal = st.legal_actions()
            st.apply(legal[agent.below(len(legal))])
            d += 1
        return d

    return one


def hand_written_playouts() -> list[tuple[str, str, int, object]]:
    """The baselines as (label, ruleset, players, ``run_one(i) -> decisions``), data loaded once."""
    import beer_flights_plain as bf
    import beer_knight_plain as bk
    import belgian_beers_race_plain as bbr
    import tic_tac_toe_plain as ttt

    rng = random.Random(1)
    deck = bf.load_deck()
    knight = bk.load()
    race = bbr.load()
    return [
        ("tic-tac-toe", "tic_tac_toe", 2, lambda i: ttt.playout(rng)[1]),
        # the ruleset's own logic in lean plain Python (no bit masks): the interpreter's own
        # overhead, apart from what a hand-written algorithm saves (see playout_as_written)
        ("tic-tac-toe, rules as written", "tic_tac_toe", 2, lambda i: ttt.playout_as_written(rng)[1]),
        ("Beer Flights, 2 players", "beer_flights", 2, lambda i: bf.playout(deck, 2, rng)[2]),
        ("Beer Flights, 4 players", "beer_flights", 4, lambda i: bf.playout(deck, 4, rng)[2]),
        ("Beer Knight, 2 players", "beer_knight", 2, lambda i: bk.playout(knight, rng)[2]),
        ("Belgian Beers Race, 3 players", "belgian_beers_race", 3, lambda i: bbr.playout(race, rng, 3)[2]),
    ]


def side_by_side(budget: tuple[str, float]) -> list[dict]:
    """Every baseline against Tapster on the same game, measured in turns: one row a game."""
    rows = []
    for label, name, players, hand in hand_written_playouts():
        h, t, api = _best_rates([hand, tapster_playout(name, None, players), tapster_api_playout(name, None, players)], budget)
        rows.append({
            "game": label, "hand_written": h, "tapster": t,
            "ratio_games": round(h["games_per_s"] / t["games_per_s"], 2),
            "ratio_decisions": round(h["decisions_per_s"] / t["decisions_per_s"], 2),
            "tapster_api": dict(api, ratio_games=round(h["games_per_s"] / api["games_per_s"], 2),
                                ratio_decisions=round(h["decisions_per_s"] / api["decisions_per_s"], 2)),
        })
    return rows


def table(rows: list[dict]) -> str:
    """The side-by-side rows as a text table."""
    head = ("game", "hand games/s", "hand decisions/s", "Tapster games/s", "Tapster decisions/s",
            "ratio games", "ratio decisions", "API decisions/s", "API ratio decisions")
    lines = [head]
    for r in rows:
        h, t, api = r["hand_written"], r["tapster"], r["tapster_api"]
        lines.append((r["game"], f"{h['games_per_s']:,.0f}", f"{h['decisions_per_s']:,.0f}",
                      f"{t['games_per_s']:,.0f}", f"{t['decisions_per_s']:,.0f}",
                      f"{r['ratio_games']:.1f}x", f"{r['ratio_decisions']:.1f}x",
                      f"{api['decisions_per_s']:,.0f}", f"{api['ratio_decisions']:.1f}x"))
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    out = []
    for n, line in enumerate(lines):
        out.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths))))
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def interpreter_rate(name: str, variant: str | None, players: int | None, budget: tuple[str, float]) -> dict:
    """Random playouts per second (and decisions per second) of one ruleset and variant."""
    rs = load_ruleset(name, variant)
    n = players if players and rs.min_players <= players <= rs.max_players else rs.default_players
    (rate,) = _best_rates([tapster_playout(name, variant, n)], budget)
    return {"players": n, "playouts_per_s": rate["games_per_s"], "decisions_per_s": rate["decisions_per_s"]}


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
    how = ap.add_mutually_exclusive_group()
    how.add_argument("--seconds", type=float, help="CPU time per figure (default 2, or 0.6 with --quick)")
    how.add_argument("--games", type=int, help="games per figure instead of a time")
    ap.add_argument("--players", type=int, default=4, help="players where the ruleset allows, in the full list (default 4)")
    ap.add_argument("--perft-depth", type=int, default=7, help="Connect Four perft depth (default 7)")
    ap.add_argument("--quick", action="store_true", help="the side-by-side table only")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = ap.parse_args(argv)
    if args.games is not None and args.games < 1:
        ap.error("--games must be at least 1")
    if args.seconds is not None and args.seconds <= 0:
        ap.error("--seconds must be positive")
    if args.games is not None:
        budget = ("games", args.games)
    else:
        budget = ("seconds", args.seconds if args.seconds is not None else (0.6 if args.quick else 2.0))

    results: dict = {"side_by_side": side_by_side(budget)}
    if not args.json:
        print(table(results["side_by_side"]), flush=True)
    if not args.quick:
        results["interpreter"] = {}
        for name in available_rulesets():
            rs = load_ruleset(name)
            for variant in [None, *rs.variants]:
                key = name if variant is None else f"{name}:{variant}"
                results["interpreter"][key] = interpreter_rate(name, variant, args.players, budget)
                results["interpreter"][key].update(state_costs(name, variant, args.players))
        results["perft"] = perft_figures(args.perft_depth)
        results["cold_start"] = cold_start()
        if not args.json:
            rest = {k: v for k, v in results.items() if k != "side_by_side"}
            print(json.dumps(rest, indent=2))
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
