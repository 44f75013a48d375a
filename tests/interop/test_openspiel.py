"""Every ruleset as an OpenSpiel game, checked by OpenSpiel's own tests and algorithms: its random
simulation test on every ruleset and variant, CFR+ on Kuhn poker (exploitability and the game
value -1/18 known since Kuhn 1950), MCTS on tic-tac-toe against a random player."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import cfr, expected_game_score, exploitability, mcts  # noqa: E402
from open_spiel.python.algorithms.get_all_states import get_all_states  # noqa: E402
from open_spiel.python.bots import uniform_random  # noqa: E402

from interpreter import available_rulesets, load_ruleset  # noqa: E402
from interpreter.errors import TapsterError  # noqa: E402
from interpreter.interop.openspiel import game_name, load_game, register  # noqa: E402

#: Rulesets whose games are long: fewer simulations keep CI's cost bounded.
SLOW = {"beer_knight", "belgian_beers_race"}


def _configs():
    return [(name, v) for name in available_rulesets() for v in [None, *load_ruleset(name).variants]]


@pytest.mark.parametrize(("ruleset", "variant"), _configs(), ids=lambda x: str(x))
def test_random_sim_test(ruleset, variant):
    # serialize=True: every state is pickled and restored on the way (issue 30); the utility
    # bounds and the longest game checked by OpenSpiel are the ruleset's declared facts
    game = load_game(ruleset, variant)
    pyspiel.random_sim_test(game, num_sims=1 if ruleset in SLOW else 3, serialize=True, verbose=False)


def test_every_player_count_is_a_game():
    for players in (2, 3, 4):
        game = load_game("beer_flights", players=players)
        assert game.num_players() == players
        pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_registered_names_and_types():
    assert register("tic_tac_toe") == game_name("tic_tac_toe") == "tapster_tic_tac_toe"
    ttt = pyspiel.load_game("tapster_tic_tac_toe")
    t = ttt.get_type()
    assert t.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert t.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert ttt.num_distinct_actions() == 9 and ttt.max_chance_outcomes() == 0
    kuhn = load_game("kuhn_poker").get_type()
    assert kuhn.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kuhn.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert load_game("beer_flights").get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert register("beer_flights", "five_player") == "tapster_beer_flights_five_player"


def test_a_bad_player_count_is_a_clear_error():
    with pytest.raises((TapsterError, RuntimeError), match="2 to 2 players, not 3"):
        load_game("tic_tac_toe", players=3)


def test_the_same_action_has_the_same_index_in_every_state():
    game = load_game("beer_flights")
    rng = np.random.RandomState(3)
    names: dict[int, str] = {}
    for _ in range(5):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            decision = state.tapster_state.decision()
            for a in state.legal_actions():
                text = state.action_to_string(state.current_player(), a)
                assert names.setdefault(a, text) == text
            assert sorted(str(x) for x in decision.actions) == sorted(names[a] for a in state.legal_actions())
            state.apply_action(int(rng.choice(state.legal_actions())))


# ---- Kuhn poker ---------------------------------------------------------------------------------


def test_kuhn_poker_tree_has_30_terminal_histories_and_12_information_sets():
    game = load_game("kuhn_poker")
    states = get_all_states(game, include_terminals=True, include_chance_states=True)
    assert sum(s.is_terminal() for s in states.values()) == 30
    infosets = {0: set(), 1: set()}
    for s in states.values():
        if not s.is_terminal() and not s.is_chance_node():
            infosets[s.current_player()].add(s.information_state_string())
    assert {p: len(v) for p, v in infosets.items()} == {0: 6, 1: 6}
    root = game.new_initial_state()
    assert root.is_chance_node() and len(root.chance_outcomes()) == 3
    root.apply_action(root.legal_actions()[0])
    assert root.is_chance_node() and len(root.chance_outcomes()) == 2


def test_kuhn_poker_matches_openspiels_own_game_information_set_by_information_set():
    # Both trees walked in lockstep (cards J, Q, K are chance outcomes 0, 1, 2 in both; the actions
    # are OpenSpiel's: pass 0 (check or fold), bet 1 (bet or call)): the same chance probabilities,
    # legal action ids and returns everywhere, and the same partition into information sets.
    ours, theirs = load_game("kuhn_poker"), pyspiel.load_game("kuhn_poker")
    assert (ours.min_utility(), ours.max_utility(), ours.max_game_length()) == (
        theirs.min_utility(), theirs.max_utility(), theirs.max_game_length())
    assert ours.information_state_tensor_shape() and ours.get_type().provides_information_state_tensor
    pairs = {0: set(), 1: set()}

    def walk(a, b):
        assert a.is_terminal() == b.is_terminal() and a.is_chance_node() == b.is_chance_node()
        if b.is_terminal():
            assert a.returns() == b.returns()
            return
        if b.is_chance_node():
            assert a.chance_outcomes() == b.chance_outcomes()
            for action, _ in b.chance_outcomes():
                walk(a.child(action), b.child(action))
            return
        p = b.current_player()
        assert a.current_player() == p
        pairs[p].add((a.information_state_string(p), b.information_state_string(p)))
        assert a.legal_actions() == b.legal_actions() == [0, 1]
        assert [a.action_to_string(p, x) for x in (0, 1)] == [b.action_to_string(p, x).lower() for x in (0, 1)] == ["pass", "bet"]
        for x in b.legal_actions():
            walk(a.child(x), b.child(x))

    walk(ours.new_initial_state(), theirs.new_initial_state())
    for p in (0, 1):
        keys, strings = {k for k, _ in pairs[p]}, {s for _, s in pairs[p]}
        assert len(keys) == len(strings) == len(pairs[p]) == 6  # a bijection: the same partition


@pytest.mark.parametrize("sampling", ["external", "outcome"])
def test_sampling_mccfr_on_kuhn_poker_gives_openspiels_numbers_with_the_same_seed(sampling):
    # issue 46: with OpenSpiel's two action ids (pass 0, bet 1) in its order, external- and
    # outcome-sampling MCCFR draw the same numbers from numpy's generator on both games: the
    # same average policy (information set by information set) and the same exploitability
    from open_spiel.python.algorithms import external_sampling_mccfr, outcome_sampling_mccfr

    solver_class = {"external": external_sampling_mccfr.ExternalSamplingSolver,
                    "outcome": outcome_sampling_mccfr.OutcomeSamplingSolver}[sampling]
    results = []
    for game in (load_game("kuhn_poker"), pyspiel.load_game("kuhn_poker")):
        np.random.seed(46)
        solver = solver_class(game)
        for _ in range(300):
            solver.iteration()
        policy = solver.average_policy()
        rows = []

        def walk(state, policy=policy, rows=rows):
            if state.is_terminal():
                return
            if not state.is_chance_node():
                rows.append(tuple(policy.action_probabilities(state).items()))
            for a in (state.legal_actions() if not state.is_chance_node() else [o for o, _ in state.chance_outcomes()]):
                walk(state.child(a))

        walk(game.new_initial_state())
        results.append((exploitability.exploitability(game, policy), rows))
    (ours, our_rows), (theirs, their_rows) = results
    assert len(our_rows) == len(their_rows) == 24  # 6 deals x 4 decision nodes
    for mine, other in zip(our_rows, their_rows):
        assert [a for a, _ in mine] == [a for a, _ in other]
        assert np.allclose([p for _, p in mine], [p for _, p in other], rtol=0, atol=1e-12)
    assert ours == pytest.approx(theirs, rel=0, abs=1e-12)
    assert 0 < ours < 0.5  # learning, not the uniform policy's 0.458


def test_every_ruleset_pickles_and_gives_the_same_information_state_after():
    import pickle

    game = load_game("beer_cards")
    state = game.new_initial_state()
    rng = np.random.RandomState(5)
    for _ in range(40):
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    copy = pickle.loads(pickle.dumps(state))
    assert copy.history() == state.history()
    for p in range(game.num_players()):
        assert copy.information_state_string(p) == state.information_state_string(p)
        assert np.array_equal(copy.information_state_tensor(p), state.information_state_tensor(p))
    assert copy.legal_actions() == state.legal_actions()


def test_kuhn_poker_information_state_hides_the_other_card():
    game = load_game("kuhn_poker")
    a, b = game.new_initial_state(), game.new_initial_state()
    # P1 gets the same card, P2 different ones
    for s, second in ((a, 0), (b, 1)):
        s.apply_action(s.legal_actions()[2])
        s.apply_action(s.legal_actions()[second])
    assert a.information_state_string(0) == b.information_state_string(0)
    assert a.observation_string(0) == b.observation_string(0)
    assert np.array_equal(a.observation_tensor(0), b.observation_tensor(0))
    assert a.information_state_string(1) != b.information_state_string(1)


def test_cfr_plus_solves_kuhn_poker():
    game = load_game("kuhn_poker")
    solver = cfr.CFRPlusSolver(game)
    for _ in range(100):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    assert exploitability.exploitability(game, policy) < 0.01
    value = expected_game_score.policy_value(game.new_initial_state(), [policy, policy])
    assert abs(value[0] - (-1 / 18)) < 0.01
    assert abs(value[0] + value[1]) < 1e-9


# ---- tic-tac-toe --------------------------------------------------------------------------------


def test_mcts_never_loses_to_random_at_tic_tac_toe():
    game = load_game("tic_tac_toe")
    rng = np.random.RandomState(7)
    results = []
    for i in range(16):
        seat = i % 2
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
        bots = [None, None]
        bots[seat] = mcts.MCTSBot(game, uct_c=2, max_simulations=200, evaluator=evaluator, random_state=rng, solve=True)
        bots[1 - seat] = uniform_random.UniformRandomBot(1 - seat, rng)
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()].step(state))
        results.append(state.returns()[seat])
    assert min(results) >= 0, results
    assert sum(r > 0 for r in results) >= 8, results


def test_states_sharing_tree_nodes_stay_independent():
    # the adapter shares one engine state per history among OpenSpiel's copies: applying an action
    # to one copy never changes another, with the shared nodes or (a limit of 0) without them
    for cap in (100_000, 0):
        game = load_game("kuhn_poker", max_shared_nodes=cap)
        root = game.new_initial_state()
        a = root.child(0)
        b = a.clone()
        a.apply_action(1)
        assert a.history() == [0, 1] and b.history() == [0] and root.history() == []
        assert b.is_chance_node() and not a.is_chance_node() and root.chance_outcomes() == [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]
        b.apply_action(2)
        assert a.information_state_string(0) == b.information_state_string(0)  # P1 holds J either way
        assert a.information_state_string(1) != b.information_state_string(1)
        assert a.tapster_state is not b.tapster_state
        seen = a.information_state_string(0)
        c = root.child(0)
        c.apply_action(1)  # the same history as a: found in the tree (or replayed), never a's to change
        c.apply_action(c.legal_actions()[0])
        assert a.history() == [0, 1] and a.current_player() == 0 and a.information_state_string(0) == seen
        assert c.current_player() == 1 and c.information_state_string(0) != seen
        pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
        assert len(game.shared_nodes()) <= cap


def test_shared_nodes_are_per_game_object_bounded_and_cleared():
    # a search (child() at every node) links nodes into its game object's tree, up to the limit;
    # another game object has its own; clear_shared_nodes starts afresh and live states go on
    game = load_game("tic_tac_toe", max_shared_nodes=50)
    other = load_game("tic_tac_toe")
    assert game.get_parameters()["max_shared_nodes"] == 50

    def walk(state, depth):
        if depth == 0 or state.is_terminal():
            return 1
        return sum(walk(state.child(a), depth - 1) for a in state.legal_actions())

    assert walk(game.new_initial_state(), 3) == 9 * 8 * 7
    assert len(game.shared_nodes()) == 50 and len(other.shared_nodes()) == 0
    kept = game.new_initial_state().child(4)
    game.clear_shared_nodes()
    assert len(game.shared_nodes()) == 0
    kept.apply_action(0)
    assert kept.history() == [4, 0] and kept.legal_actions() == [1, 2, 3, 5, 6, 7, 8]
    # a playout through apply_action keeps nothing: its node is changed in place
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert len(game.shared_nodes()) == 0 and game.new_initial_state().history() == []
    with pytest.raises((TapsterError, RuntimeError), match="max_shared_nodes"):
        load_game("tic_tac_toe", max_shared_nodes=-1)


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/status"), reason="reads the resident memory from /proc")
def test_two_thousand_random_beer_knight_games_stay_within_300_mb():
    # issue 46: the shared node cache lived for the process and reached gigabytes under playouts.
    # 2,000 whole random games (about 390,000 steps, chance outcomes drawn by weight) through
    # the pyspiel API; the resident memory grows by less than 300 MB
    import gc
    import random

    game = load_game("beer_knight")
    rng = random.Random(46)

    def play():
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
            steps += 1
        return steps, state.returns()

    play()  # the first game builds what every game shares (compiled code, the root)
    gc.collect()
    before = _rss_mb()
    steps = sum(play()[0] for _ in range(2000))
    gc.collect()
    growth = _rss_mb() - before
    assert steps > 2000 * 50
    assert growth < 300, f"{growth:.0f} MB after 2,000 games"
    assert len(game.shared_nodes()) <= game.max_shared_nodes


def test_ruleset_parameters_and_a_variant_are_game_parameters():
    # issue 46: `turns=8` through load_game and through pyspiel's game string give the same game
    eight = load_game("beer_flights", turns=8)
    ten = load_game("beer_flights")
    assert eight.get_parameters()["turns"] == 8 and ten.get_parameters()["turns"] == 10
    assert eight.max_game_length() == 48 and ten.max_game_length() == 60  # 2 players x turns x 3 decisions
    same = pyspiel.load_game("tapster_beer_flights(turns=8)")
    assert same.max_game_length() == 48 and same.get_parameters() == eight.get_parameters()
    pyspiel.random_sim_test(eight, num_sims=1, serialize=True, verbose=False)
    assert load_game("kuhn_poker", bet=2).max_utility() == 3.0  # ante + bet
    register("beer_knight")
    teaching = pyspiel.load_game("tapster_beer_knight(variant=teaching)")
    assert teaching.ruleset.variant == "teaching" and teaching.get_parameters()["variant"] == "teaching"
    import pickle

    again = pickle.loads(pickle.dumps(eight))
    assert again.get_parameters()["turns"] == 8 and again.max_game_length() == 48
    with pytest.raises(TapsterError, match="at least 1"):
        load_game("kuhn_poker", bet=0)
    with pytest.raises(TapsterError, match="five_player"):
        pyspiel.load_game("tapster_beer_flights(variant=five_player)")  # 2 to 5 seats: a game of its own
    with pytest.raises((TapsterError, RuntimeError), match="nosuch"):
        load_game("beer_flights", nosuch=3)
