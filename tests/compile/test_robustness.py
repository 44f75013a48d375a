"""Bad input gets a clear error and nothing is lost: property-based and targeted fuzzing.

Whatever a user writes (a ruleset, an expression, a replay log, answers at the terminal), the
interpreter answers with a :class:`TapsterError` (the CLI: exit code 1 and ``file:line:col:``
lines), never another Python exception, never a hang.  Hypothesis runs a bounded,
derandomized number of examples (the whole file takes well under a minute); set
``TAPSTER_FUZZ=20`` to run twenty times as many examples with fresh random seeds.
"""

from __future__ import annotations

import atexit
import copy
import functools
import io
import json
import os
import random
import re
import shutil
import string
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, example, given, note, settings
from hypothesis import strategies as st

from interpreter import TapsterError, available_rulesets, load_ruleset
from interpreter.cli import main
from interpreter.compile.compiler import find_ruleset
from interpreter.engine.state import State
from interpreter.errors import CompileError, ExpressionError, ExpressionSyntaxError, FlowError, RulesetError
from interpreter.lang.expression import Env, Scope, compile_expression
from interpreter.loader.load import load_yaml

FUZZ = int(os.environ.get("TAPSTER_FUZZ", "0") or 0)


def fuzz_settings(examples: int, **kw) -> settings:
    """``examples`` derandomized examples (deterministic runs), or FUZZ times as many fresh."""
    return settings(
        max_examples=examples * FUZZ if FUZZ else examples,
        derandomize=not FUZZ,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
        **kw,
    )


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """``tapster ARGV`` in-process: (exit code, stdout, stderr); never an escaping exception."""
    code = main(list(argv))
    out = capsys.readouterr()
    assert code in (0, 1), (argv, code, out.err)
    assert "Traceback" not in out.out + out.err
    return code, out.out, out.err


def assert_marked(err: str, file: str) -> None:
    """Every error line of ``tapster validate`` starts with ``file:line:col:``; the lines under
    it (a caret excerpt) are indented."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines, "a failure prints its problems"
    mark = re.compile(re.escape(file) + r":\d+:\d+: \S")
    for ln in lines:
        assert ln.startswith("    ") or mark.match(ln), f"no file:line:col in {ln!r}\n{err}"


# ---------------------------------------------------------------------------------------------
# `tapster validate` on anything


_KEYS = [
    "name", "players", "min", "max", "default", "params", "components", "zones", "vars", "setup", "flow",
    "procedures", "functions", "triggers", "outcome", "variants", "scenarios", "limits", "steps", "items",
    "table", "key", "copies", "start", "props", "derived", "label", "per_player", "count", "visibility",
    "keyed", "initial", "move", "what", "from", "to", "at", "set", "add", "let", "if", "then", "else",
    "for_each", "in", "as", "do", "repeat", "times", "while", "cond", "choose", "options", "action", "for",
    "otherwise", "player", "turn", "phase", "call", "with", "log", "end_game", "emit", "event", "on",
    "random", "roll", "dice", "sides", "score", "tiebreak", "winners", "value", "description", "display",
]  # fmt: skip
_WORDS = ["deck", "hand[p]", "p", "current", "len(deck) > 0", "x +", "[1, 2]", "(", "range(3)", "{x}", "true"]

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(_WORDS), st.text(max_size=12),
)  # fmt: skip
keys = st.one_of(st.sampled_from(_KEYS), st.text(max_size=8))
yaml_data = st.recursive(
    scalars,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(keys, children, max_size=5)),
    max_leaves=30,
)
ruleset_shaped = st.fixed_dictionaries(
    {"name": st.text(max_size=5), "players": yaml_data, "flow": yaml_data},
    optional={k: yaml_data for k in ("zones", "vars", "components", "procedures", "outcome", "setup", "params")},
)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("robustness")


@fuzz_settings(60)
@given(text=st.text(max_size=300))
@example(text="\x1f")  # a control character: PyYAML's ReaderError, once a two-line message at 1:1
@example(text="a: b\n  c: \x07")
def test_validate_any_text(capsys, scratch, text):
    path = scratch / "text.yaml"
    path.write_text(text, encoding="utf-8")
    code, _, err = run(capsys, "validate", str(path))
    if code == 1:
        assert_marked(err, str(path))


@fuzz_settings(80)
@given(data=st.one_of(yaml_data, ruleset_shaped))
@example(data={"name": "", "players": None, "flow": None, "zones": {"\r": None}})  # a key that broke the line
def test_validate_any_yaml_data(capsys, scratch, data):
    path = scratch / "data.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    code, _, err = run(capsys, "validate", str(path))
    if code == 1:
        assert_marked(err, str(path))


def test_a_control_character_is_placed_exactly():
    from interpreter.loader.load import load_yaml_text

    with pytest.raises(TapsterError) as info:
        load_yaml_text("a: b\nc: é\x07", "f.yaml")  # the C loader counts bytes: é is two
    assert str(info.value) == "f.yaml:2:5: YAML syntax error: control characters are not allowed; found the character U+0007"


@fuzz_settings(40)
@given(table=st.text(alphabet=st.sampled_from('ab,"\n #1.x\x00é'), max_size=60))
def test_validate_any_csv_table(capsys, scratch, table):
    (scratch / "t.csv").write_text(table, encoding="utf-8")
    path = scratch / "table.yaml"
    path.write_text(HEAD + "components:\n  c: {table: t.csv, label: '{a}'}\nflow: []\n", encoding="utf-8")
    code, _, err = run(capsys, "validate", str(path))
    if code == 1:
        assert re.match(r"\S+:\d+:\d+: ", err), err


# ---------------------------------------------------------------------------------------------
# Mutations of the shipped rulesets


def _paths(data, path=()):
    yield path
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _paths(v, path + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _paths(v, path + (i,))


def _get(data, path):
    for k in path:
        data = data[k]
    return data


_REPLACEMENTS = [None, 0, -1, 2.5, 1_000_000, "", "x", "[", "(1", [], [1], {}, {"x": 1}, True]
_NOISE = "()[]{}.,:'\"+-*/%=<> x0_"


@functools.cache
def shipped() -> dict:
    """Per shipped ruleset: a scratch copy of its folder (for its tables) and its data, with a
    smaller step budget so that a mutant looping forever fails fast."""
    scratch = Path(tempfile.mkdtemp(prefix="tapster-mutants-"))
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)
    out = {}
    for name in available_rulesets():
        folder = scratch / name
        folder.mkdir()
        src = find_ruleset(name).parent
        for f in src.iterdir():
            if f.is_file():
                shutil.copy(f, folder / f.name)
        data = load_yaml(src / "ruleset.yaml").data
        data.setdefault("limits", {})["steps"] = min(data.get("limits", {}).get("steps", 20_000), 20_000)
        out[name] = (folder, data)
    return out


def _mutate(data, draw):
    data = copy.deepcopy(data)
    paths = [p for p in _paths(data) if p]
    path = paths[draw(st.integers(0, len(paths) - 1))]
    parent, key = _get(data, path[:-1]), path[-1]
    node = parent[key]
    kind = draw(st.sampled_from(["delete", "replace", "rename", "corrupt"]))
    if kind == "corrupt" and not isinstance(node, str):
        kind = "replace"
    if kind == "rename" and not isinstance(parent, dict):
        kind = "delete"
    if kind == "delete":
        del parent[key]
    elif kind == "replace":
        parent[key] = copy.deepcopy(draw(st.sampled_from(_REPLACEMENTS)))
    elif kind == "rename":
        new = draw(st.sampled_from([str(key) + "x", "x", "on", "do", "if", "value", "1"]))
        if new not in parent:
            parent[new] = parent.pop(key)
    else:
        i = draw(st.integers(0, len(node)))
        if draw(st.booleans()) and node:
            i = min(i, len(node) - 1)
            parent[key] = node[:i] + node[i + 1 :]
        else:
            parent[key] = node[:i] + draw(st.sampled_from(_NOISE)) + node[i:]
    return data, (kind, path)


def play_briefly(rs, seed: int, actions: int = 25) -> None:
    """A short random game touching the whole state API; only TapsterErrors may come out."""
    rng = random.Random(seed)
    stt = rs.new_game(rs.default_players, seed=seed, log=True)
    for _ in range(actions):
        if stt.is_terminal():
            stt.outcome()
            break
        d = stt.decision()
        stt.observation(d.players[0] if d.players and isinstance(d.players[0], int) else 0)
        again = State.from_json(rs, json.loads(json.dumps(stt.to_json())))
        assert again.legal_actions() == stt.legal_actions()
        stt.clone()
        stt.apply(rng.choice(stt.legal_actions()))


@fuzz_settings(40)
@given(data=st.data())
def test_mutated_shipped_rulesets_fail_cleanly(data):
    name = data.draw(st.sampled_from(sorted(shipped())))
    folder, base = shipped()[name]
    mutant, how = _mutate(base, data.draw)
    note(f"{name}: {how[0]} at {'/'.join(map(str, how[1]))}")
    path = folder / "mutant.yaml"
    path.write_text(yaml.safe_dump(mutant, allow_unicode=True, sort_keys=False), encoding="utf-8")
    try:
        rs = load_ruleset(path)
    except TapsterError as exc:
        errors = getattr(exc, "errors", [exc])
        assert all(e.mark is not None for e in errors), (how, [str(e) for e in errors])
        return
    try:
        play_briefly(rs, data.draw(st.integers(0, 1000)))
    except TapsterError:
        pass


# ---------------------------------------------------------------------------------------------
# The expression language


_TOKENS = [
    "x", "xs", "d", "s", "c", "len", "range", "sum", "max", "min", "sorted", "str", "int", "abs", "top",
    "count", "distinct", "round", "ceil", "reversed", "default", "reverse", "0", "1", "2", "-1", "3.5", "64",
    "'a'", '"b"', "true", "false", "none", "and", "or", "not", "if", "else", "for", "in", "is", "+", "-",
    "*", "/", "//", "%", "**", "==", "!=", "<", "<=", ">", ">=", "=", "(", ")", "[", "]", "{", "}", ",",
    ":", ".", "&&", "!", "null", "lambda", "?",
]  # fmt: skip
_SCOPE = Scope(resolve=lambda n: None, locals=frozenset({"x", "xs", "d", "s", "c"}))


def _env() -> Env:
    return Env(None, {"x": 3, "xs": [1, 2, 3], "d": {"a": 1, (0, 1): [2]}, "s": "text", "c": None})


def check_expression(text: str) -> None:
    """Compile and evaluate ``text``: only the expression language's own errors may come out."""
    try:
        fn = compile_expression(text, _SCOPE)
    except (ExpressionSyntaxError, CompileError):
        return
    try:
        fn(_env())
    except ExpressionError:
        pass


@fuzz_settings(400)
@given(tokens=st.lists(st.sampled_from(_TOKENS), max_size=14))
def test_random_token_strings(tokens):
    check_expression(" ".join(tokens))


@fuzz_settings(150)
@given(text=st.text(alphabet=string.printable, max_size=40))
def test_random_printable_expressions(text):
    check_expression(text)


@pytest.mark.parametrize(
    ("opening", "closing"),
    [("[", "]"), ("{1: ", "}"), ("-", ""), ("not ", ""), ("xs[", "]"), ("len(", ")"), ("1 + ", ""),
     ("x if true else ", ""), ("(1, ", ")"), ("[y for y in ", "]")],
)  # fmt: skip
@pytest.mark.parametrize("depth", [300, 5000])
def test_deep_nesting_is_a_clear_error(opening, closing, depth):
    """Nesting is limited (MAX_NESTING levels) and so is an expression's length, both before
    anything recurses: a clear error, never a RecursionError."""
    text = opening * depth + "1" + closing * depth
    with pytest.raises(ExpressionSyntaxError) as info:
        compile_expression(text, _SCOPE)
    assert "nests more than 100 levels" in info.value.message or "the limit is 10000" in info.value.message
    assert compile_expression(opening * 90 + "1" + closing * 90, _SCOPE) is not None  # 90 levels are fine


def test_grouping_parentheses_are_not_nesting():
    assert compile_expression("(" * 3000 + "1" + ")" * 3000, _SCOPE)(_env()) == 1


# ---------------------------------------------------------------------------------------------
# `tapster replay` on corrupted logs


@pytest.fixture(scope="module")
def good_log(tmp_path_factory) -> dict:
    path = tmp_path_factory.mktemp("log") / "game.json"
    assert main(["play", "tic_tac_toe", "--seed", "3", "--log", str(path), "--json"]) == 0
    return json.loads(path.read_text())


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12), st.floats(allow_nan=False), st.text(max_size=8)),
    lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(st.text(max_size=6), children, max_size=3)),
    max_leaves=8,
)


@fuzz_settings(50)
@given(data=st.data())
def test_replay_of_a_corrupted_log(capsys, scratch, good_log, data):
    path = scratch / "corrupt.json"
    text = json.dumps(good_log, indent=1)
    kind = data.draw(st.sampled_from(["truncate", "field", "action", "delete"]))
    if kind == "truncate":
        text = text[: data.draw(st.integers(0, len(text) - 1))]
    else:
        log = copy.deepcopy(good_log)
        if kind == "field":
            log[data.draw(st.sampled_from(sorted(log)))] = data.draw(json_values)
        elif kind == "action":
            i = data.draw(st.integers(0, len(log["actions"]) - 1))
            log["actions"][i] = data.draw(st.one_of(json_values, st.sampled_from(["mark(9)", "mark(-1)", "mark(", ""])))
        else:
            del log[data.draw(st.sampled_from(sorted(log)))]
        text = json.dumps(log)
    path.write_text(text, encoding="utf-8")
    code, out, err = run(capsys, "replay", str(path))
    if code == 1:
        assert err.strip()
    else:
        assert out.startswith("OK")
    if kind == "truncate":
        assert code == 1 and re.search(re.escape(str(path)) + r":\d+:\d+: ", err), err


# ---------------------------------------------------------------------------------------------
# A human at the terminal typing nonsense


@fuzz_settings(25)
@given(lines=st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
                              max_size=20), max_size=8))  # fmt: skip
@example(lines=["²", "9" * 5000, "-1", "0"])  # digits int() refuses: once a ValueError traceback
def test_human_typing_garbage_then_end_of_input(capsys, monkeypatch, lines):
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(ln + "\n" for ln in lines)))
    code, out, err = run(capsys, "play", "tic_tac_toe", "--agents", "human,first", "--seed", "1")
    if code == 1:
        assert "left the game" in err


# ---------------------------------------------------------------------------------------------
# Rules that never end, and absurd sizes


HEAD = "name: T\nplayers: {min: 2, max: 2}\n"


def load_text(tmp_path, text: str):
    path = tmp_path / "ruleset.yaml"
    path.write_text(text, encoding="utf-8")
    return load_ruleset(path)


def ends_with(tmp_path, text: str, error: type, words: str, actions: int = 0):
    """Loading, setting up, playing the first ``actions`` actions of ``text`` and asking for the
    outcome raises ``error``."""
    with pytest.raises(error) as info:
        rs = load_text(tmp_path, text)
        stt = rs.new_game(2, seed=0, log=True)
        for _ in range(actions):
            if stt.is_terminal():
                break
            stt.apply(stt.legal_actions()[0])
        stt.outcome()
    assert words in str(info.value), str(info.value)
    assert info.value.mark is not None, str(info.value)
    return info.value


def test_a_while_that_never_ends(tmp_path):
    ends_with(tmp_path, HEAD + "vars: {x: 0}\nflow:\n  - while: {cond: 'true', do: [{add: {x: 1}}]}\n",
              FlowError, "step budget")  # fmt: skip


def test_a_procedure_calling_itself_forever(tmp_path):
    ends_with(tmp_path, HEAD + "procedures:\n  again: [{call: again}]\nflow:\n  - call: again\n", FlowError, "step budget")
    ends_with(tmp_path, HEAD + "procedures:\n  again: {params: [n], do: [{call: {procedure: again, with: {n: n + 1}}}]}\n"
              "flow:\n  - call: {procedure: again, with: {n: 0}}\n", FlowError, "step budget")  # fmt: skip


def test_a_function_calling_itself_forever(tmp_path):
    ends_with(tmp_path, HEAD + "functions:\n  f: {params: [n], value: 'f(n + 1)'}\nvars: {x: 0}\n"
              "flow:\n  - set: {x: 'f(0)'}\n", ExpressionError, "nested too deeply")  # fmt: skip


def test_a_decision_inside_an_endless_loop_stops_the_game(capsys, tmp_path):
    """Every decision is a new move (the step budget starts again), so agents could play such a
    game forever: `limits: {actions: N}` (default 100000) stops it, in `play`, `simulate` and a
    scenario's `play_out`."""
    text = HEAD + ("limits: {actions: 500}\nflow:\n  - while:\n      cond: 'true'\n      do:\n"
                   "        - choose: {options: [{action: go}]}\n"
                   "scenarios:\n  - {name: forever, steps: [{play_out: random}]}\n")  # fmt: skip
    path = tmp_path / "ruleset.yaml"
    path.write_text(text, encoding="utf-8")
    code, _, err = run(capsys, "play", str(path), "--seed", "1")
    assert code == 1 and f"{path}:8:11: the game has not ended after 500 actions" in err
    code, _, err = run(capsys, "simulate", str(path), "--games", "2", "--jobs", "1", "--seed", "1", "--json")
    assert code == 1 and "the game has not ended after 500 actions" in err
    code, out, _ = run(capsys, "test", str(path))
    assert code == 1 and "play_out did not end after 500 actions" in out
    assert load_text(tmp_path, text.replace("limits: {actions: 500}\n", "")).action_limit == 100_000


@pytest.mark.parametrize(
    ("rules", "error", "words"),
    [
        # a value of the wrong kind reaching an effect
        ("procedures:\n  f: []\nflow:\n  - call: {dynamic: '[1]'}\n", FlowError, "no procedure named '1'"),
        ("zones: {a: {}, b: {}}\nflow:\n  - move: {what: 3, from: a, to: b}\n", FlowError, "`move` failed"),
        ("zones: {a: {}, b: {}}\nflow:\n  - move: {count: \"'x'\", from: a, to: b}\n", FlowError, "`move` failed"),
        ("flow:\n  - random: {from: 5, as: r}\n", FlowError, "`random` failed"),
        ("flow:\n  - roll: {dice: \"'a'\", sides: 6, as: r}\n", FlowError, "`roll` needs 0 to 10000 dice (found 'a')"),
        ("flow:\n  - roll: {dice: 2, sides: 0, as: r}\n", FlowError, "of at least 1 side (found '0')"),
        ("flow:\n  - roll: {dice: 1000000000, sides: 6, as: r}\n", FlowError, "`roll` needs 0 to 10000 dice"),
        ("flow:\n  - choose: {options: [{action: go, for: i, in: 5}]}\n", ExpressionError,
         "option `go`: `in` must give a list, found '5'"),
        ("flow:\n  - choose: {options: [{action: go, for: [a, b], in: '[1, 2]'}]}\n", ExpressionError,
         "each item of `in` must be a list of 2 values; found '1'"),
        ("flow:\n  - choose: {player: \"'a'\", options: [{action: go}]}\n", ExpressionError,
         "`player` of a decision must be a seat from 0 to 1"),
        ("flow:\n  - choose: {player: 99, options: [{action: go}]}\n", ExpressionError, "found '99'"),
        ("flow:\n  - choose: {player: '[]', options: [{action: go}]}\n", ExpressionError, "(or a list of seats)"),
        # outcomes that cannot rank the players
        ("flow: []\noutcome: {score: \"'a' if p == 0 else 1\"}\n", ExpressionError, "cannot rank the players"),
        ("flow: []\noutcome: {score: 'none if p == 0 else 1'}\n", ExpressionError, "found P1: none; P2: 1"),
        ("flow: []\noutcome: {winners: \"[1, 'a']\"}\n", ExpressionError, "`winners` must give a list of seats"),
        # a seat out of range (one seat, not a list, is a load error since issue 30: test_check.py)
        ("flow: []\noutcome: {winners: '[7]'}\n", ExpressionError, "from 0 to 1, found '7'"),
        # runaway sizes
        ("vars: {x: 0}\nflow:\n  - set: {x: 'len(range(10**12))'}\n", ExpressionError, "the limit is 1000000"),
        ("vars: {x: 0}\nflow:\n  - set: {x: \"len('ab' * 10**10)\"}\n", ExpressionError, "makes more than 1000000"),
        ("vars: {x: 2}\nflow:\n  - while: {cond: 'true', do: [{set: {x: x * x}}]}\n", ExpressionError,
         "more than 4096 bits"),
        ("vars: {x: 0}\nflow:\n  - set: {x: '(10**60)**60'}\n", ExpressionError, "more than 4096 bits"),
        # each `x + [...]` copies x: the copies add up to 6,250,000 items before x reaches 10,000,
        # so the memory budget (4,000,000 a move, issue 25) stops the move first; raised, the
        # limit of a stored value does
        ("vars: {x: []}\nflow:\n  - while: {cond: 'true', do: [{set: {x: 'x + [1, 2, 3, 4, 5, 6, 7, 8]'}}]}\n",
         ExpressionError,
         "the memory budget of 4,000,000"),
        ("limits: {memory: 10000000}\nvars: {x: []}\nflow:\n"
         "  - while: {cond: 'true', do: [{set: {x: 'x + [1, 2, 3, 4, 5, 6, 7, 8]'}}]}\n",
         ExpressionError,
         "the value has more than 10000 items"),
        ("vars: {x: [1]}\nflow:\n  - while: {cond: 'true', do: [{set: {x: '[x, x]'}}]}\n", ExpressionError,
         "the value has more than 10000 items"),
        ("vars: {x: [1]}\nflow:\n  - while: {cond: 'true', do: [{set: {x: '(x, x)'}}]}\n", ExpressionError,
         "the value has more than 10000 items"),
        ("vars: {x: []}\nflow:\n  - while: {cond: 'true', do: [{set: {x: '[x]'}}]}\n", ExpressionError,
         "nested more than 32 levels deep"),
        ("functions:\n  f: {params: [n], value: '0 if n == 0 else f(n - 1) + f(n - 1)'}\nvars: {x: 0}\n"
         "flow:\n  - set: {x: f(40)}\n", ExpressionError, "work budget"),
    ],
)  # fmt: skip
def test_runtime_mistakes_are_clear_errors(tmp_path, rules, error, words):
    ends_with(tmp_path, HEAD + rules, error, words, actions=1)


@pytest.mark.parametrize(
    ("rules", "words"),
    [
        ("components:\n  c: {items: [{v: 1}], copies: 1000000}\n", "would make more than 100000 components"),
        ("params: {n: 100000000}\ncomponents:\n  c: {items: [{v: 1}, {v: 2}], copies: n}\n",
         "2 rows × 100000000 copies would make more than 100000 components"),
        ("components:\n  c: {items: [{v: 1}], copies: \"'x'\"}\n", "`copies` must be a whole number ≥ 1, found 'x'"),
        ("params: {n: -5}\ncomponents:\n  c: {items: [{v: 1}], copies: n}\n", "found '-5'"),
        ("params: {n: 100000000}\nzones: {z: {per_player: true, count: n}}\n",
         "`count` must be a whole number from 1 to 10000 or a parameter, found 'n' = 100000000"),
        ("players: {min: 2, max: 100000000}\n", "100000000 is greater than the maximum of 64"),
    ],
)  # fmt: skip
def test_absurd_sizes_are_refused_at_load(tmp_path, rules, words):
    text = HEAD.replace("players: {min: 2, max: 2}\n", "") if rules.startswith("players") else HEAD
    with pytest.raises(RulesetError) as info:
        load_text(tmp_path, text + rules + "flow: []\n")
    assert words in str(info.value)
    assert all(e.mark is not None for e in getattr(info.value, "errors", [info.value]))


def test_bad_tables_are_load_errors(tmp_path):
    (tmp_path / "t.csv").write_text("a,b\n1,2\n1,\"" + "x" * 200_000 + "\"\n", encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        load_text(tmp_path, HEAD + "components:\n  c: {table: t.csv}\nflow: []\n")
    assert f"{tmp_path / 't.csv'}:3:1: not a valid CSV table: field larger than field limit" in str(info.value)
    (tmp_path / "t.yaml").write_text("- {b: 2}\n- {1: a, b: 2}\n", encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        load_text(tmp_path, HEAD + "components:\n  c: {table: t.yaml}\nflow: []\n")
    assert f"{tmp_path / 't.yaml'}:2:4: a column name is text, found 1" in str(info.value)


@pytest.mark.parametrize("value", ["&a [*a]", "!!binary aGVsbG8=", "[1, 2"])
def test_a_param_value_is_read_as_safely_as_a_ruleset(capsys, value):
    code = main(["play", "beer_flights", "--seed", "1", "--json", "--param", f"turns={value}"])
    err = capsys.readouterr().err
    assert code == 2 and "the value of turns is not plain YAML" in err and "Traceback" not in err


def test_malformed_scenarios_are_reported_with_their_place(tmp_path):
    from interpreter.analysis.scenarios import run_scenarios

    base = HEAD + "flow: []\nscenarios:\n  - name: s\n    steps: []\n"
    path = tmp_path / "ruleset.yaml"
    path.write_text(base + "    params: 5\n", encoding="utf-8")  # once an AttributeError
    with pytest.raises(RulesetError) as info:
        run_scenarios(path)
    assert f"{path}:7:5: 5 is not of type 'object' (at scenarios/0/params)" in str(info.value)
    path.write_text(base + "    players: 1000000000\n", encoding="utf-8")  # once an error without a place
    (result,) = run_scenarios(path)
    assert not result.ok and result.message.startswith(f"{path}:7:5: T is for 2 to 2 players, not 1000000000")


def test_distinct_of_a_long_list_is_linear():
    """`distinct` once compared every item with every item kept: a million numbers never ended."""
    assert compile_expression("len(distinct(range(1000000)))", _SCOPE)(_env()) == 1_000_000
    assert compile_expression("distinct([1, 1.0, [1], [1], (1, 2), (1, 2), xs, xs])", _SCOPE)(_env()) == [
        1, [1], (1, 2), [1, 2, 3]]
