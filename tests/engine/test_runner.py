"""The flow runner's fast paths keep the rules' meaning: runs of simple effects that bind names,
tail calls, the shared locals of a decision's options, and the step budget counted effect by
effect (interpreter/engine/flow.py: ``run``, ``Block``, ``Choose._legal_fast``)."""

from __future__ import annotations

import pytest

from interpreter import FlowError, load_ruleset

HEAD = """\
name: Runner
players: {min: 1, max: 1}
components:
  chip:
    items: [{value: 1}, {value: 2}, {value: 3}]
    start: pool
zones:
  pool: {visibility: public}
  hand: {per_player: true, visibility: public}
vars:
  v: 0
"""


def ruleset(tmp_path, text):
    path = tmp_path / "ruleset.yaml"
    path.write_text(HEAD + text, encoding="utf-8")
    return load_ruleset(path)


def test_names_bound_in_a_run_of_simple_effects_reach_the_next_decision(tmp_path):
    rs = ruleset(tmp_path, """\
flow:
  - let: {n: 3}
  - move: {from: pool, to: "hand[0]", count: 2, as: got}
  - set: {v: n}
  - choose:
      options:
        - action: ok
          if: n == 3 and len(got) == 2 and v == 3
""")
    st = rs.new_game(1)
    assert [str(a) for a in st.legal_actions()] == ["ok"]


def test_an_option_name_that_hides_a_local_leaves_it_to_the_other_options(tmp_path):
    """`for: i` inside a loop over `i`: the option binds its own `i`; an option without `for`
    still reads the loop's."""
    rs = ruleset(tmp_path, """\
flow:
  - for_each:
      in: "[1, 2]"
      as: i
      do:
        - choose:
            options:
              - action: pick
                for: i
                in: "[10, 20]"
                if: i > 10
              - action: outer
                if: i == 2
""")
    st = rs.new_game(1)
    assert [str(a) for a in st.legal_actions()] == ["pick(20)"]
    st.apply("pick(20)")
    assert [str(a) for a in st.legal_actions()] == ["pick(20)", "outer"]


def test_tail_calls_return_to_the_loop_that_made_them(tmp_path):
    """A `call` as the last effect of a block replaces its frame; the loop around it goes on."""
    rs = ruleset(tmp_path, """\
procedures:
  step:
    - add: {v: 1}
    - call: decide
  decide:
    - choose: {options: [{action: go}]}
flow:
  - repeat: {times: 3, do: [{turn: {player: 0, do: [{call: step}]}}]}
  - choose:
      options:
        - action: done
          if: v == 3 and turns_taken[0] == 3
""")
    st = rs.new_game(1)
    for _ in range(3):
        assert [str(a) for a in st.legal_actions()] == ["go"]
        st.apply("go")
    assert [str(a) for a in st.legal_actions()] == ["done"]
    st.apply("done")
    assert st.is_terminal()


@pytest.mark.parametrize("logged", [False, True])
def test_the_step_budget_names_the_effect_that_crosses_it(tmp_path, logged):
    """Budget 10: `while` is step 1, each pass three more; step 11 is the fourth pass's first
    effect, a `log` (stepped over, not run, when the game is not logged)."""
    text = """\
limits: {steps: 10}
flow:
  - while:
      cond: "true"
      do:
        - log: "first"
        - set: {v: v + 1}
        - log: "third"
"""
    rs = ruleset(tmp_path, text)
    with pytest.raises(FlowError) as info:
        rs.new_game(1, log=logged)
    assert "step budget of 10" in str(info.value)
    lines = (HEAD + text).splitlines()
    assert info.value.mark.line == next(i for i, ln in enumerate(lines, 1) if 'log: "first"' in ln)


def test_deepcopy_is_clone():
    """OpenSpiel copies Python states with copy.deepcopy: it must be a clone (same future,
    independent zones) that shares the immutable ruleset instead of copying it."""
    import copy

    from interpreter import load_ruleset

    rs = load_ruleset("beer_flights")
    st = rs.new_game(3, seed=4)
    for _ in range(7):
        st.apply(st.legal_actions()[-1])
    for twin in (copy.deepcopy(st), copy.copy(st)):
        assert twin.ruleset is rs
        assert twin.to_json() == st.to_json()
        twin.apply(twin.legal_actions()[0])
        assert twin.to_json() != st.to_json()
    holder = copy.deepcopy({"state": st, "rules": rs})
    assert holder["rules"] is rs and holder["state"].ruleset is rs


@pytest.mark.parametrize("arg", [4.0, True, "4", (4,)])
def test_an_action_with_arguments_of_another_type_is_illegal_and_changes_nothing(arg):
    """`mark(4.0)` and `mark(True)` equal `mark(4)`/`mark(1)` in Python, but they are not the
    legal actions: refused before anything changes, so no log holds an action that cannot
    be replayed."""
    from interpreter import IllegalActionError, load_ruleset
    from interpreter.model import Action

    st = load_ruleset("tic_tac_toe").new_game(2, seed=0, log=True)
    before = st.to_json()
    with pytest.raises(IllegalActionError):
        st.apply(Action("mark", (arg,)))
    assert st.to_json() == before
    st.apply(Action("mark", (4,)))
    assert st.vars["board"][4] == 0


def test_a_legal_action_after_an_equal_one_of_another_type_is_taken(tmp_path):
    """`pick(true)` listed after `pick(1)` (equal in Python): each is legal with its own type
    and takes its own branch; `pick(1.0)`, listed nowhere, is refused."""
    from interpreter import IllegalActionError, load_ruleset
    from interpreter.model import Action

    path = tmp_path / "ruleset.yaml"
    path.write_text(
        "name: Twins\nplayers: {min: 2, max: 2}\nvars: {got: []}\n"
        "flow:\n  - repeat:\n      times: 2\n      do:\n"
        "        - choose: {options: [{action: pick, for: v, in: \"[1, true]\", do: [{set: {got: \"got + [v]\"}}]}]}\n"
    )
    st = load_ruleset(path).new_game(2)
    with pytest.raises(IllegalActionError):
        st.apply(Action("pick", (1.0,)))
    st.apply(Action("pick", (True,)))
    st.apply(Action("pick", (1,)))
    assert st.vars["got"] == [True, 1] and [type(v) for v in st.vars["got"]] == [bool, int]
