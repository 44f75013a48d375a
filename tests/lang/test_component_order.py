"""Components in order (interpreter/model.py, ``order_key``): the language orders components
by their place in the ruleset (``sorted``, ``min``, ``max``, ``<``, ``>``, also inside tuples
and lists), while Python compares them by identity only, so that ``==``, ``!=`` and ``in`` on
components (every move and most listings) stay Python's own fast comparison."""

from __future__ import annotations

import pytest

from interpreter import load_ruleset
from interpreter.lang import codegen
from interpreter.lang.expression import Env, compile_expression
from interpreter.model import Component
from tests.lang.test_codegen import _outcome

RULES = """\
name: Order
players: {min: 2, max: 2}
components:
  card: {items: [{n: 5}, {n: 3}, {n: 9}, {n: 1}], start: table}
zones:
  table: {visibility: public}
  pile: {visibility: public}
flow:
  - move: {what: "table[2]", to: pile}
  - move: {what: "table[0]", to: pile}
  - choose: {options: [{action: go}]}
"""

# table is [card 1, card 3] (in the ruleset's order), pile [card 2, card 0] (the last one on top)
CASES = [
    ("[c.n for c in sorted(pile)]", [5, 9]),
    ("[c.n for c in sorted(pile, reverse=true)]", [9, 5]),
    ("[c.n for c in sorted(table + pile)]", [5, 3, 9, 1]),
    ("min(pile).n", 5),
    ("max(pile).n", 9),
    ("max(pile[0], pile[1]).n", 9),
    ("pile[1] < pile[0]", True),
    ("pile[0] > pile[1]", True),
    ("pile[0] < pile[1]", False),
    ("pile[1] < pile[0] < table[1]", True),
    ("[p[1] for p in sorted([(pile[0], 1), (pile[1], 2), (pile[1], 0)])]", [0, 2, 1]),
    ("sorted([[table[1]], [pile[0]]])[0][0].n", 9),
    ("pile[0] == pile[0] and pile[0] != pile[1] and pile[1] in pile and table[0] not in pile", True),
    ("len(distinct(pile + pile + table))", 4),
]


def _rules(tmp_path):
    path = tmp_path / "ruleset.yaml"
    path.write_text(RULES)
    return load_ruleset(path)


@pytest.mark.parametrize(("text", "value"), CASES)
def test_components_are_ordered_by_their_place_in_the_ruleset(tmp_path, text, value):
    """The generated code (which falls back to the reference where Python refuses to order
    components) and the reference evaluator agree, and give the ruleset's order."""
    rs = _rules(tmp_path)
    st = rs.new_game(2)
    env = Env(st, {})
    compiled = compile_expression(text, rs.scope)
    assert compiled(env) == value
    assert compiled.checked(env) == value
    codegen.ENABLED = False
    try:
        reference = compile_expression(text, rs.scope)
    finally:
        codegen.ENABLED = True
    assert reference(Env(st, {})) == value


@pytest.mark.parametrize("text", ["pile[0] < 3", "sorted([pile[0], 1])", "max([1, pile[0]])", "pile[0] <= pile[1]",
                                  "pile[0] >= pile[1]", "min([(pile[0], 1), (2, 1)])"])
def test_what_could_not_be_ordered_still_cannot(tmp_path, text):
    """A component and a number, or ``<=``/``>=`` between components (never defined), are an
    error in both forms, as before."""
    rs = _rules(tmp_path)
    st = rs.new_game(2)
    compiled = compile_expression(text, rs.scope)
    fast = _outcome(compiled, Env(st, {}))
    checked = _outcome(compiled.checked, Env(st, {}))
    assert fast[0] == "error" and fast == checked


def test_components_compare_by_identity_with_pythons_own_comparison():
    """No ordering method on Component: Python's identity comparison stays in C (a class with
    one makes each ``==`` a slot call; equality is identity either way)."""
    for name in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
        assert getattr(Component, name) is getattr(object, name), name
    a = Component("a", "card", {}, frozenset(), "a", 0)
    b = Component("b", "card", {}, frozenset(), "b", 0)  # the same index: still two pieces
    assert a == a and a != b and b not in [a] and a in [b, a]
