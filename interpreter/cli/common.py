"""What every command shares: the ``tapster`` click group, ``main`` (exit codes, errors printed
as ``file:line:col: message``), the shared options (ruleset, players, variant, seed, agents,
params, json), loading with parameter overrides, consoles and the progress bar."""

from __future__ import annotations

import json
import os
import secrets
import sys
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from ..agents.core import AGENTS, parse_agent
from ..compile.compiler import RulesetErrors, load_ruleset
from ..compile.ruleset import Ruleset
from ..errors import TapsterError, close_matches
from ..limits import (
    MAX_LOG_BYTES,
    MAX_PARAM_TEXT,
    MAX_PLAYERS,
    MAX_SEED,
)
from ..loader.load import load_yaml_text

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130  # Ctrl-C, as shells report it


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


#: Which module of ``interpreter.cli`` defines each command: a command's module is imported when
#: the command runs (or ``--help`` lists them all), so ``tapster validate`` does not import the
#: analysis, the agents' search or the web table.
COMMAND_MODULES = {
    "play": "play", "replay": "play", "serve": "play",
    "validate": "author", "info": "author", "schema": "author", "map": "author", "test": "checks", "check": "checks",
    "simulate": "analyse", "analyse": "analyse", "compare": "analyse", "tune": "analyse", "perft": "analyse",
}


class LazyGroup(click.Group):
    """A click group whose commands are registered by their modules (``COMMAND_MODULES``),
    imported when a command is first looked up (click's "lazily loading subcommands")."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(COMMAND_MODULES))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            from importlib import import_module

            import_module(f"{__package__}.{COMMAND_MODULES[cmd_name]}")  # registers it on this group
        return self.commands.get(cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tapster", prog_name="tapster", message="%(prog)s %(version)s")
def cli() -> None:
    """Tapster: play, simulate, replay, check and test tabletop games written as YAML rulesets.

    RULESET is a path to a ruleset.yaml (or its folder) or the name of a shipped ruleset.
    """


def read_text_file(path: str, what: str) -> str:
    """The text of the file ``path`` (``what`` names it in errors: "log", "saved state"): a
    regular file of at most MAX_LOG_BYTES (never a device, a FIFO or a folder).

    Raises:
        TapsterError: not a regular file, too large, unreadable, not UTF-8.
    """
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise TapsterError(f"cannot read the {what} {path}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise TapsterError(f"the {what} {path} is not a regular file")
        if info.st_size > MAX_LOG_BYTES:
            raise TapsterError(f"the {what} {path} is {info.st_size} bytes; the limit is {MAX_LOG_BYTES}")
        with os.fdopen(fd, "rb", closefd=False) as f:
            raw = f.read(MAX_LOG_BYTES + 1)
    except OSError as exc:
        raise TapsterError(f"cannot read the {what} {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(raw) > MAX_LOG_BYTES:
        raise TapsterError(f"the {what} {path} is larger than {MAX_LOG_BYTES} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TapsterError(f"the {what} {path} is not UTF-8 text ({exc.reason})") from None
