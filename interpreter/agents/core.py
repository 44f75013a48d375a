"""Agents: whoever answers a decision.  ``act(state, player)`` returns one of the legal actions.

An agent never changes the state; the driver applies the action it returns.  Chance inside an
agent (``RandomAgent``) comes from its own seeded :class:`~interpreter.engine.rng.Rng`, never from the
global ``random`` module, so the same seeds give the same game.

``make_agent(spec, seed)`` builds an agent from its registry name (``random``, ``first``,
``greedy``, ``mcts``, ``ismcts``, ``human``) with parameters after colons
(``mcts:iterations=500:c=1.4``); :data:`AGENTS` lists the names with a one-line description
each, :data:`interpreter.agents.search.PARAMS` the parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from rich.console import Console
from rich.text import Text

from ..engine.rng import Rng
from ..engine.state import State
from ..errors import TapsterError, close_matches
from ..model import Action, Decision
from ..views.faces import face_of
from ..views.render import view_observation
from ..views.screen import SCREEN_LINES, Account, compose, fold_account, option_lines, own_values
from ..views.terminal import HotSeat, QuitGame, new_lines, numbered, option_names, rules_summary, seat_name
from ..views.termview import board_titles, face_text, seat_blocks
from ..views.view import action_cards, visible_ids
from .search import PARAMS, GreedyAgent, ISMCTSAgent, MCTSAgent, _legal

__all__ = [
    "AGENTS",
    "Agent",
    "FirstAgent",
    "HumanAgent",
    "QuitGame",
    "RandomAgent",
    "make_agent",
    "parse_agent",
    "seat_name",
]


@runtime_checkable
class Agent(Protocol):
    """Anything that answers decisions.

    ``name``: the registry name (``"random"``...), shown in score tables and saved in logs.
    ``act(state, player)``: one of ``state.legal_actions()`` for seat ``player`` (one of
    ``state.current_players()``); must not change ``state``.
    """

    name: str

    def act(self, state: State, player: int) -> Action:
        """The action ``player`` takes in ``state``.

        Raises:
            QuitGame: the agent gives up the game (a human leaving).
        """
        ...


class RandomAgent:
    """Picks uniformly among the legal actions with its own generator seeded by ``seed``
    (an int or a string): the same seed and the same states give the same choices."""

    name = "random"

    def __init__(self, seed: int | str = 0):
        self.rng = Rng(seed)

    def act(self, state: State, player: int) -> Action:
        """A uniformly random legal action.

        Raises:
            TapsterError: there is no legal action (the game is over).
        """
        actions = _legal(state)
        return actions[self.rng.below(len(actions))]

    def __repr__(self) -> str:
        return f"RandomAgent(state={self.rng.state})"


class FirstAgent:
    """Always takes the first legal action in the ruleset's order (deterministic, no seed)."""

    name = "first"

    def __init__(self, seed: int | str = 0):
        del seed  # accepted so every registry entry is built the same way

    def act(self, state: State, player: int) -> Action:
        """The first legal action.

        Raises:
            TapsterError: there is no legal action (the game is over).
        """
        actions = _legal(state)
        return actions[0]

    def __repr__(self) -> str:
        return "FirstAgent()"


class HumanAgent:
    """A person at the keyboard.

    On its turn it shows the log lines ``player`` may read and has not been shown yet, what the
    player may see (:func:`~interpreter.views.termview.seat_text` of ``view_observation(state,
    player)``: the observation with the display's public parts),
    then the numbered legal actions with their labels, and reads an answer: a number, an
    action's canonical text (``front(0)``) or its label (case does not matter).  Under an
    option that names cards the player can see, each card's face is shown on one line (the
    ruleset's ``display.faces``); ``look N`` or ``? N`` prints those faces in full.  After the
    first turn only the parts of the table that changed (or show a card an option names) are
    drawn, and the whole turn — what happened since the player's last decision, the table, the
    question — fits in :data:`~interpreter.views.screen.SCREEN_LINES` lines; ``table`` draws
    the table whole, ``log`` the whole account since the last decision (:meth:`show`).  Bad answers
    are refused and asked again; ``?`` shows the rules in short (the ruleset's description,
    phases, decisions and how the game ends: :func:`~interpreter.views.terminal.rules_summary`) and
    the table again; ``quit``, end of input (ctrl-D) or ctrl-C raise :class:`QuitGame`.

    Action numbers are stable: the actions are numbered in a canonical order (the decision's
    options in the ruleset's order, then their arguments — numbers by value, components in the
    ruleset's order, texts in natural order: :func:`~interpreter.views.terminal.numbered`), never in
    the order the engine happens to list them, so the same options always carry the same
    numbers, whatever the order of the hand.

    ``console``: where to write (a rich Console; stdout by default).  ``read``: a callable
    ``read(prompt) -> str`` that raises EOFError at the end of input (default: the console's
    ``input``, which reads ``sys.stdin``).  ``public_shown``: public log lines are already shown
    by the driver, so show only the lines addressed to this player.  ``hot_seat``: the
    :class:`~interpreter.views.terminal.HotSeat` shared by the humans at one terminal: before this
    player is shown anything the screen is cleared and they confirm that they hold it; then
    they see every line they may read since their last turn (the screen was cleared).
    ``commands``: ``commands(answer, state, player)`` answers the table's own commands (``undo``,
    ``redo``, ``save FILE`` of ``tapster play``): None when ``answer`` is not one, else a line to
    print (it may raise to leave the decision, as a take-back does).  ``auto_single``: a decision
    with one legal option is taken for the player, saying so in one line of their account
    (``auto off`` at a prompt asks every time; ``auto on`` again) — at a hot-seat table only while
    the player holds the screen (the screen is passed to them first, as for any decision).

    Within one decision (the same ``choose`` of the ruleset, for the same seat) an option keeps
    the number it was first shown with while options only go and come back — a gone one leaves
    a gap (:meth:`listed`) — so pressing ``2`` twice never picks two different spaces.
    """

    name = "human"

    def __init__(
        self,
        seed: int | str = 0,
        console: Console | None = None,
        read: Callable[[str], str] | None = None,
        public_shown: bool = False,
        hot_seat: HotSeat | None = None,
        commands: Callable[[str, State, int], str | None] | None = None,
        auto_single: bool = False,
    ):
        del seed
        self.commands = commands
        self.auto_single = auto_single
        self.last_auto = False  # the last decision was taken for the player (one legal option)
        self._numbers: dict[tuple, dict[str, int]] = {}  # (player, decision name) -> {action text: number}
        self.console = console if console is not None else Console(highlight=False)
        self.read = read if read is not None else (lambda prompt: self.console.input(prompt))
        self.public_shown = public_shown and hot_seat is None
        self.hot_seat = hot_seat
        self._seen: dict[int, int] = {}  # player -> index into state.log already shown
        self._tables: dict[int, dict] = {}  # player -> {section title: lines} last shown to them
        self._account: dict[int, list[Account]] = {}  # player -> the account since their last decision
        self._told: dict[int, list[Account]] = {}  # player -> the account shown at their last decision (`log`)

    # -- the log ---------------------------------------------------------------------------
    def show_new_lines(self, state: State, player: int) -> int:
        """Take in the log lines ``player`` may read that this agent has not shown yet (only the
        lines addressed to them when ``public_shown``); return how many there were.  They are
        kept for the player's next decision, where the screen shows them within its room
        (:func:`~interpreter.views.screen.compose`); at the end of the game they are printed at
        once.  In a hot-seat game nothing is taken until the player holds the screen."""
        if self.hot_seat is not None and self.hot_seat.shown != player:
            return 0
        lines, self._seen[player] = new_lines(state.log, self._seen.get(player, 0), player, public=not self.public_shown)
        self._account.setdefault(player, []).extend(Account(t) for t in lines)
        if state.is_terminal():
            self.flush(player)
        return len(lines)

    def hear(self, player: int, header: str) -> None:
        """A turn header (``Round 2 · P3's turn``) for ``player``'s account since their last decision."""
        if self.hot_seat is None or self.hot_seat.shown == player:
            self._account.setdefault(player, []).append(Account(f"── {header} ──", turn=True))

    def flush(self, player: int) -> None:
        """Print ``player``'s account not shown yet (the end of the game: nothing is asked after it)."""
        for a in fold_account(self._account.pop(player, [])):
            self.console.print(Text(a.text, style="dim" if a.turn else ""))

    # -- the turn --------------------------------------------------------------------------
    def act(self, state: State, player: int) -> Action:
        """Show the player's view and ask until a legal action is named.

        Raises:
            QuitGame: end of input, ctrl-C or ``quit``.
            TapsterError: there is no legal action (the game is over).
        """
        decision = state.decision()
        if decision is None or not decision.actions:
            raise TapsterError("no legal action: the game is over")
        self.last_auto = False
        holds = self.hot_seat is None or self.hot_seat.shown == player  # no screen to pass first
        if self.auto_single and len(decision.actions) == 1 and holds:
            self.last_auto = True
            label = (decision.labels[0] if decision.labels else "") or str(decision.actions[0])
            self.show_new_lines(state, player)
            self._account.setdefault(player, []).append(
                Account(f"{seat_name(player)}: one choice only, taken for you: {label} (`auto off` asks every time)"))
            return decision.actions[0]
        if self.hot_seat is not None:
            self.hot_seat.take(player, self.read)
        self.show_new_lines(state, player)
        self.show(state, player)
        while True:
            listed = self.listed(state, player)
            numbers = [i for i, _, _ in listed]
            span = _spans(numbers)
            extra = ", undo, redo, save FILE" if self.commands is not None else ""
            try:
                answer = self.read(f"{seat_name(player)}, your choice ({span}, look N, table, log, ?{extra} or quit): ")
            except (EOFError, KeyboardInterrupt):
                self.console.print()
                raise QuitGame(f"{seat_name(player)} left the game") from None
            answer = answer.strip()
            if answer.lower() in ("q", "quit", "exit"):
                raise QuitGame(f"{seat_name(player)} left the game", asked=True)
            if self.look(state, player, answer):
                continue
            if answer.lower() in ("auto on", "auto off"):
                self.auto_single = answer.lower() == "auto on"
                self.console.print(Text("a decision with one legal option is now " +
                                        ("taken for you" if self.auto_single else "asked"), style="dim"))
                continue
            said = self.commands(answer, state, player) if self.commands is not None else None
            if said is not None:
                self.console.print(Text(said))
                continue
            if answer.lower() == "table":
                self.show(state, player, everything=True)
                continue
            if answer.lower() == "log":
                told = self._told.get(player) or []
                for a in told:
                    self.console.print(Text(a.text, style="dim" if a.turn else ""))
                if not told:
                    self.console.print(Text("nothing happened since your last decision"))
                continue
            if answer in ("?", "help"):
                for line in rules_summary(state.ruleset, state.num_players):
                    self.console.print(Text(line))
                self.console.print()
                self.show(state, player, everything=True)
                continue
            action = self.parse_answer(decision, answer, listed=listed)
            if action is not None:
                return action
            if answer.isascii() and answer.isdigit() and self._numbers.get(self._key(decision, player), {}):
                gone = {n: t for t, n in self._numbers[self._key(decision, player)].items()}.get(int(answer[:9]))
                if gone is not None:
                    self.console.print(Text(f"option {answer} ({gone}) cannot be chosen now; the others keep their numbers",
                                            style="red"))
                    continue
            self.console.print(
                Text(f"`{answer}` is not one of the choices: type one of the numbers shown ({span}), "
                     "or an action's text", style="red")
            )

    @staticmethod
    def _key(decision: Decision, player: int) -> tuple:
        return (player, decision.name or decision.prompt)

    def listed(self, state: State, player: int) -> list[tuple[int, Action, str]]:
        """The legal actions of ``state``'s decision as ``(number, action, label)`` for ``player``:
        numbered as :func:`~interpreter.views.terminal.numbered` the first time a decision is met;
        while its options only go (a space taken) and come back, each keeps its number and a gone
        one leaves a gap.  An option never listed before (a card drawn) numbers them all afresh."""
        decision = state.decision()
        canon = numbered(decision, option_names(state))
        key = self._key(decision, player)
        known = self._numbers.get(key) or {}
        texts = [str(a) for _, a, _ in canon]
        if not known or any(t not in known for t in texts):
            known = {t: i for t, (i, _, _) in zip(texts, canon)}
        self._numbers[key] = known
        return sorted(((known[t], a, label) for t, (_, a, label) in zip(texts, canon)), key=lambda x: x[0])

    def rewind(self, state: State, player: int) -> None:
        """Start ``player``'s account over at ``state`` (restored by a take-back or a resume): the
        lines before it count as shown and the next screen draws the whole table."""
        self._seen[player] = len(state.log or ())
        self._account.pop(player, None)
        self._tables.pop(player, None)

    @staticmethod
    def parse_answer(decision: Decision, answer: str, options: tuple[str, ...] = (),
                     listed: list[tuple[int, Action, str]] | None = None) -> Action | None:
        """The legal action ``answer`` names: a number as ``listed`` gives them (default:
        :func:`~interpreter.views.terminal.numbered`, with ``options`` the decision's options in
        the ruleset's order), the canonical text or the label (exact, then ignoring case), or None."""
        if not answer:
            return None
        if answer.isascii() and answer.isdigit():  # not `²` or `٣`, which int() refuses
            i = int(answer) if len(answer) <= 9 else 0  # nor 5000 digits, which it refuses too
            for n, action, _ in listed if listed is not None else numbered(decision, options):
                if n == i:
                    return action
            return None
        found = decision.find(answer)
        if found is not None:
            return found
        folded = answer.casefold()
        for action, label in zip(decision.actions, decision.labels, strict=True):
            if str(action).casefold() == folded or label.casefold() == folded:
                return action
        return None

    def show(self, state: State, player: int, everything: bool = False) -> None:
        """Print ``player``'s turn: the account since their last decision, their view (drawn from
        their observation and the display's public parts only:
        :func:`~interpreter.views.render.view_observation`) and the numbered choices.

        The first time the whole table; after that only the sections that changed since this
        player's last view or that show a card an option names, as many as fit, so that the
        whole turn takes at most :data:`~interpreter.views.screen.SCREEN_LINES` lines of the
        terminal (:func:`~interpreter.views.screen.compose`); ``everything`` (the answer
        ``table``) draws the whole table and the choices.  Empty sections are never drawn
        (:func:`~interpreter.views.termview.seat_blocks`)."""
        rs = state.ruleset
        obs = view_observation(state, player)
        decision = state.decision()
        listed = self.listed(state, player) if decision is not None else []
        named = [f.short for _, a, _ in listed for f in action_cards(rs, obs, a)]
        header, blocks, final = seat_blocks(rs, obs)
        width = max(40, self.console.width)
        question = [decision.prompt] if decision is not None and decision.prompt else []

        def options(with_faces: bool) -> list[str]:
            return option_lines(listed, lambda a: action_cards(rs, obs, a), width - 1, with_faces)

        if everything:
            lines = [(t, "bold") for t in header] + [(t, "") for _, b in blocks for t in b] + [(t, "") for t in final]
            lines += [(t, "bold") for t in question] + [(t, "") for t in options(True)]
            shown = [t for t, _ in blocks]
        else:
            account = self._account.pop(player, [])
            self._told[player] = fold_account(account)
            before = self._tables.get(player)
            screen = compose(header, blocks, before, named, account, question, options, final,
                             lambda t: len(Text(t).wrap(self.console, width)), budget=self.height(),
                             pinned=board_titles(rs, obs), own=own_values(blocks))
            lines, shown = screen.lines, screen.shown
        table = dict(self._tables.get(player) or {})
        table.update((t, b) for t, b in blocks if t in shown)
        self._tables[player] = table
        for text, style in lines:
            self.console.print(Text(text, style=style))

    def height(self) -> int:
        """The lines of the terminal (:data:`~interpreter.views.screen.SCREEN_LINES` where it is unknown:
        output piped or redirected)."""
        if not self.console.is_terminal:
            return SCREEN_LINES
        return max(12, self.console.size.height)

    def visible_cards(self, state: State, player: int) -> list[tuple[int, Any]]:
        """Every card ``player`` can see now that has a face, as ``(number, face)``: numbered after
        the decision's options (``look N`` reaches them), in the ruleset's order of components."""
        rs = state.ruleset
        seen = visible_ids(rs, view_observation(state, player))
        start = max((n for n, _, _ in self.listed(state, player)), default=0) + 1
        faces = [f for c in rs.components if c.id in seen for f in [face_of(rs, c.id)] if f is not None]
        return list(enumerate(faces, start))

    def look(self, state: State, player: int, answer: str) -> bool:
        """Answer ``look``, ``look N`` or ``? N``: ``look`` lists every card ``player`` can see,
        numbered after the options (:meth:`visible_cards`); ``look N`` prints the full face of
        every card option N names that ``player`` can see
        (:func:`~interpreter.views.view.action_cards`), or of the visible card numbered N.
        Returns False when ``answer`` is not such a request."""
        words = answer.split()
        if [w.lower() for w in words] == ["look"]:
            cards = self.visible_cards(state, player)
            if not cards:
                self.console.print(Text("you see no card"))
            for n, face in cards:
                self.console.print(Text(f"  {n:>3}. {face.short}"))
            if cards:
                self.console.print(Text("`look N` shows card N in full", style="dim"))
            return True
        if len(words) != 2 or words[0].lower() not in ("look", "?") or not (words[1].isascii() and words[1].isdigit()):
            return False
        listed = self.listed(state, player)
        i = int(words[1]) if len(words[1]) <= 9 else 0
        found = [(a, label) for n, a, label in listed if n == i]
        if not found:
            card = [face for n, face in self.visible_cards(state, player) if n == i]
            if card:
                for text in face_text(card[0]):
                    self.console.print(Text(text))
                return True
            numbers = [n for n, _, _ in listed]
            span = f"{numbers[0]} to {numbers[-1]}" if numbers[-1] - numbers[0] + 1 == len(numbers) else _spans(numbers)
            self.console.print(Text(f"there is no option {words[1]}: the options are {span} "
                                    "(`look` lists the cards you see, numbered after them)", style="red"))
            return True
        faces = action_cards(state.ruleset, view_observation(state, player), found[0][0])
        if not faces:
            self.console.print(Text(f"option {i} ({found[0][1] or found[0][0]}) names no card you can see "
                                    "(`look` lists the cards you see)"))
        for face in faces:
            for text in face_text(face):
                self.console.print(Text(text))
        return True

    def __repr__(self) -> str:
        return "HumanAgent()"


def _spans(numbers: list[int]) -> str:
    """Sorted ``numbers`` as runs: ``1-3, 5, 7-9``."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(f"{a}-{b}" if b > a else str(a) for a, b in runs)


#: Registry of agent names -> (class, one-line description).
AGENTS: dict[str, tuple[type, str]] = {
    "random": (RandomAgent, "uniformly random legal actions (seeded)"),
    "first": (FirstAgent, "always the first legal action"),
    "greedy": (GreedyAgent, "one step ahead on the ruleset's heuristic (default: the score); no lookahead: it never invests"),
    "mcts": (MCTSAgent, "UCT with random playouts on determinised worlds (mcts:iterations=1000:c=1.4)"),
    "ismcts": (ISMCTSAgent, "information-set MCTS, a new world each iteration (ismcts:iterations=1000)"),
    "human": (HumanAgent, "a person at the keyboard"),
}


def parse_agent(spec: str) -> tuple[str, dict]:
    """``NAME[:KEY=VALUE[:KEY=VALUE...]]`` -> (name, parameters), each value converted to its
    declared type and checked against its range (:data:`interpreter.agents.search.PARAMS`).

    Raises:
        TapsterError: an unknown agent or parameter, or a value of the wrong kind or range.
    """
    name, *pairs = str(spec).strip().split(":")
    name = name.strip()
    if name not in AGENTS:
        close = close_matches(name, list(AGENTS), n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise TapsterError(f"no agent {name!r}; {hint}agents: {', '.join(AGENTS)}")
    allowed = PARAMS.get(name, {})
    params: dict = {}
    for pair in pairs:
        key, eq, text = pair.partition("=")
        key = key.strip()
        if not eq or key not in allowed:
            known = ", ".join(allowed) or "none"
            raise TapsterError(f"agent {name}: no parameter {pair!r} (parameters: {known}; write {name}:KEY=VALUE)")
        kind, _, lo, hi, _ = allowed[key]
        try:
            value = kind(text.strip()) if len(text) <= 30 else None
        except ValueError:
            value = None
        if value is None or not lo <= value <= hi or value != value:
            raise TapsterError(f"agent {name}: {key} must be {'a whole number' if kind is int else 'a number'} "
                               f"from {lo} to {hi}, found {text!r}")
        params[key] = value
    return name, params


def make_agent(spec: str, seed: int | str = 0, **options: Any) -> Agent:
    """A new agent from ``spec``, a registry name with optional parameters
    (``random``, ``mcts:iterations=500``; see :func:`parse_agent`), seeded with ``seed``.
    ``options`` go to the agent's constructor (e.g. ``console`` for ``human``).

    Raises:
        TapsterError: an unknown name or parameter (the message lists the known ones).
    """
    name, params = parse_agent(spec)
    return AGENTS[name][0](seed, **params, **options)
