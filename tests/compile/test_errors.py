"""Ruleset mistakes are reported with file:line:column and never a traceback; a rule that
loops forever stops with a clear error; illegal actions leave the state unchanged."""

from __future__ import annotations

import pytest

from interpreter import FlowError, IllegalActionError, RulesetError, RulesetErrors, TapsterError, load_ruleset

MINIMAL = """\
name: Minimal
players: {min: 2, max: 2}
params: {rounds: 2}
components:
  chip:
    items: [{value: 1}, {value: 2}, {value: 3}]
    start: pool
zones:
  pool: {visibility: public}
  hand: {per_player: true, visibility: owner}
vars:
  total: {per_player: true, initial: 0}
flow:
  - repeat:
      times: rounds
      do:
        - for_each:
            in: players
            as: p
            do:
              - turn:
                  player: p
                  do:
                    - choose:
                        options:
                          - action: take
                            for: c
                            in: pool
                            do:
                              - move: {what: c, from: pool, to: "hand[p]"}
                              - add: {"total[p]": c.value}
                        otherwise:
                          - log: nothing left
outcome:
  score: total[p]
"""


def write(tmp_path, text, name="ruleset.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def errors_of(tmp_path, text):
    with pytest.raises(RulesetError) as info:
        load_ruleset(write(tmp_path, text))
    err = info.value
    return err.errors if isinstance(err, RulesetErrors) else [err]


def test_minimal_ruleset_plays(tmp_path):
    rs = load_ruleset(write(tmp_path, MINIMAL))
    st = rs.new_game(2)
    while not st.is_terminal():
        st.apply(st.legal_actions()[-1])
    out = st.outcome()
    assert out.scores == (3 + 1, 2)  # seat 0 takes 3 then 1; seat 1 takes 2, then nothing is left
    assert out.winners == (0,)


def line_of(text, fragment):
    return next(i for i, line in enumerate(text.splitlines(), 1) if fragment in line)


@pytest.mark.parametrize(
    ("old", "new", "fragment", "words"),
    [
        ("to: \"hand[p]\"", "to: \"hnd[p]\"", "hnd[p]", ["unknown zone `hnd`", "did you mean hand"]),
        ("add: {\"total[p]\": c.value}", "add: {\"totl[p]\": c.value}", "totl",
         ["expected a variable's item", "found `totl`, not a variable", "did you mean `total`"]),
        ("score: total[p]", "score: totl[p]", "totl", ["unknown name `totl`", "did you mean `total`"]),
        ("in: pool\n", "in: pool +\n", "in: pool +", ["cannot parse expression"]),
        ("- log: nothing left", "- lg: nothing left", "lg:", ["lg", "log"]),
        ("add: {\"total[p]\": c.value}", "add: {\"total[p]\": c.vale}", "c.vale", ["field `vale`", "`value`"]),
        ("to: \"hand[p]\"", "to: \"hand\"", "to: \"hand\"", ["needs 1 index(es)"]),
    ],
)
def test_mistakes_point_at_their_line(tmp_path, old, new, fragment, words):
    assert old in MINIMAL
    text = MINIMAL.replace(old, new)
    errs = errors_of(tmp_path, text)
    first = errs[0]
    assert first.mark is not None
    assert first.mark.line == line_of(text, fragment), str(first)
    for w in words:
        assert w in str(first), str(first)


def test_many_mistakes_are_reported_together(tmp_path):
    text = MINIMAL.replace('to: "hand[p]"', 'to: "hnd[p]"').replace("score: total[p]", "score: totl[p]")
    errs = errors_of(tmp_path, text)
    assert len(errs) == 2
    assert [e.mark.line for e in errs] == sorted(e.mark.line for e in errs)


def test_a_rule_that_loops_forever_stops(tmp_path):
    text = MINIMAL.replace(
        "flow:\n",
        "flow:\n  - while:\n      cond: true\n      do:\n        - add: {\"total[0]\": 1}\n",
    )
    rs = load_ruleset(write(tmp_path, text))
    with pytest.raises(FlowError) as info:
        rs.new_game(2)
    assert "step budget" in str(info.value)
    assert info.value.mark.line == line_of(text, 'add: {"total[0]": 1}')


def test_runtime_error_names_expression_and_place(tmp_path):
    text = MINIMAL.replace("add: {\"total[p]\": c.value}", "add: {\"total[p]\": c.value // 0}")
    rs = load_ruleset(write(tmp_path, text))
    st = rs.new_game(2)
    with pytest.raises(TapsterError) as info:
        st.apply(st.legal_actions()[0])
    assert "division by zero" in str(info.value)
    assert "c.value // 0" in str(info.value)
    assert info.value.mark.line == line_of(text, "c.value // 0")


def test_illegal_action_names_the_legal_ones_and_changes_nothing(tmp_path):
    rs = load_ruleset(write(tmp_path, MINIMAL))
    st = rs.new_game(2)
    before = st.to_json()
    with pytest.raises(IllegalActionError) as info:
        st.apply("take(chip-9)")
    assert "take(chip-1), take(chip-2), take(chip-3)" in str(info.value)
    assert st.to_json() == before


def test_wrong_player_count(tmp_path):
    rs = load_ruleset(write(tmp_path, MINIMAL))
    with pytest.raises(TapsterError) as info:
        rs.new_game(3)
    assert "2 to 2 players, not 3" in str(info.value)


def test_unknown_variant(tmp_path):
    with pytest.raises(RulesetError) as info:
        load_ruleset(write(tmp_path, MINIMAL), "nope")
    assert "no variant 'nope'" in str(info.value)


def test_a_variant_is_validated_like_the_base(tmp_path):
    text = MINIMAL + "variants:\n  broken:\n    description: x\n    outcome: {score: \"totl[p]\"}\n"
    load_ruleset(write(tmp_path, text))  # the base is fine
    with pytest.raises(RulesetErrors) as info:
        load_ruleset(tmp_path / "ruleset.yaml", "broken")
    err = info.value.errors[0]
    assert "unknown name `totl`" in str(err)
    assert err.mark.line == line_of(text, "outcome: {score: \"totl[p]\"}")


def test_a_variant_overlays_parameters(tmp_path):
    text = MINIMAL + "variants:\n  short:\n    description: one round\n    params: {rounds: 1}\n"
    rs = load_ruleset(write(tmp_path, text), "short")
    st = rs.new_game(2)
    n = 0
    while not st.is_terminal():
        st.apply(st.legal_actions()[0])
        n += 1
    assert n == 2 and rs.params["rounds"] == 1


def test_a_decision_in_setup_is_refused(tmp_path):
    text = MINIMAL.replace("flow:\n", "setup:\n  - choose: {options: [{action: a}]}\nflow:\n")
    rs = load_ruleset(write(tmp_path, text))
    with pytest.raises(FlowError) as info:
        rs.new_game(2)
    assert "`setup` cannot ask for a decision" in str(info.value)


FUNCTIONS = MINIMAL.replace(
    "outcome:\n  score: total[p]\n",
    """functions:
  doubled:
    description: twice a number
    params: [x]
    value: twice(x)
  twice:
    params: [x]
    value: x * 2
  hand_value:
    params: [seat]
    value: sum(doubled(c.value) for c in hand[seat]) // 2
outcome:
  score: hand_value(p) * 10 + total[p]
""",
)


def test_ruleset_functions_compute_and_call_each_other(tmp_path):
    rs = load_ruleset(write(tmp_path, FUNCTIONS))
    st = rs.new_game(2)
    while not st.is_terminal():
        st.apply(st.legal_actions()[-1])
    # seat 0 holds chips 3 and 1 (total 4), seat 1 chip 2 (total 2)
    assert st.outcome().scores == (4 * 10 + 4, 2 * 10 + 2)


def test_a_function_called_in_place_sees_only_its_parameters(tmp_path):
    """A function is generated as a Python function of its parameters (FunctionBody): every
    argument is evaluated before the body runs, and the caller's names are as they were
    afterwards."""
    from interpreter.lang.expression import Env, compile_expression

    text = FUNCTIONS.replace(
        "outcome:\n",
        "  swap:\n    params: [x, y]\n    value: '[y, x]'\n"
        "  first_of:\n    params: [xs]\n    value: xs[0]\n"
        "outcome:\n",
    )
    rs = load_ruleset(write(tmp_path, text))
    assert rs.ctx_functions["twice"].body is not None
    scope = rs.scope.with_locals(["x", "y", "seat"])
    loc = {"x": 1, "y": 2, "seat": 0}
    env = Env(rs.new_game(2), loc)
    assert compile_expression("swap(y, x) + [x, y]", scope)(env) == [1, 2, 1, 2]
    assert compile_expression("[twice(x) for x in [5, 6]] + [x]", scope)(env) == [10, 12, 1]
    assert loc == {"x": 1, "y": 2, "seat": 0}
    with pytest.raises(TapsterError) as info:  # the error names the body, as a call's did
        compile_expression("first_of([])", scope)(env)
    assert "in expression `xs[0]`" in str(info.value) and info.value.mark.line == line_of(text, "value: xs[0]")
    assert loc == {"x": 1, "y": 2, "seat": 0}
    # the body cannot read its caller's names: `seat` is not a parameter of `twice`
    errs = errors_of(tmp_path, text.replace("value: x * 2", "value: x * seat"))
    assert any("unknown name `seat`" in str(e) for e in errs), [str(e) for e in errs]


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ("value: twice(x)", "value: twice(x, x)", ["`twice` takes 1 argument(s), got 2"]),
        ("value: x * 2", "value: y * 2", ["unknown name `y`"]),
        ("  twice:\n", "  len:\n", ["`len` is already a builtin function"]),
    ],
)
def test_function_mistakes(tmp_path, old, new, words):
    errs = errors_of(tmp_path, FUNCTIONS.replace(old, new))
    assert any(all(w in str(e) for w in words) for e in errs), [str(e) for e in errs]


def test_endless_recursion_is_an_error_not_a_crash(tmp_path):
    text = FUNCTIONS.replace("value: x * 2", "value: twice(x) + 1")
    rs = load_ruleset(write(tmp_path, text))
    st = rs.new_game(2)
    while not st.is_terminal():
        st.apply(st.legal_actions()[-1])
    with pytest.raises(TapsterError) as info:
        st.outcome()  # the score calls the endless function
    assert "nested too deeply" in str(info.value)
    assert rs.ctx_functions["twice"].body is not None  # recursive or not, generated alike


TRIGGERED = MINIMAL.replace(
    "                              - add: {\"total[p]\": c.value}\n",
    "                              - add: {\"total[p]\": c.value}\n"
    "                              - emit: {event: taken, with: {chip: c, seat: p}}\n",
) + """triggers:
  - on: taken
    params: [chip, seat]
    if: chip.value == 3
    do:
      - add: {"total[seat]": 10}
"""


def test_triggers_fire_on_their_event_with_their_condition(tmp_path):
    rs = load_ruleset(write(tmp_path, TRIGGERED))
    st = rs.new_game(2)
    while not st.is_terminal():
        st.apply(st.legal_actions()[-1])
    assert st.outcome().scores == (3 + 10 + 1, 2)  # the chip of value 3 earns 10 more


def test_an_event_emitted_without_a_trigger_parameter_is_refused(tmp_path):
    text = TRIGGERED.replace("with: {chip: c, seat: p}", "with: {chip: c}")
    errs = errors_of(tmp_path, text)
    assert "event `taken` is emitted without seat" in str(errs[0])
    assert errs[0].mark.line == line_of(text, "- emit: {event: taken")


def test_players_range_is_checked(tmp_path):
    errs = errors_of(tmp_path, MINIMAL.replace("players: {min: 2, max: 2}", "players: {min: 3, max: 2}"))
    assert "min <= default <= max" in str(errs[0])
