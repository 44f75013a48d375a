"""A saved state is checked before anything is built from it (interpreter/engine/state.py:
``State.from_json``, ``check_saved``; schemas/state.schema.json): a damaged or forged document is
refused with a TapsterError naming the problem, never a raw Python error, and a good one round
trips exactly."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from interpreter import TapsterError, load_ruleset
from interpreter.compile.compiler import available_rulesets
from interpreter.engine.rng import Rng
from interpreter.engine.state import State

JUNK = [None, -1, 0, 10**30, "x", "", [], {}, True, 1.5, [[[]]], {"c": "nope"}, {"t": [1]}, {"d": [[1, 2]]}, {"d": 5}]


def _saved(name: str, mode: str) -> tuple:
    rs = load_ruleset(name)
    st = rs.new_game(None, seed=1, chance=mode)
    r = Rng(1)
    for _ in range(15):
        if st.is_terminal():
            break
        actions = st.legal_actions()
        st.apply(st.sample_chance(r) if st.is_chance() else actions[r.below(len(actions))])
    return rs, st.to_json()


@pytest.fixture(scope="module")
def saved():
    return {(n, m): _saved(n, m) for n in available_rulesets() for m in ("sample", "explicit")}


def test_the_state_schema_is_a_valid_schema():
    from pathlib import Path

    from jsonschema import Draft202012Validator

    path = Path(__file__).resolve().parents[2] / "schemas" / "state.schema.json"
    Draft202012Validator.check_schema(json.loads(path.read_text(encoding="utf-8")))


def test_every_saved_state_round_trips(saved):
    for (name, _), (rs, data) in saved.items():
        assert State.from_json(rs, json.loads(json.dumps(data))).to_json() == data, name


def test_a_game_with_a_secure_seed_round_trips_and_plays_on_alike():
    # `to_json` writes the secure generator's state (a 'blake2b:' seed, as a served table's);
    # `from_json` reads it back, and the game goes on with the same draws.
    from interpreter.engine.rng import is_secure, secure_seed

    rs = load_ruleset("beer_flights")
    st = rs.new_game(3, seed=secure_seed())
    data = json.loads(json.dumps(st.to_json()))
    assert is_secure(int(data["rng"]))
    back = State.from_json(rs, data)
    assert back.to_json() == data
    r1, r2 = Rng(5), Rng(5)
    while not st.is_terminal():
        a, b = st.legal_actions(), back.legal_actions()
        assert [str(x) for x in a] == [str(x) for x in b]
        st.apply(a[r1.below(len(a))])
        back.apply(b[r2.below(len(b))])
    assert back.to_json() == st.to_json() and back.outcome() == st.outcome()


@pytest.mark.parametrize("change, words", [
    (lambda d: d.update(num_players=1000), "num_players|players"),
    (lambda d: d.update(current=7), "seat"),
    (lambda d: d["zones"].pop(next(iter(d["zones"]))), "zones"),
    (lambda d: d["stack"].append([99999, 0, {}, None]), "frame"),
    (lambda d: d.update(rng="99999999999999999999"), "64-bit one nor a secure one"),
    (lambda d: d.update(rng=str(1 << 300)), "64-bit one nor a secure one"),
    (lambda d: d.update(rng="9" * 98), "does not match"),
    (lambda d: d.update(pending={"choose": 4000, "locals": {}}), "decision"),
    (lambda d: d.update(extra=1), "Additional properties"),
    (lambda d: d["vars"].update({next(iter(d["vars"])): _nest(100)}), "nested"),
])
def test_a_forged_document_is_refused_with_the_reason(saved, change, words):
    rs, data = saved[("beer_flights", "sample")]
    d = json.loads(json.dumps(data))
    change(d)
    with pytest.raises(TapsterError, match=words):
        State.from_json(rs, d)


def test_a_component_in_two_places_is_refused(saved):
    rs, data = saved[("beer_flights", "sample")]
    d = json.loads(json.dumps(data))
    d["zones"]["discard"].append(d["zones"]["deck"][0])
    with pytest.raises(TapsterError, match="two places"):
        State.from_json(rs, d)


def _nest(n):
    v: list = []
    for _ in range(n):
        v = [v]
    return v


def _damage(data, choices):
    """``data`` with one value somewhere replaced by junk (hypothesis picks where and what)."""
    d = json.loads(json.dumps(data))
    node = d
    for step in choices["path"]:
        if isinstance(node, dict) and node:
            key = sorted(node)[step % len(node)]
        elif isinstance(node, list) and node:
            key = step % len(node)
        else:
            break
        if not isinstance(node[key], (dict, list)) or not node[key] or step % 3 == 0:
            node[key] = choices["junk"]
            return d
        node = node[key]
    return d


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    which=st_.integers(0, 10**6),
    path=st_.lists(st_.integers(0, 1000), min_size=1, max_size=6),
    junk=st_.sampled_from(JUNK) | st_.integers() | st_.text(max_size=5),
)
def test_a_damaged_document_is_refused_or_loads_and_plays_never_a_raw_error(saved, which, path, junk):
    keys = sorted(saved)
    rs, data = saved[keys[which % len(keys)]]
    d = _damage(data, {"path": path, "junk": junk})
    try:
        st = State.from_json(rs, d)
    except TapsterError:
        return
    if not st.is_terminal():
        try:
            actions = st.legal_actions()
            if actions:
                st.apply(actions[0])
        except TapsterError:
            pass
