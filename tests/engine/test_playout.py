"""Playouts inside the generated code (interpreter/engine/playout.py) play the games that
``legal_actions`` + ``apply`` play, byte for byte: on every shipped ruleset, variant and player
count, in both chance modes, stopped at any depth, and when a move fails."""

from __future__ import annotations

import json

import pytest

from interpreter import available_rulesets, load_ruleset
from interpreter.engine.playout import playout, random_policy, take
from interpreter.engine.rng import Rng
from interpreter.errors import TapsterError

GAMES = 10


def _configurations():
    out = []
    for name in available_rulesets():
        base = load_ruleset(name)
        for variant in [None, *base.variants]:
            rs = load_ruleset(name, variant)
            for n in range(rs.min_players, rs.max_players + 1):
                out.append((name, variant, n))
    return out


CONFIGURATIONS = _configurations()


def _api_game(rs, players: int, seed: int, agent: Rng, limit: int | None = None):
    """A random game through the public API: every decision ``agent.below(len(legal))``, every
    chance point (explicit chance) sampled from ``agent``; stops after ``limit`` decisions."""
    st = rs.new_game(players, seed=seed, log=True)
    taken = 0
    while not st.finished:
        if st.is_chance():
            st.apply(st.sample_chance(agent))
            continue
        if limit is not None and taken >= limit:
            break
        legal = st.legal_actions()
        st.apply(legal[agent.below(len(legal))])
        taken += 1
    return st


def _flat(linked) -> list:
    """A state's ``history`` or ``record`` (a linked list of pairs, newest first) as a list,
    read without recursion (a long game's chain is deeper than Python's comparison recursion)."""
    out = []
    while linked is not None:
        out.append(linked[0])
        linked = linked[1]
    return out


def _same(a, b) -> None:
    assert json.dumps(a.to_json(), sort_keys=True) == json.dumps(b.to_json(), sort_keys=True)
    assert a.log == b.log
    assert _flat(a.history) == _flat(b.history)
    assert _flat(a.record) == _flat(b.record)
    assert a.finished == b.finished
    if a.finished:
        assert a.outcome().to_json() == b.outcome().to_json()
    else:
        assert a.legal_actions() == b.legal_actions()
        assert a.current_players() == b.current_players()


@pytest.mark.parametrize("name,variant,players", CONFIGURATIONS, ids=[f"{n}-{v or 'base'}-{p}p" for n, v, p in CONFIGURATIONS])
def test_a_playout_is_the_api_game(name, variant, players):
    """Random games (one agent generator for every seat, as tools/game_digest.py draws): the
    playout's final state, log, history and record equal the API's, and the generator ends in
    the same state (the same numbers were drawn)."""
    rs = load_ruleset(name, variant)
    a_api, a_fast = Rng(1), Rng(1)
    for seed in range(GAMES):
        st_api = _api_game(rs, players, seed, a_api)
        st = rs.new_game(players, seed=seed, log=True)
        playout(st, random_policy([a_fast] * players))
        assert st.finished
        _same(st_api, st)
        assert st.env.pick is None
    assert a_api.state == a_fast.state


@pytest.mark.parametrize("name", ["beer_knight", "belgian_beers_race", "drink_and_beat", "beer_cards", "kuhn_poker"])
def test_a_playout_with_explicit_chance_is_the_api_game(name):
    """Explicit chance: chance points sampled from the same generator between decisions."""
    rs = load_ruleset(name, chance="explicit")
    a_api, a_fast = Rng(7), Rng(7)
    for seed in range(4):
        st_api = _api_game(rs, rs.min_players, seed, a_api)
        st = rs.new_game(rs.min_players, seed=seed, log=True)
        playout(st, random_policy([a_fast] * rs.min_players), chance_rng=a_fast)
        _same(st_api, st)
    assert a_api.state == a_fast.state


@pytest.mark.parametrize("name,players", [("beer_knight", 2), ("belgian_beers_race", 3), ("beer_flights", 4), ("little_railways", 3)])
def test_a_playout_stopped_at_a_depth_is_the_api_state_and_plays_on(name, players):
    """A policy that answers None stops the playout at that decision, which is left pending as
    after ``apply``; the state then plays on through ``apply`` as the API's does."""
    rs = load_ruleset(name)
    for seed, depth in ((0, 1), (1, 7), (2, 40)):
        a_api, a_fast = Rng(seed), Rng(seed)
        st_api = _api_game(rs, players, seed, a_api, limit=depth)
        left = depth

        def pick(choose, actions, seats, below=a_fast.below):
            nonlocal left
            if left == 0:
                return None
            left -= 1
            return below(len(actions))

        st = rs.new_game(players, seed=seed, log=True)
        playout(st, pick)
        _same(st_api, st)
        for _ in range(5):
            if st.finished:
                break
            k = a_api.below(len(st.legal_actions()))
            st_api.apply(st_api.legal_actions()[k])
            st.apply(st.legal_actions()[k])
            _same(st_api, st)


FAILING = """\
name: Fails later
players: {min: 2, max: 2}
vars:
  moves: {initial: 0}
  table: {initial: [1, 2, 3]}
flow:
  - while:
      cond: "true"
      do:
        - turn:
            player: moves % 2
            do:
              - choose:
                  name: step
                  options:
                    - action: step
                      for: n
                      in: range(2)
                      do:
                        - add: {moves: 1}
                        - set: {moves: "moves + table[moves * n]"}
outcome:
  score: "0"
"""


def test_a_failed_move_leaves_the_state_at_its_decision(tmp_path):
    """A move that fails in a playout raises the error ``apply`` raises and leaves the state as
    ``apply`` leaves it: at the failing move's decision, every earlier move kept."""
    path = tmp_path / "ruleset.yaml"
    path.write_text(FAILING, encoding="utf-8")
    rs = load_ruleset(str(path))
    # the API's game: step(0) until the index runs past the table, then the error
    st_api = rs.new_game(2, seed=0)
    taken = 0
    with pytest.raises(TapsterError) as api_error:
        while True:
            st_api.apply(st_api.legal_actions()[1 if taken == 2 else 0])
            taken += 1
    st = rs.new_game(2, seed=0)
    answers = iter([0, 0, 1])
    with pytest.raises(TapsterError) as fast_error:
        playout(st, lambda choose, actions, seats: next(answers))
    assert str(fast_error.value) == str(api_error.value)
    assert "table" in str(fast_error.value)
    assert taken == 2
    _same(st_api, st)
    assert st.env.pick is None
    st.apply(st.legal_actions()[0])  # the state plays on
    assert st.vars["moves"] > 0


def test_take_is_apply_by_index():
    """``take(st, k)`` is ``apply(legal_actions()[k])``: the same state after it."""
    rs = load_ruleset("beer_knight")
    a, b = rs.new_game(2, seed=3, log=True), rs.new_game(2, seed=3, log=True)
    agent = Rng(5)
    while not a.finished:
        k = agent.below(len(a.legal_actions()))
        a.apply(a.legal_actions()[k])
        take(b, k)
        _same(a, b)
    with pytest.raises(IndexError):
        c = rs.new_game(2, seed=3)
        take(c, len(c.legal_actions()))


ENDLESS = """\
name: Never ends
players: {min: 2, max: 2}
vars:
  moves: {initial: 0}
flow:
  - while:
      cond: "true"
      do:
        - turn:
            player: moves % 2
            do:
              - choose:
                  name: step
                  options:
                    - action: step
                      for: n
                      in: range(3)
                      do:
                        - add: {moves: 1}
outcome:
  score: "0"
limits:
  actions: 25
"""


@pytest.mark.parametrize("name,players,agents", [
    ("beer_flights", 3, ("random", "random", "random")),
    ("drink_and_beat", 2, ("random", "random")),
    ("beer_knight", 2, ("random", "first")),  # not every seat random: the agents' loop
])
def test_simulate_plays_the_agents_games(monkeypatch, name, players, agents):
    """``play_batch`` with random agents plays in the generated code: the same scores, winners
    and lengths as the agents' loop of ``act`` and ``apply``."""
    from interpreter.analysis import simulate

    spec = simulate.SimSpec(path=name, variant=None, params=(), players=players, agents=agents, seed=5)
    fast = simulate.play_batch(spec, range(12))
    monkeypatch.setattr(simulate, "_random_playout", lambda st, rs, rngs: 0)
    slow = simulate.play_batch(spec, range(12))
    assert fast == slow
    assert all(r[1] is not None for r in fast)
    # and the agents themselves, made as any caller makes them (make_agent with agent_seed)
    from interpreter.agents.core import make_agent

    rs = simulate._ruleset_for(spec)
    for i, scores, winners, n in fast:
        gs = simulate.game_seed(spec.seed, i)
        made = [make_agent(a, simulate.agent_seed(gs, p)) for p, a in enumerate(agents)]
        st, k = rs.new_game(players, seed=gs), 0
        while not st.finished:
            p = st.current_players()[0]
            st.apply(made[p].act(st, p))
            k += 1
        assert (st.outcome().scores, st.outcome().winners, k) == (scores, winners, n)


@pytest.mark.parametrize("prefix", ["5:3", "", "x" * 40, "blake2b", "blake2b:" + "ab" * 32, "é:1"])
def test_seed_states_equal_seed_state_of_each_text(prefix):
    """A simulation seeds its agents from their game's seed hashed once: the same states as
    hashing each whole text (a secure seed's prefix too)."""
    from interpreter.engine.rng import seed_state, seed_states

    suffixes = [":agent:0", ":agent:1", "", "ab" * 32]
    assert seed_states(prefix, suffixes) == [seed_state(prefix + s) for s in suffixes]


def test_simulate_stops_an_endless_game_as_the_agents_loop_does(tmp_path, monkeypatch):
    """A game still going after ``limits: {actions: N}`` fails with the same message after the
    same number of actions, in the generated code as in the agents' loop."""
    from interpreter.analysis import simulate

    path = tmp_path / "ruleset.yaml"
    path.write_text(ENDLESS, encoding="utf-8")
    spec = simulate.SimSpec(path=str(path), variant=None, params=(), players=2, agents=("random", "random"), seed=1)
    fast = simulate.play_batch(spec, range(3))
    monkeypatch.setattr(simulate, "_random_playout", lambda st, rs, rngs: 0)
    slow = simulate.play_batch(spec, range(3))
    assert fast == slow
    assert fast[0][1] is None and "has not ended after 25 actions" in fast[0][2] and fast[0][3] == 25


@pytest.mark.parametrize("name,players,agents,actions", [
    ("beer_flights", 3, ("random", "random", "random"), None),
    ("belgian_beers_race", 2, ("random", "random"), None),
    ("beer_knight", 2, ("random", "random"), None),
    ("little_railways", 3, ("random", "random", "random"), 7),  # stopped by the action limit
])
def test_the_balance_report_plays_the_agents_games(monkeypatch, name, players, agents, actions):
    """``analyse``'s games with every seat random play in the generated code: every record
    (scores, reasons, the score trace, branching, actions used, the limit) equals the agents'
    loop's."""
    from interpreter.analysis import balance, simulate

    spec = simulate.SimSpec(path=name, variant=None, params=(), players=players, agents=agents, seed=4)
    if actions is not None:
        rs = load_ruleset(name)
        monkeypatch.setattr(rs, "action_limit", actions)
        monkeypatch.setattr(balance, "_ruleset_for", lambda spec: rs)

    def records():
        return [(r.row(), r.trace, r.branching, r.choices, r.labels, r.trace_error) for r in balance.play_games(spec, range(8))]

    fast = records()
    monkeypatch.setattr(balance, "playout", lambda st, pick: None)
    slow = records()
    assert fast == slow
    assert all(row["error"] is None for row, *_ in fast)
    if actions is not None:
        assert all(row["limit_hit"] and row["decisions"] == actions for row, *_ in fast)


RUNAWAY = """\
name: Runs away in a body
players: {min: 2, max: 2}
vars:
  moves: {initial: 0}
flow:
  - repeat:
      times: 3
      do:
        - choose:
            name: step
            options:
              - action: step
                for: n
                in: range(2)
                do:
                  - add: {moves: 1}
                  - while:
                      cond: "moves > 1 and n == 1"
                      do:
                        - add: {moves: 1}
outcome:
  score: "0"
"""


def test_a_body_run_in_place_that_runs_away_fails_as_apply_fails(tmp_path):
    """A decision-free option body written out where a playout takes its decision (see
    flowgen._inline_body) counts its steps as its own function does: an endless loop in it
    fails with the step budget's error at the same rule as through ``apply``, and the state is
    left at that move's decision."""
    path = tmp_path / "ruleset.yaml"
    path.write_text(RUNAWAY, encoding="utf-8")
    rs = load_ruleset(str(path))
    assert any("# the body of option step, written out" in src for _, src in rs.sources)
    st_api = rs.new_game(2, seed=0)
    st_api.apply(st_api.legal_actions()[0])
    with pytest.raises(TapsterError) as api_error:
        st_api.apply(st_api.legal_actions()[1])
    st = rs.new_game(2, seed=0)
    answers = iter([0, 1])
    with pytest.raises(TapsterError) as fast_error:
        playout(st, lambda choose, actions, seats: next(answers))
    assert str(fast_error.value) == str(api_error.value)
    assert "step budget" in str(fast_error.value) and "ruleset.yaml:20:" in str(fast_error.value)  # the `add` in the loop
    _same(st_api, st)
    assert st.vars["moves"] == 1
