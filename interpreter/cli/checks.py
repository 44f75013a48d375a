"""Running a ruleset's own checks: ``tapster test`` (its scenarios) and ``check`` (every generic
invariant over random games)."""

from __future__ import annotations

from pathlib import Path

import click
from rich.progress import Progress
from rich.text import Text

from ..analysis.check import BUDGET as CHECK_BUDGET
from ..analysis.check import CHECKS, run_check
from ..analysis.scenarios import run_scenarios
from ..compile.compiler import RulesetErrors, available_rulesets
from ..errors import TapsterError
from ..limits import (
    MAX_GAMES,
)
from .common import (
    EXIT_FAIL,
    EXIT_OK,
    _above,
    _echo_json,
    _json_opt,
    _load,
    _param_opt,
    _progress,
    _ruleset_arg,
    _stdout,
    cli,
)

# -- map ----------------------------------------------------------------------------------------


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
