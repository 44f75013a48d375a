"""Maps: graphs built from node and edge tables, read by builtins that agree with networkx."""

from __future__ import annotations

import networkx as nx
import pytest

from interpreter.compiler import RulesetErrors, load_ruleset

BASE = """
name: map probe
players: {min: 1, max: 1}
maps:
  land:
    nodes: {table: places.csv, key: id}
    edges: {table: roads.csv, source: a, target: b}
vars: {v: 0}
flow: []
outcome: {score: "0"}
"""

PLACES = "id,x,y,colour\nA,0,0,red\nB,1,0,blue\nC,2,0,red\nD,1,1,blue\nE,5,5,black\n"
ROADS = "a,b,bike\nA,B,3\nB,C,4\nA,D,10\nD,C,1\n"


def _write(tmp_path, text=BASE, places=PLACES, roads=ROADS):
    (tmp_path / "ruleset.yaml").write_text(text)
    (tmp_path / "places.csv").write_text(places)
    (tmp_path / "roads.csv").write_text(roads)
    return tmp_path / "ruleset.yaml"


def _eval(rs, st, text):
    from interpreter.expression import Env, compile_expression
    c = compile_expression(text, rs.scope)
    return c(Env(st, {}))


@pytest.fixture
def rs(tmp_path):
    return load_ruleset(_write(tmp_path))


def _graph():
    g = nx.Graph()
    g.add_nodes_from("ABCDE")
    for a, b, w in [("A", "B", 3), ("B", "C", 4), ("A", "D", 10), ("D", "C", 1)]:
        g.add_edge(a, b, bike=w)
    return g


def test_builtins_agree_with_networkx(rs):
    g = _graph()
    st = rs.new_game(1, seed=0)
    ev = lambda t: _eval(rs, st, t)  # noqa: E731
    assert ev("nodes(land)") == sorted(g.nodes)
    for n in "ABCD":
        assert ev(f"neighbors(land, '{n}')") == sorted(g.neighbors(n))
        for m in "ABCD":
            assert ev(f"linked(land, '{n}', '{m}')") == g.has_edge(n, m)
            assert ev(f"path_length(land, '{n}', '{m}')") == nx.shortest_path_length(g, n, m)
            assert ev(f"path_length(land, '{n}', '{m}', 'bike')") == nx.shortest_path_length(g, n, m, weight="bike")
        for d in range(3):
            assert ev(f"within(land, '{n}', {d})") == sorted(nx.single_source_shortest_path_length(g, n, cutoff=d))
    assert ev("edge(land, 'B', 'A', 'bike')") == 3
    assert ev("edge(land, 'A', 'C', 'bike')") is None
    assert ev("node_attr(land, 'D', 'colour')") == "blue"
    assert ev("node_attr(land, 'D', 'x')") == 1
    assert ev("path_length(land, 'A', 'E')") is None
    assert ev("shortest_path(land, 'A', 'C', 'bike')") == ["A", "B", "C"]
    assert ev("shortest_path(land, 'A', 'E')") is None


def test_unknown_node_is_an_expression_error(rs):
    st = rs.new_game(1, seed=0)
    with pytest.raises(Exception, match="not a node"):
        _eval(rs, st, "neighbors(land, 'Z')")


def test_directed_map(tmp_path):
    rs = load_ruleset(_write(tmp_path, BASE.replace("    edges:", "    directed: true\n    edges:")))
    st = rs.new_game(1, seed=0)
    assert _eval(rs, st, "neighbors(land, 'B')") == ["C"]
    assert _eval(rs, st, "path_length(land, 'C', 'A')") is None


def test_inline_items(tmp_path):
    text = BASE.replace("nodes: {table: places.csv, key: id}", "nodes: {items: [{id: P}, {id: Q}]}").replace(
        "edges: {table: roads.csv, source: a, target: b}", "edges: {items: [{source: P, target: Q, t: 2}]}")
    rs = load_ruleset(_write(tmp_path, text))
    assert _eval(rs, rs.new_game(1, seed=0), "edge(land, 'P', 'Q', 't')") == 2


@pytest.mark.parametrize("places,roads,message,line", [
    (PLACES, ROADS + "A,Z,1\n", "edge endpoint 'Z' is not a node", 6),
    (PLACES + "B,9,9,red\n", ROADS, "duplicate node 'B'", 7),
    (PLACES + ",9,9,red\n", ROADS, "a node has no `id`", 7),
    (PLACES, ROADS + "B,A,2\n", "duplicate edge", 6),
])
def test_load_errors_have_a_place(tmp_path, places, roads, message, line):
    with pytest.raises(RulesetErrors) as info:
        load_ruleset(_write(tmp_path, places=places, roads=roads))
    err = info.value.errors[0]
    assert message in str(err)
    assert err.mark.line == line and err.mark.file.endswith(".csv")


def test_missing_table_is_a_load_error(tmp_path):
    with pytest.raises(RulesetErrors, match="not found"):
        load_ruleset(_write(tmp_path, BASE.replace("places.csv", "nowhere.csv")))
