"""Search agents that play well without cheating: ``greedy`` (one step ahead on a heuristic),
``mcts`` (UCT with random playouts) and ``ismcts`` (information-set MCTS).

None of them reads what its seat may not see.  Every search starts from
:meth:`State.determinize <interpreter.engine.state.State.determinize>`: a world drawn at random among
those the seat cannot tell from the real one (the hidden components redealt, the generator
reseeded), which depends only on what the seat sees and on the agent's own generator.  So two
states that differ only in what the seat cannot see give the same action for the same seed
(``tests/agents/test_search.py`` proves it for every shipped ruleset), and no search can predict a
shuffle or a die from the real generator.

- ``mcts``: UCT (Kocsis & Szepesvári 2006) on ``worlds`` determinised copies (default 1), the
  iterations shared among them and the visit counts summed: for a game of perfect information
  without chance it is plain UCT on the real position.
- ``ismcts``: single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012): every
  iteration draws a new world, walks one tree of action sequences with UCB1 counted over the
  iterations where an action was available, and backs up each seat's reward at the nodes where
  that seat chose.  Its worlds come from one :class:`~interpreter.engine.worlds.Worlds` per
  decision: what the seat sees is prepared once, and each iteration only copies and redeals
  (the same worlds as :meth:`State.determinize`, drawing the same numbers).

Rewards: a finished game gives each winner ``1/k`` of a shared win and the others 0 (a game
without winners gives every seat ``1/n``); a playout cut at ``depth`` actions is scored by the
ruleset's heuristic the same way (the leaders share the win).  Chance points met in the search
(explicit chance) are sampled from the agent's generator.
"""

from __future__ import annotations

import math
import time
from typing import Any

from ..engine.chance import CHANCE
from ..engine.playout import playout as run_playout
from ..engine.rng import Rng
from ..engine.state import State
from ..engine.worlds import Worlds
from ..errors import TapsterError
from ..lang.expression import Env
from ..limits import MAX_PLAYOUT_DEPTH
from ..model import Action

__all__ = ["GreedyAgent", "MCTSAgent", "ISMCTSAgent", "heuristic", "rewards", "PARAMS", "MAX_PLAYOUT_DEPTH"]


def heuristic(st: State, player: int) -> Any:
    """The ruleset's heuristic for ``player`` (``outcome: {heuristic: EXPR}``, default the
    score expression) in ``st``."""
    rs = st.ruleset
    expr = rs.heuristic_expr if rs.heuristic_expr is not None else rs.score_expr
    return expr(Env(st, {"p": player}))


def rewards(st: State) -> list[float]:
    """Each seat's reward: at the end, winners share 1 (no winners: every seat ``1/n``); before
    the end, the seats with the best heuristic share it."""
    n = st.num_players
    if st.finished:
        winners = st.outcome().winners
    else:
        values = [_number(heuristic(st, p)) for p in range(n)]
        best = max(values)
        winners = [p for p in range(n) if values[p] == best]
    if not winners:
        return [1.0 / n] * n
    share = 1.0 / len(winners)
    return [share if p in winners else 0.0 for p in range(n)]


def _number(v: Any) -> float:
    if type(v) in (int, float, bool):
        return float(v)
    raise TapsterError(f"a heuristic must be a number to compare positions, found {v!r}")


def _settle(st: State, rng: Rng) -> None:
    """Sample chance points (explicit chance) until a decision or the end."""
    while st.is_chance():
        st.apply(st.sample_chance(rng))


def _playout(st: State, rng: Rng, depth: int) -> list[float]:
    """Random actions from ``st`` (used up) until the end or ``depth`` actions; the rewards.
    Chance points (explicit chance) are sampled from ``rng`` and do not count as actions.

    The decisions are taken inside the generated code (:func:`interpreter.engine.playout.playout`),
    each a uniform draw ``rng.below(len(actions))``: the same numbers in the same order as
    ``legal_actions`` and ``apply`` at every decision would draw."""
    left = depth
    below = rng.below

    def pick(choose, actions, seats):
        nonlocal left
        if left <= 0:
            return None
        left -= 1
        return below(len(actions))

    while not st.finished and left > 0:
        if st.pending[3] == _CHANCE_ONLY:
            st.apply(st.sample_chance(rng))
            continue
        run_playout(st, pick)  # returns at the end, at depth, or at a chance point
    return rewards(st)


_CHANCE_ONLY = (CHANCE,)


#: Each agent's parameters: name -> (type, default, low, high, description).
PARAMS: dict[str, dict[str, tuple]] = {
    "greedy": {},
    "mcts": {
        "iterations": (int, 1000, 1, 10_000_000, "playouts per decision"),
        "seconds": (float, 0.0, 0.0, 86_400.0, "stop after this many seconds instead (0: use iterations; not reproducible)"),
        "c": (float, 1.4, 0.0, 100.0, "UCB1 exploration constant"),
        "depth": (int, 10_000, 1, MAX_PLAYOUT_DEPTH, "longest playout, in actions (then the heuristic scores it)"),
        "worlds": (int, 1, 1, 10_000, "determinised worlds the iterations are shared among"),
    },
    "ismcts": {
        "iterations": (int, 1000, 1, 10_000_000, "iterations per decision (a new world each)"),
        "seconds": (float, 0.0, 0.0, 86_400.0, "stop after this many seconds instead (0: use iterations; not reproducible)"),
        "c": (float, 0.7, 0.0, 100.0, "UCB1 exploration constant"),
        "depth": (int, 10_000, 1, MAX_PLAYOUT_DEPTH, "longest playout, in actions (then the heuristic scores it)"),
    },
}


def _legal(state: State) -> tuple:
    """The legal actions; raises TapsterError when the game is over."""
    actions = state.legal_actions()
    if not actions:
        raise TapsterError("no legal action: the game is over")
    return actions


class GreedyAgent:
    """One step ahead: takes the action after which its heuristic (``outcome: {heuristic:}``,
    default the score) is highest, a win beating any heuristic and a loss losing to any (a game
    that ends with no winner, a draw, ranks between a game going on and a loss); ties
    broken by its seeded generator.  The look-ahead is played on one determinised world per
    decision (see :mod:`interpreter.agents.search`), so it never reads hidden components or the real
    generator's future.

    It has no lookahead beyond its own move: a move whose payoff comes later (hiring a worker,
    buying an engine card, saving up) looks no better than one that does nothing, so it never
    invests unless the heuristic rewards the investment itself.  Balance measured with it is
    the balance of a short-sighted player; for balance work prefer a search bounded by time
    per move (``ismcts:seconds=S``)."""

    name = "greedy"

    def __init__(self, seed: int | str = 0):
        self.rng = Rng(seed)

    def act(self, state: State, player: int) -> Action:
        """The greedy action.

        Raises:
            TapsterError: the game is over, or the heuristic is not a number.
        """
        actions = _legal(state)
        world = state.determinize(player, self.rng)
        best: list[Action] = []
        best_value = None
        for a in actions:
            child = world.clone()
            child.apply(a)
            _settle(child, self.rng)
            if child.finished:
                winners = child.outcome().winners
                # a win, a shared win, (the game going on: 0), a game nobody wins, a loss
                rank = 1 if player in winners and len(winners) == 1 else (
                    0.5 if player in winners else (-0.5 if not winners else -1))
            else:
                rank = 0
            value = (rank, _number(heuristic(child, player)))
            if best_value is None or value > best_value:
                best, best_value = [a], value
            elif value == best_value:
                best.append(a)
        return best[self.rng.below(len(best))]

    def __repr__(self) -> str:
        return f"GreedyAgent(state={self.rng.state})"


class _Node:
    """A node of the search tree: the ``player`` who chose the action leading here, ``visits``,
    ``avail`` (iterations where that action was legal), ``reward`` (the sum of that player's
    rewards) and ``children`` by action."""

    __slots__ = ("player", "visits", "avail", "reward", "children")

    def __init__(self, player: int):
        self.player = player
        self.visits = 0
        self.avail = 0
        self.reward = 0.0
        self.children: dict[Action, _Node] = {}


class _Search:
    """What MCTS and ISMCTS share: parameters, the budget, the tree walk.

    ``time_limit``: None (the default: the budget is ``iterations`` or ``seconds`` only, and a
    seeded search is reproducible), or a deadline in seconds of wall time (``time.perf_counter``)
    from the start of each :meth:`act`, set by :meth:`limit_time` (a served table's
    ``--max-agent-seconds``).  The deadline is checked between iterations, so a move ends within
    it plus one iteration (one playout, at most
    :data:`~interpreter.limits.MAX_PLAYOUT_DEPTH` actions, a hard maximum of ``depth``), at the best action
    found so far; a search that ends before its deadline picks exactly what it would pick without
    one.  After :meth:`act`, ``last_iterations`` is the number of iterations run and ``cut``
    whether the deadline stopped them.
    """

    name = ""
    kind = ""

    def __init__(self, seed: int | str = 0, **params: Any):
        self.rng = Rng(seed)
        spec = PARAMS[self.kind]
        for key, (_, default, _lo, _hi, _) in spec.items():
            setattr(self, key, params.get(key, default))
        self.last_iterations = 0
        self.time_limit: float | None = None
        self.cut = False
        self._deadline: float | None = None

    def limit_time(self, seconds: float | None) -> None:
        """Bound every later :meth:`act` to ``seconds`` of wall time (None: no deadline).

        Raises:
            ValueError: ``seconds`` is not a positive number.
        """
        if seconds is not None and not (type(seconds) in (int, float) and seconds > 0 and seconds == seconds):
            raise ValueError(f"a time limit is a positive number of seconds, not {seconds!r}")
        self.time_limit = None if seconds is None else float(seconds)

    def _start(self) -> None:
        """Start a move's clock: the deadline from now (or none)."""
        self.cut = False
        self._deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit

    def _late(self, done: int) -> bool:
        """Whether the deadline has passed (never before the first iteration: a move always has
        one); records the cut."""
        if self._deadline is None or done == 0 or time.perf_counter() < self._deadline:
            return False
        self.cut = True
        return True

    def _budget(self):
        """An iterator-free budget test: call with the number of iterations done.  The
        deadline (:meth:`limit_time`) only shortens it."""
        late = self._late
        if self.seconds > 0:
            end = time.perf_counter() + self.seconds
            return lambda i: (time.perf_counter() < end or i == 0) and not late(i)
        n = self.iterations
        if self._deadline is None:
            return lambda i: i < n
        return lambda i: i < n and not late(i)

    def _iterate(self, root: _Node, world: State, player: int, availability: bool) -> None:
        """One iteration from ``world`` (used up): select with UCB1, expand one node, play out,
        back up.  With ``availability`` (ISMCTS), a child's count of the iterations where its
        action was legal stands for its parent's visits in UCB1."""
        rng = self.rng
        node = root
        path = [root]
        c = self.c
        sqrt = math.sqrt
        log = math.log
        apply = world.apply
        while not world.finished:
            pending = world.pending
            if pending[3] == _CHANCE_ONLY:
                apply(world.sample_chance(rng))
                continue
            actions = pending[2]
            children = node.children
            get = children.get
            untried = []
            if availability:
                for a in actions:
                    child = get(a)
                    if child is None:
                        untried.append(a)
                    else:
                        child.avail += 1
            else:
                untried = [a for a in actions if a not in children]
            if untried:
                a = untried[rng.below(len(untried))]
                child = children[a] = _Node(pending[3][0])
                child.avail = 1
                apply(a)
                path.append(child)
                break
            best = None
            best_value = -1.0
            if availability:
                for a in actions:
                    ch = children[a]
                    value = ch.reward / ch.visits + c * sqrt(log(max(ch.avail, 1)) / ch.visits)
                    if value > best_value:
                        best, best_value = a, value
            else:
                log_n = log(max(node.visits, 1))
                for a in actions:
                    ch = children[a]
                    value = ch.reward / ch.visits + c * sqrt(log_n / ch.visits)
                    if value > best_value:
                        best, best_value = a, value
            node = children[best]
            apply(best)
            path.append(node)
        result = _playout(world, rng, self.depth)
        root.visits += 1
        for n in path[1:]:
            n.visits += 1
            n.reward += result[n.player]

    @staticmethod
    def _pick(root: _Node, actions: tuple, rng: Rng) -> Action:
        """The most visited legal action (ties: the agent's generator)."""
        best: list[Action] = []
        most = -1
        for a in actions:
            ch = root.children.get(a)
            v = ch.visits if ch is not None else 0
            if v > most:
                best, most = [a], v
            elif v == most:
                best.append(a)
        return best[rng.below(len(best))]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(state={self.rng.state})"


class MCTSAgent(_Search):
    """UCT with random playouts on determinised worlds (``worlds`` of them, default 1: plain
    UCT where the game has no hidden information and no chance).  It never cheats: the worlds
    are drawn by :meth:`State.determinize`.  Parameters: see :data:`PARAMS` ``["mcts"]``."""

    name = "mcts"
    kind = "mcts"

    def act(self, state: State, player: int) -> Action:
        """The most visited action after the search.

        Raises:
            TapsterError: the game is over.
        """
        self._start()
        actions = _legal(state)
        if len(actions) == 1:
            return actions[0]
        totals: dict[Action, int] = {}
        go = self._budget()
        late = self._late
        done = 0
        for w in range(self.worlds):
            if late(done):
                break
            world = state.determinize(player, self.rng)
            root = _Node(player)
            share = None if self.seconds > 0 else (self.iterations * (w + 1)) // self.worlds - done
            i = 0
            while (go(done + i) if share is None else i < share and not late(done + i)):
                self._iterate(root, world.clone(), player, availability=False)
                i += 1
            done += i
            for a, ch in root.children.items():
                totals[a] = totals.get(a, 0) + ch.visits
        self.last_iterations = done
        merged = _Node(player)
        for a, v in totals.items():
            merged.children[a] = _Node(player)
            merged.children[a].visits = v
        return self._pick(merged, actions, self.rng)


class ISMCTSAgent(_Search):
    """Single-observer information-set MCTS: each iteration draws a new world consistent with
    what the seat sees (:meth:`Worlds.draw <interpreter.engine.worlds.Worlds.draw>`, the worlds
    of :meth:`State.determinize`) and walks one shared tree of action
    sequences, UCB1 counted over the iterations where an action was available.  Parameters:
    see :data:`PARAMS` ``["ismcts"]``."""

    name = "ismcts"
    kind = "ismcts"

    def act(self, state: State, player: int) -> Action:
        """The most visited action after the search.

        Raises:
            TapsterError: the game is over.
        """
        self._start()
        actions = _legal(state)
        if len(actions) == 1:
            return actions[0]
        root = _Node(player)
        go = self._budget()
        worlds = Worlds(state, player)  # what the seat sees, prepared once for every iteration's world
        i = 0
        while go(i):
            self._iterate(root, worlds.draw(self.rng), player, availability=True)
            i += 1
        self.last_iterations = i
        return self._pick(root, actions, self.rng)
