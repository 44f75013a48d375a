"""Any ruleset as a PettingZoo AEC environment (``pip install 'tapster[pettingzoo]'``).

::

    from interpreter.interop.pettingzoo import env
    e = env(RULESET)                             # a name or a path; or env(RULESET, players=3, variant=VARIANT, turns=8)
    e.reset(seed=42)
    for agent in e.agent_iter():
        observation, reward, termination, truncation, info = e.last()
        mask = observation["action_mask"]
        e.step(None if termination or truncation else int(mask.nonzero()[0][0]))

Agents are ``player_0`` ... ``player_<n-1>`` (seat p is ``player_p``).  An observation is a Dict
of ``observation`` (the float32 tensor of :class:`interpreter.interop.encoding.Encoding`, built from the
seat's own view) and ``action_mask`` (int8, 1 for each legal action; all 0 when the agent is not
to move); the action space is ``Discrete(num_distinct_actions)`` with the encoding's stable
indices (the OpenSpiel adapter's numbering); the observation's Box carries each slot's bounds
(:meth:`TensorLayout.bounds <interpreter.interop.layout.TensorLayout.bounds>`).  There is no
``factored=`` here (the Gymnasium adapter has one): PettingZoo's tools (its ``api_test``,
most training loops) sample ``action_space.sample(mask=observation["action_mask"])``, which for
a ``MultiDiscrete`` space wants one mask per factor, and per-factor masks are marginals that
can combine into an illegal action, which an AEC environment must refuse; a factored policy
maps its choice with :meth:`Encoding.unfactor <interpreter.interop.encoding.Encoding.unfactor>`
(or :class:`~interpreter.interop.encoding.FactoredActions`) and steps the flat id.  Chance is sampled inside the environment: the
game plays chance as explicit outcomes and the environment draws each from its own generator,
seeded by ``reset(seed=...)`` (a reset without a seed goes on with the generator as it is, first
seeded with 0), so the same seed and actions give the same game.  Rewards come at the end: each
agent's score in the outcome.  A game that reaches the ruleset's ``limits: {actions: N}`` is
truncated.  ``render()`` returns (``render_mode="ansi"``) or prints (``"human"``) the text
display (the ruleset's ``display``, else its zones and variables): a spectator's view of the
whole table.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..engine.rng import Rng
from ..errors import TapsterError
from ..views.render import view_observation
from ..views.termview import seat_text
from .encoding import EXPLORE_GAMES, Encoding, EncodingError, encoding_for, is_chance, new_state
from .gymnasium import observation_space

__all__ = ["env", "raw_env", "TapsterEnv"]


def env(ruleset: str, players: int | None = None, variant: str | None = None, render_mode: str | None = None,
        explore: int = EXPLORE_GAMES, **params) -> AECEnv:
    """The AEC environment of ``ruleset`` (a name under rulesets/ or a path), wrapped in
    PettingZoo's order-enforcing wrapper; ``params``: ruleset parameters by name
    (``env("beer_flights", turns=8)``), any value the ruleset allows.

    Raises:
        TapsterError: the ruleset or variant does not load; a parameter it does not have or a
            value it does not allow; ``players`` outside its range; an unknown ``render_mode``.
    """
    return wrappers.OrderEnforcingWrapper(raw_env(ruleset, players, variant, render_mode, explore, **params))


def raw_env(ruleset: str, players: int | None = None, variant: str | None = None, render_mode: str | None = None,
            explore: int = EXPLORE_GAMES, **params) -> TapsterEnv:
    """The environment without wrappers (see :func:`env`)."""
    return TapsterEnv(encoding_for(ruleset, players, variant, explore, params), render_mode)


class TapsterEnv(AECEnv):
    """A ruleset for ``encoding.num_players`` seats as a PettingZoo ``AECEnv`` (see the module's
    notes).  ``state`` is the engine's game in progress (None before the first reset)."""

    metadata = {"render_modes": ["ansi", "human"], "name": "tapster", "is_parallelizable": False}

    def __init__(self, encoding: Encoding, render_mode: str | None = None):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise TapsterError(f"render_mode {render_mode!r}: expected one of {', '.join(self.metadata['render_modes'])}")
        self.encoding = enc = encoding
        self.render_mode = render_mode
        name = f"tapster_{enc.ruleset.name}" + (f"_{enc.ruleset.variant}" if enc.ruleset.variant else "")
        self.metadata = {**self.metadata, "name": name}
        self.possible_agents = [f"player_{p}" for p in range(enc.num_players)]
        self.agent_name_mapping = {a: p for p, a in enumerate(self.possible_agents)}
        obs_space = observation_space(enc)  # the tensor's slots within the layout's bounds
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(enc.num_distinct_actions) for a in self.possible_agents}
        self._rng = Rng(0)
        self.state = None
        self._taken = 0

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game; ``seed`` reseeds the environment's generator, which draws every chance
        outcome."""
        if seed is not None:
            self._rng = Rng(f"pettingzoo:{seed}")
        enc = self.encoding
        self.state = new_state(enc, self._rng.below(1 << 63))
        self._taken = 0
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._advance()

    def _advance(self) -> None:
        """Sample chance points, then select the deciding agent or end the game."""
        st = self.state
        while is_chance(st):
            st.apply(st.sample_chance(self._rng))
        if st.finished:
            for a, r in zip(self.possible_agents, self.encoding.returns(st)):
                self.rewards[a] = r
                self.terminations[a] = True
            self.agent_selection = self.agents[0]
        elif self._taken >= self.encoding.ruleset.action_limit:
            for a in self.agents:
                self.truncations[a] = True
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[st.current_players()[0]]

    def observe(self, agent: str) -> dict:
        """``agent``'s observation: its tensor and its action mask (from its own view only),
        computed without text (:meth:`Encoding.observation_tensor`, :meth:`Encoding.legal_mask`)."""
        enc, st = self.encoding, self.state
        p = self.agent_name_mapping[agent]
        mask = np.zeros(enc.num_distinct_actions, np.int8)
        if p in st.current_players():  # never at the end or at a chance point
            enc.legal_mask(st, mask)
        return {"observation": enc.observation_tensor(st, p), "action_mask": mask}

    def information_state(self, agent: str) -> str:
        """``agent``'s information state: :meth:`State.information_state` (its observation and
        the decisions it saw taken), the key the OpenSpiel adapter and ``tapster perft
        --infosets`` use."""
        return self.state.information_state(self.agent_name_mapping[agent])

    def step(self, action: int | None) -> None:
        """The selected agent takes ``action`` (an index); ``None`` for an agent that is done.

        Raises:
            EncodingError: ``action`` is not an index of the action space.
            IllegalActionError: the action is not legal now (the game is unchanged).
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        enc = self.encoding
        try:
            a = enc.legal_action(self.state, int(action))
        except (IndexError, TypeError, ValueError):
            raise EncodingError(f"action {action!r} is not an index from 0 to {enc.num_distinct_actions - 1}") from None
        self._cumulative_rewards[agent] = 0.0
        for other in self.agents:
            self.rewards[other] = 0.0
        self.state.apply(a)
        self._taken += 1
        self._advance()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The text display of the table as a spectator sees it, everything face up (``ansi``:
        returned; ``human``: printed): the ruleset's display, or the generic view of its zones
        and shown variables (:func:`interpreter.views.termview.seat_text` for an observer)."""
        if self.render_mode is None:
            return None
        text = seat_text(self.state.ruleset, view_observation(self.state, None))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
