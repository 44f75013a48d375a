"""Playouts that stay inside the generated code: a game played on by a policy without crossing
the public API at every decision.

A playout through the public API pays, at every decision, for ``legal_actions`` and ``apply``:
the action looked up again among the legal ones, the flow unwound to the runner (every block
function on the way saving its frame), the runner entered, the option's body pushed as a frame
and popped again.  :func:`playout` sets ``env.pick`` instead, and the code the flow compiles to
(:mod:`interpreter.engine.flowgen`) asks it at every ``choose`` whose listing is generated: the
policy returns the index of its action among the listed ones, and the code records the action
as ``apply`` records it (``history``, ``record``), starts a new move's budgets, runs the chosen
option's body through its function and goes on, in place.  A decision the generated code cannot
take in place (a ``choose`` the verb's own ``run`` lists, one reached through a frame the runner
interprets) is left pending, and :func:`playout` takes it with :func:`take`, the lean form of
``apply`` (the action is one of the listed ones by construction: no look-up, no type check).

The game is the same game: the same actions in the same order give the same state, byte for
byte, as ``apply`` would (``tests/engine/test_playout.py`` compares both on every shipped
ruleset and variant, in both chance modes), and a policy that draws its numbers as an agent
does draws the same numbers (:func:`random_policy` draws as
:class:`~interpreter.agents.core.RandomAgent`, one generator per seat).  Budgets hold as for
``apply``: every move starts the step, work and memory budgets afresh, and a ruleset that runs
away fails with the same error at the same rule.  When a move fails, the state is put back as
it was at that move's decision (as ``apply`` does) and the error raised.

A policy is ``pick(choose, actions, seats) -> int | None``: ``choose`` the decision's
:class:`~interpreter.engine.decisions.Choose` (its ``name``, ``mark``), ``actions`` the legal
actions (a non-empty tuple of :class:`~interpreter.model.Action`), ``seats`` the deciding seats
(a tuple of ints); it returns the index of the action to take, or None to stop the playout at
this decision (which is then left pending, as after ``apply``).  A policy must not raise, and
must not read or change the state (the state is in the middle of its flow when it is asked).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from . import flow
from .chance import CHANCE

if TYPE_CHECKING:  # pragma: no cover
    from .rng import Rng
    from .state import State

__all__ = ["playout", "take", "random_policy", "Policy"]

#: ``pick(choose, actions, seats) -> index or None`` (see the module's docstring).
Policy = Callable[[object, tuple, tuple], "int | None"]

_CHANCE_ONLY = (CHANCE,)


def take(st: State, index: int) -> None:
    """Take the pending decision's action number ``index`` (``st.legal_actions()[index]``) and
    run the flow to the next decision or the end: :meth:`State.apply
    <interpreter.engine.state.State.apply>` without its look-up (the action is a listed one) and
    without its error handling (:func:`playout` puts the state back when a move fails).

    Raises:
        IndexError: ``index`` is not an index of the legal actions; nothing has changed then.
        FlowError, ExpressionError: the ruleset failed while running (the state is mid-move).
    """
    p = st.pending
    choose, loc, actions, players = p
    action = actions[index]
    st.pending = None
    st.history = (action, st.history)
    if players != _CHANCE_ONLY:
        st.record = ((players, action, choose.secret), st.record)
    if choose.__class__ is flow.Choose:  # Choose.resume written out, as State.apply does
        o = choose.by_name[action.name]
        if o.body.effects:
            if o.names:
                loc = dict(loc)
                loc.update(zip(o.names, action.args))
            st.stack.append((o.body, 0, loc, None))
    else:
        choose.resume(st, loc, action)
    if st.pending is None:
        flow.run(st)


def playout(st: State, pick: Policy, chance_rng: Rng | None = None) -> None:
    """Play ``st`` on in place with the policy ``pick`` until the game ends or ``pick`` returns
    None (the decision it was asked is then pending).  Chance points (explicit chance) are
    sampled from ``chance_rng`` (with :meth:`State.sample_chance`), or end the playout when it
    is None.  A policy that needs the number of decisions taken counts its own answers.

    The state is used in place (clone it first to keep it); afterwards it is an ordinary state,
    its ``history`` and ``record`` as if every decision had gone through ``apply``.

    Raises:
        FlowError, ExpressionError: a move failed (a ruleset bug); the state is put back as it
            was at that move's decision, as :meth:`State.apply` leaves it.
    """
    st.env.pick = pick
    try:
        while st.pending is not None:
            p = st.pending
            if p[3] == _CHANCE_ONLY:
                if chance_rng is None:
                    break
                # through apply, which puts the state back itself when the move fails: no
                # decision is taken in place meanwhile (one would be lost with it)
                st.env.pick = None
                st.apply(st.sample_chance(chance_rng))
                st.env.pick = pick
                continue
            k = pick(p[0], p[2], p[3])
            if k is None:
                break
            try:
                take(st, k)
            except flow.PYTHON_ERRORS as exc:  # a ruleset's value of the wrong kind: never a traceback
                _back(st)
                raise flow.unexpected(exc) from None
            except BaseException:
                _back(st)
                raise
    finally:
        st.env.pick = None


def _back(st: State) -> None:
    """After a failed move: the state as it was at that move's decision (the last action of the
    history is the one whose move failed, taken by :func:`take` or in place)."""
    st._restore(st.history[1])


def random_policy(rngs: list) -> Policy:
    """The policy of :class:`~interpreter.agents.core.RandomAgent` seats: at a decision of seat
    ``p``, a uniform index drawn from ``rngs[p]`` (an :class:`~interpreter.engine.rng.Rng`) as
    the agent's ``act`` draws it (``rng.below(len(actions))``), so a playout takes the actions
    the agents would.  One generator for every seat: ``[rng] * num_players``."""

    def pick(choose, actions, seats):
        return rngs[seats[0]].below(len(actions))

    return pick
