"""The generic encoding behind the OpenSpiel and PettingZoo adapters: stable action indices, the
chance index space, observation tensors and information states built from a seat's view only."""

from __future__ import annotations

import pytest

from interpreter import load_ruleset
from interpreter.encoding import Encoding, EncodingError, new_state
from interpreter.model import Action
from interpreter.rng import Rng


def test_constant_domains_are_indexed_exactly():
    enc = Encoding(load_ruleset("tic_tac_toe"), 2, games=2)
    assert [str(a) for a in enc.actions] == [f"mark({i})" for i in range(9)]
    assert enc.chance == "none" and enc.max_chance_outcomes == 0 and enc.perfect_information
    kuhn = Encoding(load_ruleset("kuhn_poker"), 2, games=4)
    assert sorted(str(a) for a in kuhn.actions) == ["bet", "call", "check", "fold"]
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
            views = []
            for a in legal[:2]:
                child = st.clone()
                seen = [[] for _ in range(3)]
                for p, token in enumerate(enc.seen_tokens(child, a)):
                    seen[p].append(token)
                child.apply(a)
                views.append([enc.information_state_string(child, q, seen[q]) for q in range(3)])
            deciding = st.current_players()
            for q in range(3):
                if q not in deciding:
                    assert views[0][q] == views[1][q]
            assert any(views[0][q] != views[1][q] for q in deciding)
            checked += 1
        st.apply(legal[rng.below(len(legal))])
    assert checked
