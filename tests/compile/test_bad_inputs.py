"""The bad-input corpus (issue "Limits that hold everywhere"): rulesets, logs, saved states and
arguments an attacker or a slip could feed Tapster, each run as a separate process under a CPU
time limit and a memory limit (``resource.setrlimit``).  Every one must end with exit status 1
or 2, a message naming the problem, no Python traceback and, for file cases, no byte of a file
outside the ruleset's folder in what is printed."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SECRET = "TOP-SECRET-OUTSIDE-BYTES-42"

HEAD = """\
name: Bad
players: {min: 1, max: 1}
"""
FLOW = """\
flow:
  - choose:
      options: [{action: ok}]
"""
# A list of 10**12 items: the memory budget (4,000,000 items) stops it before the work budget
# (both charge each item; issue 25).  The same loops without a list: the work budget.
HUGE = "len([1 for i in range(10**6) for j in range(10**6)])"
HUGE_LOOP = "sum(1 for i in range(10**6) for j in range(10**6))"


def _chain(n: int) -> str:
    fs = "".join(f"  f{i}: {{params: [x], value: 'f{i + 1}(x) + f{i + 1}(x)'}}\n" for i in range(n))
    return "functions:\n" + fs + f"  f{n}: {{params: [x], value: 'x'}}\n"


#: name -> (ruleset text, command, words the message must hold)
RULESETS = {
    "nested_comprehension_in_copies": (
        HEAD + f"components:\n  chip:\n    items: [{{v: 1}}]\n    copies: \"{HUGE}\"\n" + FLOW, "validate", "memory budget"),
    "nested_comprehension_in_derived": (
        HEAD + f"components:\n  chip:\n    items: [{{v: 1}}]\n    derived: {{n: \"{HUGE}\"}}\n" + FLOW, "validate", "memory budget"),
    "nested_comprehension_in_a_label": (
        HEAD + "components:\n  chip:\n    items: [{v: 1}]\n    label: \"{" + HUGE + "}\"\n" + FLOW, "validate", "memory budget"),
    "nested_comprehension_in_a_set": (
        HEAD + f"vars:\n  v: 0\nflow:\n  - set: {{v: \"{HUGE}\"}}\n", "play", "memory budget"),
    "nested_comprehension_in_an_option": (
        HEAD + f"flow:\n  - choose:\n      options:\n        - {{action: a, for: i, in: \"[{HUGE}]\"}}\n", "play", "memory budget"),
    "nested_loops_in_a_label": (
        HEAD + "components:\n  chip:\n    items: [{v: 1}]\n    label: \"{" + HUGE_LOOP + "}\"\n" + FLOW, "validate", "work budget"),
    "nested_loops_in_a_set": (HEAD + f"vars:\n  v: 0\nflow:\n  - set: {{v: \"{HUGE_LOOP}\"}}\n", "play", "work budget"),
    "lists_that_add_up_in_one_move": (
        HEAD + "flow:\n  - repeat: {times: 30, do: [{let: {v: 'list(range(1, 999999 + 1))'}}]}\n", "play",
        "memory budget"),
    "texts_that_add_up_in_one_move": (
        HEAD + "vars:\n  s: 'ab'\nflow:\n  - repeat: {times: 200, do: [{let: {t: \"str([s] * 99999)\"}}]}\n", "play",
        "limits: {memory: N}"),
    "memory_beyond_the_maximum": (HEAD + "limits: {memory: 1000000000000}\n" + FLOW, "validate", "maximum"),
    "membership_ten_billion_steps": (
        HEAD + "vars:\n  v: 0\nflow:\n  - set: {v: \"len([i for i in range(100000) if i in range(100000)])\"}\n", "play",
        "work"),
    "roll_beyond_the_generator": (HEAD + "vars:\n  r: []\nflow:\n  - roll: {dice: 1, sides: '18446744073709551617', set: r}\n", "play",
                                  "2**64"),
    "a_chain_of_functions_each_calling_the_next_twice": (
        HEAD + _chain(40) + "vars:\n  v: 0\nflow:\n  - set: {v: f0(1)}\n", "play", "work"),
    "steps_beyond_the_maximum": (HEAD + "limits: {steps: 1000000000000}\n" + FLOW, "validate", "maximum"),
    "three_thousand_variants": (
        HEAD + FLOW + "variants:\n" + "".join(f"  v{i}: {{}}\n" for i in range(3000)), "validate", "too many properties"),
    "percent_format_width": (HEAD + "vars:\n  v: ''\nflow:\n  - set: {v: \"'%*d' % (1000000000, 1)\"}\n", "play", "%"),
    "text_doubling_in_a_function": (
        HEAD + "functions:\n  dbl: {params: [x], value: x + x}\nvars:\n  s: ab\nflow:\n  - repeat: {times: 40, do: [{set: {s: dbl(s)}}]}\n",
        "play", "1000000"),
    "a_long_text_kept_many_times": (
        HEAD + "vars:\n  s: ab\n  big: []\nflow:\n  - repeat: {times: 18, do: [{set: {s: s + s}}]}\n  - set: {big: '[s] * 5000'}\n",
        "play", "characters of text"),
    "a_display_far_apart": (
        HEAD + "components:\n  chip: {items: [{v: 1}, {v: 2}], start: pool}\nzones:\n  pool: {visibility: public}\n"
        "  field: {keyed: true, visibility: public}\n"
        "setup:\n  - move: {what: 'pool[0]', from: pool, to: 'field[(0, 0)]'}\n"
        "  - move: {what: 'pool[0]', from: pool, to: 'field[(100000, 100000)]'}\n" + FLOW
        + "display:\n  board: {zone: field, cell: ['{len(stack)}']}\n", "play", "at most 10000"),
    "a_display_too_wide": (HEAD + FLOW + "display:\n  board: {zone: field, cell: x, width: 20000000}\n", "validate", "maximum"),
    "an_integer_literal_of_4301_digits": (HEAD + "vars:\n  v: 0\nflow:\n  - set: {v: '" + "9" * 4301 + "'}\n", "validate",
                                          "number"),
    "a_yaml_integer_of_5000_digits": (HEAD + "params:\n  n: " + "7" * 5000 + "\n" + FLOW, "validate", "number"),
    "a_binary_literal_of_20000_ones": (HEAD + "vars:\n  v: 0\nflow:\n  - set: {v: '0b" + "1" * 20000 + "'}\n", "validate",
                                       "characters long"),
    "a_complex_number": (HEAD + "vars:\n  v: 0\nflow:\n  - set: {v: '(-8) ** 0.5'}\n" + FLOW, "play", "complex"),
}


def _limited():
    """Run in the child: at most 60 s of CPU and 2 GiB of memory."""
    resource.setrlimit(resource.RLIMIT_CPU, (60, 60))
    resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))


def tapster(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TAPSTER_CACHE_DIR="")
    return subprocess.run(
        [sys.executable, "-m", "interpreter.cli", *argv], capture_output=True, text=True, timeout=120,
        preexec_fn=_limited, env=env, cwd=cwd or ROOT,
    )


def _expect_clean(proc: subprocess.CompletedProcess, words: str) -> None:
    out = proc.stdout + proc.stderr
    assert proc.returncode in (1, 2), f"exit {proc.returncode}: {out[-2000:]}"
    assert "Traceback" not in out, out[-3000:]
    assert words.lower() in out.lower(), f"expected {words!r} in: {out[-2000:]}"
    assert SECRET not in out


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_a_bad_ruleset_is_refused_cleanly(tmp_path, name):
    text, command, words = RULESETS[name]
    folder = tmp_path / name
    folder.mkdir()
    (folder / "ruleset.yaml").write_text(text, encoding="utf-8")
    args = [command, str(folder)] + (["--agents", "first", "--seed", "1"] if command == "play" else [])
    _expect_clean(tapster(*args), words)


@pytest.mark.parametrize("link", ["relative", "absolute"])
def test_a_table_linked_outside_the_folder_is_never_read(tmp_path, link):
    outside = tmp_path / "outside.csv"
    outside.write_text(f"v\n{SECRET}\n", encoding="utf-8")
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "chips.csv").symlink_to(outside if link == "absolute" else Path("..") / "outside.csv")
    (folder / "ruleset.yaml").write_text(HEAD + "components:\n  chip: {table: chips.csv}\n" + FLOW, encoding="utf-8")
    for command in ("validate", "play", "info"):
        args = [command, str(folder)] + (["--agents", "first", "--seed", "1"] if command == "play" else [])
        _expect_clean(tapster(*args), "outside")


def _log(tmp_path: Path, **changes) -> Path:
    data = {"format": "tapster-log/1", "ruleset": "tic_tac_toe", "players": 2, "seed": 1,
            "actions": ["mark(0)"], "outcome": {}}
    data.update(changes)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("case, words", [
    ("format", "format"),
    ("seed", "longer than"),
    ("players", "longer than"),
    ("nested", "deep"),
    ("path", "no ruleset"),
])
def test_a_bad_log_is_refused_cleanly(tmp_path, case, words):
    secret = tmp_path / "secret.yaml"
    secret.write_text(SECRET, encoding="utf-8")
    if case == "format":
        path = _log(tmp_path, format="not-a-tapster-log/99")
    elif case == "seed":
        path = tmp_path / "game.json"
        path.write_text('{"format": "tapster-log/1", "ruleset": "tic_tac_toe", "players": 2, "seed": ' + "9" * 5000
                        + ', "actions": [], "outcome": {}}', encoding="utf-8")
    elif case == "players":
        path = tmp_path / "game.json"
        path.write_text('{"format": "tapster-log/1", "ruleset": "tic_tac_toe", "players": ' + "9" * 5000
                        + ', "seed": 1, "actions": [], "outcome": {}}', encoding="utf-8")
    elif case == "nested":
        path = tmp_path / "game.json"
        path.write_text('{"format": "tapster-log/1", "outcome": ' + "[" * 100000 + "]" * 100000 + "}", encoding="utf-8")
    else:
        path = _log(tmp_path, ruleset="x", path=str(secret))
    _expect_clean(tapster("replay", str(path)), words)


def test_replaying_a_device_or_a_fifo_is_refused(tmp_path):
    _expect_clean(tapster("replay", "/dev/zero"), "regular file")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    _expect_clean(tapster("replay", str(fifo)), "regular file")


@pytest.mark.parametrize("argv, words", [
    (["simulate", "beer_flights", "--games", "3000000000"], "games"),
    (["play", "beer_flights", "--param", "turns=" + "9" * 5000], "turns"),
    (["play", "beer_flights", "--seed", "9" * 5000], "seed"),
    (["perft", "tic_tac_toe", "--depth", "100000"], "depth"),
    (["play", "tic_tac_toe", "--agents", "mcts:iterations=" + "9" * 5000], "iterations"),
    (["play", "tic_tac_toe", "--players", "9" * 5000], "players"),
])
def test_bad_arguments_are_refused_before_any_work(argv, words):
    _expect_clean(tapster(*argv), words)


def _nest(n):
    v: list = []
    for _ in range(n):
        v = [v]
    return v


SAVED = textwrap.dedent("""\
    import json, sys
    from interpreter import load_ruleset
    from interpreter.errors import TapsterError
    from interpreter.engine.state import State
    rs = load_ruleset("beer_flights")
    data = json.loads(open(sys.argv[1]).read())
    try:
        State.from_json(rs, data)
    except TapsterError as exc:
        print(exc)
        sys.exit(1)
    print("loaded")
    """)


@pytest.mark.parametrize("damage, words", [
    (lambda d: d.update(num_players=1000), "players"),
    (lambda d: d["zones"].update(deck=[{"c": "card-1"}] * 3), "two places"),
    (lambda d: d.update(stack=[[0, 0, {}, None]] * 20000), "stack"),
    (lambda d: d["vars"].update(first=_nest(200)), "nested"),
    (lambda d: d.update(rng="-1"), "rng"),
])
def test_a_damaged_saved_state_is_refused_cleanly(tmp_path, damage, words):
    from interpreter import load_ruleset

    data = load_ruleset("beer_flights").new_game(2, seed=1).to_json()
    damage(data)
    path = tmp_path / "state.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    script = tmp_path / "load.py"
    script.write_text(SAVED, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT), TAPSTER_CACHE_DIR="")
    proc = subprocess.run([sys.executable, str(script), str(path)], capture_output=True, text=True, timeout=120,
                          preexec_fn=_limited, env=env, cwd=ROOT)
    _expect_clean(proc, words)


def test_ctrl_c_stops_a_simulation_at_once_and_summarises_what_finished():
    import signal
    import time

    env = dict(os.environ, PYTHONPATH=str(ROOT), TAPSTER_CACHE_DIR="")
    proc = subprocess.Popen(
        [sys.executable, "-m", "interpreter.cli", "simulate", "tic_tac_toe", "--games", "10000000", "--jobs", "2", "--seed", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(8)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)  # not a minute of workers running on
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in out + err
    assert "interrupted:" in err and "of 10000000 games finished" in err
    assert "win rate" in out.lower() or "P1" in out
