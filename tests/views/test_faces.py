"""Card faces as data (issue 27): ``display.faces`` composes each card's face from its table row
and the shared ability vocabulary in words (``display.abilities``); faces are shown wherever
the card is visible to the seat (hand, Combo, table, beside option labels, in full on request)
and nowhere else."""

from __future__ import annotations

import csv
import io
import random
import re

import pytest
from rich.console import Console

from interpreter import load_ruleset
from interpreter.agents.core import HumanAgent
from interpreter.errors import TapsterError
from interpreter.views.faces import face_of
from interpreter.views.render import view_observation
from interpreter.views.terminal import numbered, option_names
from interpreter.views.termview import seat_text
from interpreter.views.view import action_cards, visible_ids
from interpreter.views.webview import seat_html
from tests.conftest import compiled, copy_ruleset, replace_once

#: a raw ability name or any other snake_case identifier (never shown to a player)
SNAKE = re.compile(r"\b[a-z0-9]+_[a-z0-9_]+\b")


def _cards_csv() -> list[dict]:
    rs = compiled("beer_knight")
    with open(rs.path.parent / "cards.csv", newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def test_beer_knight_faces_are_composed_from_the_row():
    rs = compiled("beer_knight")
    duchess = face_of(rs, "card-k01")
    # Figure 4's Red Duchess: Card Power 4, Pairings to the Red Horse and an Edged Weapon, her LC steals a Weapon
    assert duchess.title == "The Red Duchess" and duchess.short == "The Red Duchess (Knight 4)"
    assert duchess.lines == (
        "Knight · Card Power 4 · Dark border",
        "Style: Amber",
        "Pairing: The Red Horse in your Combo",
        "Second Pairing: a card of the Edged style in your Combo, +1 Battle Bonus",
        "When paired: steal a random card from your opponent's Hidden Hand",
        "Liquid Courage: steal a random Weapon from your opponent's Hidden Hand and add it to your Combo",
    )
    rammy = face_of(rs, "card-w02")  # Figure 5: Rammy Tammy's HMB removes a Knight; two styles; Drinking Contests
    assert "Style: Weird and Blunt" in rammy.lines and "Hold My Beer: remove the Knight from your opponent's Combo" in rammy.lines
    assert "Connected to Drinking Contest Challenges" in rammy.lines
    porter = face_of(rs, "card-k07")
    assert "Pairing: against an opponent's card of the Golden style, +4 Battle Bonus" in porter.lines


def test_every_beer_knight_card_has_a_face_in_words():
    rs = compiled("beer_knight")
    rows = {f"card-{r['key']}": r for r in _cards_csv()}
    words = {r[k] for r in rows.values() for k in ("lc", "hmb", "pair_ab", "ch_ab") if r[k]}
    assert len(words) > 15
    for c in rs.kinds["card"].components:
        face = face_of(rs, c.id)
        r = rows[c.id]
        assert face is not None and face.title == r["name"]
        text = "\n".join(face.lines)
        assert not SNAKE.search(text), (c.id, text)
        assert f"Card Power {r['power']}" in text and f"{r['border']} border" in text
        # one line per ability slot the row fills, with the slot's name as printed on a card
        for col, title in (("lc", "Liquid Courage"), ("hmb", "Hold My Beer"), ("pair_ab", "When paired")):
            assert (f"\n{title}: " in "\n" + text) == bool(r[col]), (c.id, col)
        if r["lc"] == "bonus":  # the template's argument: `bonus 3` -> "+3 to your Battle Bonus"
            assert f"Liquid Courage: +{r['lc_arg']} to your Battle Bonus" in face.lines
    # a Challenge or Barony has no face: it shows its label as before
    assert face_of(rs, rs.kinds["challenge"].components[0].id) is None


def _decision(name: str, variant: str | None, seed: int, want) -> tuple:
    rs = compiled(name, variant)
    st = rs.new_game(rs.default_players, seed=seed, log=True)
    rng = random.Random(seed)
    for _ in range(3000):
        if st.is_terminal():
            st = rs.new_game(rs.default_players, seed=rng.randrange(10**6), log=True)
        d = st.decision()
        if d is not None and want(st, d):
            return rs, st
        st.apply(rng.choice(st.legal_actions()))
    raise AssertionError("no such decision")


def _play_one(st, answers: list[str]) -> str:
    buf = io.StringIO()
    it = iter(answers)
    HumanAgent(console=Console(file=buf, width=250, highlight=False, color_system=None), read=lambda _: next(it)).act(
        st, st.current_players()[0])
    return buf.getvalue()


def test_a_beer_knight_decision_shows_each_options_card_face_and_no_identifier():
    rs, st = _decision("beer_knight", None, 3, lambda st, d: len(d.actions) >= 3 and str(d.actions[0]).startswith("pick("))
    p = st.current_players()[0]
    out = _play_one(st, ["look 2", "1"])
    lines = out.splitlines()
    listed = numbered(st.decision(), option_names(st))
    for i, action, label in listed:
        at = lines.index(f"  {i:>2}. {label}")
        (card,) = [a for a in action.args]
        # the face on the next line, as the card is printed; in the hand too, in short
        assert lines[at + 1].strip() == face_of(rs, card.id).one_line()
        assert face_of(rs, card.id).short in out.split("Hidden Hand:\n")[1].split("\n  P2")[0]
    # `look 2` prints option 2's card in full
    full = face_of(rs, listed[1][1].args[0].id)
    start = lines.index(full.title, lines.index(f"  {len(listed):>2}. {listed[-1][2]}"))
    assert lines[start + 1:start + 1 + len(full.lines)] == [f"  {x}" for x in full.lines]
    # no internal identifier: no component id, no canonical action text, no snake_case word
    assert "card-" not in out and "pick(" not in out
    assert not SNAKE.search(out.split("== Beer Knight")[1]), SNAKE.search(out.split("== Beer Knight")[1])
    assert p == st.current_players()[0]


def test_hold_my_beer_options_read_in_words():
    # issue 27: "Pils Pig (from_discard)" - now the card's Hold My Beer in words beside the option
    rs, st = _decision("beer_knight", None, 5, lambda st, d: any(str(a).startswith("hmb(") for a in d.actions))
    out = _play_one(st, ["1"])
    for i, action, label in numbered(st.decision(), option_names(st)):
        if action.args:
            face = face_of(rs, action.args[0].id)
            assert label == f"Play the Hold My Beer of {face.title}"
            hmb = [line for line in face.lines if line.startswith("Hold My Beer: ")]
            assert len(hmb) == 1 and hmb[0] in out.split(f"  {i:>2}. {label}")[1].splitlines()[1]
    assert not SNAKE.search(out.split("== Beer Knight")[1])


def test_look_at_an_option_naming_no_card_and_a_bad_number():
    rs, st = _decision("tic_tac_toe", None, 1, lambda st, d: True)
    out = _play_one(st, ["look 1", "look 99", "1"])
    assert "option 1 (" in out and "names no card you can see" in out
    assert "there is no option 99: the options are 1 to 9" in out


def test_faces_are_drawn_only_for_cards_the_seat_sees():
    rs = compiled("beer_knight")
    st = rs.new_game(2, seed=4, log=True)
    for p in (0, 1):
        obs = view_observation(st, p)
        seen = visible_ids(rs, obs)
        mine = [c.id for c in st.zones["hand"][p]]
        other = [c.id for c in st.zones["hand"][1 - p]]
        assert set(mine) <= seen and not set(other) & seen
        text, html = seat_text(rs, obs), seat_html(rs, obs, [])
        for cid in mine:
            f = face_of(rs, cid)
            assert f.short in text and all(line in html.replace("&#x27;", "'") for line in f.lines)
        for cid in other:
            assert face_of(rs, cid).short not in text and face_of(rs, cid).short not in html
        # an action naming a card the seat cannot see shows no face (a ruleset may list such options)
        from interpreter.model import Action

        hidden = rs.by_id[other[0]]
        assert action_cards(rs, obs, Action("x", (hidden,))) == []
        assert action_cards(rs, obs, Action("x", (rs.by_id[mine[0]],))) == [face_of(rs, mine[0])]


def test_a_face_in_the_browser_shows_on_hover_and_focus():
    rs = compiled("beer_knight")
    st = rs.new_game(2, seed=4, log=True)
    html = seat_html(rs, view_observation(st, 0), [])
    cid = st.zones["hand"][0][0].id
    m = re.search(rf'<div class="card has-face[^"]*" data-id="{cid}" tabindex="0" title="([^"]*)">([^<]*)<div class="face" role="tooltip">',
                  html)
    assert m and m.group(2) == face_of(rs, cid).short.replace('"', "&quot;")
    assert "lc: " not in html and "hmb: " not in html  # the raw fields are gone from the tooltips


@pytest.mark.parametrize("old, new, message", [
    ("  faces:\n    card:\n", "  faces:\n    cards:\n", "there is no kind 'cards'"),
    ("    bonus: \"+{arg} to your Battle Bonus\"\n", "", "has the Liquid Courage ability 'bonus', which has no text"),
    ("        - {title: Liquid Courage, name: lc, arg: lc_arg}", "        - {title: Liquid Courage, name: lcx, arg: lc_arg}",
     "has no field 'lcx'"),
    ("      short: \"{name} ({type} {power})\"", "      short: \"{name} ({slot})\"", "slot"),
    ("      short: \"{name} ({type} {power})\"", "      short: \"{name} ({len(hand)})\"", "hand"),
])
def test_bad_faces_are_errors_with_a_place(tmp_path, old, new, message):
    path = copy_ruleset(tmp_path, "beer_knight")
    replace_once(path, old, new)
    with pytest.raises(TapsterError) as exc:
        load_ruleset(str(path))
    text = str(exc.value)
    assert message in text and "ruleset.yaml:" in text


# -- labels in words: `tapster check` flags a raw table cell ------------------------------------------

def test_raw_cells_are_the_snake_case_words_of_the_tables():
    from interpreter.analysis.check import raw_cells

    cells = raw_cells(compiled("beer_knight"))
    assert {"from_discard", "force_lowest", "reroll_challenge", "steal_to_combo"} <= set(cells)
    assert cells["steal_to_combo"] == ("card-k01", "lc")
    assert "Knight" not in cells and "bonus" not in cells  # words people read are not identifiers
    assert raw_cells(compiled("tic_tac_toe")) == {}


def test_check_flags_a_log_line_showing_a_raw_ability_name(tmp_path):
    from interpreter.analysis.check import run_check

    path = copy_ruleset(tmp_path, "beer_knight")
    replace_once(path, '''- log: "P{p + 1} plays the Liquid Courage of {k.name}"''',
                 '''- log: "P{p + 1}: {k.name}'s Liquid Courage: {k.lc}"''')
    result = run_check(load_ruleset(str(path)), "templates render", seeds=range(1, 9))
    assert not result.ok
    assert result.detail.startswith("the log line \"P{p + 1}: {k.name}'s Liquid Courage: {k.lc}\" at ")
    assert "ruleset.yaml:" in result.detail and "a raw table cell (the `lc` of card-" in result.detail
    assert "display.faces" in result.detail and result.seed is not None and result.actions
    # the shipped ruleset says it in words and passes
    assert run_check(compiled("beer_knight"), "templates render", seeds=range(1, 9)).ok
