"""The balance report: metrics from known games, turn order, reproducibility whatever the
number of processes and the backend, the analyse/compare commands, export, the HTML report,
and Ctrl-C (a real SIGINT to a subprocess)."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from interpreter.analysis.balance import GameRecord, PerGame, Tally, compare, metrics
from interpreter.analysis.runner import auto_rounds, comparison_decided, play_run
from interpreter.analysis.simulate import SimSpec
from interpreter.cli import main
from interpreter.compile.compiler import available_rulesets, load_ruleset

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    return code, captured.out, captured.err


def _record(index, trace, winners, order=(0, 1), used=None) -> GameRecord:
    return GameRecord(index, f"0:{index}", ("random", "random"), scores=trace[-1], winners=winners, decisions=len(trace),
                      turns=len(trace) - 1, order=order, trace=list(trace), used=used or [{}, {}])


# -- metrics from games whose trace is known ------------------------------------------------------


def test_lead_change_drama_decisiveness_from_a_known_trace():
    # Leaders: {P1,P2}, {P1}, {P2}, {P1}, {P2}: four changes in four steps; P2 wins, trailing at
    # steps 1 and 3 of the four before the end, and takes the lead for good at the last step.
    t = Tally(2)
    t.add(_record(0, [(0, 0), (1, 0), (0, 2), (3, 2), (3, 5)], (1,)))
    m = metrics(t)
    assert m["lead_changes_per_game"]["value"] == 4
    assert m["LeadChange"]["value"] == 1.0
    assert m["Drama"]["value"] == 0.5
    assert m["Decisiveness"]["value"] == 1.0
    assert m["margin"]["mean"]["value"] == 2
    # A winner in the lead from the first step: no drama, decided at once.
    t = Tally(2)
    t.add(_record(0, [(1, 0), (2, 0), (3, 1)], (0,)))
    m = metrics(t)
    assert m["Drama"]["value"] == 0 and m["Decisiveness"]["value"] == 0 and m["LeadChange"]["value"] == 0


def test_first_player_advantage_is_by_turn_position_not_seat():
    # Seat 1 moves first in every game and wins 3 of 4: seats look balanced by seat only when
    # seat 0 also moves first; here the turn position shows the advantage.
    t = Tally(2)
    for i, (order, w) in enumerate([((1, 0), (1,)), ((0, 1), (0,)), ((1, 0), (1,)), ((0, 1), (1,))]):
        t.add(_record(i, [(0, 0), (1, 1)], w, order=order))
    m = metrics(t)
    assert m["win_rate"][0]["value"] == 0.25 and m["win_rate"][1]["value"] == 0.75
    assert m["win_rate_by_position"][0]["value"] == 0.75
    assert m["advantage_p1"]["value"] == pytest.approx(0.25)
    assert m["Balance"] == pytest.approx(0.5)


def test_actions_in_winners_and_losers_games():
    t = Tally(2)
    for i in range(20):
        # the winner always played "ace", the loser never did; both played "draw"
        t.add(_record(i, [(0, 0), (1, 0)], (0,), used=[{"ace": 1, "draw": 2}, {"draw": 3}]))
    rows = {a["key"]: a for a in metrics(t)["actions"]}
    assert rows["ace"]["in_winners"]["value"] == 1 and rows["ace"]["in_losers"]["value"] == 0
    assert rows["ace"]["difference"]["value"] == 1 and rows["ace"]["difference"]["p"] < 1e-6
    assert rows["draw"]["difference"]["value"] == 0 and rows["draw"]["uses_per_game"] == 5


def test_compare_detects_a_real_difference_and_not_noise():
    a, b, c = Tally(2), Tally(2), Tally(2)
    for i in range(200):
        a.add(_record(i, [(0, 0), (1, 0)], (0,) if i % 2 else (1,)))
        b.add(_record(i, [(0, 0), (1, 0)], (0,) if i % 10 else (1,)))   # P1 wins 90%
        c.add(_record(i, [(0, 0), (1, 0)], (1,) if i % 2 else (0,)))    # P1 wins 50%, other games
    rows = {r["key"]: r for r in compare(a, b)}
    assert rows["win_rate_P1"]["significant"] and "rises from 50.0%" in rows["win_rate_P1"]["sentence"]
    assert not {r["key"]: r for r in compare(a, c)}["win_rate_P1"]["significant"]


def test_paired_compare_sees_a_change_on_shared_seeds_that_unpaired_misses():
    # The same 200 seeds on both sides; side b flips the winner of 12 games from P2 to P1 and no
    # game the other way.  As independent samples, 50% against 56% in 200 games is noise; as pairs,
    # 12 discordant pairs all one way is McNemar p = 2 / 2**12.
    a, b = Tally(2), Tally(2)
    pa, pb = PerGame(2), PerGame(2)
    for i in range(200):
        ra = _record(i, [(0, 0), (1, 0)], (0,) if i % 2 else (1,))
        rb = _record(i, [(0, 0), (1, 0)], (0,) if i % 2 or i < 24 else (1,))
        for t, pg, r in ((a, pa, ra), (b, pb, rb)):
            t.add(r)
            pg.add(r)
    unpaired = {r["key"]: r for r in compare(a, b)}["win_rate_P1"]
    assert unpaired["test"] == "two-proportion z" and not unpaired["significant"] and unpaired["pairs"] is None
    row = {r["key"]: r for r in compare(a, b, pairs=(pa, pb))}["win_rate_P1"]
    assert row["test"] == "McNemar exact" and row["pairs"] == 200 and row["significant"]
    assert row["difference"]["p"] == pytest.approx(2 / 2**12)
    assert row["difference"]["value"] == pytest.approx(0.06)
    assert row["difference"]["high"] - row["difference"]["low"] < unpaired["difference"]["high"] - unpaired["difference"]["low"]
    assert "McNemar exact, p < 0.001" in row["sentence"]
    # Means are paired by the t test on per-seed differences; the one-game values are the tally's.
    assert {r["key"]: r for r in compare(a, b, pairs=(pa, pb))}["duration"]["test"] == "paired t"
    assert list(pa.values["duration"][:2]) == [1.0, 1.0] and list(pa.values["win_rate_P2"][:2]) == [1.0, 0.0]


def test_compare_auto_stops_when_every_win_rate_difference_is_decided():
    # The first mover (seat 0) wins 50% on one side and 90% on the other, on the same 200 seeds.
    a, b, same = Tally(2), Tally(2), Tally(2)
    pa, pb, ps = PerGame(2), PerGame(2), PerGame(2)
    for i in range(200):
        for t, pg, w in ((a, pa, i % 2), (b, pb, i % 10), (same, ps, i % 2)):
            r = _record(i, [(0, 0), (1, 0)], (0,) if w else (1,))
            t.add(r)
            pg.add(r)
    # A 40-point difference is decided at the first of 8 looks (level 1 - 0.05/8), paired or not.
    assert comparison_decided([a, b], [pa, pb], 0.02, 8)
    assert comparison_decided([a, b], None, 0.02, 8)
    # The same games on both sides: a difference of exactly 0, within any precision; with other
    # games (unpaired), 200 games cannot tell a ±2-point difference from none.
    assert comparison_decided([a, same], [pa, ps], 0.02, 8)
    assert not comparison_decided([a, same], None, 0.02, 8)
    assert not comparison_decided([a], [pa], 0.02, 8)


def test_auto_rounds_double_up_to_the_cap():
    assert [(r.start, r.stop) for r in auto_rounds(100, 700)] == [(0, 100), (100, 200), (200, 400), (400, 700)]


# -- the engine records who moved first ------------------------------------------------------------


def test_state_order_is_who_began_a_turn_first():
    rs = load_ruleset("beer_flights")   # the first player is drawn at random (rulebook: "Setup")
    firsts = set()
    for seed in range(12):
        st = rs.new_game(2, seed=seed)
        assert st.order == (st.current,)
        firsts.add(st.order[0])
        while not st.finished:
            st.apply(st.legal_actions()[0])
        assert sorted(st.order) == [0, 1] and st.order[0] in firsts
    assert firsts == {0, 1}
    assert load_ruleset("tic_tac_toe").new_game(2, seed=0).order == (0,)


# -- reproducibility ---------------------------------------------------------------------------------


def _metrics(name, games, jobs, backend="local", variant=None):
    rs = load_ruleset(name, variant)
    n = rs.default_players
    spec = SimSpec(str(Path(rs.path).resolve()), variant, (), n, 11, ("random",) * n)
    t = Tally(n)
    assert play_run(spec, range(games), t, jobs=jobs, backend=backend, ruleset=rs)
    return metrics(t)


@pytest.mark.parametrize("name", ["beer_flights", "drink_and_beat"])
def test_same_seed_same_numbers_whatever_the_jobs(name):
    assert json.dumps(_metrics(name, 60, 1)) == json.dumps(_metrics(name, 60, 2))


def test_ray_backend_gives_the_local_numbers():
    pytest.importorskip("ray")
    assert json.dumps(_metrics("tic_tac_toe", 40, 2, "ray")) == json.dumps(_metrics("tic_tac_toe", 40, 1))


def test_every_ruleset_and_variant_is_analysed():
    for name in available_rulesets():
        for variant in [None, *load_ruleset(name).variants]:
            m = _metrics(name, 3, 1, variant=variant)
            assert m["errors"] == 0 and m["games"] == 3, (name, variant, m["first_error"])
            assert m["position_games"] == 3, (name, variant)


# -- the commands ------------------------------------------------------------------------------------


def test_analyse_json_report_and_export(capsys, tmp_path):
    code, out, _ = run(capsys, "analyse", "tic_tac_toe", "--games", "40", "--seed", "3", "--jobs", "1", "--json",
                       "--report", str(tmp_path / "r"), "--export", str(tmp_path / "g.csv"))
    assert code == 0
    data = json.loads(out)
    m = data["analyses"][0]["metrics"]
    assert m["games"] == 40 and len(m["win_rate"]) == 2
    assert sum(w["value"] for w in m["win_rate"]) + m["Drawishness"]["value"] == pytest.approx(1)
    for file in ("index.html", "win_rates.png", "lengths.png", "scores.png", "lead.png"):
        assert (tmp_path / "r" / file).stat().st_size > 0
    rows = list(csv.DictReader((tmp_path / "g.csv").open()))
    assert len(rows) == 40 and rows[0]["seed"] == "3:0" and json.loads(rows[0]["turn_order"]) == [0, 1]
    # the same seed as JSON Lines: the same games
    code, out2, _ = run(capsys, "analyse", "tic_tac_toe", "--games", "40", "--seed", "3", "--jobs", "2", "--json",
                        "--export", str(tmp_path / "g.jsonl"))
    assert json.loads(out2)["analyses"] == data["analyses"]
    lines = [json.loads(x) for x in (tmp_path / "g.jsonl").read_text().splitlines()]
    assert [x["winners"] for x in lines] == [json.loads(r["winners"]) for r in rows]


def test_analyse_sweep_plots_each_metric(capsys, tmp_path):
    code, out, _ = run(capsys, "analyse", "beer_flights", "--param", "turns=2,4", "--games", "20", "--seed", "1",
                       "--jobs", "1", "--json", "--report", str(tmp_path))
    assert code == 0
    data = json.loads(out)
    assert [a["side"] for a in data["analyses"]] == ["turns=2", "turns=4"]
    assert [a["metrics"]["Duration"]["mean"]["value"] for a in data["analyses"]] == [4, 8]   # 2 seats x turns
    assert (tmp_path / "sweep_Duration.png").exists() and (tmp_path / "sweep_Drama.png").exists()


def test_compare_sides_and_sentences(capsys):
    code, out, _ = run(capsys, "compare", "beer_flights", "base", "turns=3", "--games", "60", "--seed", "1",
                       "--jobs", "1")
    assert code == 0
    assert "Duration (turns) drops from 20 ± 0 to 6 ± 0: significant" in " ".join(out.split())
    assert "(paired t, p < 0.001)" in " ".join(out.split())
    code, out, _ = run(capsys, "compare", "drink_and_beat", "base", "complex", "--games", "20", "--seed", "1",
                       "--jobs", "1", "--json")
    assert code == 0
    data = json.loads(out)
    rows = data["comparisons"][0]["rows"]
    assert all("sentence" in r and r["difference"]["p"] is None or 0 <= r["difference"]["p"] <= 1 for r in rows)
    assert data["paired"] and {r["test"] for r in rows} <= {"McNemar exact", "paired t"} and rows[0]["pairs"] == 20
    code, out, _ = run(capsys, "compare", "drink_and_beat", "base", "complex", "--games", "20", "--seed", "1",
                       "--jobs", "1", "--json", "--unpaired")
    rows = json.loads(out)["comparisons"][0]["rows"]
    assert {r["test"] for r in rows} == {"two-proportion z", "Welch t"} and rows[0]["pairs"] is None


def test_bad_input_is_a_clear_error(capsys):
    code, _, err = run(capsys, "compare", "beer_flights", "base", "nope", "--games", "5")
    assert code == 1 and "nope" in err
    code, _, err = run(capsys, "analyse", "beer_flights", "--games", "zero")
    assert code == 2 and "neither a number of games nor auto" in err
    code, _, err = run(capsys, "analyse", "beer_flights", "--param", "turns=2,3", "--param", "flights=1,2", "--games", "5")
    assert code == 2 and "one parameter at a time" in err
    code, _, err = run(capsys, "analyse", "beer_flights", "--games", "5", "--export", "x.txt")
    assert code == 1 and ".jsonl or a .csv" in err


def test_games_auto_stops_when_narrow_enough(capsys):
    code, out, _ = run(capsys, "analyse", "tic_tac_toe", "--games", "auto", "--precision", "0.2", "--max-games", "400",
                       "--seed", "1", "--jobs", "1", "--json")
    assert code == 0
    m = json.loads(out)["analyses"][0]["metrics"]
    assert m["games"] < 400   # a ±20-point interval needs far fewer games than the cap
    assert all((w["high"] - w["low"]) / 2 <= 0.2 for w in m["win_rate"])


def test_ctrl_c_stops_at_once_and_summarises():
    proc = subprocess.Popen(
        [sys.executable, "-m", "interpreter.cli", "analyse", "beer_flights", "--games", "1000000", "--jobs", "2",
         "--seed", "1"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:   # wait until games are being played
            time.sleep(0.5)
            if proc.poll() is not None:
                break
            children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
            if children.exists() and children.read_text().split():
                time.sleep(2)
                break
        os.killpg(proc.pid, signal.SIGINT)   # as a terminal does: the whole process group
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130
    assert "Traceback" not in out + err
    assert "interrupted" in out and "Metrics" in out
    time.sleep(0.5)
    with pytest.raises(ProcessLookupError):   # no worker left behind
        os.killpg(proc.pid, 0)


# -- a score undefined mid-game; one definition of a draw (issue 30) ------------------------------

LEDUC_LIKE = str(ROOT / "tests" / "fixtures" / "leduc_like")


def test_analyse_reports_the_score_trace_unavailable_and_computes_the_rest(capsys, tmp_path):
    # The fixture's score reads the public card and the shown cards, which exist only at a showdown.
    code, out, err = run(capsys, "analyse", LEDUC_LIKE, "--games", "200", "--seed", "1", "--jobs", "1", "--json",
                         "--report", str(tmp_path))
    assert code == 0, err
    m = json.loads(out)["analyses"][0]["metrics"]
    assert m["games"] == 200 and m["errors"] == 0
    assert sum(w["value"] for w in m["win_rate"]) == pytest.approx(1) and m["win_rate"][0]["n"] == 200
    assert m["Drawishness"]["value"] == m["draws"] / 200 and m["Duration"]["mean"]["value"] > 1 and m["margin"]
    assert m["BranchingFactor"] == 2 and m["actions"]
    for key in ("LeadChange", "lead_changes_per_game", "Drama", "Decisiveness"):
        assert m[key] is None, key
    trace = m["score_trace"]
    assert trace["games"] == 0 and trace["unavailable"] == 200
    assert trace["reason"].startswith("game 0 (seed 1:0): the score of P1 is undefined mid-game, after 0 decisions")
    assert "leduc_like/ruleset.yaml:" in trace["reason"] and "index out of range" in trace["reason"]
    assert "score trace unavailable in 200 of 200 games" in (tmp_path / "index.html").read_text(encoding="utf-8")
    code, out, _ = run(capsys, "analyse", LEDUC_LIKE, "--games", "50", "--seed", "1", "--jobs", "1")
    text = " ".join(out.split())
    assert code == 0 and "unavailable (no score trace)" in text and "score trace unavailable in 50 of 50 games" in text
    assert "the score of P1 is undefined mid-game" in text


def test_a_trace_missing_in_some_games_only_is_measured_on_the_others():
    t = Tally(2)
    t.add(_record(0, [(0, 0), (1, 0), (0, 2), (3, 2), (3, 5)], (1,)))
    broken = _record(1, [(0, 0), (2, 0)], (0,))
    broken.trace, broken.trace_error = [], "the score of P1 is undefined mid-game, after 2 decisions: index out of range"
    t.add(broken)
    m = metrics(t)
    assert m["games"] == 2 and m["win_rate"][0]["value"] == 0.5
    assert m["lead_changes_per_game"]["value"] == 4 and m["lead_changes_per_game"]["n"] == 1
    assert m["score_trace"] == {"games": 1, "unavailable": 1, "reason": "game 1 (seed 0:1): " + broken.trace_error,
                                "metrics": ["LeadChange", "lead_changes_per_game", "Drama", "Decisiveness",
                                            "winner_leads_by_decile"]}


def test_compare_marks_the_trace_metrics_unavailable_with_the_reason(capsys):
    code, out, _ = run(capsys, "compare", LEDUC_LIKE, "base", "bet=2", "--games", "60", "--seed", "1", "--jobs", "1",
                       "--json")
    assert code == 0
    rows = {r["key"]: r for r in json.loads(out)["comparisons"][0]["rows"]}
    for key in ("lead_change", "drama", "decisiveness"):
        assert rows[key]["available"] is False and rows[key]["significant"] is False
        assert "unavailable, no score trace" in rows[key]["sentence"] and "undefined mid-game" in rows[key]["sentence"]
    assert "available" not in rows["margin"] and "available" not in rows["win_rate_P1"]


def test_a_split_pot_is_a_draw_in_simulate_analyse_and_compare_alike(capsys):
    from interpreter.analysis.simulate import is_draw

    assert is_draw((), 2) and is_draw((0, 1), 2) and is_draw((0, 1, 2), 3)
    assert not is_draw((0,), 2) and not is_draw((0, 1), 3) and not is_draw((0,), 1)  # a solo win is a win
    # The same 200 games (seed 5) in all three commands; the fixture splits the pot on equal cards.
    code, out, _ = run(capsys, "simulate", LEDUC_LIKE, "--games", "200", "--seed", "5", "--jobs", "1", "--json")
    assert code == 0
    sim = json.loads(out)
    assert sim["no_winner"] == 0 and sim["draws"] > 0  # every draw here is a split pot
    assert sim["draw"] == "a draw: no winner, or every seat won (a split pot)"
    code, out, _ = run(capsys, "analyse", LEDUC_LIKE, "--games", "200", "--seed", "5", "--jobs", "1", "--json")
    m = json.loads(out)["analyses"][0]["metrics"]
    assert m["draws"] == sim["draws"] and m["Drawishness"]["value"] == sim["draws"] / 200 and m["draw"] == sim["draw"]
    code, out, _ = run(capsys, "compare", LEDUC_LIKE, "base", "base", "--games", "200", "--seed", "5", "--jobs", "1",
                       "--json")
    data = json.loads(out)
    assert [s["metrics"]["draws"] for s in data["sides"]] == [sim["draws"]] * 2
    row = next(r for r in data["comparisons"][0]["rows"] if r["key"] == "drawishness")
    assert row["a"]["value"] == sim["draws"] / 200 and "a draw: no winner, or every seat won" in row["metric"]
    # The words are the same in the text of all three.
    for argv in (["simulate", LEDUC_LIKE, "-n", "20", "-j", "1"], ["analyse", LEDUC_LIKE, "-n", "20", "-j", "1"],
                 ["compare", LEDUC_LIKE, "base", "bet=2", "-n", "20", "-j", "1"]):
        code, out, _ = run(capsys, *argv)
        assert code == 0 and "a draw: no winner, or every seat won (a split pot)" in " ".join(out.split()), argv
