"""Tic-tac-toe written by hand in plain Python, as lean as it can be: the speed limit the
interpreter is measured against (tools/bench.py).

A random playout chooses every mark uniformly among the empty cells (one decision per mark, as
the ruleset rulesets/tic_tac_toe/ruleset.yaml asks for), and the win is checked after every mark
from the fifth on, only along the lines through the cell just marked.  Boards are two bit masks.
"""

from __future__ import annotations

import random

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
# the line masks through each cell
_WINS_AT = tuple(tuple(sum(1 << i for i in line) for line in LINES if c in line) for c in range(9))
_BIT = tuple(1 << c for c in range(9))


def playout(rng: random.Random) -> tuple[int | None, int]:
    """One random game: (the winner's seat or None for a draw, decisions taken)."""
    rnd = rng.random
    free = [0, 1, 2, 3, 4, 5, 6, 7, 8]
    masks = [0, 0]
    wins_at = _WINS_AT
    bit = _BIT
    n = 9
    while n:
        i = int(rnd() * n)
        n -= 1
        cell = free[i]
        free[i] = free[n]
        player = n & 1              # n = 8 after the first mark: seat 0 (X) moves first
        m = masks[player] | bit[cell]
        masks[player] = m
        if n <= 4:
            for w in wins_at[cell]:
                if m & w == w:
                    return player, 9 - n
    return None, 9


def playout_as_written(rng: random.Random) -> tuple[int | None, int]:
    """One random game played by the ruleset's own rules as written, in lean plain Python: the
    board a list of nine seats (-1 empty), the player to move found by counting the empty cells,
    the empty cells listed at every decision, and all eight lines checked after every mark (no
    bit masks, no check limited to the lines through the last cell).  Not the speed limit
    (:func:`playout` is): the cost of the ruleset's logic itself, so that ``tools/bench.py`` can
    tell the interpreter's own overhead (Tapster against this) from what a hand-written
    algorithm saves (this against :func:`playout`).  Returns (the winner's seat or None for a
    draw, decisions taken)."""
    rnd = rng.random
    b = [-1] * 9
    d = 0
    while -1 in b:
        c = (9 - b.count(-1)) % 2
        legal = [cell for cell in range(9) if b[cell] == -1]
        b[legal[int(rnd() * len(legal))]] = c
        d += 1
        if ((b[0] == c and b[1] == c and b[2] == c) or (b[3] == c and b[4] == c and b[5] == c)
                or (b[6] == c and b[7] == c and b[8] == c) or (b[0] == c and b[3] == c and b[6] == c)
                or (b[1] == c and b[4] == c and b[7] == c) or (b[2] == c and b[5] == c and b[8] == c)
                or (b[0] == c and b[4] == c and b[8] == c) or (b[2] == c and b[4] == c and b[6] == c)):
            return c, d
    return None, d


def perft(board: list | None = None, player: int = 0) -> int:
    """The number of complete games from ``board`` (255168 from the empty board)."""
    board = board if board is not None else [-1] * 9
    total = 0
    for cell in range(9):
        if board[cell] != -1:
            continue
        board[cell] = player
        if any(all(board[i] == player for i in line) for line in LINES) or -1 not in board:
            total += 1
        else:
            total += perft(board, 1 - player)
        board[cell] = -1
    return total


def main(argv: list[str] | None = None) -> None:
    """Print playouts per second of ``--games N`` seeded random playouts (default 100_000)."""
    import argparse
    import time

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000, help="playouts to time")
    n = ap.parse_args(argv).games

    rng = random.Random(1)
    t = time.process_time()
    for _ in range(n):
        playout(rng)
    print(f"{n / (time.process_time() - t):,.0f} playouts/s")


if __name__ == "__main__":
    main()
