"""The static check that keeps a display's text public (interpreter/views/publicity.py, render.py).

A header, footer or board that could read what some seat may not see is left out of every
seat's view and shown only to an observer; the check names what it reads.
"""

from __future__ import annotations

import pytest

from interpreter import load_ruleset
from interpreter.views.publicity import Knowledge, private_read
from interpreter.views.render import render_board, view_observation
from interpreter.views.termview import seat_text

K = Knowledge(
    zones={"hand": "owner", "deck": "hidden", "field": "public"},
    vars_={"score": "public", "coin": "owner", "secret": "hidden"},
    params=["marks"], maps=[], functions={}, mutable=["tapped"],
)


@pytest.mark.parametrize("text", [
    "len(hand[p])", "len(deck)", "[c.name for c in field]", "score[p] + 1", "marks[current]",
    "[c.name for c in components('card')]", "{1: len(deck)}", "turns_taken[p] if phase == 'x' else players",
])
def test_public_reads(text):
    assert private_read(text, K, {"p": 0}) is None


@pytest.mark.parametrize(("text", "why"), [
    ("hand[p]", "`hand` (a zone declared `visibility: owner`) other than by len"),
    ("top(deck)", "top"),
    ("coin[p]", "`coin`"),
    ("secret", "`secret`"),
    ("sum(c.tapped for c in components('card'))", "tapped"),
    ("[c for c in deck]", "zone"),
    ("zone_of(component('card-1'))", "zone_of"),
    ("c in hand[0]", "`c`"),
    ("deck", "zone"),
    ("str(hand)", "zone"),
])
def test_private_reads_name_what_they_read(text, why):
    reason = private_read(text, K, {"p": 0})
    assert reason is not None and why in reason


RULESET = """
name: secrets
players: {min: 2, max: 2}
components:
  card: {items: [{n: 1}, {n: 2}, {n: 3}], label: "card {n}", start: deck}
zones:
  deck: {visibility: hidden}
  hand: {per_player: true, visibility: owner}
functions:
  held: {params: [p], value: "hand[p]"}
  count_of: {params: [p], value: "len(hand[p])"}
setup:
  - shuffle: deck
  - for_each: {in: players, as: p, do: [{move: {from: deck, to: "hand[p]"}}]}
flow:
  - turn: {player: 0, do: [{choose: {options: [{action: stop, do: [{end_game: done}]}]}}]}
display:
  header:
    - "cards in hands: {[count_of(p) for p in players]}"
    - "P1 holds {held(0)}"
  footer:
    - {for: p, in: players, text: "P{p + 1} holds {hand[p]}"}
    - "deck: {len(deck)} cards"
  table:
    - {hand: hand}
"""


def test_private_lines_show_only_to_an_observer(tmp_path):
    path = tmp_path / "ruleset.yaml"
    path.write_text(RULESET, encoding="utf-8")
    rs = load_ruleset(str(path))
    parts = rs.display.private_parts()
    assert [(where, "held" in why or "zone" in why) for where, _, why, _ in parts] == [
        ("display.header[1]", True), ("display.footer[0]", True)]
    st = rs.new_game(2, seed=3)
    mine = st.zones["hand"][0][0].label
    theirs = st.zones["hand"][1][0].label
    for p, own, other in ((0, mine, theirs), (1, theirs, mine)):
        obs = view_observation(st, p)
        assert obs["display"]["header"] == ["cards in hands: 1, 1"]
        assert obs["display"]["footer"] == ["deck: 1 cards"]
        text = seat_text(rs, obs)
        assert own in text and other not in text
    # header[1] and footer[0], at their lines of RULESET (which starts with an empty line)
    assert [str(mark).rsplit(":", 2)[1:] for *_, mark in parts] == [["20", "7"], ["22", "7"]]
    everything = render_board(st)
    assert f"P1 holds {mine}" in everything and f"P2 holds {theirs}" in everything


def test_bad_display_items_are_clear_errors(tmp_path):
    from interpreter.errors import TapsterError

    base = ("name: d\nplayers: {min: 1, max: 1}\nvars: {score: 0}\nzones: {deck: {}, secret: {visibility: hidden}}\n"
            "flow: [{end_game: done}]\ndisplay:\n")
    for table, words in [
        ("  table: [{track: score, max: nowhere}]\n", "there is no parameter 'nowhere'"),
        ("  table: [{hand: deck}]\n", "`hand` names a per-player zone"),
        ("  table: [{hand: deck, pile: deck}]\n", "exactly one of hand, pile, track, counter"),
        ("  table: [{counter: nothing}]\n", "`counter` must name a declared variable"),
        ("  table: [{pile: nowhere}]\n", "`pile` must name a declared zone"),
        ("  board: {zone: deck, places: '[]', cell: [x]}\n", "not both"),
        ("  table: [{pile: deck, if: 'top(secret) is none'}]\n", "may read only public information"),
    ]:
        path = tmp_path / "ruleset.yaml"
        path.write_text(base + table, encoding="utf-8")
        with pytest.raises(TapsterError) as info:
            load_ruleset(str(path))
        assert words in str(info.value), (table, str(info.value))
    path.write_text(base + "  board: {places: '[1, 2]', cell: [x]}\n", encoding="utf-8")
    st = load_ruleset(str(path)).new_game(1)
    with pytest.raises(TapsterError, match="must give \\(place, value\\) pairs"):
        view_observation(st, 0)


def test_a_table_item_with_if_is_drawn_only_while_it_holds():
    # Drink & Beat's simple game has no Boozy Troll coins: the table leaves their item out.
    from interpreter.views.termview import seat_text as text_of
    from tests.conftest import compiled

    simple, complex_ = compiled("drink_and_beat"), compiled("drink_and_beat", "complex")
    assert "Boozy Troll coin" not in text_of(simple, view_observation(simple.new_game(2, seed=1), 0))
    assert "Boozy Troll coin:" in text_of(complex_, view_observation(complex_.new_game(2, seed=1), 0))
