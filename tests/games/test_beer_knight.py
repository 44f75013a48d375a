"""Beer Knight: no card text is dead data, and rule invariants hold over random games.

The card tables (rulesets/beer_knight/*.csv) name abilities from the ruleset's vocabulary (the
procedures `ab_<name>`, `ch_<effect>`).  The ruleset records in its `fired` variable every
ability, Pairing ability and Challenge that took effect; these tests play seeded random games and
fail if one named in a table never fires.
"""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

import pytest

from interpreter.engine.rng import Rng
from interpreter.lang.expression import Env, compile_expression

from ..conftest import compiled

HERE = Path(__file__).resolve().parents[2] / "rulesets" / "beer_knight"


def _rows(name):
    with open(HERE / name, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def _play(variant, seed, players=2, watch=None):
    rs = compiled("beer_knight", variant)
    st = rs.new_game(players, seed=seed, log=True)
    rng = Rng(seed * 7919 + 1)
    while not st.is_terminal():
        st.apply(rng.choice(st.legal_actions()))
        if watch:
            watch(st)
    return st


@cache
def _fired(variant, games):
    out = set()
    for seed in range(games):
        out |= set(_play(variant, seed).vars["fired"])
    return out


def test_every_card_ability_fires():
    cards = _rows("cards.csv")
    wanted = {f"lc:{r['lc']}" for r in cards if r["lc"]}
    wanted |= {f"hmb:{r['hmb']}" for r in cards if r["hmb"]}
    wanted |= {f"pair_ab:{r['pair_ab']}" for r in cards if r["pair_ab"]}
    wanted |= {f"pair:{r['pair_kind']}" for r in cards if r["pair_kind"]}
    wanted |= {f"pair2:{r['pair2_kind']}" for r in cards if r["pair2_kind"]}
    wanted |= {f"ch_conn:{r['ch_ab']}" for r in cards if r["ch_ab"]}
    wanted |= {"last_call", "card_swap"}
    missing = wanted - _fired(None, 300)
    assert not missing, f"abilities never fired in 300 games: {sorted(missing)}"


def test_every_challenge_is_drawn_and_resolved():
    wanted = {f"ch:{r['key']}" for r in _rows("challenges.csv")}
    missing = wanted - _fired(None, 300)
    assert not missing, f"Challenges never resolved in 300 games: {sorted(missing)}"


def test_every_barony_power_fires():
    wanted = {f"baron:{r['power']}" for r in _rows("baronies.csv")}
    missing = wanted - _fired("world_domination", 40)
    assert not missing, f"Barony powers never used: {sorted(missing)}"


def test_every_ability_is_a_procedure():
    rs = compiled("beer_knight")
    names = {r["lc"] for r in _rows("cards.csv")} | {r["hmb"] for r in _rows("cards.csv")}
    names |= {r["pair_ab"] for r in _rows("cards.csv")} | {r["power"] for r in _rows("baronies.csv")}
    names |= {r["ch_ab"] for r in _rows("cards.csv")}
    for n in names - {""}:
        assert f"ab_{n}" in rs.procedures, n
    for r in _rows("challenges.csv"):
        assert f"ch_{r['effect']}" in rs.procedures, r["effect"]


def test_card_anatomy():
    cards = _rows("cards.csv")
    for t, hi in (("Knight", 6), ("Mount", 5), ("Weapon", 4)):
        rows = [r for r in cards if r["type"] == t]
        assert len(rows) == 24
        assert {int(r["power"]) for r in rows} == set(range(1, hi + 1))
    assert {r["border"] for r in cards} == {"Dark", "Medium", "Light"}
    assert all(r["lc"] and not r["hmb"] for r in cards if r["type"] == "Knight")
    assert all(r["hmb"] and not r["lc"] for r in cards if r["type"] != "Knight")
    assert all(r["pair_kind"] for r in cards)
    assert len(_rows("challenges.csv")) == 36 and len(_rows("baronies.csv")) == 12
    # World Domination 1.1.1: "12 Baronys, each with a different power"
    assert len({(r["power"], r["power_arg"]) for r in _rows("baronies.csv")}) == 12
    challenge_types = {r["ctype"] for r in _rows("challenges.csv")}
    assert all(r["ch_type"] in challenge_types for r in cards if r["ch_type"])


@pytest.mark.parametrize("seed", range(30))
def test_rule_invariants_in_random_games(seed):
    seen = {"combats": 0}
    bonus = compile_expression("[battle_bonus(p) for p in players]", compiled("beer_knight").scope)

    def watch(st):
        v = st.vars
        assert all(b >= 0 for b in bonus(Env(st, {}))), "Battle Bonus below zero"
        assert len(v["lc_used"]) == len(set(v["lc_used"])), "a Liquid Courage used twice"
        assert sum(len(h) for h in st.zones["beerhalla"]) <= 3
        seen["combats"] = v["combats"]

    st = _play(None, seed, watch=watch)
    assert st.outcome().winners, "a two-player game ends with a winner"
    text = "\n".join(st.visible_log())
    assert text.count("Hold My Beer!") <= st.vars["combats"] * 2, "HMB more than once per combat"


def test_hmb_once_per_player_per_combat_in_logs():
    st = _play(None, 5)
    combat = []
    for line in st.visible_log() + ["=== end"]:
        if line.startswith("==="):
            for p in (1, 2):
                assert sum(1 for x in combat if x.startswith(f"P{p}: Hold My Beer!")) <= 1
            combat = []
        combat.append(line)
