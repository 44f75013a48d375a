"""Beer Cards' hidden information, checked over random games for every seat.

The rulebook (IV, VII): White cards are dealt face up and known to everybody, Black cards are seen
only by their owner until played, and cards are played face down (VI.2) until all are turned over
together (VI.3).  The ruleset keeps a face-down card in its hand zone and lists it in the
owner-only `face_down` variable (its comment R1): a White card put down must not vanish from its
public hand, or everybody would know which card went down.  So "the others' face-down cards never
show" is checked in its strongest form: whichever card a player puts down, every other player's
observation is the same.
"""

from __future__ import annotations

import json

import pytest

from interpreter.engine.rng import Rng

from ..conftest import compiled


def _ids(value) -> set[str]:
    """Every string in a JSON observation (component ids among them)."""
    out: set[str] = set()
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            out |= _ids(k) | _ids(v)
    elif isinstance(value, list):
        for v in value:
            out |= _ids(v)
    return out


def _games(variant, players, seeds):
    """(state, rng) after every action of random games: yields each state reached."""
    rs = compiled("beer_cards", variant)
    for seed in seeds:
        st = rs.new_game(players, seed=seed, log=True)
        rng = Rng(seed * 31 + players)
        yield st
        while not st.is_terminal():
            st.apply(rng.choice(st.legal_actions()))
            yield st


CONFIGS = [(None, 2), (None, 3), (None, 4), ("two_packs", 6)]


@pytest.mark.parametrize(("variant", "players"), CONFIGS)
def test_observation_shows_every_white_card_own_black_cards_and_no_other_hidden_card(variant, players):
    points = 0
    for st in _games(variant, players, range(12)):
        n = st.num_players
        for p in range(n):
            obs = st.observation(p)
            shown = _ids(obs)
            json.dumps(obs)
            # Every White card in a hand is known to everybody (IV) - also one put face down.
            for q in range(n):
                for c in st.zones["white_hand"][q]:
                    assert c.id in shown, f"seat {p} does not see {c.id} in seat {q}'s White hand"
            # Their own Black cards they see; nobody else's (VII), face down or not.
            for c in st.zones["black_hand"][p]:
                assert c.id in shown
            for q in range(n):
                if q == p:
                    continue
                leaked = {c.id for c in st.zones["black_hand"][q]} & shown
                assert not leaked, f"seat {q}'s Black cards {leaked} show to seat {p}"
                assert obs["zones"]["black_hand"][q] == {"count": len(st.zones["black_hand"][q])}
                # Which cards another player put face down is theirs alone; how many is public.
                assert obs["vars"]["face_down"][q] is None
                assert obs["vars"]["cards_down"][q] == len(st.vars["face_down"][q])
                hidden_down = {c.id for c in st.vars["face_down"][q] if c.kind == "black"}
                assert not hidden_down & shown
            assert obs["vars"]["face_down"][p] == [{"c": c.id} for c in st.vars["face_down"][p]]
        points += 1
    assert points > 500


@pytest.mark.parametrize(("variant", "players"), CONFIGS)
def test_which_card_goes_face_down_is_invisible_to_the_others(variant, players):
    """VI.2: for every face-down play, the others' observations are the same whichever card it
    was (only their count shows), until the cards are turned over."""
    compared = 0
    for st in _games(variant, players, range(6)):
        d = st.decision()
        if d is None or d.name != "play":
            continue
        q = d.player
        plays = [a for a in d.actions if a.name == "play"]
        views: dict[int, list] = {p: [] for p in range(st.num_players) if p != q}
        for a in plays:
            after = st.clone()
            after.apply(a)
            if a.args[0] not in after.vars["face_down"][q]:
                continue  # the play completed the round: every card was turned over (VI.3)
            for p in views:
                views[p].append(json.dumps(after.observation(p), sort_keys=True))
        for p, seen in views.items():
            assert len(set(seen)) <= 1, f"seat {p} can tell which card seat {q} put face down"
            compared += len(seen)
    assert compared > 200


@pytest.mark.parametrize(("variant", "players"), CONFIGS[:3])
def test_log_lines_name_a_black_card_only_to_its_owner_or_when_turned_over(variant, players):
    rs = compiled("beer_cards", variant)
    black = {c.label: c for c in rs.kinds["black"].components}
    checked = 0
    for seed in range(6):
        st = rs.new_game(players, seed=seed, log=True)
        rng = Rng(seed)
        seen = 0
        while True:
            for to, text in st.log[seen:]:
                named = [c for label, c in black.items() if label in text]
                if not named:
                    continue
                checked += 1
                if to is None:
                    assert " turns over " in text or " plays " in text, text
                else:
                    assert len(to) == 1 and all(c in st.zones["black_hand"][to[0]] for c in named), text
            seen = len(st.log)
            if st.is_terminal():
                break
            st.apply(rng.choice(st.legal_actions()))
    assert checked > 50


def test_decisions_name_the_deciding_player_and_have_readable_labels():
    rs = compiled("beer_cards")
    st = rs.new_game(3, seed=4)
    rng = Rng(2)
    names = set()
    while not st.is_terminal():
        d = st.decision()
        assert d.players == (st.current,)
        assert all(label and "{" not in label for label in d.labels)
        names.add(d.name)
        st.apply(rng.choice(d.actions))
    assert names >= {"play"}


def test_every_match_ends_with_one_winner_the_showdown_deciding_among_the_tied():
    rs = compiled("beer_cards")
    showdowns = 0
    for seed in range(200):
        players = 2 + seed % 3
        st = rs.new_game(players, seed=seed)
        rng = Rng(seed)
        while not st.is_terminal():
            st.apply(rng.choice(st.legal_actions()))
        out = st.outcome()
        most = max(out.scores)
        assert len(out.winners) == 1 and out.scores[out.winners[0]] == most
        assert out.ranking[0] == out.winners[0]
        tied = [p for p in range(players) if out.scores[p] == most]
        if len(tied) > 1:
            showdowns += 1
            assert st.vars["showdowns"] >= 1
            # Only the tied played in the (last) Showdown.
            assert all(not st.zones["played"][p] for p in range(players) if p not in tied)
        else:
            assert st.vars["showdowns"] == 0
        # No card was lost: every White and Black card is in a deck, a hand or on the table.
        for kind, deck, hand in (("white", "white_deck", "white_hand"), ("black", "black_deck", "black_hand")):
            where = list(st.zones[deck]) + [c for p in range(players) for c in st.zones[hand][p]]
            where += [c for p in range(players) for c in st.zones["played"][p] if c.kind == kind]
            assert sorted(c.id for c in where) == sorted(c.id for c in rs.kinds[kind].components)
    assert showdowns > 10
