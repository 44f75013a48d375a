"""Agents: whoever answers a decision.  ``act(state, player)`` returns one of the legal actions.

An agent never changes the state; the driver applies the action it returns.  Chance inside an
agent (``RandomAgent``) comes from its own seeded :class:`~interpreter.rng.Rng`, never from the
global ``random`` module, so the same seeds give the same game.

``make_agent(spec, seed)`` builds an agent from its registry name (``random``, ``first``,
``greedy``, ``mcts``, ``ismcts``, ``human``) with parameters after colons
(``mcts:iterations=500:c=1.4``); :data:`AGENTS` lists the names with a one-line description
each, :data:`interpreter.search.PARAMS` the parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .errors import TapsterError, close_matches
from .model import Action
from .rng import Rng
from .search import PARAMS, GreedyAgent, ISMCTSAgent, MCTSAgent
from .state import State
from .termview import seat_text

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


def seat_name(player: int) -> str:
    """The name people see for 0-based seat ``player``: ``P1`` for seat 0."""
    return f"P{player + 1}"


class QuitGame(Exception):
    """A human left the game (end of input, ctrl-D or ctrl-C, or ``quit``).  Not an error of
    the ruleset: the driver stops the game and says so."""


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


def _legal(state: State) -> tuple:
    """The legal actions. Raises TapsterError when there is none (the game is over)."""
    actions = state.legal_actions()
    if not actions:
        raise TapsterError("no legal action: the game is over")
    return actions


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

    On its turn it shows what ``player`` may see (``state.observation(player)``, with component
    labels), the log lines that player may read and has not been shown yet, then the numbered
    legal actions with their labels, and reads an answer: a number, an action's canonical text
    (``front(0)``) or its label (case does not matter).  Bad answers are refused and asked again;
    ``?`` shows the table again; ``quit``, end of input (ctrl-D) or ctrl-C raise
    :class:`QuitGame`.

    ``console``: where to write (a rich Console; stdout by default).  ``read``: a callable
    ``read(prompt) -> str`` that raises EOFError at the end of input (default: the console's
    ``input``, which reads ``sys.stdin``).  ``public_shown``: public log lines are already shown
    by the driver (a table of several humans), so show only the lines addressed to this player.
    """

    name = "human"

    def __init__(
        self,
        seed: int | str = 0,
        console: Console | None = None,
        read: Callable[[str], str] | None = None,
        public_shown: bool = False,
    ):
        del seed
        self.console = console if console is not None else Console(highlight=False)
        self.read = read if read is not None else (lambda prompt: self.console.input(prompt))
        self.public_shown = public_shown
        self._seen: dict[int, int] = {}  # player -> index into state.log already shown

    # -- the log ---------------------------------------------------------------------------
    def show_new_lines(self, state: State, player: int) -> int:
        """Print the log lines ``player`` may read that this agent has not shown yet (only the
        lines addressed to them when ``public_shown``); return how many were printed."""
        log = state.log
        if log is None:
            return 0
        start = self._seen.get(player, 0)
        if start > len(log):  # another game: start over
            start = 0
        printed = 0
        for to, text in log[start:]:
            if to is None and self.public_shown:
                continue
            if to is None or player in to:
                self.console.print(Text(text))
                printed += 1
        self._seen[player] = len(log)
        return printed

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
        self.show_new_lines(state, player)
        self.show(state, player)
        while True:
            try:
                answer = self.read(f"{seat_name(player)}, your choice (1-{len(decision.actions)}, ? or quit): ")
            except (EOFError, KeyboardInterrupt):
                self.console.print()
                raise QuitGame(f"{seat_name(player)} left the game") from None
            answer = answer.strip()
            if answer.lower() in ("q", "quit", "exit"):
                raise QuitGame(f"{seat_name(player)} left the game")
            if answer in ("?", "help"):
                self.show(state, player)
                continue
            action = self.parse_answer(decision, answer)
            if action is not None:
                return action
            self.console.print(
                Text(f"`{answer}` is not one of the choices: type a number from 1 to {len(decision.actions)}, "
                     "or an action's text", style="red")
            )

    @staticmethod
    def parse_answer(decision, answer: str) -> Action | None:
        """The legal action ``answer`` names: a 1-based number, the canonical text or the label
        (exact, then ignoring case), or None."""
        if not answer:
            return None
        if answer.isascii() and answer.isdigit():  # not `²` or `٣`, which int() refuses
            i = int(answer) if len(answer) <= 9 else 0  # nor 5000 digits, which it refuses too
            return decision.actions[i - 1] if 1 <= i <= len(decision.actions) else None
        found = decision.find(answer)
        if found is not None:
            return found
        folded = answer.casefold()
        for action, label in zip(decision.actions, decision.labels, strict=True):
            if str(action).casefold() == folded or label.casefold() == folded:
                return action
        return None

    def show(self, state: State, player: int) -> None:
        """Print ``player``'s observation as a table, then the numbered choices."""
        obs = state.observation(player)
        self.console.print(Text(seat_text(state.ruleset, obs)))
        decision = state.decision()
        if decision is None:
            return
        if decision.prompt:
            self.console.print(Text(decision.prompt, style="bold"))
        for i, (action, label) in enumerate(zip(decision.actions, decision.labels, strict=True), 1):
            line = Text(f"  {i:>2}. ")
            line.append(label or str(action))
            if label and label != str(action):
                line.append(f"   [{action}]", style="dim")
            self.console.print(line)

    def __repr__(self) -> str:
        return "HumanAgent()"


def observation_table(state: State, obs: dict) -> Table:
    """A rich Table of an observation (as returned by ``State.observation``): one row per zone
    (per seat for per-player zones), then the variables.  Component ids are shown as labels;
    zones the player may not look into show how many components they hold."""
    rs = state.ruleset
    me = obs["player"]
    title = f"{rs.title}: what {seat_name(me)} sees"
    table = Table(title=title, show_header=False, expand=False)
    table.add_column("")
    table.add_column("")
    for name, value in obs["zones"].items():
        decl = rs.zones[name]
        if decl.per_player:
            for seat, sub in enumerate(value):
                who = seat_name(seat) + (" (you)" if seat == me else "")
                table.add_row(Text(f"{name} · {who}"), Text(_zone_text(rs, sub)))
        else:
            table.add_row(Text(name), Text(_zone_text(rs, value)))
    for name, value in obs["vars"].items():
        decl = rs.vars[name]
        if decl.per_player and isinstance(value, list):
            masked = decl.visibility == "owner"  # other seats' values are withheld (None)
            shown = ", ".join(
                f"{seat_name(i)}: {'?' if masked and i != me else _value_text(rs, v)}" for i, v in enumerate(value)
            )
        else:
            shown = _value_text(rs, value)
        table.add_row(Text(name, style="cyan"), Text(shown))
    for cid, props in (obs.get("props") or {}).items():
        shown = ", ".join(f"{k}={_value_text(rs, v)}" for k, v in props.items())
        table.add_row(Text(rs.by_id[cid].label, style="magenta"), Text(shown))
    return table


def _zone_text(rs: Any, z: Any) -> str:
    if isinstance(z, dict):
        n = z.get("count", 0)
        return f"{n} hidden" if n else "empty"
    if z and isinstance(z[0], (list, dict)):
        return "  |  ".join(f"{i + 1}: {_zone_text(rs, sub)}" for i, sub in enumerate(z))
    if not z:
        return "empty"
    # Identical pieces (48 Beer Barrels) are counted, not listed: "Beer Barrel ×48".
    runs: list[list] = []
    for c in z:
        label = rs.by_id[c].label if isinstance(c, str) and c in rs.by_id else str(c)
        if runs and runs[-1][0] == label:
            runs[-1][1] += 1
        else:
            runs.append([label, 1])
    return ", ".join(label if n == 1 else f"{label} ×{n}" for label, n in runs)


def _value_text(rs: Any, v: Any) -> str:
    """An encoded value (see ``state.encode_value``) as text."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ", ".join(_value_text(rs, x) for x in v) + "]"
    if isinstance(v, dict):
        if "c" in v:
            c = rs.by_id.get(v["c"])
            return c.label if c is not None else str(v["c"])
        if "t" in v:
            return "(" + ", ".join(_value_text(rs, x) for x in v["t"]) + ")"
        if "d" in v:
            return "{" + ", ".join(f"{_value_text(rs, k)}: {_value_text(rs, x)}" for k, x in v["d"]) + "}"
    return str(v)


#: Registry of agent names -> (class, one-line description).
AGENTS: dict[str, tuple[type, str]] = {
    "random": (RandomAgent, "uniformly random legal actions (seeded)"),
    "first": (FirstAgent, "always the first legal action"),
    "greedy": (GreedyAgent, "one step ahead on the ruleset's heuristic (default: the score)"),
    "mcts": (MCTSAgent, "UCT with random playouts on determinised worlds (mcts:iterations=1000:c=1.4)"),
    "ismcts": (ISMCTSAgent, "information-set MCTS, a new world each iteration (ismcts:iterations=1000)"),
    "human": (HumanAgent, "a person at the keyboard"),
}


def parse_agent(spec: str) -> tuple[str, dict]:
    """``NAME[:KEY=VALUE[:KEY=VALUE...]]`` -> (name, parameters), each value converted to its
    declared type and checked against its range (:data:`interpreter.search.PARAMS`).

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
