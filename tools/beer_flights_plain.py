"""Beer Flights written by hand in plain Python, as lean as it can be: the speed limit the
interpreter is measured against (tools/bench.py).

Written from the rulebook (Beer Flights, Rules of Play 1.2) with the ruleset's card list
(rulesets/beer_flights/cards.csv, loaded once) and the decisions the ruleset asks for, each
chosen uniformly among the legal ones: take the discard or draw two (one decision, with one
option when the discard pile is empty); keep one of the two drawn; place the card (start the
next empty flight, join a flight at the front or the back - never both for one flight - or the
Trash).  A card is its rank (1-76); a flight is kept as its lowest and highest rank, its size
and a bit mask of the beer types in it, which is all the placing rules read.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

DECK_FILE = Path(__file__).resolve().parent.parent / "rulesets" / "beer_flights" / "cards.csv"


def load_deck(path: Path = DECK_FILE) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """The deck as (ranks, type bit by rank, hops by rank); the by-rank tuples have index 0 unused."""
    lines = [ln for ln in path.read_text().splitlines() if ln and not ln.startswith("#")]
    rows = [(int(r["rank"]), r["type"], int(r["hops"])) for r in csv.DictReader(lines)]
    types = sorted({t for _, t, _ in rows})
    top = max(r for r, _, _ in rows)
    tbit = [0] * (top + 1)
    hops = [0] * (top + 1)
    for rank, t, h in rows:
        tbit[rank] = 1 << types.index(t)
        hops[rank] = h
    return tuple(r for r, _, _ in rows), tuple(tbit), tuple(hops)


def playout(deck_data, players: int, rng: random.Random, turns: int = 10, flights: int = 2,
            flight_size: int = 5) -> tuple[list[int], list[int], int]:
    """One random game of ``players`` seats: (winners, scores, decisions taken).

    Scoring (p.7): the Hops in a player's flights minus the Hops in their Trash; a tie goes to
    the single highest-ranked card in the flights (the ruleset's reading); still level, shared.
    """
    ranks, tbit, hops = deck_data
    rnd = rng.random

    def shuffle(x):
        """Fisher-Yates from the generator's floats (random.shuffle's integer draws cost more)."""
        for i in range(len(x) - 1, 0, -1):
            j = int(rnd() * (i + 1))
            x[i], x[j] = x[j], x[i]
    deck = list(ranks)
    shuffle(deck)
    discard: list[int] = []
    first = int(rnd() * players)
    nf = players * flights
    lo = [0] * nf
    hi = [0] * nf
    size = [0] * nf
    tmask = [0] * nf
    score = [0] * players
    opts = [0] * (flights + 1)
    decisions = 0
    for _ in range(turns):
        for k in range(players):
            p = first + k
            if p >= players:
                p -= players
            # take the top of the discard pile, or draw two and keep one
            decisions += 1
            if discard and rnd() < 0.5:
                card = discard.pop()
            else:
                if not deck:
                    deck, discard = discard, []
                    shuffle(deck)
                card = deck.pop()
                if not deck:
                    deck, discard = discard, []
                    shuffle(deck)
                decisions += 1
                if deck:
                    other = deck.pop()
                    if rnd() < 0.5:
                        card, other = other, card
                    discard.append(other)
            # place it: the legal flights, then the Trash
            decisions += 1
            t = tbit[card]
            n = 0
            j = p * flights
            for i in range(j, j + flights):
                s = size[i]
                if s == 0:
                    if i == j or size[i - 1]:
                        opts[n] = i
                        n += 1
                elif s < flight_size and not tmask[i] & t and (card < lo[i] or card > hi[i]):
                    opts[n] = i
                    n += 1
            x = int(rnd() * (n + 1))
            if x == n:
                score[p] -= hops[card]
            else:
                i = opts[x]
                s = size[i]
                if s == 0:
                    lo[i] = hi[i] = card
                elif card < lo[i]:
                    lo[i] = card
                else:
                    hi[i] = card
                size[i] = s + 1
                tmask[i] |= t
                score[p] += hops[card]
    best = max(score)
    tied = [p for p in range(players) if score[p] == best]
    if len(tied) > 1:
        top = {p: max(hi[p * flights:(p + 1) * flights]) for p in tied}
        m = max(top.values())
        tied = [p for p in tied if top[p] == m]
    return tied, score, decisions


def main(argv: list[str] | None = None) -> None:
    """Print playouts per second of ``--games N`` seeded random playouts (default 20_000)."""
    import argparse
    import time

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20_000, help="playouts to time")
    n = ap.parse_args(argv).games

    deck = load_deck()
    for players in (2, 4):
        rng = random.Random(1)
        d = 0
        t = time.process_time()
        for _ in range(n):
            d += playout(deck, players, rng)[2]
        dt = time.process_time() - t
        print(f"{players} players: {n / dt:,.0f} playouts/s, {d / dt:,.0f} decisions/s")


if __name__ == "__main__":
    main()
