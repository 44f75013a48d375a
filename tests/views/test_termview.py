"""The terminal's seat views (interpreter/views/termview.py): drawn from the observation only, so they never leak."""

from __future__ import annotations

import random
import re

import pytest
from click.testing import CliRunner

from interpreter.cli import cli
from interpreter.views.render import view_observation
from interpreter.views.termview import seat_text
from tests.conftest import coins_swapped, compiled

GAMES = [
    ("tic_tac_toe", None), ("connect_four", None), ("beer_flights", "five_player"), ("beer_cards", None),
    ("drink_and_beat", "complex"), ("beer_knight", "speed"), ("belgian_beers_race", "short"), ("brewers_yard", None),
]



@pytest.mark.parametrize("name,variant", GAMES)
def test_terminal_views_show_only_the_observation(name, variant):
    rs = compiled(name, variant)
    rng = random.Random(3)
    st = rs.new_game(rs.min_players, seed=13, log=True)
    for _ in range(300):
        for p in range(st.num_players):
            text = seat_text(rs, view_observation(st, p))
            visible = repr(st.observation(p))
            seen_labels = {c.label for c in rs.by_id.values() if f"'{c.id}'" in visible}
            for c in rs.by_id.values():
                if f"'{c.id}'" not in visible and c.label not in seen_labels and len(c.label) >= 4:
                    shown = re.search(re.escape(c.label) + r"(?![\w])", text)
                    assert not shown, f"P{p + 1}'s view shows {c.label!r}, which P{p + 1} cannot see"
        if st.is_terminal():
            break
        st.apply(rng.choice(st.legal_actions()))
    assert "final scores" in seat_text(rs, st.observation(0)) or not st.is_terminal()


def test_the_view_is_a_function_of_the_observation():
    # Drink & Beat's complex rules: the Boozy Troll coin is taken "without showing it to the enemy".
    rs, st, other, mine = coins_swapped()
    assert seat_text(rs, st.observation(0)) == seat_text(rs, other.observation(0))
    assert seat_text(rs, st.observation(1)) != seat_text(rs, other.observation(1))
    assert mine.label in seat_text(rs, st.observation(1))


def test_a_human_game_through_stdin_never_draws_the_whole_board():
    # tic-tac-toe, a human against random: typing every square's text in turn (a taken one is
    # refused and asked again) plays a whole game.
    answers = "".join(f"mark({i})\n" for i in range(9)) * 2
    result = CliRunner().invoke(cli, ["play", "tic_tac_toe", "--agents", "human,random", "--seed", "4"], input=answers)
    assert result.exit_code == 0, result.output
    assert "what P1 sees" in result.output
    assert "Game over" in result.output


def test_play_without_agents_says_how_to_take_a_seat():
    result = CliRunner().invoke(cli, ["play", "tic_tac_toe", "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert "--agents human,random" in result.output


def test_a_map_is_drawn_at_its_nodes_coordinates_with_lettered_pieces():
    from interpreter.views.termview import MAP_HEIGHT

    rs = compiled("belgian_beers_race", "short")
    st = rs.new_game(3, seed=3)
    rng = random.Random(1)
    for _ in range(30):
        st.apply(rng.choice(st.legal_actions()))
    text = seat_text(rs, view_observation(st, 0))
    lines = text.splitlines()
    top = lines.index("Map belgium:")
    picture = lines[top + 1: top + 1 + MAP_HEIGHT]
    occupied = {n: ids for n, ids in st.zones["pawns"].items() if ids}
    legend = lines[top + 1 + MAP_HEIGHT: top + 1 + MAP_HEIGHT + len(occupied)]
    letters = [chr(ord("A") + i) for i in range(len(occupied))]
    assert [ln.split()[0] for ln in legend] == letters
    assert all(sum(row.count(x) for row in picture) == 1 for x in letters)
    # every node is a dot or a letter (nodes closer than a character share one)
    marks = sum(row.count("·") for row in picture) + len(letters)
    assert 30 <= marks <= rs.maps["belgium"].graph.number_of_nodes()
    for ln, (node, ids) in zip(legend, sorted(occupied.items())):
        assert f"({node}): " in ln and all(c.label in ln for c in ids)


def test_a_map_without_pieces_shows_each_node_by_its_key_and_the_routes_by_name():
    """Little Railways (issue 31): the picture writes each town's key at its place, which the
    route list below names as ``Name (KEY)``, with each route's length, colour and owner."""
    from interpreter.views.termview import MAP_HEIGHT

    rs = compiled("little_railways")
    st = rs.new_game(2, seed=3)
    text = seat_text(rs, view_observation(st, 0))
    lines = text.splitlines()
    top = lines.index("Map land:")
    picture = "\n".join(lines[top + 1: top + 1 + MAP_HEIGHT])
    gm = rs.maps["land"]
    for node, data in gm.graph.nodes(data=True):
        assert picture.count(node) == 1, (node, picture)
        assert f"{data['name']} ({node})" in text
    assert "·" not in picture  # every node has room for its key on this map
    routes = lines[lines.index("  routes:") + 1:]
    assert sum(" – " in ln for ln in routes) == gm.graph.number_of_edges()


def test_a_wide_supply_is_laid_out_in_columns():
    """A keyed zone of many piles (a deck-builder's supply) is drawn in columns that fit the
    width, every pile once, not one line a pile (issue 48)."""
    from interpreter.views.termview import COLUMNS_WIDTH, KEYED_COLUMNS_FROM, columns

    items = [f"pile {i}: {i} cards" for i in range(16)]
    lines = columns(items, COLUMNS_WIDTH)
    assert KEYED_COLUMNS_FROM < len(items) and len(lines) < len(items) / 2
    assert all(len(line) <= COLUMNS_WIDTH for line in lines)
    assert " ".join(lines).split() == " ".join(items).split()  # every pile once, in order
    assert columns(["x" * 60, "y"], COLUMNS_WIDTH) == ["  " + "x" * 60, "  y"]


def test_a_wide_row_of_cards_is_laid_out_in_columns():
    """A face-up row of many cards that does not fit on one line (a market, a long hand) is drawn
    in columns under its title, every card once and in order; a short row stays on one line
    (issue 48: the supply *or any wide row of cards*)."""
    from interpreter import load_ruleset
    from interpreter.views.termview import COLUMNS_WIDTH, _View

    rs = load_ruleset("beer_knight")
    st = rs.new_game(2, seed=1)
    view = _View(rs, st.observation(0), ["P1", "P2"])
    ids = [c.id for c in rs.components[:12]]
    wide = view.wide_row("Market", {"ids": ids})
    assert wide is not None and wide[0] == "Market:" and len(wide) < 1 + len(ids)
    assert all(len(line) <= COLUMNS_WIDTH for line in wide)
    shown = " ".join(wide[1:])
    names = [view.card(cid) for cid in ids]
    assert [shown.index(n) for n in names] == sorted(shown.index(n) for n in names)  # each once, in order
    assert view.wide_row("Market", {"ids": ids[:3]}) is None  # fits: one line, as before
    assert view.s_piles({"title": "Market", "rows": [(None, {"ids": ids})]}) == wide
    seat = view.s_piles({"title": "Hand", "rows": [(0, {"ids": ids}), (1, {"count": 9})]})
    assert seat[:2] == ["Hand:", "  P1 (you):"] and seat[-1] == "  P2: 9 face down"
    assert all(line.startswith("    ") for line in seat[2:-1])  # the cards under the seat's name
