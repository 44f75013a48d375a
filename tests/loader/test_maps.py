"""Maps: graphs built from node and edge tables, read by builtins that agree with networkx."""

from __future__ import annotations

import re

import networkx as nx
import pytest

from interpreter.compile.compiler import RulesetErrors, load_ruleset

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
    from interpreter.lang.expression import Env, compile_expression
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


# Subgraph queries (issue 31): edges as components, `over=` a player's claimed routes ----------------

ROUTES_RS = """
name: route probe
players: {min: 2, max: 2}
components:
  route: {table: routes.csv, key: code, start: supply, label: "{a}-{b}"}
zones:
  supply: {visibility: public}
  claimed: {per_player: true, visibility: public}
  secret: {per_player: true, visibility: owner}
maps:
  land:
    nodes: {table: places.csv, key: id}
    edges: {components: route, source: a, target: b}
vars:
  v: {initial: 0, visibility: public}
  w: {initial: none, visibility: public}
setup:
  - move: {what: "[component('route-r1'), component('route-r2'), component('route-r4')]", to: "claimed[0]"}
  - move: {what: "component('route-r3')", to: "claimed[1]"}
  - set: {v: "longest_trail(land, over=claimed[0])"}
  - set: {w: "[connected(land, 'A', 'C', over=claimed[0]), connected(land, 'A', 'C', over=claimed[1]), groups(land, over=claimed[0])]"}
flow: []
display:
  header: ["trail {longest_trail(land, over=claimed[0])} {connected(land, 'A', 'B', over=claimed[1])}"]
  footer: ["secret {longest_trail(land, over=secret[0])}"]
outcome: {score: "0"}
"""
ROUTES = "code,a,b,len,colour\nr1,A,B,3,red\nr2,B,C,4,blue\nr3,A,D,10,green\nr4,D,C,1,red\n"


@pytest.fixture
def routes(tmp_path):
    (tmp_path / "routes.csv").write_text(ROUTES)
    return load_ruleset(_write(tmp_path, ROUTES_RS))


def _trail(g, weight=None):
    """The longest trail by brute force over edge orderings (a reference independent of the builtin)."""
    import itertools
    best = 0
    es = list(g.edges(data=True))
    for k in range(1, len(es) + 1):
        for perm in itertools.permutations(es, k):
            for start in (perm[0][0], perm[0][1]):
                at, ok, length = start, True, 0
                for a, b, d in perm:
                    if at == a:
                        at = b
                    elif at == b:
                        at = a
                    else:
                        ok = False
                        break
                    length += 1 if weight is None else d[weight]
                if ok:
                    best = max(best, length)
    return best


def test_edges_are_components_and_queries_read_a_players_routes(routes):
    rs = routes
    st = rs.new_game(2, seed=0)
    ev = lambda t: _eval(rs, st, t)  # noqa: E731
    assert [c.id for c in ev("edges(land)")] == ["route-r1", "route-r2", "route-r3", "route-r4"]
    assert ev("edge(land, 'B', 'A', 'component')") is rs.by_id["route-r1"]
    assert ev("edge(land, 'A', 'B', 'len')") == 3
    assert ev("edges_of(claimed[0])") == [("A", "B"), ("B", "C"), ("D", "C")]
    assert ev("connected(land, 'A', 'C', over=claimed[0])") is True
    assert ev("connected(land, 'A', 'D', over=claimed[1])") is True
    assert ev("connected(land, 'B', 'D', over=claimed[1])") is False
    assert ev("connected(land, 'E', 'E', over=claimed[1])") is True
    assert ev("connected(land, 'A', 'E')") is False
    assert ev("groups(land, over=claimed[0])") == [["A", "B", "C", "D"]]
    assert ev("groups(land, over=[component('route-r1'), component('route-r4')])") == [["A", "B"], ["C", "D"]]
    assert ev("groups(land)") == [["A", "B", "C", "D"], ["E"]]
    assert ev("groups(land, over=[])") == []
    assert ev("path_length(land, 'A', 'D', over=claimed[0])") == 3
    assert ev("path_length(land, 'A', 'D', 'len', over=claimed[0])") == 8
    assert ev("path_length(land, 'A', 'D', 'len')") == 8  # unchanged without over=
    assert ev("path_length(land, 'B', 'D', over=claimed[1])") is None
    assert ev("shortest_path(land, 'A', 'D', over=claimed[0])") == ["A", "B", "C", "D"]
    assert ev("shortest_path(land, 'A', 'D')") == ["A", "D"]
    assert ev("shortest_path(land, 'A', 'A', over=[])") == ["A"]
    # pairs work as well as components
    assert ev("connected(land, 'A', 'C', over=[('B', 'A'), ('B', 'C')])") is True
    # the generated code (setup runs it) agrees with the reference evaluator
    assert st.vars["v"] == ev("longest_trail(land, over=claimed[0])") == 3
    assert st.vars["w"] == [True, False, [["A", "B", "C", "D"]]]


def test_longest_trail_is_exact(routes):
    rs = routes
    st = rs.new_game(2, seed=0)
    g = _graph()
    for _a, _b, d in g.edges(data=True):
        d["len"] = d["bike"]
    assert _eval(rs, st, "longest_trail(land)") == _trail(g) == 4  # the cycle A-B-C-D-A
    assert _eval(rs, st, "longest_trail(land, weight='len')") == _trail(g, "len") == 18
    sub = g.edge_subgraph([("A", "B"), ("B", "C"), ("D", "C")])
    assert _eval(rs, st, "longest_trail(land, over=claimed[0], weight='len')") == _trail(sub, "len") == 8
    assert _eval(rs, st, "longest_trail(land, over=[])") == 0
    # a star with three arms: a trail uses two of them (a reference a wrong search would miss)
    star = nx.Graph([("o", "a"), ("o", "b"), ("o", "c")])
    assert _trail(star) == 2


def test_longest_trail_is_charged_to_the_work_budget(tmp_path):
    # a complete graph on 9 nodes: far more trails than a budget of 1000 steps
    nodes = "id\n" + "".join(f"n{i}\n" for i in range(9))
    roads = "a,b\n" + "".join(f"n{i},n{j}\n" for i in range(9) for j in range(i + 1, 9))
    text = BASE.replace("vars: {v: 0}", "vars: {v: 0}\nlimits: {work: 1000}\nsetup: [{set: {v: 'longest_trail(land)'}}]")
    with pytest.raises(Exception, match="work budget"):
        rs = load_ruleset(_write(tmp_path, text, places=nodes, roads=roads))
        rs.new_game(1, seed=0)


def test_over_refuses_what_is_not_an_edge(routes):
    rs = routes
    st = rs.new_game(2, seed=0)
    with pytest.raises(Exception, match="no edge joins 'A' and 'C'"):
        _eval(rs, st, "connected(land, 'A', 'B', over=[('A', 'C')])")
    with pytest.raises(Exception, match="not an edge of map `land`"):
        _eval(rs, st, "connected(land, 'A', 'B', over=[1])")
    with pytest.raises(Exception, match="did you mean 'C'"):
        _eval(rs, st, "connected(land, 'A', 'c')")


def test_queries_over_a_public_zone_are_shown_to_seats(routes):
    from interpreter.views.render import view_observation

    parts = routes.display.private_parts()
    assert [where for where, *_ in parts] == ["display.footer[0]"]  # over an owner zone: observer-only
    obs = view_observation(routes.new_game(2, seed=0), 1)
    assert obs["display"]["header"] == ["trail 3 false"]


def test_edge_components_need_a_kind(tmp_path):
    (tmp_path / "routes.csv").write_text(ROUTES)
    with pytest.raises(RulesetErrors, match="names no component kind: 'rout'; did you mean `route`"):
        load_ruleset(_write(tmp_path, ROUTES_RS.replace("components: route,", "components: rout,")))


# Edges drawn as data (issue 31, 3): colour, length, label and owner ----------------------------------

def _drawn(tmp_path, secret=False):
    text = ROUTES_RS.replace(
        "display:\n", "display:\n  map: {name: land, label: id, edges: {colour: colour, dashes: len, label: len}}\n")
    if secret:
        text = text.replace("""to: "claimed[1]"}""", """to: "secret[1]"}""")
    (tmp_path / "routes.csv").write_text(ROUTES)
    return load_ruleset(_write(tmp_path, text))


def test_the_view_draws_edges_from_attributes_and_owners_from_what_the_seat_sees(tmp_path):
    from interpreter.views.render import view_observation
    from interpreter.views.view import seat_sections

    rs = _drawn(tmp_path, secret=True)
    st = rs.new_game(2, seed=0)
    for seat, r3_owner in ((0, None), (1, 1)):  # r3 lies in seat 1's owner zone: seat 0 cannot tell
        [sec] = [s for s in seat_sections(rs, view_observation(st, seat)) if s["kind"] == "map"]
        assert [(e["a"], e["b"], e["colour"], e["dashes"], e["label"], e["owner"]) for e in sec["edges"]] == [
            ("A", "B", "red", 3, 3, 0), ("B", "C", "blue", 4, 4, 0), ("A", "D", "green", 10, 10, r3_owner),
            ("D", "C", "red", 1, 1, 0)]


def test_the_terminal_lists_routes_with_names_and_owners(tmp_path):
    from interpreter.views.render import view_observation
    from interpreter.views.termview import seat_text

    rs = _drawn(tmp_path)
    text = seat_text(rs, view_observation(rs.new_game(2, seed=0), 1))
    assert "  routes:" in text
    assert "A (A) – B (B) (3, red)  P1" in text
    assert "A (A) – D (D) (10, green)  P2 (you)" in text


def test_the_browser_svg_colours_routes_and_bands_owners(tmp_path):
    from interpreter.views.render import view_observation
    from interpreter.views.webview import seat_html

    rs = _drawn(tmp_path)
    html = seat_html(rs, view_observation(rs.new_game(2, seed=0), 0), [])
    # each route one group (with its data-route id, and the actions naming it where there are any)
    assert len(re.findall(r'<g class="route(?: actionable)?"[ >]', html)) == 4
    assert 'stroke="green" stroke-width="5" stroke-dasharray=' in html
    assert html.count('class="owned seat-0"') == 3 and html.count('class="owned seat-1"') == 1


def test_a_display_edge_style_must_name_an_edge_attribute(tmp_path):
    text = ROUTES_RS.replace("display:\n", "display:\n  map: {name: land, edges: {colour: hue}}\n")
    (tmp_path / "routes.csv").write_text(ROUTES)
    want = r"`edges.colour` names 'hue', which no edge of map `land` has \(its attributes: code, colour, id, kind, len\)"
    with pytest.raises(RulesetErrors, match=want):
        load_ruleset(_write(tmp_path, text))


def test_tapster_map_draws_routes_and_refuses_a_colour_that_is_not_one(tmp_path, capsys):
    import matplotlib.image as mpimg

    from interpreter.cli import main

    rs = _drawn(tmp_path)
    path = str(rs.path)
    out = tmp_path / "map.png"
    assert main(["map", path, "--out", str(out)]) == 0
    img = mpimg.imread(str(out))
    green = ((img[..., 0] < 0.1) & (img[..., 1] > 0.45) & (img[..., 1] < 0.55) & (img[..., 2] < 0.1)).sum()
    assert green > 100  # the green route A-D, drawn in its colour
    assert main(["map", path, "--out", str(out), "--colour", "region"]) == 2
    assert "no node of map `land` has an attribute 'region' (its nodes' attributes: colour, id, x, y)" in capsys.readouterr().err
    assert main(["map", path, "--out", str(out), "--colour", "x"]) == 2
    assert "does not hold colour names: found 0, 1, 2, 5" in capsys.readouterr().err


def test_tapster_map_draws_a_saved_state_as_a_seat_sees_it(tmp_path, monkeypatch, capsys):
    # issue 31: `tapster map --state saved.json` draws the owners of that game, not a fresh one's;
    # with --seat P only what P may see (an edge in another seat's owner zone has no owner drawn).
    import json

    import interpreter.loader.maps as maps
    from interpreter.cli import main

    rs = _drawn(tmp_path, secret=True)  # r1, r2, r4 claimed by P1 (public); r3 in P2's secret zone
    data = rs.new_game(2, seed=0).to_json()
    data["zones"]["claimed"] = [[{"c": "route-r1"}, {"c": "route-r4"}], [{"c": "route-r2"}]]  # P2 took r2 from P1
    saved = tmp_path / "saved.json"
    saved.write_text(json.dumps(data))
    drawn = []
    real = maps.draw_map
    monkeypatch.setattr(maps, "draw_map", lambda *a, **k: drawn.append(k) or real(*a, **k))
    path, out = str(rs.path), str(tmp_path / "map.png")
    assert main(["map", path, "--out", out, "--state", str(saved)]) == 0
    assert drawn[-1]["owners"] == {"route-r1": 0, "route-r4": 0, "route-r2": 1, "route-r3": 1}
    assert (tmp_path / "map.png").stat().st_size > 1000
    assert main(["map", path, "--out", out, "--state", str(saved), "--seat", "1"]) == 0
    assert drawn[-1]["owners"] == {"route-r1": 0, "route-r4": 0, "route-r2": 1}  # r3 is P2's secret
    assert "as P1 sees it" in drawn[-1]["title"]
    assert main(["map", path, "--out", out, "--state", str(saved), "--seat", "2"]) == 0
    assert drawn[-1]["owners"] == {"route-r1": 0, "route-r4": 0, "route-r2": 1, "route-r3": 1}
    assert main(["map", path, "--out", out, "--seat", "1"]) == 0  # a fresh game, as P1 sees it
    assert drawn[-1]["owners"] == {"route-r1": 0, "route-r2": 0, "route-r4": 0}
    capsys.readouterr()
    # Mistakes: one line each, no traceback.
    assert main(["map", path, "--out", out, "--state", str(saved), "--players", "2"]) == 2
    assert "--players is for a fresh game" in capsys.readouterr().err
    assert main(["map", path, "--out", out, "--state", str(saved), "--seat", "3"]) == 2
    assert "the game has 2 players, not 3" in capsys.readouterr().err
    data["zones"]["claimed"] = [[{"c": "route-r1"}], []]  # r2 and r4 vanished: not a state of this game
    saved.write_text(json.dumps(data))
    assert main(["map", path, "--out", out, "--state", str(saved)]) == 1
    err = capsys.readouterr().err
    assert err == f"{saved}:1:1: malformed saved state: components missing from every zone: route-r2, route-r4\n"
    saved.write_text("{not json")
    assert main(["map", path, "--out", out, "--state", str(saved)]) == 1
    assert f"{saved}:1:2: not a JSON saved state" in capsys.readouterr().err
    assert main(["map", path, "--out", out, "--state", str(tmp_path)]) == 2  # a folder: click refuses it


def test_component_labels_and_derived_fields_read_the_map(tmp_path):
    # issue 31 item 3: `node_attr(land, a, 'colour')` in a label used to be `unknown name land`
    text = ROUTES_RS.replace(
        'label: "{a}-{b}"}',
        'label: "{a}-{b} {node_attr(land, a, \'colour\')}", derived: {hops: "path_length(land, a, \'E\')"}}')
    (tmp_path / "routes.csv").write_text(ROUTES)
    rs = load_ruleset(_write(tmp_path, text))
    assert rs.by_id["route-r1"].label == "A-B red"
    assert rs.by_id["route-r2"].label == "B-C blue"
    assert rs.by_id["route-r1"].fields["hops"] is None  # E is on no road
    # the map the labels read is the complete one, edges as components included
    assert _eval(rs, rs.new_game(2, seed=0), "edge(land, 'A', 'B', 'component')") is rs.by_id["route-r1"]
