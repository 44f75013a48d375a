"""The code generator's statement forms (interpreter/lang/codegen.py, ``_Gen.body``): ruleset
functions and expressions written as Python statements — ``and``/``or`` chains and conditionals
as ``if``, ``any``/``all`` as loops that stop at the deciding item, a comprehension's first
iterable, a builtin's list argument and a loop's membership test evaluated into names and
charged by a subtraction and a test instead of a call, mutable properties read inline.

What they must keep: the value, the work and memory charged (to the item, so every budget
stops at the same evaluation as the reference's), the errors, and the safety argument (no
ruleset text becomes code)."""

from __future__ import annotations

import pytest
import yaml

from interpreter import load_ruleset
from interpreter.errors import ExpressionError, TapsterError
from interpreter.lang import codegen
from interpreter.lang.expression import Env, compile_expression

RULES = """\
name: Statements
players: {min: 2, max: 2}
params: {k: 3, names: ['a', 'b']}
components:
  card:
    items: [{rank: 1, tag: x, tags: [x, y]}, {rank: 2, tag: y, tags: [y]}, {rank: 3, tag: x, tags: []}]
    start: deck
    props: {slot: 0}
zones:
  deck: {visibility: public}
  tent: {visibility: public}
vars:
  xs: [1, 2, 3]
  ys: [3, 4]
  n: 2
  s: "ab"
  big: 0
  rec: {initial: {a: 1, b: [2, 3]}}
functions:
  double: {params: [x], value: x * 2}
  has: {params: [t], value: "any(t in d.tags for d in deck if d.slot == 0)"}
  every: {params: [t], value: "all(t in d.tags for d in deck)"}
  pick: {params: [x], value: "x > 1 and (x in xs or x in ys) and any(y == x for y in ys)"}
  grid: {params: [x], value: "any(a + b == x for a in xs for b in ys if a < b)"}
  tally: {params: [x], value: "sum(d.rank for d in deck if x in d.tags) + sum(y for y in ys) + len(xs)"}
  kinds: {params: [], value: "distinct([d.tag for d in deck])"}
  ranks: {params: [x], value: "[d.rank * 2 for d in deck if d.rank != x]"}
  choice: {params: [x], value: "(max(xs + ys) if x else min(ys)) if n > 0 else 0"}
  scaled: {params: [x], value: "2 * x + 3 * double(x)"}
flow: [{choose: {options: [{action: go}]}}]
"""

#: Expressions whose top is each statement form (functions and inline), over every kind of value.
EXPRESSIONS = [
    "has('x')", "has('z')", "has(x)", "every('y')", "every(x)", "pick(x)", "pick(3)", "grid(x)", "grid(7)",
    "tally('x')", "tally(x)", "kinds()", "ranks(x)", "choice(x)", "choice(0)", "scaled(x)",
    "x and any(d.slot == x for d in deck)", "x or all(y > x for y in xs if y != 2)",
    "(xs if x else ys) if n else s", "sum(y * x for y in xs) + sum(y for y in ys)",
    "max(xs + ys) + len(xs)", "[y for y in xs if y in ys]", "any(x in d.tags for d in deck)",
    "all(x not in d.tags for d in deck)", "sorted(y for y in xs + ys)", "any(x in rec for y in xs)",
    "any(a == b for a in xs for b in ys)", "2 * x", "x * 2", "k * x", "any(y for y in x)",
    "x in xs", "x not in [y * 2 for y in xs]", "[y for y in xs if y != x][0]", "[y for y in ys][x]",
    "max([y for y in xs if y > x], default=-1)", "sorted(xs + ys, reverse=x)", "double(x) < sum(y for y in xs)",
    "x in range(n)", "len(xs) == x", "(x in ys) in [true]", "first(ys) in deck[0].tags",
    "any(x in d.tags and d.slot != x for d in deck)", "all(x not in d.tags and d.rank > 1 and x for d in deck)",
    "any(x in d.tags and x in d.tags for d in deck)",
]

VALUES = [0, 1, 2, 3, 7, -1, "x", "y", "z", True, None, [1, 2], 2**4094, 2.5]


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    path = tmp_path_factory.mktemp("stmts") / "ruleset.yaml"
    path.write_text(RULES)
    return load_ruleset(path)


def _run(fn, env) -> tuple:
    """(value or error kind, work used, memory used) of one evaluation from full budgets."""
    env.refill()
    try:
        out = ("value", repr(fn(env)))
    except TapsterError as exc:
        out = ("error", type(exc).__name__)
    return out, env.budget - env.left, env.memory - env.mem


def _compile_both(rules_path, text: str):
    """``text`` compiled in a fresh load of the ruleset with the statement forms, and in another
    with every function and expression one ``return`` of an expression: (statements, expression)."""
    out = []
    for on in (True, False):
        codegen.STATEMENTS = on
        try:
            rs = load_ruleset(rules_path)
            before = len(codegen.FALLBACKS)
            out.append((rs, compile_expression(text, rs.scope.with_locals(["x"]))))
            assert len(codegen.FALLBACKS) == before, codegen.FALLBACKS[before:]
        finally:
            codegen.STATEMENTS = True
    return out


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_statement_forms_agree_and_charge_what_the_expression_forms_charge(rules, text):
    """For every value of ``x``: the statement forms, the expression forms and the closure
    evaluator give the same value or the same kind of error; the statement and expression
    forms charge the same work (loops, membership tests and function calls) and memory."""
    (rs_s, stmts), (rs_e, expr) = _compile_both(rules.path, text)
    st_s, st_e = rs_s.new_game(2), rs_e.new_game(2)
    for x in VALUES:
        fast = _run(stmts, Env(st_s, {"x": x}))
        slow = _run(expr, Env(st_e, {"x": x}))
        reference = _run(stmts.checked, Env(st_s, {"x": x}))
        assert fast[0] == slow[0] == reference[0], (text, x, fast, slow, reference)
        if fast[0][0] == "value":
            assert fast[1:] == slow[1:], (text, x, fast, slow)


def _generated(rules, text: str) -> str:
    """The generated source of ``text``: a ruleset function's (``f_NAME`` for ``NAME(...)``,
    generated at load) or an expression's, generated now."""
    name = text.split("(", 1)[0]
    codegen.SINK = []
    try:
        if name.isidentifier() and name in rules.scope.functions:
            codegen._generate_function(f"f_{name}", rules.scope.functions[name], codegen.FunctionTable())
        else:
            compile_expression(text, rules.scope.with_locals(["x"]))
        return "\n".join(src for _, src in codegen.SINK)
    finally:
        codegen.SINK = None


@pytest.mark.parametrize(("text", "form"), [
    ("x and any(d.slot == x for d in deck)", "    for l_d_"),       # any as a loop that breaks
    ("has('x')", "    for l_d_"),                                    # ...or returns
    ("x or all(y > x for y in xs)", "if s_1: return s_1"),           # an `or` chain as ifs
    ("(xs if x else ys) if n else s", "    if "),                    # conditionals as ifs
    ("sum(y for y in xs) + 1", "    env.left -= H_len(s_"),         # the first iterable charged inline
    ("[y for y in xs]", "    env.mem -= n_s_"),                     # ...to memory too, for a list built
    ("tally('x')", "    env.left -= H_len(s_2)"),                     # both sums' iterables (a test inside a sum's
                                                                     # generator still charges by H_it)
    ("has('x')", "(l_t_"),                                           # a membership test's list in a name
    ("choice(1)", "= H_len(s_"),                                     # a builtin's list argument
    ("x + 1 not in [y * 2 for y in xs]", "return (s_3 not in s_4)"),  # a comparison's operands in names
    ("max([y for y in xs if y > x], default=-1)", "default=(-1)"),   # ...and a call's keywords after them
    ("[y for y in xs if y != x][0]", "][0]"),                        # an index of a list built
    ("any(x in d.tags and d.slot != x for d in deck)", "if ((o_1 in s_2) and "),  # a membership test leading an and chain
])
def test_each_statement_form_is_generated(rules, text, form):
    """Each statement form is what the generator writes (so that the tests above exercise it):
    the generated source has the form and no call of the loop charge it replaces."""
    src = _generated(rules, text)
    assert form in src, src
    if text != "tally('x')":
        assert "H_it(" not in src and "H_itm(" not in src, src


def test_a_frame_local_is_read_once(rules):
    """An expression's frame does not change while it is evaluated: each frame local it reads is
    read into a Python local once, in the prologue (a missing one raises there, and the checked
    evaluator gives the error)."""
    src = _generated(rules, "x * x + [y for y in xs if y > x][0] + x")
    assert src.count("loc['x']") == 1 and "o_1 = loc['x']" in src, src
    fn = compile_expression("x * x + x", rules.scope.with_locals(["x"]))
    st = rules.new_game(2, seed=1)
    assert fn(Env(st, {"x": 3})) == 12
    with pytest.raises(ExpressionError):
        fn(Env(st, {}))


def test_mutable_properties_are_read_inline(rules):
    src = _generated(rules, "[d.slot for d in deck]")
    assert "P[l_d_" in src and "'slot' in l_d_" in src, src


@pytest.mark.parametrize("text", [
    "has('x')", "tally('x')", "grid(7)", "any(a == b for a in xs for b in ys)", "[y for y in xs if y in ys]",
    "x and any(d.slot == x for d in deck)", "max(xs + ys) + len(xs)", "x not in [y * 2 for y in xs]",
])
def test_every_work_budget_stops_at_the_same_evaluation(rules, text):
    """Under a work budget of exactly what one evaluation of the expression form uses, the
    statement form succeeds; one step less, both raise the work budget's error (the charges
    are the same to the item)."""
    (rs_s, stmts), (rs_e, expr) = _compile_both(rules.path, text)
    _, used, _ = _run(expr, Env(rs_e.new_game(2), {"x": 2}))
    for rs, fn in ((rs_s, stmts), (rs_e, expr)):
        env = Env(rs.new_game(2), {"x": 2})
        env.budget = used
        env.refill()
        fn(env)
        env.budget = used - 1
        env.refill()
        with pytest.raises(ExpressionError, match="work budget"):
            fn(env)


# Texts that would become code if pasted into the source: quotes, newlines, terminators.
PAYLOADS = [
    "x'); open('CANARY', 'w').write('pwned'); ('",
    'x"); open("CANARY", "w").write("pwned"); ("',
    "a\nopen('CANARY', 'w').write('pwned')\n",
    "a\ropen('CANARY', 'w')\r#",
    "''' + open('CANARY', 'w').write('x') + '''",
    "{__import__('os').system('touch CANARY')}",
    "é \u2028 \\x41 \t",
]


def _payload_ruleset(payload: str) -> str:
    lit = repr(payload)
    doc = {
        "name": "P",
        "players": {"min": 2, "max": 2},
        "params": {"k": payload},
        "components": {"card": {"items": [{"n": 1, "tags": [payload, "b"]}, {"n": 2, "tags": []}],
                                "start": "d", "props": {"slot": 0}}},
        "zones": {"d": {"visibility": "public"}},
        "vars": {"t": "", "u": 0},
        "functions": {
            "f": {"params": ["q"], "value": f"q == {lit} and any({lit} in c.tags for c in d if c.slot == 0)"},
            "g": {"params": ["q"], "value": f"q or all(c.n > 0 for c in d if {lit} != k)"},
            "h": {"params": ["q"], "value": f"({lit} if q else k) if {lit} in q else [c.n for c in d if {lit} in c.tags]"},
            "m": {"params": [], "value": f"sum(c.n for c in d if {lit} in c.tags) + sum(1 for c in d) + 2 * len(k)"},
        },
        "flow": [
            {"set": {"t": f"h({lit}) if f({lit}) and g('') else ''"}},
            {"set": {"u": "m() if any(k == c for c in [k, 'x']) else 0"}},
            {"choose": {"options": [{"action": "go", "if": f"f({lit}) and any({lit} in c.tags for c in d)"}]}},
            {"end_game": "done"},
        ],
        "outcome": {"score": "u"},
    }
    return yaml.safe_dump(doc, allow_unicode=True)


@pytest.mark.parametrize("index", range(len(PAYLOADS)))
def test_no_ruleset_text_becomes_code_in_the_statement_forms(tmp_path, monkeypatch, index):
    """Code that would create a canary file, in every string and table cell the statement forms
    read (function bodies under and/or, conditionals, any/all loops, membership tests, sums):
    the values come out as written, the generated source is all statements the generator made,
    and the canary never appears."""
    monkeypatch.chdir(tmp_path)
    payload = PAYLOADS[index]
    path = tmp_path / "ruleset.yaml"
    path.write_text(_payload_ruleset(payload), encoding="utf-8")
    before = len(codegen.FALLBACKS)
    rs = load_ruleset(path)
    assert len(codegen.FALLBACKS) == before, codegen.FALLBACKS[before:]
    assert any("for l_c_" in src for _, src in rs.sources)
    st = rs.new_game(2, seed=0)
    assert st.vars["t"] == payload
    assert st.vars["u"] == 1 + 2 + 2 * len(payload)
    assert [a.name for a in st.decision().actions] == ["go"]
    st.apply(st.decision().actions[0])
    assert st.is_terminal()
    assert not (tmp_path / "CANARY").exists()
    assert list(tmp_path.iterdir()) == [path]
