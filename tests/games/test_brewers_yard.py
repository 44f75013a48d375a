"""Brewers' Yard (issue 47's worker-placement example): capacities per player count through
``by_players``, workers on a space as a keyed zone keyed by the space, and what a space does as
data checked at load.  Its rules are tested by its own scenarios (``tapster test brewers_yard``)."""

from __future__ import annotations

import pytest

from interpreter import load_ruleset
from interpreter.errors import TapsterError
from tests.conftest import copy_ruleset, replace_once

TAVERN = "cap: {2: 1, 3: 2, 4: 2}, grow: 0, good: 3, does: deliver"


@pytest.mark.parametrize(("players", "rooms"), [(2, 1), (3, 2), (4, 2)])
def test_the_tavern_takes_as_many_brewers_as_its_cap_for_the_player_count(players, rooms):
    rs = load_ruleset("brewers_yard")
    st = rs.new_game(players, seed=1)
    for _ in range(rooms):
        st.apply(next(a for a in st.legal_actions() if str(a) == "place(space-tavern)"))
    assert "place(space-tavern)" not in [str(a) for a in st.legal_actions()]
    assert [w.fields["seat"] for w in st.zones["at"][rs.by_id["space-tavern"]]] == list(range(rooms))


def test_a_cap_without_a_player_count_is_refused_at_its_cell(tmp_path):
    path = copy_ruleset(tmp_path, "brewers_yard")
    replace_once(path, TAVERN, TAVERN.replace("3: 2, ", ""))
    with pytest.raises(TapsterError) as info:
        load_ruleset(path)
    text = path.read_text()
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "code: tavern" in ln)
    col = text.splitlines()[line - 1].index("cap: {2: 1, 4: 2}") + 1  # the cell's key (its value is a record)
    assert str(info.value) == (
        f"{path}:{line}:{col}: the table cell `cap` of `space-tavern` is a value per player count for "
        "`by_players(s.cap)` but has none for 3 player(s) (the game takes 2 to 4; expected a key for each "
        "count, found 2, 4): add `3: VALUE`")


def test_a_value_per_player_count_known_only_in_play_fails_naming_the_counts_it_has(tmp_path):
    # a variable's record is not checked at load: reading it for a count it lacks is the error
    path = copy_ruleset(tmp_path, "brewers_yard")
    replace_once(path, "  round: {initial: 0, visibility: public}\n",
                 "  round: {initial: 0, visibility: public}\n  tavern_cap: {initial: {2: 1, 4: 2}}\n")
    replace_once(path, "    value: by_players(s.cap)\n",
                 "    value: \"by_players(tavern_cap) if s.code == 'tavern' else by_players(s.cap)\"\n")
    rs = load_ruleset(path)
    rs.new_game(2, seed=1)  # two and four players have a value
    with pytest.raises(TapsterError) as info:
        rs.new_game(3, seed=1)
    line = next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if "by_players(tavern_cap)" in ln)
    assert str(info.value).startswith(f"{path}:{line}:")
    assert str(info.value).endswith("by_players() found no value for 3 players in the record {2: 1, 4: 2} "
                                    "(it has 2, 4): add `3: VALUE` to it")


def test_a_space_naming_no_procedure_is_refused_at_its_cell(tmp_path):
    path = copy_ruleset(tmp_path, "brewers_yard")
    replace_once(path, "does: deliver", "does: delivre")
    with pytest.raises(TapsterError) as info:
        load_ruleset(path)
    text = str(info.value)
    line = next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if "does: delivre" in ln)
    assert f"ruleset.yaml:{line}:" in text and "makes the procedure name `sp_delivre`" in text
    assert "did you mean `sp_deliver`?" in text
