"""Authoring: ``tapster validate`` (every problem as file:line:col), ``info`` (a ruleset
described, or its generated source), ``schema`` (the schema's path or modeline) and ``map`` (a
map drawn to an image).  Running a ruleset's scenarios and invariants is in :mod:`.checks`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..compile.compiler import RulesetErrors, find_ruleset, load_ruleset
from ..compile.lint import warnings as lint_warnings
from ..errors import Mark, SchemaError, TapsterError
from ..limits import (
    MAX_PLAYERS,
    MAX_SEED,
    MAX_VARIANTS,
)
from ..loader.load import load_yaml
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
@click.option("--tensor", is_flag=True, help="Print the observation tensor's layout instead (offset, size, what, encoding, bounds).")
@_json_opt
def info(ruleset, variant, params, source, tensor, as_json) -> int:
    """Describe a ruleset: players, variants, parameters, components, zones, decisions,
    scenarios.  With --source, the Python code the ruleset compiles to, each function headed
    by the file:line:column it implements (how a misbehaving rule is debugged).  With --tensor,
    the observation tensor's layout for the default seat count, part by part (the adapters'
    ``observation_tensor``; :mod:`interpreter.interop.layout`)."""
    from ..interop.encoding import describe_encoding  # numpy: only info needs it here
    from ..views.terminal import endings, phases

    rs = _load(ruleset, variant, params)
    if source:
        for _place, src in rs.sources:
            click.echo(src)
        return EXIT_OK
    if tensor:
        return _info_tensor(rs, as_json)
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


def _info_tensor(rs, as_json: bool) -> int:
    """``tapster info --tensor``: the observation tensor's layout, one row per part."""
    from ..interop.layout import LAYOUT_VERSION, TensorLayout

    layout = TensorLayout(rs, rs.default_players)
    if as_json:
        low, high = layout.bounds()
        _echo_json({"players": rs.default_players, "version": LAYOUT_VERSION, "size": layout.size, "parts": layout.describe(),
                    "low": [None if x == -float("inf") else float(x) for x in low.tolist()],
                    "high": [None if x == float("inf") else float(x) for x in high.tolist()]})
        return EXIT_OK
    out = _stdout()

    def bound(lo, hi) -> str:
        return f"{'-inf' if lo is None else lo} … {'inf' if hi is None else hi}"
    _info_table(out, f"observation tensor ({rs.default_players} players: {layout.size} float32 values, layout version {LAYOUT_VERSION})",
                ["offset>", "size>", "part", "what", "encoding", "bounds"],
                [(str(p["offset"]), str(p["size"]), p["name"], p["what"], p["encoding"], bound(p["low"], p["high"]))
                 for p in layout.describe()])
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
        report = [{"file": file, **_checked(file, variant)} for file in files]
        for r in report:
            r["ok"] = not r["problems"] and not (strict and r["warnings"])
        _echo_json({"ok": all(r["ok"] for r in report), "files": report})
        return EXIT_OK if all(r["ok"] for r in report) else EXIT_FAIL
    with _progress(False) as progress:
        task = progress.add_task("validate", total=len(files))
        for file in files:
            progress.update(task, description=f"validate {file}")
            found = _checked(file, variant)
            problems, warned = found["problems"], found["warnings"]
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
                for line in found["notes"]:
                    _above(progress, line)
                _above(progress, f"ok: {file}", err=False)
    return EXIT_FAIL if bad else EXIT_OK


def _checked(file: str, variant: str | None) -> dict:
    """``{"problems", "warnings", "notes"}`` of ``file`` (lists of text lines), remembered by
    content (:mod:`interpreter.loader.results`): validating an unchanged ruleset with an
    unchanged engine again reads the answer instead of compiling every variant."""
    from ..loader.load import recording
    from ..loader.results import lookup, store

    try:
        parts = [file, str(find_ruleset(file).resolve()), variant, os.getcwd()]
    except (TapsterError, OSError):
        parts = None
    if parts is not None:
        hit = lookup("validate", parts)
        if (isinstance(hit, dict) and set(hit) == {"problems", "warnings", "notes"}
                and all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in hit.values())):
            return hit
    with recording() as reads:
        problems, rs = _problems(file, variant)
        found = {"problems": problems, "warnings": _warnings(file), "notes": _notes(rs)}
    if parts is not None:
        store("validate", parts, reads, found)
    return found


def _notes(rs) -> list[str]:
    """Notes on a valid ruleset ``rs`` (None: not valid, no notes): each part of its display that
    only observers see (it reads what some seat may not see; see docs/authoring.md, "Display"), as
    file:line:col: note: lines."""
    if rs is None or rs.display is None:
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


def _problems(file: str, only_variant: str | None) -> tuple[list[str], object]:
    """Every problem of ``file`` and its variants as text lines (base problems first), and the
    compiled ruleset whose display notes are shown (``only_variant``'s, else the base; None
    when it does not compile)."""
    shown = None
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
        return lines, None
    try:
        shown = load_ruleset(path, blocks=False)  # checked, not played: the flow needs no code
    except TapsterError as exc:
        add(exc)
        if isinstance(exc, RulesetErrors) and any(isinstance(e, SchemaError) for e in exc.errors):
            return lines, None  # the document itself is not a ruleset: its variants would only repeat that
    variants = (doc.data.get("variants") or {}) if isinstance(doc.data, dict) else {}
    names = list(variants)[:MAX_VARIANTS] if isinstance(variants, dict) else []
    if only_variant is not None:
        chosen = [v.strip() for v in only_variant.split(",")]
        unknown = [v for v in chosen if v not in names]
        if unknown:
            lines.append(f"{file}: no variant {unknown[0]!r} (variants: {', '.join(names) or 'none'})")
            return lines, None
        names = [",".join(chosen)]
        shown = None  # the notes are the chosen variant's
    for v in names:
        try:
            compiled = load_ruleset(path, v, blocks=False)
            if only_variant is not None:
                shown = compiled
        except TapsterError as exc:
            add(exc, f" (variant {v})")
    return lines, shown


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
