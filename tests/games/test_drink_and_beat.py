"""Drink & Beat: what random games must always respect, beyond the ruleset's own scenarios.

- the opponent's Boozy Troll coin (and the coins left face down) never reach a player's
  observation or log;
- every variant plays to an end over many seeds, and at every step the field keeps its rules:
  at most `size` places along each axis, one beer mug token per mat, only mats of a team on the
  field, rotations that are quarter turns;
- the board drawing shows the field, its powers and the Barman.
"""

from __future__ import annotations

import json

import pytest

from interpreter.engine.rng import Rng
from interpreter.views.render import render_board

from ..conftest import compiled

VARIANTS = [
    None, "complex", "four_players", "two_sets",
    "four_players_complex", "four_players_two_sides", "four_players_two_sides_complex", "two_sets_complex",
]


def _random_game(rs, seed, each_step=None):
    st = rs.new_game(seed=seed, log=True)
    rng = Rng(seed * 31 + 7)
    while not st.is_terminal():
        if each_step is not None:
            each_step(st)
        st.apply(rng.choice(st.legal_actions()))
    if each_step is not None:
        each_step(st)
    return st


def test_the_opponents_coin_never_appears_in_an_observation():
    rs = compiled("drink_and_beat", "complex")
    checked = 0
    for seed in range(12):

        def check(st):
            nonlocal checked
            for p in range(st.num_players):
                obs = st.observation(p)
                text = json.dumps(obs)
                for q in range(st.num_players):
                    for coin in st.zones["coin_hand"][q]:
                        if q == p:
                            assert coin.id in text
                        elif not st.finished:
                            assert coin.id not in text, f"P{p + 1} sees P{q + 1}'s coin"
                            assert coin.label not in "\n".join(st.visible_log(p))
                for coin in st.zones["coin_cellar"]:
                    assert coin.id not in text
                assert obs["zones"]["coin_cellar"] == {"count": len(st.zones["coin_cellar"])}
                checked += 1

        _random_game(rs, seed, check)
    assert checked > 100


def _field_rules_hold(st):
    rs = st.ruleset
    size = rs.params["size"]
    field = st.zones["field"]
    assert all(field[k] for k in field), "a keyed zone keeps no empty stack"
    if field:
        xs = [k[0] for k in field]
        ys = [k[1] for k in field]
        assert max(xs) - min(xs) < size and max(ys) - min(ys) < size
        # the field never comes apart (a push is refused when it would disconnect it); with the
        # complex rules an ability or the Reserves' clearing may take a mat or token away, and
        # that can split the field, so only the simple rules are checked
    if field and not rs.params["abilities"] and not rs.params["reserves"]:
        places = set(field)
        seen, todo = set(), [next(iter(places))]
        while todo:
            x, y = todo.pop()
            if (x, y) in seen:
                continue
            seen.add((x, y))
            todo += [n for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)) if n in places]
        assert seen == places, "the field came apart"
    for stack in field.values():
        kinds = {c.kind for c in stack}
        assert kinds == {"mat"} or (kinds == {"reserve"} and len(stack) == 1)
        for m in stack:
            if m.kind == "mat":
                assert st.props[m.index]["team"] in (0, 1)
                assert st.props[m.index]["rotation"] in (0, 90, 180, 270)
    on_field = {m for stack in field.values() for m in stack}
    for mat, tokens in st.zones["mugs_on"].items():
        assert len(tokens) == 1 and mat in on_field
    for m in rs.kinds["mat"].components:
        if m not in on_field:
            assert st.props[m.index]["team"] is None


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_games_keep_the_field_rules_and_end(variant):
    rs = compiled("drink_and_beat", variant)
    reasons = set()
    for seed in range(25):
        st = _random_game(rs, seed, _field_rules_hold)
        out = st.outcome()
        reasons.add(out.reason)
        assert len(out.scores) == st.num_players
    assert reasons <= {
        f"the field is a full {rs.params['size']}x{rs.params['size']}",
    } | {f"P{p + 1} has no mat left at the start of their turn" for p in range(4)}


def test_partners_share_a_score_in_the_four_player_game():
    rs = compiled("drink_and_beat", "four_players")
    st = _random_game(rs, 3)
    s = st.outcome().scores
    assert s[0] == s[2] and s[1] == s[3]


def test_the_board_drawing_shows_powers_teams_tokens_and_the_barman():
    rs = compiled("drink_and_beat")
    st = rs.new_game(seed=2)
    assert render_board(st).splitlines()[:2] == ["Barman: in the centre of the table", "(field is empty)"]
    m = [c for c in st.zones["hand"][st.current] if c.fields["arrow"] is None][0]
    st.apply(f"lay({m.id}, (0, 0))")
    st.apply(f"mug({m.id})")
    st.apply("barman(90)")
    text = render_board(st)
    sides = m.fields["sides"]
    assert "Barman: at the east side" in text
    assert "[BARMAN]" in text.splitlines()[5]  # beside the middle line of the one place
    assert m.fields["short"] in text and "+1 P" in text
    assert ("swords" if st.props[m.index]["team"] == 0 else "axes") in text
    rot = st.props[m.index]["rotation"]
    lines = text.splitlines()
    assert lines[3].strip().strip("|").strip() == str(sides[((0 - rot) % 360) // 90])  # north
    assert lines[7].strip().strip("|").strip() == str(sides[((180 - rot) % 360) // 90])  # south
    west, east = lines[4].split("|")[1].split()[0], lines[4].split("|")[1].split()[-1]
    assert (west, east) == (str(sides[((270 - rot) % 360) // 90]), str(sides[((90 - rot) % 360) // 90]))


def test_the_display_does_not_show_the_opponents_coin():
    # Complex rules "Ready to Play" 1: the coin is drawn "without showing it to the enemy".
    # The display is drawn for every seat: at every step of random games, give P2 each coin in
    # turn (swapped with the Cellar's); the drawing must not change.
    rs = compiled("drink_and_beat", "complex")
    checked = 0
    for seed in range(4):

        def same_drawing(st):
            nonlocal checked
            if st.finished:
                return
            drawings = set()
            for i in range(len(st.zones["coin_cellar"]) + 1):
                other = st.clone()
                hand, cellar = list(other.zones["coin_hand"][1]), list(other.zones["coin_cellar"])
                if i < len(cellar):
                    hand[0], cellar[i] = cellar[i], hand[0]
                other.zones["coin_hand"][1][:] = hand
                other.zones["coin_cellar"][:] = cellar
                assert other.score(1) is not None
                drawings.add(render_board(other))
            assert len(drawings) == 1
            checked += 1

        _random_game(rs, seed, same_drawing)
    assert checked > 50
