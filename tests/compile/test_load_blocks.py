"""``load_ruleset(blocks=False)``: a ruleset compiled to be checked, not played, gets no code for
its flow (``flowgen.finalize`` is not run), yet plays the same games on the frame runner; and
``tapster validate`` compiles every variant that way (its problems never depend on that code)."""

from __future__ import annotations

import pytest

from interpreter import available_rulesets, load_ruleset
from interpreter.cli.author import _problems
from interpreter.engine import flowgen
from interpreter.engine.rng import Rng


def _games(rs, players: int, seeds: range) -> list:
    """Each game's actions, log and outcome, a random agent choosing."""
    agent = Rng(7)
    out = []
    for seed in seeds:
        st = rs.new_game(players, seed=seed, log=True)
        actions = []
        while not st.finished:
            legal = st.legal_actions()
            a = legal[agent.below(len(legal))]
            actions.append(str(a))
            st.apply(a)
        out.append((actions, list(st.log), st.outcome().to_json()))
    return out


@pytest.mark.parametrize("name, players", [("tic_tac_toe", 2), ("beer_knight", 2), ("belgian_beers_race", 3)])
def test_without_flow_code_the_same_games(name, players):
    played = load_ruleset(name)
    checked = load_ruleset(name, blocks=False)
    assert any(b.fn is not None for b in played.blocks)
    assert all(b.fn is None for b in checked.blocks)
    assert _games(checked, players, range(6)) == _games(played, players, range(6))


def test_validate_generates_no_flow_code(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("validate generated code for the flow")

    monkeypatch.setattr(flowgen, "finalize", refuse)
    for name in available_rulesets():
        lines, shown = _problems(name, None)
        assert lines == [], name
        assert shown is not None and all(b.fn is None for b in shown.blocks)
    with pytest.raises(AssertionError, match="validate generated"):
        load_ruleset("tic_tac_toe")  # what the patch refuses: a ruleset loaded to be played
