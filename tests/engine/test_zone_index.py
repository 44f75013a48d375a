"""The state's index from component to zone (State.locate, zone_of, remove_anywhere): always the
answer a search of every zone gives, through moves, clones, saves, failed moves and edits by
hand."""

from __future__ import annotations

import pytest

from interpreter import load_ruleset
from interpreter.engine.rng import Rng
from interpreter.engine.state import State, _key_text, _leaves_with_path


def _searched(st, comp):
    """Where ``comp`` is, by searching every zone (the definition the index must agree with)."""
    for decl in st.ruleset.zone_list:
        z = st.zones[decl.name]
        if decl.keyed:
            for key, sub in z.items():
                if comp in sub:
                    return f"{decl.name}[{_key_text(key)}]"
            continue
        for path, sub in _leaves_with_path(z, decl.depth):
            if comp in sub:
                return decl.name + "".join(f"[{i}]" for i in path)
    return None


def _agree(st):
    for c in st.ruleset.components:
        assert st.zone_of(c) == _searched(st, c), c.id


@pytest.mark.parametrize(("name", "players"), [("beer_knight", 2), ("belgian_beers_race", 3), ("drink_and_beat", 2),
                                               ("beer_cards", 3)])
def test_the_index_agrees_with_a_search_through_a_game(name, players):
    """Random games (moves without `from`, keyed stacks made and emptied, refills, shuffles):
    after every action, in the game, in a clone and in a restored save, every component is
    where a search of every zone finds it."""
    rs = load_ruleset(name)
    for seed in range(3):
        st = rs.new_game(players, seed=seed)
        agent = Rng(seed)
        steps = 0
        while not st.finished and steps < 300:
            legal = st.legal_actions()
            st.apply(legal[agent.below(len(legal))])
            steps += 1
            _agree(st)
            if steps % 25 == 0:
                _agree(st.clone())
                _agree(State.from_json(rs, st.to_json()))


def test_the_index_follows_edits_by_hand_and_removes_from_keyed_stacks():
    """A component moved by hand (as a scenario's position does) is found where it now lies;
    remove_anywhere takes it from there, and a keyed stack it empties is deleted."""
    rs = load_ruleset("belgian_beers_race")
    st = rs.new_game(3, seed=1)
    _agree(st)
    keyed = next(d for d in rs.zone_list if d.keyed and st.zones[d.name])
    z = st.zones[keyed.name]
    key, stack = next(iter(z.items()))
    comp = stack[-1]
    flat = next(d for d in rs.zone_list if not d.keyed and d.depth == 0)
    stack.remove(comp)  # by hand, behind the index's back
    if not stack:
        del z[key]
    st.zones[flat.name].append(comp)
    assert st.zone_of(comp) == flat.name
    _agree(st)
    st.zones[flat.name].remove(comp)
    z.setdefault(("new",), []).append(comp)
    assert st.zone_of(comp) == f'{keyed.name}[("new",)]'
    st.remove_anywhere(comp)
    assert ("new",) not in z
    assert st.zone_of(comp) is None
