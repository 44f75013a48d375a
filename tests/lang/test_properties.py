"""Property-based tests of issue 16 with a fixed, derandomized budget (hypothesis): expressions
generated from the grammar end in a value or a TapsterError within the work budget; an action
of any Python type is refused unless it is one of ``legal_actions()`` with the same types; and
whatever ``apply`` raises on a shipped ruleset, ``to_json()`` is unchanged (the state never
half-applies).  Mutated rulesets and damaged saved states are in test_robustness.py and
test_saved_state.py."""

from __future__ import annotations

import functools
import json
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interpreter import TapsterError, available_rulesets, load_ruleset
from interpreter.engine.rng import Rng
from interpreter.errors import IllegalActionError
from interpreter.lang.expression import Env, Scope, compile_expression
from interpreter.model import Action

BUDGET = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip

# -- expressions from the grammar --------------------------------------------------------------

_NAMES = ["x", "xs", "d", "s", "n"]
_ATOMS = st.one_of(
    st.sampled_from(_NAMES),
    st.integers(-(10**6), 10**6).map(str),
    st.sampled_from(["0", "1", "2", "64", "4096", "10**6", "2.5", "-0.5", "true", "false", "none", "'ab'", '""', "'%d'"]),
)
_UNARY = ["-", "not "]
_BINARY = ["+", "-", "*", "/", "//", "%", "**", "==", "!=", "<", "<=", ">", ">=", "and", "or", "in", "not in", "is"]
_CALLS = ["len", "sum", "max", "min", "sorted", "str", "abs", "range", "distinct", "reversed", "count", "round", "top"]


def _expr(children):
    return st.one_of(
        st.tuples(st.sampled_from(_UNARY), children).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(children, st.sampled_from(_BINARY), children).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(_CALLS), st.lists(children, min_size=1, max_size=2)).map(
            lambda t: f"{t[0]}({', '.join(t[1])})"),
        st.lists(children, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(children, min_size=2, max_size=3).map(lambda xs: "(" + ", ".join(xs) + ")"),
        st.tuples(children, children).map(lambda t: f"{{{t[0]}: {t[1]}}}"),
        st.tuples(children, children).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(children, children, children).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        st.tuples(children, children).map(lambda t: f"[{t[0]} for y in {t[1]}]"),
        st.tuples(children, children, children).map(lambda t: f"sum(y for y in {t[0]} for z in {t[1]} if {t[2]})"),
        st.tuples(children, st.sampled_from(["fields", "name", "x"])).map(lambda t: f"{t[0]}.{t[1]}"),
    )


EXPRESSIONS = st.recursive(_ATOMS, _expr, max_leaves=12)
_SCOPE = Scope(resolve=lambda n: None, locals=frozenset(_NAMES))
SEEN: dict[str, int] = {"expressions": 0, "compiled": 0, "values": 0, "errors": 0}


@BUDGET
@given(text=EXPRESSIONS)
def test_an_expression_from_the_grammar_ends_in_a_value_or_a_tapster_error(text):
    SEEN["expressions"] += 1
    try:
        fn = compile_expression(text, _SCOPE)
    except TapsterError:
        return
    SEEN["compiled"] += 1
    env = Env(None, {"x": 3, "xs": [1, 2, 3], "d": {"a": 1}, "s": "text", "n": 10**6})
    env.budget = env.left = 200_000  # a small budget: an evaluation that does not end is caught
    try:
        value = fn(env)
    except TapsterError:
        SEEN["errors"] += 1
        return
    SEEN["values"] += 1
    assert not isinstance(value, complex)
    if type(value) is int:
        assert value.bit_length() <= 4096
    if type(value) is float:
        assert not math.isnan(value) or "nan" not in text


# -- actions of every Python type, and apply never half-applies ---------------------------------


@functools.cache
def _ruleset(name: str):
    return load_ruleset(name)


PY_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 60), st.floats(allow_nan=True), st.text(max_size=4),
              st.sampled_from([b"x", 1j, object()])),
    lambda c: st.one_of(st.lists(c, max_size=2), st.tuples(c, c), st.dictionaries(st.text(max_size=2), c, max_size=2)),
    max_leaves=4,
)  # fmt: skip
COUNTS = {"moves": 0, "refused": 0, "raised_after_start": 0}


def _twist(action: Action, data) -> object:
    """A near miss of a legal ``action``: its args retyped (4 -> 4.0 or True), replaced by any
    Python value, its name changed, or a random object in place of the action."""
    kind = data.draw(st.sampled_from(["float", "bool", "value", "name", "object", "text"]))
    args = list(action.args)
    if kind == "float" and args and type(args[0]) is int:
        args[0] = float(args[0])
    elif kind == "bool" and args and type(args[0]) is int and args[0] in (0, 1):
        args[0] = bool(args[0])
    elif kind == "value":
        args = [data.draw(PY_VALUES) for _ in range(data.draw(st.integers(0, 3)))]
    elif kind == "name":
        return Action(action.name + "x", action.args)
    elif kind == "object":
        return data.draw(PY_VALUES)
    elif kind == "text":
        return data.draw(st.text(max_size=12))
    return Action(action.name, tuple(args))


@BUDGET
@given(data=st.data())
def test_any_action_is_refused_unless_legal_and_a_failing_apply_changes_nothing(data):
    name = data.draw(st.sampled_from(sorted(available_rulesets())))
    rs = _ruleset(name)
    # Budgets so tight that moves fail in the middle (apply must undo them), set on the shared
    # compiled rulesets of both chance modes for this example only (a ruleset is not copied:
    # copy.copy of one is itself, and a change left behind would make later examples differ).
    targets = [rs, rs.with_chance("explicit")]
    saved = [(t, t.step_budget, t.work_budget) for t in targets]
    if data.draw(st.booleans()):
        steps, work = data.draw(st.integers(1, 3000)), data.draw(st.integers(1, 100_000))
        for t in targets:
            t.step_budget, t.work_budget = steps, work
    try:
        _play_twisted(rs, data)
    finally:
        for t, steps, work in saved:
            t.step_budget, t.work_budget = steps, work


def _play_twisted(rs, data) -> None:
    mode = data.draw(st.sampled_from(["sample", "explicit"]))
    seed = data.draw(st.integers(0, 2**32))
    try:
        stt = rs.new_game(None, seed=seed, chance=mode)
    except TapsterError:  # the setup itself needs more than the tight budget
        return
    rng = Rng(seed)
    for _ in range(data.draw(st.integers(1, 40))):
        if stt.is_terminal():
            break
        if stt.is_chance():
            before = json.dumps(stt.to_json(), sort_keys=True)
            try:
                stt.apply(stt.sample_chance(rng))
            except TapsterError:
                COUNTS["raised_after_start"] += 1
                assert json.dumps(stt.to_json(), sort_keys=True) == before
                return
            continue
        legal = stt.legal_actions()
        pick = legal[rng.below(len(legal))]
        action = pick if data.draw(st.booleans()) else _twist(pick, data)
        before = json.dumps(stt.to_json(), sort_keys=True)
        COUNTS["moves"] += 1
        try:
            stt.apply(action)
        except IllegalActionError:
            COUNTS["refused"] += 1
            assert not (type(action) is Action and action in legal and all(
                type(a) is type(b) for a, b in zip(action.args, legal[legal.index(action)].args)))
            assert json.dumps(stt.to_json(), sort_keys=True) == before
            continue
        except TapsterError:
            COUNTS["raised_after_start"] += 1
            assert json.dumps(stt.to_json(), sort_keys=True) == before  # no half-applied move
            continue
        if type(action) is Action:  # what applied was legal with the very same types
            assert action in legal
            legal_one = legal[legal.index(action)]
            assert all(type(a) is type(b) for a, b in zip(action.args, legal_one.args))


# -- builtins against their plain definitions --------------------------------------------------

_VALUES = st.recursive(
    st.one_of(st.integers(-3, 3), st.booleans(), st.none(), st.sampled_from(["a", "b", ""]), st.sampled_from([1.0, 2.5])),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=8,
)


@BUDGET
@given(items=st.lists(_VALUES, max_size=12), as_tuple=st.booleans())
def test_distinct_keeps_the_first_of_equal_values_in_order(items, as_tuple):
    """``distinct`` (a C-level pass for hashable items) equals its definition: each item kept
    unless an equal one came before, in order (``1``, ``True`` and ``1.0`` are equal)."""
    from interpreter.lang.builtins import _distinct

    expected = []
    for v in items:
        if not any(v == e for e in expected):
            expected.append(v)
    got = _distinct(tuple(items) if as_tuple else items)
    assert got == expected
    assert [type(v) for v in got] == [type(v) for v in expected]
