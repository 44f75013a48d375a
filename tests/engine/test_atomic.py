"""A move that fails leaves no trace: whatever ``State.apply`` raises (an expression error, a
budget exceeded, a Python error turned into a FlowError), the state is as it was before, for a
new game, a clone, a restored save, a determinised world and a scenario's hand-set position
(interpreter/engine/state.py: ``State.apply``, ``State.base``)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st_

from interpreter import TapsterError, load_ruleset
from interpreter.engine.rng import Rng
from interpreter.engine.state import State

RULESET = """\
name: Half
players: {min: 2, max: 2}
components:
  chip:
    items: [{value: 1}, {value: 2}, {value: 3}, {value: 4}]
    start: bag
zones:
  bag: {visibility: hidden}
  hand: {per_player: true, visibility: owner}
vars:
  v: 0
  w: [1, 2]
setup:
  - shuffle: bag
flow:
  - repeat:
      times: 12
      as: i
      do:
        - turn:
            player: "i % 2"
            do:
              - choose:
                  options:
                    - action: pick
                      for: k
                      in: range(5)
                      do:
                        - add: {v: k}
                        - set: {"w[0]": "w[0] + k"}
                        - if: len(bag) > 0
                          then: [{move: {from: bag, to: "hand[current]"}}]
                        - roll: {dice: 1, sides: 6, as: r}
                        - set: {v: "v + 10 // ((v + k + r[0]) % 4)"}
"""


@pytest.fixture(scope="module")
def rs(tmp_path_factory):
    path = tmp_path_factory.mktemp("atomic") / "ruleset.yaml"
    path.write_text(RULESET, encoding="utf-8")
    return load_ruleset(path)


def _play(st: State, picks: list[int], rng: Rng) -> tuple[int, int]:
    """Apply ``picks`` (sampling chance); every failing move must leave the state unchanged."""
    failed = ok = 0
    for k in picks:
        if st.is_terminal():
            break
        before = json.dumps(st.to_json(), sort_keys=True)
        try:  # a chance outcome's move can fail as well as a decision's
            st.apply(st.sample_chance(rng) if st.is_chance() else f"pick({k})")
            ok += 1
        except TapsterError:
            failed += 1
            assert json.dumps(st.to_json(), sort_keys=True) == before
    return ok, failed


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    picks=st_.lists(st_.integers(0, 4), min_size=1, max_size=30),
    seed=st_.integers(0, 2**32),
    mode=st_.sampled_from(["sample", "explicit"]),
)
def test_a_failing_move_leaves_no_trace(rs, picks, seed, mode):
    st = rs.new_game(2, seed=seed, chance=mode)
    _play(st, picks, Rng(seed))


def test_failures_happen_and_every_kind_of_state_is_restored(rs):
    total_failed = 0
    st = rs.new_game(2, seed=1)
    ok, failed = _play(st, [0, 1, 2, 3, 4, 1, 2], Rng(1))
    total_failed += failed
    for other in (
        st.clone(),
        State.from_json(rs, json.loads(json.dumps(st.to_json()))),
        st.determinize(0, Rng(5)),
    ):
        ok2, failed2 = _play(other, [4, 3, 2, 1, 0, 1, 2, 3], Rng(2))
        total_failed += failed2
    assert total_failed > 0  # the ruleset does fail on some moves: the property was exercised


def test_a_move_that_exceeds_the_step_budget_leaves_no_trace(tmp_path):
    path = tmp_path / "ruleset.yaml"
    path.write_text("""\
name: Loop
players: {min: 1, max: 1}
limits: {steps: 50}
vars:
  v: 0
flow:
  - choose:
      options:
        - action: spin
          do:
            - while:
                cond: "true"
                do: [{add: {v: 1}}]
""", encoding="utf-8")
    st = load_ruleset(path).new_game(1)
    before = st.to_json()
    with pytest.raises(TapsterError, match="step budget"):
        st.apply("spin")
    assert st.to_json() == before and st.legal_actions()


def test_a_scenario_position_set_by_hand_is_kept_when_a_later_move_fails(rs):
    st = rs.new_game(2, seed=3)
    st.vars["v"] = 1000  # a hand edit, as a scenario's position step makes
    st.checkpoint()
    before = st.to_json()
    for k in range(5):
        try:
            st.apply(f"pick({k})")
        except TapsterError:
            assert st.to_json() == before
            break
        before = st.to_json()
    assert st.vars["v"] >= 1000
