"""The balance report as files: an HTML page with PNG plots drawn by matplotlib (Agg backend,
no display needed), for one analysis, a comparison or a sweep.

``write_report(folder, title, analyses, comparison=None, sweep=None) -> Path`` writes
``index.html`` and its PNGs into ``folder`` (created when missing) and returns the page's path.
``analyses`` is a list of ``(name, metrics)`` with metrics as :func:`interpreter.analysis.balance.metrics`
gives them.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..errors import TapsterError  # noqa: E402
from .balance import trace_note  # noqa: E402

__all__ = ["ladder_table", "cap_warning", "agents_line", "declared_rows",
           "write_report", "plot_win_rates", "plot_lengths", "plot_scores", "plot_lead", "plot_sweep", "plot_tune",
           "write_tune_report", "tune_tables"]


def _err(e: dict) -> tuple[float, float]:
    return max(0.0, e["value"] - e["low"]), max(0.0, e["high"] - e["value"])


def _save(fig, path: Path) -> None:
    """Lay out ``fig``, write it to ``path`` (PNG, 100 dpi) and free it."""
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_win_rates(path: Path, analyses: list) -> None:
    """Per-seat and per-turn-position win rates with their 95% intervals, one group per run."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    width = 0.8 / max(1, len(analyses))
    for k, (name, m) in enumerate(analyses):
        for ax, key in zip(axes, ("win_rate", "win_rate_by_position")):
            rows = m[key]
            xs = [i + k * width for i in range(len(rows))]
            ys = [r["value"] for r in rows]
            lo_hi = list(zip(*[_err(r) for r in rows])) if rows else [[], []]
            ax.bar(xs, ys, width, yerr=lo_hi, capsize=3, label=name)
    n = len(analyses[0][1]["win_rate"])
    for ax, title, label in zip(axes, ("Win rate by seat", "Win rate by turn position"), ("P", "moved #")):
        ax.set_xticks([i + width * (len(analyses) - 1) / 2 for i in range(n)], [f"{label}{i + 1}" for i in range(n)])
        ax.axhline(1 / n, color="grey", linestyle="--", linewidth=1)
        ax.set_title(title)
    axes[0].set_ylabel("win rate (95% CI)")
    if len(analyses) > 1:
        axes[0].legend()
    _save(fig, path)


def plot_lengths(path: Path, analyses: list) -> None:
    """Histograms of game length in turns and in decisions."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.5))
    for name, m in analyses:
        for ax, key in zip(axes, ("Duration", "decisions")):
            hist = m[key]["histogram"]
            if hist:
                ax.bar([v for v, _ in hist], [c / m["games"] for _, c in hist], alpha=0.6, label=name, width=0.9)
    axes[0].set_title("Duration (turns)")
    axes[1].set_title("Decisions per game")
    axes[0].set_ylabel("share of games")
    if len(analyses) > 1:
        axes[0].legend()
    _save(fig, path)


def plot_scores(path: Path, analyses: list) -> None:
    """Final score distributions per seat and the winning margin."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.5))
    for name, m in analyses:
        for p, s in enumerate(m["scores"]):
            hist = s["histogram"]
            if hist:
                axes[0].step([v for v, _ in hist], [c / m["games"] for _, c in hist], where="mid",
                             label=f"{name} P{p + 1}" if len(analyses) > 1 else f"P{p + 1}")
        if m["margin"]:
            hist = m["margin"]["histogram"]
            axes[1].bar([v for v, _ in hist], [c / m["games"] for _, c in hist], alpha=0.6, label=name)
    axes[0].set_title("Final scores")
    axes[1].set_title("Winning margin (first - second)")
    axes[0].set_ylabel("share of games")
    axes[0].legend(fontsize="small")
    _save(fig, path)


def plot_lead(path: Path, analyses: list) -> None:
    """How often the eventual winner leads, by tenth of the game (the drama curve)."""
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for name, m in analyses:
        ys = m["winner_leads_by_decile"]
        xs = [(i + 0.5) / 10 for i in range(10)]
        pts = [(x, y) for x, y in zip(xs, ys) if y is not None]
        if pts:
            ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=name)
    ax.set_xlabel("share of the game played")
    ax.set_ylabel("eventual winner in the lead")
    ax.set_ylim(0, 1.05)
    ax.set_title("Lead of the eventual winner")
    if len(analyses) > 1:
        ax.legend()
    _save(fig, path)


def plot_sweep(path: Path, param: str, values: list, analyses: list, key: str, words: str) -> None:
    """Metric ``key`` (an interval) of each analysis against the swept ``param``'s values."""
    fig, ax = plt.subplots(figsize=(5, 3.4))
    ys, err = [], [[], []]
    for _, m in analyses:
        e = m.get(key)
        e = e["mean"] if isinstance(e, dict) and "mean" in e and isinstance(e["mean"], dict) else e
        if e is None:
            ys.append(float("nan"))
            err[0].append(0)
            err[1].append(0)
        else:
            ys.append(e["value"])
            lo, hi = _err(e)
            err[0].append(lo)
            err[1].append(hi)
    labels = [str(v) for v in values]
    ax.errorbar(range(len(values)), ys, yerr=err, marker="o", capsize=3)
    ax.set_xticks(range(len(values)), labels)
    ax.set_xlabel(param)
    ax.set_title(words)
    _save(fig, path)


#: The metrics a sweep plots: (key in the metrics, words).
SWEEP_PLOTS = [("advantage_p1", "first-player advantage"), ("Drawishness", "Drawishness"), ("Duration", "Duration (turns)"),
               ("margin", "winning margin"), ("LeadChange", "LeadChange"), ("Drama", "Drama"),
               ("Decisiveness", "Decisiveness")]


def _pct(e) -> str:
    return "n/a" if e is None else f"{e['value']:.1%} [{e['low']:.1%}, {e['high']:.1%}]"


def _num(e) -> str:
    if e is None:
        return "n/a"
    if isinstance(e, dict) and "mean" in e and isinstance(e["mean"], dict):
        e = e["mean"]
    if isinstance(e, (int, float)):
        return f"{e:.3g}"
    return f"{e['value']:.3g} [{e['low']:.3g}, {e['high']:.3g}]"


def _table(head: list[str], rows: list[list[str]]) -> str:
    out = ["<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for r in rows:
        out.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _analysis_html(name: str, m: dict, agents: list[str] | None = None, skill: list[dict] | None = None) -> str:
    parts = [f"<h2>{html.escape(name)}</h2>"]
    warning = cap_warning(m, agents or [])
    if warning:
        parts.append(f"<p style='color:#b00'><b>{html.escape(warning)}</b></p>")
    if agents:
        parts.append(f"<p>{html.escape(agents_line(agents, skill))}</p>")
    parts.append(f"<p>{m['games']} games; {m['limits_hit']} stopped by the action limit; {m['errors']} failed.</p>")
    parts.append("<h3>How the games ended</h3>" + _table(
        ["reason", "games", "share"],
        [[r["reason"] + (" (the cap)" if r["cap"] else ""), r["games"], f"{r['share']:.1%}"]
         for r in (m.get("end_reasons") or [])[:12]]))
    if m.get("declared"):
        parts.append("<h3>Declared metrics</h3>" + _table(["metric", "what", "mean per game", "per seat", "winners"],
                                                          [list(r) for r in declared_rows(m)]))
    rows = [[f"P{p + 1}", _pct(w), _pct(pos)] for p, (w, pos) in enumerate(zip(m["win_rate"], m["win_rate_by_position"]))]
    parts.append(_table(["seat / turn position", "win rate by seat", "win rate by turn position"], rows))
    summary = [
        ["Balance", _num(m["Balance"])], ["AdvantageP1 (win rate of who moved first)", _pct(m["AdvantageP1"])],
        ["first-player advantage (AdvantageP1 - 1/n)", _pct(m["advantage_p1"])], ["Drawishness", _pct(m["Drawishness"])],
        ["position spread (highest - lowest win rate by turn position)", _pct(m.get("position_spread"))],
        ["Duration (turns)", _num(m["Duration"])], ["decisions per game", _num(m["decisions"])],
        ["winning margin", _num(m["margin"])], ["LeadChange (per turn)", _traced(m, "LeadChange", _num)],
        ["lead changes per game", _traced(m, "lead_changes_per_game", _num)], ["Drama", _traced(m, "Drama", _num)],
        ["Decisiveness", _traced(m, "Decisiveness", _num)], ["BranchingFactor", _num(m["BranchingFactor"])],
        ["DecisionMoves", _num(m["DecisionMoves"])],
    ]
    parts.append(_table(["metric", "value [95% CI]"], summary))
    note = trace_note(m)
    if note:
        parts.append(f"<p>{html.escape(note)}</p>")
    acts = [[a["label"], f"{a['uses_per_game']:.2f}", _pct(a["in_winners"]), _pct(a["in_losers"]),
             f"{a['difference']['value']:+.1%} [{a['difference']['low']:+.1%}, {a['difference']['high']:+.1%}]",
             "n/a" if a["difference"]["p"] is None else f"{a['difference']['p']:.2g}"] for a in m["actions"][:60]]
    parts.append("<h3>Actions and components: in winners' and losers' games</h3>")
    parts.append(_table(["action", "uses per game", "used by winners", "used by losers", "difference", "p"], acts))
    return "\n".join(parts)


_STYLE = ("body{font-family:sans-serif;max-width:1100px;margin:auto}table{border-collapse:collapse;margin:8px 0}"
          "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child{text-align:left}img{max-width:100%}")


def write_report(folder: str | Path, title: str, analyses: list, comparison: list | None = None,
                 sweep: tuple | None = None, agents: list | None = None, skill: list | None = None,
                 notes: list[str] | None = None, ladder: tuple | None = None) -> Path:
    """Write ``index.html``, ``report.json`` and the PNGs into ``folder``; return the page's path.

    ``comparison``: rows of :func:`interpreter.analysis.balance.compare`; ``sweep``: ``(param, values)``
    when ``analyses`` are one per swept value; ``agents``: per analysis, the agents by seat;
    ``skill``: per analysis, its skill check (:func:`interpreter.analysis.runner.skill_check`);
    ``notes``: lines printed first (a ladder's conclusions, a withheld verdict); ``ladder``:
    ``(strengths, runs)`` of a two-strength analysis, drawn as :func:`ladder_rows`' table.

    Raises:
        TapsterError: the folder cannot be written.
    """
    out = Path(folder)
    try:
        out.mkdir(parents=True, exist_ok=True)
        pictures = [("win_rates.png", plot_win_rates), ("lengths.png", plot_lengths), ("scores.png", plot_scores),
                    ("lead.png", plot_lead)]
        for file, plot in pictures:
            plot(out / file, analyses)
        body = [f"<h1>{html.escape(title)}</h1>"]
        body += [f"<p><b>{html.escape(n)}</b></p>" for n in notes or ()]
        if ladder:
            header, rows = ladder_rows(*ladder)
            body.append("<h2>Headline metrics under each agent strength</h2>" + _table(header, rows))
        if comparison:
            body.append("<h2>Comparison</h2><ul>" + "".join(f"<li>{html.escape(r['sentence'])}</li>" for r in comparison)
                        + "</ul>")
        if sweep:
            param, values = sweep
            body.append(f"<h2>Sweep over {html.escape(param)}</h2>")
            for key, words in SWEEP_PLOTS:
                file = f"sweep_{key}.png"
                plot_sweep(out / file, param, values, analyses, key, words)
                body.append(f'<img src="{file}" alt="{html.escape(words)}" width="480">')
        body += [f'<img src="{file}" alt="{file}">' for file, _ in pictures]
        body += [_analysis_html(name, m, (agents or [None] * len(analyses))[k], (skill or [None] * len(analyses))[k])
                 for k, (name, m) in enumerate(analyses)]
        page = out / "index.html"
        page.write_text(f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
                        f"<style>{_STYLE}</style></head><body>{''.join(body)}</body></html>", encoding="utf-8")
        (out / "report.json").write_text(json.dumps({"title": title, "analyses": analyses, "comparison": comparison,
                                                     "agents": agents, "skill": skill, "notes": notes},
                                                    default=str), encoding="utf-8")
    except OSError as exc:
        raise TapsterError(f"cannot write the report to {out}: {exc.strerror or exc}") from None
    return page


# ---------------------------------------------------------------------------------------------
# The terminal: rich tables


def _traced(m: dict, key: str, show) -> str:
    """A metric of the score trace as ``show`` writes it, or "unavailable (no score trace)"."""
    if m.get(key) is None and (m.get("score_trace") or {}).get("unavailable"):
        return "unavailable (no score trace)"
    return show(m.get(key))


def _ci(e, pct: bool = True) -> str:
    if e is None:
        return "n/a"
    if pct:
        return f"{e['value']:.1%} ± {100 * (e['high'] - e['low']) / 2:.1f}"
    return f"{e['value']:.3g} ± {(e['high'] - e['low']) / 2:.2g}"


def cap_warning(m: dict, agents: list[str]) -> str | None:
    """The warning a report prints in its first lines when most games of metrics ``m`` ended by
    a cap (the action limit, or ``limits: {caps}``) rather than by the rules, naming the
    ``agents``; else None."""
    c = m.get("capped") or {}
    if not c.get("majority"):
        return None
    return (f"WARNING: {c['share']:.0%} of the games ({c['games']} of {m['games']}) ended by a cap (the action limit "
            f"or the rules' declared caps), not by the rules, with agents {', '.join(agents)}: the win rates leave out "
            f"the games the action limit stopped and count those a declared cap ended as if they had finished; "
            f"stronger agents (or a higher cap) may finish them")


def agents_line(agents: list[str], skill: list[dict] | None) -> str:
    """``"agents: P1 greedy, P2 random; skill check against random play: ..."``: the agents by
    seat and each one's :func:`interpreter.analysis.runner.skill_check` sentence."""
    line = "agents: " + ", ".join(f"P{p + 1} {a}" for p, a in enumerate(agents))
    if skill:
        line += "; skill check against random play in this run: " + "; ".join(s["sentence"] for s in skill)
    return line


def declared_rows(m: dict) -> list[tuple[str, str, str, str, str]]:
    """The declared metrics of ``m`` as rows ``(name, description, mean, per seat, winners)``."""
    rows = []
    for d in m.get("declared") or ():
        seats = ", ".join(f"P{p + 1} {_ci(e, False)}" for p, e in enumerate(d["per_seat"])) if d["per_seat"] else "-"
        rows.append((d["name"], d["description"], _ci(d["mean"], False), seats,
                     _ci(d["winner"], False) if d["winner"] else "-"))
    return rows


def analysis_tables(title: str, m: dict, agents: list[str], actions: int = 12, skill: list[dict] | None = None) -> list:
    """The rich tables of one analysis: first the warning when most games ended by the action
    limit (:func:`cap_warning`) and the agents with their skill check (:func:`agents_line`,
    ``skill`` from :func:`interpreter.analysis.runner.skill_check`), then seats (win rates and mean
    scores by seat and by turn position), how the games ended, the metrics (then, where games
    had no score trace, a line saying why), the declared metrics, and the ``actions`` actions
    whose use differs most between winners and losers."""
    from rich.table import Table
    from rich.text import Text

    head: list = []
    warning = cap_warning(m, agents)
    if warning:
        head.append(Text(warning, style="bold red"))
    head.append(Text(agents_line(agents, skill)))
    seats = Table(title=title)
    for col in ("seat", "agent", "win rate (95% CI)", "mean score", "sd", "turn position", "win rate (95% CI)",
                "mean score (95% CI)"):
        seats.add_column(col, justify="left" if col in ("seat", "agent", "turn position") else "right")
    by_pos = m.get("score_by_position") or [None] * len(m["win_rate"])
    for p, (w, pos, s, sp) in enumerate(zip(m["win_rate"], m["win_rate_by_position"], m["scores"], by_pos)):
        seats.add_row(f"P{p + 1}", agents[p], _ci(w), f"{s['mean']['value']:.2f}" if s["mean"]["n"] else "n/a",
                      f"{s['sd']:.2f}" if s["mean"]["n"] else "n/a", f"moved #{p + 1}",
                      _ci(pos) if m["position_games"] else "n/a", _ci(sp, False) if sp and sp["n"] else "n/a")
    ends = Table(title="How the games ended")
    for col in ("reason", "games", "share"):
        ends.add_column(col, justify="left" if col == "reason" else "right")
    for r in (m.get("end_reasons") or [])[:12]:
        ends.add_row(r["reason"] + (" (the cap)" if r["cap"] else ""), str(r["games"]), f"{r['share']:.1%}")
    table = Table(title="Metrics (95% CI; Ludii's names)")
    table.add_column("metric")
    table.add_column("value", justify="right")
    d, dec = m["Duration"], m["decisions"]
    rows = [
        ("Balance (1 - spread of seat win rates)", "n/a" if m["Balance"] is None else f"{m['Balance']:.3f}"),
        ("AdvantageP1 (win rate of who moved first)", _ci(m["AdvantageP1"])),
        ("first-player advantage (AdvantageP1 - 1/n)", _ci(m["advantage_p1"])),
        ("position spread (highest - lowest win rate by turn position)", _pct(m.get("position_spread"))),
        ("Drawishness (draws: no winner, or every seat won)", _ci(m["Drawishness"])),
        ("Duration (turns): mean, median [p10, p90]", f"{_ci(d['mean'], False)}, {d['median']} [{d['p10']}, {d['p90']}]"),
        ("decisions: mean, median [p10, p90]", f"{_ci(dec['mean'], False)}, {dec['median']} [{dec['p10']}, {dec['p90']}]"),
        ("winning margin", _ci(m["margin"]["mean"], False) if m["margin"] else "n/a"),
        ("LeadChange (leader changes per turn)", _traced(m, "LeadChange", lambda e: _ci(e, False))),
        ("lead changes per game", _traced(m, "lead_changes_per_game", lambda e: _ci(e, False))),
        ("Drama (turns the winner trailed)", _traced(m, "Drama", lambda e: _ci(e, False))),
        ("Decisiveness (share played when decided)", _traced(m, "Decisiveness", lambda e: _ci(e, False))),
        ("BranchingFactor", "n/a" if m["BranchingFactor"] is None else f"{m['BranchingFactor']:.2f}"),
        ("DecisionMoves", "n/a" if m["DecisionMoves"] is None else f"{m['DecisionMoves']:.1%}"),
        ("games stopped by the action limit", str(m["limits_hit"])),
    ]
    note = trace_note(m)
    if note:
        trace = m["score_trace"]
        rows.append(("score trace", f"unavailable in {trace['unavailable']} of {trace['games'] + trace['unavailable']} games"))
    for r in rows:
        table.add_row(*r)
    acts = Table(title="Actions and components most tied to winning (used in winners' vs losers' games)")
    for col in ("action", "uses/game", "winners", "losers", "difference (95% CI)", "p"):
        acts.add_column(col, justify="left" if col == "action" else "right")
    ranked = sorted(m["actions"], key=lambda a: (a["difference"]["p"] if a["difference"]["p"] is not None else 2, a["key"]))
    for a in ranked[:actions]:
        diff = a["difference"]
        acts.add_row(a["label"], f"{a['uses_per_game']:.2f}", _ci(a["in_winners"]), _ci(a["in_losers"]),
                     f"{diff['value']:+.1%} [{diff['low']:+.1%}, {diff['high']:+.1%}]",
                     "n/a" if diff["p"] is None else f"{diff['p']:.2g}")
    out = [*head, seats, ends, table] + ([Text(note)] if note else [])
    if m.get("declared"):
        dt = Table(title="Declared metrics (the ruleset's `metrics:`, at each game's end; 95% CI)")
        for col in ("metric", "what", "mean per game", "per seat", "winners"):
            dt.add_column(col, justify="left" if col in ("metric", "what") else "right")
        for row in declared_rows(m):
            dt.add_row(*row)
        out.append(dt)
    return out + [acts] if m["actions"] else out


def ladder_rows(strengths: list[str], runs: list[list[tuple[str, dict]]]) -> tuple[list[str], list[list[str]]]:
    """A ladder's headline metrics as ``(header, rows)`` of text, one column per agent strength
    (and side): each seat's and turn position's win rate, the first-player advantage and
    conclusion, the position spread, Drawishness, Duration, the share of games ended by the
    limit and each declared metric's mean.  ``runs[k]`` is strength k's ``[(side, metrics)]``."""
    from .balance import conclusion

    cols = [(s, side, m) for s, run in zip(strengths, runs) for side, m in run]
    header = ["metric"] + [s if len(runs[0]) == 1 else f"{s}, {side}" for s, side, _ in cols]
    first = cols[0][2]
    seats = range(len(first["win_rate"]))
    rows = [(f"P{p + 1} win rate", lambda m, p=p: _ci(m["win_rate"][p])) for p in seats]
    rows += [(f"win rate of who moved #{p + 1}", lambda m, p=p: _ci(m["win_rate_by_position"][p]) if m["position_games"]
              else "n/a") for p in seats]
    rows += [("first-player advantage", lambda m: _ci(m["advantage_p1"])), ("conclusion", conclusion),
             ("position spread", lambda m: _pct(m.get("position_spread"))),
             ("Drawishness", lambda m: _ci(m["Drawishness"])),
             ("Duration (turns)", lambda m: _ci(m["Duration"]["mean"], False)),
             ("ended by a cap", lambda m: f"{m['capped']['share']:.0%}")]
    for d in first.get("declared") or ():
        rows.append((d["name"], lambda m, name=d["name"]: next((_ci(x["mean"], False) for x in m.get("declared") or ()
                                                                if x["name"] == name), "n/a")))
    return header, [[words, *[cell(m) for _, _, m in cols]] for words, cell in rows]


def ladder_table(strengths: list[str], runs: list[list[tuple[str, dict]]]):
    """A rich table of :func:`ladder_rows`."""
    from rich.table import Table

    header, rows = ladder_rows(strengths, runs)
    t = Table(title="Headline metrics under each agent strength (95% CI)")
    for k, col in enumerate(header):
        t.add_column(col, justify="left" if k == 0 else "right")
    for row in rows:
        t.add_row(*row)
    return t


def comparison_table(names: tuple[str, str], rows: list[dict]):
    """A rich table of :func:`interpreter.analysis.balance.compare` rows: both values, the difference
    with its interval, the p-value and the test that gave it."""
    from rich.table import Table

    t = Table(title=f"{names[0]} vs {names[1]} (differences {names[1]} - {names[0]}, 95% CI)")
    for col in ("metric", names[0], names[1], "difference", "p", "test"):
        t.add_column(col, justify="left" if col == "metric" else "right")
    for r in rows:
        pct = r["kind"] == "rate"
        d = r["difference"]
        if r.get("available") is False:
            t.add_row(r["metric"], "unavailable", "unavailable", "n/a", "n/a", "no score trace")
            continue
        if pct:
            diff = f"{d['value']:+.1%} [{d['low']:+.1%}, {d['high']:+.1%}]"
        else:
            diff = f"{d['value']:+.3g} [{d['low']:+.3g}, {d['high']:+.3g}]"
        t.add_row(r["metric"], _ci(r["a"], pct), _ci(r["b"], pct), diff, "n/a" if d["p"] is None else f"{d['p']:.2g}",
                  r.get("test") or ("two-proportion z" if pct else "Welch t"), style="bold" if r["significant"] else None)
    return t


def sweep_table(param: str, values: list, analyses: list):
    """A rich table of the swept metrics, one row per value of ``param``."""
    from rich.table import Table

    t = Table(title=f"Sweep over {param}")
    t.add_column(param)
    for _, words in SWEEP_PLOTS:
        t.add_column(words, justify="right")
    for v, (_, m) in zip(values, analyses):
        cells = []
        for key, _ in SWEEP_PLOTS:
            e = m.get(key)
            if isinstance(e, dict) and isinstance(e.get("mean"), dict):
                e = e["mean"]
            pct = key in ("advantage_p1", "Drawishness")
            cells.append(_traced(m, key, lambda _, e=e, pct=pct: _ci(e, pct)))
        t.add_row(str(v), *cells)
    return t


# ---------------------------------------------------------------------------------------------
# tapster tune: the trials, the best setting, the front, the confirmation


def _target_cell(e, name: str) -> str:
    """Target metric ``name``'s estimate ``e`` as ``value [low, high]`` (shares in %, signed
    for the first-player advantage)."""
    from .tune import is_share

    if e is None:
        return "n/a"
    if name == "first_player_advantage":
        return f"{e['value']:+.1%} [{e['low']:+.1%}, {e['high']:+.1%}]"
    if is_share(name):
        return f"{e['value']:.1%} [{e['low']:.1%}, {e['high']:.1%}]"
    return f"{e['value']:.3g} [{e['low']:.3g}, {e['high']:.3g}]"


def _setting(params: dict) -> str:
    return ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items())


def tune_tables(title: str, result: dict) -> list:
    """The rich tables and lines of a :class:`interpreter.analysis.tune.Tuner` result: every trial (its
    setting, games, how it ended and each target metric's 95% interval), the best setting with
    every metric's interval (or that none meets the targets), the front when targets conflict,
    and the confirmation run."""
    from rich.table import Table
    from rich.text import Text

    from .tune import TARGET_METRICS, estimate_of, metric_words

    targets = result["targets"]
    spaces = [s["name"] for s in result["spaces"]]
    trials = Table(title=title)
    for col in ["trial", *spaces, "games", "ended"] + [f"{t['text']} (95% CI)" for t in targets] + ["meets"]:
        trials.add_column(col, justify="left" if col in ("ended",) else "right")
    best_n = result["best"]["number"] if result["best"] else None
    front = {t["number"] for t in result["front"]}
    for t in sorted(result["trials"], key=lambda t: [repr(t["params"][s]) if not isinstance(t["params"][s], (int, float))
                                                     else t["params"][s] for s in spaces]):
        ended = t["state"] if t["state"] != "complete" else (t["decision"] or "all games")
        cells = [_target_cell(t["targets"][g["metric"]], g["metric"]) for g in targets]
        mark = "best" if t["number"] == best_n else ("front" if t["number"] in front else "")
        trials.add_row(str(t["number"] + 1), *[str(t["params"][s]) for s in spaces], str(t["games"]), ended, *cells,
                       "yes" if t["meets"] else "no", style="bold" if mark == "best" else None)
    out: list = []
    best = result["best"]
    refused = result.get("refused") or []
    if refused:
        shown = "; ".join(f"{_setting(r['params'])} ({r['capped']['share']:.0%})" for r in refused)
        out.insert(0, Text(f"WARNING: most games of {len(refused)} setting(s) ended by a cap (the action limit or the rules' "
                           f"declared caps), not by the rules, "
                           f"so none of them is called best (--allow-capped to rank them anyway): {shown}",
                        style="bold red"))
    out.append(trials)
    for group in result.get("identical") or []:
        out.append(Text("identical games: " + "; ".join(_setting(p) for p in group) + " played the same games, "
                        "game by game (the parameter changes nothing the agents met)", style="bold"))
    if best is None:
        out.append(Text("no trial finished: nothing to recommend" if not refused else
                        "no setting whose games ended by the rules: nothing to recommend", style="bold red"))
        return out
    goal = ", ".join(t["text"] for t in targets)
    meeting = result.get("meeting") or []
    if result["meets"]:
        if len(meeting) > 1:
            mt_ = Table(title=f"Every setting tried that meets {goal} ({len(meeting)})")
            for col in [*spaces] + [f"{t['text']} (95% CI)" for t in targets]:
                mt_.add_column(col, justify="right")
            for t in sorted(meeting, key=lambda t: [repr(t["params"][s]) for s in spaces]):
                mt_.add_row(*[str(t["params"][s]) for s in spaces],
                            *[_target_cell(t["targets"][g["metric"]], g["metric"]) for g in targets])
            out.append(mt_)
            span = ", ".join(f"{k} {v[0]}..{v[-1]}" if len(v) > 1 else f"{k} {v[0]}"
                             for k, v in result.get("meeting_range", {}).items())
            choice = result.get("choice") or {}
            base = choice.get("base") or {}
            now = f" (the ruleset's current value: {_setting(base)})" if base and choice.get("rule") == "nearest" else ""
            out.append(Text(f"{len(meeting)} settings meet {goal} (range {span}); chosen by the rule "
                            f"'{choice.get('rule')}': {choice.get('words')}{now}"))
        out.append(Text(f"best setting: {_setting(best['params'])} meets {goal} (each 95% interval reaches its target)",
                        style="bold green"))
    else:
        out.append(Text(f"no setting tried meets {goal}: the closest is {_setting(best['params'])} (intervals above)",
                        style="bold red"))
    if result["conflict"]:
        ft = Table(title="The front: settings no other beats on every target (the targets pull apart)")
        for col in [*spaces] + [f"{t['text']} (95% CI)" for t in targets] + ["distances"]:
            ft.add_column(col, justify="right")
        for t in result["front"]:
            ft.add_row(*[str(t["params"][s]) for s in spaces],
                       *[_target_cell(t["targets"][g["metric"]], g["metric"]) for g in targets],
                       ", ".join("n/a" if d is None else f"{d:.3g}" for d in t["distances"]))
        out.append(ft)
    second = result.get("runner_up")
    if second:
        for target in targets:
            r = second["rows"][target["metric"]]
            d = r["difference"]
            shown = "n/a" if d["p"] is None else ("p < 0.001" if d["p"] < 0.001 else f"p = {d['p']:.2g}")
            pct = r["kind"] == "rate"
            diff = (f"{d['value']:+.1%} [{d['low']:+.1%}, {d['high']:+.1%}]" if pct
                    else f"{d['value']:+.3g} [{d['low']:+.3g}, {d['high']:+.3g}]")
            out.append(Text(f"runner-up {_setting(second['params'])} against the best, {target['metric']}: {diff} "
                            f"over {r['pairs']} games on shared seeds ({r['test']}, {shown})"))
    mt = Table(title=f"Best setting {_setting(best['params'])}: every metric ({best['games']} games)")
    mt.add_column("metric")
    mt.add_column("value (95% CI)", justify="right")
    conf = result["confirmation"]
    if conf:
        mt.add_column(f"confirmation, fresh seeds ({conf['games']} games)", justify="right")
    for name in [*TARGET_METRICS, *(result.get("declared") or {})]:
        words = metric_words(name, result.get("declared"))
        row = [words, _target_cell(estimate_of(best["metrics"], name), name)]
        if conf:
            row.append(_target_cell(estimate_of(conf["metrics"], name), name))
        mt.add_row(*row)
    out.append(mt)
    ends = ", ".join(f"{r['reason']}{' (the cap)' if r['cap'] else ''} {r['share']:.0%}"
                     for r in (best["metrics"].get("end_reasons") or [])[:5])
    out.append(Text(f"how the best setting's games ended: {ends or 'n/a'}"))
    if (best["metrics"].get("capped") or {}).get("majority"):
        out.insert(0, Text(f"WARNING: most games of the best setting {_setting(best['params'])} ended by a cap "
                           f"(the action limit or the rules' declared caps), "
                           f"not by the rules (ranked anyway: --allow-capped)", style="bold red"))
    if conf:
        verdict = "still meets" if conf["meets"] else "does not meet"
        out.append(Text(f"confirmation on fresh seeds (games {conf['indices'][0]}..{conf['indices'][1] - 1}): "
                        f"{_setting(conf['params'])} {verdict} {goal}", style="bold" if conf["meets"] else "bold red"))
    seq = result["sequential"]
    if seq["auto"]:
        out.append(Text(f"--games auto: looks after {', '.join(map(str, seq['rounds']))} games, each at level "
                        f"{seq['look_level']:.4f} (Bonferroni: at most {seq['alpha']:.0%} chance of a wrong decision per target)"))
    stop = {"budget": "the games budget was spent", "seconds": "the time was up", "trials": "--trials settings were tried",
            "space": "every setting of the range was tried"}.get(result["stopped_by"])
    if stop:
        out.append(Text(f"{len(result['trials'])} trials; stopped: {stop}"))
    return out


def plot_tune(path: Path, result: dict, space: dict, target: dict) -> None:
    """Target ``target``'s metric (95% interval) of each trial against parameter ``space``, with
    the target drawn as a band; pruned trials hollow."""
    from .tune import is_share, metric_words

    share = is_share(target["metric"])
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    choice = space["kind"] == "choice"
    labels = [repr(c) for c in space["choices"]]
    for state, style in (("complete", "o"), ("pruned", "o")):
        xs, ys, err = [], [], [[], []]
        for t in result["trials"]:
            e = t["targets"][target["metric"]]
            if t["state"] != state or e is None:
                continue
            v = t["params"][space["name"]]
            xs.append(labels.index(repr(v)) if choice else v)
            ys.append(e["value"])
            lo, hi = _err(e)
            err[0].append(lo)
            err[1].append(hi)
        if xs:
            ax.errorbar(xs, ys, yerr=err, fmt=style, capsize=3, label=state,
                        mfc="none" if state == "pruned" else None, alpha=0.6 if state == "pruned" else 1.0)
    low, high = target["low"], target["high"]
    if low is not None and high is not None and low == high:
        ax.axhline(low, color="green", linestyle="--", linewidth=1, label="target")
    else:
        ax.axhspan(low if low is not None else ax.get_ylim()[0], high if high is not None else ax.get_ylim()[1],
                   color="green", alpha=0.12, label="target")
    best = result["best"]
    if best is not None:
        v = best["params"][space["name"]]
        ax.axvline(labels.index(repr(v)) if choice else v, color="grey", linestyle=":", linewidth=1, label="best")
    if choice:
        ax.set_xticks(range(len(labels)), labels)
    elif space["kind"] == "int":
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(space["name"])
    ax.set_ylabel(metric_words(target["metric"]) + (" (share)" if share else ""))
    ax.set_title(f"{target['text']} against {space['name']}")
    ax.legend(fontsize="small")
    _save(fig, path)


def write_tune_report(folder: str | Path, title: str, result: dict) -> Path:
    """Write ``index.html`` (the trials and the answer), ``tune.json`` and one PNG per target and
    parameter (:func:`plot_tune`) into ``folder``; return the page's path.

    Raises:
        TapsterError: the folder cannot be written.
    """

    out = Path(folder)
    try:
        out.mkdir(parents=True, exist_ok=True)
        body = [f"<h1>{html.escape(title)}</h1>"]
        best = result["best"]
        if best is not None:
            verdict = "meets every target" if result["meets"] else "is the closest; no setting tried meets every target"
            body.append(f"<p><b>Best setting: {html.escape(_setting(best['params']))}</b> {verdict}.</p>")
        for target in result["targets"]:
            for space in result["spaces"]:
                file = f"tune_{target['metric']}_{space['name']}.png"
                plot_tune(out / file, result, space, target)
                body.append(f'<img src="{html.escape(file)}" alt="{html.escape(target["text"])}" width="520">')
        spaces = [s["name"] for s in result["spaces"]]
        rows = [[str(t["number"] + 1), *[str(t["params"][s]) for s in spaces], str(t["games"]), t["decision"] or t["state"],
                 *[_target_cell(t["targets"][g["metric"]], g["metric"]) for g in result["targets"]],
                 "yes" if t["meets"] else "no"] for t in result["trials"]]
        body.append("<h2>Trials</h2>" + _table(["trial", *spaces, "games", "ended", *[g["text"] for g in result["targets"]],
                                                "meets"], rows))
        if result["front"]:
            body.append("<h2>Front</h2><ul>" + "".join(f"<li>{html.escape(_setting(t['params']))}</li>" for t in result["front"])
                        + "</ul>")
        conf = result["confirmation"]
        if conf:
            body.append(f"<p>Confirmation on fresh seeds ({conf['games']} games): "
                        f"{'meets' if conf['meets'] else 'does not meet'} the targets.</p>")
        page = out / "index.html"
        page.write_text(f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
                        f"<style>{_STYLE}</style></head><body>{''.join(body)}</body></html>", encoding="utf-8")
        (out / "tune.json").write_text(json.dumps({"title": title, **result}, default=str), encoding="utf-8")
    except OSError as exc:
        raise TapsterError(f"cannot write the report to {out}: {exc.strerror or exc}") from None
    return page
