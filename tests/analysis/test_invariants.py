"""Generic invariants, for every ruleset and variant, over random games and several seeds: the
same code as ``tapster check`` (interpreter/analysis/check.py), so there is one implementation.

- random games end with an outcome, logs on;
- every listed legal action applies, and an unlisted one is refused with the state unchanged;
- clone() and the JSON round trip give the same continuation under the same actions;
- the same seed gives the same game, byte for byte;
- an observation never shows a zone's contents to a player who may not see them;
- a secret decision leaves the other seats' observations and logs identical;
- the score is defined at every step.

Each configuration plays the quick fixed seeds (``SEEDS``) here; ``tests/analysis/test_check.py`` runs
``tapster check`` with its default settings (its time budget) on every shipped ruleset.
"""

from __future__ import annotations

import pytest

from interpreter.analysis.check import CHECKS, SEEDS, run_check

from ..conftest import all_configurations, compiled

CONFIGS = all_configurations()


def _message(r) -> str:
    return f"{r.name}: {r.detail} (seed {r.seed}, {r.players} players, actions {r.actions})"


@pytest.mark.parametrize("check", [name for name, _ in CHECKS if name != "secret decisions"])
@pytest.mark.parametrize(("name", "variant"), CONFIGS)
def test_invariant(name, variant, check):
    r = run_check(compiled(name, variant), check, SEEDS)
    assert r.ok, _message(r)


def _secret_configs():
    return [(n, v) for n, v in CONFIGS if any(c.secret for c in compiled(n, v).chooses)]


def test_some_shipped_ruleset_has_a_secret_decision():
    assert _secret_configs(), "no shipped ruleset marks a decision `secret: true`"


@pytest.mark.parametrize(("name", "variant"), _secret_configs())
def test_secret_decisions_reveal_nothing_to_the_others(name, variant):
    """At a `secret: true` decision, the actions of one option (which card goes face down) must
    leave every other player's observation and log identical: their information set is one."""
    r = run_check(compiled(name, variant), "secret decisions", SEEDS)
    assert r.ok, _message(r)
    assert "revealed nothing" in r.detail, r.detail  # a secret decision with two actions was reached
