"""Kuhn poker with chance enumerated: the numbers known since Kuhn (1950) and in OpenSpiel's
kuhn_poker — 30 terminal histories, 12 information sets (6 per player), and the first player's
value -1/18 under an equilibrium — computed on Tapster's ruleset, without OpenSpiel."""

from __future__ import annotations

from fractions import Fraction

from interpreter import load_ruleset
from interpreter.analysis.simulate import perft

RS = load_ruleset("kuhn_poker")


def _root():
    return RS.new_game(2, chance="explicit", log=True)


def test_the_deal_is_three_then_two_outcomes_and_30_terminal_histories():
    st = _root()
    assert st.is_chance() and len(st.chance_outcomes()) == 3
    st.apply(st.chance_outcomes()[0][0])
    assert st.is_chance() and [p for _, p in st.chance_outcomes()] == [0.5, 0.5]
    assert perft(_root(), None)[0] == 30


def _walk(st, visit):
    """Every state below ``st``."""
    visit(st)
    if st.finished:
        return
    for a in st.legal_actions():
        child = st.clone()
        child.apply(a)
        _walk(child, visit)


def test_12_information_sets_6_per_player():
    sets = {0: set(), 1: set()}

    def visit(st):
        if not st.finished and not st.is_chance():
            p = st.current_players()[0]
            sets[p].add(st.information_state(p))

    _walk(_root(), visit)
    assert {p: len(s) for p, s in sets.items()} == {0: 6, 1: 6}


# An equilibrium (Kuhn 1950, with alpha = 0): the probability of betting or calling (`bet`; `pass`
# is a check or a fold), by seat, card and the actions seen.
BET = {
    (0, "J", ()): 0, (0, "Q", ()): 0, (0, "K", ()): 0,
    (0, "J", ("pass", "bet")): 0, (0, "Q", ("pass", "bet")): Fraction(1, 3), (0, "K", ("pass", "bet")): 1,
    (1, "J", ("pass",)): Fraction(1, 3), (1, "Q", ("pass",)): 0, (1, "K", ("pass",)): 1,
    (1, "J", ("bet",)): 0, (1, "Q", ("bet",)): Fraction(1, 3), (1, "K", ("bet",)): 1,
}


def _value(st, bets: tuple) -> Fraction:
    if st.finished:
        return Fraction(st.outcome().scores[0])
    if st.is_chance():
        total = Fraction(0)
        for a, p in st.chance_outcomes():
            child = st.clone()
            child.apply(a)
            total += Fraction(p).limit_denominator(6) * _value(child, bets)
        return total
    p = st.current_players()[0]
    card = st.zones["hand"][p][0].fields["name"]
    aggressive = BET[(p, card, bets)]
    total = Fraction(0)
    for a in st.legal_actions():
        prob = aggressive if a.name == "bet" else 1 - aggressive
        if prob:
            child = st.clone()
            child.apply(a)
            total += prob * _value(child, bets + (a.name,))
    return total


def test_the_first_players_value_at_an_equilibrium_is_minus_one_eighteenth():
    assert _value(_root(), ()) == Fraction(-1, 18)


def test_perft_infosets_counts_kuhns_12():
    import json

    from click.testing import CliRunner

    from interpreter.cli import cli

    out = CliRunner().invoke(cli, ["perft", "kuhn_poker", "--chance", "enumerate", "--infosets"]).output
    assert out.splitlines()[:2] == ["30 terminal histories", "12 information sets: P1 6, P2 6"]
    data = json.loads(CliRunner().invoke(cli, ["perft", "kuhn_poker", "--chance", "enumerate", "--infosets", "--json"]).output)
    assert (data["terminal_histories"], data["infosets"]) == (30, [6, 6])
    refused = CliRunner().invoke(cli, ["perft", "kuhn_poker", "--infosets"])
    assert refused.exit_code == 2 and "needs --chance enumerate" in refused.output


def test_the_information_state_is_the_card_and_the_bets_seen():
    st = _root()
    st.apply(st.chance_outcomes()[2][0])  # P1: K
    st.apply(st.chance_outcomes()[0][0])  # P2: J
    st.apply("bet")
    key = st.information_state(1)
    assert '"hand":[{"count":1},["card-J"]]' in key and key.endswith("| P1:bet")
    assert "card-K" not in key
