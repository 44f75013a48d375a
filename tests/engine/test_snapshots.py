"""A value is a value: what a name holds does not change when the state does.

A local name (``let``), a loop's items (``for_each``), a procedure's or trigger's parameter
(``call``/``emit`` ``with``), a ``random`` pick and an option's values (``for: ... in:``) keep
the value as it was when they were bound.  The state changes its zones' lists and its
variables' own lists in place, so a name bound to one of them used to see later moves and
``set: {"x[i]": ...}``; and a clone or a saved and resumed game (which copy the state) did not,
so the same moves gave different games.  ``Compiled.shares_state`` says which bindings may hold
such a list (a certain "no" for the rest) and :func:`interpreter.engine.places.snapshot` copies
it.  Every test runs under the three back ends: whole blocks as generated code, the frame runner
with generated runs, and the reference evaluator."""

from __future__ import annotations

import json

import pytest

from interpreter import TapsterError, load_ruleset
from interpreter.engine import flowgen
from interpreter.engine.places import Keyed, snapshot
from interpreter.engine.state import State
from interpreter.lang import codegen
from interpreter.lang.expression import compile_expression

RULESET = """
name: snapshots
players: {min: 1, max: 1, default: 1}
components:
  card:
    items: [{name: A}, {name: B}, {name: C}, {name: D}, {name: E}, {name: F}]
    key: name
    start: deck
zones:
  deck: {visibility: public}
  hand: {visibility: public}
  pile: {per_player: true, visibility: public}
vars:
  x: [1, 2]
  n: 0
  seen: []
params:
  limit: 3
functions:
  live: {params: [k], value: "hand"}
  echo: {params: [v], value: "v"}
  twice: {params: [k], value: "k * 2"}
  item: {params: [i], value: "x[i]"}
  f: {params: [k], value: "g(k)"}
  g: {params: [k], value: "hand if k == 0 else f(k - 1)"}
  fact: {params: [k], value: "1 if k <= 1 else k * fact(k - 1)"}
procedures:
  draw_and_count:
    params: [cards, xs]
    do:
      - move: {from: deck, to: hand, count: 1}
      - set: {"x[0]": 100}
      - set: {seen: "seen + [['call', len(cards), xs[0]]]"}
triggers:
  - on: counted
    params: [cards]
    do:
      - move: {from: deck, to: hand, count: 1}
      - set: {seen: "seen + [['emit', len(cards)]]"}
setup:
  - let: {old_x: "x", old_deck: "deck", both: "[deck, hand]", via: "echo(deck)"}
  - set: {"x[0]": 5}
  - move: {from: deck, to: hand, count: 1}
  - set: {seen: "seen + [['let', old_x[0], len(old_deck), len(both[0]), len(via)]]"}
flow:
  - let: {before: "deck"}
  - choose:
      name: pick
      options:
        - action: take
          for: where
          in: "[deck, hand]"
          do:
            - move: {from: deck, to: hand, count: 1}
            - set: {seen: "seen + [['option', len(where), len(before)]]"}
  - for_each:
      in: "[deck, hand]"
      as: z
      do:
        - move: {from: deck, to: hand, count: 1}
        - set: {seen: "seen + [['loop', len(z)]]"}
  - call: {procedure: draw_and_count, with: {cards: "deck", xs: "x"}}
  - emit: {event: counted, with: {cards: "deck"}}
  - random: {from: "[deck]", as: r}
  - move: {from: hand, to: deck, count: 1}
  - set: {seen: "seen + [['random', len(r)]]"}
  - end_game: done
outcome:
  score: "0"
"""

# Deck 6 cards.  Setup: the move leaves 5 in the deck; the names bound before it saw 6 and x[0] 1.
# The option lists [deck, hand] with 5 and 1 cards; taking "deck" (5) then moving one: still 5
# (and `before`, bound before the decision, 5).  The loop's items are [deck (4), hand (2)] when it
# starts; each pass moves one.  The call's `cards` is the deck of 2, `xs` the x of [5, 2];
# the emit's `cards` the deck of 1; `random` picks [deck] = the empty deck, then a card goes back.
EXPECTED = [["let", 1, 6, 6, 6], ["option", 5, 5], ["loop", 4], ["loop", 2], ["call", 2, 5], ["emit", 1],
            ["random", 0]]


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    path = tmp_path_factory.mktemp("snapshots") / "ruleset.yaml"
    path.write_text(RULESET)
    return str(path)


def _load(source: str, mode: str = "blocks"):
    if mode == "interpreted":
        codegen.ENABLED = False
    elif mode == "runs":
        flowgen.BLOCKS = False
    try:
        return load_ruleset(source)
    finally:
        codegen.ENABLED = True
        flowgen.BLOCKS = True


MODES = ("blocks", "runs", "interpreted")


def _take_deck(st):
    (action,) = [a for a in st.legal_actions() if len(a.args[0]) == 5]  # the deck (5), not the hand (1)
    return action


@pytest.mark.parametrize("mode", MODES)
def test_every_binding_keeps_the_value_it_was_given(source, mode):
    rs = _load(source, mode)
    st = rs.new_game(1, seed=0)
    st.apply(_take_deck(st))
    assert st.finished
    assert st.vars["seen"] == EXPECTED
    assert st.vars["x"] == [100, 2]  # the variable itself did change


@pytest.mark.parametrize("mode", MODES)
def test_a_clone_and_a_resumed_game_play_the_same_game(source, mode):
    """At the decision, names bound before it (`before`) and the option's values: the game
    itself, a clone and a game saved as JSON and resumed end the same, whichever goes first."""
    rs = _load(source, mode)
    st = rs.new_game(1, seed=0)
    clone = st.clone()
    resumed = State.from_json(rs, json.loads(json.dumps(st.to_json())))
    for s in (clone, st, resumed):  # the clone first: it shares no list with the game
        s.apply(_take_deck(s))
        assert s.vars["seen"] == EXPECTED


def test_the_back_ends_agree_on_every_saved_state(source):
    """The same saved state (frames and names included) at the decision, under every back end."""
    saved = set()
    for mode in MODES:
        st = _load(source, mode).new_game(1, seed=0)
        saved.add(json.dumps(st.to_json(), sort_keys=True))
    assert len(saved) == 1


@pytest.mark.parametrize(("text", "shares"), [
    # a zone's lists
    ("deck", True), ("pile[0]", True), ("pile", True), ("[deck, hand]", True), ("deck if n > 0 else []", True),
    ("n > 0 and deck", True), ("[deck] + []", True), ("first(pile)", True), ("[s for s in pile]", True),
    ("pile + []", True),  # a new list of the per-player lists themselves
    # a variable's own list, read whole (a variable that holds a number is read as any other:
    # its value is not known here)
    ("x", True), ("[x]", True), ("x or []", True), ("[1] if n else x", True), ("n", True), ("[x] + []", True),
    ("{'a': n}", True),
    ("turns_taken", True),
    # through ruleset functions: their bodies, and the arguments given
    ("live(0)", True), ("echo(deck)", True), ("echo(x)", True), ("f(2)", True), ("g(1)", True),
    # new lists of components, and of a variable's items (values)
    ("[c for c in deck]", False), ("pile[0] + []", False), ("[c for c in hand if c in deck]", False),
    ("x[0]", False), ("x[1:]", False), ("x[n] + 1", False), ("n + limit", False), ("x + [1]", False), ("x * 2", False),
    # numbers, truths and texts, whatever they read
    ("len(deck)", False), ("count(deck) + len(x)", False), ("deck == hand", False), ("not deck", False),
    ("str(pile)", False), ("any(c in deck for c in hand)", False),
    # constants, locals and what is made from them
    ("limit", False), ("[1, 2, 3]", False), ("range(limit)", False), ("current", False),
    ("[k * 2 for k in range(3)]", False), ("[x for x in range(3)]", False),  # `x` is the loop's own name here
    ("{'a': limit}", False), ("echo(x[0])", False), ("twice(x[0])", False), ("item(0)", False), ("fact(4)", False),
    ("sorted([limit, 1], reverse=n > 0)", False), ("top(deck)", False), ("first(pile[0])", False), ("list(deck)", False),
    ("max(c for c in deck)", False), ("sorted(hand, reverse=true)", False), ("distinct(deck + hand)", False),
    ("max(x)", False), ("sorted(x, reverse=true)", False), ("min([x])", True), ("max(pile)", True),
    ("max(deck, hand)", True), ("top(pile)", True),
    ("sorted(s for s in pile)", True),
])
def test_shares_state_says_which_values_may_hold_the_states_lists(source, text, shares):
    rs = _load(source)
    assert compile_expression(text, rs.scope).shares_state is shares


@pytest.mark.parametrize(("text", "shares"), [
    # what a loop, an option or `random` keeps is an item: a zone's own list holds components
    ("deck", False), ("hand", False), ("pile[0]", False), ("list(deck)", False), ("sorted(hand)", False),
    ("deck + hand", False), ("[c for c in deck if c in hand]", False), ("reversed(pile[0])", False),
    # a variable's items are values; the seats, the turn counts and constants hold no list of the state's
    ("x", False), ("x + [1]", False), ("turns_taken", False), ("players", False), ("range(limit)", False),
    # but the per-player lists of a zone are lists the state changes
    ("pile", True), ("[deck, hand]", True), ("[pile[0]]", True), ("[s for s in pile]", True), ("list(pile)", True),
    ("echo(pile)", True), ("pile + []", True), ("(deck, 1)", True),
])
def test_items_share_state_says_which_items_may_hold_the_states_lists(source, text, shares):
    rs = _load(source)
    assert compile_expression(text, rs.scope).items_share_state is shares


def test_shares_state_is_certain_about_a_local(source):
    rs = _load(source)
    assert compile_expression("z", rs.scope.with_locals(["z"])).shares_state is False
    assert compile_expression("[z, deck]", rs.scope.with_locals(["z"])).shares_state is True
    assert compile_expression("3", rs.scope).shares_state is False


def test_snapshot_copies_every_container_once_and_shares_the_rest():
    deck = ["a", "b"]
    flat = [1, "t", None, deck]
    out = snapshot(flat)
    assert out == flat and out is not flat and out[3] is not deck
    shared = [deck, deck, (deck, 1), {"k": deck}]
    out = snapshot(shared)
    assert out == shared
    assert out[0] is out[1] is out[2][0] is out[3]["k"]  # copied once: the shape is kept
    assert out[0] is not deck
    field = Keyed({(0, 0): ["m"]})
    out = snapshot([field])
    assert type(out[0]) is Keyed and out[0] == field and out[0][(0, 0)] is not field[(0, 0)]
    assert out[0][(5, 5)] == []  # still a keyed zone's contents: an empty place reads []
    t = (1, "x")
    assert snapshot(t) is t  # nothing in it can change
    assert snapshot(7) == 7 and snapshot("x") == "x"
    wide = [deck] * 10_000  # shared 10,000 times: one copy, not 10,000
    out = snapshot([wide, wide])
    assert out[0] is out[1] and len({id(x) for x in out[0]}) == 1


STORES = """
name: stores
players: {min: 1, max: 1, default: 1}
params:
  start: [1, 2, 3]
vars:
  x: []
  recs: [[], []]
  held: []
  seen: []
setup:
  - let: {l: "[[1], {'a': 'b'}]", r: "[{'act': 'go', 'arg': 1}]"}
  # a whole variable gets its own top list: changing an item of it changes nothing else
  - set: {x: "start"}
  - set: {"x[0]": 9}
  - set: {held: "l"}
  - set: {"held[0]": 5}
  # an item keeps what it is given (nothing changes an item of an item in place)
  - set: {"recs[0]": "r", "recs[1]": "r + [{'act': 'stop', 'arg': none}]"}
  - set: {seen: "[start, x, l, held, recs]"}
flow:
  - end_game: done
outcome:
  score: "0"
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_store_of_a_value_that_shares_nothing_changes_nothing_else(tmp_path, mode):
    path = tmp_path / "stores.yaml"
    path.write_text(STORES)
    st = _load(str(path), mode).new_game(1, seed=0)
    assert st.vars["seen"] == [[1, 2, 3], [9, 2, 3], [[1], {"a": "b"}], [5, {"a": "b"}],
                               [[{"act": "go", "arg": 1}], [{"act": "go", "arg": 1}, {"act": "stop", "arg": None}]]]
    assert st.ruleset.params["start"] == [1, 2, 3]
    clone = st.clone()
    assert clone.vars == st.vars


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("value", "error"), [
    ("[l] * 4000", "has more than 10000 items"),  # 4,000 records of 2 values: 12,000 items
    ("[{'t': t}] * 20", "more than 1000000 characters of text"),
])
def test_a_store_that_shares_nothing_keeps_every_limit(tmp_path, mode, value, error):
    """The same errors as the copy gives: a value kept without a copy is checked all the same."""
    path = tmp_path / "limits.yaml"
    path.write_text(f"""
name: limits
players: {{min: 1, max: 1, default: 1}}
vars:
  recs: [[]]
setup:
  - let: {{l: "{{'a': 1, 'b': 2}}", t: "'x' * 99999"}}
  - set: {{"recs[0]": "{value}"}}
flow:
  - end_game: done
outcome:
  score: "0"
""")
    with pytest.raises(TapsterError, match=error):
        _load(str(path), mode).new_game(1, seed=0)


LATE_LIST = """
name: late_list
players: {min: 1, max: 1, default: 1}
vars:
  y: 0
  deep: [[1, 2], [3]]
setup:
  - set: {y: "[1, 2]"}
flow:
  - choose:
      name: go
      options:
        - action: go
  - set: {"y[0]": 9, "deep[0]": "[7]"}
  - end_game: done
outcome:
  score: "0"
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_clone_is_independent_of_a_variable_that_holds_a_list_later(tmp_path, mode):
    """`y` starts as a number and holds a list from setup on: a move in a clone changes the
    clone's list, never the game's (a clone used to share it)."""
    path = tmp_path / "late.yaml"
    path.write_text(LATE_LIST)
    st = _load(str(path), mode).new_game(1, seed=0)
    clone = st.clone()
    clone.apply(clone.legal_actions()[0])
    assert clone.vars == {"y": [9, 2], "deep": [[7], [3]]}
    assert st.vars == {"y": [1, 2], "deep": [[1, 2], [3]]}
    st.apply(st.legal_actions()[0])
    assert st.vars == clone.vars


NEW_LISTS = ["list(x)", "sorted(x)", "reversed(x)", "distinct(x)", "x[0:]", "x[:]", "x + []", "[] + x", "x * 1",
             "sorted(x, reverse=true)", "list(deck)", "sorted(deck)", "deck + []", "deck[:]", "reversed(pile[0])",
             "distinct(deck)", "[c for c in deck]", "pile[0] + hand"]


@pytest.mark.parametrize("generated", [True, False])
def test_what_shares_state_calls_a_new_list_is_a_new_list(source, generated):
    """The values ``shares_state`` says share nothing, made from a variable's or a zone's own
    list: a new list, in the generated code and in the reference evaluator alike."""
    rs = _load(source, "blocks" if generated else "interpreted")
    st = rs.new_game(1, seed=0)
    live = [st.vars["x"], st.zones["deck"], st.zones["hand"], *st.zones["pile"]]
    codegen.ENABLED = generated
    try:
        for text in NEW_LISTS:
            compiled = compile_expression(text, rs.scope)
            assert compiled.shares_state is False, text
            assert (compiled.fn is compiled.checked_fn) is not generated, text  # the evaluator meant
            st.env.loc = {}
            value = compiled(st.env)
            assert type(value) is list and all(value is not z for z in live), text
    finally:
        codegen.ENABLED = True


@pytest.mark.parametrize("mode", MODES)
def test_an_action_holds_values_not_the_states_lists(source, mode):
    """The option `for: where in: "[deck, hand]"`: its actions hold the cards as they were
    listed, whatever happens to the deck after (an agent may keep an action, a client a list)."""
    rs = _load(source, mode)
    st = rs.new_game(1, seed=0)
    listed = st.legal_actions()
    sizes = sorted(len(a.args[0]) for a in listed)
    assert sizes == [1, 5]
    assert all(a.args[0] is not st.zones["deck"] and a.args[0] is not st.zones["hand"] for a in listed)
    st.apply(_take_deck(st))
    assert sorted(len(a.args[0]) for a in listed) == sizes
