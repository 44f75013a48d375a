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


class _Clock:
    """A stand-in for the search module's ``time``: ``perf_counter`` reads a clock that moves
    only when an iteration runs, so what the deadline does is exact on a loaded machine."""

    def __init__(self) -> None:
        self.now = 1000.0

    def perf_counter(self) -> float:
        return self.now


@pytest.mark.parametrize("spec", ["ismcts:iterations=5000", "mcts:iterations=5000:worlds=4"])
def test_a_deadline_cuts_a_long_search_in_belgian_beers_race(spec, monkeypatch):
    import interpreter.agents.search as search

    clock = _Clock()
    monkeypatch.setattr(search, "time", clock)
    rs = load_ruleset("belgian_beers_race")
    st = rs.new_game(3, seed=5)
    p = st.current_players()[0]
    agent = make_agent(spec, "deadline")
    starts: list[float] = []
    real = agent._iterate

    def iterate(*args, **kw):  # each iteration takes 13 ms of the clock
        starts.append(clock.now)
        real(*args, **kw)
        clock.now += 0.013

    agent._iterate = iterate
    limit = 0.4
    agent.limit_time(limit)
    started = clock.now
    action = agent.act(st, p)
    assert action in st.legal_actions()
    # checked between iterations: the 31st ends at 403 ms, past the deadline, and none starts after it
    assert agent.cut and agent.last_iterations == len(starts) == 31
    assert all(t - started < limit for t in starts) and clock.now - started == pytest.approx(0.403)
    # the same search with no deadline runs all it was asked for, uncut
    free = make_agent(spec, "deadline")
    free.iterations = 200
    free.act(st, p)
    assert not free.cut and free.last_iterations == 200


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
