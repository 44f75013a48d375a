"""A search's deadline (issue 44): a served agent's move ends by ``--max-agent-seconds`` whatever
its iterations, cut at the best action found so far, and a search that ends before its deadline
picks exactly what it picks without one (the seeded choices stay reproducible)."""

from __future__ import annotations

import time

import pytest

from interpreter.agents.core import make_agent, parse_agent
from interpreter.agents.search import _Search
from interpreter.compile.compiler import load_ruleset
from interpreter.errors import TapsterError
from interpreter.limits import MAX_PLAYOUT_DEPTH


def _timed(agent, starts=None):
    """Record how long each of ``agent``'s iterations takes (seconds of wall time), and when each
    starts (``time.perf_counter``) in ``starts``."""
    durations: list[float] = []
    real = agent._iterate

    def timed(*args, **kw):
        started = time.perf_counter()
        if starts is not None:
            starts.append(started)
        try:
            return real(*args, **kw)
        finally:
            durations.append(time.perf_counter() - started)

    agent._iterate = timed
    return durations


@pytest.mark.parametrize("spec", ["ismcts:iterations=5000", "mcts:iterations=5000:worlds=4"])
def test_a_deadline_cuts_a_long_search_in_belgian_beers_race(spec):
    rs = load_ruleset("belgian_beers_race")
    st = rs.new_game(3, seed=5)
    p = st.current_players()[0]
    agent = make_agent(spec, "deadline")
    starts: list[float] = []
    durations = _timed(agent, starts)
    limit = 0.4
    agent.limit_time(limit)
    started = time.perf_counter()
    action = agent.act(st, p)
    elapsed = time.perf_counter() - started
    assert action in st.legal_actions()
    assert agent.cut and 0 < agent.last_iterations < 5000 and len(durations) == agent.last_iterations
    assert all(t - started < limit for t in starts)  # no iteration starts after the deadline
    # within the deadline plus the one iteration (one playout) under way when it passed
    assert elapsed <= limit + max(durations) + 0.1, (elapsed, max(durations))


@pytest.mark.parametrize("name,players", [("tic_tac_toe", 2), ("kuhn_poker", 2), ("beer_cards", 3), ("belgian_beers_race", 2)])
@pytest.mark.parametrize("spec", ["ismcts:iterations=12:depth=30", "mcts:iterations=12:depth=30:worlds=3"])
def test_a_search_that_ends_before_its_deadline_picks_the_same(name, players, spec):
    rs = load_ruleset(name)
    st = rs.new_game(players, seed=11)
    for step in range(6):
        if st.is_terminal():
            break
        p = st.current_players()[0]
        free, hurried = make_agent(spec, f"s{step}"), make_agent(spec, f"s{step}")
        hurried.limit_time(600.0)
        a, b = free.act(st, p), hurried.act(st, p)
        assert str(a) == str(b) and free.rng.state == hurried.rng.state and not hurried.cut
        assert free.last_iterations == hurried.last_iterations
        st.apply(a)


def test_seconds_and_the_deadline_both_bound_a_search():
    rs = load_ruleset("belgian_beers_race")
    st = rs.new_game(3, seed=2)
    agent = make_agent("ismcts:seconds=30", 1)
    agent.limit_time(0.3)
    started = time.perf_counter()
    agent.act(st, st.current_players()[0])
    assert time.perf_counter() - started < 5 and agent.cut  # the deadline, not the 30 s asked for


def test_depth_has_a_hard_maximum_and_a_time_limit_is_a_positive_number():
    assert parse_agent(f"mcts:depth={MAX_PLAYOUT_DEPTH}")[1] == {"depth": MAX_PLAYOUT_DEPTH}
    for spec in ("mcts:depth=1000000", f"ismcts:depth={MAX_PLAYOUT_DEPTH + 1}"):
        with pytest.raises(TapsterError, match=f"from 1 to {MAX_PLAYOUT_DEPTH}"):
            parse_agent(spec)
    agent = make_agent("mcts", 0)
    assert isinstance(agent, _Search) and agent.time_limit is None  # offline runs have no deadline
    for bad in (0, -1.0, float("nan"), "3", True):
        with pytest.raises(ValueError, match="positive number of seconds"):
            agent.limit_time(bad)
    agent.limit_time(None)
    assert agent.time_limit is None
