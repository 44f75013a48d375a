"""The terminal table: what the play loop (``tapster play``) and the replay viewer (``tapster
replay --seat``) share around a seat's view (:func:`interpreter.views.termview.seat_text`).

- :class:`HotSeat`: several people at one terminal; the screen is cleared and the next seat
  confirms before anything of theirs is shown.
- :func:`numbered`: the legal actions with numbers that stay the same while the options stay
  the same (a canonical order, not the engine's).
- :func:`rules_summary`: the ruleset's description, phases, decisions and how the game ends,
  for a player's ``?``.
- :class:`Rounds`: turn headers that count rounds (or, alone at the table, that seat's turns).
- :func:`new_lines` / :class:`Narrator`: the game's account, for one seat (its visible lines,
  as ``State.visible_log``) or for everyone (agents only: the omniscient account).
- :class:`ReplayViewer`: a saved game step by step as one seat saw it, or as an observer.

Everything drawn for a seat is built from ``view_observation(state, p)`` (``State.observation(p)``
with the display's public parts) and the log lines ``p`` may read; only the observer
(``seat=None``) and an agents-only game see the whole state.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from ..errors import TapsterError
from ..model import Action, Component, Decision
from .render import render_board, view_observation
from .termview import seat_text
from .view import seat_name

if TYPE_CHECKING:  # pragma: no cover
    from ..compile.ruleset import Ruleset
    from ..engine.state import State

__all__ = [
    "HotSeat", "Narrator", "QuitGame", "ReplayViewer", "Rounds", "action_key", "new_lines", "numbered",
    "option_names", "rules_summary", "seat_name",
]  # fmt: skip


class QuitGame(Exception):
    """A human left the game (end of input, ctrl-D or ctrl-C, or ``quit``).  Not an error of
    the ruleset: the driver stops the game and says so.  ``asked``: the person typed ``quit``
    (``tapster play`` then saves the game to a file it names)."""

    def __init__(self, message: str = "", asked: bool = False):
        super().__init__(message)
        self.asked = asked


# -- the account ----------------------------------------------------------------------------------


def new_lines(log: list | None, start: int, seat: int | None, public: bool = True) -> tuple[list[str], int]:
    """The lines of ``log`` (``State.log``: ``(visible_to, text)`` pairs) from index ``start``
    that ``seat`` may read — public lines and lines addressed to it; every line for
    ``seat=None`` (the omniscient account) — and the index to start from next time.  With
    ``public=False`` only the lines addressed to ``seat`` (someone else prints the public ones).
    A log shorter than ``start`` (another game) starts over from 0."""
    if log is None:
        return [], start
    if start > len(log):
        start = 0
    out = []
    for to, text in log[start:]:
        if to is None:
            if public or seat is None:
                out.append(text)
        elif seat is None or seat in to:
            out.append(text)
    return out, len(log)


# -- hot-seat ---------------------------------------------------------------------------------------


class HotSeat:
    """The one screen that several people at one terminal share (hot-seat play).

    Before a seat is shown anything (:meth:`take`), the screen is cleared — the previous seat's
    view goes — and the seat's player confirms they hold it ("Pass the screen to P2, then press
    Enter"); nothing is cleared or asked while the same seat keeps deciding.  :meth:`release`
    clears the screen at the end of the game.

    ``console``: the rich Console the table is printed on.  ``clear``: the function that clears
    the screen (default ``console.clear``, which does nothing when the output is not a terminal).
    """

    def __init__(self, console: Console, clear: Callable[[], None] | None = None):
        self.console = console
        self.clear = clear if clear is not None else console.clear
        self.shown: int | None = None  # the seat whose view may be on the screen

    def take(self, player: int, read: Callable[[str], str]) -> None:
        """Make the screen ``player``'s: clear it and wait for their Enter (unless it is theirs).

        Raises:
            QuitGame: end of input, ctrl-C or ``quit`` at the confirmation.
        """
        if self.shown == player:
            return
        self.clear()
        self.shown = None
        try:
            answer = read(f"Pass the screen to {seat_name(player)}, then press Enter (or quit): ")
        except (EOFError, KeyboardInterrupt):
            self.console.print()
            raise QuitGame(f"{seat_name(player)} left the game") from None
        if answer.strip().lower() in ("q", "quit", "exit"):
            raise QuitGame(f"{seat_name(player)} left the game", asked=True)
        self.clear()
        self.shown = player

    def release(self) -> None:
        """Clear the screen if a seat's view may be on it."""
        if self.shown is not None:
            self.clear()
            self.shown = None


# -- stable action numbers --------------------------------------------------------------------------


def _natural(text: str) -> tuple:
    """``text`` in natural order: runs of digits compare as numbers (``card-2`` < ``card-10``)."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part.casefold())
                 for part in re.split(r"(\d+)", text) if part)  # fmt: skip


def _value_key(v: Any) -> tuple:
    if v is None:
        return (0,)
    if isinstance(v, (bool, int, float)):
        return (1, v)
    if isinstance(v, Component):
        return (2, v.index)  # the ruleset's order of its components
    if isinstance(v, str):
        return (3, _natural(v))
    if isinstance(v, tuple):
        return (4, tuple(_value_key(x) for x in v))
    return (5, _natural(str(v)))


def action_key(action: Action, options: tuple[str, ...] = ()) -> tuple:
    """The canonical sort key of ``action``: its option's place in ``options`` (the decision's
    options in the ruleset's order; unknown names after them, by name), then its arguments —
    numbers by value, components in the ruleset's order, texts in natural order."""
    rank = options.index(action.name) if action.name in options else len(options)
    return (rank, action.name, tuple(_value_key(a) for a in action.args))


def option_names(state: State) -> tuple[str, ...]:
    """The options of ``state``'s pending decision in the ruleset's order (empty at the end)."""
    pending = state.pending
    if pending is None:
        return ()
    return tuple(o.name for o in getattr(pending[0], "options", ()))


def numbered(decision: Decision, options: tuple[str, ...] = ()) -> list[tuple[int, Action, str]]:
    """The legal actions of ``decision`` as ``(number, action, label)``, numbered from 1 in the
    canonical order of :func:`action_key` — not the order the engine lists them in, so the same
    options always get the same numbers, whatever the order of the hand or the board."""
    pairs = sorted(zip(decision.actions, decision.labels or [""] * len(decision.actions), strict=True),
                   key=lambda pair: action_key(pair[0], options))
    return [(i, action, label) for i, (action, label) in enumerate(pairs, 1)]


# -- the rules summary ------------------------------------------------------------------------------


#: The longest score expression the rules summary quotes.
MAX_SCORE_TEXT = 80

#: The sections of a ruleset that hold its flow of play.
_RULES = ("setup", "flow", "procedures", "triggers")


def _walk(data: Any, key: str):
    """Every value under ``key`` in a YAML document's data, depth first in document order."""
    if isinstance(data, dict):
        for k, v in data.items():
            if k == key:
                yield v
            yield from _walk(v, key)
    elif isinstance(data, list):
        for v in data:
            yield from _walk(v, key)


def _template(text: Any, drop_seat: bool = True) -> str:
    """A log or prompt template for people: each ``{expression}`` becomes ``…``, white space
    is folded, and (with ``drop_seat``) a leading seat (``P{current + 1}:``) is dropped."""
    out, depth = [], 0
    for ch in str(text):
        if ch == "{":
            if depth == 0 and not (out and out[-1] == "…"):
                out.append("…")
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    s = " ".join("".join(out).split())
    return re.sub(r"^P…(\s*\(…\))?:?\s+", "", s) if drop_seat else s


def phases(rs: Ruleset) -> list[str]:
    """The names of the ruleset's phases in the order the flow and procedures declare them."""
    data = rs.doc.data if rs.doc is not None else {}
    names: list[str] = []
    for spec in _walk({k: data.get(k) for k in _RULES}, "phase"):
        name = spec.get("name") if isinstance(spec, dict) else spec
        if isinstance(name, str) and name not in names:
            names.append(name)
    return names


def endings(rs: Ruleset) -> list[str]:
    """How the game can end: the reasons its ``end_game`` effects give (templates with ``…``),
    then the ruleset's reason for a flow that runs to its end."""
    data = rs.doc.data if rs.doc is not None else {}
    out: list[str] = []
    for spec in _walk({k: data.get(k) for k in _RULES}, "end_game"):
        text = _template(spec, drop_seat=False)
        if text and text not in out:
            out.append(text)
    reason = _template(rs.default_reason or "")
    if reason and reason not in out:
        out.append(reason)
    return out


def rules_summary(rs: Ruleset, players: int | None = None) -> list[str]:
    """The rules in short, as lines for a player's ``?``: the title and variant, the ruleset's
    ``description`` (and the variant's), the players, the phases, each decision with its prompt
    (``…`` where the game fills in a value), how the game ends and how it is scored — in the
    ruleset's words (``outcome.description``) when it gives them, else from its ``end_game``
    reasons and its ``score`` expression."""
    lines = [rs.title + (f" (variant {rs.variant})" if rs.variant else "")]
    if rs.description:
        lines.append(" ".join(str(rs.description).split()))
    if rs.variant and rs.variants.get(rs.variant):
        lines.append(f"Variant {rs.variant}: " + " ".join(str(rs.variants[rs.variant]).split()))
    span = str(rs.min_players) if rs.min_players == rs.max_players else f"{rs.min_players} to {rs.max_players}"
    lines.append(f"Players: {span}" + (f" (this game: {players})" if players is not None else ""))
    names = phases(rs)
    if names:
        lines.append("Phases: " + ", ".join(n.replace("_", " ") for n in names))
    data = rs.doc.data if rs.doc is not None else {}
    decisions = []
    for spec in _walk({k: data.get(k) for k in _RULES}, "choose"):
        if not isinstance(spec, dict):
            continue
        name = str(spec.get("name") or "(unnamed)").replace("_", " ")
        prompt = _template(spec.get("prompt", ""))
        line = f"  {name}: {prompt}" if prompt else f"  {name}"
        if line not in decisions:
            decisions.append(line)
    if decisions:
        lines.append("Decisions:")
        lines.extend(decisions)
    outcome = data.get("outcome") if isinstance(data.get("outcome"), dict) else {}
    words = " ".join(str(outcome.get("description") or "").split())
    if words:  # the ruleset's own words for scoring and the end
        lines.append(f"How it ends and scores: {words}")
        return lines
    ends = endings(rs)
    if ends:
        lines.append("The game ends: " + "; or ".join(ends))
    score = " ".join(str(outcome.get("score") or "").split())
    if score and len(score) <= MAX_SCORE_TEXT:  # a long formula says nothing at the table
        ties = [" ".join(str(t).split()) for t in outcome.get("tiebreak") or []]
        tie = "; ".join(ties) if len("; ".join(ties)) <= MAX_SCORE_TEXT else "the ruleset's tie-break"
        lines.append(f"Score: {score} (highest wins" + (f", ties broken by {tie}" if ties else "") + ")")
    return lines


# -- turn headers ------------------------------------------------------------------------------------


class Rounds:
    """Turn headers that count what people at the table count.

    When the ruleset's display names the variable counting rounds (``display: {round: round}``:
    a public variable, Beer Cards' "round of the game being played"), the header gives that round:
    ``Round 2 · P3's turn`` (a draw's or a showdown's extra turns fall in their round).
    Otherwise it counts that seat's own turns: ``P3's turn 5``.  Seats' turn counts differ
    when some take extra turns, so a header never puts one seat's count next to another's
    as if it were one count of the game.

    Reads only what every seat sees: whose turn it is, how many turns each seat has begun
    (``State.current`` and ``State.turns``, the observation's ``current`` and ``turns``) and a
    public variable.
    """

    def __init__(self, ruleset: Ruleset):
        display = getattr(ruleset, "display", None)
        self.var = getattr(display, "round", None) if display is not None else None
        self.last: tuple | None = None

    def header(self, st: State) -> str | None:
        """The header for a turn of ``st`` that began since the last call, or None (the same
        turn, the end of the game, or no turn begun yet)."""
        current, turns = st.current, st.turns
        if st.finished or not 0 <= current < len(turns) or turns[current] == 0:
            return None
        key = (current, turns[current])
        if key == self.last:
            return None
        self.last = key
        r = st.vars.get(self.var) if self.var is not None else None
        if type(r) is int and r > 0:
            return f"Round {r} · {seat_name(current)}'s turn"
        return f"{seat_name(current)}'s turn {turns[current]}"


# -- the narrator of tapster play ----------------------------------------------------------------


class Narrator:
    """Prints the account of a game as it goes and a header at each new turn.

    ``humans``: the seats people play.  No human: every log line (the omniscient account) and
    after every turn the ruleset's ``display`` drawn from the whole game.  One human: only the
    lines that seat may read and the turn headers, handed to its agent (``show_new_lines``,
    ``hear``), which shows them at the human's next decision within one screen.  Several humans: only
    the public lines (each human sees their own on their turn), except while the human who
    holds the ``hot_seat`` screen decides next (their agent shows them).  With a human at the
    table the board is never drawn from the whole state.
    """

    def __init__(self, st: State, out: Console, agents: list, humans: list[int], quiet: bool = False,
                 hot_seat: HotSeat | None = None):
        self.st, self.out, self.agents, self.humans, self.quiet = st, out, agents, humans, quiet
        self.hot_seat = hot_seat
        self.seen = 0
        self.rounds = Rounds(st.ruleset)
        self.turn: tuple | None = None

    def rewind(self, st: State) -> None:
        """Narrate ``st`` from now on (a take-back or a resume): its account so far counts as told."""
        self.st = st
        self.seen = len(st.log or ())
        self.turn = None if st.finished else (st.current, st.turns[st.current])
        self.rounds.last = self.turn

    def __call__(self) -> None:
        """Print what happened since the last call."""
        if self.quiet:
            return
        st = self.st
        if len(self.humans) == 1:
            self.agents[self.humans[0]].show_new_lines(st, self.humans[0])
            self.seen = len(st.log or ())
        else:  # no human: every line; several: the public lines (each sees their own on their turn)
            log = st.log or []
            # a human who holds the screen and decides next is shown these lines by their agent
            holder = self.hot_seat.shown if self.hot_seat is not None else None
            if holder is None or holder not in st.current_players():
                for to, text in log[self.seen:]:
                    if to is None or not self.humans:
                        self.out.print(Text(text))
            self.seen = len(log)
        turn = None if st.finished else (st.current, st.turns[st.current])
        if turn != self.turn:
            board = render_board(st) if not self.humans else None
            if board is not None:
                self.out.print(Text(board))
            self.turn = turn
            header = self.rounds.header(st)
            hearer = self.agents[self.humans[0]] if len(self.humans) == 1 else None
            if header is not None and hasattr(hearer, "hear"):
                hearer.hear(self.humans[0], header)  # into the account shown at the human's next decision
            elif header is not None:
                self.out.rule(Text(header, style="dim"), style="dim")


# -- the replay viewer --------------------------------------------------------------------------------


class ReplayViewer:
    """Shows a saved game step by step as seat ``seat`` saw it, or as an observer (``seat=None``).

    For a seat: after each action, the log lines that seat may read, the action taken only when
    the seat took it (another seat's action shows only as the log tells it), and
    :func:`~interpreter.views.termview.seat_text` of ``view_observation(st, seat)`` (the observation
    with the display's public parts).  For the observer: every log line, every action with its
    label, and the whole game drawn (``view_observation(st, None)``).

    ``out``: the console; ``read``: ``read(prompt) -> str`` between steps (Enter: the next step,
    ``q``: stop), or None to print every step without pausing.
    """

    def __init__(self, st: State, seat: int | None, out: Console, read: Callable[[str], str] | None = None):
        if seat is not None and not 0 <= seat < st.num_players:
            raise TapsterError(f"no seat {seat + 1}: the game has {st.num_players} players (--seat 1 to {st.num_players})")
        self.st, self.seat, self.out, self.read = st, seat, out, read
        self.seen = 0
        self.rounds = Rounds(st.ruleset)
        self.stopped = False

    def start(self, total: int) -> None:
        """Show the table before the first action (the setup's account and view)."""
        self.total = total
        who = "as an observer (everything)" if self.seat is None else f"as {seat_name(self.seat)} saw it"
        self.out.rule(Text(f"the start, {who}", style="bold"))
        self._show()
        self._pause(0)

    def step(self, i: int, text: str) -> None:
        """Apply action ``i`` (``text``, its canonical text) and show what followed.

        Raises:
            IllegalActionError: the action is not legal (the caller reports the mismatch).
        """
        st = self.st
        decision = st.decision()
        players = decision.players if decision is not None else ()
        label = ""
        if decision is not None:
            found = decision.find(text)
            if found is not None:
                label = decision.labels[decision.actions.index(found)] if decision.labels else ""
        st.apply(text)
        who = ", ".join(seat_name(p) for p in players)
        self.out.rule(Text(f"step {i + 1} of {self.total}: {who}", style="bold"))
        if self.seat is None or self.seat in players:
            taker = who if self.seat is None else f"you ({who})"
            self.out.print(Text(f"{taker} chose: {label or text}" + (f"  [{text}]" if label and label != text else ""),
                                style="cyan"))
        self._show()
        self._pause(i + 1)

    def _show(self) -> None:
        st = self.st
        lines, self.seen = new_lines(st.log, self.seen, self.seat)
        for line in lines:
            self.out.print(Text(line))
        header = self.rounds.header(st)
        if header is not None:
            self.out.print(Text(header, style="dim"))
        self.out.print(Text(seat_text(st.ruleset, view_observation(st, self.seat))))

    def _pause(self, done: int) -> None:
        if self.read is None or done >= self.total:
            return
        try:
            answer = self.read("Enter: next step, q: stop ")
        except (EOFError, KeyboardInterrupt):
            answer = "q"
        if answer.strip().lower() in ("q", "quit", "exit"):
            self.stopped = True
