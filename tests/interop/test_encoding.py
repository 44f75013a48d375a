"""The generic encoding behind the OpenSpiel and PettingZoo adapters: stable action indices, the
chance index space, observation tensors and information states built from a seat's view only."""

from __future__ import annotations

import numpy as np
import pytest

from interpreter import load_ruleset
from interpreter.engine.rng import Rng
from interpreter.interop.encoding import Encoding, EncodingError, new_state
from interpreter.model import Action


def test_constant_domains_are_indexed_exactly():
    enc = Encoding(load_ruleset("tic_tac_toe"), 2, games=2)
    assert [str(a) for a in enc.actions] == [f"mark({i})" for i in range(9)]
    assert enc.chance == "none" and enc.max_chance_outcomes == 0 and enc.perfect_information
    kuhn = Encoding(load_ruleset("kuhn_poker"), 2, games=4)
    assert [str(a) for a in kuhn.actions] == ["pass", "bet"]  # OpenSpiel's ids: pass 0, bet 1
    assert kuhn.chance_values == ("card-J", "card-Q", "card-K")
    assert (kuhn.utility, kuhn.min_utility, kuhn.max_utility) == ("zero_sum", -2.0, 2.0)
    assert not kuhn.perfect_information


def test_the_numbering_is_the_same_in_every_build():
    a = Encoding(load_ruleset("beer_flights"), 3, games=8)
    b = Encoding(load_ruleset("beer_flights"), 3, games=8)
    assert [str(x) for x in a.actions] == [str(x) for x in b.actions]
    # a component argument stands for every component of its kind, explored or not
    keeps = [str(x) for x in a.actions if x.name == "keep"]
    assert len(keeps) == len(load_ruleset("beer_flights").kinds["card"].components)


def test_every_legal_action_round_trips_and_the_tensor_keeps_its_size():
    for name in ("beer_cards", "drink_and_beat", "belgian_beers_race"):
        rs = load_ruleset(name)
        enc = Encoding.of(rs, rs.default_players)
        st = new_state(enc, "other seed")
        rng = Rng(9)
        while not st.finished:
            if st.is_chance():
                st.apply(st.sample_chance(rng))
                continue
            for a in st.legal_actions():
                assert enc.actions[enc.index(a)] == a
            for p in range(rs.default_players):
                assert enc.observation_tensor(st, p).shape == (enc.tensor_size,)
            legal = st.legal_actions()
            st.apply(legal[rng.below(len(legal))])


def test_an_action_outside_the_index_space_is_a_clear_error():
    enc = Encoding(load_ruleset("tic_tac_toe"), 2, games=1)
    with pytest.raises(EncodingError, match="`mark\\(12\\)` is outside the action index"):
        enc.index(Action("mark", (12,)))


def test_a_secret_decision_looks_the_same_to_the_others_whichever_action():
    rs = load_ruleset("beer_cards")
    enc = Encoding.of(rs, 3)
    st = new_state(enc, 1)
    rng = Rng(2)
    checked = 0
    while not st.finished and checked < 5:
        if st.is_chance():
            st.apply(st.sample_chance(rng))
            continue
        legal = st.legal_actions()
        if st.pending[0].secret and len(legal) >= 2:
            views, tensors = [], []
            for a in legal[:2]:
                child = st.clone()
                child.apply(a)
                views.append([enc.information_state_string(child, q) for q in range(3)])
                tensors.append([enc.information_state_tensor(child, q) for q in range(3)])
            deciding = st.current_players()
            for q in range(3):
                if q not in deciding:
                    assert views[0][q] == views[1][q]
                    assert np.array_equal(tensors[0][q], tensors[1][q])  # the tensors hide it too
            assert any(views[0][q] != views[1][q] for q in deciding)
            checked += 1
        st.apply(legal[rng.below(len(legal))])
    assert checked


LIARS_BID = """\
name: Bids
players: {min: 2, max: 2, default: 2}
params: {faces: 6}
vars:
  bid: {initial: null}
  dice: {initial: [], per_player: true, visibility: owner}
setup:
  - for_each: {in: players, as: p, do: [{roll: {dice: 1, sides: faces, set: "dice[p]"}}]}
flow:
  - turn:
      player: 0
      do:
        - choose:
            name: bid
            options:
              - action: bid
                for: [q, f]
                in: "[(q, f) for q in range(1, 3) for f in range(1, faces + 1)]"
                do: [{set: {bid: "(q, f)"}}]
              - action: pass
outcome:
  score: "0"
  range: [0, 0]
  sum: 0
limits:
  actions: 1
"""


def test_a_comprehension_over_constant_ranges_gives_exactly_its_items(tmp_path):
    # the Liar's Dice bids: 12 ids, never a bid of 0 (the old playouts widened from 0)
    path = tmp_path / "bids.yaml"
    path.write_text(LIARS_BID)
    enc = Encoding(load_ruleset(path), 2, games=1)
    bids = [a.args for a in enc.actions if a.name == "bid"]
    assert bids == [(q, f) for q in (1, 2) for f in range(1, 7)]
    assert enc.num_distinct_actions == 13
    # chance outcome ids from 0: die faces 1..6 are ids 0..5
    assert enc.chance_values == (1, 2, 3, 4, 5, 6) and enc.max_chance_outcomes == 6
    # a parameter changes the space, as the rules say
    wide = Encoding(load_ruleset(path, overrides={"params": {"faces": 4}}), 2, games=1)
    assert wide.num_distinct_actions == 9


def test_derived_ids_do_not_depend_on_playing():
    # every option of these rulesets is derived from its `in:`: no playout changes a single id
    for name in ("beer_flights", "beer_cards", "belgian_beers_race", "kuhn_poker"):
        rs = load_ruleset(name)
        a, b = Encoding(rs, rs.default_players, games=1, seed=1), Encoding(rs, rs.default_players, games=2, seed=7)
        assert a.actions == b.actions, name
        assert all(how == "derived" for _c, _o, how, _ids in a.action_rows), name


def test_info_prints_the_encoding_and_check_warns_about_widened_actions():
    from click.testing import CliRunner

    from interpreter.analysis.check import run_check
    from interpreter.cli import cli

    out = CliRunner().invoke(cli, ["info", "beer_flights"]).output
    assert "action encoding (2 players: 85 ids derived from the rules)" in out
    rows = {line.split("│")[2].strip(): line.split("│")[3].strip() for line in out.splitlines() if line.count("│") >= 4}
    assert rows["keep(c)"] == "0-75" and rows["take"] == "76" and rows["start(i)"] == "78-79" and rows["trash"] == "84"
    assert "chance outcome ids" in out
    data = __import__("json").loads(CliRunner().invoke(cli, ["info", "tic_tac_toe", "--json"]).output)
    assert data["encoding"]["actions"][0]["ids"] == [0, 8] and data["encoding"]["derived_actions"] == 9
    dab = run_check(load_ruleset("drink_and_beat"), "games end", seeds=(1,))
    assert any(n.startswith("warning: action `lay`") for n in dab.notes)
    assert not run_check(load_ruleset("beer_flights"), "games end", seeds=(1,)).notes


def test_the_information_state_tensor_hides_a_secret_action_from_the_others():
    rs = load_ruleset("beer_cards")
    enc = Encoding.of(rs, 3)
    st = new_state(enc, 4)
    rng = Rng(3)
    while True:
        if st.is_chance():
            st.apply(st.sample_chance(rng))
            continue
        if st.pending[0].secret:
            actor = st.current_players()[0]
            action = st.legal_actions()[0]
            st.apply(action)
            break
        st.apply(st.legal_actions()[0])
    n, base, width = 3, enc.tensor_size, 4
    decisions = len(st.seen_actions(0))
    slot = base + (decisions - 1) * width
    for q in range(3):
        t = enc.information_state_tensor(st, q)
        assert t.shape == (enc.info_tensor_size,) and t[slot + actor] == 1.0
        assert t[slot + n] == (enc.index(action) + 1 if q == actor else -1.0)
        assert st.seen_actions(q)[-1] == (f"P{actor + 1}:{action}" if q == actor else f"P{actor + 1}:?")


def test_a_second_load_reads_the_playouts_findings_until_a_file_changes(tmp_path, monkeypatch):
    # issue 47: loading a large game into OpenSpiel played 32 seeded playouts every time; what they
    # found is stored by content (the engine's source, the ruleset's files, seats, games, seed)
    from tests.conftest import copy_ruleset, replace_once

    monkeypatch.setenv("TAPSTER_CACHE_DIR", str(tmp_path / "cache"))
    path = copy_ruleset(tmp_path, "brewers_yard")
    first = Encoding(load_ruleset(path), 3, games=3)

    def refuse(self, games, seed):
        raise AssertionError("played the playouts again")

    played = Encoding._play
    monkeypatch.setattr(Encoding, "_play", refuse)
    again = Encoding(load_ruleset(path), 3, games=3)
    assert [str(a) for a in again.actions] == [str(a) for a in first.actions]
    assert [(o.name, how, ids) for _, o, how, ids in again.action_rows] == [(o.name, how, ids) for _, o, how, ids in first.action_rows]
    assert (again.tensor_layout(), again.chance_values) == (first.tensor_layout(), first.chance_values)
    with pytest.raises(AssertionError, match="played the playouts again"):
        Encoding(load_ruleset(path), 2, games=3)  # another seat count: not stored
    replace_once(path.parent / "buildings.csv", "malthouse,Malthouse,3", "malthouse,Malthouse,2")
    with pytest.raises(AssertionError, match="played the playouts again"):
        Encoding(load_ruleset(path), 3, games=3)  # a table changed: a miss
    # a damaged entry is a miss, never an error: played again, the same findings
    for entry in (tmp_path / "cache" / "results").glob("*.json"):
        entry.write_text('{"files": {}, "value": {"seen": [[0, "place", [[{"c": "no-such-card"}]]]]}}')
    monkeypatch.setattr(Encoding, "_play", played)
    rebuilt = Encoding(load_ruleset(copy_ruleset(tmp_path / "again", "brewers_yard")), 3, games=3)
    assert [str(a) for a in rebuilt.actions] == [str(a) for a in first.actions]
    assert rebuilt.tensor_layout() == first.tensor_layout()


