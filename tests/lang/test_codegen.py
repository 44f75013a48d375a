"""The code generator (interpreter/lang/codegen.py): the generated code agrees with the closure
evaluator (the reference) on random games of every ruleset; no ruleset text becomes code; the
work budget stops runaway evaluations; no shipped ruleset falls back to the interpreter."""

from __future__ import annotations

import json
import re

import pytest
import yaml

from interpreter import load_ruleset
from interpreter.engine.rng import Rng
from interpreter.errors import ExpressionError, FlowError, Mark, TapsterError
from interpreter.lang import codegen
from interpreter.lang.codegen import comment

from ..conftest import all_configurations, copy_ruleset


def _reference(name: str, variant: str | None):
    """The ruleset compiled with code generation switched off: closures only."""
    codegen.ENABLED = False
    try:
        return load_ruleset(name, variant)
    finally:
        codegen.ENABLED = True


def _trajectory(rs, seed: int, max_actions: int = 3000) -> list:
    """Everything observable of one random game: every decision's player and legal actions,
    the log, the final state and outcome."""
    st = rs.new_game(rs.default_players, seed=seed, log=True)
    agent = Rng(seed)
    out = []
    for _ in range(max_actions):
        if st.is_terminal():
            break
        d = st.decision()
        out.append((d.players, [str(a) for a in d.actions], d.labels, d.prompt))
        st.apply(d.actions[agent.below(len(d.actions))])
    out.append(json.dumps(st.to_json(), sort_keys=True))
    out.append(st.visible_log())
    if st.is_terminal():
        o = st.outcome()
        out.append((o.scores, o.ranking, o.winners, o.reason))
    return out


@pytest.mark.parametrize(("name", "variant"), all_configurations())
def test_generated_code_agrees_with_the_reference(name, variant):
    """Random games, the same seeds and agents: identical decisions, labels, logs, states and
    outcomes whether expressions run as generated code or as closures."""
    fast = load_ruleset(name, variant)
    ref = _reference(name, variant)
    games = 40 if name in ("tic_tac_toe", "beer_flights") else 12
    for seed in range(games):
        assert _trajectory(fast, seed) == _trajectory(ref, seed), f"{name}:{variant} seed {seed}"


def test_no_shipped_ruleset_falls_back_to_the_interpreter():
    codegen.FALLBACKS.clear()
    for name, variant in all_configurations():
        load_ruleset(name, variant)
    assert codegen.FALLBACKS == []


def test_generated_source_names_its_place_in_the_ruleset():
    rs = load_ruleset("tic_tac_toe")
    sources = [src for place, src in rs.sources if "tic_tac_toe" in place]
    assert any("def legal(env):" in s for s in sources)
    # the win check over the constant `lines` is unrolled: no loop is left in it
    win = [s for s in sources if "CUR" in s and " and " in s and "for " not in s]
    assert win, "the win check over constant lines was not unrolled"


# ---------------------------------------------------------------------------------------------
# Injection: ruleset text never becomes code

HEAD = "name: T\nplayers: {min: 2, max: 2}\n"

# Texts a ruleset could put anywhere: quotes, backslashes, newlines, carriage returns, Unicode
# line separators, comment and string terminators, and code that would write the canary.
PAYLOADS = [
    "x'); open('CANARY', 'w').write('pwned'); ('",
    'x"); open("CANARY", "w").write("pwned"); ("',
    "x\\'); open('CANARY', 'w') #",
    "a\nopen('CANARY', 'w').write('pwned')\n",
    "a\ropen('CANARY', 'w').write('pwned')\r",
    "a\u2028open('CANARY', 'w')\u2029",
    "''' + open('CANARY', 'w').write('x') + '''",
    '""" + open("CANARY", "w").write("x") + """',
    "{__import__('os').system('touch CANARY')}",
    "CANARY').close() or open('CANARY",
    "é ü 中文 \\x41 \t tab",
]


def _braces(text: str) -> str:
    """``text`` as a template that shows it literally."""
    return text.replace("{", "{{").replace("}", "}}")


def _ruleset(payload: str, name: str = "z") -> str:
    """A ruleset with ``payload`` in every place a ruleset puts free text: string literals
    inside expressions, parameter values, table cells, labels, prompts, logs, reasons; and
    ``name`` where the ruleset puts names (a parameter, a zone, a field, an option)."""
    lit = repr(payload)  # a string literal of the expression language holding the payload
    doc = {
        "name": payload,
        "players": {"min": 2, "max": 2},
        "params": {name + "_n" if name.isidentifier() else name: 1, "k": payload},
        "vars": {"v": 0, "t": "", "m": {"initial": {payload: 1}}, "g": {"initial": {payload: [0, {payload: 1}]}}},
        "functions": {"same": {"params": ["a", "b"], "value": "a == b"}},
        "zones": {name: {"visibility": "public"}, "d": {"visibility": "public"}},
        "components": {"card": {"items": [{"n": 1, name: payload}], "start": "d", "label": _braces(payload) + "{n}"}},
        "flow": [
            {"set": {"t": lit}},
            {"set": {"t": "t + k + {'a': k}['a'] + str(len(d))"}},
            {"log": _braces(payload) + " {t}"},
            # nested writes whose keys and values carry the payload (H_setpath, the inline `add`)
            {"set": {f"g[{lit}][1][{lit}]": f"len({lit}) + g[{lit}][1][{lit}]"}},
            {"add": {f"g[{lit}][0]": f"len([{lit}])", f"g[{lit}][1][{lit}]": 1}},
            # a name bound to a value holding a zone's list: a snapshot of it (H_snap)
            {"let": {"w": f"[d, {lit}]"}},
            # a loop over a zone's list: its components' fields read without the class test
            {"let": {"u": f"[c.{name} for c in d if c.{name} == {lit}]"}},
            {"choose": {
                "prompt": _braces(payload),
                "options": [
                    {"action": name, "if": f"t == {lit} + k + k + '1'", "label": _braces(payload)},
                    # written out in the listing (the payload a constant argument folded into the body)
                    # and a leading link that reads no item tested once, before the loop, and a
                    # read that is the same at every item made before it (m[...])
                    {"action": "b", "for": "i", "in": f"[k, {lit}]", "label": "{i}",
                     "if": f"t != {lit} and m[{lit}] == 1 and same({lit}, {lit}) and same(i, i)"},
                    # a first link whose written-out call is charged once for the whole loop
                    {"action": "c", "for": "i", "in": f"[{lit}, w[1]]", "if": f"same(i, {lit})"},
                    # an option over a zone's list: its field read and its action kept without the class test
                    {"action": "e", "for": "x", "in": "d", "if": f"x.{name} == {lit} and u == [{lit}]"},
                ],
            }},
            {"end_game": _braces(payload)},
        ],
        "outcome": {"score": "len(t)", "reason": _braces(payload)},
    }
    return yaml.safe_dump(doc, allow_unicode=True)


@pytest.mark.parametrize("index", range(len(PAYLOADS)))
def test_no_ruleset_text_becomes_code(tmp_path, monkeypatch, index):
    """Every place a ruleset puts text, filled with code that would create a canary file: the
    ruleset loads, every action plays, texts come out exactly as written, and the canary never
    appears."""
    monkeypatch.chdir(tmp_path)
    payload = PAYLOADS[index]
    path = tmp_path / "ruleset.yaml"
    path.write_text(_ruleset(payload), encoding="utf-8")
    rs = load_ruleset(path)
    assert any("def legal(" in src and "env.left -= 10" in src for _, src in rs.sources)  # calls written out
    assert any(re.search(r"\n( *)if (?!hoisted)[^\n]*:\n\1    for l_i_", src) for _, src in rs.sources)  # a link before the loop
    assert any(re.search(r"h_1 = V\['m'\]\[", src) for _, src in rs.sources)  # a read made before the loop
    assert any("def legal(" in src and "* H_len(" in src for _, src in rs.sources)  # a call charged for the loop
    assert any("H_snap(" in src for _, src in rs.sources)  # a snapshot where a name is bound
    assert any("H_setpath(st.vars['g']" in src for _, src in rs.sources)  # nested writes, generated
    assert any(re.search(r"\[l_c_\d+\.fields\['z'\] for l_c_\d+ in ", src) for _, src in rs.sources)  # a known component
    assert any(re.search(r"append\(KEPT\d+\.get\(l_x_\d+\) or H_act\(KEPT\d+, 'e', l_x_\d+\)\)", src)
               for _, src in rs.sources)  # an option's component kept without the class test
    st = rs.new_game(2, seed=0, log=True)
    assert st.vars["t"] == payload + payload + payload + "1"
    assert st.vars["g"] == {payload: [1, {payload: len(payload) + 2}]}
    d = st.decision()
    assert d.prompt == payload
    assert [a.name for a in d.actions] == ["z", "b", "b", "c", "c", "e"]
    assert d.actions[1].args == d.actions[3].args == d.actions[4].args == (payload,)
    assert d.labels[0] == payload
    assert st.visible_log()[-1] == payload + " " + st.vars["t"]
    for a in d.actions:
        after = st.clone()
        after.apply(a)
        assert after.is_terminal()
        assert after.outcome().reason == payload
    assert not (tmp_path / "CANARY").exists()
    assert list(tmp_path.iterdir()) == [path]


@pytest.mark.parametrize("index", range(len(PAYLOADS)))
def test_no_ruleset_text_becomes_code_in_an_option_body_run_in_place(tmp_path, monkeypatch, index):
    """A playout runs a decision-free option body written out where its decision is taken
    (flowgen._inline_body): the payload in the body's expressions, its log and the option's
    items plays as text, and the canary never appears."""
    from interpreter.engine.playout import playout

    monkeypatch.chdir(tmp_path)
    payload = PAYLOADS[index]
    lit = repr(payload)
    doc = {
        "name": payload,
        "players": {"min": 2, "max": 2},
        "vars": {"t": ""},
        "flow": [{"repeat": {"times": 3, "do": [{"choose": {"prompt": _braces(payload), "options": [
            {"action": "a", "for": "i", "in": f"[{lit}, 'x']", "label": "{i}",
             "do": [{"set": {"t": f"t + i + {lit}"}}, {"log": _braces(payload) + " {i}"},
                    {"if": f"len(t) > 1000 * len({lit})", "then": [{"end_game": _braces(payload)}]}]}]}}]}}],
        "outcome": {"score": "len(t)"},
    }
    path = tmp_path / "ruleset.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    rs = load_ruleset(path)
    assert any("# the body of option a, written out" in src for _, src in rs.sources)
    st = rs.new_game(2, seed=0, log=True)
    playout(st, lambda choose, actions, seats: 0)  # the first decision by take, the next two in place
    assert st.finished and st.vars["t"] == (payload + payload) * 3
    assert st.visible_log()[-3:] == [payload + " " + payload] * 3
    assert not (tmp_path / "CANARY").exists()
    assert list(tmp_path.iterdir()) == [path]


@pytest.mark.parametrize("index", range(len(PAYLOADS)))
def test_a_name_that_is_not_a_name_is_refused(tmp_path, monkeypatch, index):
    """Names (zones, parameters, fields, options) must be identifiers: the payload as a name is
    refused with a clean error before anything is compiled."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "ruleset.yaml"
    path.write_text(_ruleset("plain", name=PAYLOADS[index]), encoding="utf-8")
    with pytest.raises(TapsterError) as info:
        load_ruleset(path)
    assert "does not match" in str(info.value) or "not a valid name" in str(info.value)
    assert not (tmp_path / "CANARY").exists()


def test_payload_in_a_folder_name_stays_in_comments(tmp_path, monkeypatch):
    """A ruleset's path reaches the generated source only inside comments: a folder whose name
    holds a newline and code still loads, and nothing runs."""
    monkeypatch.chdir(tmp_path)
    canary = tmp_path / "canary"
    folder = tmp_path / "x\nopen('canary', 'w')\r#"
    folder.mkdir()
    (folder / "ruleset.yaml").write_text(
        HEAD + "vars: {v: 0}\nflow:\n  - set: {v: 'v + 1'}\n  - choose: {options: [{action: go, if: 'v > 0'}]}\n"
    )
    rs = load_ruleset(folder)
    st = rs.new_game(2)
    st.apply("go")
    assert not canary.exists()


def test_comment_is_one_ascii_line():
    for raw in PAYLOADS:
        c = comment(raw)
        assert "\n" not in c and "\r" not in c and c.isascii()


def test_the_namespace_has_no_builtins(tmp_path):
    """Generated code runs with empty builtins: only the engine's helpers are reachable."""
    ns = codegen._Ns()
    assert ns.d["__builtins__"] == {}
    assert not any(k in ns.d for k in ("open", "eval", "exec", "__import__", "getattr", "compile"))


@pytest.mark.parametrize("expr", ["3[0]", "none[1]", "(1 == 1)[0]"])
def test_code_that_must_fail_prints_no_warning_and_fails_as_the_reference_does(tmp_path, expr):
    """Python warns when it compiles a subscript of a constant that cannot be subscripted; the
    generator leaves such an expression to the reference evaluator, so nothing is printed and the
    game stops with the reference's error at the expression's place."""
    import warnings

    codegen._CODE.clear()  # compile again, as a fresh process would
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rs = _load(tmp_path, f"vars: {{v: 0}}\nflow:\n  - set: {{v: \"{expr}\"}}\n")
        with pytest.raises(ExpressionError) as info:
            rs.new_game(2)
    assert not [w for w in caught if issubclass(w.category, SyntaxWarning)], [str(w.message) for w in caught]
    assert "ruleset.yaml:" in str(info.value) and "subscript" in str(info.value).lower()


# ---------------------------------------------------------------------------------------------
# The work budget


def _load(tmp_path, text: str):
    path = tmp_path / "ruleset.yaml"
    path.write_text(HEAD + text)
    return load_ruleset(path)


@pytest.mark.parametrize(
    "expr",
    [
        "len([1 for i in range(1000000) for j in range(1000000)])",
        "sum(1 for i in range(1000) if i in range(1000000))",
        "count([i for i in range(100000) if i in range(100000)])",
    ],
)
def test_the_work_budget_stops_a_runaway_expression(tmp_path, expr):
    rs = _load(tmp_path, f"limits: {{work: 100000}}\nvars: {{v: 0}}\nflow:\n  - set: {{v: \"{expr}\"}}\n")
    with pytest.raises(ExpressionError) as info:
        rs.new_game(2)
    assert "work budget of 100,000" in str(info.value)
    assert "ruleset.yaml:6:15:" in str(info.value)  # the expression itself, after its opening quote


def test_the_work_budget_counts_calls_that_do_not_recurse(tmp_path):
    """Forty functions each calling the next twice: 2^40 calls, none recursive."""
    funcs = "".join(f"  f{i}: {{params: [n], value: 'f{i + 1}(n) + f{i + 1}(n)'}}\n" for i in range(40))
    funcs += "  f40: {params: [n], value: 'n'}\n"
    rs = _load(tmp_path, f"functions:\n{funcs}vars: {{v: 0}}\nflow:\n  - set: {{v: 'f0(1)'}}\n")
    with pytest.raises(ExpressionError) as info:
        rs.new_game(2)
    assert "work budget" in str(info.value)


def test_the_work_budget_starts_again_every_move(tmp_path):
    """Each move may use the whole budget: a game of many cheap moves never runs out."""
    rs = _load(
        tmp_path,
        "limits: {work: 5000}\nvars: {v: 0}\nflow:\n  - repeat:\n      times: 50\n      do:\n"
        "        - set: {v: 'v + len([i for i in range(1000)])'}\n"
        "        - choose: {options: [{action: go}]}\n",
    )
    st = rs.new_game(2)
    while not st.is_terminal():
        st.apply("go")
    assert st.vars["v"] == 50_000


def test_a_runaway_listing_of_actions_is_a_flow_error(tmp_path):
    rs = _load(
        tmp_path,
        "limits: {work: 10000}\nflow:\n  - choose:\n      options:\n"
        "        - {action: a, for: i, in: 'range(100000)', if: 'i in range(100000)'}\n",
    )
    with pytest.raises((FlowError, ExpressionError)) as info:
        rs.new_game(2)
    assert "work budget" in str(info.value)


# ---------------------------------------------------------------------------------------------
# The memory budget (issue 25)


def _both(fn):
    """``fn()`` with generated code, then with the reference evaluator only: (fast, reference)."""
    fast = fn()
    codegen.ENABLED = False
    try:
        reference = fn()
    finally:
        codegen.ENABLED = True
    return fast, reference


# (what one evaluation builds, the items and characters it charges): n is 300, s 150 characters
CHARGES = [
    ("range(n)", 300),
    ("[i for i in range(n)]", 300),
    ("[i for i in range(n) if i < 0]", 300),  # an upper bound: every item the loop could keep
    ("list(range(n))", 600),
    ("sorted(i for i in range(n))", 300),
    ("reversed([n] * 100)", 200),
    ("s + s", 300),
    ("(s + s)[0:n]", 600),
    ("str(s)", 150),
    ("[n] * 300", 300),
    ("join([s, s], '--')", 302),  # the two texts and one separator
    ("join([n, n, n], s)", 309),  # two separators of 150 and three numbers shown as 3 characters
    ("pluralize(n, s)", 155),  # '300 ', a 150-character word and its s
]


def _repeat(tmp_path, expr: str, times: int):
    """Evaluate ``expr`` ``times`` times in one move under a memory budget of 1,000: the
    number of evaluations, or the error's message."""
    rs = _load(tmp_path, "limits: {memory: 1000}\nvars: {n: 300, s: " + "ab" * 75 + "}\nflow:\n"
               f"  - repeat:\n      times: {times}\n      do:\n        - let: {{v: \"{expr}\"}}\n")
    try:
        rs.new_game(2)
    except ExpressionError as exc:
        return str(exc)
    return times


@pytest.mark.parametrize(("expr", "charge"), CHARGES, ids=[c[0] for c in CHARGES])
def test_the_memory_budget_charges_what_an_expression_builds(tmp_path, expr, charge):
    """Both evaluators charge exactly ``charge`` an evaluation: 1,000 // charge evaluations fit
    in one move, one more is refused with the expression and its line and column."""
    fit = 1000 // charge
    assert _both(lambda: _repeat(tmp_path, expr, fit)) == (fit, fit)
    fast, reference = _both(lambda: _repeat(tmp_path, expr, fit + 1))
    assert fast == reference, (fast, reference)
    assert "memory budget of 1,000 items and characters" in fast, fast
    assert f"in expression `{expr}`" in fast and "ruleset.yaml:9:" in fast, fast
    assert "`limits: {memory: N}`" in fast


def test_a_template_charges_the_text_it_builds(tmp_path):
    """A template's text (301 characters here) is charged; the one crossing the budget is
    refused naming the template and its place."""
    from interpreter.lang.expression import Env, compile_template

    def run():
        rs = _load(tmp_path, "vars: {s: " + "ab" * 75 + "}\nflow: []\n")
        fn = compile_template("x{s}{s}", rs.scope, Mark("here.yaml", 3, 7))
        env = Env(rs.new_game(2), {})
        env.mem = 1000
        shown = [len(fn(env)) for _ in range(3)]
        try:
            fn(env)
        except ExpressionError as exc:
            return shown, str(exc)
        return shown, None

    fast, reference = _both(run)
    assert fast == reference
    assert fast[0] == [301, 301, 301]
    assert fast[1].startswith("here.yaml:3:7: in template `x{s}{s}`: the memory budget"), fast[1]


def test_the_memory_budget_starts_again_every_move(tmp_path):
    rs = _load(tmp_path, "limits: {memory: 1000}\nvars: {n: 300}\nflow:\n  - repeat:\n      times: 20\n      do:\n"
               "        - let: {v: 'range(n)'}\n        - let: {w: 'range(n)'}\n        - choose: {options: [{action: go}]}\n")
    st = rs.new_game(2)
    while not st.is_terminal():
        st.apply("go")
    assert st.is_terminal()


def test_a_small_constant_costs_nothing_at_run_time(tmp_path):
    """A list written out, a loop over a small constant, a constant range: no charge and no
    call in the generated code; a million evaluations fit a budget of 1,000."""
    exprs = ["[1, 2, 3]", "[x * 2 for x in [1, 2, 3]]", "[i for i in range(5)]", "sorted([3, 1, 2])", "len(range(10))"]
    lets = "".join(f"        - let: {{v{i}: \"{e}\"}}\n" for i, e in enumerate(exprs))
    def run():
        rs = _load(tmp_path, "limits: {memory: 1000, steps: 100000000}\nvars: {k: 0}\nflow:\n"
                   "  - repeat:\n      times: 2000\n      do:\n" + lets + "        - set: {k: 'k + 1'}\n")
        return rs, rs.new_game(2).vars["k"]

    (rs, fast), (_, reference) = _both(run)
    assert fast == reference == 2000
    source = "\n".join(src for _, src in rs.sources)
    assert "H_itm(" not in source and "H_range(env" not in source and "H_lrange(" not in source


def test_range_only_iterated_or_searched_is_not_built(tmp_path):
    """`for i in range(n)` and `x in range(n)` never build the list (charged to work, not memory)."""
    def run():
        rs = _load(tmp_path, "limits: {memory: 1000}\nvars: {n: 2000, v: 0}\nflow:\n"
                   "  - set: {v: 'sum(1 for i in range(n) if i in range(n))'}\n")
        return rs.new_game(2).vars["v"]

    assert _both(run) == (2000, 2000)


# ---------------------------------------------------------------------------------------------
# Python's own comprehension forms


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("[dc + dr for (dc, dr) in [(1, 0), (0, 1)]]", [1, 1]),
        ("[dc * 10 + dr for dc, dr in [(1, 2), (3, 4)]]", [12, 34]),
        ("sum(a for (a, b) in [(1, 2), (3, 4)])", 4),
        ("[x for x in [1, 2, 3] if x > 1 if x < 3]", [2]),
        ("[(i, j) for i in range(2) for j in range(i)]", [(1, 0)]),
        ("any(x == 2 for x in [1, 2])", True),
        ("all(x > 0 for (x, y) in [(1, 2), (0, 1)])", False),
    ],
)
def test_python_comprehension_forms(tmp_path, expr, value):
    rs = _load(tmp_path, f"vars: {{v: 0}}\nflow:\n  - set: {{v: \"{expr}\"}}\n")
    st = rs.new_game(2)
    assert st.vars["v"] == value


def test_the_reference_evaluator_counts_its_loops_too(tmp_path):
    """With code generation off, the closure evaluator stops the same runaway expression."""
    codegen.ENABLED = False
    try:
        rs = _load(tmp_path, "limits: {work: 100000}\nvars: {v: 0}\nflow:\n"
                   "  - set: {v: 'len([1 for i in range(1000000) for j in range(1000000)])'}\n")
        with pytest.raises(ExpressionError) as info:
            rs.new_game(2)
    finally:
        codegen.ENABLED = True
    assert "work budget of 100,000" in str(info.value)


# ---------------------------------------------------------------------------------------------
# Differential fuzzing: random expressions from the grammar, generated code against the reference

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from interpreter.lang.expression import Env, compile_expression  # noqa: E402

FUZZ_RULESET = """\
name: Fuzz
players: {min: 2, max: 2}
params: {k: 3, names: ['a', 'b']}
limits: {work: 20000}
components:
  card: {items: [{rank: 1, tag: x}, {rank: 2, tag: y}, {rank: 3, tag: x}], start: deck}
zones:
  deck: {visibility: public}
vars:
  xs: [1, 2, 3]
  n: 2
  s: "ab"
  rec: {initial: {a: 1, b: [2, 3]}}
functions:
  double: {params: [x], value: x * 2}
  down: {params: [x], value: '0 if x <= 0 else down(x - 1) + 1'}
flow: [{choose: {options: [{action: go}]}}]
"""

_NAMES = ["xs", "n", "s", "rec", "k", "names", "deck", "current", "players", "c", "x"]
_FUNCS = ["len", "sum", "max", "min", "sorted", "count", "distinct", "any", "all", "range", "double", "down",
          "top", "first", "abs", "str", "list", "reversed", "index", "sign"]


@pytest.fixture(scope="module")
def fuzz_rules(tmp_path_factory):
    path = tmp_path_factory.mktemp("fuzz") / "ruleset.yaml"
    path.write_text(FUZZ_RULESET)
    return load_ruleset(path)


def _outcome(fn, env):
    """The value, or the kind of TapsterError (anything else is a bug)."""
    env.refill()
    try:
        return ("value", repr(fn(env)))
    except TapsterError as exc:
        return ("error", type(exc).__name__)


_LEAVES = st.sampled_from(
    ["xs", "n", "s", "rec", "k", "names", "deck", "current", "players", "c", "x", "0", "1", "2", "-1", "2.5",
     "'a'", "'b'", "''", "true", "false", "none", "[]", "[1, 2]", "(1, 'a')", "{'a': 1}", "c.rank", "c.kind",
     "rec.a", "rec.b", "xs[0]", "xs[-1]", "deck[0]"]
)


def _combine(children):
    one = children
    two = st.tuples(children, children)
    return st.one_of(
        st.builds("({} {} {})".format, one, st.sampled_from(["+", "-", "*", "//", "%", "/", "**"]), one),
        st.builds("({} {} {})".format, one, st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "in", "not in", "is", "is not"]), one),
        st.builds("({} {} {})".format, one, st.sampled_from(["and", "or"]), one),
        st.builds("(not {})".format, one),
        st.builds("(-{})".format, one),
        st.builds("({} if {} else {})".format, one, one, one),
        st.builds("{}({})".format, st.sampled_from(_FUNCS), one),
        st.builds(lambda f, ab: f"{f}({ab[0]}, {ab[1]})", st.sampled_from(["max", "min", "count", "index", "range"]), two),
        st.builds("[{} for x in {}]".format, one, one),
        st.builds("[{} for x in {} if {}]".format, one, one, one),
        st.builds("sum({} for c in {})".format, one, one),
        st.builds("any({} for x in {})".format, one, one),
        st.builds("all({} for x in [1, 2, 3])".format, one),
        st.builds("sum({} for x in [1, 2, 3] if {})".format, one, one),
        st.builds("any({} for x in [0, 1] if {} for k in [x, 2])".format, one, one),
        st.builds("all({} for x in [0, 'a'] if {})".format, one, one),
        st.builds("[a + b for (a, b) in {}]".format, one),
        st.builds("{}[{}]".format, one, one),
        st.builds("{}[{}:{}]".format, one, one, one),
        st.builds("[{}, {}]".format, one, one),
        st.builds("({}, {})".format, one, one),
        st.builds("{{'a': {}}}".format, one),
        st.builds("({}).rank".format, one),
    )


_EXPRESSIONS = st.recursive(_LEAVES, _combine, max_leaves=12)


@settings(max_examples=1500, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=_EXPRESSIONS)
def test_random_expressions_agree_with_the_reference(fuzz_rules, text):
    """Any expression the grammar makes: it compiles or is refused with a clean error; when it
    compiles, the generated code and the closure evaluator give the same value or the same kind
    of error (never a raw Python exception), within the work budget."""
    scope = fuzz_rules.scope.with_locals(["c", "x"])
    try:
        compiled = compile_expression(text, scope)
    except TapsterError:
        return
    st_ = fuzz_rules.new_game(2)
    env = Env(st_, {"c": st_.zones["deck"][0], "x": 2})
    fast = _outcome(compiled, env)
    reference = _outcome(lambda e: compiled.checked(e), env)
    assert fast == reference, text


def test_the_tree_cache_gives_the_same_trees_and_survives_damage(tmp_path, monkeypatch):
    """A ruleset's parse trees are saved for the next run (no Lark, no parsing then); a cached
    tree equals the parsed one, and a damaged cache file is ignored."""
    from interpreter.lang import expression

    monkeypatch.setenv("TAPSTER_CACHE_DIR", str(tmp_path / "cache"))
    source = "x: 1\n"
    texts = ["sum(c.hops for c in trash[p]) - 1", "[a for (a, b) in xs if a > 'q']", "f(x, y=2)[1:]"]
    parsed = {t: expression._to_json(expression.parse(t)) for t in texts}
    expression.save_trees(source, texts)
    saved = dict(expression._PARSED)
    try:
        for t in texts:
            expression._PARSED.pop(t, None)
        assert expression.preload_trees(source)
        assert {t: expression._to_json(expression._PARSED[t]) for t in texts} == parsed
        path = expression._trees_path(source)
        path.write_text('{"x": [1, 2')  # damaged
        for t in texts:
            expression._PARSED.pop(t, None)
        assert not expression.preload_trees(source)
        assert expression._to_json(expression.parse(texts[0])) == parsed[texts[0]]
    finally:
        expression._PARSED.update(saved)


def test_after_an_edit_only_the_changed_expressions_are_parsed(tmp_path, monkeypatch):
    """A ruleset edited since its trees were saved reuses the trees of the last text of the same
    file: only the expressions the edit changed go through Lark, and the game is the same as
    one parsed from scratch."""
    from interpreter.lang import parser

    monkeypatch.setenv("TAPSTER_CACHE_DIR", str(tmp_path / "cache"))
    path = copy_ruleset(tmp_path, "tic_tac_toe")
    text = path.read_text(encoding="utf-8")
    saved = dict(parser._PARSED)
    parsed: list[str] = []
    real = parser._parser

    class Counting:
        def parse(self, t):
            parsed.append(t)
            return real().parse(t)

    monkeypatch.setattr(parser, "_parser", Counting)
    try:
        parser._PARSED.clear()
        load_ruleset(path)
        first = len(parsed)
        assert first > 10
        edited = text.replace("if: board[cell] == -1", "if: -1 == board[cell]")
        assert edited != text
        path.write_text(edited, encoding="utf-8")
        parser._PARSED.clear()
        parsed.clear()
        rs = load_ruleset(path)
        assert parsed == ["-1 == board[cell]"]
        parser._PARSED.clear()
        parsed.clear()
        load_ruleset(path)  # the edited text's own trees now
        assert parsed == []
    finally:
        parser._PARSED.clear()
        parser._PARSED.update(saved)
    st = rs.new_game(2, seed=3)
    while not st.finished:
        st.apply(st.legal_actions()[-1])
    assert st.outcome().winners == (0,)


@pytest.mark.parametrize(("name", "variant"), all_configurations())
def test_the_generated_code_never_needs_the_reference_to_succeed(monkeypatch, name, variant):
    """In random games, every evaluation that succeeds succeeds in the generated code: the
    checked reference is only ever reached for an error.  (A generated path that raises where
    the reference does not is a generator bug, and a silent slow path.)"""
    from interpreter.engine import flow
    from interpreter.lang.expression import Compiled

    rescued = []
    checked, legal_checked = Compiled.checked, flow.Choose._legal_checked

    def spy_checked(self, env):
        value = checked(self, env)
        rescued.append(f"{self.mark}: `{self.text}`")
        return value

    def spy_legal(self, st, loc):
        actions = legal_checked(self, st, loc)
        rescued.append(f"{self.mark}: the listing of decision `{self.name}`")
        return actions

    monkeypatch.setattr(Compiled, "checked", spy_checked)
    monkeypatch.setattr(flow.Choose, "_legal_checked", spy_legal)
    rs = load_ruleset(name, variant)
    for seed in range(3):
        st = rs.new_game(rs.default_players, seed=seed)
        agent = Rng(seed)
        for _ in range(400):
            if st.is_terminal():
                break
            actions = st.legal_actions()
            st.apply(actions[agent.below(len(actions))])
    assert not rescued, sorted(set(rescued))[:5]


@pytest.mark.parametrize("index", range(len(PAYLOADS)))
def test_no_display_text_becomes_code(tmp_path, monkeypatch, index):
    """The display's places for text (header and footer templates, a board's places, lets,
    cells, empty text and edges, a table item's title and `if:`) filled with code that would
    create a canary file: every text is drawn exactly as written, and nothing runs."""
    from interpreter.views.render import render_board, view_observation
    from interpreter.views.termview import seat_text

    monkeypatch.chdir(tmp_path)
    payload = PAYLOADS[index]
    lit = repr(payload)
    doc = {
        "name": "display",
        "players": {"min": 2, "max": 2},
        "params": {"k": payload},
        "vars": {"v": {"initial": 0, "shown": True}},
        "zones": {"d": {"visibility": "public"}},
        "flow": [{"choose": {"options": [{"action": "stop", "do": [{"end_game": "done"}]}]}}],
        "display": {
            "header": [_braces(payload) + " {k}"],
            "board": {
                "places": f"[((0, 0), {lit}), ((1, 0), k)]",
                "let": {"w": f"value + {lit}"},
                "cell": ["{value}", ["{w}", _braces(payload), "{k}"]],
                "empty": payload,
                "edges": [{"side": "0", "text": _braces(payload)}],
            },
            "table": [{"counter": "v", "title": payload, "if": f"k == {lit}"}, {"pile": "d", "title": payload}],
            "footer": [{"for": "x", "in": f"[{lit}]", "text": "{x}"}],
        },
    }
    path = tmp_path / "ruleset.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    rs = load_ruleset(path)
    st = rs.new_game(2, seed=0)
    obs = view_observation(st, 0)
    assert obs["display"]["header"] == [payload + " " + payload]
    assert obs["display"]["footer"] == [payload]
    cells = {(x, y): rows for x, y, rows in obs["display"]["board"]["cells"]}
    assert cells[(0, 0)] == [[payload], [payload + payload, payload, payload]]
    assert [t["title"] for t in obs["display"]["table"]] == [payload, payload]
    text = seat_text(rs, obs)
    assert f"{payload}: 0" in text
    assert payload in render_board(st)
    assert not (tmp_path / "CANARY").exists()
    assert list(tmp_path.iterdir()) == [path]


# ---------------------------------------------------------------------------------------------
# Maps read as plain data


def _generated_source(rules, text: str) -> str:
    from interpreter.lang.expression import compile_expression

    codegen.SINK = []
    try:
        compile_expression(text, rules.scope.with_locals(["x"]))
        return "\n".join(src for _, src in codegen.SINK)
    finally:
        codegen.SINK = None


MAP_RULESET = """\
name: Map fuzz
players: {min: 2, max: 2}
maps:
  m:
    nodes: {items: NODES, key: id}
    edges: {items: EDGES, source: a, target: b}
vars: {v: 0}
flow: [{choose: {options: [{action: go}]}}]
"""


def _map_rules(tmp_path, payload: str = "P"):
    nodes = [{"id": "A", "w": 1}, {"id": payload, "w": payload}, {"id": 3, "w": None}, {"id": "D"}]
    edges = [{"a": "A", "b": payload, "w": payload, "cost": 2}, {"a": payload, "b": 3, "cost": 5}, {"a": "A", "b": 3}]
    path = tmp_path / "ruleset.yaml"
    path.write_text(MAP_RULESET.replace("NODES", json.dumps(nodes)).replace("EDGES", json.dumps(edges)))
    return load_ruleset(path)


def test_map_reads_agree_with_the_reference(tmp_path):
    """``edge``, ``node_attr`` and ``neighbors`` of a constant map are generated as reads of the
    map's frozen dicts: for nodes, non-nodes, values that cannot be keys, missing edges and
    attributes, the generated code and the reference give the same value or the same error."""
    from interpreter.lang.expression import Env, compile_expression

    rs = _map_rules(tmp_path)
    st_ = rs.new_game(2)
    values = ["A", "P", 3, 3.0, "D", "Z", None, [1], (1, 2)]
    attrs = ["w", "cost", "nope", [1], None]
    scope = rs.scope.with_locals(["a", "b", "k"])
    texts = ["edge(m, a, b, k)", "node_attr(m, a, k)", "neighbors(m, a)", "linked(m, a, b)", "path_length(m, a, b)",
             "within(m, a, 1)", "[edge(m, a, n, 'cost') for n in neighbors(m, a)]"]
    for text in texts:
        compiled = compile_expression(text, scope)
        for a in values:
            for b in values:
                for k in attrs:
                    env = Env(st_, {"a": a, "b": b, "k": k})
                    assert _outcome(compiled, env) == _outcome(compiled.checked, env), (text, a, b, k)
    src = _generated_source(rs, "edge(m, x, 'P', 'cost') + node_attr(m, x, 'w')")
    assert "MAP" in src and "B1(" not in src  # the frozen data read inline, no builtin call


@pytest.mark.parametrize("index", range(len(PAYLOADS)))
def test_no_map_text_becomes_code(tmp_path, monkeypatch, index):
    """A map's node keys and attribute values filled with code that would create a canary file:
    the generated reads of the frozen map give them back exactly as written, and nothing runs
    (they are dict keys and values in the namespace, never source)."""
    from interpreter.lang.expression import Env, compile_expression

    monkeypatch.chdir(tmp_path)
    payload = PAYLOADS[index]
    rs = _map_rules(tmp_path, payload)
    st_ = rs.new_game(2)
    env = Env(st_, {"p": payload})
    scope = rs.scope.with_locals(["p"])
    assert compile_expression("edge(m, 'A', p, 'w')", scope)(env) == payload
    assert compile_expression("node_attr(m, p, 'w')", scope)(env) == payload
    assert compile_expression("edge(m, p, 3, 'cost') * 2", scope)(env) == 10
    assert compile_expression("neighbors(m, 'A')", scope)(env) == sorted([payload, 3], key=repr)
    assert not (tmp_path / "CANARY").exists()


# ---------------------------------------------------------------------------------------------
# Size checks paid only where they can trigger

_SIZE_VALUES = [3, -5, True, 2.5, None, "ab", [1, 2], 2**4092, -(2**4092), 2**4093 - 1, 2**4093, -(2**4093),
                2**4095, 2**4096 - 1, 2**4096, -(2**4096)]
_SIZE_EXPRESSIONS = [
    "x * 4", "4 * x", "x * y", "x * (2 if y else 1)", "(x > 1) * x", "len(xs) * x", "x + y", "x + y + x",
    "x * 4 + y", "-x * 4", "abs(x) * 2", "[x * 4 for c in xs]", "[c for c in [x * 4]]", "[c for c in [x + y]]",
    "sum(x + y for c in xs)", "[[a + b for a in xs] for b in [x + y]]", "any(c + x for c in [x * 2])",
    "x - y", "x - 1", "1 - x", "x + 1", "1 + x", "x + 0.5", "x - (0 - x)", "[c for c in [x - y]]", "len(xs) - x",
]


@pytest.mark.parametrize(("text", "x", "value"), [
    ("x + 1", 2**4096 - 1, 2**4096), ("1 + x", 2**4096 - 1, 2**4096), ("x - (0 - 1)", 2**4096 - 1, 2**4096),
    ("0 - x - 1", 2**4096 - 1, -(2**4096)), ("x - y", 2**4096 - 1, 2**4096), ("x - (0 - x)", 2**4095, 2**4096),
])
def test_sums_and_differences_stay_within_the_limit_in_both_evaluators(fuzz_rules, text, x, value):
    """A whole number of more than 4096 bits is an error whether it comes from ``+`` with a
    constant or from ``-`` (repeated, ``x - (0 - x)`` doubles ``x``), in the generated code and in
    the reference alike; 2**4096 itself is within the limit."""
    from interpreter.lang.expression import Env, compile_expression

    codegen.SINK = []
    try:
        compiled = compile_expression(text, fuzz_rules.scope.with_locals(["x", "y"]))
        assert "H_BIG" in "\n".join(src for _, src in codegen.SINK)  # checked inline
    finally:
        codegen.SINK = None
    st_ = fuzz_rules.new_game(2)
    for run in (compiled, compiled.checked):
        assert run(Env(st_, {"x": x, "y": -1})) == value
        with pytest.raises(ExpressionError, match="more than 4096 bits"):
            run(Env(st_, {"x": x + 1, "y": -1}))


@pytest.mark.parametrize("text", _SIZE_EXPRESSIONS)
def test_inline_size_checks_agree_with_the_reference(fuzz_rules, text):
    """``+`` and ``*`` with their size checks written inline (a class test and a comparison
    where the call to H_add or H_mul was): for whole numbers on either side of every limit
    (4096 bits), and for text, lists, floats and none, the generated code and the reference
    give the same value or the same kind of error; each form is generated (none falls back,
    not even a `:=` inside a comprehension's `in`, which Python refuses)."""
    from interpreter.lang.expression import Env, compile_expression

    before = len(codegen.FALLBACKS)
    compiled = compile_expression(text, fuzz_rules.scope.with_locals(["x", "y"]))
    assert len(codegen.FALLBACKS) == before, codegen.FALLBACKS[before:]
    st_ = fuzz_rules.new_game(2)
    for x in _SIZE_VALUES:
        for y in _SIZE_VALUES:
            env = Env(st_, {"x": x, "y": y})
            assert _outcome(compiled, env) == _outcome(compiled.checked, env), (text, x, y)


@pytest.mark.parametrize(("text", "checks"), [
    ("len(xs) + count(xs) * 2", False),  # whole numbers of at most 63 bits: nothing can pass the limit
    ("(x > 1) * 3 + sign(x) * (n == 2)", False),  # comparisons and signs are 0 or 1
    ("(len(xs) if x else 7) * len(s) - -len(xs)", False),
    ("x + n", True),  # n could hold a long list or text, or a huge number
    ("x * len(xs)", True),
])
def test_size_checks_are_left_out_where_types_rule_them_out(fuzz_rules, text, checks):
    """The inferred bound on whole numbers (a constant's bits, a comparison's 0 or 1, a
    length's 63 bits, sums and products of such) drops H_add and H_mul where they cannot
    raise, and keeps a check wherever an operand is not known."""
    src = _generated_source(fuzz_rules, text)
    has = any(h in src for h in ("H_add", "H_mul", "H_grow", "H_int"))
    assert has == checks, src


SETS_RULESET = """\
components:
  card: {items: [{n: 1}, {n: 2}], start: deck, props: {gave: 0}}
zones:
  deck: {visibility: public}
vars:
  rec: {initial: {a: 1}}
  xs: [0, 0]
  v: 0
flow:
  - let: {c: "deck[0]", k: "'b'"}
  - set: {"rec[k]": "[1, 'x', {'y': 2}]", "xs[1]": "len(rec)", "c.gave": "xs[1] * 10"}
  - set: {v: "(c.gave, rec['b'])"}
  - set: {"xs[0]": 7}
  - choose: {options: [{action: go}]}
"""


@pytest.mark.parametrize(("effect", "message"), [
    (None, None),
    ("set: {'xs[5]': 1}", "cannot set `xs[5]`"),
    ("set: {'rec[[1]]': 1}", "cannot set `rec[[1]]`"),
    ("set: {'deck[0].gave': 'xs[9]'}", "xs[9]"),
    ("set: {'xs[0].gave': 1}", "has no mutable property `gave`"),
    ("set: {v: '[list(range(100)) for i in range(101)]'}", "the limit"),
    ("set: {v: \"['x' * 600000, 1, 'y' * 400001]\"}", "more than 1000000 characters of text"),
    ("set: {v: \"{'a': 'x' * 600000, 'y' * 399999: 'z'}\"}", "more than 1000000 characters of text"),
    ("set: {v: \"{'a': 'x' * 600000, 'y' * 399998: 'z'}\"}", None),
])
def test_generated_sets_store_what_the_verb_stores(tmp_path, effect, message):
    """A `set` written out as the store itself (a record's new key, a list's item, a mutable
    property, a copied container): the same state as the verb's own run (code generation off),
    and the same error for an index out of range, a key that cannot be one, a value that is
    not a component, a value past the size limit."""
    text = SETS_RULESET if effect is None else SETS_RULESET.replace("  - choose:", f"  - {effect}\n  - choose:")

    def play():
        rs = _load(tmp_path, text)
        try:
            st_ = rs.new_game(2)
        except TapsterError as exc:
            return ("error", str(exc))
        return ("state", json.dumps(st_.to_json(), sort_keys=True))

    fast = play()
    codegen.ENABLED = False
    try:
        reference = play()
    finally:
        codegen.ENABLED = True
    assert fast == reference
    if message is None:
        assert fast[0] == "state" and '"b"' in fast[1] and len(fast[1]) > 1_000_000 * (effect is not None)
    else:
        assert fast[0] == "error" and message in fast[1], fast


MOVES_RULESET = """\
components:
  card: {items: [{n: 1}, {n: 2}, {n: 3}], start: deck}
zones:
  deck: {visibility: public}
  hand: {visibility: public, per_player: true}
vars: {v: 0}
flow:
  - move: {what: "deck[0]", to: "hand[1]"}
  - move: {what: "hand[1][0]", to: "hand[0]"}
  - move: {what: "deck[0]", to: "deck"}
  - choose: {options: [{action: go}]}
"""


def _zones_both_ways(tmp_path, text: str, seed: int = 0, written: str | None = None) -> tuple:
    """A new game of ``text`` with generated code, then with the reference evaluator only: for
    each, ``("state", the zones as JSON)`` (the zone index checked against the zones) or
    ``("error", message)``.  ``written``: a text the generated source holds only with code
    generation on (the form under test is written out)."""

    def play():
        rs = _load(tmp_path, text)
        if written is not None:
            assert any(written in src for _, src in rs.sources) is codegen.ENABLED
        try:
            st_ = rs.new_game(2, seed=seed)
        except TapsterError as exc:
            return ("error", str(exc))
        for c in rs.components:  # the index agrees with the zones
            assert c in st_.locate(c)
        return ("state", json.dumps(st_.to_json()["zones"], sort_keys=True))

    fast = play()
    codegen.ENABLED = False
    try:
        return fast, play()
    finally:
        codegen.ENABLED = True


@pytest.mark.parametrize(("effect", "message"), [
    (None, None),
    ("move: {what: 'list(deck)', to: 'hand[1]'}", None),
    ("move: {what: 'none', to: 'hand[1]'}", None),
    ("move: {what: 5, to: 'hand[1]'}", "`move` failed: Type"),
    ("move: {what: 'deck[0]', to: 'hand[7]'}", "hand[7]"),
])
def test_generated_moves_without_from_move_what_the_verb_moves(tmp_path, effect, message):
    """A move without `from` of one component written out (taken from wherever the zone index
    finds it, put on top, the index told): the same zones as the verb's own run, for a card
    from the deck, from a hand, onto the top of its own zone; lists and none go through the
    verb, and a value that is not a component or a zone that does not exist fail alike."""
    text = MOVES_RULESET if effect is None else MOVES_RULESET.replace("  - choose:", f"  - {effect}\n  - choose:")
    fast, reference = _zones_both_ways(tmp_path, text)
    if fast[0] == "error":
        # the same place and words; the name of a Python error is spelled two ways ('TypeError' by a
        # generated run, 'Type error' by the runner), as it was before moves were written out
        assert reference[0] == "error" and fast[1].replace("TypeError", "Type error") == reference[1]
    else:
        assert fast == reference
    if message is None:
        assert fast[0] == "state"
        if effect is None:
            assert json.loads(fast[1]) == {"deck": [{"c": "card-3"}, {"c": "card-2"}], "hand": [[{"c": "card-1"}], []]}
    else:
        assert fast[0] == "error" and message in fast[1], fast


DRAWS_RULESET = """\
components:
  card: {items: [{n: 1}, {n: 2}, {n: 3}, {n: 4}], start: deck}
zones:
  deck: {visibility: public, refill_from: discard}
  discard: {visibility: public}
  spare: {visibility: public}
  hand: {visibility: public, per_player: true}
vars: {v: 0}
flow:
  - repeat: {times: DRAWS, do: [{move: {from: deck, to: "hand[0]"}}]}
  - move: {from: "hand[0]", to: discard, count: 2}
  - repeat: {times: 3, do: [{move: {from: deck, to: "hand[1]", on_empty: short}}]}
  - repeat: {times: 2, do: [{move: {from: spare, to: "hand[1]"SHORT}}]}
  - choose: {options: [{action: go}]}
"""


@pytest.mark.parametrize(("draws", "short", "message"), [
    (2, ", on_empty: short", None),  # the deck runs out and is refilled from the discard pile
    (4, ", on_empty: short", None),  # the refill after every card was drawn
    (3, "", "`spare` is empty"),  # an empty zone without `on_empty: short`
    (2, "", "`spare` is empty"),
])
def test_generated_one_card_draws_draw_what_the_verb_draws(tmp_path, draws, short, message):
    """A draw of one card from the top written out (popped, put on top, the index told): the
    same zones, in the same order, as the verb's own run; a draw from an empty zone goes
    through the verb (its refill, a short draw, or its error, alike)."""
    text = DRAWS_RULESET.replace("DRAWS", str(draws)).replace("SHORT", short)
    fast, reference = _zones_both_ways(tmp_path, text, seed=3, written=".pop()")
    assert fast == reference
    if message is None:
        assert fast[0] == "state"
    else:
        assert fast[0] == "error" and message in fast[1], fast


LATE_FUNCTIONS = """\
name: Late
players: {min: 2, max: 2}
functions:
  used: {params: [n], value: "n + 1"}
  even: {params: [n], value: "n == 0 or odd(n - 1)"}
  odd: {params: [n], value: "n != 0 and even(n - 1)"}
flow:
  - choose: {options: [{action: go, if: "used(1) == 2"}]}
"""


def test_functions_registered_after_generate_all_are_generated_at_once(tmp_path):
    """After ``generate_all`` the function table has no ``__getattr__`` (CPython then
    specialises the generated code's ``FN.f_name``); a function registered later is generated
    as it is registered, here two that call each other, and gives the interpreted value."""
    from interpreter.lang.expression import Env

    path = tmp_path / "ruleset.yaml"
    path.write_text(LATE_FUNCTIONS)
    rs = load_ruleset(path)
    assert not hasattr(type(rs.scope.codegen), "__getattr__")
    functions = rs.scope.functions
    table = codegen.FunctionTable()
    table.register("used", functions["used"])
    table.generate_all()
    assert not hasattr(type(table), "__getattr__") and "f_even" not in vars(table)
    assert table.register("even", functions["even"]) == "f_even"
    generated = vars(table)
    assert {"f_even", "f_odd"} <= set(generated)  # odd: registered while even was generated
    assert all(generated[f].__code__.co_filename == "<tapster generated>" for f in ("f_even", "f_odd", "f_used"))
    env = Env(rs.new_game(2), {})
    assert [table.f_even(env, 4), table.f_even(env, 7), table.f_odd(env, 7)] == [True, False, True]
    assert [functions["even"].fn(env, n) for n in (4, 7)] == [True, False]


@pytest.mark.parametrize("index", range(len(PAYLOADS)))
def test_no_ruleset_text_becomes_code_in_a_playout(tmp_path, monkeypatch, index):
    """The code a playout runs in place (flowgen._picked_in_place: the chosen option's body
    called where the decision is listed) holds no ruleset text as code either: a second
    decision whose options have bodies logging and storing the payload, taken in place for
    every action, gives the API's game, and the canary never appears."""
    from interpreter.engine.playout import playout

    monkeypatch.chdir(tmp_path)
    payload = PAYLOADS[index]
    lit = repr(payload)
    doc = yaml.safe_load(_ruleset(payload))
    choose = next(e for e in doc["flow"] if "choose" in e)
    again = yaml.safe_load(yaml.safe_dump(choose))
    for o in again["choose"]["options"]:
        body = [{"set": {"t": f"t + {lit}"}}, {"log": _braces(payload) + " {t}"}]
        if "for" in o:
            body.append({"set": {"t": f"t + str({o['for']})"}})
        o["do"] = body
        o.pop("if", None)
    doc["flow"].insert(doc["flow"].index(choose) + 1, again)
    path = tmp_path / "ruleset.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    rs = load_ruleset(path)
    assert any("env.pick" in src and ".name == 'b':" in src for _, src in rs.sources)  # the in-place code
    first = rs.new_game(2, seed=0, log=True)
    n = len(first.legal_actions())
    for k in range(n):
        api = first.clone()
        api.apply(api.legal_actions()[0])
        second = api.legal_actions()
        api.apply(second[k % len(second)])
        fast = rs.new_game(2, seed=0, log=True)
        answers = iter([0, k % len(second)])
        playout(fast, lambda choose, actions, seats, answers=answers: next(answers))
        assert fast.is_terminal() and api.is_terminal()
        assert fast.to_json() == api.to_json() and fast.log == api.log
        assert payload in fast.vars["t"]
    assert not (tmp_path / "CANARY").exists()
    assert list(tmp_path.iterdir()) == [path]


def test_a_range_too_big_to_fold_is_not_built_at_load(tmp_path):
    """A constant ``range``, or a list repeated by ``*``, longer than ``MAX_FOLD_ITEMS`` is left
    to run (its length is known without building it: the fold used to build a million items at
    every load and drop them, a second of CPU and tens of MB for nothing), while a short one
    still folds into a constant; both evaluate to their list."""
    import tracemalloc

    from interpreter.lang.expression import Env, compile_expression

    rs = _map_rules(tmp_path)
    small = compile_expression("range(3)", rs.scope)  # (the first compilation's own allocations)
    assert small.constant == [0, 1, 2]
    assert compile_expression("[1, 2] * 2", rs.scope).constant == [1, 2, 1, 2]
    for text, value in (("range(999999)", list(range(999999))), ("[7] * 999999", [7] * 999999)):
        tracemalloc.start()
        try:
            big = compile_expression(text, rs.scope)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 4 * 1024**2, f"{peak / 1024**2:.1f} MB allocated compiling {text}"  # a million items: 8-36 MB
        assert big.constant is None and big(Env(rs.new_game(2), {})) == value
