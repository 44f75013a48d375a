"""Grids, generically: keyed zones (a stack per key), the grid builtins, derived component
fields, scenario positions with properties, and the board drawing (interpreter/views/render.py).

Drink & Beat's field needs them first; any tile or map game can use them.  The probe ruleset
below knows no game: tiles with four numbered sides are laid on a growing grid.
"""

from __future__ import annotations

import json

import pytest

from interpreter import RulesetErrors, State, load_ruleset
from interpreter.analysis.scenarios import run_scenarios
from interpreter.engine.state import Keyed
from interpreter.views.render import render_board

PROBE = """
name: Grid probe
players: {min: 2, max: 2}
params: {size: 2}
components:
  tile:
    items:
      - {n: 1, top: 1, right: 2, bottom: 3, left: 4}
      - {n: 2, top: 5, right: 6, bottom: 7, left: 8}
      - {n: 3, top: 9, right: 9, bottom: 9, left: 0}
    key: n
    label: "T{n}"
    derived:
      sides: "[top, right, bottom, left]"
      strongest: "max(sides)"
    props: {rotation: 0}
    start: bag
zones:
  bag: {}
  board: {keyed: true}
  vault: {keyed: true, visibility: hidden}
vars:
  moves: 0
flow:
  - while:
      cond: len(bag) > 0
      do:
        - turn:
            player: moves % 2
            do:
              - choose:
                  name: place
                  options:
                    - action: place
                      for: [t, c]
                      in: >
                        [(t, c) for t in bag for c in ([(0, 0)] if len(board) == 0 else
                         sorted(distinct(n for k in board for n in adjacent4(k) if n not in board)))]
                      if: "extent(list(board) + [c])[1] - extent(list(board) + [c])[0] < size"
                      do:
                        - move: {what: t, from: bag, to: "board[c]"}
                        - add: {moves: 1}
                    - action: lift
                      for: c
                      in: sorted(board)
                      if: moves == 1
                      do:
                        - move: {what: "board[c]", from: "board[c]", to: bag}
                    - action: stash
                      for: c
                      in: sorted(board)
                      if: moves == 2
                      do:
                        - move: {what: "top(board[c])", to: "vault[c]"}
                    - action: restack
                      for: c
                      in: sorted(board)
                      if: moves == 2
                      do:
                        - move: {what: "top(board[c])", to: "board[c]"}
display:
  header: ["moves: {moves}"]
  board:
    zone: board
    let: {t: "top(stack)"}
    cell:
      - "{t.top}"
      - ["{t.left}", "{t}", "{t.right}"]
      - "{t.bottom}"
    width: 5
    empty: "."
    edges:
      - {side: 90, text: "E"}
      - {side: "none", text: "hidden"}
  footer:
    - {for: p, in: players, text: "P{p + 1}"}
scenarios:
  - name: place_by_key_and_set_properties
    position:
      zones:
        "board[(0, 0)]": [tile-3]
      props:
        tile-3: {rotation: 90}
    steps:
      - expect:
          - board[(0, 0)] == [component('tile-3')] and component('tile-3').rotation == 90
          - (5, 5) not in board and board[(5, 5)] == []
          - key_of(board, component('tile-3')) == (0, 0)
          - facing(component('tile-3').sides, component('tile-3').rotation, 90) == 9
          - facing(component('tile-3').sides, component('tile-3').rotation, 0) == 0
"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    folder = tmp_path_factory.mktemp("grid_probe")
    (folder / "ruleset.yaml").write_text(PROBE, encoding="utf-8")
    return folder / "ruleset.yaml"


@pytest.fixture(scope="module")
def rs(probe):
    return load_ruleset(probe)


def test_derived_fields_are_computed_once_from_the_row(rs):
    t = rs.by_id["tile-2"]
    assert t.fields["sides"] == [5, 6, 7, 8]
    assert t.fields["strongest"] == 8


def test_a_keyed_zone_stores_stacks_by_key_and_forgets_empty_ones(rs):
    st = rs.new_game(2, seed=1)
    assert isinstance(st.zones["board"], Keyed) and len(st.zones["board"]) == 0
    st.apply("place(tile-1, (0, 0))")
    st.apply("lift((0, 0))")  # moves == 1: the stack goes back to the bag
    assert (0, 0) not in st.zones["board"] and len(st.zones["board"]) == 0
    assert "tile-1" in [c.id for c in st.zones["bag"]]


def test_moving_onto_its_own_stack_keeps_the_stack_and_remove_anywhere_prunes(rs):
    st = rs.new_game(2, seed=1)
    st.apply("place(tile-1, (0, 0))")
    st.apply("place(tile-2, (1, 0))")
    st.apply("restack((0, 0))")  # tile-1 taken from (0, 0) and put back on (0, 0)
    assert [c.id for c in st.zones["board"][(0, 0)]] == ["tile-1"]
    st2 = rs.new_game(2, seed=1)
    st2.apply("place(tile-1, (0, 0))")
    st2.apply("place(tile-2, (1, 0))")
    st2.apply("stash((1, 0))")  # no `from`: taken from wherever it is
    assert (1, 0) not in st2.zones["board"]
    assert st2.zone_of(rs.by_id["tile-2"]) == "vault[(1, 0)]"
    assert st2.zone_of(rs.by_id["tile-1"]) == "board[(0, 0)]"


def test_keyed_zones_clone_and_round_trip_through_json(rs):
    st = rs.new_game(2, seed=1)
    st.apply("place(tile-2, (0, 0))")
    st.apply("place(tile-1, (0, 1))")
    copy = st.clone()
    saved = State.from_json(rs, json.loads(json.dumps(st.to_json())))
    assert isinstance(saved.zones["board"], Keyed)
    assert list(saved.zones["board"]) == [(0, 0), (0, 1)]  # tuple keys, same order
    assert saved.to_json() == st.to_json()
    copy.apply(copy.legal_actions()[0])
    assert copy.to_json() != st.to_json()
    assert [c.id for c in st.zones["board"][(0, 0)]] == ["tile-2"]  # the original is untouched
    saved.apply(str(st.legal_actions()[0]))
    st.apply(st.legal_actions()[0])
    assert saved.to_json() == st.to_json()


def test_observation_of_keyed_zones(rs):
    st = rs.new_game(2, seed=1)
    st.apply("place(tile-1, (0, 0))")
    st.apply("place(tile-2, (1, 0))")
    st.apply("stash((1, 0))")
    obs = st.observation(0)
    assert obs["zones"]["board"] == [[{"t": [0, 0]}, ["tile-1"]]]
    assert obs["zones"]["vault"] == {"count": 1}  # hidden: only how many
    assert "tile-2" not in json.dumps(obs["zones"]["vault"])
    assert "tile-1" in obs.get("props", {})  # visible components show their properties


def test_grid_placement_limits_use_extent(rs):
    st = rs.new_game(2, seed=1)
    st.apply("place(tile-1, (0, 0))")
    st.apply("place(tile-2, (1, 0))")
    # size 2: the row is full, so only the places above and below extend the field
    legal = {str(a) for a in st.legal_actions() if a.name == "place"}
    assert legal == {f"place(tile-3, {c})" for c in ["(0, -1)", "(1, -1)", "(0, 1)", "(1, 1)"]}


def test_scenario_positions_name_keyed_stacks_and_set_properties(probe):
    results = run_scenarios(probe)
    assert [(r.name, r.ok, r.message) for r in results] == [("place_by_key_and_set_properties", True, "")]


def test_render_board_draws_the_grid_with_labels_and_markers(rs):
    st = rs.new_game(2, seed=1)
    st.apply("place(tile-1, (0, 0))")
    st.apply("place(tile-2, (1, 0))")
    assert render_board(st).splitlines() == [
        "moves: 2",
        "     0      1",
        "  +------+------+",
        "  |  1   |  5   |",
        "0 |4 T1 2|8 T2 6| E",
        "  |  3   |  7   |",
        "  +------+------+",
        "P1",
        "P2",
    ]


def test_render_board_is_none_without_a_display():
    assert render_board(load_ruleset("kuhn_poker").new_game(2)) is not None  # a table only: no board
    assert "+" not in render_board(load_ruleset("kuhn_poker").new_game(2))


def test_render_board_is_none_without_a_display_section(tmp_path):
    path = _write(tmp_path, "name: no display\nplayers: {min: 1, max: 1}\nflow: [{end_game: done}]\n")
    assert render_board(load_ruleset(str(path)).new_game(1)) is None


def test_a_board_of_places_draws_a_list_variable():
    # tic-tac-toe's display draws its `board` list through `places`: cell i at (i % 3, i // 3).
    st = load_ruleset("tic_tac_toe").new_game(2)
    st.apply("mark(0)")
    st.apply("mark(5)")
    lines = render_board(st).splitlines()
    assert lines[2] == "0 | X | . | . |"
    assert lines[4] == "1 | . | . | O |"


def _write(tmp_path, text):
    path = tmp_path / "ruleset.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_keyed_zone_cannot_be_per_player(tmp_path):
    path = _write(
        tmp_path, "name: x\nplayers: {min: 1, max: 1}\nflow: []\nzones:\n  board: {keyed: true, per_player: true}\n"
    )
    with pytest.raises(RulesetErrors) as info:
        load_ruleset(path)
    assert "keyed zone is one shared zone" in str(info.value)
    assert ":5:" in str(info.value)  # the line of the zone


def test_a_keyed_zone_needs_one_index(tmp_path):
    path = _write(
        tmp_path,
        "name: x\nplayers: {min: 1, max: 1}\nzones:\n  board: {keyed: true}\n  bag: {}\n"
        "flow:\n  - move: {from: bag, to: board}\n",
    )
    with pytest.raises(RulesetErrors) as info:
        load_ruleset(path)
    assert "needs one index, the key of a stack" in str(info.value)


def test_a_derived_field_cannot_shadow_a_column(tmp_path):
    path = _write(
        tmp_path,
        "name: x\nplayers: {min: 1, max: 1}\nflow: []\ncomponents:\n  t:\n    items: [{a: 1}]\n"
        "    derived: {a: 'a + 1'}\n",
    )
    with pytest.raises(RulesetErrors) as info:
        load_ruleset(path)
    assert "`a` is already a column or property" in str(info.value)


def test_display_needs_a_keyed_zone(tmp_path):
    path = _write(
        tmp_path,
        "name: x\nplayers: {min: 1, max: 1}\nflow: []\nzones:\n  bag: {}\n"
        "display:\n  board: {zone: bag, cell: ['x']}\n",
    )
    with pytest.raises(RulesetErrors) as info:
        load_ruleset(path)
    assert "must name a keyed zone" in str(info.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("toward((0, 0), 45)", "a bearing is 0, 90, 180 or 270"),
        ("adjacent4(3)", "a grid place is an (x, y) pair"),
        ("facing([1, 2, 3], 0, 0)", "the four sides of a piece"),
        ("facing([1, 2, 3, 4], 45, 0)", "a rotation is a multiple of 90"),
        ("wrap((0, 0), (1, 2))", "a box is (min_x, max_x, min_y, max_y)"),
        ("key_of([1], 1)", "needs a keyed zone"),
    ],
)
def test_grid_builtins_explain_bad_arguments(text, message):
    from interpreter.errors import ExpressionError, Mark
    from interpreter.lang.expression import Env, Scope, compile_expression

    f = compile_expression(text, Scope(resolve=lambda n: None), Mark("r.yaml", 1, 1))
    with pytest.raises(ExpressionError) as info:
        f(Env(None, {}))
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("key", "words"),
    [((100000, 100000), "at most 10000"), ((0.5, 1), "whole-number"), ("a", "not (x, y) places")],
)
def test_a_board_too_wide_or_with_odd_keys_is_a_clear_error(rs, key, words):
    """Stacks at (0, 0) and (100000, 100000) would draw 10^10 places; a key of 0.5 or text is
    not a place: each is a TapsterError naming the problem, not a hang or a TypeError."""
    from interpreter.errors import TapsterError

    st = rs.new_game(2, seed=1)
    st.apply("place(tile-1, (0, 0))")
    tile = st.zones["board"][(0, 0)][0]
    st.zones["board"][key] = [tile]
    with pytest.raises(TapsterError) as info:
        render_board(st)
    assert words in str(info.value)
