"""Playing: ``tapster play`` (one game at the terminal, a replay log), ``replay`` (a log checked
and stepped through as a seat saw it) and ``serve`` (tables in the browser)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click
from rich.table import Table
from rich.text import Text

from ..agents.core import QuitGame, make_agent, seat_name
from ..analysis.simulate import agent_seed
from ..compile.ruleset import Ruleset
from ..errors import IllegalActionError, Mark, TapsterError
from ..limits import (
    MAX_LOG_ACTIONS,
    MAX_NUMBER_CHARS,
    MAX_PLAYERS,
)
from ..loader.load import load_yaml_text
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
    _ruleset_arg,
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
    # Seats that nothing separates share a place (1, 1, 3, ...): the numbering of the views.
    place = {p: n for n, seats, _ in places(outcome.to_json(), bool(rs.tiebreaks)) for p in seats}
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
