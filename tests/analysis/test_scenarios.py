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
