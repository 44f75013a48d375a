"""Playing: ``tapster play`` (one game at the terminal, a replay log), ``replay`` (a log checked
and stepped through as a seat saw it) and ``serve`` (tables in the browser)."""

from __future__ import annotations

import copy
import json
import os
import time
from pathlib import Path
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from ..agents.core import QuitGame, make_agent, parse_agent, seat_name
from ..analysis.simulate import agent_seed
from ..compile.ruleset import Ruleset
from ..errors import IllegalActionError, Mark, TapsterError
from ..limits import (
    MAX_LOG_ACTIONS,
    MAX_NUMBER_CHARS,
    MAX_PLAYERS,
)
from ..loader.load import load_yaml_text
from ..views.takeback import History, news_since
from ..views.takeback import Mark as TakeMark
from ..views.terminal import HotSeat, Narrator, ReplayViewer
from ..views.view import places
from .common import (
    EXIT_FAIL,
    EXIT_OK,
    _agents_opt,
    _check_players,
    _echo_json,
    _fresh_seed,
    _json_opt,
    _load,
    _param_opt,
    _players_opt,
    _seat_agents,
    _seed_opt,
    _stderr,
    _stdout,
    _variant_opt,
    cli,
    read_text_file,
)

# -- play ---------------------------------------------------------------------------------------


#: The ``format`` field of a replay log written by ``play --log``.
LOG_FORMAT = "tapster-log/1"


# -- play ---------------------------------------------------------------------------------------


#: The ``format`` field of a game saved by ``save FILE`` or ``quit`` in ``tapster play``.
SAVE_FORMAT = "tapster-save/1"


class TerminalTable:
    """One game of ``tapster play``: the state, the agents, the actions taken, and what people at
    the terminal may do besides choosing — take back (``undo``), take again (``redo``) and
    ``save FILE`` (:meth:`command`).

    A take-back returns to the seat's last decision (not one taken for them), with every agent's
    move after it, while nothing the seat did not know has been shown to it since
    (:func:`~interpreter.views.takeback.news_since`); after news, only with ``practice``.  The
    account says who took back what (and ``takebacks`` goes into the log)."""

    def __init__(self, rs: Ruleset, st, names: list[str], seat_agents: list, out, seed, variant, params,
                 practice: bool = False):
        self.rs, self.st, self.names, self.agents, self.out = rs, st, names, seat_agents, out
        self.seed, self.variant, self.params, self.practice = seed, variant, params, practice
        self.actions: list[str] = []
        self.takebacks: list[dict] = []
        self.history = History()
        self.narrate: Narrator | None = None

    def _agent_copies(self) -> dict[int, Any]:
        return {p: a for p, a in enumerate(self.agents) if self.names[p] != "human"}

    def mark(self, player: int) -> TakeMark:
        """A snapshot of the table before ``player`` decides."""
        return History.mark(self.st, len(self.actions), self._agent_copies(), player)

    def taken(self, mark: TakeMark, action, auto: bool) -> None:
        """``mark``'s seat took ``action`` (``auto``: taken for them): remember the mark, forget redo."""
        decision = mark.state.decision()
        found = decision.find(str(action)) if decision is not None else None
        label = decision.labels[decision.actions.index(found)] if found is not None and decision.labels else ""
        mark.action, mark.label, mark.auto = str(action), label or str(action), auto
        self.history.done.append(mark)
        self.history.undone.clear()

    def _restore(self, mark: TakeMark) -> None:
        self.st = mark.state.clone()
        del self.actions[mark.actions:]
        for p, agent in mark.agents.items():
            self.agents[p] = copy.deepcopy(agent)
        if self.narrate is not None:
            self.narrate.rewind(self.st)
        for p, name in enumerate(self.names):
            if name == "human":
                self.agents[p].rewind(self.st, p)

    def undo(self, player: int) -> str:
        """Take back ``player``'s last decision, or say why not.

        Raises:
            Rewound: the decision was taken back (the state is the one before it).
        """
        i, why = self.history.target(player)
        if i < 0:
            return f"nothing to take back: {why}"
        target = self.history.done[i]
        news = news_since(target.state, self.actions[target.actions:], self.st, player)
        if news is not None and not self.practice:
            return (f"cannot take back `{target.label}`: {news} (start the game with --practice "
                    "to take back after new information)")
        here = self.mark(player)
        undone = self.actions[target.actions:]
        here.redo_marks, here.redo_actions = self.history.done[i:], list(self.actions)
        self.history.undone.append(here)
        del self.history.done[i:]
        self._restore(target)
        others = len(undone) - 1
        line = (f"{seat_name(player)} took back: {target.label}" + (f" (and {others} move{'s' * (others > 1)} after it)" if others else "")
                + (f" after news: {news}" if news else ""))
        self.takebacks.append({"seat": player, "at": target.actions, "undone": undone, "after_news": news is not None})
        raise Rewound(line)

    def redo(self, player: int) -> str:
        """Take again what ``player`` last took back (nothing else played since), or say why not.

        Raises:
            Rewound: the table is back where the take-back was asked.
        """
        if not self.history.undone or self.history.undone[-1].player != player:
            return "nothing to redo: nothing was taken back since the last move"
        again = self.history.undone.pop()
        self.history.done.extend(again.redo_marks)
        self._restore(again)
        self.actions[:] = again.redo_actions
        self.takebacks.append({"seat": player, "at": len(self.actions), "redone": True})
        raise Rewound(f"{seat_name(player)} took it again: " + ", ".join(m.label for m in again.redo_marks if m.player == player))

    def command(self, answer: str, state, player: int) -> str | None:
        """The table's commands at a person's decision: ``undo``, ``redo``, ``save FILE``; None
        for any other answer."""
        words = answer.split(maxsplit=1)
        if not words:
            return None
        word = words[0].lower()
        if word == "undo" and len(words) == 1:
            return self.undo(player)
        if word == "redo" and len(words) == 1:
            return self.redo(player)
        if word == "save":
            if len(words) == 1:
                return "save FILE: give the file to save the game to"
            try:
                self.save(words[1].strip())
            except TapsterError as exc:
                return f"not saved: {exc.message}"
            return f"game saved to {words[1].strip()}; `tapster play --resume {words[1].strip()}` continues it"
        return None

    def saved(self) -> dict:
        """The saved game: the state JSON the API writes (``State.to_json``) and what play needs
        to continue it — the ruleset, seats, agents and their generators, seed, every action."""
        rngs = [getattr(getattr(a, "rng", None), "state", None) for a in self.agents]
        return {
            "format": SAVE_FORMAT,
            "ruleset": self.rs.name,
            "path": None,  # filled in by save(): relative to the file's folder, as a log's
            "ruleset_sha256": _sha256(self.rs.path),
            "variant": self.variant,
            "params": self.params or {},
            "players": self.st.num_players,
            "seed": self.seed,
            "agents": self.names,
            "agent_rngs": rngs,
            "practice": self.practice,
            "actions": self.actions,
            "takebacks": self.takebacks,
            "state": self.st.to_json(),
        }

    def save(self, path: str) -> None:
        """Write :meth:`saved` to ``path``.

        Raises:
            TapsterError: the file cannot be written.
        """
        data = self.saved()
        data["path"] = _relative_to(Path(self.rs.path).resolve(), Path(path).resolve().parent)
        try:
            Path(path).write_text(json.dumps(data, default=str) + "\n", encoding="utf-8")
        except OSError as exc:
            raise TapsterError(f"cannot write {path}: {exc.strerror or exc}") from None


class Rewound(Exception):
    """A take-back or a redo changed the table: the decision being asked is no longer pending."""


def _quit_file(rs: Ruleset) -> str:
    """A new file name in the current folder for a game saved by ``quit``."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    name = f"tapster-{rs.name}-{stamp}.json"
    k = 2
    while Path(name).exists():
        name = f"tapster-{rs.name}-{stamp}-{k}.json"
        k += 1
    return name


def _read_save(path: str) -> dict:
    """The data of a game saved by ``tapster play`` (``save FILE`` or ``quit``).

    Raises:
        TapsterError: not a saved game.
    """
    text = read_text_file(path, "saved game")
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError, ValueError):
        raise TapsterError("not a saved game (not JSON)", Mark(path, 1, 1)) from None
    if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
        raise TapsterError(f"not a saved game of `tapster play` (format {SAVE_FORMAT})", Mark(path, 1, 1))
    checks = {"ruleset": str, "players": int, "seed": (int, str), "agents": list, "actions": list, "state": dict}
    for key, types in checks.items():
        if isinstance(data.get(key), bool) or not isinstance(data.get(key), types):
            raise TapsterError(f"the saved game's `{key}` is missing or malformed", Mark(path, 1, 1))
    if not all(isinstance(a, str) for a in data["agents"] + data["actions"]):
        raise TapsterError("the saved game's agents and actions must be texts", Mark(path, 1, 1))
    if len(data["actions"]) > MAX_LOG_ACTIONS or not 1 <= data["players"] <= MAX_PLAYERS:
        raise TapsterError("the saved game is beyond the limits", Mark(path, 1, 1))
    return data


@cli.command(short_help="Play one game, turn by turn.")
@click.argument("ruleset", metavar="RULESET", required=False)
@_players_opt
@_variant_opt
@_seed_opt
@_agents_opt
@click.option("--log", "log_file", type=click.Path(dir_okay=False), help="Write a JSON replay log to FILE.")
@_json_opt
@_param_opt
@click.option("--resume", "resume", type=click.Path(dir_okay=False), metavar="FILE",
              help="Continue a game saved with `save FILE` or `quit` (same seats, agents and seed).")
@click.option("--practice", is_flag=True,
              help="Allow `undo` after new information (a drawn card, a die): for practice, not for a real game.")
@click.option("--ask-always", is_flag=True, help="Ask even a decision with one legal option (default: taken for you).")
def play(ruleset, players, variant, seed, agents, log_file, as_json, params, resume, practice, ask_always) -> int:
    """Play one game and print it turn by turn, then the scores.

    With a human among the agents, only what that human may see is printed.  --json prints
    only the outcome (scores, winners, ranking, reason, seed, players, variant).  At a person's
    decision: `undo` takes it back (and the agents' moves after it), `redo` takes it again,
    `save FILE` saves the game, `quit` saves it to a file it names and leaves;
    --resume FILE continues a saved game.
    """
    saved = None
    if resume is not None:
        ctx = click.get_current_context()
        given = [name for name in ("ruleset", "players", "variant", "seed", "agents", "params")
                 if ctx.get_parameter_source(name) not in (None, click.core.ParameterSource.DEFAULT)]
        if ruleset is not None or given:
            raise click.UsageError("--resume continues a saved game as it was: give no RULESET, --players, --variant, "
                                   "--seed, --agents or --param with it")
        saved = _read_save(resume)
        source = _log_ruleset(resume, saved)  # its path relative to the file (never an absolute one), else its name
        rs = _load(source, saved.get("variant"), saved.get("params") or None)
        if saved.get("ruleset_sha256") and _sha256(rs.path) != saved["ruleset_sha256"]:
            raise TapsterError(f"the ruleset {rs.path} has changed since the game was saved: it cannot be continued")
        variant, params, n, seed, names = saved.get("variant"), saved.get("params"), saved["players"], saved["seed"], saved["agents"]
        practice = practice or bool(saved.get("practice"))
        for name in names:
            parse_agent(name)
    else:
        if ruleset is None:
            raise click.UsageError("Missing argument 'RULESET' (or --resume FILE).")
        rs = _load(ruleset, variant, params)
        n = _check_players(rs, players)
        names = _seat_agents(agents, n)
        seed = _fresh_seed() if seed is None else seed
    out = _stderr() if as_json else _stdout()
    humans = [p for p, name in enumerate(names) if name == "human"]
    hot_seat = HotSeat(out) if len(humans) > 1 else None  # several people at one terminal
    table: TerminalTable | None = None
    options = {"human": {"console": out, "hot_seat": hot_seat, "auto_single": not ask_always,
                         "commands": lambda answer, state, p: table.command(answer, state, p)}}
    seat_agents = [make_agent(name, agent_seed(seed, p), **options.get(name.split(":")[0], {})) for p, name in enumerate(names)]

    st = rs.new_game(n, seed=seed, log=True)
    table = TerminalTable(rs, st, names, seat_agents, out, seed, variant, params, practice)
    if saved is not None:
        try:
            for text in saved["actions"]:
                p = st.current_players()[0]
                here = table.mark(p) if names[p] == "human" else None
                st.apply(text)
                table.actions.append(text)
                if here is not None:
                    table.taken(here, text, False)
        except IllegalActionError as exc:
            raise TapsterError(f"{resume}: the saved actions do not replay: {exc.message}") from None
        if json.loads(json.dumps(st.to_json(), default=str)) != saved["state"]:
            raise TapsterError(f"{resume}: the saved actions do not lead to the saved state (another version of the ruleset?)")
        for p, state in enumerate(saved.get("agent_rngs") or []):
            rng = getattr(seat_agents[p], "rng", None) if p < len(seat_agents) else None
            if rng is not None and type(state) is int and state >= 0:
                rng.state = state
        table.takebacks = [t for t in saved.get("takebacks") or [] if isinstance(t, dict)]
    narrate = Narrator(st, out, seat_agents, humans, quiet=as_json, hot_seat=hot_seat)
    table.narrate = narrate
    if saved is not None:
        narrate.rewind(st)
        for p in humans:
            seat_agents[p].rewind(st, p)
    if not as_json:
        who = ", ".join(f"{seat_name(p)} {name}" for p, name in enumerate(names))
        out.print(Text(f"{rs.title}{' (' + rs.variant + ')' if rs.variant else ''}: {n} players ({who}), seed {seed}",
                       style="bold"))
        if saved is not None:
            out.print(Text(f"resumed from {resume} after {len(table.actions)} actions", style="bold"))
        elif click.get_current_context().get_parameter_source("agents") == click.core.ParameterSource.DEFAULT:
            out.print(Text(f"Agents play every seat. To take a seat yourself: tapster play {ruleset} --agents human,random",
                           style="dim"))
    try:
        while not table.st.is_terminal():
            narrate()
            st = table.st
            p = st.current_players()[0]
            here = table.mark(p) if names[p] == "human" else None
            try:
                action = table.agents[p].act(st, p)
            except Rewound as exc:
                out.print(Text(str(exc), style="bold yellow"))
                continue
            st.apply(action)
            table.actions.append(str(action))
            if here is not None:
                table.taken(here, action, bool(getattr(table.agents[p], "last_auto", False)))
            rs.check_length(st, len(table.actions))
        if hot_seat is not None:
            hot_seat.release()  # the last seat's view goes before the scores
        narrate()
    except QuitGame as exc:
        if exc.asked:
            path = _quit_file(rs)
            table.save(path)
            click.echo(f"game saved to {path}: `tapster play --resume {path}` continues it", err=True)
        click.echo(f"game abandoned after {len(table.actions)} actions: {exc}", err=True)
        return EXIT_FAIL
    except IllegalActionError as exc:
        raise TapsterError(f"an agent chose an illegal action: {exc.message}") from None

    st = table.st
    actions = table.actions
    outcome = st.outcome()
    if log_file:
        _write_log(log_file, rs, variant, params, n, seed, names, actions, outcome.to_json(), table.takebacks)
    if as_json:
        _echo_json({
            **outcome.to_json(), "ruleset": rs.name, "variant": rs.variant, "players": n, "seed": seed,
            "agents": names, "actions": len(actions),
        })  # fmt: skip
        return EXIT_OK
    out.print(_score_table(rs, names, outcome))
    out.print(Text(f"Game over: {outcome.reason}." + ("" if outcome.winners else " No winner."), style="bold"))
    if log_file:
        out.print(Text(f"replay log written to {log_file}", style="dim"))
    return EXIT_OK


def _score_table(rs: Ruleset, names: list[str], outcome) -> Table:
    table = Table(title=f"{rs.title}: final scores")
    table.add_column("seat")
    table.add_column("agent")
    table.add_column("score", justify="right")
    table.add_column("place", justify="right")
    table.add_column("winner", justify="center")
    # Seats that nothing separates share a place (1, 1, 3, ...): the numbering of the views.
    place = {p: n for n, seats, _ in places(outcome.to_json(), bool(rs.tiebreaks)) for p in seats}
    for p, name in enumerate(names):
        mark = "★" if p in outcome.winners else ""
        table.add_row(seat_name(p), name, Text(str(outcome.scores[p])), str(place[p]), mark)
    return table


def _write_log(path: str, rs: Ruleset, variant, params, n, seed, names, actions, outcome: dict,
               takebacks: list | None = None) -> None:
    if len(actions) > MAX_LOG_ACTIONS:
        raise TapsterError(f"the game took {len(actions)} actions; a replay log holds at most {MAX_LOG_ACTIONS} "
                           "(the limit): the log was not written")
    data = {
        "format": LOG_FORMAT,
        "ruleset": rs.name,
        "path": _relative_to(Path(rs.path).resolve(), Path(path).resolve().parent),
        "ruleset_sha256": _sha256(rs.path),
        "variant": variant,
        "params": params or {},
        "players": n,
        "seed": seed,
        "agents": names,
        "actions": actions,
        "outcome": outcome,
    }
    if takebacks:
        data["takebacks"] = takebacks  # who took back what (issue 48); replay reads only the actions
    try:
        Path(path).write_text(json.dumps(data, indent=1, default=str) + "\n", encoding="utf-8")
    except OSError as exc:
        raise TapsterError(f"cannot write the log {path}: {exc.strerror or exc}") from None


# -- replay -------------------------------------------------------------------------------------


@cli.command(short_help="Check that a game log replays to the same outcome; step through it as a seat saw it.")
@click.argument("log_file", metavar="LOG", type=click.Path(dir_okay=False))
@click.option("--seat", type=click.IntRange(1, MAX_PLAYERS), metavar="P",
              help="Step through the game as seat P (1 is P1) saw it: only what P could see.")
@click.option("--all", "observer", is_flag=True, help="Step through the game as an observer who sees everything.")
@click.option("--no-pause", is_flag=True, help="With --seat or --all, print every step without waiting for Enter.")
@click.option("--serve", "serve_it", is_flag=True,
              help="Open the browser's replay viewer for the log (step forward and back, jump) at --host:--port.")
@click.option("--host", default="127.0.0.1", show_default=True, help="With --serve: the address to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True, help="With --serve: the port.")
def replay(log_file, seat, observer, no_pause, serve_it, host, port) -> int:
    """Replay a log written by `play --log`: every action must be legal and the final outcome
    must equal the logged one.  Prints OK, or the first mismatch with its action index.

    With --seat P, each step shows what seat P saw (their view, the lines they could read, their
    own actions); with --all, the omniscient account.  Enter steps, q stops; --no-pause (or
    input that is not a terminal) prints every step.  --serve then opens the browser's replay
    viewer for the log (the game is over: everything may be shown)."""
    if seat is not None and observer:
        raise click.UsageError("--seat and --all are alternatives: give one")
    data = _read_log(log_file)
    source = _log_ruleset(log_file, data)
    rs = _load(source, data.get("variant"), data.get("params") or None)
    if data.get("ruleset_sha256") and _sha256(rs.path) != data["ruleset_sha256"]:
        click.echo(f"{log_file}: the ruleset {rs.path} has changed since the log was written "
                   "(its text's SHA-256 differs); the replay may not reproduce the game", err=True)
    viewing = seat is not None or observer
    st = rs.new_game(data["players"], seed=data["seed"], log=viewing)
    actions = data["actions"]
    viewer = None
    if viewing:
        out = _stdout()
        pause = not no_pause and click.get_text_stream("stdin").isatty()
        viewer = ReplayViewer(st, None if observer else seat - 1, out, (lambda prompt: out.input(prompt)) if pause else None)
        viewer.start(len(actions))
    for i, text in enumerate(actions):
        if viewer is not None and viewer.stopped:
            click.echo(f"stopped after {i} of {len(actions)} actions")
            return EXIT_OK
        try:
            if viewer is not None:
                viewer.step(i, str(text))
            else:
                st.apply(str(text))
        except IllegalActionError as exc:
            where = _log_mark(log_file, ("actions", i))
            click.echo(f"{where}: action {i} `{text}`: {exc.message}", err=True)
            click.echo(f"MISMATCH at action {i}", err=True)
            return EXIT_FAIL
    if not st.is_terminal():
        where = _log_mark(log_file, ("actions",))
        click.echo(f"{where}: the log ends after {len(actions)} actions but the game has not ended "
                   f"(deciding: {', '.join(seat_name(p) for p in st.current_players())})", err=True)
        click.echo(f"MISMATCH at action {len(actions)}", err=True)
        return EXIT_FAIL
    got = json.loads(json.dumps(st.outcome().to_json(), default=str))
    want = data.get("outcome")
    if got != want:
        differs = [k for k in got if not isinstance(want, dict) or want.get(k) != got[k]]
        where = _log_mark(log_file, ("outcome", differs[0]) if differs and isinstance(want, dict) else ("outcome",))
        click.echo(f"{where}: the outcome differs: logged {json.dumps(want)}, replayed {json.dumps(got)}", err=True)
        click.echo(f"MISMATCH at action {len(actions) - 1} (the end)", err=True)
        return EXIT_FAIL
    click.echo(f"OK: {len(actions)} actions replayed; outcome {json.dumps(got)}")
    if serve_it:
        from ..web.playtest import serve_log
        from ..web.server import require_web

        require_web()
        click.echo(f"the replay viewer: http://{host}:{port}/ (ctrl-C stops)")
        serve_log(rs, data, host, port)
    return EXIT_OK


def _sha256(path) -> str | None:
    import hashlib

    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _relative_to(target: Path, folder: Path) -> str:
    """``target`` as a path relative to ``folder`` (with ``..`` where needed)."""

    try:
        return os.path.relpath(target, folder)
    except ValueError:  # another drive
        return target.name


def _log_ruleset(log_file: str, data: dict) -> str:
    """Where a log's ruleset is: its ``path`` relative to the log's folder when that file
    exists (an absolute path, from another machine, is never followed), else its name."""
    rel = data.get("path")
    if isinstance(rel, str) and rel and not Path(rel).is_absolute():
        cand = Path(log_file).resolve().parent / rel
        if cand.is_file():
            return str(cand)
    return data["ruleset"]


def _read_log_text(path: str) -> str:
    """The text of a replay log (see :func:`read_text_file`)."""
    return read_text_file(path, "log")



def _read_log(path: str) -> dict:
    """The data of a replay log, checked against ``schemas/log.schema.json``.

    Raises:
        TapsterError: not a regular file, too large, not JSON, nested too deeply, or not of the
            log format (with file:line:col).
    """
    text = _read_log_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TapsterError(f"not a JSON replay log: {exc.msg}", Mark(path, exc.lineno, exc.colno)) from None
    except (RecursionError, ValueError) as exc:
        if isinstance(exc, RecursionError):
            why = "nested too deeply"
        elif "integer string conversion" in str(exc):
            why = f"a number in it is longer than {MAX_NUMBER_CHARS} digits"
        else:
            why = str(exc)
        raise TapsterError(f"not a replay log: {why}", Mark(path, 1, 1)) from None
    if isinstance(data, dict):
        _check_log_schema(path, data)
    if not isinstance(data, dict):
        raise TapsterError("a replay log is a JSON object (written by `tapster play --log`)", Mark(path, 1, 1))
    for key in ("ruleset", "players", "seed", "actions", "outcome"):
        if key not in data:
            raise TapsterError(f"the log has no `{key}` (written by `tapster play --log`?)", Mark(path, 1, 1))
    expected = {
        "ruleset": (str, "a ruleset name"),
        "players": (int, "a whole number"),
        "seed": ((int, str), "a whole number or a text"),
        "actions": (list, "a list of action texts"),
        "variant": ((str, type(None)), "a variant name or null"),
        "params": ((dict, type(None)), "an object of parameter values or null"),
        "path": ((str, type(None)), "a file path or null"),
    }
    for key, (types, what) in expected.items():
        value = data.get(key)
        if isinstance(value, bool) or not isinstance(value, types):
            if key in data or not isinstance(None, types):
                raise TapsterError(f"`{key}` must be {what}, found {json.dumps(value)}", _log_mark(path, (key,)))
    return data


def _check_log_schema(path: str, data: dict) -> None:
    """Raise the first problem of ``data`` against the published log schema, at its place."""
    from jsonschema import Draft202012Validator

    from ..loader.schema import _data_dir

    schema = json.loads((_data_dir("schemas") / "log.schema.json").read_text(encoding="utf-8"))
    try:
        errors = sorted(Draft202012Validator(schema).iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    except RecursionError:
        raise TapsterError("not a replay log: nested too deeply", Mark(path, 1, 1)) from None
    if errors:
        err = errors[0]
        where = "/".join(str(p) for p in err.absolute_path) or "the log"
        message = err.message if len(err.message) < 300 else err.message[:300] + "..."
        if err.validator == "const" and list(err.absolute_path) == ["format"]:
            message = f"the log's format is not {LOG_FORMAT} (written by another program or version)"
        raise TapsterError(f"{message} (at {where})", _log_mark(path, tuple(err.absolute_path)))


def _log_mark(path: str, where: tuple) -> Mark:
    """The place of ``where`` in the JSON log ``path`` (JSON is YAML, whose loader keeps marks)."""
    try:
        return load_yaml_text(_read_log_text(path), path).mark(where)
    except (TapsterError, OSError, UnicodeDecodeError, RecursionError, ValueError):
        return Mark(path, 1, 1)


# -- simulate -----------------------------------------------------------------------------------


# -- serve (issue 19: the browser table) --------------------------------------------------------


@cli.command(short_help="Serve tables to play in the browser.")
@click.argument("ruleset", metavar="[RULESET]", required=False)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (0.0.0.0: every network).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True, help="Port to listen on.")
@click.option("--db", "db", default="tapster-tables.sqlite", show_default=True, type=click.Path(dir_okay=False),
              help="The SQLite file keeping the tables (restored on start; created readable by its owner only).")
@click.option("--max-agent-seconds", type=click.FloatRange(0.1, 3600), default=3.0, show_default=True,
              help="The longest an agent may think a move: a deadline every agent move keeps, whatever its iterations.")
@click.option("--max-agent-iterations", type=click.IntRange(1, 10_000_000), default=5000, show_default=True,
              help="The most iterations an agent may ask for a move (mcts:iterations=...).")
@click.option("--agent-workers", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Threads moving agents (apart from those answering requests).")
@click.option("--tables-per-client", type=click.IntRange(1, 100_000), default=20, show_default=True,
              help="Live tables one client address may hold.")
@click.option("--creations-per-hour", type=click.IntRange(1, 100_000), default=60, show_default=True,
              help="Tables one client address may create in an hour.")
@click.option("--finished-hours", type=click.FloatRange(0.01, 1e6), default=24.0, show_default=True,
              help="Hours after which a finished table is deleted.")
@click.option("--idle-hours", type=click.FloatRange(0.01, 1e6), default=168.0, show_default=True,
              help="Hours after which a table nobody moved at is deleted.")
@click.option("--max-connections", type=click.IntRange(1, 100_000), default=200, show_default=True,
              help="Open connections served at once (more are closed at once).")
@click.option("--connections-per-client", type=click.IntRange(1, 100_000), default=64, show_default=True,
              help="Open connections from one client address (behind a proxy: set it to --max-connections).")
@click.option("--request-timeout", type=click.FloatRange(0.5, 3600), default=10.0, show_default=True,
              help="Seconds a connection may take to send a whole request (half-open ones are closed then).")
@click.option("--idle-per-client", type=click.IntRange(1, 100_000), default=8, show_default=True,
              help="Half-open or idle connections one client address may keep (a new one closes its oldest).")
@click.option("--streams-per-client", type=click.IntRange(1, 100_000), default=16, show_default=True,
              help="Live-update streams (one a seat's open page) one client address may hold.")
@click.option("--max-streams", type=click.IntRange(0, 100_000), default=None,
              help="Live-update streams in all [default: half of --max-connections; at most three quarters of it].")
@click.option("--stream-seconds", type=click.FloatRange(5, 86_400), default=300.0, show_default=True,
              help="Lifetime of a live-update stream (the page then reconnects).")
@click.option("--max-tables", type=click.IntRange(1, 10_000_000), default=10_000, show_default=True,
              help="Live tables in all.")
@click.option("--tables-per-network", type=click.IntRange(1, 10_000_000), default=100, show_default=True,
              help="Live tables one network (IPv4 /24, IPv6 /48) may hold.")
@click.option("--refusal-seconds", type=click.FloatRange(0.01, 3600), default=2.0, show_default=True,
              help="Server CPU seconds one client's refused table requests may use in an hour (then 429).")
@click.option("--allowed-host", "allowed_hosts", multiple=True, metavar="NAME",
              help="A Host name the server answers to (repeatable; default: the loopback names on 127.0.0.1, any otherwise).")
@click.option("--trusted-proxy", "proxies", multiple=True, metavar="ADDRESS",
              help="A reverse proxy's address whose X-Forwarded-For and X-Forwarded-Proto are believed (repeatable; default: none).")
@click.option("--allowed-origin", "origins", multiple=True, metavar="URL",
              help="Another origin (https://example.org) whose pages may POST here (repeatable; default: none).")
def serve(ruleset, host, port, db, max_agent_seconds, max_agent_iterations, agent_workers, tables_per_client,
          creations_per_hour, finished_hours, idle_hours, max_connections, connections_per_client, request_timeout,
          idle_per_client, streams_per_client, max_streams, stream_seconds, max_tables, tables_per_network, refusal_seconds,
          allowed_hosts, proxies, origins) -> int:
    """Serve a web page where players create a table and play it from their browsers, each
    seat through its own secret link (only RULESET's tables, or any shipped ruleset's).
    See docs/security.md for the limits and serving beyond one machine.

    Needs the web extra: pip install 'tapster[web]'.
    """
    from ..web.server import Limits
    from ..web.server import serve as run_server

    limits = Limits(max_agent_seconds=max_agent_seconds, max_agent_iterations=max_agent_iterations, agent_workers=agent_workers,
                    tables_per_client=tables_per_client, creations_per_hour=creations_per_hour,
                    finished_ttl=finished_hours * 3600, idle_ttl=idle_hours * 3600, max_connections=max_connections,
                    request_timeout=request_timeout, connections_per_client=connections_per_client,
                    idle_per_client=idle_per_client, streams_per_client=streams_per_client, max_streams=max_streams,
                    stream_seconds=stream_seconds, max_tables=max_tables, tables_per_network=tables_per_network,
                    refusal_seconds=refusal_seconds)
    run_server(ruleset, host, port, db, limits, list(allowed_hosts) or None, tuple(origins), tuple(proxies))
    return EXIT_OK
