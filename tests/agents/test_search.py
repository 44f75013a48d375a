"""Agents that play well without cheating (interpreter/agents/search.py, State.determinize): the worlds
they search depend only on what their seat sees, so no agent's action ever depends on another
seat's hidden components or on the real generator's future; and they find the moves a person
would (a win in one, a block, a scoring card)."""

from __future__ import annotations

import pytest

from interpreter import TapsterError, load_ruleset
from interpreter.agents.core import AGENTS, make_agent, parse_agent
from interpreter.compile.compiler import available_rulesets
from interpreter.engine.rng import Rng

#: Every agent but the human, with budgets small enough for many positions.
CHEAP = ["random", "first", "greedy", "mcts:iterations=40:depth=60", "ismcts:iterations=40:depth=60"]


def test_agent_names_take_parameters():
    assert parse_agent("mcts:iterations=500:c=1.5") == ("mcts", {"iterations": 500, "c": 1.5})
    assert parse_agent("random") == ("random", {})
    assert make_agent("ismcts:iterations=7", seed=1).iterations == 7
    for bad, words in [
        ("mcst", "did you mean mcts"),
        ("mcts:iters=5", "no parameter"),
        ("mcts:iterations=0", "from 1"),
        ("mcts:iterations=1.5", "whole number"),
        ("mcts:c=nan", "a number"),
        ("random:iterations=5", "parameters: none"),
    ]:
        with pytest.raises(TapsterError, match=words):
            parse_agent(bad)
    assert set(AGENTS) >= {"random", "first", "greedy", "mcts", "ismcts", "human"}


def _hidden(rs) -> bool:
    return any(z.visibility != "public" for z in rs.zones.values())


def _positions(rs, seeds=3, every=7, limit=60):
    """Decision points of random games: (state, deciding seat)."""
    out = []
    for seed in range(seeds):
        st = rs.new_game(None, seed=seed)
        rng = Rng(seed)
        k = 0
        while not st.is_terminal() and len(out) < limit * (seed + 1) // seeds:
            actions = st.legal_actions()
            if k % every == 0 and len(actions) > 1:
                out.append((st.clone(), st.current_players()[0]))
            st.apply(actions[rng.below(len(actions))])
            k += 1
    return out


#: Every ruleset with hidden information, its base game and its first two variants (the search
#: agents are slow: every variant of every ruleset took minutes of CI).
HIDDEN = [(n, v) for n in available_rulesets() if _hidden(load_ruleset(n)) for v in [None, *sorted(load_ruleset(n).variants)[:2]]]


def _swapped(st, p, rng):
    """``st`` with two hidden components that look alike to seat ``p`` (same kind and back, both
    in places ``p`` cannot see) exchanged everywhere: zones, variables, the flow's frames, the
    pending decision, properties.  A state ``p`` cannot tell from
    ``st``, built without :meth:`State.determinize`; None when there is no such pair or when a
    public value names one of them."""
    from interpreter.engine.state import _relabel, _relabel_unseen

    seen = {c for decl in st.ruleset.zone_list for c in _zone_components(st, decl, p, visible=True)}
    hidden = [c for c in _all_components(st) if c not in seen]
    pairs = [(x, y) for i, x in enumerate(hidden) for y in hidden[i + 1:]
             if x.kind == y.kind and all(x.fields.get(f) == y.fields.get(f) for f in st.ruleset.kinds[x.kind].back)]
    for _ in range(min(5, len(pairs))):
        x, y = pairs[rng.below(len(pairs))]
        m = {x: y, y: x}
        other = st.clone()
        for decl in st.ruleset.zone_list:
            z = other.zones[decl.name]
            if decl.keyed:
                for key in list(z):
                    z[key] = _relabel(z[key], m)
            else:
                other.zones[decl.name] = _relabel(z, m)
        _relabel_unseen(st, other, -1, m)  # every seat's hidden values, frames, pending, props
        if other.observation(p) == st.observation(p) and other.to_json() != st.to_json():
            return other
    return None


def _zone_components(st, decl, p, visible):
    from interpreter.engine.state import _leaves

    z = st.zones[decl.name]
    if decl.keyed:
        if (decl.visibility == "public") == visible:
            for sub in z.values():
                yield from sub
    elif decl.per_player:
        for i, sub in enumerate(z):
            if (decl.visibility == "public" or (decl.visibility == "owner" and i == p)) == visible:
                for leaf in _leaves(sub, decl.depth - 1):
                    yield from leaf
    elif (decl.visibility == "public") == visible:
        for leaf in _leaves(z, decl.depth):
            yield from leaf


@pytest.mark.parametrize("name,variant", HIDDEN)
def test_no_agent_reads_what_its_seat_cannot_see(name, variant):
    rs = load_ruleset(name, variant)
    positions = _positions(rs, limit=8)
    assert positions
    swaps = 0
    for st, p in positions:
        others = [st.determinize(p, Rng(12345))]  # another world p cannot tell apart, another future
        swapped = _swapped(st, p, Rng(p))
        if swapped is not None:  # the real hidden components exchanged everywhere, real future kept
            others.append(swapped)
            swaps += 1
            assert st.determinize(p, Rng(99)).to_json() == swapped.determinize(p, Rng(99)).to_json()
        before = st.to_json()
        for other in others:
            assert other.observation(p) == st.observation(p)
            for i, spec in enumerate(CHEAP):
                a = make_agent(spec, seed=i).act(st, p)
                b = make_agent(spec, seed=i).act(other, p)
                assert a == b, f"{spec} in {name}: {a} with the real hidden cards, {b} with others"
        assert st.to_json() == before  # agents never change the state
    assert swaps, "no position with two hidden components to exchange"


@pytest.mark.parametrize("name", ["kuhn_poker", "beer_flights", "beer_cards"])
def test_no_agent_reads_what_its_seat_cannot_see_with_explicit_chance(name):
    # The same proof with chance as explicit outcomes: the deck's order is drawn only as cards
    # are revealed (lazy deals), so a world the seat cannot tell apart is dealt from what is left.
    rs = load_ruleset(name).with_chance("explicit")
    positions = []
    for seed in range(2):
        st = rs.new_game(None, seed=seed)
        rng = Rng(seed)
        k = 0
        while not st.is_terminal() and len(positions) < 4 * (seed + 1):
            if st.is_chance():
                st.apply(st.sample_chance(rng))
                continue
            actions = st.legal_actions()
            if k % 5 == 0 and len(actions) > 1:
                positions.append((st.clone(), st.current_players()[0]))
            st.apply(actions[rng.below(len(actions))])
            k += 1
    assert positions
    differ = 0
    for st, p in positions:
        other = st.determinize(p, Rng(4321))
        assert other.observation(p) == st.observation(p)
        differ += other.zones != st.zones
        for i, spec in enumerate(CHEAP):
            a = make_agent(spec, seed=i).act(st, p)
            b = make_agent(spec, seed=i).act(other, p)
            assert a == b, f"{spec} in {name} (explicit chance): {a} with the real hidden cards, {b} with others"
    assert differ, "no world differed from the real game: the test would prove nothing"


def test_a_face_down_card_named_in_an_owner_only_variable_follows_the_redeal():
    """Beer Cards keeps the cards a player put face down in an owner-only list: in another
    seat's world that list names cards now in that hand, never the real ones."""
    rs = load_ruleset("beer_cards")
    found = 0
    for st, p in _positions(rs, seeds=6, every=1, limit=400):
        q = 1 - p if st.num_players == 2 else (p + 1) % st.num_players
        down = st.vars["face_down"][q]
        if not down:
            continue
        hand = st.zones["white_hand"][q] + st.zones["black_hand"][q]
        for k in range(5):
            w = st.determinize(p, Rng(k))
            assert all(c in w.zones["white_hand"][q] + w.zones["black_hand"][q] for c in w.vars["face_down"][q])
            if [c.id for c in w.vars["face_down"][q]] != [c.id for c in down]:
                found += 1
        assert all(c in hand for c in down)
    assert found


@pytest.mark.parametrize("name", available_rulesets())
def test_a_determinised_world_depends_only_on_what_the_seat_sees(name):
    rs = load_ruleset(name)
    for st, p in _positions(rs, seeds=2, every=11, limit=6):
        other = st.determinize(p, Rng(7))
        one, two = st.determinize(p, Rng(99)), other.determinize(p, Rng(99))
        assert one.to_json() == two.to_json()
        assert one.observation(p) == st.observation(p)
        # every component is still somewhere, once
        ids = sorted(c.id for c in _all_components(one))
        assert ids == sorted(c.id for c in _all_components(st))


def _all_components(st):
    from interpreter.engine.state import _leaves

    for decl in st.ruleset.zone_list:
        z = st.zones[decl.name]
        if decl.keyed:
            for sub in z.values():
                yield from sub
        else:
            for leaf in _leaves(z, decl.depth):
                yield from leaf


def test_a_hidden_card_is_redealt_only_among_its_own_backs():
    rs = load_ruleset("beer_knight")
    st = rs.new_game(2, seed=1)
    decks = {t: {c.id for c in st.zones[f"{t}_deck"]} for t in ("Knight", "Mount", "Weapon")}
    w = st.determinize(0, Rng(3))
    for t in decks:
        assert all(c.fields["type"] == t for c in w.zones[f"{t}_deck"])
    assert any({c.id for c in w.zones[f"{t}_deck"]} != decks[t] or [c.id for c in w.zones[f"{t}_deck"]] != [
        c.id for c in st.zones[f"{t}_deck"]] for t in decks)


def test_mcts_takes_a_win_in_one_and_blocks_a_loss_at_tic_tac_toe():
    rs = load_ruleset("tic_tac_toe")
    st = rs.new_game(2)
    for cell in (0, 3, 1):  # X: 0, 1 (threatens 2); O: 3
        st.apply(f"mark({cell})")
    assert str(make_agent("mcts:iterations=400", seed=1).act(st, 1)) == "mark(2)"  # O blocks
    st.apply("mark(4)")  # O threatens 5; X wins with 2 at once
    assert str(make_agent("mcts:iterations=400", seed=1).act(st, 0)) == "mark(2)"
    assert str(make_agent("ismcts:iterations=400", seed=1).act(st, 0)) == "mark(2)"


def test_greedy_maximises_the_declared_heuristic(tmp_path):
    path = tmp_path / "ruleset.yaml"
    path.write_text("""\
name: Greedy
players: {min: 1, max: 1}
vars:
  points: 0
  risk: 0
flow:
  - choose:
      options:
        - action: safe
          do: [{add: {points: 1}}]
        - action: bold
          do: [{add: {points: 2, risk: 5}}]
outcome:
  score: points
  heuristic: points - risk
""", encoding="utf-8")
    rs = load_ruleset(path)
    st = rs.new_game(1)
    assert str(make_agent("greedy", seed=0).act(st, 0)) == "safe"  # 1 - 0 beats 2 - 5
    path.write_text(path.read_text(encoding="utf-8").replace("  heuristic: points - risk\n", ""), encoding="utf-8")
    assert str(make_agent("greedy", seed=0).act(load_ruleset(path).new_game(1), 0)) == "bold"  # the score: 2 > 1


def test_greedy_takes_a_draw_over_a_loss_and_a_game_going_on_over_a_draw(tmp_path):
    path = tmp_path / "ruleset.yaml"
    path.write_text("""\
name: Draws
players: {min: 2, max: 2}
vars:
  winner: -1
flow:
  - turn:
      player: 0
      do:
        - choose:
            options:
              - {action: concede, do: [{set: {winner: 1}}, {end_game: P1 concedes}]}
              - {action: agree, do: [{end_game: a draw}]}
              - {action: play_on, if: play_on_offered, do: []}
  - turn: {player: 1, do: [{choose: {options: [{action: done, do: []}]}}]}
  - end_game: played on
params:
  play_on_offered: false
outcome:
  score: "1 if winner == p else (-1 if winner >= 0 else 0)"
  winners: "[] if winner < 0 else [winner]"
""", encoding="utf-8")
    st = load_ruleset(path).new_game(2)
    # a draw (nobody wins, score 0) beats a loss (score -1): it used to rank as a loss
    assert {str(make_agent("greedy", seed=s).act(st, 0)) for s in range(8)} == {"agree"}
    path.write_text(path.read_text(encoding="utf-8").replace("play_on_offered: false", "play_on_offered: true"),
                    encoding="utf-8")
    st = load_ruleset(path).new_game(2)
    # the game going on ranks above a draw now
    assert {str(make_agent("greedy", seed=s).act(st, 0)) for s in range(8)} == {"play_on"}


def test_a_heuristic_that_is_not_a_number_is_a_clear_error(tmp_path):
    path = tmp_path / "ruleset.yaml"
    path.write_text("""\
name: Greedy
players: {min: 1, max: 1}
flow:
  - choose:
      options: [{action: a}, {action: b}]
outcome:
  heuristic: "'high'"
""", encoding="utf-8")
    with pytest.raises(TapsterError, match="heuristic must be a number"):
        make_agent("greedy").act(load_ruleset(path).new_game(1), 0)


def test_search_agents_play_whole_games_of_every_ruleset_with_explicit_chance():
    for name in ("kuhn_poker", "beer_flights") if "kuhn_poker" in available_rulesets() else ("beer_flights",):
        rs = load_ruleset(name)
        st = rs.new_game(None, seed=2, chance="explicit")
        agent = make_agent("ismcts:iterations=10:depth=40", seed=2)
        rng = Rng(2)
        while not st.is_terminal():
            if st.is_chance():
                st.apply(st.sample_chance(rng))
            else:
                st.apply(agent.act(st, st.current_players()[0]))
        assert st.outcome() is not None
