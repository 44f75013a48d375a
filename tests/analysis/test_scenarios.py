"""Every scenario of every shipped ruleset passes (the rulebooks' worked examples among them)."""

from __future__ import annotations

import pytest

from interpreter import available_rulesets
from interpreter.analysis.scenarios import run_scenarios
from interpreter.compile.compiler import find_ruleset
from interpreter.loader.load import load_yaml


def _scenario_ids():
    out = []
    for name in available_rulesets():
        doc = load_yaml(find_ruleset(name))
        for s in (doc.data or {}).get("scenarios") or []:
            out.append((name, s["name"]))
    return out


@pytest.mark.parametrize(("ruleset", "scenario"), _scenario_ids(), ids=lambda x: str(x))
def test_scenario(ruleset, scenario):
    results = run_scenarios(ruleset, only=scenario)
    assert len(results) == 1
    assert results[0].ok, results[0].message


def test_every_ruleset_has_scenarios():
    for name in available_rulesets():
        doc = load_yaml(find_ruleset(name))
        assert doc.data.get("scenarios"), f"{name} has no scenarios"


def test_a_failing_expectation_is_reported_with_its_place(tmp_path):
    src = find_ruleset("tic_tac_toe").read_text()
    broken = src.replace("- expect: board[4] == 0 and current == 1", "- expect: board[4] == 1")
    path = tmp_path / "ruleset.yaml"
    path.write_text(broken)
    results = {r.name: r for r in run_scenarios(path)}
    bad = results["a_marked_cell_is_illegal"]
    assert not bad.ok
    line = broken.splitlines().index("      - expect: board[4] == 1") + 1
    assert f"ruleset.yaml:{line}:" in bad.message
    assert "left side is 0, right side is 1" in bad.message


def _tic_tac_toe_with(tmp_path, old: str, new: str):
    """tic_tac_toe with one scenario line replaced: (its results by name, the text, the path)."""
    src = find_ruleset("tic_tac_toe").read_text()
    assert old in src
    text = src.replace(old, new)
    path = tmp_path / "ruleset.yaml"
    path.write_text(text)
    return {r.name: r for r in run_scenarios(path)}, text, path


def _line_col(text: str, fragment: str) -> tuple[int, int]:
    for i, line in enumerate(text.splitlines(), 1):
        if fragment in line:
            return i, line.index(fragment) + 1
    raise AssertionError(fragment)


@pytest.mark.parametrize(("written", "words"), [
    # an action name no option has: the nearest one named
    ("mrak(4)", ["no option of the ruleset has the action `mrak`", "did you mean `mark`?", "expected one of"]),
    # a value the option's `in: range(9)` never gives
    ("mark(9)", ["no option could ever offer this action", "did you mean `mark(8)`"]),
    ("mark(44)", ["did you mean `mark(4)`"]),
    # the wrong number of arguments
    ('"mark(4, 5)"', ["the action `mark` takes 1 argument(s)", "found 2"]),
    # a flow list's comma cut the action in two
    ("mark(4, 5)", ["unbalanced brackets", "quote an action with several arguments"]),
    ("mark", ["the action `mark` takes 1 argument(s)", "found 0"]),
])
def test_an_illegal_step_no_option_could_offer_is_an_error(tmp_path, written, words):
    """`illegal:` of an action that can never exist would pass whatever the rules say: the
    scenario fails at the action's file:line:col, naming the nearest real action."""
    results, text, path = _tic_tac_toe_with(tmp_path, "      - illegal: [mark(4)]", f"      - illegal: [{written}]")
    bad = results["a_marked_cell_is_illegal"]
    assert not bad.ok
    line, col = _line_col(text, f"- illegal: [{written}]")
    col += len("- illegal: [") + (1 if written.startswith('"') else 0)  # inside a quote
    assert bad.message.startswith(f"{path}:{line}:{col}:"), bad.message
    assert f"`illegal: {written.strip(chr(34)).split(',')[0]}" in bad.message
    assert any(w in bad.message for w in ("would pass whatever the rules say", "takes 1 argument", "expected an action"))
    for w in words:
        assert w in bad.message, bad.message


def test_an_illegal_step_that_could_be_real_still_runs(tmp_path):
    """A real action that is illegal now passes; one that is legal now is still reported as
    accepted (the check only refuses actions that can never exist)."""
    results, _, _ = _tic_tac_toe_with(tmp_path, "      - illegal: [mark(4)]", "      - illegal: [mark(4), mark(0)]")
    bad = results["a_marked_cell_is_illegal"]
    assert not bad.ok and "`mark(0)` was accepted but should be illegal" in bad.message, bad.message
    results, _, _ = _tic_tac_toe_with(tmp_path, "      - illegal: [mark(4)]", "      - illegal: [mark(8 - 4)]")
    assert results["a_marked_cell_is_illegal"].ok  # an argument evaluated to a real action


def test_an_illegal_step_may_name_an_options_label(tmp_path):
    """A label with no `for` names (`Pass`) may stand for its action, legal or not now."""
    src = find_ruleset("tic_tac_toe").read_text()
    assert "- action: mark\n" in src
    text = src.replace("- action: mark\n", "- action: pass\n                      label: Pass\n"
                       "                      if: \"false\"\n                    - action: mark\n", 1)
    text = text.replace("      - illegal: [mark(4)]", "      - illegal: [mark(4), Pass, pass]")
    path = tmp_path / "ruleset.yaml"
    path.write_text(text)
    results = {r.name: r for r in run_scenarios(path)}
    assert results["a_marked_cell_is_illegal"].ok, results["a_marked_cell_is_illegal"].message
    path.write_text(text.replace("[mark(4), Pass, pass]", "[Pas]"))
    bad = {r.name: r for r in run_scenarios(path)}["a_marked_cell_is_illegal"]
    assert not bad.ok and "no option of the ruleset has the action `Pas`" in bad.message, bad.message


@pytest.mark.parametrize(("expect", "words"), [
    ("board[4] == 0 and current == 0",
     ["`board[4] == 0` is true (left side is 0, right side is 0)",
      "`current == 0` is false (left side is 1, right side is 0)"]),
    ("current == 0 or (board[4] == 1 and len(board) > 9)",
     ["`current == 0` is false (left side is 1, right side is 0)",
      "`board[4] == 1` is false (left side is 0, right side is 1)",
      "`len(board) > 9` is false (left side is 9, right side is 9)"]),
    ("board[4] == 1 and board[20] == 0",  # false at the first operand; the second, evaluated anyway, fails
     ["`board[4] == 1` is false", "`board[20] == 0` fails (", "index out of range"]),
    ("(current == 1) and not current",
     ["`current == 1` is true (left side is 1, right side is 1)", "`not current` is false"]),  # brackets dropped
    ("board[4] == 1 and current",
     ["`board[4] == 1` is false (left side is 0, right side is 1)", "`current` is 1 (true)"]),
])
def test_a_failing_and_or_chain_reports_each_operand(tmp_path, expect, words):
    """A failed `expect` of an and/or chain (nested chains opened) lists every operand, in the
    order written, with its value (a comparison's two sides too; one that fails says why)."""
    results, text, path = _tic_tac_toe_with(
        tmp_path, "      - expect: board[4] == 0 and current == 1", f"      - expect: {expect}")
    bad = results["a_marked_cell_is_illegal"]
    assert not bad.ok
    line, col = _line_col(text, f"- expect: {expect}")
    assert bad.message.startswith(f"{path}:{line}:{col + len('- expect: ')}: "), bad.message
    assert f"expected `{expect}` to hold: " in bad.message
    for w in words:
        assert w in bad.message, bad.message
