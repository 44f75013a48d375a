"""Any ruleset as a single-agent Gymnasium environment, one game or many at once
(``pip install 'tapster[gymnasium]'``).

::

    from interpreter.interop.gymnasium import env, vector_env
    e = env("tic_tac_toe", opponent="random", seat=0)       # a gymnasium.Env
    obs, info = e.reset(seed=42)
    obs, reward, terminated, truncated, info = e.step(int(obs["action_mask"].nonzero()[0][0]))
    v = vector_env("tic_tac_toe", num_envs=256)             # a gymnasium.vector.VectorEnv
    obs, info = v.reset(seed=0)                              # obs["observation"]: (256, size) float32

The learner plays seat ``seat``; every other seat is played by ``opponent``, any Tapster agent
spec (``random``, ``greedy``, ``mcts:iterations=200``, ``ismcts``...; one agent per seat, each
seeded from the environment's seed).  Chance points are drawn from the environment's own
generator, seeded by ``reset(seed=...)`` (a reset without a seed goes on with the generator as
it is, first seeded with 0): the same seed and actions give the same game.

An observation is a Dict of ``observation`` (float32, :class:`~interpreter.interop.encoding.Encoding`'s
observation tensor of the learner's own view, laid out from the declarations and written from
what the seat may see only: never the whole state) and ``action_mask`` (int8, 1 for each legal action id); ``info["action_mask"]`` is the
mask again (for libraries that read it there).  The action space is
``Discrete(num_distinct_actions)``, the OpenSpiel adapter's action ids.  The reward is 0 until
the end, then the learner's score in the outcome.  A game that reaches the ruleset's
``limits: {actions: N}`` is truncated.  An action outside the mask ends the episode
(``terminated``) with the lowest score the game can give (``min_utility``) and
``info["illegal"] = True``, as PettingZoo's classic games do; ``illegal="raise"`` raises
:class:`~interpreter.errors.IllegalActionError` instead.  The observation's Box carries each
slot's bounds (:meth:`TensorLayout.bounds <interpreter.interop.layout.TensorLayout.bounds>`:
one-hot slots in [0, 1], counts and positions up to the ruleset's components, -inf/inf where
nothing is known); :func:`observation_space` builds it.

``factored=True`` (both environments) makes the action space ``MultiDiscrete(nvec)`` over
:class:`~interpreter.interop.encoding.FactoredActions`' factors ``(head, arg1, ..., argK)``:
a factored option (:meth:`Encoding.action_factors
<interpreter.interop.encoding.Encoding.action_factors>`: an option of two arguments over 120
cards each is 120 × 120) is one head and takes one index per argument, every other id is a head of its own
(its argument factors ignored).  The observation gains ``factor_mask`` (int8, ``sum(nvec)``:
the per-factor marginal masks one after the other, as sb3-contrib's MaskablePPO reads them);
``action_mask`` stays the exact flat mask.  Factors naming no action, or naming an action
outside the mask, are an illegal action (``illegal=``).

:func:`vector_env` steps ``num_envs`` such games in one process on numpy arrays (observations
``(num_envs, size)``, masks ``(num_envs, num_distinct_actions)``, rewards, terminations and
truncations ``(num_envs,)``); environment ``i`` reset with ``seed`` plays as :func:`env` reset
with ``seed + i``.  A finished game is reset on the next step (Gymnasium's ``NEXT_STEP``
autoreset: that step's action is ignored for it, its reward is 0).  Random opponents play
through the engine's playout loop (:func:`interpreter.engine.playout.playout`), inside the
generated code, the learner's action first in the same playout; the games keep no log, a
ruleset without chance starts each game as a copy of one new game, and the observations and
masks are written from the states without text (:class:`~interpreter.interop.layout.TensorLayout`,
:meth:`~interpreter.interop.encoding.Encoding.legal_ids`).  ``tools/bench_gymnasium.py``
measures the speed; what is left is mostly the engine's own moves.
"""

from __future__ import annotations

import numpy as np
from gymnasium import Env, spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..agents.core import make_agent
from ..engine.playout import playout
from ..engine.rng import Rng
from ..engine.state import new_game
from ..errors import IllegalActionError, TapsterError
from ..views.render import view_observation
from ..views.termview import seat_text
from .encoding import EXPLORE_GAMES, Encoding, FactoredActions, encoding_for

__all__ = ["env", "vector_env", "observation_space", "TapsterGymEnv", "TapsterVectorEnv"]


def env(ruleset: str, opponent: str = "random", seat: int = 0, players: int | None = None, variant: str | None = None,
        render_mode: str | None = None, explore: int = EXPLORE_GAMES, illegal: str = "lose", factored: bool = False,
        **params) -> TapsterGymEnv:
    """The single-agent environment of ``ruleset`` (a name under rulesets/ or a path) for the
    learner at ``seat``, the other seats played by ``opponent`` (an agent spec); ``params``:
    ruleset parameters by name (``turns=8``).  See the module's notes.

    Raises:
        TapsterError: the ruleset, variant or a parameter does not load; ``players`` outside its
            range; ``seat`` not a seat; an unknown agent spec, ``render_mode`` or ``illegal``.
    """
    return TapsterGymEnv(encoding_for(ruleset, players, variant, explore, params), opponent, seat, render_mode, illegal,
                         factored)


def vector_env(ruleset: str, num_envs: int = 8, opponent: str = "random", seat: int = 0, players: int | None = None,
               variant: str | None = None, explore: int = EXPLORE_GAMES, illegal: str = "lose", factored: bool = False,
               **params) -> TapsterVectorEnv:
    """``num_envs`` games of ``ruleset`` as one ``gymnasium.vector.VectorEnv`` (see the module's
    notes; the arguments as for :func:`env`).

    Raises:
        TapsterError: as :func:`env`; ``num_envs`` below 1.
    """
    if not isinstance(num_envs, int) or num_envs < 1:
        raise TapsterError(f"num_envs is at least 1, not {num_envs!r}")
    enc = encoding_for(ruleset, players, variant, explore, params)
    return TapsterVectorEnv([_Game(enc, opponent, seat, illegal) for _ in range(num_envs)], factored)


def observation_space(enc: Encoding, factors: FactoredActions | None = None) -> spaces.Dict:
    """One seat's observation space: ``observation`` (float32, ``tensor_size``, each slot within
    :meth:`TensorLayout.bounds <interpreter.interop.layout.TensorLayout.bounds>`),
    ``action_mask`` (int8, ``num_distinct_actions``) and, with ``factors``, ``factor_mask``
    (int8, ``sum(factors.nvec)``: :meth:`FactoredActions.mask`)."""
    low, high = enc.layout.bounds()
    parts = {
        "observation": spaces.Box(low, high, (enc.tensor_size,), np.float32),
        "action_mask": spaces.Box(0, 1, (enc.num_distinct_actions,), np.int8),
    }
    if factors is not None:
        parts["factor_mask"] = spaces.Box(0, 1, (int(factors.nvec.sum()),), np.int8)
    return spaces.Dict(parts)


def _factors(enc: Encoding, factored: bool) -> FactoredActions | None:
    if not isinstance(factored, bool):
        raise TapsterError(f"factored={factored!r}: expected true or false")
    return FactoredActions(enc) if factored else None


def _decode(factors: FactoredActions, game: _Game, action) -> int:
    """The flat id of a factored ``action`` (-1, an illegal action, when the factors name none).

    Raises:
        IllegalActionError: no action has these factors, with ``illegal="raise"``.
    """
    flat = factors.decode(action)
    if flat < 0 and game.illegal == "raise":
        raise IllegalActionError(f"factors {np.asarray(action).tolist()!r} name no action (within {factors.nvec.tolist()}: "
                                 "the head, then each argument's index)", tuple(game.enc.actions[i] for i in game.ids))
    return flat


class _Game:
    """One game for one learner seat: the engine's state, the opponents, the chance generator,
    and the learner's legal action ids (what :class:`TapsterGymEnv` and :class:`TapsterVectorEnv`
    step).  Games are played without a log (nothing here reads it); a ruleset without chance
    starts every game as a copy of one new game (its setup draws nothing, so every new game is
    the same)."""

    def __init__(self, enc: Encoding, opponent: str, seat: int, illegal: str):
        if type(seat) is not int or not 0 <= seat < enc.num_players:
            raise TapsterError(f"seat {seat!r} is not a seat of a {enc.num_players}-player game (0 to {enc.num_players - 1})")
        if illegal not in ("lose", "raise"):
            raise TapsterError(f"illegal={illegal!r}: expected 'lose' or 'raise'")
        make_agent(opponent, 0)  # an unknown spec fails here, not at the first reset
        self.enc, self.opponent, self.seat, self.illegal = enc, opponent, seat, illegal
        self.random = opponent.strip() == "random"
        self.limit = enc.ruleset.action_limit
        self.rng = Rng("gymnasium:0")
        self.state = None
        self.taken = 0
        self.ids: tuple[int, ...] = ()  # the learner's legal action ids, in the decision's order
        self.agents = None
        self._first: int | None = None  # the learner's action (an index into the listing) for _random_pick
        self._start = None  # a new game to copy (rulesets without chance)

    def reset(self, seed: int | None) -> None:
        if seed is not None:
            self.rng = Rng(f"gymnasium:{seed}")
        rng, enc = self.rng, self.enc
        game_seed = rng.below(1 << 63)
        if enc.chance == "none":
            start = self._start
            if start is None:
                start = self._start = new_game(enc.ruleset, enc.num_players, seed=0, chance=enc.ruleset.chance)
            self.state = start.clone()
        else:
            self.state = new_game(enc.ruleset, enc.num_players, seed=game_seed, chance=enc.ruleset.chance)
        self.taken = 0
        if not self.random:
            self.agents = [make_agent(self.opponent, f"gymnasium:{rng.below(1 << 63)}:{p}") for p in range(enc.num_players)]
        self._first = None
        self._advance()

    def _random_pick(self, choose, actions, seats):
        """Playout policy: the learner's action first (when one is given), then the opponents
        as RandomAgent would draw, stopping at the learner's next decision."""
        k = self._first
        if k is not None:
            self._first = None
            self.taken += 1
            return k
        if seats[0] == self.seat or self.taken >= self.limit:
            return None
        self.taken += 1
        return self.rng.below(len(actions))

    def _advance(self) -> None:
        """Chance and the opponents until the learner's decision, the end or the action limit
        (after the learner's action, when :meth:`step` set one); then the learner's legal ids."""
        st, rng = self.state, self.rng
        if self.agents is None:
            playout(st, self._random_pick, rng)
        else:
            while not st.finished and self.taken < self.limit:
                if st.is_chance():
                    st.apply(st.sample_chance(rng))
                    continue
                p = st.current_players()[0]
                if p == self.seat:
                    break
                st.apply(self.agents[p].act(st, p))
                self.taken += 1
        self.ids = () if st.finished or self.taken >= self.limit else self.enc.legal_ids(st)

    def truncated(self) -> bool:
        return not self.state.finished and self.taken >= self.limit

    def observe(self, obs: np.ndarray, mask: np.ndarray) -> None:
        """The learner's observation tensor into ``obs`` and its legal-action mask into
        ``mask`` (no text built)."""
        self.enc.observation_tensor(self.state, self.seat, obs)
        mask.fill(0)
        if self.ids:
            mask[list(self.ids)] = 1

    def step(self, action) -> tuple[float, bool, bool, bool]:
        """The learner's ``action`` (an id), then the others to its next decision: ``(reward,
        terminated, truncated, illegal)``.

        Raises:
            IllegalActionError: an action outside the mask, with ``illegal="raise"``.
        """
        ids = self.ids
        try:
            k = ids.index(action) if ids else -1
        except ValueError:
            k = -1
        if k < 0:
            if self.illegal == "raise":
                raise IllegalActionError(f"action id {action!r} is not legal now; legal ids: {sorted(ids)}",
                                         tuple(self.enc.actions[i] for i in ids))
            self.ids = ()
            return self.enc.min_utility, True, False, True
        st = self.state
        if self.agents is None:
            self._first = k
        else:
            st.apply(st.legal_actions()[k])
            self.taken += 1
        self._advance()
        if st.finished:
            return self.enc.returns(st)[self.seat], True, False, False
        return 0.0, False, self.taken >= self.limit, False


class TapsterGymEnv(Env):
    """A ruleset as a single-agent ``gymnasium.Env`` for one learner seat (see the module's
    notes).  ``state`` is the engine's game in progress (None before the first reset)."""

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(self, encoding: Encoding, opponent: str = "random", seat: int = 0, render_mode: str | None = None,
                 illegal: str = "lose", factored: bool = False):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise TapsterError(f"render_mode {render_mode!r}: expected one of {', '.join(self.metadata['render_modes'])}")
        self.encoding = enc = encoding
        self.render_mode = render_mode
        self._game = _Game(enc, opponent, seat, illegal)
        #: the factors of the action ids (``factored=True``), else None
        self.factors = _factors(enc, factored)
        self.observation_space = observation_space(enc, self.factors)
        self.action_space = spaces.Discrete(enc.num_distinct_actions) if self.factors is None else spaces.MultiDiscrete(
            self.factors.nvec)

    @property
    def state(self):
        """The engine's game in progress (read it, never change it)."""
        return self._game.state

    def _observation(self, illegal: bool = False) -> tuple[dict, dict]:
        enc = self.encoding
        obs = np.zeros(enc.tensor_size, np.float32)
        mask = np.zeros(enc.num_distinct_actions, np.int8)
        self._game.observe(obs, mask)
        info = {"action_mask": mask.copy()}
        if illegal:
            info["illegal"] = True
        out = {"observation": obs, "action_mask": mask}
        if self.factors is not None:
            out["factor_mask"] = self.factors.mask(self._game.ids)
        return out, info

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """A new game, played on to the learner's first decision (or its end): ``(observation,
        info)``.  ``seed`` reseeds the environment's generator (chance and the opponents)."""
        super().reset(seed=seed)
        self._game.reset(seed)
        return self._observation()

    def step(self, action) -> tuple[dict, float, bool, bool, dict]:
        """The learner takes ``action`` (an id; with ``factored=True`` its factors, see
        :class:`~interpreter.interop.encoding.FactoredActions`), the others play on to its next
        decision: ``(observation, reward, terminated, truncated, info)``.

        Raises:
            TapsterError: no game (``reset`` first).
            IllegalActionError: an action outside the mask (or factors naming no action), with
                ``illegal="raise"``.
        """
        if self._game.state is None:
            raise TapsterError("reset the environment before stepping it")
        if self.factors is not None:
            action = _decode(self.factors, self._game, action)
        reward, terminated, truncated, illegal = self._game.step(action)
        obs, info = self._observation(illegal)
        if self.render_mode == "human":
            self.render()
        return obs, float(reward), terminated, truncated, info

    def render(self) -> str | None:
        """The text display of the table as the learner's seat sees it, nothing it may not see
        (``ansi``: returned; ``human``: printed)."""
        if self.render_mode is None or self._game.state is None:
            return None
        st = self._game.state
        text = seat_text(st.ruleset, view_observation(st, self._game.seat))
        if self.render_mode == "human":
            print(text)
            return None
        return text


class TapsterVectorEnv(VectorEnv):
    """``num_envs`` games stepped together on numpy arrays (see the module's notes and
    :func:`vector_env`)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, games: list[_Game], factored: bool = False):
        self._games = games
        self.num_envs = n = len(games)
        enc = self.encoding = games[0].enc
        #: the factors of the action ids (``factored=True``), else None
        self.factors = _factors(enc, factored)
        self.single_observation_space = observation_space(enc, self.factors)
        self.single_action_space = spaces.Discrete(enc.num_distinct_actions) if self.factors is None else spaces.MultiDiscrete(
            self.factors.nvec)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self._done = np.zeros(n, bool)

    def _observations(self) -> dict:
        """Every game's learner observation and mask as ``(num_envs, ...)`` arrays (no text)."""
        enc, n = self.encoding, self.num_envs
        obs = np.zeros((n, enc.tensor_size), np.float32)
        mask = np.zeros((n, enc.num_distinct_actions), np.int8)
        games = self._games
        enc.layout.fill_many([g.state for g in games], [g.seat for g in games], obs)
        rows: list[int] = []
        cols: list[int] = []
        for i, g in enumerate(games):
            ids = g.ids
            if ids:
                rows += [i] * len(ids)
                cols += ids
        if rows:
            mask[rows, cols] = 1
        out = {"observation": obs, "action_mask": mask}
        if self.factors is not None:
            fm = out["factor_mask"] = np.zeros((n, int(self.factors.nvec.sum())), np.int8)
            for i, g in enumerate(games):
                self.factors.mask(g.ids, fm[i])
        return out

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Every game anew: ``(observations, infos)``; ``seed`` an int (game ``i`` gets
        ``seed + i``) or one seed per game."""
        super().reset(seed=seed if isinstance(seed, int) or seed is None else None)
        seeds = [None] * self.num_envs if seed is None else ([seed + i for i in range(self.num_envs)] if isinstance(seed, int) else
                                                             list(seed))
        if len(seeds) != self.num_envs:
            raise TapsterError(f"{len(seeds)} seeds for {self.num_envs} environments")
        for g, s in zip(self._games, seeds):
            g.reset(s)
        self._done[:] = False
        obs = self._observations()
        return obs, {"action_mask": obs["action_mask"].copy()}

    def step(self, actions) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        """One action id per game (an array of ``num_envs``; with ``factored=True``, one row of
        factors per game, ``(num_envs, len(nvec))``): ``(observations, rewards, terminations,
        truncations, infos)``, arrays of ``num_envs`` rows; a game that ended on the previous step
        is reset instead (its action ignored).  ``infos["illegal"]``: a bool array.

        Raises:
            IllegalActionError: an action outside its game's mask (or factors naming no action),
                with ``illegal="raise"``.
        """
        n = self.num_envs
        rewards = np.zeros(n, np.float64)
        terminated = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        illegal = np.zeros(n, bool)
        done = self._done.tolist()
        acts = np.asarray(actions).tolist()
        factors = self.factors
        for i, g in enumerate(self._games):
            if done[i]:
                g.reset(None)
                continue
            r, term, trunc, ill = g.step(acts[i] if factors is None else _decode(factors, g, acts[i]))
            if r:
                rewards[i] = r
            if term:
                terminated[i] = True
                illegal[i] = ill
            elif trunc:
                truncated[i] = True
        self._done = terminated | truncated
        obs = self._observations()
        return obs, rewards, terminated, truncated, {"action_mask": obs["action_mask"].copy(), "illegal": illegal}
