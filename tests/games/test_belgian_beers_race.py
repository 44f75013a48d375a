"""Belgian Beers Race: the map's shape, the objective table, rule invariants over random games,
and no dead objective (every one of the 72 cards is met in some seeded random game).

The random agent here picks an action *name* uniformly, then one of its actions (a "bike" to one
of ten neighbours weighs as much as one "taste"): plain uniform play almost never tastes, and a
card that only a player who tastes can meet would look dead when it is not.
"""

from __future__ import annotations

import collections

import networkx as nx
import pytest

from interpreter.cli import main
from interpreter.engine.rng import Rng
from interpreter.lang.expression import Env, compile_expression

from ..conftest import compiled


def _ev(st, text):
    return compile_expression(text, st.ruleset.scope)(Env(st, {}))


def _play(rs, players, seed, each_step=None):
    st = rs.new_game(players, seed=seed)
    rng = Rng(seed * 7 + 1)
    while not st.is_terminal():
        if each_step is not None:
            each_step(st)
        acts = st.legal_actions()
        name = rng.choice(sorted({a.name for a in acts}))
        st.apply(rng.choice([a for a in acts if a.name == name]))
    return st


def test_the_map():
    rs = compiled("belgian_beers_race")
    g = rs.maps["belgium"].graph
    assert g.number_of_nodes() == 41 and nx.is_connected(g)
    colours = collections.Counter(d["colour"] for n, d in g.nodes(data=True) if n != "GP")
    assert colours == {"yellow": 19, "brown": 10, "red": 6, "black": 5}
    bxl = [n for n, d in g.nodes(data=True) if d["region"] == "bxl"]
    assert len(bxl) == 7 and "GP" in bxl
    for a in bxl:
        for b in bxl:
            if a != b:
                assert (g[a][b]["bike"], g[a][b]["transport"], g[a][b]["hitch"]) == (1, 1, 1)
    # entering or leaving Brussels: the same times from every Brussels place
    outside = {m for a in bxl for m in g.neighbors(a) if m not in bxl}
    assert outside
    for m in outside:
        times = {(g[a][m]["bike"], g[a][m]["transport"], g[a][m]["hitch"]) for a in bxl}
        assert len(times) == 1 and all(g.has_edge(a, m) for a in bxl)
    bonus = collections.Counter(d["bonus"] for d in g.nodes.values() if d["bonus"])
    assert bonus == {"A": 3, "E": 3, "PC": 4}
    assert g.nodes["B30"]["colour"] == "red" and g.nodes["B30"]["bonus"] == "A"   # Orval
    assert all("x" in d and "y" in d for d in g.nodes.values())
    bag = collections.Counter(c.fields["brewery"] for c in rs.kinds["coaster"].components)
    assert sum(bag.values()) == 85
    for n, d in g.nodes(data=True):
        if n != "GP":
            assert bag[n] == {"bxl": 1, "near": 1, "mid": 2, "far": 3}[d["region"]]


def test_the_objective_table():
    rs = compiled("belgian_beers_race")
    cards = rs.kinds["objective"].components
    levels = collections.Counter(c.fields["level"] for c in cards)
    assert levels == {1: 32, 2: 25, 3: 15}
    assert {c.fields["colour"] for c in cards} == {"orange", "blue", "green"}
    assert all(c.fields["colour"] != "orange" for c in cards if c.fields["level"] == 3)


@pytest.mark.parametrize("variant,players", [(None, 2), (None, 3), (None, 4), ("short", 2), ("short", 4)])
def test_rule_invariants_in_random_games(variant, players):
    rs = compiled("belgian_beers_race", variant)

    def check(st):
        day_len = st.vars["days"][st.vars["day"]] if "days" in st.vars else rs.params["days"][st.vars["day"]]
        for p in range(st.num_players):
            assert 0 <= st.vars["time"][p] <= day_len
            assert 0 <= st.vars["breath"][p] <= rs.params["sleep_level"]
            assert 0 <= st.vars["tasted"][p] <= rs.params["tasted_max"] == 20   # R16: 40 points at 2 a beer
            bp = st.vars["bp"][p * 4:p * 4 + 4]
            assert all(x >= 0 for x in bp) and sum(bp) <= 24
            assert st.vars["cheese"][p] >= 0
            assert st.vars["pos"][p] in rs.maps["belgium"].graph
        assert len(st.zones["achievable"]) <= 4 and len(st.zones["visible"]) <= 4
        where = {k: [c.fields["seat"] for c in v] for k, v in st.zones["pawns"].items()}
        for p in range(st.num_players):
            assert p in where[st.vars["pos"][p]]

    for seed in range(6):
        st = _play(rs, players, seed, check)
        out = st.outcome()
        assert len(out.scores) == players
        if variant == "short":
            assert len(st.zones["endgame"]) == 0


def test_no_dead_objective():
    """Every level-1 and level-2 card is taken (or shared) in some game; every level-3 card is
    met by some player at the end of some game."""
    rs = compiled("belgian_beers_race")
    met3 = compile_expression(
        "[o.number for o in components('objective') if o.level == 3 for p in players if obj_met(o, p)]", rs.scope)
    taken = collections.Counter()
    ended = collections.Counter()
    for seed in range(300):
        st = _play(rs, 2 + seed % 3, seed)
        for p in range(st.num_players):
            for o in st.zones["won"][p]:
                taken[o.fields["number"]] += 1
        for o in st.zones["obj_discard"]:
            taken[o.fields["number"]] += 0  # discarded by a Broken Bottle or shared: not counted
        for n in met3(Env(st, {})):
            ended[n] += 1
    dead = [c.fields["number"] for c in rs.kinds["objective"].components
            if (taken[c.fields["number"]] if c.fields["level"] < 3 else ended[c.fields["number"]]) == 0]
    assert dead == []


def test_visited_scoring_examples():
    rs = compiled("belgian_beers_race")
    st = rs.new_game(2, seed=0)
    assert [_ev(st, f"visited_vp({n})") for n in (9, 10, 12, 15, 20, 25, 30, 33)] == [0, 10, 10, 15, 22, 30, 40, 49]


def test_map_command_draws_a_png(tmp_path, capsys):
    out = tmp_path / "map.png"
    assert main(["map", "belgian_beers_race", "--out", str(out), "--players", "3"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["map", "tic_tac_toe", "--out", str(tmp_path / "x.png")]) == 2
