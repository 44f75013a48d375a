"""A zone's lists hold components only, so the generated code reads the fields of what a loop
over one binds without testing its class (``Frag.zdepth`` and ``Frag.comp``,
interpreter/lang/frags.py; switch ``frags.COMPONENTS``).

What it must keep, against the same ruleset reading every field through the class test: the
games (decisions, actions, labels, logs, states, outcomes), the work and memory every listing
charges, and the errors, a missing field's included.  And it must reach the forms it is for: a
comprehension, ``any``/``all`` and ``sum`` over a zone's leaf (per-player and nested zones
too), a comprehension over a comprehension of components, and an option's items."""

from __future__ import annotations

import json

import pytest

from interpreter import load_ruleset
from interpreter.engine.rng import Rng
from interpreter.errors import ExpressionError
from interpreter.lang import frags
from tests.lang.test_codegen_hoist import _listings

RULES = """\
name: Known components
players: {min: 2, max: 2}
components:
  card:
    key: n
    start: deck
    label: "card {n}"
    props: {heat: "n % 3"}
    items: [{n: 1, suit: a}, {n: 2, suit: b}, {n: 3, suit: a}, {n: 4, suit: b}, {n: 5, suit: a},
            {n: 6, suit: b}, {n: 7, suit: a}, {n: 8, suit: b}, {n: 9, suit: a}, {n: 10, suit: b}]
zones:
  deck: {visibility: public}
  hand: {per_player: true, visibility: public}
  rows: {per_player: true, count: 2, visibility: public}
vars: {score: [0, 0]}
functions:
  best: {params: [p], value: "max([c.n for c in hand[p]] + [0])"}
  hot: {params: [p], value: "any(c.heat > 1 for c in hand[p])"}
  cold: {params: [p], value: "all(c.heat < 2 and c.suit == 'a' for c in rows[p][0])"}
  picks: {params: [p], value: "[d.n for d in [c for c in deck if c.suit == 'a'] if d.heat >= p]"}
  nested: {params: [p], value: "sum(c.n for r in rows[p] for c in r)"}
  both: {params: [p], value: "[(a.n, b.n) for a in hand[p] + rows[p][0] for b in rows[p][1] + hand[p] if a.n < b.n]"}
setup:
  - shuffle: deck
  - for_each: {in: players, as: p, do: [{move: {from: deck, to: "hand[p]", count: 2}}]}
flow:
  - repeat:
      times: 5
      do:
        - for_each:
            in: players
            as: p
            do:
              - choose:
                  player: p
                  options:
                    - action: play
                      for: c
                      in: "hand[p]"
                      if: "c.heat + c.n > 2 and c.suit != 'z'"
                      label: "play {c.n}"
                      do:
                        - move: {what: c, to: "rows[p][c.n % 2]"}
                        - set: {"c.heat": "c.heat + 1"}
                        - log: "P{p + 1} plays {c.n} (heat {c.heat})"
                    - {action: draw, if: "len(deck) > 0", do: [{move: {from: deck, to: "hand[p]", count: 1}}]}
                    - {action: pass}
              - set: {"score[p]": "best(p) + nested(p) + len(picks(p)) + len(both(p)) + (1 if hot(p) else 0) + (1 if cold(p) else 0)"}
outcome:
  score: "score[p]"
"""


def _load(tmp_path, text: str, known: bool):
    path = tmp_path / "ruleset.yaml"
    path.write_text(text)
    frags.COMPONENTS = known
    try:
        return load_ruleset(path)
    finally:
        frags.COMPONENTS = True


def _game(rs, seed: int) -> list:
    """Everything observable of one random game."""
    st = rs.new_game(2, seed=seed, log=True)
    agent = Rng(seed)
    out = []
    while not st.is_terminal():
        d = st.decision()
        out.append((d.players, [str(a) for a in d.actions], d.labels))
        st.apply(d.actions[agent.below(len(d.actions))])
    out.append(json.dumps(st.to_json(), sort_keys=True))
    out.append(st.visible_log())
    out.append(st.outcome())
    return out


def _source(rs, fn: str) -> str:
    return next(src for _, src in rs.sources if f"def {fn}(" in src)


def test_the_fields_of_a_zones_components_are_read_without_the_class_test(tmp_path):
    known, tested = _load(tmp_path, RULES, True), _load(tmp_path, RULES, False)
    for fn in ("f_best", "f_hot", "f_cold", "f_picks", "f_nested", "f_both"):  # f_both: a sum of two leaves
        assert ".fields[" in _source(known, fn), fn
        assert "H_Component" not in _source(known, fn), (fn, _source(known, fn))
        assert "H_Component" in _source(tested, fn), fn
    # the mutable property: from the state's properties, without the class test either
    assert "in l_c_" in _source(known, "f_hot") and ".mutable" in _source(known, "f_hot")
    # an option's items from a zone's leaf: its condition reads the fields directly
    listing = _source(known, "legal")
    play = listing.split("# option play")[1].split("# option")[0]
    assert ".fields['n']" in play and "H_Component" not in play
    assert "H_KEPT" not in play  # a component is kept by value without the class test
    assert "H_Component" in _source(tested, "legal") and "H_KEPT" in _source(tested, "legal")


def test_games_work_and_memory_are_the_same(tmp_path):
    known, tested = _load(tmp_path, RULES, True), _load(tmp_path, RULES, False)
    for seed in range(30):
        assert _game(known, seed) == _game(tested, seed), seed
    for seed in range(5):
        pick = lambda actions, i: actions[i % len(actions)]  # noqa: E731
        assert _listings(known, seed=seed, pick=pick) == _listings(tested, seed=seed, pick=pick)


MIXED = """\
name: Mixed pile
players: {min: 2, max: 2}
components:
  card: {start: pile, items: [{n: 1}, {n: 2}]}
  token: {start: pile, items: [{colour: red}]}
zones:
  pile: {visibility: public}
vars: {v: 0}
flow:
  - set: {v: "EXPR"}
"""


@pytest.mark.parametrize("expr", ["sum(c.n for c in pile)", "[c.n for c in pile]", "any(c.n > 5 for c in pile)"])
def test_a_field_one_kind_lacks_fails_as_it_did(tmp_path, expr):
    """A zone holds components of two kinds, one without the field read: the same error, at
    the same place, either way (the generated code's KeyError sends the evaluation to the
    checked evaluator, which names what is missing)."""
    messages = []
    for known in (True, False):
        rs = _load(tmp_path, MIXED.replace("EXPR", expr), known)
        with pytest.raises(ExpressionError) as info:
            rs.new_game(2)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert "ruleset.yaml:10:" in messages[0] and "n" in messages[0]
