"""A game's exact facts (interpreter/compile/facts.py): the utility bounds, the scores' sum and the
longest game come from the ruleset, declared or derived by enumerating a small game's tree, and
are checked; nothing is sampled."""

from __future__ import annotations

import pytest

from interpreter import load_ruleset
from interpreter.analysis.check import run_check
from interpreter.compile.facts import FactsError, enumerate_tree, game_facts, outcome_problem

from ..conftest import copy_ruleset, replace_once

KUHN_FACTS = '''  range: ["-(ante + bet)", "ante + bet"]
  sum: 0
'''


def test_kuhn_declares_its_true_extremes():
    rs = load_ruleset("kuhn_poker")
    tree = enumerate_tree(rs, 2)
    assert (tree.terminals, tree.nodes) == (30, 58)
    assert (tree.lowest, tree.highest, tree.sums, tree.longest) == (-2, 2, {0}, 3)
    facts = game_facts(rs, 2)
    assert (facts.range, facts.sum, facts.actions) == ((-2, 2), 0, 3)
    assert set(facts.sources.values()) == {"declared"}


def test_tic_tac_toe_declares_its_true_extremes():
    rs = load_ruleset("tic_tac_toe")
    tree = enumerate_tree(rs, 2, budget=None)
    assert tree.terminals == 255168
    declared = rs.facts[2]
    assert (declared.range, declared.sum, declared.actions) == ((tree.lowest, tree.highest), 0, tree.longest) == ((-1, 1), 0, 9)


def test_declared_facts_follow_the_parameters():
    # an expression over the params: a bigger bet widens the range, and the check agrees
    rs = load_ruleset("kuhn_poker", overrides={"params": {"bet": 3}})
    assert rs.facts[2].range == (-4, 4)
    tree = enumerate_tree(rs, 2)
    assert (tree.lowest, tree.highest) == (-4, 4)
    assert run_check(rs, "games end").ok
    c4 = load_ruleset("connect_four", overrides={"params": {"columns": 5, "rows": 4}})
    assert c4.facts[2].actions == 20
    flights = load_ruleset("beer_flights", "five_player")
    assert {n: f.actions for n, f in flights.facts.items()} == {n: 15 * n for n in range(2, 11)}
    assert flights.facts[5].range == (-15, 15)


def test_undeclared_facts_of_a_small_game_are_derived_exactly(tmp_path):
    path = copy_ruleset(tmp_path, "kuhn_poker")
    replace_once(path, KUHN_FACTS, "")
    replace_once(path, "limits:\n", "limits:\n  steps: 1000\n")
    replace_once(path, "  actions: 3\n", "")
    rs = load_ruleset(path)
    facts = game_facts(rs, 2)
    assert (facts.range, facts.sum, facts.actions) == ((-2, 2), 0, 3)
    assert set(facts.sources.values()) == {"derived"}


def test_undeclared_facts_of_a_large_game_are_an_error_saying_what_to_declare(tmp_path):
    path = copy_ruleset(tmp_path, "connect_four")
    # another folder name: the adapter registers games by it, and connect_four may be registered already
    path = path.parent.rename(path.parent.with_name("undeclared_four")) / "ruleset.yaml"
    replace_once(path, "  range: [-1, 1]\n", "")
    replace_once(path, "  actions: columns * rows\n", "  steps: 100000\n")
    rs = load_ruleset(path)
    with pytest.raises(FactsError, match=r"declares no `outcome: \{range: \[lowest, highest\]\}`.* and no `limits: \{actions: N\}`"):
        game_facts(rs, 2)
    pytest.importorskip("pyspiel")
    from interpreter.interop.openspiel import load_game

    with pytest.raises((FactsError, RuntimeError), match="declares no"):
        load_game(str(path))


@pytest.mark.parametrize(("old", "new", "message"), [
    ('  range: ["-(ante + bet)", "ante + bet"]\n', "  range: [-1, 1]\n", "outside the declared `outcome: {range: [-1, 1]}`"),
    ("  sum: 0\n", "  sum: 1\n", "not the declared `outcome: {sum: 1}`"),
    ("  actions: 3\n", "  actions: 2\n", "the declared longest game"),
])
def test_check_fails_when_a_game_leaves_the_declared_facts(tmp_path, old, new, message):
    path = copy_ruleset(tmp_path, "kuhn_poker")
    replace_once(path, old, new)
    result = run_check(load_ruleset(path), "games end", seeds=range(1, 9))
    assert not result.ok and message in result.detail, result.detail


def test_check_fails_when_a_declared_bound_is_not_the_true_extreme(tmp_path):
    # every game stays inside [-3, 3], but the whole tree says the extremes are -2 and 2
    path = copy_ruleset(tmp_path, "kuhn_poker")
    replace_once(path, '  range: ["-(ante + bet)", "ante + bet"]\n', "  range: [-3, 3]\n")
    result = run_check(load_ruleset(path), "games end")
    assert not result.ok and "is not the true extremes" in result.detail and "from -2 to 2" in result.detail


def test_outcome_problem_names_the_seat_and_the_range():
    rs = load_ruleset("kuhn_poker")
    assert outcome_problem(rs, 2, [2, -2], 3) is None
    assert "seat P1 scored 5, outside the declared `outcome: {range: [-2, 2]}`" in outcome_problem(rs, 2, [5, -5], 3)
    assert "4 decisions" in outcome_problem(rs, 2, [1, -1], 4)


def test_a_bad_declaration_is_a_clear_error(tmp_path):
    from interpreter.errors import TapsterError

    path = copy_ruleset(tmp_path, "kuhn_poker")
    replace_once(path, "  actions: 3\n", '  actions: "bet / 2"\n')
    with pytest.raises(TapsterError, match=r"ruleset.yaml:\d+:\d+: .*limits: \{actions\}: expected a whole number"):
        load_ruleset(path)
    path = copy_ruleset(tmp_path / "b", "kuhn_poker")
    replace_once(path, '  range: ["-(ante + bet)", "ante + bet"]\n', "  range: [3, -3]\n")
    with pytest.raises(TapsterError, match="lowest score 3 is above the highest -3"):
        load_ruleset(path)
