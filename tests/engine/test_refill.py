"""A deck's refill policy (`refill_from`, `refill_when` on the zone): `on_draw` refills an empty
deck when a move draws from it; `immediately` refills it as soon as a move leaves it empty (and
after any move while it is empty and its source is not).  A tiny ruleset, not a shipped game."""

from __future__ import annotations

from collections import Counter

import pytest

from interpreter import load_ruleset
from interpreter.engine.rng import Rng
from interpreter.errors import TapsterError

RULESET = """\
name: Refill
players: {{min: 2, max: 2}}
components:
  card:
    items: [{{value: 1}}, {{value: 2}}, {{value: 3}}, {{value: 4}}]
    start: deck
zones:
  deck: {{visibility: hidden, refill_from: discard{when}}}
  discard: {{visibility: public}}
  hand: {{per_player: true, visibility: owner}}
vars:
  seen: []
outcome:
  score: "0"
setup:
  - shuffle: deck
flow:
  - move: {{from: deck, to: discard, count: 2}}
  - move: {{from: deck, to: "hand[0]", count: 2}}
  - set: {{seen: "seen + [(len(deck), len(discard))]"}}
  - move: {{what: "hand[0][0]", from: "hand[0]", to: discard}}
  - set: {{seen: "seen + [(len(deck), len(discard))]"}}
  - move: {{from: deck, to: "hand[1]", count: 1}}
  - set: {{seen: "seen + [(len(deck), len(discard))]"}}
"""


def _ruleset(tmp_path, when):
    path = tmp_path / "ruleset.yaml"
    path.write_text(RULESET.format(when=when), encoding="utf-8")
    return load_ruleset(path)


def _seen(rs, seed=0, chance=None):
    st = rs.new_game(2, seed=seed, log=True, **({"chance": chance} if chance else {}))
    rng = Rng(seed)
    while st.is_chance():
        st.apply(st.sample_chance(rng))
    assert st.is_terminal()
    return [tuple(x) for x in st.vars["seen"]], st


@pytest.mark.parametrize("when", ["", ", refill_when: on_draw"])
def test_on_draw_refills_only_when_a_draw_finds_the_deck_empty(tmp_path, when):
    seen, st = _seen(_ruleset(tmp_path, when))
    # emptied by the deal, the deck stays empty; the card discarded next joins the discards, and
    # all three are shuffled into the deck only when the last move draws from it
    assert seen == [(0, 2), (0, 3), (2, 0)]
    assert "deck was empty: discard shuffled into it" in "\n".join(st.visible_log())


def test_immediately_refills_as_the_deck_runs_out(tmp_path):
    seen, st = _seen(_ruleset(tmp_path, ", refill_when: immediately"))
    # the draw that empties the deck shuffles the discards in at once; the card discarded
    # afterwards stays on the discard pile, and the next draw comes from the rebuilt deck
    assert seen == [(2, 0), (2, 1), (1, 1)]
    assert len(st.zones["hand"][1]) == 1 and st.zones["hand"][1][0] not in st.zones["hand"][0]


def test_immediately_waits_for_a_source_to_refill_from(tmp_path):
    path = tmp_path / "ruleset.yaml"
    text = RULESET.format(when=", refill_when: immediately").split("flow:\n")[0] + """\
flow:
  - move: {from: deck, to: "hand[0]", count: 4}
  - set: {seen: "seen + [(len(deck), len(discard))]"}
  - move: {what: "hand[0][0]", to: discard}
  - set: {seen: "seen + [(len(deck), len(discard))]"}
"""
    path.write_text(text, encoding="utf-8")
    seen, _ = _seen(load_ruleset(path))
    # nothing to shuffle when the deck ran out; the first card discarded rebuilds it at once
    # (a move with `what` and no `from` too)
    assert seen == [(0, 0), (1, 0)]


def test_immediately_is_the_same_game_with_explicit_chance(tmp_path):
    rs = _ruleset(tmp_path, ", refill_when: immediately")
    seen, _ = _seen(rs, chance="explicit")
    assert seen == [(2, 0), (2, 1), (1, 1)]
    # the refill is a lazy deal: the card drawn from the rebuilt deck is one of the two cards
    # discarded first (never one of the hand's), and its draw is a chance point of two outcomes
    drawn = Counter()
    for seed in range(40):
        _, st = _seen(rs, seed=seed, chance="explicit")
        held = {c.id for c in st.zones["hand"][0]} | {c.id for c in st.zones["discard"]}
        assert len(held) == 2 and st.zones["hand"][1][0].id not in held
        drawn[st.zones["hand"][1][0].id] += 1
    assert len(drawn) == 4


@pytest.mark.parametrize(
    ("zone", "message"),
    [
        ("deck: {visibility: hidden, refill_when: immediately}", "needs `refill_from`"),
        ("deck: {per_player: true, refill_from: discard, refill_when: immediately}",
         "refills each seat's from that seat's own zone, so `refill_from` names a per-player zone bare"),
        ("deck: {per_player: true, count: 2, refill_from: discard, refill_when: immediately}", "found `count`"),
        ("deck: {visibility: hidden, refill_from: discard, refill_when: later}", "refill_when"),
    ],
)
def test_a_bad_refill_policy_is_refused_with_its_place(tmp_path, zone, message):
    text = RULESET.format(when="").replace("deck: {visibility: hidden, refill_from: discard}", zone)
    path = tmp_path / "ruleset.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TapsterError) as exc:
        load_ruleset(path)
    assert message in str(exc.value) and "ruleset.yaml:" in str(exc.value)


PER_SEAT = """\
name: Seats
players: {min: 2, max: 3}
components:
  card:
    items: [{value: 1}, {value: 2}, {value: 3}, {value: 4}, {value: 5}, {value: 6}]
    start: pool
zones:
  pool: {visibility: public}
  draw_pile: {per_player: true, visibility: hidden, refill_from: discard_pile}
  discard_pile: {per_player: true, visibility: public}
  hand: {per_player: true, visibility: owner}
vars:
  seen: []
outcome:
  score: "0"
setup:
  - move: {from: pool, to: "draw_pile[0]", count: 2}
  - move: {from: pool, to: "discard_pile[0]", count: 1}
  - move: {from: pool, to: "discard_pile[1]", count: 3}
flow:
  - move: {from: "draw_pile[0]", to: "hand[0]", count: 3}
  - move: {from: "draw_pile[1]", to: "hand[1]", count: 2}
  - set: {seen: "[(len(draw_pile[1]), len(discard_pile[1]), len(discard_pile[0]))]"}
"""


@pytest.mark.parametrize("chance", [None, "explicit"])
def test_a_per_player_zone_refills_from_the_same_seats_zone(tmp_path, chance):
    """`refill_from: discard_pile` on a per-player draw pile: P1's pile refills from P1's
    discards, P2's from P2's, never another seat's; every seat reads who shuffled what."""
    path = tmp_path / "ruleset.yaml"
    path.write_text(PER_SEAT)
    rs = load_ruleset(path)
    seen, st = _seen(rs, chance=chance)
    mine = {c.id for c in st.zones["hand"][0]}
    assert len(mine) == 3 and len(st.zones["hand"][1]) == 2
    # P1 drew its 2 cards, then its one discard; P2 drew 2 of its own 3 discards
    assert seen == [(1, 0, 0)]
    assert not (mine & {c.id for c in st.zones["hand"][1]} | mine & {c.id for c in st.zones["draw_pile"][1]})
    log = st.visible_log()
    assert "P1 shuffles their discard pile into their draw pile" in log
    assert "P2 shuffles their discard pile into their draw pile" in log
    for seat in range(2):  # a public line: every seat reads it
        assert "P2 shuffles their discard pile into their draw pile" in st.visible_log(seat)


def _refused_at_draw_pile(tmp_path, text: str) -> tuple:
    """Load ``text`` as a ruleset, which must be refused: (the first error, the line of its
    `draw_pile:` declaration)."""
    path = tmp_path / "ruleset.yaml"
    path.write_text(text)
    with pytest.raises(TapsterError) as info:
        load_ruleset(path)
    err = getattr(info.value, "errors", [info.value])[0]
    return err, next(i for i, ln in enumerate(text.splitlines(), 1) if ln.startswith("  draw_pile:"))


@pytest.mark.parametrize(("zones", "words"), [
    # a shared deck names no seat: the old error, with the way out
    ("  draw_pile: {visibility: hidden, refill_from: discard_pile}\n",
     ["zone `discard_pile` needs 1 index(es)", "the zone `draw_pile` is shared, so no seat is implied",
      "name the seat (`discard_pile[0]`)"]),
    # a seat index written out where no seat is in scope
    ("  draw_pile: {per_player: true, visibility: hidden, refill_from: \"discard_pile[p]\"}\n",
     ["unknown name `p`", "write `discard_pile`: a per-player zone named bare means the same seat's"]),
])
def test_a_refill_source_that_names_no_seat_is_refused_with_a_fix(tmp_path, zones, words):
    text = PER_SEAT.replace("  draw_pile: {per_player: true, visibility: hidden, refill_from: discard_pile}\n", zones)
    err, line = _refused_at_draw_pile(tmp_path, text)
    assert err.mark.line == line, str(err)
    for w in words:
        assert w in str(err), str(err)


@pytest.mark.parametrize(("chance", "blocks"), [(None, True), ("explicit", True), (None, False)])
def test_a_per_player_zone_refills_at_once_from_the_same_seats_zone(tmp_path, chance, blocks):
    """`refill_when: immediately` on a per-player draw pile (issue 47: a declaration of one seat's
    zone names the same seat's zone bare): each seat's pile, once empty, takes its own seat's
    discards at once, in generated code and on the frame runner alike."""
    text = PER_SEAT.replace("refill_from: discard_pile}", "refill_from: discard_pile, refill_when: immediately}")
    text = text.replace('''  - move: {from: "draw_pile[0]", to: "hand[0]", count: 3}
  - move: {from: "draw_pile[1]", to: "hand[1]", count: 2}
  - set: {seen: "[(len(draw_pile[1]), len(discard_pile[1]), len(discard_pile[0]))]"}
''', '''  - move: {from: "draw_pile[0]", to: "hand[0]", count: 2}
  - set: {seen: "[(len(draw_pile[0]), len(discard_pile[0]), len(draw_pile[1]), len(discard_pile[1]))]"}
''')
    path = tmp_path / "ruleset.yaml"
    path.write_text(text)
    seen, st = _seen(load_ruleset(path, blocks=blocks), chance=chance)
    # setup: P2's three discards went to its empty pile at once; the flow emptied P1's pile of
    # two, which took P1's one discard at once
    assert seen == [(1, 0, 3, 0)]
    assert {c.fields["value"] for c in st.zones["draw_pile"][1]} == {1, 2, 3} and len(st.zones["hand"][0]) == 2
    log = st.visible_log(1)
    assert "P1 shuffles their discard pile into their draw pile" in log
    assert "P2 shuffles their discard pile into their draw pile" in log


def test_an_immediate_per_player_refill_from_one_seats_zone_is_refused_with_the_fix(tmp_path):
    text = PER_SEAT.replace("refill_from: discard_pile}", 'refill_from: "discard_pile[0]", refill_when: immediately}')
    err, line = _refused_at_draw_pile(tmp_path, text)
    assert (err.mark.line, err.mark.column) == (line, text.splitlines()[line - 1].index('discard_pile[0]') + 1), str(err)
    assert str(err).endswith("found `discard_pile[0]`; write `refill_from: discard_pile`"), str(err)
