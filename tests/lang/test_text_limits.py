"""Text is counted wherever values grow (interpreter/limits.py: MAX_ITEMS, MAX_VALUE_TEXT): `+`
and `*` in an expression, a ruleset function, a `let`, a `set`, `str()` of a list holding the
same long text many times, a template with many places, a log line.  Each is refused with a
TapsterError naming the limit, before the text is built, never a MemoryError."""

from __future__ import annotations

import resource

import pytest

from interpreter import TapsterError, load_ruleset

HEAD = "name: T\nplayers: {min: 1, max: 1}\nvars: {s: 'ab', t: 'x'}\n"
BIG = "'a' * 900000"


def _play(tmp_path, body: str):
    path = tmp_path / "ruleset.yaml"
    path.write_text(HEAD + body, encoding="utf-8")
    st = load_ruleset(path).new_game(1, seed=0, log=True)
    while not st.is_terminal():
        st.apply(st.legal_actions()[0])
    return st


CASES = [
    # a ruleset function doubling its text
    "functions:\n  dbl: {params: [x, n], value: 'x if n == 0 else dbl(x + x, n - 1)'}\n"
    "flow:\n  - set: {s: 'dbl(s, 40)'}\n",
    # a `set` in a loop
    "flow:\n  - repeat: {times: 40, do: [{set: {s: 's + s'}}]}\n",
    # a `let` in a loop
    "flow:\n  - let: {u: \"'ab' * 400000\"}\n  - let: {v: 'u + u'}\n  - set: {s: v}\n",
    # str() of a list holding one long text many times (each item is within the limit)
    f"flow:\n  - set: {{s: \"str([{BIG}] * 2000)\"}}\n",
    # a template with many places, each within the limit
    f"flow:\n  - let: {{u: \"{BIG}\"}}\n  - log: '{{u}}{{u}}{{u}}{{u}}{{u}}{{u}}'\n",
    # nested lists rendered in a log line
    f"flow:\n  - let: {{u: \"[[{BIG}] * 1000] * 1000\"}}\n  - log: 'now {{u}}'\n",
]


def _address_space() -> int:
    """The bytes of address space this process holds now (VmSize), 0 where /proc is missing."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


@pytest.mark.parametrize("body", CASES)
def test_text_that_grows_is_refused_naming_the_limit(tmp_path, body):
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    # 3 GB more than the process holds now (earlier tests' threads and libraries reserve address
    # space: a fixed 3 GB made allocations fail inside CPython): a text built whole would pass it
    limit = _address_space() + 3 * 1024**3
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        with pytest.raises(TapsterError, match="1000000|1,000,000"):
            _play(tmp_path, body)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def test_text_within_the_limit_is_kept(tmp_path):
    st = _play(tmp_path, "flow:\n  - repeat: {times: 10, do: [{set: {s: 's + s'}}]}\n  - log: '{s}{t}'\n")
    assert st.vars["s"] == "ab" * 1024
    assert st.log[-1][1] == "ab" * 1024 + "x"
