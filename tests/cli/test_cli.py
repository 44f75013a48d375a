"""The driver, in-process: ``main(argv) -> int`` with captured output (no subprocesses)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from interpreter import Action, TapsterError
from interpreter.agents.core import FirstAgent, HumanAgent, RandomAgent, make_agent
from interpreter.cli import main
from interpreter.compile.compiler import find_ruleset
from interpreter.loader.load import load_yaml

from ..conftest import compiled

PLACE = re.compile(r"\S+\.yaml:\d+:\d+: ")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    return code, captured.out, captured.err


# -- play ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ["beer_flights", "tic_tac_toe"])
def test_play_json_outcome_and_same_seed_same_output(capsys, ruleset):
    code, out, _ = run(capsys, "play", ruleset, "--seed", "7", "--json")
    assert code == 0
    result = json.loads(out)
    for key in ("scores", "winners", "ranking", "reason", "seed", "players", "variant"):
        assert key in result
    assert result["seed"] == 7 and result["players"] == 2
    assert len(result["scores"]) == 2
    assert set(result["winners"]) <= {0, 1}
    _, again, _ = run(capsys, "play", ruleset, "--seed", "7", "--json")
    assert again == out


def test_play_text_account_and_score_table(capsys):
    code, out, _ = run(capsys, "play", "beer_flights", "--players", "3", "--seed", "4")
    assert code == 0
    assert "P1 draws two cards" in out or "P2 draws two cards" in out or "P3 draws two cards" in out
    assert " sees " in out  # no human at the table: every line, private ones included
    assert "final scores" in out and "Game over: every player has had their turns" in out
    assert out.count("random") >= 3


def test_play_log_then_replay_ok(capsys, tmp_path):
    log = tmp_path / "game.json"
    code, out, _ = run(capsys, "play", "beer_flights", "--seed", "3", "--log", str(log), "--json")
    assert code == 0
    data = json.loads(log.read_text())
    assert data["ruleset"] == "beer_flights" and data["seed"] == 3 and data["players"] == 2
    assert data["agents"] == ["random", "random"] and data["variant"] is None
    assert data["outcome"] == {k: v for k, v in json.loads(out).items() if k in data["outcome"]}
    assert all(isinstance(a, str) for a in data["actions"]) and data["actions"][0] == "draw"
    code, out, _ = run(capsys, "replay", str(log))
    assert code == 0 and out.startswith("OK")


def test_replay_of_a_tampered_log_names_the_action(capsys, tmp_path):
    log = tmp_path / "game.json"
    run(capsys, "play", "tic_tac_toe", "--seed", "1", "--log", str(log), "--json")
    data = json.loads(log.read_text())
    data["actions"][1] = data["actions"][0]  # the second player marks the cell just taken
    log.write_text(json.dumps(data, indent=1))
    code, _, err = run(capsys, "replay", str(log))
    assert code == 1
    assert f"action 1 `{data['actions'][0]}`" in err and "not a legal action" in err
    assert re.search(r"game\.json:\d+:\d+: ", err)


def test_replay_of_a_changed_outcome_or_a_short_log_fails(capsys, tmp_path):
    log = tmp_path / "game.json"
    run(capsys, "play", "tic_tac_toe", "--seed", "2", "--log", str(log), "--json")
    data = json.loads(log.read_text())
    changed = dict(data, outcome=dict(data["outcome"], scores=[5, 5]))
    log.write_text(json.dumps(changed))
    code, _, err = run(capsys, "replay", str(log))
    assert code == 1 and "outcome differs" in err
    log.write_text(json.dumps(dict(data, actions=data["actions"][:-1])))
    code, _, err = run(capsys, "replay", str(log))
    assert code == 1 and "has not ended" in err


def test_replay_of_a_malformed_log(capsys, tmp_path):
    log = tmp_path / "game.json"
    log.write_text('{"ruleset": "tic_tac_toe",\n "players": 2,\n')
    code, _, err = run(capsys, "replay", str(log))
    assert code == 1 and "game.json:3:1:" in err


def test_play_with_params_is_logged_and_replayed(capsys, tmp_path):
    log = tmp_path / "short.json"
    code, _, _ = run(capsys, "play", "beer_flights", "--seed", "5", "--param", "turns=2", "--log", str(log), "--json")
    assert code == 0
    data = json.loads(log.read_text())
    assert data["params"] == {"turns": 2}
    # two turns each: a turn is take+place (2 actions) or draw+keep+place (3 actions)
    assert 8 <= len(data["actions"]) <= 12
    code, out, _ = run(capsys, "replay", str(log))
    assert code == 0 and out.startswith("OK")


def test_user_mistakes_in_play(capsys):
    code, _, err = run(capsys, "play", "beer_flights", "--players", "7")
    assert code == 1 and "2 to 4 players, not 7" in err
    code, _, err = run(capsys, "play", "beer_flights", "--variant", "six")
    assert code == 1 and "no variant 'six'" in err and "five_player" in err
    code, _, err = run(capsys, "play", "beer_flights", "--param", "turnz=3")
    assert code == 1 and "did you mean turns" in err
    code, _, err = run(capsys, "play", "beer_flights", "--agents", "random,wizard")
    assert code == 2 and "wizard" in err


def test_unknown_ruleset_suggests_a_name(capsys):
    code, _, err = run(capsys, "play", "beer_flite")
    assert code == 1 and "did you mean beer_flights" in err


def test_usage_errors_exit_2(capsys):
    assert run(capsys, "play")[0] == 2
    assert run(capsys, "validate")[0] == 2
    assert run(capsys, "test")[0] == 2
    assert run(capsys, "simulate", "tic_tac_toe")[0] == 2  # --games is required
    assert run(capsys, "perft", "tic_tac_toe", "--depth", "two")[0] == 2
    assert run(capsys, "play", "tic_tac_toe", "--param", "no_equals_sign")[0] == 2
    assert run(capsys, "dance")[0] == 2


# -- the human agent ----------------------------------------------------------------------------


def test_human_picks_actions_by_number_and_is_asked_again(capsys, monkeypatch, tmp_path):
    # "0" and "ten" are refused; then the first legal square every time, which against `first`
    # is X 0, O 1, X 2, O 3, X 4, O 5, X 6: X completes the diagonal 2-4-6.  A square keeps its
    # number within the decision: "1" again is refused (its square is taken), then 3, 5, 7.
    monkeypatch.setattr("sys.stdin", io.StringIO("0\nten\n1\n1\n3\n5\n7\n"))
    log = tmp_path / "human.json"
    code, out, _ = run(capsys, "play", "tic_tac_toe", "--agents", "human,first", "--seed", "1", "--log", str(log))
    assert code == 0
    assert "1. X in row 1, column 1" in out
    assert "`0` is not one of the choices" in out and "`ten` is not one of the choices" in out
    assert "option 1 (mark(0)) cannot be chosen now; the others keep their numbers" in out
    assert "X completed a line" in out
    assert json.loads(log.read_text())["actions"] == [f"mark({i})" for i in range(7)]


def test_human_sees_only_their_own_lines(capsys, monkeypatch):
    # every turn: draw two (by the action's text), keep the first, place it the first legal way
    monkeypatch.setattr("sys.stdin", io.StringIO("draw\n1\n1\n" * 10))
    code, out, _ = run(capsys, "play", "beer_flights", "--agents", "human,random", "--seed", "2")
    assert code == 0
    assert "what P1 sees" in out and "P1 sees" in out.replace("what P1 sees", "")
    assert "P2 draws two cards" in out  # P2 drew, and the public line is shown...
    assert "P2 sees" not in out  # ...but never the cards P2 looked at


def test_human_with_json_talks_on_stderr(capsys, monkeypatch):
    def lowest_shown(console, prompt="", **kwargs):  # the lowest option number the prompt offers
        console.file.write(prompt)
        return re.search(r"your choice \((\d+)", prompt).group(1)

    monkeypatch.setattr("rich.console.Console.input", lowest_shown)
    code, out, err = run(capsys, "play", "beer_flights", "--agents", "human,random", "--seed", "2", "--json")
    assert code == 0
    assert json.loads(out)["agents"] == ["human", "random"]
    assert "P1, your choice" in err and "P2 sees" not in err


def test_end_of_input_quits_cleanly(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, _, err = run(capsys, "play", "tic_tac_toe", "--agents", "human")
    assert code == 1 and "left the game" in err


def test_human_answer_by_text_or_label():
    rs = compiled("tic_tac_toe")
    st = rs.new_game(2, seed=0)
    d = st.decision()
    assert HumanAgent.parse_answer(d, "3") == Action("mark", (2,))
    assert HumanAgent.parse_answer(d, "mark(4)") == Action("mark", (4,))
    assert HumanAgent.parse_answer(d, "x IN ROW 3, COLUMN 3") == Action("mark", (8,))
    assert HumanAgent.parse_answer(d, "10") is None
    assert HumanAgent.parse_answer(d, "mark(9)") is None


def test_agents_registry_and_seeded_random():
    rs = compiled("beer_flights")
    assert isinstance(make_agent("first", 0), FirstAgent)

    def choices(seed):
        agent, st, out = make_agent("random", seed), rs.new_game(2, seed=1), []
        while not st.is_terminal():
            a = agent.act(st, st.current_players()[0])
            out.append(str(a))
            st.apply(a)
        return out

    assert isinstance(make_agent("random", 1), RandomAgent)
    assert choices(5) == choices(5)
    assert choices(5) != choices(6)
    with pytest.raises(TapsterError, match="did you mean random"):
        make_agent("randon", 0)


# -- simulate -----------------------------------------------------------------------------------


def test_simulate_results_do_not_depend_on_jobs(capsys):
    summaries = []
    for jobs in ("1", "2"):
        code, out, _ = run(capsys, "simulate", "beer_flights", "--games", "20", "--seed", "9", "--jobs", jobs, "--json")
        assert code == 0
        summaries.append(json.loads(out))
    one, two = summaries
    assert one["wins"] == two["wins"] and one["score_mean"] == two["score_mean"]
    assert one["length"] == two["length"] and one["draws"] == two["draws"]
    # Every game is won (shares summing to 1) or has no winner; a draw is either no winner or a win of every seat.
    assert sum(one["wins"]) + one["no_winner"] == pytest.approx(20) and one["draws"] >= one["no_winner"]
    assert one["length"]["min"] >= 40  # ten turns of two or three actions each, two players
    for key in ("win_rate", "score_sd", "playouts_per_second", "seconds", "shared_wins"):
        assert key in one


def test_simulate_text_summary(capsys):
    code, out, _ = run(capsys, "simulate", "tic_tac_toe", "--games", "30", "--seed", "1", "--jobs", "1")
    assert code == 0
    assert "win rate" in out and "1/k" in out and "playouts/s" in out
    assert "draws: " in out and "a draw: no winner, or every seat won (a split pot)" in out


# -- info, validate, test, perft ----------------------------------------------------------------


def test_info_lists_variants_and_parts(capsys):
    code, out, _ = run(capsys, "info", "beer_flights")
    assert code == 0
    for text in ("Beer Flights", "five_player", "Five Player Variant", "flight_size", "deck", "hidden",
                 "take_or_draw", "scenarios:"):
        assert text in out


def test_validate_good_files(capsys):
    code, out, _ = run(capsys, "validate", "beer_flights", "tic_tac_toe")
    assert code == 0
    assert "ok: beer_flights" in out and "ok: tic_tac_toe" in out


BROKEN = {
    "syntax.yaml": "name: x\nplayers: {min: 2, max: 2}\nflow: [\n",
    "duplicate.yaml": "name: x\nplayers: {min: 2, max: 2}\nname: y\n",
    "unknown_zone.yaml": (
        "name: x\nplayers: {min: 2, max: 2}\nzones:\n  deck: {}\nflow:\n"
        "  - if: len(pile) > 0\n    then: [{end_game: done}]\n"
    ),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_validate_broken_files(capsys, tmp_path, name):
    path = tmp_path / name
    path.write_text(BROKEN[name])
    code, out, err = run(capsys, "validate", str(path))
    assert code == 1
    assert "ok:" not in out
    assert re.search(re.escape(str(path)) + r":\d+:\d+: ", err)


def test_validate_points_at_the_problem(capsys, tmp_path):
    path = tmp_path / "unknown_zone.yaml"
    path.write_text(BROKEN["unknown_zone.yaml"])
    _, _, err = run(capsys, "validate", str(path))
    assert f"{path}:6:" in err and "pile" in err
    path = tmp_path / "duplicate.yaml"
    path.write_text(BROKEN["duplicate.yaml"])
    _, _, err = run(capsys, "validate", str(path))
    assert f"{path}:3:1: " in err and "duplicate key" in err


def test_test_command(capsys):
    code, out, _ = run(capsys, "test", "tic_tac_toe")
    assert code == 0
    n = len(load_yaml(find_ruleset("tic_tac_toe")).data["scenarios"])
    assert "PASS tic_tac_toe: a_row_wins" in out and out.rstrip().endswith(f"{n} passed, 0 failed")


def test_test_command_fails_on_a_failing_scenario(capsys, tmp_path):
    text = (
        "name: x\nplayers: {min: 1, max: 1}\nvars: {n: 0}\nflow: [{set: {n: 1}}]\n"
        "scenarios:\n  - name: n_is_two\n    steps:\n      - expect: n == 2\n"
    )
    path = tmp_path / "ruleset.yaml"
    path.write_text(text)
    code, out, _ = run(capsys, "test", str(path))
    assert code == 1
    assert "FAIL" in out and "n_is_two" in out and "0 passed, 1 failed" in out


@pytest.mark.parametrize("depth, leaves", [("2", 72), ("3", 504)])
def test_perft_tic_tac_toe(capsys, depth, leaves):
    code, out, _ = run(capsys, "perft", "tic_tac_toe", "--depth", depth)
    assert code == 0
    assert out.startswith(f"{leaves} leaves")
    assert "nodes visited" in out


@pytest.mark.parametrize("depth, leaves", [("1", 7), ("2", 49), ("3", 343), ("4", 2401)])
def test_perft_connect_four(capsys, depth, leaves):
    # OpenSpiel's counts (a game that ends early is one leaf); depths 5 and 6 (16807, 117649)
    # were checked by hand, too slow for the suite.
    code, out, _ = run(capsys, "perft", "connect_four", "--depth", depth)
    assert code == 0
    assert out.startswith(f"{leaves} leaves")


def test_tied_partners_share_a_place(capsys):
    # Four-player Drink & Beat: partners score as one team and nothing separates them, so the
    # score table gives them one place (1, 1, 3, 3), not 1 and 2.
    code, out, _ = run(capsys, "play", "drink_and_beat", "--variant", "four_players", "--agents", "random", "--seed", "1")
    assert code == 0
    rows = [line for line in out.splitlines() if line.startswith("│ P")]
    places = sorted(int(r.split("│")[4]) for r in rows)
    assert places == [1, 1, 3, 3]


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["simulate", "beer_flights", "--games", "3000000000"], "not in the range"),
        (["play", "beer_flights", "--seed", "9" * 5000], "--seed"),
        (["play", "beer_flights", "--seed", "-1"], "not in the range"),
        (["play", "beer_flights", "--param", "turns=" + "9" * 5000], "limit"),
        (["play", "beer_flights", "--param", "turns=" + "9" * 30], "beyond"),
        (["play", "beer_flights", "--param", "turns=" + "1" * 20000], "characters long"),
        (["play", "beer_flights", "--players", "1000"], "not in the range"),
        (["perft", "tic_tac_toe", "--depth", "100"], "not in the range"),
        (["simulate", "beer_flights", "--games", "2", "--jobs", "100000"], "not in the range"),
    ],
)
def test_numeric_options_are_bounded_before_any_work(capsys, argv, words):
    """Every numeric option has a range checked before work starts: a usage error (exit 2)
    naming the problem, never a traceback or a machine out of memory."""
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert words in out + err


# -- replay: only regular files of the log format, rulesets found by name or relative path ------


def _a_log(capsys, tmp_path) -> Path:
    log = tmp_path / "game.json"
    code, _, _ = run(capsys, "play", "tic_tac_toe", "--seed", "3", "--json", "--log", str(log))
    assert code == 0
    return log


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda d: d.update(format="not-a-tapster-log/99"), "format is not tapster-log/1"),
        (lambda d: d.update(seed=int("9" * 4000)), "seed"),
        (lambda d: d.update(players=10**1000), "players"),
        (lambda d: d.update(actions="mark(0)"), "actions"),
    ],
)
def test_replay_refuses_logs_not_of_the_format(capsys, tmp_path, damage, words):
    log = _a_log(capsys, tmp_path)
    data = json.loads(log.read_text())
    damage(data)
    import sys

    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        log.write_text(json.dumps(data))
    finally:
        sys.set_int_max_str_digits(old)
    code, out, err = run(capsys, "replay", str(log))
    assert code == 1 and words in out + err


def test_replay_refuses_deep_nesting_and_non_regular_files(capsys, tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    code, out, err = run(capsys, "replay", str(deep))
    assert code == 1 and ("nested too deeply" in out + err or "replay log" in out + err)
    code, out, err = run(capsys, "replay", "/dev/zero")
    assert code == 1 and "not a regular file" in out + err
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code, out, err = run(capsys, "replay", str(fifo))  # must not hang waiting for a writer
    assert code == 1 and "not a regular file" in out + err


def test_replay_never_follows_an_absolute_path_and_says_when_the_ruleset_changed(capsys, tmp_path):
    log = _a_log(capsys, tmp_path)
    data = json.loads(log.read_text())
    assert not Path(data["path"]).is_absolute()
    assert len(data["ruleset_sha256"]) == 64
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text("this: is not the ruleset\n")
    data["path"] = str(outside)  # an absolute path: ignored, the ruleset is found by name
    data["ruleset_sha256"] = "0" * 64
    log.write_text(json.dumps(data))
    code, out, err = run(capsys, "replay", str(log))
    assert code == 0, out + err
    assert "has changed since the log was written" in err
    assert "is not the ruleset" not in out + err


def test_play_takes_agents_with_parameters():
    from click.testing import CliRunner

    from interpreter.cli import cli

    r = CliRunner().invoke(cli, ["play", "tic_tac_toe", "--agents", "mcts:iterations=60,random", "--seed", "3", "--json"])
    assert r.exit_code == 0, r.output
    assert "winners" in r.output
    r = CliRunner().invoke(cli, ["play", "tic_tac_toe", "--agents", "mcts:iterations=x,random"])
    assert r.exit_code == 2 and "iterations" in r.output and "Traceback" not in r.output


@pytest.mark.parametrize("delay", [1.0, 1.5, 3.0])
def test_ctrl_c_anywhere_exits_130_without_a_traceback(delay):
    # While the ruleset loads, the report's libraries are imported or the games run: the shells'
    # code for SIGINT, one line (once the command line has started: a Ctrl-C while Python itself
    # starts up is Python's).
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen([sys.executable, "-m", "interpreter.cli", "analyse", "beer_knight", "--games", "2000", "--jobs", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err
