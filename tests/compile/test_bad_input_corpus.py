"""The bad-input corpus kept as files (tests/bad_inputs/), beside the generated one of
test_bad_inputs.py: the cases that one does not hold (a `let` at load, text doubled by `set`,
numbers doubled past 4,096 bits, display keys that are not places, folded aliases, illegal and
broken logs, saved states with huge numbers, wrong types or 100,000 levels, more arguments),
each run as its own `python -m interpreter.cli ...` process under a CPU-time and a memory limit
(``resource.setrlimit``).  Each must end with exit
code 1 or 2, a message naming the problem, no traceback, and, where a file outside the ruleset
is involved, not one byte of that file in the output."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parents[1] / "bad_inputs"
CPU_SECONDS = 60
MEMORY = 2 * 1024**3
SECRET = "TOP-SECRET-7f3a"  # the content of a file outside every ruleset's folder


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def tapster(*argv: str, code: str | None = None) -> tuple[int, str]:
    """Run ``tapster ARGV`` (or ``python -c CODE``) in a limited child; (exit code, output)."""
    cmd = [sys.executable, "-c", code, *argv] if code else [sys.executable, "-m", "interpreter.cli", *argv]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, errors="replace", preexec_fn=_limits,
                          timeout=4 * CPU_SECONDS, stdin=subprocess.DEVNULL)  # fmt: skip
    return proc.returncode, proc.stdout + proc.stderr


def refused(argv: tuple, words: str, code: str | None = None) -> str:
    rc, out = tapster(*argv, code=code)
    assert rc in (1, 2), (argv, rc, out[-2000:])
    assert "Traceback" not in out, out[-2000:]
    assert words.lower() in out.lower(), (words, out[-2000:])
    assert SECRET not in out
    return out


# (folder under bad_inputs/, command, words the message must hold)
RULESETS = [
    ("let_hang", "play", "work budget"),
    ("alias_fold", "play", ""),
    ("text_doubling", "play", "the limit is 1000000"),
    ("display_key_text", "play", "(x, y) places"),
    ("x_plus_x", "play", "4096 bits"),
]


@pytest.mark.parametrize("folder, command, words", RULESETS, ids=[r[0] for r in RULESETS])
def test_a_bad_ruleset(folder, command, words):
    path = str(CORPUS / folder)
    argv = (command, path) if command == "validate" else (command, path, "--agents", "first,first", "--seed", "1")
    if folder == "alias_fold":  # 25 aliases of a list of 999,999: loads in bounded memory and plays
        rc, out = tapster(*argv)
        assert rc == 0 and "Traceback" not in out, out[-2000:]
        return
    refused(argv, words)


# Issue 25: values each within the size limits that add up (25 aliased `let`s of a list of
# 999,999 numbers: 1 GB before the memory budget), and a template of 30,000 places repeated by
# 32 aliases (2.9 GB and 20 s before the expanded-size limit).  (folder, command, words)
BUDGETED = [
    ("many_lets", "play", "memory budget of 4,000,000"),
    ("template_aliases", "validate", "expands to more than 2,097,152 characters"),
    ("template_aliases", "play", "expands to more than 2,097,152 characters"),
]
PEAK_BYTES = 300 * 1024**2
CPU_LIMIT = 2.0  # seconds of CPU time (user + system): wall time on a shared machine is noise


#: Runs ``tapster ARGV`` and then writes the process's own peak resident memory (``VmHWM``: the
#: high-water mark of this process's address space, which unlike ``ru_maxrss`` does not carry over
#: the size of the pytest process that forked it).
_MEASURED = """
import sys
from interpreter.cli import main

def _peak():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return -1

try:
    code = main(sys.argv[1:])
finally:
    sys.stdout.flush()
    sys.stderr.write(f"\\nPEAK-BYTES {_peak()}\\n")
sys.exit(code)
"""


def measured(*argv: str) -> tuple[int, str, float, int]:
    """Run ``tapster ARGV`` in a limited child; (exit code, output, CPU seconds, peak bytes): the
    CPU time from ``os.wait4``, the peak from the child's own ``VmHWM`` (``ru_maxrss`` would count
    the forking pytest process's size, which grows over the suite)."""
    cmd = [sys.executable, "-c", _MEASURED, *argv]
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                preexec_fn=_limits)  # fmt: skip
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    text, _, peak = text.rpartition("\nPEAK-BYTES ")
    assert peak.strip().lstrip("-").isdigit(), f"the child did not report its peak memory: {text[-2000:]}"
    return proc.returncode, text, usage.ru_utime + usage.ru_stime, int(peak)


@pytest.mark.parametrize("folder, command, words", BUDGETED, ids=[f"{r[0]}-{r[1]}" for r in BUDGETED])
def test_values_that_add_up_are_refused_in_bounded_time_and_memory(folder, command, words):
    path = str(CORPUS / folder)
    argv = (command, path) if command == "validate" else (command, path, "--agents", "first,first", "--seed", "1")
    rc, out, cpu, peak = measured(*argv)
    assert rc in (1, 2), (rc, out[-2000:])
    assert "Traceback" not in out, out[-2000:]
    assert words.lower() in out.lower(), (words, out[-2000:])
    assert "ruleset.yaml:" in out  # the place: file:line:column
    assert peak < PEAK_BYTES, f"peak memory {peak / 1024**2:.0f} MB"
    assert cpu < CPU_LIMIT, f"{cpu:.2f} s of CPU time"


LOGS = [
    ("illegal_action", "not a legal action"),
    ("not_json", "not a JSON replay log"),
]


@pytest.mark.parametrize("name, words", LOGS, ids=[x[0] for x in LOGS])
def test_a_bad_log(name, words):
    refused(("replay", str(CORPUS / "logs" / f"{name}.json")), words)


STATE_CODE = """
import json, sys
from interpreter import TapsterError, load_ruleset
from interpreter.engine.state import State
rs = load_ruleset(sys.argv[1])
doc = json.load(open(sys.argv[2]))
if isinstance(doc, dict) and doc.get("vars", {}).get("board") == "DEEP":  # 100,000 nested lists
    deep = []
    for _ in range(100_000):
        deep = [deep]
    doc["vars"]["board"] = deep
try:
    State.from_json(rs, doc)
except TapsterError as exc:
    print(exc, file=sys.stderr)
    sys.exit(1)
"""


def _state_documents() -> dict:
    sys.path.insert(0, str(ROOT))
    from interpreter import load_ruleset

    st = load_ruleset("tic_tac_toe").new_game(2, seed=1)
    st.apply(st.legal_actions()[0])
    good = st.to_json()
    deep = "DEEP"  # made 100,000 lists deep by the child
    return {
        "deep_value": ({**good, "vars": {**good["vars"], "board": deep}}, "nested"),
        "rng_out_of_range": ({**good, "rng": "9" * 40}, "rng"),
        "not_a_mapping": ([1, 2, 3], "state"),
        "unknown_zone": ({**good, "zones": {**good["zones"], "nowhere": []}}, "nowhere"),
        "huge_integer": ({**good, "vars": {**good["vars"], "winner": 1 << 5000}}, "4096 bits"),
        "float_seat": ({**good, "current": 0.5}, "current"),
    }


def test_a_bad_saved_state(tmp_path):
    for name, (doc, words) in _state_documents().items():
        path = tmp_path / f"{name}.json"
        text = json.dumps(doc)
        path.write_text(text, encoding="utf-8")
        refused(("tic_tac_toe", str(path)), words, code=STATE_CODE)


ARGS = [
    (("simulate", "beer_flights", "--games", "2", "--jobs", "100000"), "not in the range"),
    (("play", "tic_tac_toe", "--players", "1000"), "players"),
    (("play", "no_such_ruleset"), "no ruleset"),
    (("play", "tic_tac_toe", "--agents", "cheater,random"), "cheater"),
]


@pytest.mark.parametrize("argv, words", ARGS, ids=[" ".join(a[0])[:40] for a in ARGS])
def test_bad_arguments(argv, words):
    refused(argv, words)
