"""An error inside an expression points at its own column in the file: the column of the value's
text (after an opening quote; a block scalar's content line), plus the column inside the
expression, never the column of the entry's key."""

from __future__ import annotations

import pytest

from interpreter import RulesetErrors, TapsterError, load_ruleset

HEAD = """\
name: Columns
players: {min: 2, max: 2}
vars:
  x: {initial: 0}
"""

CASES = {
    "plain": ("flow:\n  - if: x > 0 and nope\n    then: [{end_game: won}]\n  - end_game: over\n", "nope"),
    "double quoted, in a flow mapping": ('flow:\n  - set: {x: "1 + bogus"}\n  - end_game: over\n', "bogus"),
    "single quoted": ("flow:\n  - set: {x: '1 + bogus'}\n  - end_game: over\n", "bogus"),
    "template": ('flow:\n  - end_game: "over after {zzz} turns"\n', "zzz"),
    "literal block, second line": (
        "flow:\n  - if: |\n      x > 0 and\n        x < nope\n    then: [{end_game: won}]\n  - end_game: over\n", "nope"),
    "folded block": ("flow:\n  - if: >\n      nope > 0\n    then: [{end_game: won}]\n  - end_game: over\n", "nope"),
    "a quoted place to set": ('flow:\n  - set: {"x[nope]": 1}\n  - end_game: over\n', "nope"),
    "function value": (
        'functions:\n  f:\n    value: "1 + nope"\nflow:\n  - set: {x: f()}\n  - end_game: over\n', "nope"),
}


def _error(path, variant=None) -> TapsterError:
    with pytest.raises(RulesetErrors) as info:
        load_ruleset(path, variant)
    return info.value.errors[0]


def _at(path, mark) -> str:
    """The file's text from ``mark`` on, in its line."""
    assert mark is not None and mark.file == str(path)
    return path.read_text(encoding="utf-8").split("\n")[mark.line - 1][mark.column - 1:]


@pytest.mark.parametrize("case", list(CASES))
def test_an_expression_error_points_at_the_name(tmp_path, case):
    body, name = CASES[case]
    path = tmp_path / "ruleset.yaml"
    path.write_text(HEAD + body, encoding="utf-8")
    err = _error(path)
    assert f"unknown name `{name}`" in err.message
    assert _at(path, err.mark).startswith(name), (str(err.mark), _at(path, err.mark))


def test_a_variants_expression_points_into_the_variant(tmp_path):
    path = tmp_path / "ruleset.yaml"
    path.write_text(HEAD + (
        "functions:\n  f: {value: 1}\n"
        "flow:\n  - set: {x: f()}\n  - end_game: over\n"
        "variants:\n  v:\n    description: f changed\n    functions:\n      f: {value: \"2 * (x + elsewhere)\"}\n"
    ), encoding="utf-8")
    load_ruleset(path)  # the base game is fine
    err = _error(path, "v")
    assert "unknown name `elsewhere`" in err.message
    assert err.mark.line == 14
    assert _at(path, err.mark).startswith("elsewhere)")


def test_a_scenario_expectation_points_at_its_expression(tmp_path):
    from interpreter.analysis.scenarios import run_scenarios

    path = tmp_path / "ruleset.yaml"
    path.write_text(HEAD + (
        "flow:\n  - choose:\n      options: [{action: go}]\n  - end_game: over\n"
        "scenarios:\n  - name: s\n    players: 2\n    steps:\n      - expect: \"x == 0 and nowhere\"\n"
    ), encoding="utf-8")
    results = run_scenarios(path)
    text = " ".join(str(r) for r in results)
    assert f"{path}:13:29" in text, text
