"""Moves attached to piles, groups, counters and board sides (issue 27): ``display.table``'s
``acts`` and ``display.board``'s ``side_acts`` put every move of Beer Flights, Beer Cards and
Little Railways, Drink & Beat's mug, Barman, Reserve, turning and ability moves (declining one
on the seat's hand, a beer mug token moved by an ability clicked among the tokens on the mats),
every move of Beer Knight (its Card Swaps on the deck drawn from, trades, Baronies, discard
piles), and Belgian Beers Race's ways of travel, tastings, buying, camping and ending the day (a
beer of one colour on its cell of the backpack, ``cells``), on a thing drawn on the table, so the browser takes them by
clicks on the table alone (no table-side control); nothing is attached on another seat's page."""

from __future__ import annotations

import random
import re
from html import unescape

import pytest

from interpreter import load_ruleset
from interpreter.errors import TapsterError
from interpreter.views.render import view_observation
from interpreter.views.webview import seat_html, table_acts
from tests.conftest import compiled, copy_ruleset, replace_once

#: data-acts of every thing drawn on the table, the controls and the fallback buttons left out.
_THINGS = re.compile(r'<(\w+)([^>]*?)data-acts="([^"]*)"')


def things_of(html: str) -> list[tuple[str, set[str]]]:
    """``(opening tag's attributes, action indexes)`` of each table thing in a page."""
    return [(attrs, set(acts.split())) for tag, attrs, acts in _THINGS.findall(html)
            if tag != "button" and 'class="control' not in attrs]


def single_out(things: list[tuple[str, set[str]]], i: int) -> bool:
    """Whether clicking every table thing naming action ``i`` leaves ``i`` alone (table.js narrows
    the actions to those naming everything clicked)."""
    naming = [s for _, s in things if str(i) in s]
    return bool(naming) and set.intersection(*naming) == {str(i)}


def games(name: str, variant: str | None, n: int = 4, players: int | None = None, **params):
    """``(ruleset, state)`` at every decision of ``n`` random games."""
    rs = load_ruleset(name, variant, {"params": params}) if params else compiled(name, variant)
    for seed in range(n):
        st = rs.new_game(players or rs.min_players, seed=seed)
        rng = random.Random(seed)
        while not st.is_terminal():
            yield rs, st
            legal = st.legal_actions()
            st.apply(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("name,variant,params,options", [
    ("beer_flights", None, {}, None),
    ("beer_flights", "five_player", {}, None),
    ("little_railways", None, {"rounds": 6}, None),
    ("beer_cards", None, {"games": 1}, None),
    ("brewhouse", None, {}, None),  # every action: a copy in the supply or the hand, the hand, the Buys counter
    ("beer_knight", "speed", {}, {"pick", "hmb", "pass", "last_call", "no_last_call", "stand"}),
    ("beer_knight", None, {}, {"pick", "hmb", "pass", "last_call", "no_last_call", "stand", "no_swap", "reroll",
                               "reroll_doubles", "swap_in", "keep_dice", "swap_foe", "keep_foe", "swap", "take",
                               "reroll_die", "reroll_picked", "reroll_low"}),
    ("beer_knight", "lazy_sunday", {}, {"swap", "no_swap", "draw_type"}),
    ("beer_knight", "tag_teams", {}, {"swap", "no_swap", "trade", "no_trade", "trade_back"}),
    ("beer_knight", "world_domination", {}, {"swap", "no_swap", "take_barony", "challenge_barony"}),
    ("drink_and_beat", None, {}, {"lay", "mug", "keep_mug", "barman"}),
    ("belgian_beers_race", None, {}, {"bike", "transport", "hitch", "taste", "buy", "eat_cheese", "camp", "end_day", "keep",
                                      "discard", "keep_beers", "sleep", "pay_hitch", "sip", "convert", "offer"}),
    ("drink_and_beat", "complex", {}, {"lay", "stack", "reserve", "mug", "keep_mug", "barman", "pick", "rotate", "use_ability",
                                       "skip_ability", "push", "no_push", "token_here", "token_to_cellar"}),
])
def test_moves_are_taken_by_clicking_table_things_alone(name, variant, params, options):
    seen: set[str] = set()
    for rs, st in games(name, variant, **params):
        p = st.current_players()[0]
        html = seat_html(rs, view_observation(st, p), [])
        things = things_of(html)
        for i, a in enumerate(st.legal_actions()):
            opt = a.name
            if options is None or opt in options:
                assert single_out(things, i), f"{a}: no clicks on table things single it out"
                seen.add(opt)
    wanted = options or set()
    assert wanted <= seen, f"never offered: {wanted - seen}"
    if name == "beer_flights":
        assert {"draw", "take", "keep", "start", "front", "back", "trash"} <= seen
    if name == "beer_cards":
        assert {"play", "stop"} <= seen
    if name == "brewhouse":
        assert {"buy", "pass", "play", "done", "trash", "keep"} <= seen


def test_beer_flights_the_things_carry_their_moves():
    rs = compiled("beer_flights")
    st = rs.new_game(2, seed=1)
    st.apply(next(a for a in st.legal_actions() if a.name == "draw"))
    st.apply(st.legal_actions()[0])  # keep one: now where does it go?
    p = st.current_players()[0]
    obs = view_observation(st, p)
    html = seat_html(rs, obs, [])
    texts = obs["decision"]["actions"]
    acts = table_acts(rs, obs)
    # flight 1 (group 0) of the seat's own flights carries "start flight 1", the Trash its "trash"
    assert [texts[i] for i in acts["zone:flight:0"]] == ["start(0)"]
    assert [texts[i] for i in acts["zone:trash"]] == ["trash"]
    assert "zone:flight:1" not in acts  # the second flight is started only after the first
    mine = re.search(r'<div class="seat-zone mine actionable" tabindex="0" data-acts="(\d+)">', html)
    assert mine and texts[int(mine.group(1))] == "trash"
    assert re.search(r'<div class="group actionable" tabindex="0" data-acts="(\d+)"><span class="group-name">1</span>', html)
    for other in range(st.num_players):  # another seat's page attaches nothing
        if other != p:
            assert "data-acts" not in seat_html(rs, view_observation(st, other), [])


def test_drink_and_beat_the_barman_goes_to_the_side_clicked():
    rs = compiled("drink_and_beat")
    for _, st in games("drink_and_beat", None, n=1):
        if st.legal_actions()[0].name == "barman":
            break
    else:
        pytest.fail("no Barman move")
    obs = view_observation(st, st.current_players()[0])
    html = seat_html(rs, obs, [])
    texts = obs["decision"]["actions"]
    sides = re.findall(r'<div class="board-side side-(\d+) actionable" tabindex="0" data-side="\1" data-acts="(\d+)">([^<]*)</div>',
                       html)
    assert sorted((int(s), texts[int(i)]) for s, i, _ in sides) == [(b, f"barman({b})") for b in (0, 90, 180, 270)]
    barman = obs["vars"]["barman"]
    if barman is not None:  # the marker stands on its side
        assert {int(s): unescape(t) for s, _, t in sides}[barman] == "[BARMAN]"


@pytest.mark.parametrize("old, new, message", [
    ("{hand: trash, title: Trash, acts: [trash]}", "{hand: trash, title: Trash, acts: [bin]}", "no option is named 'bin'"),
    ("{hand: trash, title: Trash, acts: [trash]}", "{hand: trash, title: Trash, acts: trash}", "is not of type 'array'"),
])
def test_bad_acts_are_errors_with_a_place(tmp_path, old, new, message):
    path = copy_ruleset(tmp_path, "beer_flights")
    replace_once(path, old, new)
    with pytest.raises(TapsterError) as exc:
        load_ruleset(str(path))
    text = str(exc.value)
    assert message in text and "ruleset.yaml:" in text


_KNIGHT_DECK = "{pile: Knight_deck, title: Knight deck, show: count, acts: [{option: swap, arg: Knight}, {option: draw_type, arg: Knight}]}"


@pytest.mark.parametrize("new, message", [
    ("{pile: Knight_deck, acts: [{option: swop, arg: Knight}]}", "no option is named 'swop'"),
    ("{pile: Knight_deck, acts: [{option: swap}]}", "'arg' is a required property"),
    ("{pile: Knight_deck, acts: [{option: swap, arg: [Knight]}]}", "['Knight'] is not of type 'string', 'number'"),
    ("{pile: Knight_deck, acts: [{option: swap, arg: Knight, when: always}]}", "'when' was unexpected"),
])
def test_bad_acts_with_an_argument_are_errors_with_a_place(tmp_path, new, message):
    path = copy_ruleset(tmp_path, "beer_knight")
    replace_once(path, _KNIGHT_DECK, new)
    with pytest.raises(TapsterError) as exc:
        load_ruleset(str(path))
    text = str(exc.value)
    assert message in text and "ruleset.yaml:" in text, text


def test_beer_knight_a_swap_is_the_card_given_up_then_the_deck_drawn_from():
    # Card Swap (R9): "discard a card and draw one of any type": swap(c, t) is on card c and on
    # the deck of type t, so the two clicks single it out; No Card Swap is on the Hidden Hand.
    rs = compiled("beer_knight")
    for _, st in games("beer_knight", None, n=2):
        legal = st.legal_actions()
        if not any(a.name == "swap" for a in legal):
            continue
        p = st.current_players()[0]
        obs = view_observation(st, p)
        texts = obs["decision"]["actions"]
        acts = table_acts(rs, obs)
        for t in ("Knight", "Mount", "Weapon"):
            assert sorted(texts[i] for i in acts[f"zone:{t}_deck"]) == sorted(str(a) for a in legal
                                                                             if a.name == "swap" and str(a).endswith(f", {t})"))
        assert [texts[i] for i in acts["zone:hand"]] == ["no_swap"]
        return
    raise AssertionError("no Card Swap in two games")


def test_beer_knight_the_card_under_a_discard_piles_top_is_drawn_only_when_taken():
    # Hold My Beer "take the top card of a discard pile" (R13): the card played lies on top of its
    # pile and the one under it is offered; the open pile shows it on the deciding seat's page
    # (with the move), and on no other page, where only the top is drawn.
    for rs, st in games("beer_knight", None, n=8):
        legal = st.legal_actions()
        p = st.current_players()[0]
        obs = view_observation(st, p)
        piles = [obs["zones"][z] for z in ("Knight_discard", "Mount_discard", "Weapon_discard")]
        under = [str(a).split("(")[1].rstrip(")") for a in legal if a.name == "take"
                 if any(str(a).split("(")[1].rstrip(")") in z[:-1] for z in piles)]
        if not under:
            continue
        html = seat_html(rs, obs, [])
        for cid in under:
            assert re.search(rf'data-id="{cid}"[^>]*data-acts="\d+"', html)
            for other in range(st.num_players):
                if other != p:
                    assert f'data-id="{cid}"' not in seat_html(rs, view_observation(st, other), [])
        return
    raise AssertionError("no card under a discard pile's top was offered in eight games")


def test_side_acts_name_options(tmp_path):
    path = copy_ruleset(tmp_path, "drink_and_beat")
    replace_once(path, "side_acts: [barman, rotate]", "side_acts: [barmen, rotate]")
    with pytest.raises(TapsterError) as exc:
        load_ruleset(str(path))
    assert "no option is named 'barmen'" in str(exc.value) and "ruleset.yaml:" in str(exc.value)


def test_beer_cards_a_draw_is_agreed_on_the_barrels_and_played_on_from_the_hands():
    # IX (R3): at a draw the tied players agree ("each receives a Beer Barrel") or play on ("put
    # one more card face down"): the seat's own Beer Barrels and hands carry them
    for found in games("beer_cards", None, n=40, games=1):
        if found[1].legal_actions()[0].name in ("agree", "play_on"):
            break
    else:
        pytest.fail("no draw in 40 games")
    rs, st = found
    p = st.current_players()[0]
    obs = view_observation(st, p)
    texts = obs["decision"]["actions"]
    acts = table_acts(rs, obs)
    assert [texts[i] for i in acts["zone:barrels"]] == ["agree"]
    assert [texts[i] for i in acts["zone:white_hand"]] == ["play_on"] == [texts[i] for i in acts["zone:black_hand"]]
    html = seat_html(rs, obs, [])
    things = things_of(html)
    assert all(single_out(things, i) for i in range(len(texts)))


def test_belgian_beers_race_a_move_is_the_node_and_the_way_of_travel():
    # the map node names bike, bus and thumb to it; the seat's own row of "By bike", "By public
    # transport" or "Hitchhiking" picks the way: node + way single the move out
    rs = compiled("belgian_beers_race")
    st = rs.new_game(3, seed=0)
    p = st.current_players()[0]
    obs = view_observation(st, p)
    texts = obs["decision"]["actions"]
    acts = table_acts(rs, obs)
    for var, option in (("bike_run", "bike"), ("sips", "transport"), ("tries", "hitch")):
        assert [texts[i] for i in acts[f"var:{var}"]] == [t for t in texts if t.startswith(option + "(")] != []
    assert sorted(texts[i] for i in acts["node:B9"]) == ["bike(B9)", "hitch(B9)", "transport(B9)"]
    html = seat_html(rs, obs, [])
    for var in ("bike_run", "sips", "tries"):  # the seat's own value alone carries the moves
        section = re.search(rf'<section class="counter" data-var="{var}">(.*?)</section>', html).group(1)
        assert section.count("data-acts") == 1 and section.count('class="value') == 3
    things = things_of(html)
    assert all(single_out(things, i) for i in range(len(texts)))
    assert "table-controls" not in html  # nothing left for a control
    for other in range(3):
        if other != p:
            assert "data-acts" not in seat_html(rs, view_observation(st, other), [])


def test_drink_and_beat_a_mat_is_turned_by_clicking_it_then_a_side():
    # rotate(m, a): the mat m in its place, then the side a bears (90 east: a quarter turn
    # clockwise; 180 south; 270 west) — side_acts reads an action's first whole-number argument
    for found in games("drink_and_beat", "complex", n=6):
        if found[1].legal_actions()[0].name == "rotate":
            break
    else:
        pytest.fail("no mat turned in 6 games")
    rs, st = found
    obs = view_observation(st, st.current_players()[0])
    texts = obs["decision"]["actions"]
    acts = table_acts(rs, obs)
    for a in (90, 180, 270):
        assert sorted(texts[i] for i in acts[f"side:{a}"]) == sorted(t for t in texts if t.endswith(f", {a})"))
    assert "side:0" not in acts  # no turn leaves the mat as it is
    things = things_of(seat_html(rs, obs, []))
    assert all(single_out(things, i) for i in range(len(texts)))


def _first_decision(name: str, variant: str | None, option: str, n: int = 12, **params):
    """``(ruleset, state)`` at the first decision of ``n`` random games offering ``option``."""
    for rs, st in games(name, variant, n=n, **params):
        if any(a.name == option for a in st.legal_actions()):
            return rs, st
    pytest.fail(f"no {option} in {n} games")


@pytest.mark.parametrize("option", ["sip", "convert"])
def test_belgian_beers_race_a_beer_of_one_colour_is_its_cell_of_the_backpack(option):
    # sip(c) / convert(c): c is the colour's index; the seat's own row of the backpack (bp, seat
    # p's four colours from p * 4) has a cell per colour, cell c carrying the move with colour c
    rs, st = _first_decision("belgian_beers_race", None, option, n=20)
    p = st.current_players()[0]
    obs = view_observation(st, p)
    texts = obs["decision"]["actions"]
    acts = table_acts(rs, obs)
    bp = obs["vars"]["bp"]
    for c in range(len(rs.params["colours"])):
        on = [texts[i] for i in acts.get(f"var:bp:{c}", [])]
        assert on == ([f"{option}({c})"] if f"{option}({c})" in texts else [])
        if bp[p * 4 + c] == 0:
            assert f"{option}({c})" not in texts  # no beer of that colour: no move, nothing on its cell
    html = seat_html(rs, obs, [])
    section = re.search(r'<section class="counter cells" data-var="bp">(.*?)</section>', html).group(1)
    rows = re.findall(r'<div class="counter-row( mine)?">(.*?)</div>', section)
    assert len(rows) == st.num_players and rows[0][0] == " mine"  # the seat's own row first
    for c, colour in enumerate(rs.params["colours"]):  # each cell: its colour's name and the seat's count
        assert re.search(rf'data-cell="{c}"[^>]*>{colour} <b>{bp[p * 4 + c]}</b>', rows[0][1])
    assert all("data-acts" not in body for _, body in rows[1:])  # another seat's row carries nothing
    things = things_of(html)
    assert all(single_out(things, i) for i in range(len(texts)))
    for other in range(st.num_players):
        if other != p:
            assert "data-acts" not in seat_html(rs, view_observation(st, other), [])


def test_belgian_beers_race_hitchhiking_paid_with_beers_is_the_backpack_then_the_node():
    rs, st = _first_decision("belgian_beers_race", None, "pay_hitch", n=20)
    obs = view_observation(st, st.current_players()[0])
    texts = obs["decision"]["actions"]
    acts = table_acts(rs, obs)
    assert [texts[i] for i in acts["var:bp"]] == [t for t in texts if t.startswith("pay_hitch(")] != []
    node = texts[acts["var:bp"][0]][len("pay_hitch("):-1]
    both = set(acts["var:bp"]) & set(acts[f"node:{node}"])
    assert [texts[i] for i in both] == [f"pay_hitch({node})"]


def test_belgian_beers_race_a_beer_offered_is_the_givers_cell_of_the_backpack():
    # issue 43 (R3): offer(c), a beer given in a toast or to a motorist, is cell c of the giver's
    # own backpack row, also when the giver is a toasted player choosing out of turn
    rs, st = _first_decision("belgian_beers_race", None, "offer", n=20)
    p = st.current_players()[0]
    obs = view_observation(st, p)
    texts = obs["decision"]["actions"]
    acts = table_acts(rs, obs)
    assert all(t.startswith("offer(") for t in texts) and len(texts) > 1
    for c in range(len(rs.params["colours"])):
        assert [texts[i] for i in acts.get(f"var:bp:{c}", [])] == ([f"offer({c})"] if f"offer({c})" in texts else [])
    html = seat_html(rs, obs, [])
    assert all(single_out(things_of(html), i) for i in range(len(texts)))
    for other in range(st.num_players):
        if other != p:
            assert "data-acts" not in seat_html(rs, view_observation(st, other), [])


def test_belgian_beers_race_the_redeeming_cheese_is_the_cheese_and_sleep_the_breathalyzer():
    # issue 43 (R4): a taste that would put P1 to sleep asks: eat the cheese (a click on the
    # cheese strap) or fall asleep (a click on the breathalyzer)
    rs = compiled("belgian_beers_race")

    def position(st):
        st.vars.update(time=[0, 20], breath=[7, 0], cheese=[1, 0], bp=[2, 0, 0, 0, 0, 0, 0, 0])

    st = rs.new_game(2, seed=0, position=position)
    st.apply("transport(B9)")
    st.apply("sip(0)")
    obs = view_observation(st, 0)
    texts = obs["decision"]["actions"]
    assert sorted(texts) == ["eat_cheese", "fall_asleep"]
    acts = table_acts(rs, obs)
    assert [texts[i] for i in acts["var:cheese"]] == ["eat_cheese"]
    assert [texts[i] for i in acts["var:breath"]] == ["fall_asleep"]
    assert all(single_out(things_of(seat_html(rs, obs, [])), i) for i in range(len(texts)))


def test_beer_knight_a_die_picked_for_a_reroll_is_that_die():
    # issue 43 (R3): reroll_die(i) is die i of the seat's own dice (the pool drawn as cells, as
    # many as the dice rolled); rerolling the dice picked is on the rerolls left
    rs, st = _first_decision("beer_knight", None, "reroll_die", n=12)
    p = st.current_players()[0]
    obs = view_observation(st, p)
    texts = obs["decision"]["actions"]
    acts = table_acts(rs, obs)
    for i in range(len(obs["vars"]["pool"][p])):
        assert [texts[k] for k in acts.get(f"var:pool:{i}", [])] == [f"reroll_die({i})"]
    html = seat_html(rs, obs, [])
    section = re.search(r'<section class="counter cells" data-var="pool">(.*?)</section>', html).group(1)
    assert len(re.findall(r'data-cell="\d+"', section)) == sum(len(d) for d in obs["vars"]["pool"])
    assert all(single_out(things_of(html), i) for i in range(len(texts)))
    st.apply(f"reroll_die({len(obs['vars']['pool'][p]) - 1})")
    if not st.is_terminal() and any(a.name == "reroll_picked" for a in st.legal_actions()):
        obs = view_observation(st, p)
        texts = obs["decision"]["actions"]
        assert [texts[k] for k in table_acts(rs, obs)["var:rerolls"]] == ["reroll_picked"]


def test_a_counter_with_cells_in_the_terminal_names_each_cell():
    from interpreter.views.termview import seat_text

    rs = compiled("belgian_beers_race")
    st = rs.new_game(2, seed=0)
    text = seat_text(rs, view_observation(st, 0))
    assert "Backpack: beers by colour: P1 (you) yellow 0, brown 0, red 0, black 0; P2 yellow 0, brown 0, red 0, black 0" in text


def test_drink_and_beat_declining_is_the_seats_hand():
    for option, yes in (("skip_ability", "use_ability"), ("no_push", "push")):
        rs, st = _first_decision("drink_and_beat", "complex", option, n=12)
        p = st.current_players()[0]
        obs = view_observation(st, p)
        texts = obs["decision"]["actions"]
        acts = table_acts(rs, obs)
        assert [texts[i] for i in acts["zone:hand"]] == [option]
        assert [texts[i] for i in acts["var:active"]] == [yes]
        html = seat_html(rs, obs, [])
        mine = re.search(r'<div class="seat-zone mine actionable" tabindex="0" data-acts="(\d+)">', html)
        assert mine and texts[int(mine.group(1))] == option
        assert all(single_out(things_of(html), i) for i in range(len(texts)))


def test_drink_and_beat_a_mug_token_moved_by_an_ability_is_clicked_then_its_destination():
    rs, st = _first_decision("drink_and_beat", "complex", "token_here", n=60)
    obs = view_observation(st, st.current_players()[0])
    texts = obs["decision"]["actions"]
    acts = table_acts(rs, obs)
    html = seat_html(rs, obs, [])
    section = re.search(r'<section class="zone keyed-zone" data-zone="mugs_on">(.*?)</section>', html, re.S).group(1)
    assert "owner: " not in html  # a token reads as its face says, never its raw 0-based `owner` field
    for i, t in enumerate(texts):
        token = t[t.index("(") + 1:-1]
        assert re.search(rf'data-id="{token}"[^>]*data-acts="[^"]*\b{i}\b', section) or token.startswith("reserve")
        other = "var:active" if t.startswith("token_here(") else "zone:cellar"
        assert [texts[k] for k in set(acts[token]) & set(acts[other])] == [t]
    assert all(single_out(things_of(html), i) for i in range(len(texts)))


@pytest.mark.parametrize("old, new, message", [
    ("cells: colours, acts", "cells: hues, acts", "no parameter 'hues'"),
    ("cells: colours, acts", "cells: day_names, acts", None),  # a parameter holding names: fine
    ("cells: colours, acts", "cells: days, acts", "must be a non-empty list of names"),
    ("cells: colours, acts", "cells: [], acts", "should be non-empty"),
    ("{track: tasted, title: Tasted beers, min: 0,", "{track: tasted, title: Tasted beers, cells: colours, min: 0,",
     "`cells` is for a counter, not a track"),
])
def test_bad_cells_are_errors_with_a_place(tmp_path, old, new, message):
    path = copy_ruleset(tmp_path, "belgian_beers_race")
    replace_once(path, old, new)
    if message is None:
        load_ruleset(str(path))
        return
    with pytest.raises(TapsterError) as exc:
        load_ruleset(str(path))
    text = str(exc.value)
    assert message in text and "ruleset.yaml:" in text


def test_cells_of_a_per_player_list_and_of_a_shared_run():
    # a per-player variable: each seat's own list; a shared list: seat p's run from p * k; any
    # other shape (or a withheld value) is drawn as a plain counter
    from types import SimpleNamespace

    from interpreter.views.view import _Sections

    rs = SimpleNamespace(vars={"mine": SimpleNamespace(per_player=True), "flat": SimpleNamespace(per_player=False)})
    obs = {"num_players": 2, "player": 1, "vars": {"mine": [[1, 2], [3, 4]], "flat": [1, 2, 3, 4, 5, 6], "odd": [1, 2]}}
    sec = _Sections(rs, obs)
    assert sec.cell_rows("mine", obs["vars"]["mine"], 2) == [(1, [3, 4]), (0, [1, 2])]  # the viewer's own first
    assert sec.cell_rows("flat", obs["vars"]["flat"], 3) == [(1, [4, 5, 6]), (0, [1, 2, 3])]
    assert sec.cell_rows("flat", obs["vars"]["flat"], 4) == [(None, [1, 2, 3, 4, 5, 6])]  # too short for two runs of 4
    assert sec.cell_rows("hidden", None, 2) == [(None, None)]
    # a per-player list shorter than the cells (dice rolled so far) fills the first ones; a
    # longer one is a plain counter
    obs["vars"]["dice"] = [[5], [2, 10, 7]]
    assert sec.cell_rows("mine", obs["vars"]["dice"], 3) == [(1, [2, 10, 7]), (0, [5])]
    assert sec.cell_rows("mine", obs["vars"]["dice"], 2) == [(1, [2, 10, 7]), (0, [5])] == sec.var_rows("mine", obs["vars"]["dice"])
