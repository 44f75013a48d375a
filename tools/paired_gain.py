"""How many games a paired comparison needs against an unpaired one for the same interval.

Plays the two sides of a comparison once (game i of each seeded ``(SEED, i)``), compares them
both ways (:func:`interpreter.analysis.balance.compare` with and without pairs) and prints, per metric,
the two 95% half-widths of the difference and the ratio of games an unpaired comparison needs
for the paired one's interval, ``(unpaired half-width / paired half-width) ** 2`` (a half-width
shrinks as 1/sqrt(games)).

    python tools/paired_gain.py beer_flights base turns=8 --games 2000 --agents random
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from interpreter.analysis.balance import PerGame, Tally, compare
from interpreter.analysis.runner import play_run
from interpreter.analysis.simulate import SimSpec
from interpreter.compile.compiler import find_ruleset, load_ruleset


def side(text: str) -> tuple[str | None, dict]:
    """``base``, a variant and/or NAME=VALUE (YAML values) joined by commas."""
    import yaml

    variant, params = None, {}
    for part in [p for p in text.split(",") if p and p != "base"]:
        if "=" in part:
            k, v = part.split("=", 1)
            params[k] = yaml.safe_load(v)
        else:
            variant = part
    return variant, params


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ruleset")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--agents", default="random")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    path = str(Path(find_ruleset(args.ruleset)).resolve())
    sides = []
    for text in (args.a, args.b):
        variant, params = side(text)
        rs = load_ruleset(path, variant, {"params": params} if params else None)
        n = rs.default_players
        spec = SimSpec(path, variant, tuple(sorted(params.items())), n, args.seed, tuple([args.agents] * n))
        tally, per_game = Tally(n), PerGame(n)
        play_run(spec, range(args.games), tally, jobs=args.jobs, ruleset=rs, export=per_game.add)
        sides.append((tally, per_game))
    (ta, pa), (tb, pb) = sides
    rows = []
    for u, p in zip(compare(ta, tb), compare(ta, tb, pairs=(pa, pb))):
        hu, hp = (u["difference"]["high"] - u["difference"]["low"]) / 2, (p["difference"]["high"] - p["difference"]["low"]) / 2
        ratio = (hu / hp) ** 2 if hp > 0 and hu < float("inf") else None
        rows.append({"metric": u["key"], "unpaired": hu, "paired": hp, "unpaired_games_per_paired_game": ratio,
                     "tests": [u["test"], p["test"]]})
    if args.json:
        print(json.dumps({"ruleset": args.ruleset, "a": args.a, "b": args.b, "games": args.games, "rows": rows}, indent=1))
        return
    print(f"{args.ruleset}: {args.a} vs {args.b}, {args.games} games per side, seed {args.seed}, {args.agents} agents")
    print(f"{'metric':<16}{'unpaired ±':>12}{'paired ±':>12}{'games ratio':>13}  tests")
    for r in rows:
        ratio = "n/a" if r["unpaired_games_per_paired_game"] is None else f"{r['unpaired_games_per_paired_game']:.2f}"
        print(f"{r['metric']:<16}{r['unpaired']:>12.4g}{r['paired']:>12.4g}{ratio:>13}  {' / '.join(r['tests'])}")


if __name__ == "__main__":
    main()
