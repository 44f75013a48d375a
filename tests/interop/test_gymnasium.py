"""Any ruleset as a single-agent Gymnasium environment and as a vectorised one (issue 46):
Gymnasium's own checker, the vector env against one env per game, hidden information, seats,
opponents and illegal actions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from interpreter.errors import IllegalActionError, TapsterError  # noqa: E402
from interpreter.interop.gymnasium import env, vector_env  # noqa: E402


@pytest.mark.parametrize("ruleset", ["tic_tac_toe", "kuhn_poker", "beer_flights"])
def test_gymnasiums_checker_passes(ruleset):
    e = env(ruleset)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # some of the tensor's numbers (turn counters, codes, numbers no constant bounds) have no static bounds
        warnings.filterwarnings("ignore", message=".*Box observation space m(in|ax)imum value is -?infinity")
        check_env(e, skip_render_check=True)


def _first_legal(mask: np.ndarray, rng: np.random.RandomState) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("ruleset", ["tic_tac_toe", "kuhn_poker"])
def test_the_vector_env_plays_as_one_env_per_game(ruleset):
    # game i of a vector env reset with seed 10 plays as env reset with seed 10 + i, through
    # finished games and the next-step autoreset (a reset without a seed: the generator goes on)
    n = 3
    v = vector_env(ruleset, num_envs=n)
    singles = [env(ruleset) for _ in range(n)]
    obs, _ = v.reset(seed=10)
    single = [e.reset(seed=10 + i)[0] for i, e in enumerate(singles)]
    rng = np.random.RandomState(0)
    done = [False] * n
    finished = 0
    for _ in range(40):
        for i in range(n):
            assert np.array_equal(obs["observation"][i], single[i]["observation"])
            assert np.array_equal(obs["action_mask"][i], single[i]["action_mask"])
        actions = np.array([_first_legal(obs["action_mask"][i], rng) if not done[i] else 0 for i in range(n)])
        obs, rewards, terms, truncs, info = v.step(actions)
        for i, e in enumerate(singles):
            if done[i]:
                single[i], _ = e.reset()
                assert rewards[i] == 0 and not terms[i]
                done[i] = False
                continue
            single[i], r, term, trunc, _ = e.step(int(actions[i]))
            assert (rewards[i], terms[i], truncs[i]) == (r, term, trunc)
            done[i] = term or trunc
            finished += term
        assert obs["observation"].shape == (n, v.encoding.tensor_size) and obs["observation"].dtype == np.float32
        assert not info["illegal"].any()
    assert finished >= n


def test_kuhn_observations_show_the_learners_card_only():
    # over many deals the learner's first observation takes 3 values (its own card), never 6
    e = env("kuhn_poker")
    first = {e.reset(seed=s)[0]["observation"].tobytes() for s in range(30)}
    assert len(first) == 3
    e2 = env("kuhn_poker", seat=1)
    assert len({e2.reset(seed=s)[0]["observation"].tobytes() for s in range(30)}) > 3  # seat 1 also sees P1's move


def test_render_shows_the_learners_view_only():
    e = env("kuhn_poker", render_mode="ansi")
    e.reset(seed=3)
    text = e.render()
    mine = e.state.zones["hand"][0][0].fields["name"]
    theirs = e.state.zones["hand"][1][0].fields["name"]
    assert f"P1 (you): {mine}" in text and "P2: 1 face down" in text and f": {theirs}" not in text


def test_rewards_seats_and_opponents():
    rng = np.random.RandomState(1)
    for seat in (0, 1):
        e = env("tic_tac_toe", seat=seat, opponent="greedy")
        obs, _ = e.reset(seed=seat)
        marks = int(obs["action_mask"].sum())
        assert marks == (9 if seat == 0 else 8)  # as O, X has already played
        total, term = 0.0, False
        while not term:
            obs, r, term, trunc, info = e.step(_first_legal(obs["action_mask"], rng))
            assert not trunc
            total += r
        assert total in (-1.0, 0.0, 1.0) and info["action_mask"].sum() == 0
    with pytest.raises(TapsterError, match="seat 2"):
        env("tic_tac_toe", seat=2)
    with pytest.raises(TapsterError):
        env("tic_tac_toe", opponent="no_such_agent")
    with pytest.raises(TapsterError, match="no parameter nosuch"):
        env("beer_flights", nosuch=1)
    assert env("beer_flights", turns=8).encoding.max_game_length == 48


def test_an_illegal_action_loses_or_raises():
    e = env("tic_tac_toe")
    e.reset(seed=0)
    e.step(4)
    obs, r, term, trunc, info = e.step(4)  # the centre is taken
    assert (r, term, trunc, info.get("illegal")) == (-1.0, True, False, True) and obs["action_mask"].sum() == 0
    strict = env("tic_tac_toe", illegal="raise")
    strict.reset(seed=0)
    strict.step(4)
    with pytest.raises(IllegalActionError):
        strict.step(4)


@pytest.mark.parametrize("ruleset", ["tic_tac_toe", "beer_knight"])
def test_the_factored_action_space_passes_the_checker_and_plays(ruleset):
    e = env(ruleset, factored=True)
    f = e.factors
    assert e.action_space.nvec.tolist() == f.nvec.tolist()
    if ruleset == "beer_knight":  # last_call(a, b) is one head of 120 × 120
        assert f.nvec.tolist()[1:] == [120, 120]
    else:  # nothing factored: the head is the flat id
        assert f.nvec.tolist() == [9]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=".*Box observation space m(in|ax)imum value is -?infinity")
        # Beer Knight's next_mod and next_extra_all are only ever set to 0, a card's slot is 0 with one Combo: [0, 0]
        warnings.filterwarnings("ignore", message=".*Box observation space maximum and minimum values are equal")
        check_env(e, skip_render_check=True)
    rng = np.random.RandomState(0)
    obs, _ = e.reset(seed=3)
    offsets = np.concatenate(([0], np.cumsum(f.nvec)[:-1]))
    for _ in range(60):  # the legal ids' factors are allowed by the factor masks; stepping them is legal
        ids = np.flatnonzero(obs["action_mask"])
        if not len(ids):
            obs, _ = e.reset()
            continue
        factors = f.encode(int(rng.choice(ids)))
        assert all(obs["factor_mask"][offsets[k] + factors[k]] for k in range(len(f.nvec)))
        obs, _r, term, trunc, info = e.step(factors)
        assert not info.get("illegal")
        if term or trunc:
            obs, _ = e.reset()


def test_factors_naming_no_legal_action_lose_or_raise():
    e = env("beer_knight", factored=True)
    obs, _ = e.reset(seed=0)
    lc = next(h for h, (_first, sizes) in enumerate(e.factors.heads) if sizes == (120, 120))
    assert e.factors.decode([lc, 120, 0]) == -1 and e.factors.decode([len(e.factors.heads), 0, 0]) == -1
    assert e.factors.decode([lc, 3, 7]) == e.encoding.unfactor("last_call", (3, 7))
    _obs, r, term, _trunc, info = e.step(np.array([lc, 120, 0]))  # outside last_call's values
    assert (r, term, info.get("illegal")) == (e.encoding.min_utility, True, True)
    strict = env("beer_knight", factored=True, illegal="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="name no action"):
        strict.step(np.array([lc, 120, 0]))
    with pytest.raises(TapsterError, match="factored="):
        env("tic_tac_toe", factored="yes")


def test_the_factored_vector_env():
    v = vector_env("beer_knight", num_envs=3, factored=True)
    obs, _ = v.reset(seed=1)
    assert obs["factor_mask"].shape == (3, int(v.factors.nvec.sum())) and v.action_space.shape == (3, 3)
    rng = np.random.RandomState(1)
    for _ in range(30):
        acts = np.zeros((3, 3), np.int64)
        for i in range(3):
            ids = np.flatnonzero(obs["action_mask"][i])
            if len(ids):
                acts[i] = v.factors.encode(int(rng.choice(ids)))
        obs, _r, _term, _trunc, info = v.step(acts)
        assert not info["illegal"].any()
    assert v.observation_space["observation"].contains(obs["observation"])
