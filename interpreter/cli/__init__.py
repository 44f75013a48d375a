"""The driver: ``tapster play|simulate|analyse|compare|tune|replay|info|validate|test|check|perft|serve``.

``main(argv) -> int`` runs one command in-process and returns its exit code: 0 success, 1 a
failure (an invalid ruleset, a failed scenario, a replay mismatch, an illegal action, a game
abandoned), 2 a usage error (unknown option, missing argument, bad option value).  A user's
mistake is printed to stderr as ``file:line:col: message`` lines, never as a traceback.

RULESET arguments are a path (a ``ruleset.yaml`` or its folder) or a bare name under the
installed ``rulesets/`` folder (``beer_flights``).  Seats are called P1, P2... in text output and
numbered from 0 in JSON output (``winners: [0]`` is P1).
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
import sys
import time
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from ..agents.core import AGENTS, QuitGame, make_agent, parse_agent, seat_name
from ..analysis.check import BUDGET as CHECK_BUDGET
from ..analysis.check import CHECKS, run_check
from ..analysis.scenarios import run_scenarios
from ..analysis.simulate import DRAW_NOTE, SHARED_WIN_NOTE, SimSpec, Summary, agent_seed, game_seed, perft, remember_ruleset, run_games
from ..compile.compiler import RulesetErrors, available_rulesets, find_ruleset, load_ruleset
from ..compile.facts import enumerate_tree
from ..compile.lint import warnings as lint_warnings
from ..compile.ruleset import Ruleset
from ..engine.state import State
from ..errors import IllegalActionError, Mark, SchemaError, TapsterError, close_matches
from ..interop.encoding import describe_encoding, has_chance
from ..limits import (
    MAX_GAMES,
    MAX_JOBS,
    MAX_LOG_ACTIONS,
    MAX_LOG_BYTES,
    MAX_NUMBER_CHARS,
    MAX_PARAM_TEXT,
    MAX_PLAYERS,
    MAX_SEED,
    MAX_VARIANTS,
)
from ..limits import MAX_PERFT_DEPTH as MAX_DEPTH
from ..loader.load import load_yaml, load_yaml_text
from ..views.terminal import HotSeat, Narrator, ReplayViewer, endings, phases

__all__ = ["main", "cli", "game_seed", "agent_seed", "perft", "LOG_FORMAT"]

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130  # Ctrl-C, as shells report it

#: The ``format`` field of a replay log written by ``play --log``.
LOG_FORMAT = "tapster-log/1"


def main(argv: list[str] | None = None) -> int:
    """Run the ``tapster`` command line with ``argv`` (``sys.argv[1:]`` when None); return the
    exit code (0 success, 1 failure, 2 usage error, 130 interrupted by Ctrl-C, as shells count
    SIGINT).  Never raises for a user's mistake."""
    try:
        rv = cli.main(args=argv, prog_name="tapster", standalone_mode=False)
    except click.ClickException as exc:  # UsageError, BadParameter: exit code 2
        exc.show()
        return exc.exit_code
    except click.exceptions.Abort:  # Ctrl-C (or end of input at a prompt) outside a game loop
        click.echo("interrupted", err=True)
        return EXIT_INTERRUPTED
    except TapsterError as exc:
        print_error(exc)
        return EXIT_FAIL
    except Exception as exc:
        # Ctrl-C inside an import (matplotlib's, loaded when a report starts) reaches us wrapped
        # in another error (Python's "Error calling __set_name__"): it is still an interrupt.
        if _interrupted(exc):
            click.echo("interrupted", err=True)
            return EXIT_INTERRUPTED
        raise
    return rv if isinstance(rv, int) else EXIT_OK


def _interrupted(exc: BaseException) -> bool:
    """True when ``exc`` was caused by a KeyboardInterrupt (Ctrl-C), however deep."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def print_error(exc: TapsterError, suffix: str = "") -> None:
    """Print ``exc`` to stderr: every problem of a :class:`RulesetErrors` on its own line, each
    starting with ``file:line:col:`` when the problem has a place."""
    errors = exc.errors if isinstance(exc, RulesetErrors) else [exc]
    for e in errors:
        text = str(e)
        if e.mark is None:
            text = "error: " + text
        click.echo(text + suffix, err=True)


# ---------------------------------------------------------------------------------------------
# Seeds: everything a game draws derives from --seed, so a game is reproducible.


def _fresh_seed() -> int:
    # Only picks a seed when none is given (it is printed, so the game can be reproduced);
    # the game's chance still comes from the state's generator seeded with it.
    return secrets.randbelow(1 << 31)


# ---------------------------------------------------------------------------------------------
# Shared options


def _small_numbers(value: Any, depth: int = 0) -> bool:
    """Every number in ``value`` is finite and within ±2**63."""
    if depth > 32:
        return False
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return True
    if isinstance(value, int):
        return -(2**63) <= value < 2**63
    if isinstance(value, float):
        return value == value and abs(value) != float("inf")
    if isinstance(value, dict):
        return all(_small_numbers(k, depth + 1) and _small_numbers(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return all(_small_numbers(v, depth + 1) for v in value)
    return True


def _parse_params(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> dict:
    out: dict[str, Any] = {}
    for item in values:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise click.BadParameter(f"{item!r} is not NAME=VALUE (e.g. turns=5)")
        if len(text) > MAX_PARAM_TEXT:
            raise click.BadParameter(f"the value of {name} is {len(text)} characters long; the limit is {MAX_PARAM_TEXT}")
        try:  # read as a ruleset is (no tags, no recursive aliases, dates stay text)
            value = load_yaml_text(text, f"--param {name}").data
        except TapsterError as exc:
            raise click.BadParameter(f"the value of {name} is not plain YAML: {exc.message}") from None
        except (ValueError, OverflowError) as exc:  # a number too long to read
            raise click.BadParameter(f"the value of {name} cannot be read: {exc}") from None
        if not _small_numbers(value):
            raise click.BadParameter(f"the value of {name} holds a number beyond ±2**63 (or not finite)")
        out[name] = value
    return out


def _parse_agents(ctx: click.Context, param: click.Parameter, value: str | None) -> list[str]:
    if value is None:
        return ["random"]
    names = [n.strip() for n in value.split(",")]
    for n in names:
        try:
            name, _ = parse_agent(n)
        except TapsterError as exc:
            raise click.BadParameter(exc.message) from None
        if name == "human" and ctx.command.name != "play":
            raise click.BadParameter(f"{ctx.command.name} plays without people: agents are {', '.join(_AUTO_AGENTS)}")
    return names


#: The agents that play without a person (every command but `play` takes only these).
_AUTO_AGENTS = [a for a in AGENTS if a != "human"]


_ruleset_arg = click.argument("ruleset", metavar="RULESET")
_players_opt = click.option(
    "--players", "-p", type=click.IntRange(1, MAX_PLAYERS), help="Number of players (default: the ruleset's)."
)
_variant_opt = click.option(
    "--variant", "-v", metavar="V", multiple=True, callback=lambda ctx, param, values: ",".join(values) or None,
    help="Use a variant of the ruleset (see `tapster info`); `a,b` or a repeated --variant applies a, then b.",
)  # fmt: skip
_seed_opt = click.option("--seed", "-s", type=click.IntRange(0, MAX_SEED),
                         help="Seed of all chance, 0 to 2**64 - 1 (default: a fresh one, printed).")
_param_opt = click.option(
    "--param", "params", multiple=True, metavar="NAME=VALUE", callback=_parse_params,
    help="Override a parameter of the ruleset (value read as YAML, e.g. turns=5). Repeatable.",
)  # fmt: skip
_agents_opt = click.option(
    "--agents", "-a", callback=_parse_agents, metavar="A,B,...",
    help=f"Agents by seat, comma-separated ({', '.join(AGENTS)}), parameters after colons "
         "(mcts:iterations=500:c=1.4); the last one repeats. Default: random.",
)  # fmt: skip
_auto_agents_opt = click.option(
    "--agents", "-a", callback=_parse_agents, metavar="A,B,...",
    help=f"Agents by seat, comma-separated ({', '.join(_AUTO_AGENTS)}; no person plays here), parameters after "
         "colons (mcts:iterations=500:c=1.4); the last one repeats. Default: random.",
)  # fmt: skip
_json_opt = click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")


def _load(ruleset: str, variant: str | None, params: dict | None = None) -> Ruleset:
    """Load ``ruleset`` with ``variant`` and parameter overrides.

    Raises:
        TapsterError: the ruleset does not load, the variant or a parameter does not exist.
    """
    rs = load_ruleset(ruleset, variant)
    if not params:
        return rs
    for name in params:
        if name not in rs.params:

            close = close_matches(name, list(rs.params), n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            known = ", ".join(rs.params) or "none"
            raise TapsterError(f"{rs.title} has no parameter {name!r}; {hint}parameters: {known}")
    return load_ruleset(ruleset, variant, {"params": params})


def _seat_agents(names: list[str], n: int) -> list[str]:
    """``names`` stretched to ``n`` seats (the last repeats).

    Raises:
        click.BadParameter: more agents than seats.
    """
    if len(names) > n:
        raise click.BadParameter(f"{len(names)} agents for {n} players", param_hint="--agents")
    return names + [names[-1]] * (n - len(names))


def _check_players(rs: Ruleset, players: int | None) -> int:
    n = rs.default_players if players is None else players
    if not rs.min_players <= n <= rs.max_players:
        span = f"{rs.min_players}" if rs.min_players == rs.max_players else f"{rs.min_players} to {rs.max_players}"
        raise TapsterError(f"{rs.title}{' (' + rs.variant + ')' if rs.variant else ''} is for {span} players, not {n}")
    return n


def _stdout() -> Console:
    return Console(highlight=False)


def _stderr() -> Console:
    return Console(stderr=True, highlight=False)


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, default=str))


def _above(progress: Progress, line: str | Text, err: bool = True) -> None:
    """Print ``line`` (plain text, or a styled Text) to stderr, or to stdout with ``err=False``;
    while ``progress``'s bar is drawn on the terminal, a line for the terminal goes above it."""
    text = Text(line) if isinstance(line, str) else line
    if err or (progress.live.is_started and sys.stdout.isatty()):
        progress.console.print(text, soft_wrap=True)
    else:
        _stdout().print(text, soft_wrap=True)


def _progress(as_json: bool) -> Progress:
    """A progress bar on stderr, off with --json and when stderr is not a terminal (a pipe, CI).
    Output is not redirected through it: print with :func:`_above`, so that stdout sent to a
    file stays in the file."""
    err = _stderr()
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=err, transient=True, disable=as_json or not err.is_terminal,
                    redirect_stdout=False, redirect_stderr=False)


# ---------------------------------------------------------------------------------------------
# The command group


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tapster", prog_name="tapster", message="%(prog)s %(version)s")
def cli() -> None:
    """Tapster: play, simulate, replay, check and test tabletop games written as YAML rulesets.

    RULESET is a path to a ruleset.yaml (or its folder) or the name of a shipped ruleset.
    """


# -- play ---------------------------------------------------------------------------------------


@cli.command(short_help="Play one game, turn by turn.")
@_ruleset_arg
@_players_opt
@_variant_opt
@_seed_opt
@_agents_opt
@click.option("--log", "log_file", type=click.Path(dir_okay=False), help="Write a JSON replay log to FILE.")
@_json_opt
@_param_opt
def play(ruleset, players, variant, seed, agents, log_file, as_json, params) -> int:
    """Play one game and print it turn by turn, then the scores.

    With a human among the agents, only what that human may see is printed.  --json prints
    only the outcome (scores, winners, ranking, reason, seed, players, variant).
    """
    rs = _load(ruleset, variant, params)
    n = _check_players(rs, players)
    names = _seat_agents(agents, n)
    seed = _fresh_seed() if seed is None else seed
    out = _stderr() if as_json else _stdout()
    humans = [p for p, name in enumerate(names) if name == "human"]
    hot_seat = HotSeat(out) if len(humans) > 1 else None  # several people at one terminal
    options = {"human": {"console": out, "hot_seat": hot_seat}}
    seat_agents = [make_agent(name, agent_seed(seed, p), **options.get(name, {})) for p, name in enumerate(names)]

    st = rs.new_game(n, seed=seed, log=True)
    narrate = Narrator(st, out, seat_agents, humans, quiet=as_json, hot_seat=hot_seat)
    if not as_json:
        who = ", ".join(f"{seat_name(p)} {name}" for p, name in enumerate(names))
        out.print(Text(f"{rs.title}{' (' + rs.variant + ')' if rs.variant else ''}: {n} players ({who}), seed {seed}",
                       style="bold"))
        if click.get_current_context().get_parameter_source("agents") == click.core.ParameterSource.DEFAULT:
            out.print(Text(f"Agents play every seat. To take a seat yourself: tapster play {ruleset} --agents human,random",
                           style="dim"))
    actions: list[str] = []
    try:
        while not st.is_terminal():
            narrate()
            p = st.current_players()[0]
            action = seat_agents[p].act(st, p)
            st.apply(action)
            actions.append(str(action))
            rs.check_length(st, len(actions))
        if hot_seat is not None:
            hot_seat.release()  # the last seat's view goes before the scores
        narrate()
    except QuitGame as exc:
        click.echo(f"game abandoned after {len(actions)} actions: {exc}", err=True)
        return EXIT_FAIL
    except IllegalActionError as exc:
        raise TapsterError(f"an agent chose an illegal action: {exc.message}") from None

    outcome = st.outcome()
    if log_file:
        _write_log(log_file, rs, variant, params, n, seed, names, actions, outcome.to_json())
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
    # Seats that nothing separates share a place (1, 1, 3, ...): the same score, both winners or
    # neither, and no tie-break in the ruleset to order them (partners of a team, a draw).
    place: dict[int, int] = {}
    tiebreaks = getattr(rs, "tiebreaks", ())
    for i, p in enumerate(outcome.ranking):
        q = outcome.ranking[i - 1] if i else None
        tied = (q is not None and not tiebreaks and outcome.scores[p] == outcome.scores[q]
                and (p in outcome.winners) == (q in outcome.winners))
        place[p] = place[q] if tied else i + 1
    for p, name in enumerate(names):
        mark = "★" if p in outcome.winners else ""
        table.add_row(seat_name(p), name, Text(str(outcome.scores[p])), str(place[p]), mark)
    return table


def _write_log(path: str, rs: Ruleset, variant, params, n, seed, names, actions, outcome: dict) -> None:
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
def replay(log_file, seat, observer, no_pause) -> int:
    """Replay a log written by `play --log`: every action must be legal and the final outcome
    must equal the logged one.  Prints OK, or the first mismatch with its action index.

    With --seat P, each step shows what seat P saw (their view, the lines they could read, their
    own actions); with --all, the omniscient account.  Enter steps, q stops; --no-pause (or
    input that is not a terminal) prints every step."""
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
    return EXIT_OK


def _sha256(path) -> str | None:
    import hashlib

    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _relative_to(target: Path, folder: Path) -> str:
    """``target`` as a path relative to ``folder`` (with ``..`` where needed)."""
    import os

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
    """The text of a replay log: a regular file of at most MAX_LOG_BYTES (never a device, a
    FIFO or a folder).

    Raises:
        TapsterError: not a regular file, too large, unreadable, not UTF-8.
    """
    import os
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise TapsterError(f"cannot read the log {path}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise TapsterError(f"the log {path} is not a regular file")
        if info.st_size > MAX_LOG_BYTES:
            raise TapsterError(f"the log {path} is {info.st_size} bytes; the limit is {MAX_LOG_BYTES}")
        with os.fdopen(fd, "rb", closefd=False) as f:
            raw = f.read(MAX_LOG_BYTES + 1)
    except OSError as exc:
        raise TapsterError(f"cannot read the log {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(raw) > MAX_LOG_BYTES:
        raise TapsterError(f"the log {path} is larger than {MAX_LOG_BYTES} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TapsterError(f"the log {path} is not UTF-8 text ({exc.reason})") from None


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


@cli.command(short_help="Play many games between agents; balance summary.")
@_ruleset_arg
@click.option("--games", "-n", type=click.IntRange(1, MAX_GAMES), required=True, help="Number of games.")
@_players_opt
@_variant_opt
@_seed_opt
@click.option("--jobs", "-j", type=click.IntRange(1, MAX_JOBS), help="Worker processes (default: CPUs; 1 runs in-process).")
@_auto_agents_opt
@_json_opt
@_param_opt
def simulate(ruleset, games, players, variant, seed, jobs, agents, as_json, params) -> int:
    """Play many games between agents and summarise: win rate per seat, scores, game length,
    draws, speed.  Game i is seeded with (SEED, i), so results do not depend on --jobs."""
    rs = _load(ruleset, variant, params)
    n = _check_players(rs, players)
    names = _seat_agents(agents, n)
    seed = _fresh_seed() if seed is None else seed
    jobs = jobs or os.cpu_count() or 1
    spec = SimSpec(str(Path(rs.path).resolve()), variant, tuple(sorted((params or {}).items())), n, seed, tuple(names))
    remember_ruleset(spec, rs)
    progress = None
    if not as_json:
        progress = Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TimeRemainingColumn(), console=_stderr(), transient=False,
        )  # fmt: skip
    summary_of = Summary(n)
    start = time.perf_counter()
    with progress if progress is not None else _Nothing():
        task = progress.add_task(f"{rs.name} ×{games}", total=games) if progress is not None else None
        advance = (lambda k: progress.advance(task, k)) if progress is not None else None
        results = run_games(spec, games, jobs, advance)
        interrupted = False
        try:
            for r in results:
                if r[1] is None:
                    i, _, message, actions = r
                    raise TapsterError(f"game {i} (seed {game_seed(seed, i)}) failed after {actions} actions: {message}")
                summary_of.add(r)
        except KeyboardInterrupt:  # Ctrl-C: the workers stop now; the games finished so far are summarised
            interrupted = True
        finally:
            results.close()
    elapsed = time.perf_counter() - start
    if interrupted:
        click.echo(f"interrupted: {summary_of.games} of {games} games finished", err=True)
        if summary_of.games == 0:
            return EXIT_INTERRUPTED
    summary = summary_of.result(elapsed)
    summary = {"ruleset": rs.name, "variant": rs.variant, "players": n, "seed": seed, "agents": names,
               "jobs": jobs, **summary}
    if as_json:
        _echo_json(summary)
        return EXIT_INTERRUPTED if interrupted else EXIT_OK
    _print_summary(_stdout(), rs, summary)
    return EXIT_INTERRUPTED if interrupted else EXIT_OK


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _print_summary(out: Console, rs: Ruleset, s: dict) -> None:
    def num(x, fmt="{:.2f}"):
        return "n/a" if x is None else fmt.format(x)

    head = f"{rs.title}{' (' + rs.variant + ')' if rs.variant else ''}: {s['games']} games, {s['players']} players, " \
           f"seed {s['seed']}, {s['jobs']} job{'s' if s['jobs'] != 1 else ''}"
    table = Table(title=head)
    for col, just in (("seat", "left"), ("agent", "left"), ("wins", "right"), ("win rate", "right"),
                      ("mean score", "right"), ("sd", "right")):
        table.add_column(col, justify=just)
    for p in range(s["players"]):
        table.add_row(
            seat_name(p), s["agents"][p], num(s["wins"][p], "{:g}"), num(s["win_rate"][p], "{:.1%}"),
            num(s["score_mean"][p]), num(s["score_sd"][p]),
        )  # fmt: skip
    out.print(table)
    length = s["length"]
    lines = [
        f"win rate: {SHARED_WIN_NOTE}",
        f"game length: mean {length['mean']:.1f} actions, min {length['min']}, max {length['max']}",
        f"draws: {s['draws']} ({s['draws'] / s['games']:.1%}; {DRAW_NOTE})",
        f"{s['games']} playouts in {s['seconds']:.2f} s: {num(s['playouts_per_second'], '{:.0f}')} playouts/s",
    ]
    for line in lines:
        out.print(Text(line))


# -- analyse, compare ---------------------------------------------------------------------------
# The balance report (issue 18): the games are played by interpreter.analysis.runner, measured by
# interpreter.analysis.balance, drawn by interpreter.analysis.report; this block parses and prints.


def _parse_games(ctx: click.Context, param: click.Parameter, value: str) -> int | None:
    if value == "auto":
        return None
    try:
        n = int(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is neither a number of games nor auto") from None
    if not 1 <= n <= MAX_GAMES:
        raise click.BadParameter(f"{n} is not from 1 to {MAX_GAMES}")
    return n


def _parse_sweep(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> dict:
    """``NAME=V1,V2,...`` -> {name: [values]} (a single value is a list of one)."""
    out: dict[str, list] = {}
    for item in values:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"{item!r} is not NAME=VALUE or NAME=V1,V2,... (e.g. turns=6,8,10)")
        parts = [text] if text.lstrip()[:1] in ("[", "{") else text.split(",")
        out[name.strip()] = [_parse_params(ctx, param, (f"{name}={p}",))[name.strip()] for p in parts]
    return out


_balance_opts = [
    click.option("--games", "-n", default="1000", show_default=True, callback=_parse_games, metavar="N|auto",
                 help="Games per run; auto: until every win rate is known within --precision (at most --max-games)."),
    click.option("--precision", type=click.FloatRange(0.001, 0.5), default=0.02, show_default=True,
                 help="With --games auto: the 95% half-width wanted for the win rates."),
    click.option("--max-games", type=click.IntRange(100, MAX_GAMES), default=20000, show_default=True,
                 help="With --games auto: the most games per run."),
    _players_opt, _seed_opt, _auto_agents_opt,
    click.option("--jobs", "-j", type=click.IntRange(1, MAX_JOBS), help="Worker processes or Ray tasks (default: CPUs)."),
    click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True,
                 help="local: a process pool; ray: Ray tasks (pip install 'tapster[ray]')."),
    click.option("--ray-address", metavar="ADDRESS", help="The Ray cluster (default: RAY_ADDRESS, else a local Ray)."),
    click.option("--report", "report_dir", type=click.Path(file_okay=False), help="Write an HTML report with PNG plots to DIR."),
    click.option("--export", "export_file", type=click.Path(dir_okay=False), help="Write one line per game (FILE.jsonl or FILE.csv)."),
    _json_opt,
]


def _balance_options(f):
    for opt in reversed(_balance_opts):
        f = opt(f)
    return f


class _Run:
    """What the analyse and compare commands share: the sides' rulesets, the progress bar, the
    exporter; ``play(name, rs, variant, params)`` -> (tally, finished)."""

    def __init__(self, ruleset, players, seed, agents, jobs, backend, ray_address, games, precision, max_games,
                 export_file, as_json):
        self.ruleset, self.players, self.agents = ruleset, players, agents
        self.seed = _fresh_seed() if seed is None else seed
        self.jobs = jobs or os.cpu_count() or 1
        self.backend, self.ray_address = backend, ray_address
        self.games, self.precision, self.max_games = games, precision, max_games
        self.export_file, self.as_json = export_file, as_json
        self.interrupted = False
        self.played = 0
        self.progress = None if as_json else Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("ETA"),
            TimeRemainingColumn(), console=_stderr())  # fmt: skip
        self.exporter = None

    def side(self, variant: str | None, params: dict):
        rs = _load(self.ruleset, variant, params)
        n = _check_players(rs, self.players)
        return rs, n, _seat_agents(self.agents, n)

    def play(self, name: str, rs: Ruleset, n: int, names: list[str], variant, params: dict, per_game=None):
        """Play side ``name``; ``per_game``: a :class:`interpreter.analysis.balance.PerGame` that also
        records each game's values (for a paired comparison)."""
        return self.play_sides([(name, rs, n, names, variant, params, per_game)])[0]

    def play_sides(self, sides: list[tuple], decided=None) -> list:
        """Play each side ``(name, rs, n, names, variant, params, per_game)``; the tallies, in
        order.  With --games auto the sides play the same rounds in turn (200 games, then
        doubling, up to --max-games) and stop together when every side's win rates are within
        --precision or ``decided(tallies, rounds)`` (the number of rounds) says the comparison is."""
        from ..analysis.balance import Tally
        from ..analysis.runner import auto_rounds, narrow_enough, play_run

        states = []
        for name, rs, n, names, variant, params, per_game in sides:
            spec = SimSpec(str(Path(rs.path).resolve()), variant, tuple(sorted(params.items())), n, self.seed, tuple(names))
            total = self.games if self.games is not None else min(200, self.max_games)
            task = self.progress.add_task(name, total=total) if self.progress else None
            export = (lambda r, name=name: self.exporter.write(name, r)) if self.exporter else None
            if per_game is not None:
                write = export
                export = (lambda r, pg=per_game, w=write: (pg.add(r), w(r))) if write else per_game.add
            advance = (lambda k, task=task: self.progress.advance(task, k)) if self.progress else None
            states.append((spec, rs, Tally(n), task, export, advance))
        tallies = [state[2] for state in states]
        rounds = [range(self.games)] if self.games is not None else list(auto_rounds(min(200, self.max_games), self.max_games))
        for indices in rounds:
            for spec, rs, tally, task, export, advance in states:
                if self.progress and self.games is None:
                    self.progress.update(task, total=indices.stop)
                done = play_run(spec, indices, tally, jobs=self.jobs, backend=self.backend, ray_address=self.ray_address,
                                ruleset=rs, on_batch=advance, export=export)
                if not done:
                    self.interrupted = True
                    break
            if self.interrupted:
                break
            if self.games is None and (all(narrow_enough(t, self.precision) for t in tallies)
                                       or (decided is not None and decided(tallies, len(rounds)))):
                break
        for tally in tallies:
            self.played += tally.games + tally.errors
        for tally in tallies:
            if tally.errors and not self.interrupted:
                raise TapsterError(f"{tally.errors} game(s) failed; the first: {tally.first_error}")
        return tallies

    def __enter__(self):
        if self.export_file:
            from ..analysis.runner import Exporter

            self.exporter = Exporter(self.export_file).__enter__()
        if self.progress:
            self.progress.__enter__()
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start
        if self.progress:
            self.progress.__exit__(*exc)
        if self.exporter:
            self.exporter.__exit__(*exc)
        return False

    def head(self) -> dict:
        return {"ruleset": self.ruleset, "players": self.players, "seed": self.seed, "agents": self.agents, "jobs": self.jobs,
                "backend": self.backend, "seconds": self.seconds, "games_played": self.played,
                "games_per_second": self.played / self.seconds if self.seconds > 0 else None, "interrupted": self.interrupted}

    def footer(self, out: Console) -> None:
        out.print(Text(f"seed {self.seed}; {self.played} games in {self.seconds:.1f} s "
                       f"({self.played / max(self.seconds, 1e-9):.0f} games/s, {self.jobs} {self.backend} job(s)); "
                       f"win rates: {SHARED_WIN_NOTE}; {DRAW_NOTE}"))
        if self.interrupted:
            out.print(Text("interrupted: the summary covers the games finished before Ctrl-C", style="bold red"))


def _side_name(variant: str | None, params: dict) -> str:
    parts = [variant] if variant else []
    parts += [f"{k}={v}" for k, v in params.items()]
    return ",".join(parts) or "base"


@cli.command(short_help="Balance report: win rates with intervals, first-player advantage, lengths, drama...")
@_ruleset_arg
@_variant_opt
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE[,VALUE...]", callback=_parse_sweep,
              help="Override a parameter; several values (turns=6,8,10) sweep it: one analysis per value.")
@_balance_options
def analyse(ruleset, variant, params, games, precision, max_games, players, seed, agents, jobs, backend, ray_address,
            report_dir, export_file, as_json) -> int:
    """Play many games and report the ruleset's balance (see docs/user-guide.md, "Balance analysis").

    Game i of a run is seeded (SEED, i): the numbers do not depend on --jobs or --backend.
    Ctrl-C stops at once and summarises the games finished (exit status 130)."""
    from ..analysis.balance import metrics
    from ..analysis.report import analysis_tables, sweep_table, write_report

    swept = [k for k, v in params.items() if len(v) > 1]
    if len(swept) > 1:
        raise click.BadParameter(f"sweep one parameter at a time, not {', '.join(swept)}", param_hint="--param")
    fixed = {k: v[0] for k, v in params.items() if len(v) == 1}
    values = params[swept[0]] if swept else [None]
    run = _Run(ruleset, players, seed, agents, jobs, backend, ray_address, games, precision, max_games, export_file, as_json)
    sides = []
    for v in values:
        p = dict(fixed, **({swept[0]: v} if swept else {}))
        sides.append((_side_name(variant, p), variant, p, *run.side(variant, p)))
    analyses, names_of = [], []
    with run:
        for name, var, p, rs, n, names in sides:
            tally = run.play(name, rs, n, names, var, p)
            analyses.append((name, metrics(tally)))
            names_of.append(names)
            if run.interrupted:
                break
    title = f"{sides[0][3].title}: balance report"
    if report_dir and analyses:
        write_report(report_dir, title, analyses, sweep=(swept[0], values[:len(analyses)]) if swept else None)
    if as_json:
        _echo_json({**run.head(), "variant": variant, "sweep": swept[0] if swept else None,
                    "analyses": [{"side": name, "agents": names, "metrics": m} for (name, m), names in zip(analyses, names_of)]})
    else:
        out = _stdout()
        for (name, m), names in zip(analyses, names_of):
            for t in analysis_tables(f"{title} ({name}, {m['games']} games)", m, names):
                out.print(t)
        if swept:
            out.print(sweep_table(swept[0], values[:len(analyses)], analyses))
        run.footer(out)
        if report_dir and analyses:
            out.print(Text(f"report: {Path(report_dir) / 'index.html'}"))
    return EXIT_INTERRUPTED if run.interrupted else EXIT_OK


def _parse_side(ctx: click.Context, text: str) -> tuple[str | None, dict]:
    """A side: ``base``, a variant name and/or NAME=VALUE pairs, joined by commas."""
    variant, pairs = None, []
    for part in [p.strip() for p in text.split(",") if p.strip()]:
        if "=" in part:
            pairs.append(part)
        elif part == "base":
            continue
        elif variant is None:
            variant = part
        else:
            raise click.BadParameter(f"side {text!r} names two variants ({variant}, {part})", param_hint="SIDE")
    return variant, _parse_params(ctx, None, tuple(pairs))


@cli.command(short_help="Compare variants or parameters: differences with intervals and tests.")
@_ruleset_arg
@click.argument("sides", nargs=-1, required=True, metavar="SIDE SIDE [SIDE...]")
@_balance_options
@click.option("--unpaired", is_flag=True,
              help="Test the sides as independent samples (two-proportion z, Welch t), not as pairs of games sharing seeds.")
@click.pass_context
def compare(ctx, ruleset, sides, games, precision, max_games, players, seed, agents, jobs, backend, ray_address,
            report_dir, export_file, as_json, unpaired) -> int:
    """Analyse each SIDE and compare every later side with the first: each metric's difference
    with its 95% interval and a test, and a sentence.  Game i of every side is seeded (SEED, i),
    so the sides are compared as pairs of games: the interval of the per-seed differences,
    McNemar's exact test for rates and the paired t for means (--unpaired: two-proportion z and
    Welch's t).  With --games auto the sides play the same rounds and stop when every win rate
    and first-player win rate difference is decided (see docs/user-guide.md).  A SIDE is `base`, a variant and/or
    NAME=VALUE pairs joined by commas
    (`tapster compare beer_flights base turns=5`, `tapster compare drink_and_beat base complex`)."""
    from ..analysis.balance import PerGame, metrics
    from ..analysis.balance import compare as compare_tallies
    from ..analysis.report import analysis_tables, comparison_table, write_report
    from ..analysis.runner import comparison_decided

    if len(sides) < 2:
        raise click.UsageError("compare needs at least two sides (e.g. base turns=5)")
    run = _Run(ruleset, players, seed, agents, jobs, backend, ray_address, games, precision, max_games, export_file, as_json)
    parsed = []
    for text in sides:
        variant, p = _parse_side(ctx, text)
        parsed.append((text, variant, p, *run.side(variant, p)))
    per_game = [None if unpaired else PerGame(n) for _, _, _, _, n, _ in parsed]
    for name, _, _, _, n, _ in parsed[1:]:
        if n != parsed[0][4]:
            raise TapsterError(f"side {name} has {n} players, {parsed[0][0]} {parsed[0][4]}: use --players")

    def decided(tallies, rounds):
        return comparison_decided(tallies, None if unpaired else per_game, precision, rounds)

    with run:
        played = run.play_sides([(name, rs, n, names, variant, p, pg)
                                 for (name, variant, p, rs, n, names), pg in zip(parsed, per_game)], decided)
    tallies = [(name, names, t) for (name, _, _, _, _, names), t in zip(parsed, played)]
    if run.interrupted:  # Ctrl-C: the sides that had begun
        tallies = tallies[:1] + [side for side in tallies[1:] if side[2].games + side[2].errors]
    comparisons = []
    for k, (name, _, t) in enumerate(tallies[1:], 1):
        pairs = None if unpaired else (per_game[0], per_game[k])
        comparisons.append((tallies[0][0], name, compare_tallies(tallies[0][2], t, pairs=pairs)))
    analyses = [(name, metrics(t)) for name, _, t in tallies]
    if report_dir and analyses:
        write_report(report_dir, f"{parsed[0][3].title}: {' vs '.join(sides)}", analyses,
                     comparison=[r for _, _, rows in comparisons for r in rows])
    if as_json:
        _echo_json({**run.head(), "sides": [{"side": name, "agents": names, "metrics": m}
                                            for (name, m), (_, names, _) in zip(analyses, tallies)],
                    "paired": not unpaired,
                    "comparisons": [{"a": a, "b": b, "rows": rows} for a, b, rows in comparisons]})
    else:
        out = _stdout()
        for (name, m), (_, names, _) in zip(analyses, tallies):
            out.print(analysis_tables(f"{name} ({m['games']} games)", m, names, actions=0)[0])
        for a, b, rows in comparisons:
            out.print(comparison_table((a, b), rows))
            for r in rows:
                out.print(Text(f"- {r['sentence']}", style="bold" if r["significant"] else None))
        run.footer(out)
        if report_dir and analyses:
            out.print(Text(f"report: {Path(report_dir) / 'index.html'}"))
    return EXIT_INTERRUPTED if run.interrupted else EXIT_OK


# -- tune ---------------------------------------------------------------------------------------
# The search (issue 28) is interpreter.analysis.tune; its games are played by _Run's settings through
# interpreter.analysis.runner, as analyse plays them; this block parses and prints.


@cli.command(short_help="Search parameter values that meet balance targets (Optuna).")
@_ruleset_arg
@_variant_opt
@click.option("--param", "spaces", multiple=True, required=True, metavar="NAME=LO..HI|NAME=A,B,...",
              help="A parameter to search: whole numbers (turns=6..14), reals (0.5..1.5) or choices (draft=true,false).")
@click.option("--set", "fixed", multiple=True, metavar="NAME=VALUE", callback=_parse_params,
              help="A parameter held at VALUE in every trial.")
@click.option("--target", "targets", multiple=True, required=True, metavar="METRIC=V|METRIC=LO..HI|METRIC<=X",
              help="What a metric should be (first_player_advantage=0, duration=20..30, drawishness<=0.05); several allowed.")
@click.option("--games", "-n", default="400", show_default=True, callback=_parse_games, metavar="N|auto",
              help="Games per trial; auto: until a sequential test decides each target (at most --max-games).")
@click.option("--precision", type=click.FloatRange(0.001, 0.5), default=0.02, show_default=True,
              help="With --games auto: a trial also stops when every target's 95% half-width is within this.")
@click.option("--max-games", type=click.IntRange(100, MAX_GAMES), default=4000, show_default=True,
              help="With --games auto: the most games per trial.")
@click.option("--trials", type=click.IntRange(1, 10000), default=30, show_default=True, help="The most settings to try.")
@click.option("--budget", type=click.IntRange(1, MAX_GAMES), help="The most games over all trials (default: no limit).")
@click.option("--seconds", type=click.FloatRange(0.1, 86400 * 30), help="Stop trying settings after this many seconds.")
@click.option("--confirm", type=click.IntRange(0, MAX_GAMES), help="Games of the confirmation run on fresh seeds (0: none; "
              "default: as many as the best trial played).")
@click.option("--no-prune", is_flag=True, help="Play every trial to the end (no Optuna pruning).")
@_players_opt
@_seed_opt
@_auto_agents_opt
@click.option("--jobs", "-j", type=click.IntRange(1, MAX_JOBS), help="Worker processes or Ray tasks (default: CPUs).")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local: a process pool; ray: Ray tasks (pip install 'tapster[ray]').")
@click.option("--ray-address", metavar="ADDRESS", help="The Ray cluster (default: RAY_ADDRESS, else a local Ray).")
@click.option("--report", "report_dir", type=click.Path(file_okay=False),
              help="Write an HTML report with PNG plots (each target against each parameter) to DIR.")
@_json_opt
def tune(ruleset, variant, spaces, fixed, targets, games, precision, max_games, trials, budget, seconds, confirm, no_prune,
         players, seed, agents, jobs, backend, ray_address, report_dir, as_json) -> int:
    """Search the parameters for values that meet the balance targets (see docs/user-guide.md,
    "Balance analysis"): Optuna proposes settings, each trial plays its games as analyse does (game i
    seeded (SEED, i) in every trial), the best setting is shown with its metrics' 95% intervals
    (the front of settings when targets conflict) and confirmed on fresh seeds.  The same seed
    gives the same trials and answer (not with --seconds).  Ctrl-C stops and reports the trials
    finished (exit status 130)."""
    from ..analysis.report import tune_tables, write_tune_report
    from ..analysis.runner import play_run, ray_session
    from ..analysis.tune import Tuner, TuneSettings, parse_space, parse_target

    def read(name: str, text: str):
        return _parse_params(None, None, (f"{name}={text}",))[name]

    parsed = [parse_space(text, read) for text in spaces]
    goals = [parse_target(text) for text in targets]
    names_seen = [sp.name for sp in parsed]
    if len(set(names_seen)) < len(names_seen):
        raise click.BadParameter("each parameter is searched once", param_hint="--param")
    run = _Run(ruleset, players, seed, agents, jobs, backend, ray_address, games, precision, max_games, None, as_json)
    base_rs, n, seat_names = run.side(variant, dict(fixed))
    for sp in parsed:  # the ruleset's own declarations (kind, min, max) check the range's ends
        if sp.name in fixed:
            raise click.BadParameter(f"{sp.name} is both searched (--param) and held (--set)", param_hint="--param")
        base = base_rs.params.get(sp.name)
        if sp.kind == "real" and isinstance(base, int) and not isinstance(base, bool) and sp.name in base_rs.params:
            raise TapsterError(f"--param {sp.name}: {base_rs.title}'s {sp.name} is a whole number ({base}); "
                               f"write a range of whole numbers (e.g. {sp.name}={math.floor(sp.low)}..{math.ceil(sp.high)})")
        for v in sp.ends():
            run.side(variant, dict(fixed, **{sp.name: v}))
    path = str(Path(base_rs.path).resolve())
    loaded: dict = {}

    def play(params: dict, indices: range, tally, export=None) -> bool:
        p = dict(fixed, **params)
        key = repr(sorted(p.items()))
        if key not in loaded:
            loaded[key] = run.side(variant, p)
        rs, k, names = loaded[key]
        spec = SimSpec(path, variant, tuple(sorted(p.items())), k, run.seed, tuple(names))
        if run.progress:
            run.progress.update(task, description=f"trial {len(tuner.trials) + 1}: " + ", ".join(f"{a}={b}" for a, b in params.items()))
        return play_run(spec, indices, tally, jobs=run.jobs, backend=backend, ray_address=ray_address, ruleset=rs,
                        on_batch=(lambda m: run.progress.advance(task, m)) if run.progress else None, export=export)

    settings = TuneSettings(seed=run.seed, games=games, max_games=max_games, precision=precision, budget=budget,
                            seconds=seconds, trials=trials, confirm=confirm, prune=not no_prune)
    tuner = Tuner(parsed, goals, play, n, settings)
    with run:
        task = run.progress.add_task("tune", total=budget) if run.progress else None
        if backend == "ray":
            with ray_session(run.jobs, ray_address):
                result = tuner.run()
        else:
            result = tuner.run()
    run.played = result["games_played"]
    run.interrupted = result["interrupted"]
    title = f"{base_rs.title}: tune " + ", ".join(spaces) + " for " + ", ".join(targets)
    if report_dir and result["trials"]:
        write_tune_report(report_dir, title, result)
    if as_json:
        _echo_json({**run.head(), "variant": variant, "fixed": fixed, "agents": seat_names, **result})
    else:
        out = _stdout()
        for item in tune_tables(title, result):
            out.print(item)
        run.footer(out)
        if report_dir and result["trials"]:
            out.print(Text(f"report: {Path(report_dir) / 'index.html'}"))
    return EXIT_INTERRUPTED if run.interrupted else EXIT_OK


# -- map ----------------------------------------------------------------------------------------


@cli.command("map", short_help="Draw a ruleset's map to an image.")
@_ruleset_arg
@_variant_opt
@click.option("--out", "-o", "out_file", type=click.Path(dir_okay=False), required=True, help="The image file (PNG).")
@click.option("--name", "map_name", help="Which map (default: display.map.name, else the first).")
@click.option("--zone", help="A keyed zone whose pieces are drawn on their nodes (default: display.map.zone).")
@click.option("--colour", help="The node attribute colouring nodes (default: display.map.colour).")
@click.option("--players", "-p", type=click.IntRange(1, MAX_PLAYERS), help="Players of the fresh game whose pieces are drawn.")
@click.option("--seed", "-s", type=click.IntRange(0, MAX_SEED), default=0, show_default=True, help="Seed of that game.")
@_param_opt
def map_cmd(ruleset, variant, out_file, map_name, zone, colour, players, seed, params) -> int:
    """Draw a ruleset's map (networkx + matplotlib): nodes at their x, y, coloured by a node
    attribute, and the pieces of a keyed zone in a fresh seeded game on their nodes."""
    from ..loader.maps import colour_problem, draw_map

    rs = _load(ruleset, variant, params)
    if not rs.maps:
        raise click.UsageError(f"{rs.name} declares no `maps:`")
    spec = ((rs.doc.data.get("display") or {}).get("map") or {}) if isinstance(rs.doc.data, dict) else {}
    name = map_name or spec.get("name") or next(iter(rs.maps))
    if name not in rs.maps:
        raise click.UsageError(f"no map {name!r} (maps: {', '.join(rs.maps)})")
    zone = zone or spec.get("zone")
    gm = rs.maps[name]
    colour = colour or spec.get("colour")
    if colour is not None:
        problem = colour_problem(gm, colour)
        if problem is not None:
            raise click.UsageError(f"--colour: {problem}")
    edge_style = dict(spec.get("edges") or {}) if spec.get("name", name) == name else {}
    if edge_style.get("colour"):
        problem = colour_problem(gm, edge_style["colour"], "edge")
        if problem is not None:
            raise click.UsageError(f"display.map.edges.colour: {problem}")
    pieces: dict = {}
    owners: dict = {}
    st = None
    if zone:
        if zone not in rs.zones or not rs.zones[zone].keyed:
            raise click.UsageError(f"--zone must name a keyed zone, not {zone!r}")
        st = rs.new_game(_check_players(rs, players), seed=seed)
        pieces = {k: [c.label for c in stack] for k, stack in st.zones[zone].items()}
    if gm.edge_kind:  # owners: the seats whose zones hold the edge components, in the fresh game
        st = st or rs.new_game(_check_players(rs, players), seed=seed)
        for c in gm.edge_components:
            where = st.zone_of(c) or ""
            seat = re.match(r"^[A-Za-z_][A-Za-z0-9_]*\[(\d+)\]", where)
            zname = where.split("[", 1)[0]
            if seat and zname in rs.zones and rs.zones[zname].per_player:
                owners[c.id] = int(seat.group(1))
    draw_map(gm, out_file, colour=colour, label=spec.get("label"),
             pieces=pieces, title=f"{rs.title}: map {name}", edge_style=edge_style, owners=owners)
    _stdout().print(Text(f"wrote {out_file}"))
    return EXIT_OK


# -- info ---------------------------------------------------------------------------------------


@cli.command(short_help="Describe a ruleset.")
@_ruleset_arg
@_variant_opt
@_param_opt
@click.option("--source", is_flag=True, help="Print the Python source generated from the ruleset instead.")
@_json_opt
def info(ruleset, variant, params, source, as_json) -> int:
    """Describe a ruleset: players, variants, parameters, components, zones, decisions,
    scenarios.  With --source, the Python code the ruleset compiles to, each function headed
    by the file:line:column it implements (how a misbehaving rule is debugged)."""
    rs = _load(ruleset, variant, params)
    if source:
        for _place, src in rs.sources:
            click.echo(src)
        return EXIT_OK
    if as_json:
        _echo_json({
            "name": rs.name, "title": rs.title, "variant": rs.variant, "description": rs.description, "source": rs.source,
            "file": str(rs.path), "players": {"min": rs.min_players, "max": rs.max_players, "default": rs.default_players},
            "variants": {name: " ".join(str(desc).split()) for name, desc in rs.variants.items()}, "params": rs.params,
            "components": {k.name: {"count": len(k.components), "fields": sorted(k.fields), "props": sorted(k.mutable),
                                    "start": k.start} for k in rs.kinds.values()},
            "zones": {z.name: {"visibility": z.visibility, "per_player": z.per_player, "count": z.count} for z in rs.zones.values()},
            "decisions": sorted({c.name or "(unnamed)" for c in rs.chooses}), "scenarios": len(rs.scenarios),
            "encoding": describe_encoding(rs, rs.default_players),
        })
        return EXIT_OK
    out = _stdout()
    out.print(Text(rs.title + (f" (variant {rs.variant})" if rs.variant else ""), style="bold"))
    if rs.description:
        out.print(Text(" ".join(str(rs.description).split())))
    if rs.source:
        out.print(Text(f"source: {rs.source}"))
    out.print(Text(f"file: {rs.path}"))
    span = str(rs.min_players) if rs.min_players == rs.max_players else f"{rs.min_players} to {rs.max_players}"
    out.print(Text(f"players: {span} (default {rs.default_players})"))

    _info_table(out, "variants", ["variant", "description"],
                [(name, " ".join(str(desc).split())) for name, desc in rs.variants.items()])
    if rs.params:  # no "params: none" line, as before
        _info_table(out, "params", ["param", "value"],
                    [(name, Text(json.dumps(value, default=str))) for name, value in rs.params.items()])
    _info_table(out, "components", ["kind", "count>", "fields", "props", "start"],
                [(k.name, str(len(k.components)), ", ".join(sorted(k.fields)), ", ".join(sorted(k.mutable)), k.start or "")
                 for k in rs.kinds.values()])
    _info_table(out, "zones", ["zone", "visibility", "per player", "count>"],
                [(z.name, z.visibility, "yes" if z.per_player else "no", "" if z.count is None else str(z.count))
                 for z in rs.zones.values()])

    decisions = sorted({c.name or "(unnamed)" for c in rs.chooses})
    out.print(Text(f"decisions: {', '.join(decisions) or 'none'}"))
    out.print(Text(f"phases: {', '.join(phases(rs)) or 'none'}"))
    out.print(Text(f"the game ends: {'; or '.join(endings(rs))}"))
    out.print(Text(f"scenarios: {len(rs.scenarios)}"))
    _info_encoding(out, describe_encoding(rs, rs.default_players))
    return EXIT_OK


def _info_encoding(out: Console, enc: dict) -> None:
    """The action encoding's table (``tapster info``): ids per action and argument, chance ids."""
    rows = []
    for a in enc["actions"]:
        names = ", ".join(x["name"] for x in a["arguments"])
        text = f"{a['action']}({names})" if names else a["action"]
        if not a["derived"]:
            rows.append((a["decision"], text, "explored", "numbered after the derived ids, from playouts"))
            continue
        ids = "" if a["ids"] is None else (str(a["ids"][0]) if a["ids"][0] == a["ids"][1] else f"{a['ids'][0]}-{a['ids'][1]}")
        args = "; ".join(f"{x['name']}: {x['count']} ({', '.join(x['values'])}{', ...' if x['count'] > len(x['values']) else ''})"
                         for x in a["arguments"])
        rows.append((a["decision"], text, ids, args))
    _info_table(out, f"action encoding ({enc['players']} players: {enc['derived_actions']} ids derived from the rules)",
                ["decision", "action", "ids", "argument values"], rows)
    if enc["chance"]:
        _info_table(out, "chance outcome ids", ["ids", "outcomes"],
                    [(f"{a}-{b}" if a != b else str(a), what) for a, b, what in enc["chance"]])


def _info_table(out: Console, title: str, columns: list[str], rows: list[tuple]) -> None:
    """Print a left-titled table (a column name ending in ``>`` is right-justified), or
    ``title: none`` when there are no rows."""
    if not rows:
        out.print(Text(f"{title}: none"))
        return
    t = Table(title=title, title_justify="left")
    for col in columns:
        t.add_column(col.rstrip(">"), justify="right" if col.endswith(">") else "left")
    for row in rows:
        t.add_row(*row)
    out.print(t)


# -- validate -----------------------------------------------------------------------------------


@cli.command(short_help="Check rulesets; every problem as file:line:col.")
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("--variant", "-v", metavar="V", multiple=True, callback=lambda ctx, param, values: ",".join(values) or None,
              help="Check only variant V, not the base ruleset and every variant (`a,b` or a repeated --variant: "
                   "a overlaid, then b).")
@click.option("--strict", is_flag=True, help="Fail on warnings too (a 'none' string, an expression where a value goes).")
@_json_opt
def validate(files, variant, strict, as_json) -> int:
    """Check rulesets (and every variant of each, or only --variant V, composed as `a,b`): print
    every problem as file:line:col: message, most relevant first; "ok: FILE" for a valid one.
    Warnings (YAML that loads but rarely means what it says) are printed as file:line:col:
    warning: ...; they fail only with --strict.  Notes (file:line:col: note: ...) name the
    display's parts that only observers see; they never fail."""
    bad = 0
    if as_json:
        report = [{"file": file, "problems": _problems(file, variant), "warnings": _warnings(file), "notes": _notes(file, variant)}
                  for file in files]
        for r in report:
            r["ok"] = not r["problems"] and not (strict and r["warnings"])
        _echo_json({"ok": all(r["ok"] for r in report), "files": report})
        return EXIT_OK if all(r["ok"] for r in report) else EXIT_FAIL
    with _progress(False) as progress:
        task = progress.add_task("validate", total=len(files))
        for file in files:
            progress.update(task, description=f"validate {file}")
            problems = _problems(file, variant)
            warned = _warnings(file)
            progress.advance(task)
            for line in warned:
                _above(progress, line)
            if strict and warned and not problems:
                bad += 1
                _above(progress, f"{file}: {len(warned)} warning(s) (fatal with --strict)")
                continue
            if problems:
                bad += 1
                for line in problems:
                    _above(progress, line)
            else:
                for line in _notes(file, variant):
                    _above(progress, line)
                _above(progress, f"ok: {file}", err=False)
    return EXIT_FAIL if bad else EXIT_OK


def _notes(file: str, variant: str | None) -> list[str]:
    """Notes on a valid ruleset: each part of its display that only observers see (it reads what
    some seat may not see; see docs/authoring.md, "Display"), as file:line:col: note: lines."""
    try:
        rs = load_ruleset(find_ruleset(file), variant)
    except TapsterError:
        return []
    if rs.display is None:
        return []
    return [f"{mark}: note: {where} is shown only to observers, never in a seat's view: it {why}"
            for where, _, why, mark in rs.display.private_parts()]


def _warnings(file: str) -> list[str]:
    """The load-time warnings of ``file`` (see :mod:`interpreter.compile.lint`) as text lines; none for a
    file that does not load (its problems say why)."""
    try:
        return [str(w) for w in lint_warnings(load_yaml(find_ruleset(file)))]
    except TapsterError:
        return []


def _problems(file: str, only_variant: str | None) -> list[str]:
    """Every problem of ``file`` and its variants as text lines (base problems first)."""
    lines: list[str] = []
    seen: set[str] = set()

    def add(exc: TapsterError, suffix: str = "") -> None:
        for e in exc.errors if isinstance(exc, RulesetErrors) else [exc]:
            text = str(e)
            if text in seen:
                continue
            seen.add(text)
            first, nl, rest = (text if e.mark is not None else f"{file}: {text}").partition("\n")
            lines.append(first + suffix + nl + rest)

    try:
        path = find_ruleset(file)
        doc = load_yaml(path)
    except TapsterError as exc:
        add(exc)
        return lines
    try:
        load_ruleset(path)
    except TapsterError as exc:
        add(exc)
        if isinstance(exc, RulesetErrors) and any(isinstance(e, SchemaError) for e in exc.errors):
            return lines  # the document itself is not a ruleset: its variants would only repeat that
    variants = (doc.data.get("variants") or {}) if isinstance(doc.data, dict) else {}
    names = list(variants)[:MAX_VARIANTS] if isinstance(variants, dict) else []
    if only_variant is not None:
        chosen = [v.strip() for v in only_variant.split(",")]
        unknown = [v for v in chosen if v not in names]
        if unknown:
            lines.append(f"{file}: no variant {unknown[0]!r} (variants: {', '.join(names) or 'none'})")
            return lines
        names = [",".join(chosen)]
    for v in names:
        try:
            load_ruleset(path, v)
        except TapsterError as exc:
            add(exc, f" (variant {v})")
    return lines


# -- test ---------------------------------------------------------------------------------------


@cli.command("test", short_help="Run rulesets' scenarios.")
@click.argument("rulesets", nargs=-1, metavar="RULESET...")
@click.option("--all", "all_", is_flag=True, help="Test every shipped ruleset.")
@_json_opt
def test_(rulesets, all_, as_json) -> int:
    """Run the scenarios of rulesets (logs on, so a broken log template fails too): PASS/FAIL
    per scenario, each line naming the ruleset, then "N passed, M failed"."""
    names = list(rulesets) + (available_rulesets() if all_ else [])
    if not names:
        raise click.UsageError("name at least one RULESET, or --all")
    if as_json:
        return _test_json(names)
    passed = failed = 0
    out = _stdout()
    with _progress(False) as progress:
        task = progress.add_task("test", total=len(names))
        for name in names:
            progress.update(task, description=f"test {name}")
            try:
                results = run_scenarios(name)
            except TapsterError as exc:
                results = exc
            progress.advance(task)
            passed_here, failed_here = _print_tested(progress, name, results)
            passed, failed = passed + passed_here, failed + failed_here
    out.print(Text(f"{passed} passed, {failed} failed", style="bold"))
    return EXIT_FAIL if failed else EXIT_OK


def _print_tested(progress: Progress, name: str, results) -> tuple[int, int]:
    """Print one ruleset's scenario results (or, for a TapsterError, why it does not load);
    return (passed, failed)."""
    passed = failed = 0
    if isinstance(results, TapsterError):
        for e in results.errors if isinstance(results, RulesetErrors) else [results]:
            _above(progress, str(e) if e.mark is not None else f"error: {e}")
        label = Path(name).resolve().name if Path(name).exists() else name  # `tapster test .` names the folder
        _above(progress, Text(f"FAIL {label}: the ruleset does not load", style="red"), err=False)
        return 0, 1
    if not results:
        _above(progress, Text(f"{name}: no scenarios", style="yellow"), err=False)
    for r in results:
        if r.ok:
            passed += 1
            _above(progress, Text.assemble(("PASS ", "green"), f"{r.ruleset}: {r.name}"), err=False)
        else:
            failed += 1
            _above(progress, Text.assemble(("FAIL ", "red"), f"{r.ruleset}: {r.name}"), err=False)
            for line in r.message.splitlines():
                _above(progress, Text("    " + line), err=False)
    return passed, failed


def _test_json(names: list[str]) -> int:
    """``tapster test --json``: one object with every scenario's result (and load errors)."""
    results = []
    for name in names:
        try:
            results += [{"ruleset": r.ruleset, "scenario": r.name, "ok": r.ok, "message": r.message} for r in run_scenarios(name)]
        except TapsterError as exc:
            results.append({"ruleset": name, "scenario": None, "ok": False, "message": str(exc)})
    failed = sum(not r["ok"] for r in results)
    _echo_json({"ok": not failed, "passed": len(results) - failed, "failed": failed, "results": results})
    return EXIT_FAIL if failed else EXIT_OK


# -- check --------------------------------------------------------------------------------------


@cli.command("check", short_help="Run every generic invariant on a ruleset.")
@_ruleset_arg
@click.option("--games", "-n", type=click.IntRange(1, MAX_GAMES),
              help="Seeds each check plays (seeds 1 to N). Default: within --budget, every decision reached several times.")
@click.option("--budget", type=click.FloatRange(0.1, 3600), default=CHECK_BUDGET, show_default=True, metavar="SECONDS",
              help="Without --games: the time the checks of one ruleset (or variant) share, more games for small games.")
@click.option("--variant", "-v", metavar="V", multiple=True, callback=lambda ctx, param, values: ",".join(values) or None,
              help="Check this variant (`a,b` or a repeated --variant: a, then b; default: the base ruleset).")
@click.option("--all-variants", is_flag=True, help="Check the base ruleset and every variant.")
@_json_opt
@_param_opt
def check_cmd(ruleset, games, budget, variant, all_variants, as_json, params) -> int:
    """Run every generic invariant on RULESET over random games: games end with an outcome, every
    listed legal action applies, clone and JSON copies continue identically, the same seed gives
    the same game, observations hide what a seat may not see, secret decisions reveal nothing
    to the others, every prompt, label, log line and end_game reason the games reach renders
    (logs on), the score is defined at every step.

    By default each check plays at least 3 games, then on while its share of --budget lasts (at
    most 200 games), and on until every decision the games reach was reached 5 times (at most
    three times its share); --games N plays seeds 1 to N instead.

    Prints PASS/FAIL per check, notes under a PASS (the templates no game reached); a failure
    gives the seed, the number of players and the actions that reproduce it (type them in
    `tapster play RULESET -s SEED -p N --agents human`)."""
    if variant and all_variants:
        raise click.UsageError("give --variant V or --all-variants, not both")
    base = _load(ruleset, variant, params)
    configs = [base] + ([_load(ruleset, v, params) for v in base.variants] if all_variants else [])
    seeds = tuple(range(1, games + 1)) if games is not None else None
    report, failed = [], 0
    out = _stdout()
    with _progress(as_json) as progress:
        task = progress.add_task(f"check {base.name}", total=len(configs) * len(CHECKS))
        for rs in configs:
            title = f"{rs.title} (variant {rs.variant})" if rs.variant else rs.title
            for name, _ in CHECKS:
                progress.update(task, description=f"check {title}: {name}")
                r = run_check(rs, name, seeds, budget)
                progress.advance(task)
                failed += not r.ok
                report.append({"ruleset": str(rs.path), "variant": rs.variant, **r.to_json()})
                if as_json:
                    continue
                mark = ("PASS ", "green") if r.ok else ("FAIL ", "red")
                _above(progress, Text.assemble(mark, f"{title}: {r.name}: {r.detail}"), err=False)
                for note in r.notes:
                    _above(progress, f"    {note}", err=False)
                if not r.ok and r.seed is not None:
                    moves = " ".join(r.actions) or "(none)"
                    _above(progress, f"    reproduce: seed {r.seed}, {r.players} players, actions: {moves}", err=False)
    if as_json:
        _echo_json({"ok": not failed, "checks": report})
    else:
        out.print(Text(f"{len(report) - failed} passed, {failed} failed", style="bold"))
    return EXIT_FAIL if failed else EXIT_OK


# -- schema -------------------------------------------------------------------------------------


@cli.command("schema", short_help="Print the ruleset schema's path, or the editor modeline naming it.")
@click.option("--modeline", is_flag=True, help="Print the `# yaml-language-server: $schema=...` line to put first in a ruleset.")
@click.option("--relative-to", "relative_to", metavar="PATH", type=click.Path(),
              help="Give the path relative to the ruleset's folder (PATH: the ruleset.yaml or its folder), not absolute.")
def schema_cmd(modeline, relative_to) -> int:
    """Print the path of the installed ruleset schema (schemas/ruleset.schema.json), or with
    --modeline the first line that makes editors with the YAML language server (VS Code's YAML
    extension, for one) complete keys and show help for a ruleset anywhere on this machine."""
    from ..loader.schema import schema_path

    path = schema_path().resolve()
    text = str(path)
    if relative_to is not None:
        where = Path(relative_to).resolve()
        folder = where if where.is_dir() else where.parent
        text = Path(os.path.relpath(path, folder)).as_posix()
    click.echo(f"# yaml-language-server: $schema={text}" if modeline else text)
    return EXIT_OK


# -- perft --------------------------------------------------------------------------------------


@cli.command("perft", short_help="Count the leaves of the game tree.")
@_ruleset_arg
@click.option("--depth", "-d", type=click.IntRange(0, MAX_DEPTH), help="Decisions deep (default: to the end of every game).")
@_players_opt
@_variant_opt
@click.option("--seed", "-s", type=click.IntRange(0, MAX_SEED), default=0, show_default=True,
              help="Seed of the game's chance (with --chance sample).")
@click.option("--chance", type=click.Choice(["sample", "enumerate"]), default="sample", show_default=True,
              help="sample: chance follows the seeded generator; enumerate: every chance outcome is a branch.")
@click.option("--infosets", is_flag=True,
              help="Also count the information sets per player (State.information_state) over the whole tree; "
                   "with chance, needs --chance enumerate.")
@_param_opt
@_json_opt
def perft_cmd(ruleset, depth, players, variant, seed, chance, params, infosets, as_json) -> int:
    """Count the leaves of the game tree: every line of play DEPTH steps deep, or every
    complete game when no --depth.

    With --chance sample (the default) chance in the middle of a game (a shuffle, a die) is not
    branched on: it follows the state's seeded generator, so each path sees one deterministic
    chance outcome (change it with --seed), and a step is a decision.  With --chance enumerate
    every outcome of every chance point is a branch and a step (a draw from a shuffled deck is
    one point per card drawn: the whole tree, chance included).

    A progress bar on stderr (on a terminal, not with --json) counts the subtrees done (the tree
    cut a few levels down into at least 16 where it has them).
    """
    rs = _load(ruleset, variant, params)
    n = _check_players(rs, players)
    if infosets:
        return _perft_infosets(rs, n, depth, chance, as_json)
    start = time.perf_counter()
    st = rs.new_game(n, seed=seed, log=False, chance="explicit" if chance == "enumerate" else "sample")
    subtrees, nodes = _perft_subtrees(st, depth)  # so that the progress bar moves
    leaves = 0
    with _progress(as_json) as progress:
        task = progress.add_task(f"perft {rs.name}: subtrees", total=len(subtrees))
        for sub, sub_depth in subtrees:
            sub_leaves, sub_nodes = perft(sub, sub_depth)
            leaves, nodes = leaves + sub_leaves, nodes + sub_nodes
            progress.advance(task)
    elapsed = time.perf_counter() - start
    if as_json:
        _echo_json({"ruleset": rs.name, "variant": rs.variant, "players": n, "depth": depth, "chance": chance,
                    "seed": seed, "leaves": leaves, "nodes": nodes, "seconds": round(elapsed, 3)})
        return EXIT_OK
    what = f"depth {depth}" if depth is not None else "complete games"
    click.echo(f"{leaves} leaves ({what})")
    click.echo(f"{nodes} nodes visited in {elapsed:.2f} s ({nodes / elapsed if elapsed > 0 else 0:.0f} nodes/s)")
    return EXIT_OK


def _perft_infosets(rs, n: int, depth: int | None, chance: str, as_json: bool) -> int:
    """``perft --infosets``: the whole tree (every chance outcome a branch), its terminal
    histories and each player's information sets (distinct ``State.information_state`` keys
    where the player decides)."""
    if depth is not None:
        raise click.UsageError("--infosets counts the whole tree: leave out --depth")
    if chance != "enumerate" and has_chance(rs):
        raise click.UsageError(f"{rs.name} has chance: --infosets needs --chance enumerate (every outcome a branch)")
    start = time.perf_counter()
    tree = enumerate_tree(rs, n, budget=None, infosets=True)
    elapsed = time.perf_counter() - start
    counts = [len(s) for s in tree.infosets]
    if as_json:
        _echo_json({"ruleset": rs.name, "variant": rs.variant, "players": n, "chance": "enumerate",
                    "terminal_histories": tree.terminals, "nodes": tree.nodes, "infosets": counts,
                    "infosets_total": sum(counts), "seconds": round(elapsed, 3)})
        return EXIT_OK
    click.echo(f"{tree.terminals} terminal histories")
    click.echo(f"{sum(counts)} information sets: " + ", ".join(f"P{p + 1} {c}" for p, c in enumerate(counts)))
    click.echo(f"{tree.nodes} nodes visited in {elapsed:.2f} s")
    return EXIT_OK


def _perft_subtrees(st: State, depth: int | None, want: int = 16) -> tuple[list, int]:
    """The tree below ``st`` cut, level by level, into at least ``want`` subtrees (fewer when the
    tree is smaller): ``([(state, depth left)], nodes above them)``; the subtrees' perft counts
    plus those nodes are ``perft(st, depth)``'s.  ``st`` is used up, as by :func:`perft`."""
    level, nodes = [(st, depth)], 0
    while len(level) < want:
        deeper, grew = [], False
        for s, d in level:
            if s.finished or d == 0:
                deeper.append((s, d))  # a leaf: a subtree of one node
                continue
            grew, nodes = True, nodes + 1
            actions = s.legal_actions()
            for i, a in enumerate(actions):
                child = s if i == len(actions) - 1 else s.clone()
                child.apply(a)
                deeper.append((child, None if d is None else d - 1))
        if not grew:
            break
        level = deeper
    return level, nodes


# -- serve (issue 19: the browser table) --------------------------------------------------------


@cli.command(short_help="Serve tables to play in the browser.")
@click.argument("ruleset", metavar="[RULESET]", required=False)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (0.0.0.0: every network).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True, help="Port to listen on.")
@click.option("--db", "db", default="tapster-tables.sqlite", show_default=True, type=click.Path(dir_okay=False),
              help="The SQLite file keeping the tables (restored on start; created readable by its owner only).")
@click.option("--max-agent-seconds", type=click.FloatRange(0.1, 3600), default=3.0, show_default=True,
              help="The longest an agent may think a move (mcts:seconds=...).")
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
@click.option("--allowed-host", "allowed_hosts", multiple=True, metavar="NAME",
              help="A Host name the server answers to (repeatable; default: the loopback names on 127.0.0.1, any otherwise).")
@click.option("--trusted-proxy", "proxies", multiple=True, metavar="ADDRESS",
              help="A reverse proxy's address whose X-Forwarded-For and X-Forwarded-Proto are believed (repeatable; default: none).")
@click.option("--allowed-origin", "origins", multiple=True, metavar="URL",
              help="Another origin (https://example.org) whose pages may POST here (repeatable; default: none).")
def serve(ruleset, host, port, db, max_agent_seconds, max_agent_iterations, agent_workers, tables_per_client,
          creations_per_hour, finished_hours, idle_hours, max_connections, connections_per_client, request_timeout,
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
                    request_timeout=request_timeout, connections_per_client=connections_per_client)
    run_server(ruleset, host, port, db, limits, list(allowed_hosts) or None, tuple(origins), tuple(proxies))
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
