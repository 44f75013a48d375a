"""Every seat's view of every shipped ruleset is built from what that seat may see.

The view (``render.view_observation``: the observation plus the display's public text, drawn by
``termview`` and ``webview`` through ``view.seat_sections``) must be the same in every world the
seat cannot tell from the real one.  ``State.determinize(p, rng)`` deals such a world: whatever
lies where p may not look is redealt.  So for each ruleset and variant, at positions along a
random game, each seat's view of the real game and of a determinised world must be equal,
character for character; a display line reading hidden information would differ (and is caught
statically too: see test_publicity.py).
"""

from __future__ import annotations

import random

import pytest

from interpreter.engine.rng import Rng
from interpreter.views.render import view_observation
from interpreter.views.termview import seat_text
from interpreter.views.view import places
from interpreter.views.webview import seat_html
from tests.conftest import all_configurations, compiled


@pytest.mark.parametrize("name,variant", all_configurations())
def test_each_seats_view_is_the_same_in_every_world_it_cannot_tell_apart(name, variant):
    rs = compiled(name, variant)
    assert rs.display is not None, f"{name} declares no display"
    rng = random.Random(5)
    st = rs.new_game(rs.default_players, seed=17)
    checked = differs = 0
    for step in range(90):
        if step % 15 == 0 or st.is_terminal():
            for p in range(st.num_players):
                real = view_observation(st, p)
                for k in range(2):
                    world = st.determinize(p, Rng(1000 * step + 10 * p + k))
                    seen = view_observation(world, p)
                    assert seen == real, f"P{p + 1}'s view differs in a world P{p + 1} cannot tell apart (step {step})"
                    checked += 1
                    differs += world.zones != st.zones
                text = seat_text(rs, real)
                assert text == seat_text(rs, view_observation(world, p))
                assert seat_html(rs, real, []) == seat_html(rs, view_observation(world, p), [])
        if st.is_terminal():
            break
        st.apply(rng.choice(st.legal_actions()))
    assert checked > 0
    hides = any(z.visibility != "public" for z in rs.zone_list)
    if hides:
        assert differs > 0, "no world differed from the real game: the test would prove nothing"


def test_an_observer_sees_what_no_seat_does():
    rs = compiled("kuhn_poker")
    st = rs.new_game(2, seed=1)
    obs = view_observation(st, None)
    assert obs["player"] is None and all(isinstance(h, list) and len(h) == 1 for h in obs["zones"]["hand"])
    assert "1 face down" not in seat_text(rs, obs).split("Card:")[1].split("Chips")[0]
    assert "1 face down" in seat_text(rs, view_observation(st, 0))


@pytest.mark.parametrize(
    ("scores", "winners", "expected"),
    [
        ([3, 3, 1], [0, 1], [(1, [0, 1], 3), (3, [2], 1)]),
        ([0, 0], [], [(1, [0, 1], 0)]),
        ([1, 5, 5, 2], [1, 2], [(1, [1, 2], 5), (3, [3], 2), (4, [0], 1)]),
        ([5, 5], [0], [(1, [0], 5), (2, [1], 5)]),  # a tiebreak decided it: the winner alone first
    ],
)
def test_places_share_ties(scores, winners, expected):
    assert places({"scores": scores, "winners": winners}) == expected


@pytest.mark.parametrize(
    ("outcome", "tiebreaks", "expected"),
    [
        # equal scores, a tie-break ranked seat 1 first: two places, in the ranking's order
        ({"scores": [5, 5, 1], "winners": [1], "ranking": [1, 0, 2]}, True, [(1, [1], 5), (2, [0], 5), (3, [2], 1)]),
        ({"scores": [4, 4, 1], "winners": [], "ranking": [1, 0, 2]}, True, [(1, [1], 4), (2, [0], 4), (3, [2], 1)]),
        # no tie-break: nothing separates equal scores, whatever the ranking's order
        ({"scores": [4, 4, 1], "winners": [], "ranking": [1, 0, 2]}, False, [(1, [1, 0], 4), (3, [2], 1)]),
        # a winner the `winners` rule chose over a higher score is first all the same
        ({"scores": [3, 1], "winners": [1], "ranking": [0, 1]}, False, [(1, [1], 1), (2, [0], 3)]),
        # 1 and 1.0 and true are not the same score
        ({"scores": [1, 1.0], "winners": [], "ranking": [0, 1]}, False, [(1, [0], 1), (2, [1], 1.0)]),
    ],
)
def test_places_follow_the_ranking(outcome, tiebreaks, expected):
    assert places(outcome, tiebreaks) == expected


def test_the_views_and_the_score_table_number_places_alike():
    # One numbering for `tapster play`'s score table, the terminal and the browser: a game whose
    # winners rule passes over a higher score, and a ruleset with a tie-break.
    import re

    from interpreter.cli.play import _score_table

    for name, players in [("beer_knight", 2), ("drink_and_beat", 2), ("beer_flights", 3)]:
        rs = compiled(name)
        for seed in range(4):
            st = rs.new_game(players, seed=seed)
            while not st.finished:
                st.apply(st.legal_actions()[0])
            oc = st.outcome()
            want = places(oc.to_json(), bool(rs.tiebreaks))
            seat_places = {p: n for n, seats, _ in want for p in seats}
            table = _score_table(rs, [f"a{p}" for p in range(players)], oc)
            assert [int(c) for c in table.columns[3]._cells] == [seat_places[p] for p in range(players)]
            obs = view_observation(st, 0)
            final = next(line for line in seat_text(rs, obs).split("\n") if line.startswith("final scores: "))
            assert [int(m) for m in re.findall(r"(?:^final scores: |; )(\d+)\. ", final)] == [n for n, _, _ in want]
            html = seat_html(rs, obs, [])
            assert [int(m) for m in re.findall(r'<td class="place">(\d+)', html)] == [n for n, seats, _ in want for _ in seats]


def test_another_seats_hand_shows_its_backs():
    # Beer Knight's cards show their type on the back (`back: [type]`): a Hidden Hand held up
    # shows how many Knights, Mounts and Weapons it holds, never which ones.
    rs = compiled("beer_knight")
    st = rs.new_game(2, seed=4)
    hand = st.zones["hand"][1]
    seen = st.observation(0)["zones"]["hand"][1]
    kinds = sorted({c.fields["type"] for c in hand})
    assert seen == {"count": len(hand), "backs": [[t, sum(c.fields["type"] == t for c in hand)] for t in kinds]}
    assert st.observation(1)["zones"]["hand"][1] == [c.id for c in hand]
    assert "face down (Knight ×3, Mount ×3, Weapon ×3)" in seat_text(rs, view_observation(st, 0))
    assert st.observation(0)["zones"]["Knight_deck"] == {"count": len(st.zones["Knight_deck"])}  # a stacked deck: a count
