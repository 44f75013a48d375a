"""The README documents every builtin and every effect verb, and its two commands are there."""

from __future__ import annotations

from pathlib import Path

import pytest

from interpreter.compile.compiler import _ruleset_functions
from interpreter.engine.flow import EFFECTS
from interpreter.lang.builtins import BUILTINS

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


class _FakeRuleset:
    kinds: dict = {}
    by_id: dict = {}


def test_every_builtin_is_in_the_readme():
    names = set(BUILTINS) | set(_ruleset_functions(_FakeRuleset()))
    missing = [n for n in sorted(names) if f"`{n}(" not in README]
    assert not missing, f"README lacks builtins: {missing}"


def test_every_effect_verb_is_in_the_readme():
    missing = [v for v in EFFECTS if f"| `{v}` |" not in README]
    assert not missing, f"README lacks effect verbs: {missing}"


def test_the_two_commands():
    assert "python3 -m pip install . && tapster play beer_flights" in README
    command = "python3 -m pip install -e '.[test,web,openspiel,pettingzoo,ray,tune]' && python3 -m pytest"
    assert command in README
    # CI installs exactly what the README's test command does
    ci = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install --quiet -e '.[test,web,openspiel,pettingzoo,ray,tune]'" in ci
    assert "# yaml-language-server: $schema=" in README


def test_the_openspiel_and_pettingzoo_example_runs():
    pytest.importorskip("pyspiel")
    pytest.importorskip("pettingzoo")
    section = README.split("## Use it from OpenSpiel and PettingZoo", 1)[1].split("\n## ", 1)[0]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "README.md (Use it from OpenSpiel and PettingZoo)", "exec"), {})
