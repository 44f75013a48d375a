"""Issue 47's deck-builder features in small rulesets: a zone whose contents are known but not
their order (``owner_contents``, ``public_contents``) and an option merging identical components
(``merge_identical``); and their bad inputs, each refused at its file:line:col, saying what was
expected, what was found and what to write instead."""

from __future__ import annotations

import pytest

from interpreter import load_ruleset
from interpreter.engine.rng import Rng
from interpreter.errors import TapsterError

RULESET = """\
name: Piles
players: {min: 2, max: 2}
components:
  card:
    items: [{v: 1}, {v: 1}, {v: 2}]
    start: pool
zones:
  pool: {visibility: public}
  ZONE
flow:
  - choose:
      options:
        - OPTION
"""


def _error(tmp_path, zone: str = "pile: {per_player: true, visibility: owner_contents}", option: str = "{action: ok}"):
    path = tmp_path / "ruleset.yaml"
    text = RULESET.replace("ZONE", zone).replace("OPTION", option)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TapsterError) as info:
        load_ruleset(path)
    err = getattr(info.value, "errors", [info.value])[0]
    return err, text.splitlines()


def test_the_well_formed_ruleset_loads(tmp_path):
    path = tmp_path / "ruleset.yaml"
    path.write_text(RULESET.replace("ZONE", "pile: {per_player: true, visibility: owner_contents}")
                    .replace("OPTION", "{action: take, for: c, in: pool, merge_identical: true}"), encoding="utf-8")
    rs = load_ruleset(path)
    st = rs.new_game(2, seed=0)
    assert [str(a) for a in st.legal_actions()] == ["take(card-2)", "take(card-3)"]  # two alike: one action, the top one


def test_owner_contents_on_a_shared_zone_says_it_needs_a_seat(tmp_path):
    err, lines = _error(tmp_path, zone="pile: {visibility: owner_contents}")
    assert lines[err.mark.line - 1].startswith("  pile:") and err.mark.column == 3
    text = str(err)
    assert "'per_player' is a required property" in text  # what was expected, where
    assert "`visibility: owner` and `owner_contents` need `per_player: true`" in text
    assert "add `per_player: true`" in text and "`public_contents`" in text  # the fixes


def test_a_misspelt_visibility_lists_the_ones_there_are(tmp_path):
    err, lines = _error(tmp_path, zone="pile: {per_player: true, visibility: owner_content}")
    assert "visibility: owner_content" in lines[err.mark.line - 1]
    assert "'owner_content' is not one of" in str(err) and "'owner_contents'" in str(err) and "'public_contents'" in str(err)


def test_a_keyed_zone_cannot_hide_only_its_order(tmp_path):
    err, lines = _error(tmp_path, zone="pile: {keyed: true, visibility: public_contents}")
    assert lines[err.mark.line - 1][err.mark.column - 1:].startswith("visibility: public_contents")
    assert "a keyed zone is `public` or `hidden`, found `visibility: public_contents`" in str(err)
    assert "write `visibility: public` or `visibility: hidden`, or drop `keyed: true`" in str(err)


def test_merge_identical_without_for_is_refused_with_the_fix(tmp_path):
    err, lines = _error(tmp_path, option="{action: ok, merge_identical: true}")
    assert lines[err.mark.line - 1][err.mark.column - 1:].startswith("merge_identical: true")
    assert "this option has no `for`" in str(err) and "add `for: c` and `in: ZONE`, or drop `merge_identical`" in str(err)


def test_a_public_contents_pile_shows_everyone_its_cards_and_keeps_them_in_every_world(tmp_path):
    path = tmp_path / "ruleset.yaml"
    text = RULESET.replace("ZONE", "pile: {visibility: public_contents}").replace("OPTION", "{action: ok}")
    path.write_text(text.replace("flow:\n", "setup:\n  - move: {from: pool, to: pile, count: 3}\n  - shuffle: pile\nflow:\n"),
                    encoding="utf-8")
    rs = load_ruleset(path)
    st = rs.new_game(2, seed=3)
    want = {"count": 3, "contents": [["card-1", 2], ["card-3", 1]], "ids": ["card-1", "card-2", "card-3"]}
    assert st.observation(0)["zones"]["pile"] == st.observation(1)["zones"]["pile"] == want
    orders = set()
    for p in range(2):
        for k in range(8):
            world = st.determinize(p, Rng(k))
            assert sorted(c.id for c in world.zones["pile"]) == ["card-1", "card-2", "card-3"]
            orders.add(tuple(c.id for c in world.zones["pile"]))
    assert len(orders) > 1  # reshuffled, not copied


def test_merged_items_that_are_lists_merge_by_value(tmp_path):
    path = tmp_path / "ruleset.yaml"
    path.write_text(RULESET.replace("ZONE", "pile: {}").replace(
        "OPTION", "{action: pick, for: x, in: \"[[1, 2], [1, 2], [3]]\", merge_identical: true}"), encoding="utf-8")
    assert [str(a) for a in load_ruleset(path).new_game(2, seed=0).legal_actions()] == ["pick([1, 2])", "pick([3])"]
