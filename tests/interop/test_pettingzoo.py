"""Every ruleset as a PettingZoo AEC environment, checked by PettingZoo's own API and seed tests."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from interpreter import available_rulesets, load_ruleset  # noqa: E402
from interpreter.errors import IllegalActionError, TapsterError  # noqa: E402
from interpreter.interop.pettingzoo import env  # noqa: E402

#: Rulesets whose games are long: fewer cycles keep CI's cost bounded.
SLOW = {"beer_knight", "belgian_beers_race"}


def _configs():
    return [(name, v) for name in available_rulesets() for v in [None, *load_ruleset(name).variants]]


@pytest.mark.parametrize(("ruleset", "variant"), _configs(), ids=lambda x: str(x))
@pytest.mark.filterwarnings("ignore:Observation")  # a Dict with an action mask, as PettingZoo's own classic games
def test_api_and_seed(ruleset, variant):
    cycles = 60 if ruleset in SLOW else 300
    api_test(env(ruleset, variant=variant), num_cycles=cycles)
    seed_test(partial(env, ruleset, variant=variant), num_cycles=cycles // 3)


def _play(e, seed: int, pick_seed: int) -> list:
    """A whole game with seeded random legal actions: the rewards, and every observation."""
    e.reset(seed=seed)
    rng = np.random.RandomState(pick_seed)
    seen, total = [], {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, termination, truncation, _ = e.last()
        total[agent] += reward
        seen.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes()))
        if termination or truncation:
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return [total, seen]


def test_reset_with_a_seed_is_reproducible_and_rewards_are_the_scores():
    e = env("kuhn_poker")
    first = _play(e, 5, 1)
    assert _play(e, 5, 1) == first
    assert _play(env("kuhn_poker"), 5, 1) == first
    rewards = first[0]
    assert sum(rewards.values()) == 0 and abs(rewards["player_0"]) in (1, 2)
    deals = {tuple(_play(e, s, 1)[1][0][1]) for s in range(12)}
    assert len(deals) == 3  # P1's first observation shows each of the three cards


def test_rewards_follow_the_outcome():
    e = env("tic_tac_toe")
    e.reset(seed=0)
    for cell in (0, 3, 1, 4, 2):
        e.step(cell)
    rewards = {}
    for agent in e.agent_iter():
        _, reward, termination, _, _ = e.last()
        assert termination
        rewards[agent] = reward
        e.step(None)
    assert rewards == {"player_0": 1.0, "player_1": -1.0}


def test_observation_of_a_seat_shows_only_its_own_card():
    e = env("kuhn_poker")
    e.reset(seed=0)
    rs_enc = e.unwrapped.encoding
    zones = {name: (start, stop) for name, start, stop in rs_enc.tensor_layout()}
    start, stop = zones["zones.hand[1]"]
    o0 = e.observe("player_0")["observation"][start:stop]
    o1 = e.observe("player_1")["observation"][start:stop]
    assert o0[:-1].sum() == 0 and o0[-1] == 1  # P1 sees only how many cards P2 holds
    assert o1[:-1].sum() == 1 and o1[-1] == 1  # P2 sees its card
    # the information state is the engine's one key (the OpenSpiel adapter's too)
    st = e.unwrapped.state
    assert e.unwrapped.information_state("player_1") == st.information_state(1)
    own = [c.id for c in st.zones["hand"][1]][0]
    assert own in e.unwrapped.information_state("player_1") and own not in e.unwrapped.information_state("player_0")


def test_render_is_the_text_display():
    e = env("tic_tac_toe", render_mode="ansi")
    e.reset(seed=0)
    assert "| . | . | . |" in e.render()  # the display's board of places
    e = env("beer_flights", render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    # a spectator's view: the display's table with everything face up (the deck's cards listed)
    assert "what an observer sees" in text and "Draw deck: " in text and "face down" not in text


def test_bad_input_is_a_clear_error():
    with pytest.raises(TapsterError, match="2 to 2 players, not 5"):
        env("tic_tac_toe", players=5)
    e = env("tic_tac_toe")
    e.reset(seed=0)
    with pytest.raises(TapsterError, match="not an index"):
        e.step(99)
    e.step(4)
    with pytest.raises(IllegalActionError):
        e.step(4)


def test_ruleset_parameters_are_keywords():
    e = env("beer_flights", turns=8)
    e.reset(seed=3)
    assert e.unwrapped.state.ruleset.params["turns"] == 8
    with pytest.raises(TapsterError, match="no parameter nosuch"):
        env("beer_flights", nosuch=3)
    with pytest.raises(TapsterError, match="at least 1"):
        env("kuhn_poker", bet=0)
