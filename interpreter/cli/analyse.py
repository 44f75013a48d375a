"""Analysis: ``tapster simulate`` (many games, a summary), ``analyse`` (the balance report),
``compare`` (variants or parameters side by side), ``tune`` (parameter search) and ``perft``
(counting the game tree).  Each parses its options and prints; the work is in
:mod:`interpreter.analysis`."""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from ..agents.core import seat_name
from ..analysis.simulate import (
    DRAW_NOTE,
    SHARED_WIN_NOTE,
    PerftTable,
    SimSpec,
    Summary,
    game_seed,
    perft,
    perft_subtrees,
    remember_ruleset,
    run_games,
)
from ..compile.facts import enumerate_tree
from ..compile.ruleset import Ruleset
from ..errors import TapsterError
from ..interop.encoding import has_chance
from ..limits import (
    MAX_GAMES,
    MAX_JOBS,
    MAX_SEED,
)
from ..limits import MAX_PERFT_DEPTH as MAX_DEPTH
from .common import (
    _AUTO_AGENTS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    _auto_agents_opt,
    _check_players,
    _echo_json,
    _fresh_seed,
    _json_opt,
    _load,
    _param_opt,
    _parse_agents,
    _parse_params,
    _players_opt,
    _progress,
    _ruleset_arg,
    _seat_agents,
    _seed_opt,
    _stderr,
    _stdout,
    _variant_opt,
    cli,
)


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


def speed(count: int, seconds: float, unit: str) -> str:
    """How fast ``count`` ``unit``s took ``seconds``, in the unit that reads right: ``"120
    games/s"``, or below one a second ``"2.5 s per game"`` (never ``"0 games/s"``); ``"n/a"``
    for no count or no time."""
    if count <= 0 or seconds <= 0:
        return "n/a"
    rate = count / seconds
    if rate < 1:
        return f"{seconds / count:.3g} s per {unit}"
    return f"{rate:.0f} {unit}s/s"


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
        f"{s['games']} playouts in {s['seconds']:.2f} s: {speed(s['games'], s['seconds'], 'playout')}",
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
    click.option("--skill-games", type=click.IntRange(0, MAX_GAMES), default=100, show_default=True,
                 help="Games of each agent's skill check against random play (0: none)."),
    _json_opt,
]


def _parse_agent_sets(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> list[list[str]]:
    """Each ``--agents A,B,...`` as a list of agents (``[["random"]]`` when none is given)."""
    return [_parse_agents(ctx, param, v) for v in values] or [["random"]]


_ladder_agents_opt = click.option(
    "--agents", "-a", multiple=True, callback=_parse_agent_sets, metavar="A,B,...",
    help=f"Agents by seat, comma-separated ({', '.join(_AUTO_AGENTS)}; no person plays here; parameters after colons; "
         "the last one repeats). Given twice (a weak and a strong set, as greedy then ismcts:seconds=0.1), the report "
         "gives the headline metrics under both, side by side. Default: random.")


def _balance_options(f, ladder: bool = False):
    for opt in reversed(_balance_opts):
        f = (_ladder_agents_opt if ladder and opt is _auto_agents_opt else opt)(f)
    return f


def _ladder_options(f):
    return _balance_options(f, ladder=True)


class _Run:
    """What the analyse and compare commands share: the sides' rulesets, the progress bar, the
    exporter; ``play(name, rs, variant, params)`` -> (tally, finished)."""

    def __init__(self, ruleset, players, seed, agents, jobs, backend, ray_address, games, precision, max_games,
                 export_file, as_json, skill_games: int = 0):
        self.ruleset, self.players, self.agents = ruleset, players, agents
        self.seed = _fresh_seed() if seed is None else seed
        self.jobs = jobs or os.cpu_count() or 1
        self.backend, self.ray_address = backend, ray_address
        self.games, self.precision, self.max_games = games, precision, max_games
        self.export_file, self.as_json = export_file, as_json
        self.interrupted = False
        self.played = 0
        self.skill_games = skill_games
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
        from ..analysis.balance import Tally, declared_info
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
            states.append((spec, rs, Tally(n, info=declared_info(rs)), task, export, advance))
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

    def skill(self, rs: Ruleset, n: int, names: list[str], variant, params: dict) -> list[dict]:
        """The skill check (:func:`interpreter.analysis.runner.skill_check`) of each distinct agent
        of ``names`` but ``random``, on this run's seed, with ``--skill-games`` games (none: [])."""
        from ..analysis.runner import skill_check

        if not self.skill_games or self.interrupted:
            return []
        spec = SimSpec(str(Path(rs.path).resolve()), variant, tuple(sorted(params.items())), n, self.seed, tuple(names))
        out = []
        for agent in dict.fromkeys(names):
            if agent == "random":
                continue
            task = self.progress.add_task(f"skill check: {agent}", total=None) if self.progress else None
            try:
                out.append(skill_check(spec, agent, self.skill_games, jobs=self.jobs, backend=self.backend,
                                       ray_address=self.ray_address, ruleset=rs))
            except KeyboardInterrupt:
                self.interrupted = True
                break
            finally:
                if self.progress:
                    self.progress.remove_task(task)
        return out

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
                "games_per_second": self.played / self.seconds if self.seconds > 0 else None,
                "seconds_per_game": self.seconds / self.played if self.played else None, "interrupted": self.interrupted}

    def footer(self, out: Console) -> None:
        out.print(Text(f"seed {self.seed}; {self.played} games in {self.seconds:.1f} s "
                       f"({speed(self.played, self.seconds, 'game')}, {self.jobs} {self.backend} job(s)); "
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
@_ladder_options
@click.option("--ladder", is_flag=True,
              help="Report the headline metrics under two agent strengths side by side: random and greedy, "
                   "unless two --agents are given.")
def analyse(ruleset, variant, params, games, precision, max_games, players, seed, agents, jobs, backend, ray_address,
            report_dir, export_file, skill_games, as_json, ladder) -> int:
    """Play many games and report the ruleset's balance (see docs/user-guide.md, "Balance analysis").

    Every report names its agents with a skill check against random play (--skill-games), lists
    how the games ended and warns first when most ended by a cap (the action limit or `limits: {caps}`).  Two --agents (or
    --ladder) play the analysis under both agent strengths and say which conclusions do not hold
    under both.  Game i of a run is seeded (SEED, i): the numbers do not depend on --jobs or
    --backend.  Ctrl-C stops at once and summarises the games finished (exit status 130)."""
    from ..analysis.balance import ladder_notes, metrics
    from ..analysis.report import analysis_tables, ladder_table, sweep_table, write_report

    agent_sets = agents
    if ladder and len(agent_sets) == 1:
        agent_sets = [["random"], ["greedy"]] if agent_sets == [["random"]] else [["random"], agent_sets[0]]
    if len(agent_sets) > 2:
        raise click.BadParameter(f"{len(agent_sets)} agent strengths: give one or two --agents", param_hint="--agents")
    swept = [k for k, v in params.items() if len(v) > 1]
    if len(swept) > 1:
        raise click.BadParameter(f"sweep one parameter at a time, not {', '.join(swept)}", param_hint="--param")
    fixed = {k: v[0] for k, v in params.items() if len(v) == 1}
    values = params[swept[0]] if swept else [None]
    runs, all_names, skills = [], [], []
    run = _Run(ruleset, players, seed, agent_sets[0], jobs, backend, ray_address, games, precision, max_games, export_file,
               as_json, skill_games)
    with run:
        for agent_set in agent_sets:
            run.agents = agent_set
            sides = []
            for v in values:
                p = dict(fixed, **({swept[0]: v} if swept else {}))
                sides.append((_side_name(variant, p), variant, p, *run.side(variant, p)))
            analyses, names_of = [], []
            for name, var, p, rs, n, names in sides:
                label = name if len(agent_sets) == 1 else f"{name}, {','.join(agent_set)}"
                tally = run.play(label, rs, n, names, var, p)
                analyses.append((name, metrics(tally)))
                names_of.append(names)
                if run.interrupted:
                    break
            name, var, p, rs, n, names = sides[0]
            skills.append(run.skill(rs, n, names, var, p))
            runs.append(analyses)
            all_names.append(names_of)
            if run.interrupted:
                break
    run.agents = agent_sets if len(agent_sets) > 1 else agent_sets[0]
    title = f"{sides[0][3].title}: balance report"
    strengths = [",".join(dict.fromkeys(names[0])) for names in all_names]
    notes = ladder_notes(strengths, runs) if len(runs) > 1 and all(len(r) == len(runs[0]) for r in runs) else []
    flat = [(a if len(runs) == 1 else f"{a}, {s}", m) for s, analyses in zip(strengths, runs) for a, m in analyses]
    flat_sides = [(a, s) for s, analyses in zip(strengths, runs) for a, _ in analyses]
    flat_names = [names for names_of in all_names for names in names_of]
    flat_skill = [skills[k] for k, analyses in enumerate(runs) for _ in analyses]
    if report_dir and flat:
        write_report(report_dir, title, flat, sweep=(swept[0], values[:len(runs[0])]) if swept and len(runs) == 1 else None,
                     agents=flat_names, skill=flat_skill, notes=notes, ladder=(strengths, runs) if len(runs) > 1 else None)
    if as_json:
        _echo_json({**run.head(), "variant": variant, "sweep": swept[0] if swept else None,
                    "analyses": [{"side": side, "strength": strength, "agents": names, "metrics": m, "skill": sk}
                                 for (_, m), (side, strength), names, sk in zip(flat, flat_sides, flat_names, flat_skill)],
                    "ladder": {"strengths": strengths, "notes": notes} if len(runs) > 1 else None})
    else:
        out = _stdout()
        for note in notes:
            out.print(Text(note, style="bold"))
        for (name, m), names, sk in zip(flat, flat_names, flat_skill):
            for item in analysis_tables(f"{title} ({name}, {m['games']} games)", m, names, skill=sk):
                out.print(item)
        if swept and len(runs) == 1:
            out.print(sweep_table(swept[0], values[:len(runs[0])], runs[0]))
        if len(runs) > 1:
            out.print(ladder_table(strengths, runs))
            for note in notes:
                out.print(Text(note, style="bold"))
        run.footer(out)
        if report_dir and flat:
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
@click.option("--allow-capped", is_flag=True,
              help="With --games auto: decide even when most games of a side ended by a cap (the action limit or `limits: {caps}`).")
@click.pass_context
def compare(ctx, ruleset, sides, games, precision, max_games, players, seed, agents, jobs, backend, ray_address,
            report_dir, export_file, skill_games, as_json, unpaired, allow_capped) -> int:
    """Analyse each SIDE and compare every later side with the first: each metric's difference
    with its 95% interval and a test, and a sentence.  Game i of every side is seeded (SEED, i),
    so the sides are compared as pairs of games: the interval of the per-seed differences,
    McNemar's exact test for rates and the paired t for means (--unpaired: two-proportion z and
    Welch's t).  With --games auto the sides play the same rounds and stop when every win rate
    and first-player win rate difference is decided (see docs/user-guide.md).  A SIDE is `base`, a variant and/or
    NAME=VALUE pairs joined by commas
    (`tapster compare beer_flights base turns=5`, `tapster compare drink_and_beat base complex`)."""
    from ..analysis.balance import PerGame, capped, declared_info, metrics
    from ..analysis.balance import compare as compare_tallies
    from ..analysis.report import agents_line, analysis_tables, cap_warning, comparison_table, write_report
    from ..analysis.runner import comparison_decided

    if len(sides) < 2:
        raise click.UsageError("compare needs at least two sides (e.g. base turns=5)")
    run = _Run(ruleset, players, seed, agents, jobs, backend, ray_address, games, precision, max_games, export_file, as_json,
               skill_games)
    parsed = []
    for text in sides:
        variant, p = _parse_side(ctx, text)
        parsed.append((text, variant, p, *run.side(variant, p)))
    per_game = [None if unpaired else PerGame(n, tuple(declared_info(rs))) for _, _, _, rs, n, _ in parsed]
    for name, _, _, _, n, _ in parsed[1:]:
        if n != parsed[0][4]:
            raise TapsterError(f"side {name} has {n} players, {parsed[0][0]} {parsed[0][4]}: use --players")

    def decided(tallies, rounds):
        if not allow_capped and any(capped(t)["majority"] for t in tallies):
            return True  # no verdict on games that never ended: more of them would not give one
        return comparison_decided(tallies, None if unpaired else per_game, precision, rounds)

    with run:
        played = run.play_sides([(name, rs, n, names, variant, p, pg)
                                 for (name, variant, p, rs, n, names), pg in zip(parsed, per_game)], decided)
        name0, variant0, p0, rs0, n0, names0 = parsed[0]
        skill = run.skill(rs0, n0, names0, variant0, p0)
    tallies = [(name, names, t) for (name, _, _, _, _, names), t in zip(parsed, played)]
    if run.interrupted:  # Ctrl-C: the sides that had begun
        tallies = tallies[:1] + [side for side in tallies[1:] if side[2].games + side[2].errors]
    comparisons = []
    for k, (name, _, t) in enumerate(tallies[1:], 1):
        pairs = None if unpaired else (per_game[0], per_game[k])
        comparisons.append((tallies[0][0], name, compare_tallies(tallies[0][2], t, pairs=pairs)))
    analyses = [(name, metrics(t)) for name, _, t in tallies]
    capped_sides = [name for name, m in analyses if m["capped"]["majority"]]
    withheld = None
    if capped_sides and games is None and not allow_capped:
        withheld = (f"no verdict: most games of {', '.join(capped_sides)} ended by a cap (the action limit or the rules' "
                    f"declared caps), not by the rules; "
                    f"--games auto stopped without deciding (--allow-capped to decide anyway)")
    notes = [w for w in [*(cap_warning(m, names) for (_, m), (_, names, _) in zip(analyses, tallies)), withheld] if w]
    if report_dir and analyses:
        write_report(report_dir, f"{parsed[0][3].title}: {' vs '.join(sides)}", analyses,
                     comparison=[r for _, _, rows in comparisons for r in rows],
                     agents=[names for _, names, _ in tallies], skill=[skill] * len(analyses), notes=notes)
    if as_json:
        _echo_json({**run.head(), "sides": [{"side": name, "agents": names, "metrics": m}
                                            for (name, m), (_, names, _) in zip(analyses, tallies)],
                    "paired": not unpaired, "skill": skill, "warnings": notes, "verdict_withheld": withheld is not None,
                    "comparisons": [{"a": a, "b": b, "rows": rows} for a, b, rows in comparisons]})
    else:
        out = _stdout()
        for note in notes:
            out.print(Text(note, style="bold red"))
        out.print(Text(agents_line(tallies[0][1], skill)))
        for (name, m), (_, names, _) in zip(analyses, tallies):
            tables = analysis_tables(f"{name} ({m['games']} games)", m, names, actions=0)
            out.print(next(x for x in tables if not isinstance(x, Text)))
            ends = ", ".join(f"{r['reason']}{' (the cap)' if r['cap'] else ''} {r['share']:.0%}"
                             for r in m["end_reasons"][:5])
            out.print(Text(f"{name}: how the games ended: {ends or 'n/a'}"))
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
              help="What a metric should be (first_player_advantage=0, duration=20..30, drawishness<=0.05, "
                   "position_spread<=0.1, or a metric the ruleset declares); several allowed.")
@click.option("--choose", type=click.Choice(["nearest", "middle", "closest"]), default="nearest", show_default=True,
              help="Among the settings that meet every target: nearest the ruleset's current value (then the middle "
                   "of the range that meets them), the middle of that range, or closest to the targets.")
@click.option("--allow-capped", is_flag=True,
              help="Call a setting best even when most of its games ended by a cap (the action limit or `limits: {caps}`).")
@click.option("--skill-games", type=click.IntRange(0, MAX_GAMES), default=100, show_default=True,
              help="Games of each agent's skill check against random play (0: none).")
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
def tune(ruleset, variant, spaces, fixed, targets, choose, allow_capped, skill_games, games, precision, max_games, trials, budget, seconds,
         confirm, no_prune, players, seed, agents, jobs, backend, ray_address, report_dir, as_json) -> int:
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

    from ..analysis.balance import declared_info

    parsed = [parse_space(text, read) for text in spaces]
    names_seen = [sp.name for sp in parsed]
    if len(set(names_seen)) < len(names_seen):
        raise click.BadParameter("each parameter is searched once", param_hint="--param")
    run = _Run(ruleset, players, seed, agents, jobs, backend, ray_address, games, precision, max_games, None, as_json,
               skill_games)
    base_rs, n, seat_names = run.side(variant, dict(fixed))
    info = declared_info(base_rs)
    goals = [parse_target(text, info) for text in targets]
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
                            seconds=seconds, trials=trials, confirm=confirm, prune=not no_prune, choose=choose,
                            allow_capped=allow_capped)
    base = {sp.name: base_rs.params[sp.name] for sp in parsed if sp.name in base_rs.params}
    tuner = Tuner(parsed, goals, play, n, settings, info=info, base=base)
    with run:
        task = run.progress.add_task("tune", total=budget) if run.progress else None
        if backend == "ray":
            with ray_session(run.jobs, ray_address):
                result = tuner.run()
        else:
            result = tuner.run()
        run.interrupted = result["interrupted"]
        skill = run.skill(base_rs, n, seat_names, variant, dict(fixed))
    run.played = result["games_played"]
    run.interrupted = result["interrupted"]
    title = f"{base_rs.title}: tune " + ", ".join(spaces) + " for " + ", ".join(targets)
    if report_dir and result["trials"]:
        write_tune_report(report_dir, title, result)
    if as_json:
        _echo_json({**run.head(), "variant": variant, "fixed": fixed, "agents": seat_names, "skill": skill, **result})
    else:
        from ..analysis.report import agents_line

        out = _stdout()
        out.print(Text(agents_line(seat_names, skill)))
        for item in tune_tables(title, result):
            out.print(item)
        run.footer(out)
        if report_dir and result["trials"]:
            out.print(Text(f"report: {Path(report_dir) / 'index.html'}"))
    return EXIT_INTERRUPTED if run.interrupted else EXIT_OK




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
    subtrees, nodes = perft_subtrees(st, depth)  # so that the progress bar moves
    leaves, table = 0, PerftTable()  # one table: a position reached from two subtrees is counted once
    with _progress(as_json) as progress:
        task = progress.add_task(f"perft {rs.name}: subtrees", total=len(subtrees))
        for sub, sub_depth in subtrees:
            sub_leaves, sub_nodes = perft(sub, sub_depth, table)
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
