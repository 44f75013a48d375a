"""Taking a decision back (issue 48): whether a seat has learnt something it did not know since
one of its decisions, and the snapshots a table keeps to go back to it.

A take-back returns the game to a seat's earlier decision.  It is free while nothing the seat
did not know has been shown to it since — no die, no drawn card, no secret decision of another
seat — because going back then tells nobody anything.  :func:`news_since` decides that from the
public State API only: the seat's information state (``State.information_state``: its observation
and the decisions it saw taken) and the lines of the account it may read are compared with those
of worlds it cannot tell from the one at its decision (``State.determinize``), played on with the
same actions.  If some such world shows it something else, what it was shown was news.

:class:`History` keeps a snapshot (a ``State.clone`` and copies of the agents) before each decision
a person took, and the snapshots undone, for redo.  Restoring a snapshot shows nobody anything new:
it is a state the table has been in, at a decision of the seat taking back.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..engine.rng import Rng
from ..errors import IllegalActionError, TapsterError
from .view import seat_name

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.state import State

__all__ = ["WORLDS", "History", "Mark", "news_since"]

#: How many worlds :func:`news_since` plays on; a card or die that every one of them repeats is
#: treated as known (a deck of identical cards shows nothing).
WORLDS = 12


def _lines(st: State, player: int) -> list[str]:
    return st.visible_log(player) if st.log is not None else []


def news_since(before: State, actions: list[str], after: State, player: int, worlds: int = WORLDS) -> str | None:
    """Why ``player`` has learnt something between ``before`` (a state at one of its decisions)
    and ``after`` (``before`` with ``actions`` applied), in words, or None when it has not.

    News is another seat's decision taken in secret, or anything the seat sees (its observation,
    the decisions it saw, the account it may read) that differs in some world it could not tell
    from ``before`` (``before.determinize``) with the same actions applied — a drawn card, a die.
    The worlds come from a generator of their own, never from the game's."""
    known = len(before.seen_actions(player))
    for seen in after.seen_actions(player)[known:]:
        if seen.endswith(":?"):
            return f"{seen[:-2]} has decided in secret since"
    want = after.information_state(player)
    start = len(_lines(before, player))
    lines = _lines(after, player)[start:]
    rng = Rng(f"take-back:{player}:{len(actions)}")
    for _ in range(worlds):
        try:
            world = before.determinize(player, rng)
            for text in actions:
                world.apply(text)
        except (IllegalActionError, TapsterError):
            return "what another seat did could not be told in advance"
        if world.information_state(player) != want:
            return "a card or die you had not seen has been shown since"
        if world.log is not None and before.log is not None and _lines(world, player)[start:] != lines:
            return "the account has told you something you had not known since"
    return None


@dataclass
class Mark:
    """The table just before seat ``player`` took a decision: the ``state`` (a clone), how many
    ``actions`` had been taken, copies of the ``agents`` (their generators: after a take-back
    they play as they did), whether the decision was taken for the seat (``auto``: one legal
    option) and the ``action`` it took (its text, filled in when taken)."""

    state: State
    actions: int
    agents: dict[int, Any]
    player: int
    auto: bool = False
    action: str = ""
    label: str = ""
    redo_marks: list = field(default_factory=list)  # for redo: the marks taken back with it
    redo_actions: list = field(default_factory=list)  # for redo: every action up to it


@dataclass
class History:
    """The marks of a table's decisions taken by people (``done``) and those taken back
    (``undone``, for redo, emptied when anything else is played)."""

    done: list[Mark] = field(default_factory=list)
    undone: list[Mark] = field(default_factory=list)

    @staticmethod
    def mark(st: State, actions: int, agents: dict[int, Any], player: int) -> Mark:
        """A mark of ``st`` now (cloned; the agents deep-copied)."""
        return Mark(st.clone(), actions, {p: copy.deepcopy(a) for p, a in agents.items()}, player)

    def target(self, player: int) -> tuple[int, str | None]:
        """The index in ``done`` of the decision ``player`` would take back (the last one not
        taken for them, with every decision after it an agent's or taken for them), or why
        there is none: ``(-1, why)``."""
        for i in range(len(self.done) - 1, -1, -1):
            m = self.done[i]
            if m.player != player:
                return -1, f"{seat_name(m.player)} has decided since: only they can take that back"
            if not m.auto:
                return i, None
        return -1, "you have no decision to take back"
