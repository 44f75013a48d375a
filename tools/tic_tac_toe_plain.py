"""Tic-tac-toe written by hand in plain Python: the speed limit the interpreter is measured
against (tools/bench.py), with the same decision structure and random agent as the ruleset
(rulesets/tic_tac_toe/ruleset.yaml): legal actions listed at every decision, the win checked
after every mark, written as a reasonable programmer would, not golfed.
"""

from __future__ import annotations

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def playout(agent) -> int | None:
    """One random game; the winner's seat, or None for a draw."""
    board = [-1] * 9
    for turn in range(9):
        player = turn % 2
        legal = [cell for cell in range(9) if board[cell] == -1]
        cell = legal[agent.below(len(legal))]
        board[cell] = player
        if any(all(board[i] == player for i in line) for line in LINES):
            return player
    return None


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
