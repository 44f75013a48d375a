"""The traps a newcomer hit writing a route game (issue 31, items 4 and 5), each closed and tested:
a column named `id`/`kind`, a scenario position that lost components, drawing from an empty deck,
node-key typos, a component id written as a name, a log written from inside the ruleset's folder,
the modeline relative to the ruleset's folder."""

from __future__ import annotations

import json
import os

import pytest

from interpreter.analysis.scenarios import run_scenarios
from interpreter.cli import main
from interpreter.compile.compiler import RulesetErrors, load_ruleset

DECK = """
name: deck probe
players: {min: 2, max: 2}
components:
  card: {items: [{rank: 1}, {rank: 2}, {rank: 3}, {rank: 4}, {rank: 5}, {rank: 6}], key: rank, start: deck}
zones:
  deck: {visibility: hidden}
  discard: {visibility: public}
  hand: {per_player: true, visibility: owner}
vars: {v: 0}
setup:
  - move: {from: deck, to: "hand[0]", count: 2}
  - move: {from: deck, to: "hand[1]", count: 2}
flow: []
outcome: {score: "0"}
"""


def _write(tmp_path, text):
    (tmp_path / "ruleset.yaml").write_text(text)
    return tmp_path / "ruleset.yaml"


def _scenario(position: str) -> str:
    return DECK + f"""scenarios:
  - name: s
    position:
{position}
    steps:
      - expect: len(deck) + len(discard) + len(hand[0]) + len(hand[1]) == 6
      - expect: len(hand[1]) == 2
"""


@pytest.mark.parametrize("column", ["id", "kind"])
def test_a_column_named_id_or_kind_is_refused_with_the_rename(tmp_path, column):
    text = DECK.replace("{rank: 1}", f"{{rank: 1, {column}: X}}")
    with pytest.raises(RulesetErrors) as info:
        load_ruleset(_write(tmp_path, text))
    msg = str(info.value.errors[0])
    assert f"a column named `{column}` would be hidden by the component's own `{column}`" in msg
    assert "rename the column" in msg
    assert info.value.errors[0].mark.line == 5


def test_a_position_that_displaces_components_is_refused(tmp_path):
    # setup dealt card-6, card-5 to hand[0]; listing hand[0] exactly would drop them from the game
    path = _write(tmp_path, _scenario('      zones: {"hand[0]": [card-1]}'))
    [r] = run_scenarios(path)
    assert not r.ok
    assert "takes 2 component(s) out of the game (card-6, card-5)" in r.message
    assert "`displaced: deck`" in r.message


@pytest.mark.parametrize("position", [
    '      displaced: discard\n      zones: {"hand[0]": [card-1]}',           # where the scenario says
    '      zones: {"hand[0]": [card-1], discard: [card-6, card-5]}',           # listed in another zone
])
def test_a_position_keeps_every_component_in_one_place(tmp_path, position):
    [r] = run_scenarios(_write(tmp_path, _scenario(position)))
    assert r.ok, r.message


def test_a_position_may_say_the_displaced_leave_the_game(tmp_path):
    text = _scenario('      remove_displaced: true\n      zones: {"hand[0]": [card-1]}').replace(
        "== 6", "== 4")
    [r] = run_scenarios(_write(tmp_path, text))
    assert r.ok, r.message


def test_drawing_from_an_empty_deck_is_an_error(tmp_path):
    text = DECK.replace('count: 2}\n  - move: {from: deck, to: "hand[1]", count: 2}',
                        'count: 2}\n  - move: {from: deck, to: "hand[1]", count: 5}')
    rs = load_ruleset(_write(tmp_path, text))
    with pytest.raises(Exception, match=r"`deck` is empty: the move draws 5 and found 4 .*on_empty: short") as info:
        rs.new_game(2, seed=0)
    assert info.value.mark.line == 13


def test_on_empty_short_draws_what_there_is_and_check_notes_it(tmp_path):
    from interpreter.analysis.check import _short_draw_notes
    from interpreter.engine import flow

    text = DECK.replace('to: "hand[1]", count: 2}', 'to: "hand[1]", count: 5, on_empty: short}')
    rs = load_ruleset(_write(tmp_path, text))
    flow.SHORT_DRAWS.clear()
    st = rs.new_game(2, seed=0)
    assert len(st.zones["hand"][1]) == 4 and not st.zones["deck"]
    [note] = _short_draw_notes(1)
    assert "ruleset.yaml:13:5" in note and "drew short (on_empty: short) 1 time(s) in 1 games" in note


def test_a_node_typo_is_reported_once_with_the_nearest_key(tmp_path):
    text = """
name: t
players: {min: 2, max: 2}
maps:
  land:
    nodes: {items: [{id: BN}, {id: AS}]}
    edges: {items: [{source: bn, target: AS}]}
vars: {v: 0}
setup:
  - set: {v: "path_length(land, 'BN', 'AS')"}
flow: []
outcome: {score: "0"}
"""
    with pytest.raises(RulesetErrors) as info:
        load_ruleset(_write(tmp_path, text))
    errors = [str(e) for e in info.value.errors]
    assert len(errors) == 1, errors  # no knock-on `unknown name land`
    assert "edge endpoint 'bn' is not a node; did you mean 'BN'?" in errors[0]


def test_a_component_id_written_as_a_name_suggests_component(tmp_path):
    text = DECK.replace("vars: {v: 0}", "vars: {v: 0}\ndisplay: {header: ['{card-3}']}")
    with pytest.raises(RulesetErrors, match=r"unknown name `card`; a component is named by its id in quotes: `component\('card-3'\)`"):
        load_ruleset(_write(tmp_path, text))


def test_a_log_written_inside_the_ruleset_folder_names_it_and_replays(tmp_path, capsys):
    game = tmp_path / "mygame"
    game.mkdir()
    (game / "ruleset.yaml").write_text(DECK)
    cwd = os.getcwd()
    os.chdir(game)
    try:
        assert main(["play", ".", "--seed", "1", "--log", "g.json", "--json"]) == 0
        log = json.loads((game / "g.json").read_text())
        assert log["ruleset"] == "mygame"
        assert main(["replay", "g.json"]) == 0
    finally:
        os.chdir(cwd)
    capsys.readouterr()


def test_the_modeline_is_relative_to_the_rulesets_folder(tmp_path, capsys):
    from interpreter.loader.schema import schema_path

    game = tmp_path / "mygame"
    game.mkdir()
    (game / "ruleset.yaml").write_text(DECK)
    want = os.path.relpath(schema_path().resolve(), game.resolve())
    for where in (game, game / "ruleset.yaml"):
        assert main(["schema", "--modeline", "--relative-to", str(where)]) == 0
        assert capsys.readouterr().out.strip() == f"# yaml-language-server: $schema={want}"


def test_the_final_scores_places_are_not_pulled_into_a_corner():
    # the board's place numbers sit in their cell's corner (`position: absolute`); that rule must
    # not reach the final-scores table's `<td class="place">`, which then showed no places
    from importlib import resources

    css = (resources.files("interpreter.web") / "static" / "table.css").read_text(encoding="utf-8")
    rules = [line for line in css.splitlines() if ".place" in line and "position: absolute" in line]
    assert rules and all(line.lstrip().startswith(".cell .place") for line in rules)
