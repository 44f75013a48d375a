"""Generic invariants, for every ruleset and variant, over random games and several seeds
(OpenSpiel's random_sim_test, in spirit):

- every listed legal action applies, and an unlisted one is refused with the state unchanged;
- clone() and the JSON round trip give the same continuation under the same actions;
- the same seed gives the same game, byte for byte;
- an observation never shows a zone's contents to a player who may not see them.
"""

from __future__ import annotations

import json

import pytest

from interpreter import IllegalActionError, State
from interpreter import flow as flow_engine
from interpreter.rng import Rng

from .conftest import all_configurations, compiled

CONFIGS = all_configurations()
SEEDS = [1, 2, 3]


def _players(rs):
    return sorted({rs.min_players, rs.default_players, rs.max_players})


def _play(rs, players, seed, agent_seed, limit=20_000):
    st = rs.new_game(players, seed=seed, log=True)
    rng = Rng(agent_seed)
    actions = []
    while not st.is_terminal() and len(actions) < limit:
        legal = st.legal_actions()
        assert legal, "a pending decision lists no legal action"
        a = rng.choice(legal)
        st.apply(a)
        actions.append(str(a))
    assert st.is_terminal(), "the game did not end"
    return st, actions


@pytest.mark.parametrize(("name", "variant"), CONFIGS)
def test_random_games_end_with_an_outcome(name, variant):
    rs = compiled(name, variant)
    for players in _players(rs):
        for seed in SEEDS:
            st, _ = _play(rs, players, seed, seed * 7)
            out = st.outcome()
            assert len(out.scores) == players
            assert sorted(out.ranking) == list(range(players))
            assert set(out.winners) <= set(range(players))
            assert out.reason


@pytest.mark.parametrize(("name", "variant"), CONFIGS)
def test_same_seed_same_game(name, variant):
    rs = compiled(name, variant)
    players = rs.default_players
    a, acts_a = _play(rs, players, 5, 9)
    b, acts_b = _play(rs, players, 5, 9)
    assert acts_a == acts_b
    assert json.dumps(a.to_json(), sort_keys=True) == json.dumps(b.to_json(), sort_keys=True)


@pytest.mark.parametrize(("name", "variant"), CONFIGS)
def test_clone_and_json_round_trip_continue_identically(name, variant):
    rs = compiled(name, variant)
    st = rs.new_game(rs.default_players, seed=3, log=True)
    rng = Rng(4)
    step = 0
    while not st.is_terminal():
        if step % 5 == 0:
            # Branch off a clone and a JSON round trip; play the same actions in all three.
            before = st.to_json()
            live, copy = st.clone(), st.clone()
            saved = State.from_json(rs, json.loads(json.dumps(st.to_json())))
            assert saved.to_json() == st.to_json()
            branch_rng = Rng(step)
            for _ in range(8):
                if live.is_terminal():
                    break
                a = branch_rng.choice(live.legal_actions())
                live.apply(a)
                copy.apply(a)
                saved.apply(str(a))
                assert copy.to_json() == live.to_json() == saved.to_json()
            assert st.to_json() == before, "playing a clone changed the original"
        st.apply(rng.choice(st.legal_actions()))
        step += 1


@pytest.mark.parametrize(("name", "variant"), CONFIGS)
def test_every_legal_action_applies_and_illegal_ones_leave_the_state_unchanged(name, variant):
    rs = compiled(name, variant)
    st = rs.new_game(rs.default_players, seed=8)
    rng = Rng(1)
    checked = 0
    while not st.is_terminal() and checked < 40:
        legal = st.legal_actions()
        for a in legal[:12]:
            probe = st.clone()
            probe.apply(a)  # must not raise
        before = st.to_json()
        with pytest.raises(IllegalActionError) as info:
            st.apply("no_such_action(42)")
        assert st.to_json() == before
        assert set(info.value.legal) == set(legal)
        st.apply(rng.choice(legal))
        checked += 1


def _visible_ids(obs_zone):
    if isinstance(obs_zone, dict):
        return set()
    out = set()
    for item in obs_zone:
        if isinstance(item, str):
            out.add(item)
        else:
            out |= _visible_ids(item)
    return out


@pytest.mark.parametrize(("name", "variant"), CONFIGS)
def test_observation_hides_what_a_player_may_not_see(name, variant):
    rs = compiled(name, variant)
    for seed in SEEDS:
        st = rs.new_game(rs.default_players, seed=seed, log=True)
        rng = Rng(seed)
        while not st.is_terminal():
            for p in range(st.num_players):
                obs = st.observation(p)
                json.dumps(obs)  # JSON data only
                for decl in rs.zone_list:
                    z = st.zones[decl.name]
                    if decl.visibility == "public":
                        continue
                    for owner, comps in _owned_leaves(z, decl):
                        if decl.visibility == "owner" and owner == p:
                            continue
                        seen = obs["zones"][decl.name] if owner is None else obs["zones"][decl.name][owner]
                        leaked = {c.id for c in comps} & _visible_ids(seen)
                        assert not leaked, f"{decl.name} of seat {owner} leaks {leaked} to seat {p}"
                for line in st.visible_log(p):
                    assert isinstance(line, str)
            st.apply(rng.choice(st.legal_actions()))


def _owned_leaves(z, decl):
    def leaves(x, depth):
        if depth == 0:
            yield x
        else:
            for s in x:
                yield from leaves(s, depth - 1)

    if decl.keyed:  # a dict of stacks
        yield None, [c for stack in z.values() for c in stack]
    elif decl.per_player:
        for owner, sub in enumerate(z):
            comps = [c for leaf in leaves(sub, decl.depth - 1) for c in leaf]
            yield owner, comps
    else:
        yield None, [c for leaf in leaves(z, decl.depth) for c in leaf]


def _secret_configs():
    return [(n, v) for n, v in CONFIGS if any(c.secret for c in compiled(n, v).chooses)]


def test_some_shipped_ruleset_has_a_secret_decision():
    assert _secret_configs(), "no shipped ruleset marks a decision `secret: true`"


def _others_view(st, seat):
    return [(q, json.dumps(st.observation(q), sort_keys=True), st.visible_log(q)) for q in range(st.num_players) if q != seat]


def _just_after(st, action):
    """A copy of ``st`` just after ``action``'s own effects (the option's ``do`` and what it
    calls, up to the next decision) and before the flow goes on: a reveal that follows later
    in the flow legitimately tells everyone which card it was."""
    probe = st.clone()
    choose, loc, _, _ = probe.pending
    probe.pending = None
    probe.stack = []
    choose.resume(probe, loc, action)
    flow_engine.run(probe, finish=False)
    return probe


@pytest.mark.parametrize(("name", "variant"), _secret_configs())
def test_secret_decisions_reveal_nothing_to_the_others(name, variant):
    """At a `secret: true` decision, the actions of one option (which card goes face down) must
    leave every other player's observation and log identical: their information set is one."""
    rs = compiled(name, variant)
    checked = 0
    for seed in SEEDS:
        st = rs.new_game(rs.default_players, seed=seed, log=True)
        rng = Rng(seed + 100)
        while not st.is_terminal():
            choose = st.pending[0]
            if choose.secret:
                seat = st.current_players()[0]
                groups: dict = {}
                for a in st.legal_actions():
                    groups.setdefault(a.name, []).append(a)
                for actions in groups.values():
                    views = []
                    for a in actions:
                        views.append(_others_view(_just_after(st, a), seat))
                    assert all(v == views[0] for v in views), f"{choose.name}: {actions} can be told apart"
                    checked += len(actions) > 1
            st.apply(rng.choice(st.legal_actions()))
    assert checked, "no secret decision with two actions of one option was reached"
