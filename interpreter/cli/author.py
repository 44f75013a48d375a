"""Authoring: ``tapster validate`` (every problem as file:line:col), ``test`` (scenarios),
``check`` (generic invariants), ``info`` (a ruleset described, or its generated source),
``schema`` (the schema's path or modeline) and ``map`` (a map drawn to an image)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click
from rich.console import Console
from rich.progress import Progress
from rich.table import Table
from rich.text import Text

from ..analysis.check import BUDGET as CHECK_BUDGET
from ..analysis.check import CHECKS, run_check
from ..analysis.scenarios import run_scenarios
from ..compile.compiler import RulesetErrors, available_rulesets, find_ruleset, load_ruleset
from ..compile.lint import warnings as lint_warnings
from ..errors import Mark, SchemaError, TapsterError
from ..interop.encoding import describe_encoding
from ..limits import (
    MAX_GAMES,
    MAX_PLAYERS,
    MAX_SEED,
    MAX_VARIANTS,
)
from ..loader.load import load_yaml
from ..views.terminal import endings, phases
from .common import (
    EXIT_FAIL,
    EXIT_OK,
    _above,
    _check_players,
    _echo_json,
    _json_opt,
    _load,
    _param_opt,
    _progress,
    _ruleset_arg,
    _stdout,
    _variant_opt,
    cli,
    read_text_file,
)

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
@click.option("--state", "state_file", type=click.Path(dir_okay=False),
              help="Draw this saved game (State.to_json() as JSON) instead of a fresh one: its pieces and owners.")
@click.option("--seat", type=click.IntRange(1, MAX_PLAYERS), metavar="P",
              help="Draw only what seat P (1 is P1) may see: pieces and owners in zones hidden from P are left out.")
@_param_opt
def map_cmd(ruleset, variant, out_file, map_name, zone, colour, players, seed, state_file, seat, params) -> int:
    """Draw a ruleset's map (networkx + matplotlib): nodes at their x, y, coloured by a node
    attribute, the pieces of a keyed zone on their nodes and each claimed edge in its owner's
    colour, in a fresh seeded game or the saved game of --state; with --seat P, as P sees it."""
    from ..loader.maps import colour_problem, draw_map, map_marks

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
    if zone and (zone not in rs.zones or not rs.zones[zone].keyed):
        raise click.UsageError(f"--zone must name a keyed zone, not {zone!r}")
    if state_file is not None and players is not None:
        raise click.UsageError("--players is for a fresh game: a saved --state has its own")
    pieces: dict = {}
    owners: dict = {}
    if zone or gm.edge_kind or state_file is not None:
        st = _saved_state(rs, state_file) if state_file is not None else rs.new_game(_check_players(rs, players), seed=seed)
        if seat is not None and seat > st.num_players:
            raise click.BadParameter(f"the game has {st.num_players} players, not {seat}", param_hint="--seat")
        obs = st.observation(None if seat is None else seat - 1)
        pieces, owners = map_marks(gm, obs, rs.zones, zone, lambda cid: rs.by_id[cid].label)
    title = f"{rs.title}: map {name}" + ("" if seat is None else f", as P{seat} sees it")
    draw_map(gm, out_file, colour=colour, label=spec.get("label"),
             pieces=pieces, title=title, edge_style=edge_style, owners=owners)
    _stdout().print(Text(f"wrote {out_file}"))
    return EXIT_OK


def _saved_state(rs, path: str):
    """The game saved in the JSON file ``path`` (``State.to_json()``), checked against ``rs``.

    Raises:
        TapsterError: the file is not a regular file, too large, not JSON, or not a saved state
            of this ruleset and variant (file:line:col where JSON says where).
    """
    from ..engine.state import State

    text = read_text_file(path, "saved state")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TapsterError(f"not a JSON saved state: {exc.msg}", Mark(path, exc.lineno, exc.colno)) from None
    except (RecursionError, ValueError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise TapsterError(f"not a saved state: {why}", Mark(path, 1, 1)) from None
    try:
        return State.from_json(rs, data)
    except TapsterError as exc:
        raise TapsterError(exc.message, Mark(path, 1, 1)) from None


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
    some seat may not see; see README "Display"), as file:line:col: note: lines."""
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
