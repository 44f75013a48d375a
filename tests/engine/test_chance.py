"""Explicit chance (interpreter/engine/chance.py): chance points list their outcomes with exact
probabilities, lazy deals reveal a shuffled hidden deck card by card, and every shipped ruleset
plays, saves and restores with chance explicit.  The probabilities of whole games are computed by
enumerating the tree, so each test states a number the rules of probability give."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction

import pytest

from interpreter import load_ruleset
from interpreter.analysis.simulate import perft
from interpreter.compile.compiler import available_rulesets
from interpreter.engine.chance import CHANCE
from interpreter.engine.rng import Rng
from interpreter.engine.state import State
from interpreter.errors import FlowError

HEAD = """\
name: Chance
players: {min: 2, max: 2}
components:
  card:
    items: [{value: 1}, {value: 2}, {value: 3}]
    start: deck
zones:
  deck: {visibility: hidden, refill_from: discard}
  discard: {visibility: public}
  table: {visibility: public}
  pile: {visibility: hidden}
  hand: {per_player: true, visibility: owner}
vars:
  v: 0
  w: []
outcome:
  score: "v"
"""


def ruleset(tmp_path, text):
    path = tmp_path / "ruleset.yaml"
    path.write_text(HEAD + text, encoding="utf-8")
    return load_ruleset(path)


def leaves(st: State, key, prob=Fraction(1)):
    """Every terminal state below ``st`` (decisions take their first action) with its exact
    probability, as a Counter of ``key(state)``."""
    out: Counter = Counter()
    if st.is_terminal():
        out[key(st)] += prob
        return out
    if st.is_chance():
        outcomes = st.chance_outcomes()
        for action, _ in outcomes:
            child = st.clone()
            child.apply(action)
            out += leaves(child, key, prob / len(outcomes))
        return out
    st.apply(st.legal_actions()[0])
    return out + leaves(st, key, prob)


def test_a_deal_from_a_shuffled_hidden_deck_is_one_chance_point_per_card(tmp_path):
    rs = ruleset(tmp_path, """\
setup:
  - shuffle: deck
flow:
  - move: {from: deck, to: "hand[0]"}
  - move: {from: deck, to: "hand[1]"}
""")
    st = rs.new_game(2, chance="explicit")
    assert st.is_chance() and st.current_players() == (CHANCE,)
    assert [p for _, p in st.chance_outcomes()] == pytest.approx([1 / 3] * 3)
    assert st.observation(0)["zones"]["deck"] == {"count": 3}  # a lazy deck shows no order
    st.apply(st.chance_outcomes()[1][0])
    assert [c.id for c in st.zones["hand"][0]] == ["card-2"]
    assert sorted(a.args[0] for a, _ in st.chance_outcomes()) == ["card-1", "card-3"]
    dist = leaves(rs.new_game(2, chance="explicit"), lambda s: (s.zones["hand"][0][0].id, s.zones["hand"][1][0].id))
    assert len(dist) == 6 and set(dist.values()) == {Fraction(1, 6)}


def test_the_first_outcome_goes_to_the_hand_it_names(tmp_path):
    rs = ruleset(tmp_path, """\
setup:
  - shuffle: deck
flow:
  - move: {from: deck, to: "hand[0]"}
""")
    st = rs.new_game(2, chance="explicit")
    outcome = next(a for a, _ in st.chance_outcomes() if a.args[0] == "card-3")
    st.apply(outcome)
    assert [c.id for c in st.zones["hand"][0]] == ["card-3"]
    assert st.is_terminal()


def test_sample_mode_never_stops_at_chance(tmp_path):
    rs = ruleset(tmp_path, """\
setup:
  - shuffle: deck
flow:
  - move: {from: deck, to: "hand[0]"}
  - roll: {dice: 2, sides: 6, set: w}
""")
    st = rs.new_game(2, seed=4)
    assert st.is_terminal() and not st.is_chance() and st.chance_outcomes() == ()
    assert perft(rs.new_game(2, chance="explicit"), None) == (3 * 36, 1 + 3 + 3 * 6 + 3 * 36)


def test_each_die_is_a_chance_point(tmp_path):
    rs = ruleset(tmp_path, """\
flow:
  - roll: {dice: 2, sides: 6, as: r}
  - set: {v: "sum(r)", w: r}
""")
    dist = leaves(rs.new_game(2, chance="explicit"), lambda s: s.vars["v"])
    assert dist[7] == Fraction(6, 36) and dist[2] == Fraction(1, 36) and sum(dist.values()) == 1


def test_random_is_a_chance_point_over_the_items(tmp_path):
    rs = ruleset(tmp_path, """\
flow:
  - random: {from: "[10, 20, 20]", as: x}
  - set: {v: x}
""")
    dist = leaves(rs.new_game(2, chance="explicit"), lambda s: s.vars["v"])
    assert dist == {10: Fraction(1, 3), 20: Fraction(2, 3)}


def test_reading_the_top_of_a_shuffled_deck_reveals_it(tmp_path):
    rs = ruleset(tmp_path, """\
setup:
  - shuffle: deck
flow:
  - let: {c: top(deck)}
  - set: {v: c.value}
  - if: len(deck) == 3
    then: [{set: {w: "[x.value for x in deck]"}}]
""")
    st = rs.new_game(2, chance="explicit")
    assert st.is_chance() and len(st.chance_outcomes()) == 3  # `top(deck)`; `len` reads no order
    dist = leaves(rs.new_game(2, chance="explicit"), lambda s: (s.vars["v"], tuple(s.vars["w"])))
    # the top is revealed first, then the whole order when the comprehension reads it
    assert len(dist) == 6 and set(dist.values()) == {Fraction(1, 6)}
    assert all(v == w[-1] for v, w in dist)


def test_a_shuffle_of_a_zone_people_see_is_revealed_in_full(tmp_path):
    rs = ruleset(tmp_path, """\
flow:
  - move: {from: deck, to: table, count: 3}
  - shuffle: table
""")
    dist = leaves(rs.new_game(2, chance="explicit"), lambda s: tuple(c.id for c in s.zones["table"]))
    assert len(dist) == 6 and set(dist.values()) == {Fraction(1, 6)}


def test_a_card_put_back_on_top_is_known(tmp_path):
    rs = ruleset(tmp_path, """\
setup:
  - shuffle: deck
flow:
  - move: {from: deck, to: "hand[0]", as: got}
  - move: {what: got, from: "hand[0]", to: deck}
  - move: {from: deck, to: "hand[1]"}
  - move: {from: deck, to: "hand[0]"}
""")
    st = rs.new_game(2, chance="explicit")
    drawn = st.chance_outcomes()[0][0]
    st.apply(drawn)
    # the card put back is drawn again without a chance point; the next draw is one of two
    assert [c.id for c in st.zones["hand"][1]] == [drawn.args[0]]
    assert st.is_chance() and drawn.args[0] not in [a.args[0] for a, _ in st.chance_outcomes()]
    assert len(st.chance_outcomes()) == 2


def test_a_refill_from_the_discard_pile_is_a_lazy_deal(tmp_path):
    rs = ruleset(tmp_path, """\
flow:
  - move: {from: deck, to: discard, count: 3}
  - move: {from: deck, to: "hand[0]", count: 2}
""")
    st = rs.new_game(2, chance="explicit")
    assert st.is_chance() and len(st.chance_outcomes()) == 3
    dist = leaves(rs.new_game(2, chance="explicit"), lambda s: tuple(c.id for c in s.zones["hand"][0]))
    assert len(dist) == 6 and set(dist.values()) == {Fraction(1, 6)}


def test_a_state_saved_at_a_chance_point_has_the_same_future(tmp_path):
    rs = ruleset(tmp_path, """\
setup:
  - shuffle: deck
flow:
  - move: {from: deck, to: "hand[0]", count: 2, as: got}
  - roll: {dice: 2, sides: 3, as: r}
  - set: {w: "[c.value for c in got] + r"}
""")
    st = rs.new_game(2, chance="explicit")
    rng = Rng(3)
    while not st.is_terminal():
        data = json.loads(json.dumps(st.to_json()))
        back = State.from_json(rs, data)
        assert back.to_json() == data and back.chance_outcomes() == st.chance_outcomes()
        outcome = st.sample_chance(rng)
        back.apply(outcome)
        st.apply(outcome)
        assert back.to_json() == st.to_json()
    assert len(st.vars["w"]) == 4


@pytest.mark.parametrize("name", available_rulesets())
def test_every_shipped_ruleset_plays_with_explicit_chance(name):
    rs = load_ruleset(name)
    for seed in range(2):
        st = rs.new_game(None, seed=seed, chance="explicit")
        rng = Rng(seed)
        steps = 0
        while not st.is_terminal() and steps < 3000:
            if steps % 25 == 0:
                data = json.loads(json.dumps(st.to_json()))
                assert State.from_json(rs, data).to_json() == data
            if st.is_chance():
                outcomes = st.chance_outcomes()
                assert len(outcomes) > 1 and sum(p for _, p in outcomes) == pytest.approx(1)
                st.apply(st.sample_chance(rng))
            else:
                actions = st.legal_actions()
                st.apply(actions[rng.below(len(actions))])
            steps += 1
        assert st.is_terminal(), f"{name} seed {seed} did not end in {steps} steps"


def test_perft_enumerates_chance_from_the_command_line(capsys):
    from interpreter.cli import main

    assert main(["perft", "beer_flights", "--chance", "enumerate", "--depth", "4"]) == 0
    out = capsys.readouterr().out
    # the random first player (2), the first player's one legal action (draw: there is no discard
    # pile yet), then the two cards drawn (76 x 75)
    assert "11400 leaves" in out
    assert main(["perft", "tic_tac_toe", "--chance", "enumerate", "--depth", "2"]) == 0
    assert "72 leaves" in capsys.readouterr().out


def test_cards_moved_by_identity_into_a_hidden_zone_keep_their_unknown_order(tmp_path):
    rs = ruleset(tmp_path, """\
setup:
  - shuffle: deck
flow:
  - move: {what: "list(deck)", to: pile}
  - move: {from: pile, to: "hand[0]"}
""")
    st = rs.new_game(2, chance="explicit")
    # no chance point for the move itself; the draw from `other` is one of three
    assert st.is_chance() and st.pending[0].kind == "draw" and len(st.chance_outcomes()) == 3
    dist = leaves(rs.new_game(2, chance="explicit"), lambda s: s.zones["hand"][0][0].id)
    assert set(dist.values()) == {Fraction(1, 3)}


def test_a_label_that_names_a_hidden_deck_in_its_text_reads_nothing(tmp_path):
    rs = ruleset(tmp_path, """\
setup:
  - shuffle: deck
flow:
  - choose:
      options:
        - action: draw
          label: Draw from the deck
          do: [{move: {from: deck, to: "hand[0]"}}]
""")
    st = rs.new_game(2, chance="explicit")
    assert not st.is_chance() and [str(a) for a in st.legal_actions()] == ["draw"]


def test_a_while_condition_is_revealed_before_each_test(tmp_path):
    # Draw from a shuffled hidden deck while its top card is not the 2: the 2 lies at each
    # position from the top with probability 1/3, so 0, 1 or 2 cards are drawn, each 1/3.  The
    # loop's condition reads `top(deck)` again before every repeat: each reading is revealed.
    rs = ruleset(tmp_path, """\
setup:
  - shuffle: deck
flow:
  - while:
      cond: top(deck).value != 2
      do: [{move: {from: deck, to: table}}]
  - set: {v: len(table)}
""")
    dist = leaves(rs.new_game(2, chance="explicit"), lambda s: s.vars["v"])
    assert dist == {0: Fraction(1, 3), 1: Fraction(1, 3), 2: Fraction(1, 3)}
    sampled = Counter(rs.new_game(2, seed=seed).vars["v"] for seed in range(600))
    assert set(sampled) == {0, 1, 2} and min(sampled.values()) > 150  # the sampled game agrees


def test_a_roll_of_many_dice_draws_the_sequence_of_one_die_at_a_time():
    """rng.dice (a whole `roll` in one call) gives the values and the generator state that as
    many single draws give: a game's dice do not change with the way they are drawn (plain and
    secure generators, sizes seen and unseen before, the rejection path of a 2**64-sided die)."""
    from interpreter.engine.rng import below, dice, seed_state

    for seed in [*range(40), "blake2b:dice"]:
        s = seed_state(seed)
        for sides in (6, 1, 7, 1000003, 1 << 64, 3, 6):
            for n in (0, 1, 5):
                t, one_by_one = s, []
                for _ in range(n):
                    t, v = below(t, sides)
                    one_by_one.append(v + 1)
                assert dice(s, n, sides) == (t, one_by_one)


ENDLESS = """\
name: Endless dice
players: {min: 2, max: 2}
limits: {steps: STEPS}
vars:
  d: {initial: 0}
  rolls: {initial: 0}
flow:
  - while:
      cond: "d < 7"
      do:
        - roll: {dice: 1, sides: 6, as: r}
        - set: {d: "r[0]"}
        - add: {rolls: 1}
outcome:
  score: "0"
"""


def test_a_rule_that_loops_on_chance_alone_fails_as_the_step_budget_does(tmp_path):
    """A die rolled until it shows 7: with chance sampled the move runs out of steps; with chance
    explicit every roll is an outcome of its own, and more outcomes in a row than the step budget,
    with no decision between them, fail at the rule, leaving the state as it was (no driver
    taking outcomes hangs: an adapter's exploring, OpenSpiel's playouts, a clone at every step)."""
    path = tmp_path / "ruleset.yaml"
    path.write_text(ENDLESS.replace("STEPS", "60"), encoding="utf-8")
    rs = load_ruleset(path)
    with pytest.raises(FlowError, match="step budget of 60 effects in one move"):
        rs.new_game(2)
    st = rs.new_game(2, chance="explicit")
    for _ in range(60):
        assert st.is_chance()
        st = st.clone()  # the run goes on in a copy
        st.apply(st.chance_outcomes()[0][0])
    before = json.dumps(st.to_json(), sort_keys=True)
    with pytest.raises(FlowError) as info:
        st.apply(st.chance_outcomes()[0][0])
    assert "60 chance events in a row with no decision" in str(info.value) and "ruleset.yaml:11:11" in str(info.value)
    assert "`limits: {steps: N}`" in str(info.value)
    assert json.dumps(st.to_json(), sort_keys=True) == before and st.vars["rolls"] == 60


def test_chance_between_decisions_never_counts_as_a_run(tmp_path):
    """Outcomes with a decision between them start a new count: a game of many more chance
    events than the step budget plays to its end when each roll follows a choice."""
    rs = ruleset(tmp_path, """\
limits: {steps: 40}
flow:
  - repeat:
      times: 30
      do:
        - choose:
            options: [{action: go}]
        - roll: {dice: 2, sides: 6, as: r}
        - add: {v: "r[0] + r[1]"}
""")
    st = rs.new_game(2, chance="explicit")
    outcomes = 0
    while not st.is_terminal():
        if st.is_chance():
            outcomes += 1
            st.apply(st.chance_outcomes()[0][0])
        else:
            st.apply(st.legal_actions()[0])
    assert outcomes == 60 and st.vars["v"] == 60
