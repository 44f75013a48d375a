"""Any ruleset as an OpenSpiel game (``pip install 'tapster[openspiel]'``).

:func:`register` makes a ruleset (and a variant) a registered ``pyspiel`` game through
OpenSpiel's Python game API; :func:`load_game` registers it if needed and loads it::

    from interpreter.interop.openspiel import load_game
    game = load_game(RULESET)                      # a pyspiel.Game; or pyspiel.load_game("tapster_" + RULESET)
    state = game.new_initial_state()

The game's type: sequential; chance mode explicit stochastic when the ruleset has chance (the
game is played with ``chance="explicit"``: chance points list their outcomes and probabilities,
lazy deals included), deterministic when it has none; imperfect information when any zone or
variable is not public or any decision is ``secret``; zero-, constant- or general-sum utility
from the declared ``outcome: {sum}`` (or the enumerated tree of a small game); terminal rewards.
Actions, chance outcomes, the observation tensor, returns, utility bounds and the longest game
come from :class:`interpreter.interop.encoding.Encoding` (its notes document the encodings); the bounds
and the longest game are the game's exact facts (:mod:`interpreter.compile.facts`), and a ruleset that
neither declares nor lets them be derived refuses to load (:class:`~interpreter.compile.facts.FactsError`).
``information_state_string(p)`` is :meth:`State.information_state` (the seat's observation and
the decisions it saw taken; a ``secret`` decision's action shows as ``?`` to the others), and
``information_state_tensor(p)`` the observation tensor followed by that public history, one
fixed-size slot per decision up to ``max_game_length`` (:meth:`Encoding.information_state_tensor`);
``observation_string(p)`` and ``observation_tensor(p)`` are the observation alone (the tensor
laid out from the ruleset's declarations and written without text:
:mod:`interpreter.interop.layout`); none ever reads what the seat may not see.  States
pickle (as the game and the actions taken, replayed on loading), so OpenSpiel's ``random_sim_test(..., serialize=True)`` passes.

A decision several seats take at once (``choose`` with a list of players) is OpenSpiel's to
the first of them, as ``Decision.player``.

Game parameters: every ruleset parameter whose value is a number, a truth value or a text
(``load_game("beer_flights", turns=8)``, ``pyspiel.load_game("tapster_beer_flights(turns=8)")``;
a list or mapping parameter is not one), ``variant`` (another variant of the same type: the same
chance, information, utility and seat range; else :func:`register` it), ``players`` (the seat
count), ``explore`` (seeded playouts that find the
values of an option whose ``in:`` reads a variable; the tensors, the utility bounds, the longest
game and every derived action id never depend on it, default 32)
and ``max_shared_nodes`` (default 100,000: the most tree nodes one game object keeps for its
states to share, :class:`SharedNodes`; 0 shares nothing).  Memory is bounded per game object:
a search keeps at most that many nodes (about 3 KB each for tic-tac-toe, 40 KB for Beer Knight),
a playout through ``apply_action`` keeps none, and ``game.clear_shared_nodes()`` frees them.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pyspiel

from ..compile.compiler import load_ruleset
from ..compile.ruleset import Ruleset
from ..engine.state import encode_value
from ..errors import TapsterError
from .encoding import EXPLORE_GAMES, Encoding, is_chance, new_state

__all__ = ["register", "load_game", "game_name", "TapsterGame", "TapsterState"]

#: (ruleset name or path, variant) -> short name, for the games registered in this process
_REGISTERED: dict[tuple[str, str | None], str] = {}

_UTILITY = {
    "zero_sum": pyspiel.GameType.Utility.ZERO_SUM,
    "constant_sum": pyspiel.GameType.Utility.CONSTANT_SUM,
    "general_sum": pyspiel.GameType.Utility.GENERAL_SUM,
}
_CHANCE = {
    "none": pyspiel.GameType.ChanceMode.DETERMINISTIC,
    "explicit": pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
}


def game_name(ruleset: str, variant: str | None = None) -> str:
    """The registered short name of a ruleset and variant: ``tapster_<ruleset>[_<variant>]``
    (other characters than letters, digits and ``_`` become ``_``)."""
    name = "tapster_" + ruleset + (f"_{variant}" if variant else "")
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


def register(ruleset: str, variant: str | None = None) -> str:
    """Register ``ruleset`` (a name under rulesets/ or a path) with ``variant`` as an OpenSpiel
    game and return its short name (already registered: the same name, nothing done).

    Raises:
        TapsterError: the ruleset or variant does not load (its errors, file:line:column).
    """
    name = _REGISTERED.get((str(ruleset), variant))
    if name is not None:
        return name
    rs = load_ruleset(ruleset, variant)
    name = game_name(rs.name, variant)
    if name in _REGISTERED.values():  # the same ruleset by another spelling of its path
        _REGISTERED[(str(ruleset), variant)] = name
        return name
    enc = Encoding.of(rs, rs.default_players, EXPLORE_GAMES)
    game_type = pyspiel.GameType(
        short_name=name,
        long_name=f"Tapster {rs.title}" + (f" ({variant})" if variant else ""),
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=_CHANCE[enc.chance],
        information=(pyspiel.GameType.Information.PERFECT_INFORMATION if enc.perfect_information
                     else pyspiel.GameType.Information.IMPERFECT_INFORMATION),
        utility=_UTILITY[enc.utility],
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=rs.max_players,
        min_num_players=rs.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": rs.default_players, "explore": EXPLORE_GAMES,
                                 "max_shared_nodes": MAX_SHARED_NODES, "variant": variant or "",
                                 **scalar_params(rs)},
    )
    # One subclass per game (a class, not a closure: OpenSpiel's registry outlives the interpreter,
    # and a Python function held there crashes it at exit).
    cls = type(f"TapsterGame_{name}", (TapsterGame,), {"ruleset": rs, "game_type": game_type, "__doc__": TapsterGame.__doc__})
    pyspiel.register_game(game_type, cls)
    _REGISTERED[(str(ruleset), variant)] = name
    return name


def scalar_params(rs: Ruleset) -> dict:
    """The ruleset parameters of ``rs`` an OpenSpiel game can take (``int``, ``float``, ``bool``
    or ``str`` values; a list or mapping parameter is left out): name -> default value."""
    return {k: v for k, v in rs.params.items() if type(v) in (int, float, bool, str)}


#: (ruleset path, variant, sorted parameter overrides) -> the compiled ruleset, for games loaded
#: with parameters (compiled once per process).
_WITH_PARAMS: dict[tuple, Ruleset] = {}


def load_game(ruleset: str, variant: str | None = None, players: int | None = None, **params) -> pyspiel.Game:
    """Register (if needed) and load a ruleset as a ``pyspiel.Game``; ``players``, the other
    game parameters (``explore``, ``max_shared_nodes``) and any ruleset parameter with a number,
    truth value or text (``load_game("beer_flights", turns=8)``) as keywords.  The same game is
    ``pyspiel.load_game("tapster_beer_flights(turns=8)")`` once registered.

    Raises:
        TapsterError: the ruleset does not load, the seat count is outside its range, a
            parameter's value is outside what the ruleset allows.
        RuntimeError: a parameter the game does not have (OpenSpiel's message names it).
    """
    name = register(ruleset, variant)
    if players is not None:
        params["players"] = players
    return pyspiel.load_game(name, params)


class TapsterGame(pyspiel.Game):
    """One ruleset (a variant, a seat count) as a ``pyspiel.Game``; made by OpenSpiel from the
    registered name with a parameter dict (``players``, ``explore``, ``max_shared_nodes``,
    ``variant`` and the ruleset's scalar parameters, :func:`scalar_params`).  :func:`register`
    makes a subclass per registered game, holding ``ruleset`` and ``game_type``; an instance's
    ``ruleset`` is the one its parameters give.
    Each game object has its own tree of shared nodes (:meth:`shared_nodes`), at most
    ``max_shared_nodes`` of them, emptied by :meth:`clear_shared_nodes`.

    Raises:
        TapsterError: ``players`` outside the ruleset's range; ``explore`` below 1;
            ``max_shared_nodes`` below 0; a ruleset parameter's value the ruleset does not allow;
            a ``variant`` of another game type.
    """

    ruleset: Ruleset
    game_type: pyspiel.GameType

    def __init__(self, params: dict | None = None):
        rs, game_type = self.ruleset, self.game_type
        params = dict(params or {})
        rs = self.ruleset = _with_params(rs, game_type, params)
        players = int(params.get("players", rs.default_players))
        if not rs.min_players <= players <= rs.max_players:
            raise TapsterError(f"{rs.title} is for {rs.min_players} to {rs.max_players} players, not {players}")
        explore = int(params.get("explore", EXPLORE_GAMES))
        limit = int(params.get("max_shared_nodes", MAX_SHARED_NODES))
        if limit < 0:
            raise TapsterError(f"max_shared_nodes is a number of nodes, at least 0, not {limit}")
        self.encoding = enc = Encoding.of(rs, players, explore)
        self.max_shared_nodes = limit
        self._shared: SharedNodes | None = None
        info = pyspiel.GameInfo(
            num_distinct_actions=enc.num_distinct_actions,
            max_chance_outcomes=enc.max_chance_outcomes,
            num_players=players,
            min_utility=enc.min_utility,
            max_utility=enc.max_utility,
            utility_sum=enc.utility_sum,
            max_game_length=enc.max_game_length,
        )
        given = {"players": players, "explore": explore, "max_shared_nodes": limit}
        given.update((k, params[k]) for k in ("variant", *scalar_params(type(self).ruleset)) if k in params)
        super().__init__(game_type, info, given)

    def shared_nodes(self) -> SharedNodes:
        """The tree of nodes this game's states share (made at the first initial state; see
        :class:`SharedNodes`): ``len()`` of it is the nodes linked now."""
        shared = self._shared
        if shared is None:
            shared = self._shared = SharedNodes(new_state(self.encoding, 0), self.max_shared_nodes)
        return shared

    def clear_shared_nodes(self) -> None:
        """Forget the shared tree: the next states start a new one.  States alive keep what they
        hold (and are unaffected); the old tree is freed with the last of them."""
        self._shared = None

    def __reduce__(self):
        """Pickled as the ruleset's path, variant and the game's parameters (loading registers
        the ruleset if needed)."""
        rs = type(self).ruleset  # the registered one: the parameters carry the variant and the ruleset's values
        return (_restore_game, (str(rs.path), rs.variant, dict(self.get_parameters())))

    def new_initial_state(self) -> TapsterState:
        """A new game at its first decision or chance point (chance never draws from the
        game's generator here, so every initial state is the same)."""
        return TapsterState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> TapsterObserver:
        """The observer OpenSpiel uses for observation and information-state strings and
        tensors (an information state when ``iig_obs_type.perfect_recall``).

        Raises:
            ValueError: parameters were given, or a public-only observation was asked for.
        """
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        perfect_recall = bool(iig_obs_type and iig_obs_type.perfect_recall)
        if iig_obs_type is not None and iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError("only a seat's own observation (private_info=SINGLE_PLAYER) is supported")
        return TapsterObserver(self.encoding, perfect_recall)


class _Node:
    """One node of a game's tree as the adapter shares it: the engine's ``state`` after some
    actions, ``cache`` (what was computed of it: legal actions, information states, returns) and
    ``children`` (action id -> child node, in the game's :class:`SharedNodes`).

    A node is *shared* once more than one :class:`TapsterState` may hold it: the root, a node
    OpenSpiel deep-copies (``clone``, ``child``) and a node found again among a parent's children.
    A shared node never changes: applying an action to it finds or makes a child (a clone of the
    engine state, the action applied).  A node only one state holds is changed in place (the
    action applied to its engine state, no clone), after being unlinked from its parent, so a
    random playout through ``apply_action`` copies one engine state per game and keeps nothing."""

    __slots__ = ("state", "cache", "children", "parent", "action", "shared", "table")

    def __init__(self, state, table: SharedNodes):
        self.state, self.table, self.cache = state, table, {}
        self.children = self.parent = self.action = None
        self.shared = False

    def __deepcopy__(self, memo) -> _Node:
        self.shared = True  # a copy of a TapsterState holds it too
        return self

    def __reduce__(self):
        """Pickled as its engine state alone (never its tree): loaded, a node of its own, in a
        tree that shares nothing."""
        return (_lone_node, (self.state,))


def _lone_node(state) -> _Node:
    """A pickled :class:`_Node`: its engine state in a node no other state holds."""
    return _Node(state, SharedNodes(None, 0))


#: Default of the ``max_shared_nodes`` game parameter: the most nodes one game object's tree keeps.
MAX_SHARED_NODES = 100_000


class SharedNodes:
    """The tree of nodes (:class:`_Node`) the states of one game object share, from the initial
    state: a search that visits a history again (CFR, MCTS) finds its engine state and what was
    computed of it instead of replaying it.

    Bounded: at most ``limit`` nodes are linked into the tree (beyond it a new node belongs to the
    state that made it alone and is dropped with it).  Memory is about ``limit`` times a node's
    size (an engine state and its cached strings: about 3 KB for tic-tac-toe, 40 KB for Beer
    Knight).  A state that leaves the tree by ``apply_action`` (a playout) is unlinked, so only
    the nodes a search branches from stay.  :meth:`TapsterGame.clear_shared_nodes` starts a new
    tree (the old one is freed with the last state holding any of it).

    Attributes: ``limit`` (int), ``count`` (the nodes linked now, the root excluded), ``root``.
    """

    __slots__ = ("limit", "count", "root")

    def __init__(self, root_state, limit: int = MAX_SHARED_NODES):
        self.limit, self.count = limit, 0
        self.root = _Node(root_state, self)
        self.root.shared = True

    def __len__(self) -> int:
        return self.count

    def __deepcopy__(self, memo) -> SharedNodes:
        return self


class TapsterState(pyspiel.State):
    """A game in progress: a Tapster :class:`~interpreter.engine.state.State` behind OpenSpiel's
    ``State`` API (``current_player``, ``legal_actions``, ``chance_outcomes``, ``apply_action``,
    ``returns``...).  ``tapster_state`` is the engine's state (read it, never change it: it may be
    shared).  The states of one game object share their tree's nodes (:class:`SharedNodes`, up
    to the game's ``max_shared_nodes``): applying an action to a state whose node other states
    may hold looks the child up among the node's children and makes it (a clone of the engine
    state, the action applied) only the first time; what is computed of a node (legal actions,
    information-state strings, returns) is computed once.  A state alone with its node applies
    in place.  OpenSpiel clones a Python state by deep-copying its attributes, which share the
    node (marking it shared) and the encoding."""

    def __init__(self, game: TapsterGame, node: _Node | None = None):
        super().__init__(game)
        self.encoding = game.encoding
        self._node = game.shared_nodes().root if node is None else node

    @property
    def tapster_state(self):
        """The engine's state (possibly shared with every state of the same history: do not
        change it; ``apply_action`` may change it in place when this state alone holds it)."""
        return self._node.state

    def __reduce__(self):
        """Pickled as the game (its short name and parameters) and the actions taken: loading
        replays them on a new initial state (the engine's state holds compiled rules)."""
        return (_restore_state, (self.get_game(), list(self.history())))

    def current_player(self) -> int:
        cache = self._node.cache
        p = cache.get("player")
        if p is None:
            st = self._node.state
            if st.finished:
                p = pyspiel.PlayerId.TERMINAL
            elif is_chance(st):
                p = pyspiel.PlayerId.CHANCE
            else:
                p = st.current_players()[0]
            cache["player"] = p
        return p

    def _legal_actions(self, player: int) -> list[int]:
        cache = self._node.cache
        legal = cache.get(("legal", player))
        if legal is None:
            st = self._node.state
            if st.finished or is_chance(st) or player not in st.current_players():
                legal = []
            else:
                legal = sorted(set(self.encoding.legal_ids(st)))  # no labels
            cache[("legal", player)] = legal
        return list(legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        cache = self._node.cache
        out = cache.get("chance")
        if out is None:
            enc = self.encoding
            out = cache["chance"] = sorted((enc.chance_index_of(a), float(p)) for a, p in self._node.state.chance_outcomes())
        return list(out)

    def _apply_action(self, action: int) -> None:
        node, enc = self._node, self.encoding
        if not node.shared:  # this state alone holds it: apply in place
            parent = node.parent
            if parent is not None:
                del parent.children[node.action]
                node.parent = node.action = None
                node.table.count -= 1
            st = node.state
            st.apply(enc.chance_action(action) if is_chance(st) else enc.legal_action(st, action))
            node.cache = {}
            return
        children = node.children
        child = None if children is None else children.get(action)
        if child is not None:
            child.shared = True  # another state holds it (or did): it never changes now
        else:
            st = node.state.clone()
            st.apply(enc.chance_action(action) if is_chance(st) else enc.legal_action(st, action))
            table = node.table
            child = _Node(st, table)
            if table.count < table.limit:
                if children is None:
                    children = node.children = {}
                children[action] = child
                child.parent, child.action = node, action
                table.count += 1
        self._node = child

    def _action_to_string(self, player: int, action: int) -> str:
        enc = self.encoding
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance({enc.chance_values[action]})"
        return str(enc.actions[action])

    def is_terminal(self) -> bool:
        return self._node.state.finished

    def returns(self) -> list[float]:
        cache = self._node.cache
        out = cache.get("returns")
        if out is None:
            out = cache["returns"] = self.encoding.returns(self._node.state)
        return list(out)

    def __str__(self) -> str:
        """The whole state, for debugging (never shown to a seat)."""
        st = self.tapster_state
        vars_text = json.dumps({k: encode_value(v) for k, v in st.vars.items()}, sort_keys=True)
        return f"{st.describe()}\nvars: {vars_text}\ndeciding: {list(st.current_players())}\nfinished: {st.finished}"


class TapsterObserver:
    """OpenSpiel's Python observer for a Tapster game: ``tensor`` (float32: the encoding's
    observation tensor, or with perfect recall its information-state tensor; ``dict`` names the
    parts) and strings, set from a seat's view only."""

    def __init__(self, encoding: Encoding, perfect_recall: bool):
        self.encoding = encoding
        self.perfect_recall = perfect_recall
        size = encoding.info_tensor_size if perfect_recall else encoding.tensor_size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor[:encoding.tensor_size]}
        if perfect_recall:
            self.dict["history"] = self.tensor[encoding.tensor_size:]

    def set_from(self, state: TapsterState, player: int) -> None:
        """Fill ``tensor`` with ``player``'s observation (or information state) of ``state``."""
        if self.perfect_recall:
            self.encoding.information_state_tensor(state.tapster_state, player, self.tensor)
        else:
            self.encoding.observation_tensor(state.tapster_state, player, self.tensor)

    def string_from(self, state: TapsterState, player: int) -> str:
        """``player``'s information state (perfect recall) or observation, as text (computed once
        per node of the tree)."""
        cache = state._node.cache
        key = ("info" if self.perfect_recall else "obs", player)
        text = cache.get(key)
        if text is None:
            st = state._node.state
            text = st.information_state(player) if self.perfect_recall else self.encoding.observation_string(st, player)
            cache[key] = text
        return text


def _with_params(rs: Ruleset, game_type: pyspiel.GameType, params: dict) -> Ruleset:
    """``rs`` (a registered game's ruleset) with the game parameters ``variant`` and ruleset
    parameters of ``params`` applied (compiled once per process).

    Raises:
        TapsterError: a value the ruleset does not allow; a variant whose game is of another
            type than the registered one (its chance, information, utility or seat range: it is
            a game of its own, :func:`register` it).
    """
    variant = params.get("variant") or rs.variant or None
    defaults = scalar_params(rs)
    overrides = {k: params[k] for k in defaults if k in params and params[k] != defaults[k]}
    if variant == rs.variant and not overrides:
        return rs
    key = (str(rs.path), variant, tuple(sorted(overrides.items())))
    out = _WITH_PARAMS.get(key)
    if out is None:
        for k, v in overrides.items():
            if type(defaults[k]) is int and type(v) is float and v.is_integer():
                overrides[k] = int(v)
        out = load_ruleset(rs.path, variant, {"params": overrides} if overrides else None)
        if variant != rs.variant:
            enc = Encoding.of(out, out.default_players, EXPLORE_GAMES)
            if (_CHANCE[enc.chance], enc.perfect_information, _UTILITY[enc.utility], out.min_players, out.max_players) != (
                    game_type.chance_mode, game_type.information == pyspiel.GameType.Information.PERFECT_INFORMATION,
                    game_type.utility, game_type.min_num_players, game_type.max_num_players):
                raise TapsterError(f"variant {variant!r} of {rs.title} is a game of another type (its chance, information, "
                                   f"utility or seat range): load it as load_game({rs.name!r}, {variant!r}) "
                                   f"(registered as {game_name(rs.name, variant)})")
        _WITH_PARAMS[key] = out
    return out


def _restore_game(ruleset: str, variant: str | None, params: dict) -> TapsterGame:
    """A pickled :class:`TapsterGame`: the ruleset registered (in this process) and loaded."""
    return pyspiel.load_game(register(ruleset, variant), params)


def _restore_state(game: TapsterGame, actions: list[int]) -> TapsterState:
    """A pickled :class:`TapsterState`: the game's initial state and the actions replayed."""
    state = game.new_initial_state()
    for a in actions:
        state.apply_action(a)
    return state
