"""Digest of many random games of a ruleset: proof that a rewrite of its rules changed no game.

    python tools/game_digest.py beer_knight [--games 300] [--json] [--check tools/digests/beer_knight.json]
    python tools/game_digest.py belgian_beers_race --games 100 --write tools/digests/belgian_beers_race.json
    python tools/game_digest.py beer_knight --chance explicit --games 100 --check tools/digests/beer_knight.explicit.json

For the base game and every variant of the ruleset, and every player count the variant allows,
plays ``--games`` random playouts (seeds 0, 1, ...; each decision uniform among the legal
actions, drawn from one agent generator ``Rng(1)`` per variant and player count, as in
``tools/bench.py``'s ``tapster_playout``) with the game log recorded, and hashes into one SHA-256
per (variant, players): at every decision the deciding seats, every legal action and its readable
label, the prompt, and the action taken; then the whole log (who may read each line, and its text) and the
outcome (scores, ranking, winners, reason).  Two versions of a ruleset whose digests agree played
every one of those games identically, down to each option offered and each line written.

``--chance explicit`` plays with chance points (the mode the search agents use): each chance
point's outcomes and probabilities are hashed too, and the outcome is drawn from the same agent
generator, uniformly among the outcomes.

``--write FILE`` stores the digests as JSON; ``--check FILE`` compares with stored ones and exits
with status 1 naming every (variant, players) that differs (or is missing).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter import load_ruleset  # noqa: E402
from interpreter.engine.rng import Rng  # noqa: E402

BASE = "(base)"


def digest(name: str, variant: str | None, players: int, games: int, chance: str = "sample") -> str:
    """SHA-256 (hex) of ``games`` random games (seeds 0..games-1) of ``name`` / ``variant`` with
    ``players`` seats: decisions (seats, legal actions, labels, choice), chance points (explicit
    chance), log and outcome."""
    rs = load_ruleset(name, variant, chance=chance)
    agent = Rng(1)
    h = hashlib.sha256()
    for seed in range(games):
        st = rs.new_game(players, seed=seed, log=True)
        h.update(f"game {seed}\n".encode())
        while not st.finished:
            if st.is_chance():
                outcomes = st.chance_outcomes()
                k = agent.below(len(outcomes))
                h.update(repr(("chance", [(str(a), p) for a, p in outcomes], k)).encode())
                h.update(b"\n")
                st.apply(outcomes[k][0])
                continue
            d = st.decision()
            k = agent.below(len(d.actions))
            h.update(repr((d.players, [str(a) for a in d.actions], list(d.labels), d.prompt, d.name, k)).encode())
            h.update(b"\n")
            st.apply(d.actions[k])
        for to, text in st.log:
            h.update(repr((None if to is None else sorted(to), text)).encode())
            h.update(b"\n")
        h.update(json.dumps(st.outcome().to_json(), sort_keys=True).encode())
        h.update(b"\n")
    return h.hexdigest()


def all_digests(name: str, games: int, only: list[str] | None = None, verbose: bool = True, chance: str = "sample") -> dict:
    """``{variant or "(base)": {str(players): digest}}`` for the base game and every variant (or
    those in ``only``), every player count each allows."""
    base = load_ruleset(name)
    out = {}
    for variant in [None, *base.variants]:
        key = variant or BASE
        if only and key not in only:
            continue
        rs = load_ruleset(name, variant)
        out[key] = {}
        for n in range(rs.min_players, rs.max_players + 1):
            t0 = time.process_time()
            out[key][str(n)] = digest(name, variant, n, games, chance)
            if verbose:
                print(f"{key:>20} {n}p  {out[key][str(n)][:16]}  {time.process_time() - t0:6.1f} s", file=sys.stderr)
    return out


def main(argv: list[str] | None = None) -> int:
    """Command line: print, store or check the digests of one ruleset."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ruleset")
    ap.add_argument("--games", type=int, default=300, help="games per variant and player count (default 300)")
    ap.add_argument("--variant", action="append", help="only this variant (repeatable; '(base)' for the base game)")
    ap.add_argument("--chance", choices=("sample", "explicit"), default="sample", help="chance mode (default sample)")
    ap.add_argument("--write", metavar="FILE", help="store the digests as JSON")
    ap.add_argument("--check", metavar="FILE", help="compare with stored digests; exit 1 on any difference")
    args = ap.parse_args(argv)
    got = all_digests(args.ruleset, args.games, args.variant, chance=args.chance)
    record = {"ruleset": args.ruleset, "games": args.games, "chance": args.chance, "digests": got}
    if args.write:
        Path(args.write).parent.mkdir(parents=True, exist_ok=True)
        Path(args.write).write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    if args.check:
        want = json.loads(Path(args.check).read_text(encoding="utf-8"))
        if want["games"] != args.games or want.get("chance", "sample") != args.chance:
            print(f"stored digests are of {want['games']} games a count with {want.get('chance', 'sample')} chance, "
                  f"not {args.games} with {args.chance}", file=sys.stderr)
            return 1
        bad = [
            f"{v} {n}p" for v in got for n in got[v]
            if want["digests"].get(v, {}).get(n) != got[v][n]
        ]
        if bad:
            print("DIFFERENT: " + ", ".join(bad), file=sys.stderr)
            return 1
        print(f"same digests for {sum(len(d) for d in got.values())} (variant, players) pairs, {args.games} games each")
        return 0
    if not args.write:
        print(json.dumps(record, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
