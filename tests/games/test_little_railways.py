"""Little Railways (issue 31's example): a route game written with the subgraph builtins, no
recursion; its longest-railway line is shown to every seat and its map drawn with its routes."""

from __future__ import annotations

from interpreter import load_ruleset
from interpreter.views.render import view_observation
from interpreter.views.termview import seat_text


def test_no_function_recurses_and_the_railway_line_is_public():
    rs = load_ruleset("little_railways")
    assert rs.display.private_parts() == []
    st = rs.new_game(2, seed=3)
    for seat in (0, 1):
        obs = view_observation(st, seat)
        assert obs["display"]["header"][1] == "Longest railway: 0, 0"


def test_the_terminal_lists_the_routes_with_town_names_and_owners():
    rs = load_ruleset("little_railways")
    st = rs.new_game(2, seed=3)
    while not any(a.name == "claim" for a in st.legal_actions()):  # draw until a route is payable
        st.apply(next(a for a in st.legal_actions() if a.name == "draw"))
    claim = next(a for a in st.legal_actions() if a.name == "claim")
    who = st.current
    st.apply(claim)
    route = st.zones["claimed"][who][0]
    text = seat_text(rs, view_observation(st, 1 - who))
    a, b = (rs.maps["land"].node_data[n]["name"] for n in (route.fields["a"], route.fields["b"]))
    assert f"{a} ({route.fields['a']}) – {b} ({route.fields['b']}) ({route.fields['length']}, {route.fields['colour']})  P{who + 1}" in text
    assert "Coldwell (COL) – Fenwick (FEN) (1, red)" in text
