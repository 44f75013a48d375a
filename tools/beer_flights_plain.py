"""Beer Flights written by hand in plain Python: the speed limit the interpreter is measured
against (tools/bench.py).

Same rules, same decision structure and the same random agent as the ruleset
(rulesets/beer_flights/ruleset.yaml): take the discard or draw two; keep one of the two; place
the card (start a flight, front, back, or Trash).  Written as a reasonable programmer would,
not golfed: legal actions are listed at every decision, as the interpreter does.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interpreter.rng import Rng, below, seed_state  # noqa: E402

DECK_FILE = Path(__file__).resolve().parent.parent / "rulesets" / "beer_flights" / "cards.csv"


def load_deck() -> list[tuple[int, str, int]]:
    """The 76 cards as (rank, type, hops)."""
    lines = [ln for ln in DECK_FILE.read_text().splitlines() if ln and not ln.startswith("#")]
    return [(int(r["rank"]), r["type"], int(r["hops"])) for r in csv.DictReader(lines)]


def shuffle(items: list, state: int) -> int:
    """Fisher-Yates with the same generator as the interpreter; returns the new state."""
    for i in range(len(items) - 1, 0, -1):
        state, j = below(state, i + 1)
        items[i], items[j] = items[j], items[i]
    return state


def placements(card, flights, flight_size):
    """The legal places for ``card``: ('start', i), ('front', i), ('back', i), ('trash',)."""
    out = []
    for i, f in enumerate(flights):
        if not f:
            if i == 0 or flights[i - 1]:
                out.append(("start", i))
    for end in ("front", "back"):
        for i, f in enumerate(flights):
            if 0 < len(f) < flight_size and all(c[1] != card[1] for c in f):
                if (end == "front" and card[0] < f[0][0]) or (end == "back" and card[0] > f[-1][0]):
                    out.append((end, i))
    out.append(("trash",))
    return out


def playout(deck_cards, players: int, seed: int, agent: Rng, turns=10, n_flights=2, flight_size=5):
    """One random game; returns the scores."""
    state = seed_state(seed)
    deck = list(deck_cards)
    state = shuffle(deck, state)
    state, first = below(state, players)
    discard: list = []
    flights = [[[] for _ in range(n_flights)] for _ in range(players)]
    trash = [[] for _ in range(players)]
    for _ in range(turns):
        for k in range(players):
            p = (first + k) % players
            options = ["take", "draw"] if discard else ["draw"]
            if agent.choice(options) == "take":
                card = discard.pop()
            else:
                drawn = []
                for _ in range(2):
                    if not deck:
                        deck, discard = discard, []
                        state = shuffle(deck, state)
                    if deck:
                        drawn.append(deck.pop())
                card = agent.choice(drawn)
                drawn.remove(card)
                discard.extend(drawn)
            place = agent.choice(placements(card, flights[p], flight_size))
            if place[0] == "trash":
                trash[p].append(card)
            elif place[0] == "front":
                flights[p][place[1]].insert(0, card)
            else:
                flights[p][place[1]].append(card)
    return [sum(c[2] for f in flights[p] for c in f) - sum(c[2] for c in trash[p]) for p in range(players)]


def main() -> None:
    import time

    deck = load_deck()
    agent = Rng(1)
    n = 2000
    t = time.perf_counter()
    for i in range(n):
        playout(deck, 4, i, agent)
    dt = time.perf_counter() - t
    print(f"{n / dt:.0f} playouts/s (4 players)")


if __name__ == "__main__":
    main()
