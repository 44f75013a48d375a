"""`tapster tune`: the answer against a brute-force sweep of the same range (`analyse --param`
playing the same seeds), the front of two conflicting targets, determinism (same seed, same
trials and answer, whatever --jobs), the sequential test of --games auto, pruning, the report,
Ctrl-C, and bad input."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("optuna")

from interpreter.analysis.balance import Tally  # noqa: E402
from interpreter.analysis.tune import Target, Tuner, TuneSettings, parse_space, parse_target  # noqa: E402
from interpreter.cli import main  # noqa: E402
from interpreter.errors import TapsterError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    return code, captured.out, captured.err


def _tune(capsys, *argv: str) -> dict:
    code, out, err = run(capsys, "tune", *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def _sweep(capsys, ruleset: str, name: str, values: list, games: int, seed: int) -> dict:
    """The brute-force answer: `analyse --param name=v1,v2,...` on the same seed."""
    code, out, err = run(capsys, "analyse", ruleset, "--param", f"{name}={','.join(map(str, values))}", "--games", str(games),
                         "--seed", str(seed), "--jobs", "1", "--json")
    assert code == 0, err
    return {v: a["metrics"] for v, a in zip(values, json.loads(out)["analyses"])}


# -- the parts ------------------------------------------------------------------------------------


def test_spaces_and_targets_parse():
    assert parse_space("turns=6..14").kind == "int" and parse_space("turns=6..14").values() == list(range(6, 15))
    real = parse_space("rate=0.5..1.5")
    assert (real.kind, real.low, real.high, real.values()) == ("real", 0.5, 1.5, None)
    assert parse_space("draft=true,false").choices == (True, False)
    t = parse_target("duration=20..30")
    assert (t.low, t.high) == (20, 30)
    assert parse_target("drawishness<=0.05").high == 0.05 and parse_target("drawishness<=0.05").low == -math.inf
    assert parse_target("first_player_advantage=0").distance({"value": -0.03, "low": -0.05, "high": -0.01}) == 0.03
    # A target is met when the interval reaches it, decided when the interval is all in or all out.
    band = Target("duration", 20, 30, "duration=20..30")
    assert band.meets({"value": 31, "low": 29, "high": 33}) and band.decided({"value": 31, "low": 29, "high": 33}) is None
    assert band.decided({"value": 35, "low": 31, "high": 39}) == "missed"
    assert band.decided({"value": 25, "low": 22, "high": 28}) == "met"
    for bad, words in [("turns=9..6", "empty"), ("turns", "NAME=LO..HI"), ("turns=7", "at least two choices"),
                       ("turns=a..9", "not a number"), ("turns=1..1e400", "not a finite number"),
                       ("turns=1..99999999999999999999", "beyond")]:
        with pytest.raises(TapsterError, match=words):
            parse_space(bad)
    for bad, words in [("fun=1", "no metric 'fun'"), ("duration", "METRIC=V"), ("duration=30..20", "empty")]:
        with pytest.raises(TapsterError, match=words):
            parse_target(bad)


# -- Beer Flights: the answer is the sweep's ---------------------------------------------------------


def test_beer_flights_turns_best_is_the_brute_force_sweeps(capsys):
    values = list(range(6, 15))
    result = _tune(capsys, "beer_flights", "--param", "turns=6..14", "--target", "first_player_advantage=0", "--games", "60",
                   "--seed", "5", "--jobs", "1", "--no-prune", "--confirm", "40", "--choose", "closest")
    sweep = _sweep(capsys, "beer_flights", "turns", values, 60, 5)
    assert result["choice"]["rule"] == "closest"
    # Every setting of the range was tried, each on the games analyse plays for it: the same intervals.
    assert sorted(t["params"]["turns"] for t in result["trials"]) == values
    for t in result["trials"]:
        assert t["targets"]["first_player_advantage"] == sweep[t["params"]["turns"]]["advantage_p1"]
    # The answer is the sweep's closest value to 0 (the first such in trial order on a tie).
    distances = {v: abs(m["advantage_p1"]["value"]) for v, m in sweep.items()}
    assert abs(result["best"]["targets"]["first_player_advantage"]["value"]) == min(distances.values())
    assert result["best"]["params"]["turns"] in [v for v, d in distances.items() if d == min(distances.values())]
    reaches = {v for v, m in sweep.items() if m["advantage_p1"]["low"] <= 0 <= m["advantage_p1"]["high"]}
    assert result["meets"] == (result["best"]["params"]["turns"] in reaches)
    assert result["stopped_by"] == "space"
    # The confirmation replays the best setting on games no trial played.
    conf = result["confirmation"]
    assert conf["params"] == result["best"]["params"] and conf["games"] == 40 and conf["indices"] == [60, 100]


def test_the_default_choice_is_the_meeting_setting_nearest_the_current_value(capsys):
    # Beer Flights plays turns=10; among the settings whose interval reaches the target (the
    # brute-force sweep says which), the default rule picks the one nearest 10, then the one
    # nearest the middle of the range that meets it; every meeting setting is reported.
    values = list(range(6, 15))
    result = _tune(capsys, "beer_flights", "--param", "turns=6..14", "--target", "first_player_advantage=0", "--games", "60",
                   "--seed", "5", "--jobs", "1", "--no-prune", "--confirm", "0")
    sweep = _sweep(capsys, "beer_flights", "turns", values, 60, 5)
    reaches = sorted(v for v, m in sweep.items() if m["advantage_p1"]["low"] <= 0 <= m["advantage_p1"]["high"])
    assert len(reaches) > 1   # a choice to make
    middle = (reaches[0] + reaches[-1]) / 2
    want = min(reaches, key=lambda v: (abs(v - 10), abs(v - middle)))
    assert result["choice"]["rule"] == "nearest" and result["choice"]["base"] == {"turns": 10}
    assert result["best"]["params"]["turns"] == want and result["meets"]
    assert sorted(t["params"]["turns"] for t in result["meeting"]) == reaches
    assert result["meeting_range"] == {"turns": [reaches[0], reaches[-1]]}
    # middle: nearest the middle of the meeting range, whatever the current value.
    mid = _tune(capsys, "beer_flights", "--param", "turns=6..14", "--target", "first_player_advantage=0", "--games", "60",
                "--seed", "5", "--jobs", "1", "--no-prune", "--confirm", "0", "--choose", "middle")
    assert abs(mid["best"]["params"]["turns"] - middle) == min(abs(v - middle) for v in reaches)
    code, out, _ = run(capsys, "tune", "beer_flights", "--param", "turns=6..14", "--target", "first_player_advantage=0",
                       "--games", "60", "--seed", "5", "--jobs", "1", "--no-prune", "--confirm", "0")
    text = " ".join(out.split())
    assert code == 0 and f"{len(reaches)} settings meet first_player_advantage=0" in text
    assert "chosen by the rule 'nearest'" in text and "current value: turns=10" in text


def test_none_in_the_range_meets_an_unreachable_target(capsys):
    values = [6, 7, 8]
    result = _tune(capsys, "beer_flights", "--param", "turns=6..8", "--target", "first_player_advantage>=0.4", "--games", "60",
                   "--seed", "2", "--jobs", "1", "--confirm", "0")
    sweep = _sweep(capsys, "beer_flights", "turns", values, 60, 2)
    assert not any(m["advantage_p1"]["high"] >= 0.4 for m in sweep.values())   # the sweep says so too
    assert result["meets"] is False and result["confirmation"] is None
    assert all(t["meets"] is False for t in result["trials"])
    code, out, _ = run(capsys, "tune", "beer_flights", "--param", "turns=6..8", "--target", "first_player_advantage>=0.4",
                       "--games", "60", "--seed", "2", "--jobs", "1", "--confirm", "0")
    assert code == 0 and "no setting tried meets first_player_advantage>=0.4" in " ".join(out.split())


def test_same_seed_same_trials_and_answer_whatever_the_jobs(capsys):
    argv = ["beer_flights", "--param", "turns=4..20", "--param", "flight_size=3..6", "--target", "duration=20..24",
            "--games", "40", "--trials", "8", "--seed", "9", "--confirm", "20"]
    a = _tune(capsys, *argv, "--jobs", "1")
    b = _tune(capsys, *argv, "--jobs", "1")
    c = _tune(capsys, *argv, "--jobs", "2")
    for x in (b, c):
        assert x["trials"] == a["trials"] and x["best"] == a["best"] and x["confirmation"] == a["confirmation"]
    assert len(a["trials"]) == 8
    other = _tune(capsys, *argv[:-4], "--seed", "10", "--confirm", "20", "--jobs", "1")
    assert [t["params"] for t in other["trials"]] != [t["params"] for t in a["trials"]]


def test_ray_backend_gives_the_local_trials(capsys):
    pytest.importorskip("ray")
    argv = ["tic_tac_toe", "--param", "x=1..3", "--target", "first_player_advantage=0", "--games", "20", "--seed", "1",
            "--confirm", "0"]
    code, _, err = run(capsys, "tune", *argv)
    assert code == 1 and "no parameter 'x'" in err
    # tic-tac-toe has no parameter: tune Beer Flights on Ray against the local pool instead.
    argv = ["beer_flights", "--param", "turns=3..4", "--target", "first_player_advantage=0", "--games", "30", "--seed", "1",
            "--confirm", "0", "--jobs", "2"]
    assert _tune(capsys, *argv, "--backend", "ray")["trials"] == _tune(capsys, *argv)["trials"]


# -- Drink & Beat: two parameters, two targets, a front ----------------------------------------------


def test_drink_and_beat_two_targets_print_a_front(capsys, tmp_path):
    argv = ["drink_and_beat", "--param", "hand_size=3..7", "--param", "size=2..4", "--target", "first_player_advantage=0",
            "--target", "duration=4..5", "--games", "60", "--trials", "15", "--seed", "1", "--jobs", "1", "--confirm", "0"]
    result = _tune(capsys, *argv)
    front = result["front"]
    assert result["conflict"] and len(front) >= 2
    # The front is exactly the trials no other beats on both distances.
    done = [t for t in result["trials"] if t["state"] == "complete"]

    def beaten(t):
        return any(all(o <= s for o, s in zip(u["distances"], t["distances"])) and u["distances"] != t["distances"] for u in done)

    assert sorted(t["number"] for t in front) == sorted(t["number"] for t in done if not beaten(t))
    # Each front setting is best at something: the targets pull apart.
    assert min(front, key=lambda t: t["distances"][0]) != min(front, key=lambda t: t["distances"][1])
    code, out, _ = run(capsys, "tune", *argv, "--report", str(tmp_path))
    text = " ".join(out.split())
    assert code == 0 and "The front: settings no other beats on every target" in text
    for target in ("first_player_advantage", "duration"):
        for param in ("hand_size", "size"):
            assert (tmp_path / f"tune_{target}_{param}.png").stat().st_size > 1000
    assert "Best setting" in (tmp_path / "index.html").read_text()


# -- early stopping and pruning ------------------------------------------------------------------------


def _fake_play(rates: dict):
    """A stand-in for the games: setting -> the first mover's win rate (each game a win or a loss)."""
    from interpreter.analysis.balance import GameRecord

    def play(params, indices, tally, export=None):
        p = rates[params["k"]]
        for i in indices:
            won = (i * 0.6180339887) % 1 < p   # a fixed, even spread of wins
            r = GameRecord(i, f"0:{i}", ("random", "random"), scores=(1, 0) if won else (0, 1),
                           winners=(0,) if won else (1,), turns=2, order=(0, 1), trace=[(0, 0), (1, 0)], used=[{}, {}])
            tally.add(r)
            if export:
                export(r)
        return True

    return play


def test_games_auto_stops_a_trial_once_its_target_is_decided():
    settings = TuneSettings(seed=1, games=None, max_games=3200, first=100, trials=3, confirm=0)
    tuner = Tuner([parse_space("k=0..2")], [parse_target("first_player_advantage=0")],
                  _fake_play({0: 0.9, 1: 0.5, 2: 0.52}), 2, settings)
    result = tuner.run()
    rounds = result["sequential"]["rounds"]
    assert rounds == [100, 200, 400, 800, 1600, 3200]
    assert result["sequential"]["look_level"] == pytest.approx(1 - 0.05 / 6)
    by_k = {t["params"]["k"]: t for t in result["trials"]}
    # 90% first-mover wins: missed at the first look; 50%: played until its interval is ±2 points.
    assert by_k[0]["decision"] == "missed" and by_k[0]["games"] == 100
    assert by_k[1]["decision"] == "precise" and by_k[1]["games"] == 3200 > by_k[0]["games"]
    assert result["best"]["params"]["k"] == 1 and result["meets"]
    # The runner-up (52%) against the best (50%) on shared seeds: the games both played, paired.
    second = result["runner_up"]
    row = second["rows"]["first_player_advantage"]
    assert second["params"] == {"k": 2} and row["test"] == "McNemar exact"
    assert row["pairs"] == by_k[2]["games"] and row["difference"]["value"] == pytest.approx(0.02, abs=0.005)


def test_pruning_stops_only_trials_that_miss_the_target():
    rates = {k: 0.5 + 0.04 * k for k in range(11)}
    settings = TuneSettings(seed=3, games=800, first=100, trials=11, confirm=0)
    result = Tuner([parse_space("k=0..10")], [parse_target("first_player_advantage=0")], _fake_play(rates), 2, settings).run()
    pruned = [t for t in result["trials"] if t["state"] == "pruned"]
    assert pruned and all(t["games"] < 800 and not t["meets"] for t in pruned)
    assert result["best"]["params"]["k"] == 0


def test_real_and_choice_spaces_are_searched():
    # A real parameter: the first mover's win rate is 0.5 + 0.3 x; the target 0.15 is at x = 0.5.
    class Rates(dict):
        def __getitem__(self, x):
            return 0.5 + 0.3 * x

    settings = TuneSettings(seed=4, games=400, trials=25, confirm=0, prune=False)
    result = Tuner([parse_space("k=0.0..1.0")], [parse_target("first_player_advantage=0.15")], _fake_play(Rates()), 2,
                   settings).run()
    xs = [t["params"]["k"] for t in result["trials"]]
    assert len(set(xs)) == 25 and all(0.0 <= x <= 1.0 for x in xs) and any(x != round(x, 1) for x in xs)
    assert abs(result["best"]["params"]["k"] - 0.5) < 0.1 and result["meets"]


def test_choices_are_searched_through_the_ruleset(capsys):
    result = _tune(capsys, "beer_flights", "--param", "tiebreak_counts_trash=true,false", "--set", "turns=3", "--target",
                   "duration=6", "--games", "10", "--seed", "1", "--jobs", "1", "--confirm", "0")
    assert sorted(t["params"]["tiebreak_counts_trash"] for t in result["trials"]) == [False, True]
    assert all(t["targets"]["duration"]["value"] == 6 for t in result["trials"]) and result["meets"]
    assert result["fixed"] == {"turns": 3}


def test_budget_in_games_is_kept():
    settings = TuneSettings(seed=1, games=200, budget=500, trials=10, confirm=0)
    result = Tuner([parse_space("k=0..9")], [parse_target("first_player_advantage=0")],
                   _fake_play({k: 0.5 for k in range(10)}), 2, settings).run()
    assert result["games_played"] == 500 and result["stopped_by"] == "budget"


def test_bad_input_is_a_clear_error(capsys):
    code, _, err = run(capsys, "tune", "beer_flights", "--param", "turns=6..14", "--target", "fun=1", "--games", "5")
    assert code == 1 and "no metric 'fun'" in err
    code, _, err = run(capsys, "tune", "beer_flights", "--param", "turns=6.5..9", "--target", "duration=20", "--games", "5")
    assert code == 1 and "whole number" in err
    code, _, err = run(capsys, "tune", "beer_flights", "--param", "nope=1..3", "--target", "duration=20", "--games", "5")
    assert code == 1 and "no parameter 'nope'" in err
    code, _, err = run(capsys, "tune", "beer_flights", "--param", "turns=6..14", "--games", "5")
    assert code == 2 and "--target" in err


def test_ctrl_c_stops_and_reports_the_trials_finished():
    proc = subprocess.Popen(
        [sys.executable, "-m", "interpreter.cli", "tune", "beer_flights", "--param", "turns=6..400", "--target",
         "first_player_advantage=0", "--games", "3000", "--jobs", "2", "--seed", "1", "--trials", "50"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            time.sleep(0.5)
            if proc.poll() is not None:
                break
            children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
            if children.exists() and children.read_text().split():
                time.sleep(3)
                break
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130
    assert "Traceback" not in out + err
    assert "interrupted" in out and "trial" in out
    time.sleep(0.5)
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)


def test_tally_players_match(capsys):
    # A ruleset for 2-4 players tunes at --players.
    result = _tune(capsys, "beer_flights", "--param", "turns=2..3", "--target", "duration=8..12", "--players", "4",
                   "--games", "10", "--seed", "1", "--jobs", "1", "--confirm", "0")
    assert {t["params"]["turns"]: t["targets"]["duration"]["value"] for t in result["trials"]} == {2: 8, 3: 12}
    assert isinstance(Tally(4), Tally)
