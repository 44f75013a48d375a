"""`set` and `add` on an item at any depth of a variable (`res[p][k]`, `rec['b']['c']`,
`deep[0][1][-1][0]`): the same values, errors and limits in the reference path (the verbs' own
runs, :class:`interpreter.engine.places.LValue`) and the generated code
(:mod:`interpreter.engine.effectgen`, ``H_setpath``); a failed move changes nothing; what a name
kept of an inner list stays as it was (each list on the way is replaced, not changed); and the
compile errors for places that cannot be set, with file:line:col and a fix.  A tiny ruleset."""

from __future__ import annotations

import json

import pytest

from interpreter import RulesetError, RulesetErrors, TapsterError, load_ruleset
from interpreter.engine import effectgen, flow
from interpreter.lang import codegen

NESTED = """\
name: Nested
players: {min: 2, max: 2}
vars:
  res: {initial: [[0, 0, 0], [0, 0, 0]]}
  rec: {initial: {a: [1, 2], b: {c: 5}}}
  deep: {initial: [[[0, 1], [2, 3]]]}
  tup: {initial: [1]}
  kept: {initial: []}
flow:
  - set: {"tup[0]": "(1, 2)"}
  - repeat:
      times: 3
      do:
        - choose:
            options:
              - action: gain
                for: k
                in: "range(4)"
                do:
                  - let: {old: "res[current]"}
                  - add: {"res[current][k]": 2}
                  - set: {"rec['b']['c']": "res[current][k] + len(old)", kept: "old"}
              - {action: deep, do: [{set: {"deep[0][1][-1]": "[9]"}}, {add: {"deep[0][1][-1][0]": 1}}]}
              - {action: rec, do: [{add: {"rec['a'][1]": 3}}, {set: {"rec['b']['new']": 1}}]}
              - {action: badkey, do: [{add: {"rec['z'][1]": 3}}]}
              - {action: newkey, do: [{add: {"rec['b']['nope']": 3}}]}
              - {action: tuple, do: [{set: {"tup[0][1]": 3}}]}
              - {action: text, do: [{add: {"res[0]['x']": 3}}]}
              - {action: notint, do: [{add: {"res[0][1]": "'x'"}}]}
              - {action: big, do: [{set: {"res[0][0]": "list(range(20000))"}}]}
              - action: huge
                do: [{set: {"res[1][2]": "(2 ** 63) ** 64"}}, {repeat: {times: 65, do: [{add: {"res[1][2]": "res[1][2]"}}]}}]
outcome:
  score: "sum(res[p])"
"""

ACTIONS = ["gain(0)", "gain(2)", "gain(3)", "deep", "rec", "badkey", "newkey", "tuple", "text", "notint", "big", "huge"]


def _line(text: str, fragment: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if fragment in line)


def _play(path, action: str) -> list:
    """Two moves ``action`` (or the first error), the variables after each; a failed move must
    leave the state as it was."""
    st = load_ruleset(path).new_game(2)
    seen = []
    for _ in range(2):
        before = json.dumps(st.to_json(), sort_keys=True)
        try:
            st.apply(action)
        except TapsterError as exc:
            assert json.dumps(st.to_json(), sort_keys=True) == before
            seen.append(("error", str(exc), exc.mark.line if exc.mark else None))
            break
        seen.append(("state", dict(st.vars)))
    return seen


@pytest.mark.parametrize("action", ACTIONS)
def test_nested_writes_generated_and_reference_agree(tmp_path, monkeypatch, action):
    """The generated code (H_setpath, the inline `add`) and the verbs' own runs (codegen off,
    effectgen's `set` and `add` handlers removed) give the same states or the same errors."""
    path = tmp_path / "ruleset.yaml"
    path.write_text(NESTED)
    rs = load_ruleset(path)
    assert any("H_setpath(st.vars['res']" in src for _, src in rs.sources)  # the generated form is used
    generated = _play(path, action)
    monkeypatch.setattr(codegen, "ENABLED", False)
    monkeypatch.delitem(effectgen._HANDLERS, flow.Add)
    monkeypatch.delitem(effectgen._HANDLERS, flow.Set)
    assert _play(path, action) == generated


def test_nested_writes_change_the_right_item(tmp_path):
    path = tmp_path / "ruleset.yaml"
    path.write_text(NESTED)
    g = _play(path, "gain(2)")
    assert g[1][1]["res"] == [[0, 0, 4], [0, 0, 0]]  # seat 0 plays both moves (no turns): 2 + 2
    assert g[1][1]["rec"] == {"a": [1, 2], "b": {"c": 4 + 3}}
    d = _play(path, "deep")
    assert d[0][1]["deep"] == [[[0, 1], [2, [10]]]]
    r = _play(path, "rec")
    assert r[1][1]["rec"] == {"a": [1, 8], "b": {"c": 5, "new": 1}}  # the last record may get a new key


def test_a_name_keeps_the_inner_list_it_was_given(tmp_path):
    """`let: {old: "res[current]"}` then `add: {"res[current][k]": 2}`: `old` is still the list
    before the add (the add replaced `res[0]` by a changed copy), and so is a clone taken before."""
    path = tmp_path / "ruleset.yaml"
    path.write_text(NESTED)
    st = load_ruleset(path).new_game(2)
    inner = st.vars["res"][0]
    clone = st.clone()
    st.apply("gain(1)")
    assert st.vars["kept"] == [0, 0, 0] and st.vars["res"][0] == [0, 2, 0]
    assert inner == [0, 0, 0]  # the old inner list itself was not changed
    assert clone.vars["res"] == [[0, 0, 0], [0, 0, 0]]
    st.apply("gain(1)")
    assert st.vars["kept"] == [0, 2, 0]


@pytest.mark.parametrize(("action", "words"), [
    ("gain(3)", ["cannot set `res[current][k]`", "`res[0]` has 3 item(s), found index 3", "`initial:` every position"]),
    ("badkey", ["the record `rec` has no key 'z'", "its keys: 'a', 'b'", "add the key to the variable's `initial:`"]),
    ("newkey", ["the record `rec['b']` has no key 'nope'"]),  # `add` reads the item first
    ("tuple", ["`tup[0]` is `(1, 2)`, not a list or record"]),
    ("text", ["`res[0]` is a list, indexed by a whole number, found 'x'", "from 0 to 2"]),
    ("notint", ["cannot add to `res[0][1]`"]),
    ("big", ["cannot set `res[0][0]`: the value has more than 10000 items (the limit)"]),
    ("huge", ["cannot add to `res[1][2]`: a whole number of more than 4096 bits"]),
])
def test_bad_nested_writes_name_the_place_and_the_fix(tmp_path, action, words):
    path = tmp_path / "ruleset.yaml"
    path.write_text(NESTED)
    kind, message, line = _play(path, action)[0]
    assert kind == "error"
    for w in words:
        assert w in message, message
    fragment = {"gain(3)": '"res[current][k]": 2', "huge": '"res[1][2]": "res[1][2]"'}.get(action, f"action: {action},")
    assert line == _line(NESTED, fragment)


def _errors(tmp_path, text: str) -> list:
    path = tmp_path / "ruleset.yaml"
    path.write_text(text)
    with pytest.raises(RulesetError) as info:
        load_ruleset(path)
    err = info.value
    return err.errors if isinstance(err, RulesetErrors) else [err]


@pytest.mark.parametrize(("place", "words"), [
    ('"hand[0][1]"', ["`hand[0][1]` cannot be set", "expected a variable's item at any depth", "the zone `hand`",
                      "components change places with `move`"]),
    ('"rse[0][1]"', ["found `rse`, not a variable", "did you mean `res`"]),
    ('"res[0].wins"', ["`wins` is not a mutable property", "set by its key: `res[0]['wins']`"]),
    ('"first(res)[0]"', ["found an index of an expression"]),
])
def test_places_that_cannot_be_set_are_compile_errors_with_a_fix(tmp_path, place, words):
    text = NESTED.replace("flow:\n", f"zones:\n  hand: {{per_player: true}}\nflow:\n  - set: {{{place}: 1}}\n")
    first = _errors(tmp_path, text)[0]
    for w in words:
        assert w in str(first), str(first)
    assert first.mark is not None and first.mark.line == _line(text, f"- set: {{{place}: 1}}")
    assert first.mark.column == _line_text(text, f"- set: {{{place}: 1}}").index(place) + 2  # inside the quote
    assert str(first).startswith(f"{first.mark.file}:{first.mark.line}:{first.mark.column}:")


def test_a_local_name_cannot_be_set_at_any_depth(tmp_path):
    text = NESTED.replace("- set: {\"tup[0]\": \"(1, 2)\"}",
                          "- let: {xs: \"[[1]]\"}\n  - set: {\"xs[0][0]\": 2}")
    first = _errors(tmp_path, text)[0]
    assert "found an index of the local name `xs`" in str(first) and "declare a variable under `vars:`" in str(first)
    assert first.mark.line == _line(text, '"xs[0][0]"')


def _line_text(text: str, fragment: str) -> str:
    return text.splitlines()[_line(text, fragment) - 1]
