"""perft (interpreter/analysis/simulate.py) counts what a plain walk of the tree counts, with
bulk counting one step above the depth and a transposition table (issue 24: perft's own loop)."""

from __future__ import annotations

import pytest

from interpreter import load_ruleset
from interpreter.analysis.simulate import PerftTable, perft


def _walk(st, depth):
    """The reference: every node built, nothing remembered (perft before its savings)."""
    leaves = nodes = 0
    stack = [(st, depth)]
    while stack:
        s, d = stack.pop()
        nodes += 1
        if s.finished or d == 0:
            leaves += 1
            continue
        d = None if d is None else d - 1
        for a in s.legal_actions():
            child = s.clone()
            child.apply(a)
            stack.append((child, d))
    return leaves, nodes


@pytest.mark.parametrize("name, depth, chance", [
    ("tic_tac_toe", 5, "sample"), ("connect_four", 4, "sample"), ("beer_flights", 6, "sample"),
    ("kuhn_poker", None, "explicit"), ("beer_knight", 3, "sample"), ("drink_and_beat", 3, "sample"),
])
def test_perft_counts_what_a_plain_walk_counts(name, depth, chance):
    rs = load_ruleset(name)
    want = _walk(rs.new_game(rs.default_players, seed=3, chance=chance), depth)
    for table in (None, PerftTable(), PerftTable(max_bytes=0), PerftTable(probe=10, min_hits=1.0)):
        assert perft(rs.new_game(rs.default_players, seed=3, chance=chance), depth, table) == want


def test_complete_tic_tac_toe_and_connect_four_to_depth_six():
    # 255,168 complete games of tic-tac-toe (the known count); Connect Four's 117,649 at depth 6
    # is OpenSpiel's (no game ends before move 7), so every node above the leaves is 8 + ... + 7^5.
    ttt, c4 = load_ruleset("tic_tac_toe"), load_ruleset("connect_four")
    table = PerftTable()
    assert perft(ttt.new_game(2), None, table) == (255168, 549946)
    assert table.on and table.hits > 0 and len(table.entries) < 10000  # 5,478 positions, reached by many orders
    assert perft(c4.new_game(2), 6, PerftTable()) == (117649, sum(7**k for k in range(7)))


def test_the_table_turns_itself_off_where_positions_do_not_repeat():
    rs = load_ruleset("tic_tac_toe")
    table = PerftTable(probe=20, min_hits=1.0)  # asks for more repeats than there can be
    assert perft(rs.new_game(2), None, table) == (255168, 549946)
    assert not table.on and not table.entries
    assert table.key(rs.new_game(2), None) is None


def test_positions_with_the_same_board_but_another_future_are_not_confused():
    # The same marks reached with a different player to move are different positions: the key
    # is the whole saved state, not the board.
    rs = load_ruleset("tic_tac_toe")
    a, b = rs.new_game(2), rs.new_game(2)
    table = PerftTable()
    for s, moves in ((a, [0, 1, 2]), (b, [2, 1, 0])):
        for m in moves:
            s.apply(s.legal_actions()[m if m < len(s.legal_actions()) else 0])
    assert (table.key(a, 3) == table.key(b, 3)) == (a.to_json()["zones"] == b.to_json()["zones"]
                                                    and a.to_json()["vars"] == b.to_json()["vars"]
                                                    and a.current == b.current)
    assert table.key(a, 3) != table.key(a, 4)
