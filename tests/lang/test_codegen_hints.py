"""What the code generator knows of a value's type without being told: a map attribute that is
a whole number on every edge, and the hint a variable's declared whole numbers give
(:attr:`interpreter.lang.frags.Frag.num`).  A hint only ever decides how fast an expression
runs, never its value: where the value is not what the hint says, the generated code raises and
the checked evaluator gives the value (or the error) as it always did."""

from __future__ import annotations

import pytest

from interpreter import load_ruleset
from interpreter.errors import ExpressionError
from interpreter.lang.frags import numeric_depth
from tests.lang.test_codegen import _both


def _source(rs) -> str:
    return "\n".join(src for _, src in rs.sources)


def _out(path) -> tuple:
    """A new game of the ruleset at ``path``: (its variable ``out``, or ``error: `` and the
    error's message without its place; the generated source)."""
    rs = load_ruleset(path)
    try:
        return rs.new_game(2).vars["out"], _source(rs)
    except ExpressionError as exc:
        return "error: " + str(exc).split(": ", 1)[1], _source(rs)


@pytest.mark.parametrize(("value", "depth"), [
    (3, 0), ([1, 2], 1), ([[0, 1], [2, 3]], 2), (True, None), ("3", None), ([], None), ([1, "a"], None),
    ([[1], 2], None), (None, None), (1.5, None),
])
def test_numeric_depth_reads_the_declared_value(value, depth):
    assert numeric_depth(value) == depth


RULESET = """name: Hints
players: {min: 2, max: 2}
vars:
  n: {initial: 3}
  per: {per_player: true, initial: 4}
  out: {initial: none}
flow:
  - set: {n: "%s"}
  - set: {out: "%s"}
  - end_game: done
outcome:
  score: "0"
"""


def _play(tmp_path, first: str, then: str):
    (tmp_path / "ruleset.yaml").write_text(RULESET % (first, then))

    return lambda: _out(tmp_path / "ruleset.yaml")[0]


@pytest.mark.parametrize(("first", "then", "expected"), [
    ("5", "n + per[1] * 2", 13),  # the hint holds: numbers
    ("[1, 2]", "n + [3]", [1, 2, 3]),  # declared a number, holds a list now: the sum is still a list
    ("'ab'", "n + 'c'", "abc"),  # a text
    ("'ab'", "n * 2", "abab"),  # a text repeated
    ("2.5", "n * 2 + per[0]", 9.0),  # a fraction
    ("[1]", "n * 3", [1, 1, 1]),
])
def test_a_wrong_hint_changes_no_value(tmp_path, first, then, expected):
    """A variable declared with a whole number that holds a list, a text or a fraction when an
    expression reads it: the generated code and the checked evaluator agree on the value."""
    fast, reference = _both(_play(tmp_path, first, then))
    assert fast == reference == expected


def test_a_wrong_hint_changes_no_error(tmp_path):
    """The same for an error: a list plus a number fails with the checked evaluator's message."""
    fast, reference = _both(_play(tmp_path, "[1]", "n + 1"))
    assert fast == reference and fast.startswith("error: ")


def test_the_hint_drops_the_class_test(tmp_path):
    """With the hint, the sum of a declared number is checked by its bounds alone."""
    (tmp_path / "ruleset.yaml").write_text(RULESET % ("n + per[current]", "n * per[1]"))
    src = _source(load_ruleset(tmp_path / "ruleset.yaml"))
    assert "H_NBIG <= (w_1 := (V['n'] + V['per'][" in src
    assert ".__class__ is H_int and H_NBIG" not in src


MAP_RULESET = """name: Roads
players: {min: 2, max: 2}
maps:
  land:
    nodes: {table: towns.csv, key: id}
    edges: {table: roads.csv, source: a, target: b}
vars:
  out: {initial: none}
  start: {initial: a}
flow:
  - set: {out: "%s"}
  - end_game: done
outcome:
  score: "0"
"""


def _map(tmp_path, expr: str, length: str = "2"):
    (tmp_path / "towns.csv").write_text("id,name\na,Aalst\nb,Brugge\nc,Chimay\n")
    (tmp_path / "roads.csv").write_text(f"a,b,length\na,b,{length}\nb,c,3\n")
    (tmp_path / "ruleset.yaml").write_text(MAP_RULESET % expr)

    return lambda: _out(tmp_path / "ruleset.yaml")


def test_a_map_attribute_of_whole_numbers_is_read_unchecked(tmp_path):
    """Every road's length is a whole number: their sum needs no size check."""
    (fast, src), (reference, _) = _both(_map(tmp_path, "edge(land, start, 'b', 'length') + edge(land, 'b', 'c', 'length')"))
    assert fast == reference == 5
    assert "MAP" in src and "H_grow" not in src


def test_a_map_attribute_read_between_towns_without_a_road(tmp_path):
    """No road between a and c: the attribute reads none, and a sum with it fails as the
    builtin's checked form says, in both evaluators."""
    (fast, _), (reference, _) = _both(_map(tmp_path, "edge(land, start, 'c', 'length') + 1"))
    assert fast == reference and fast.startswith("error: ")


SEAT_FROM_A_ROAD = """name: Roads
players: {min: 2, max: 2}
maps:
  land:
    nodes: {table: towns.csv, key: id}
    edges: {table: roads.csv, source: a, target: b}
vars:
  start: {initial: a}
flow:
  - turn:
      player: "edge(land, start, 'c', 'length')"
      do:
        - end_game: done
outcome:
  score: "0"
"""


def test_a_seat_read_from_a_missing_road_is_refused_as_a_seat(tmp_path):
    """A road's length bounds the attribute where it is a number, but between towns with no
    road it reads none: a turn given it names the seat it needed, in both evaluators."""
    _map(tmp_path, "0")
    (tmp_path / "ruleset.yaml").write_text(SEAT_FROM_A_ROAD)

    def run():
        try:
            load_ruleset(tmp_path / "ruleset.yaml").new_game(2)
        except ExpressionError as exc:
            return str(exc).split(": ", 1)[1]
        return None

    fast, reference = _both(run)
    assert fast == reference == "`turn` needs a seat from 0 to 1, got 'none'"


def test_a_map_attribute_that_is_not_always_a_number_keeps_its_check(tmp_path):
    """One road's length is a text: no bound, and the sum is checked as any other."""
    (fast, src), (reference, _) = _both(_map(tmp_path, "edge(land, start, 'b', 'length') + 'km'", length="two"))
    assert fast == reference == "twokm"
    assert "H_grow" in src


KNOWN = """name: Known kinds
players: {min: 2, max: 3}
vars:
  board: {initial: [-1, -1, -1, -1]}
  who: {initial: 0}
  won: {initial: false}
flow:
  - repeat:
      times: 4
      do:
        - turn:
            player: "(4 - count(board, -1)) % 2"
            do:
              - set: {who: current}
              - set: {"board[turns_taken[current] % 4]": current}
              - set: {won: "any(all(board[i] == current for i in line) for line in [[0, 1], [2, 3]])"}
outcome:
  score: "1 if who == p else 0"
"""


def test_what_the_generator_knows_of_seats_remainders_and_truth(tmp_path):
    """``current`` is a seat (a whole number): stored without the container test; ``any`` of
    ``all`` of comparisons is True or False itself: no conversion.  The game is the same either
    way."""
    (tmp_path / "ruleset.yaml").write_text(KNOWN)
    rs = load_ruleset(tmp_path / "ruleset.yaml")
    src = _source(rs)
    assert "st.vars['who'] = " in src
    who = src.split("st.vars['who'] = ")[0].rsplit("# ", 1)[1]
    assert "H_copy" not in who and "env.state.current" in who
    won = src.split("st.vars['won'] = ")[0].rsplit("# ", 1)[1]
    assert "True if" not in won and " or " in won
    def games():
        rs = load_ruleset(tmp_path / "ruleset.yaml")
        return [(st.vars, st.outcome().scores) for st in (rs.new_game(n, seed=1) for n in (2, 3))]

    fast, reference = _both(games)
    assert fast == reference
