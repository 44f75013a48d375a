"""The expression language: what it computes, and how it reports mistakes."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from interpreter.errors import CompileError, ExpressionError, ExpressionSyntaxError, Mark
from interpreter.lang.expression import BUILTINS, COMMON_MISTAKES, Env, Scope, compile_expression, compile_template

VALUES = {"xs": [3, 1, 2], "n": 5, "word": "ale", "rows": [[1, 2], [3, 4]]}


def scope(**extra):
    values = {**VALUES, **extra}

    def resolve(name):
        if name in values:
            return lambda env: values[name]
        return None

    return Scope(resolve=resolve, attributes=frozenset({"rank", "hops"}), global_names=lambda: list(values))


def ev(text, **extra):
    return compile_expression(text, scope(**extra), Mark("r.yaml", 4, 7))(Env(None, {}))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("7 // 2", 3),
        ("7 % 4", 3),
        ("2 ** 3", 8),
        ("-n", -5),
        ("n > 3 and n < 10", True),
        ("n < 3 or n == 5", True),
        ("not n == 5", False),
        ("1 < n < 9", True),
        ("2 in xs", True),
        ("4 not in xs", True),
        ("none is none", True),
        ("n is not none", True),
        ("'yes' if n > 3 else 'no'", "yes"),
        ("xs[0]", 3),
        ("xs[-1]", 2),
        ("xs[1:]", [1, 2]),
        ("word[:2]", "al"),
        ("rows[1][0]", 3),
        ("[x * 2 for x in xs]", [6, 2, 4]),
        ("[x for x in xs if x > 1]", [3, 2]),
        ("[a + b for a in xs for b in xs if a < b]", [4, 3, 5]),
        ("sum(x for r in rows for x in r)", 10),
        ("(1, 'a')", (1, "a")),
        ("{'a': 1}['a']", 1),
        ("true and True", True),
        ("false or False", False),
        ('"double" + \'single\'', "doublesingle"),
        ("1.5 * 2", 3.0),
    ],
)
def test_values(text, value):
    assert ev(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("abs(-3)", 3),
        ("all(x > 0 for x in xs)", True),
        ("any(x > 2 for x in xs)", True),
        ("bottom(xs)", 3),
        ("ceil(1.2)", 2),
        ("count(xs)", 3),
        ("count([1, 2, 1], 1)", 2),
        ("distinct([2, 1, 2, 3, 1])", [2, 1, 3]),
        ("first(xs)", 3),
        ("floor(1.8)", 1),
        ("index(xs, 2)", 2),
        ("index(xs, 9)", -1),
        ("int(3.9)", 3),
        ("join(xs, ', ')", "3, 1, 2"),
        ("join([word, n], '')", "ale5"),
        ("last(xs)", 2),
        ("len(word)", 3),
        ("list(word)", ["a", "l", "e"]),
        ("max(xs)", 3),
        ("max(4, 9, 2)", 9),
        ("max([], default=0)", 0),
        ("min(xs)", 1),
        ("min([], default=7)", 7),
        ("pluralize(n, word)", "5 ales"),
        ("pluralize(1, 'copy', 'copies')", "1 copy"),
        ("range(3)", [0, 1, 2]),
        ("range(1, 4)", [1, 2, 3]),
        ("reversed(xs)", [2, 1, 3]),
        ("round(2.6)", 3),
        ("sign(-4)", -1),
        ("sorted(xs)", [1, 2, 3]),
        ("sorted(xs, reverse=true)", [3, 2, 1]),
        ("str(n)", "5"),
        ("sum(xs)", 6),
        ("top(xs)", 2),
        ("top([])", None),
        ("adjacent4((0, 0))", [(0, -1), (1, 0), (0, 1), (-1, 0)]),
        ("toward((1, 1), 90)", (2, 1)),
        ("toward((1, 1), 0, 2)", (1, -1)),
        ("extent([(0, 0), (2, -1), (1, 3)])", (0, 2, -1, 3)),
        ("extent([])", None),
        ("beyond((0, -1), (0, 2, 0, 2), 0)", True),
        ("beyond((0, -1), (0, 2, 0, 2), 180)", False),
        ("wrap((3, 1), (0, 2, 0, 2))", (0, 1)),
        ("wrap((-1, 1), (0, 2, 0, 2))", (2, 1)),
        ("facing([1, 2, 3, 4], 0, 90)", 2),
        ("facing([1, 2, 3, 4], 180, 0)", 3),
        ("facing([1, 2, 3, 4], 90, 0)", 4),
        ("key_of({(0, 1): [5, 6], (2, 2): [7]}, 7)", (2, 2)),
        ("key_of({(0, 1): [5]}, 9)", None),
    ],
)
def test_builtins(text, value):
    assert ev(text) == value


def test_every_builtin_is_tested_and_documented():
    """Each builtin is called in a test here (map builtins: in test_maps.py) and documented."""
    from pathlib import Path

    tests = Path(__file__).resolve().parents[1]
    src = (tests / "lang" / "test_expression.py").read_text() + (tests / "loader" / "test_maps.py").read_text()
    for name, b in BUILTINS.items():
        assert f'"{name}(' in src, f"builtin {name} has no test"
        assert b.doc.startswith(name + "("), f"builtin {name} has no usage line"


def test_comprehension_names_do_not_leak():
    env = Env(None, {"x": "outer"})
    f = compile_expression("[x for x in xs]", scope().with_locals(["x"]))
    assert f(env) == [3, 1, 2]
    assert env.loc == {"x": "outer"}


@pytest.mark.parametrize(
    ("text", "column", "words"),
    [
        ("1 +", 10, ["end of the expression"]),
        ("n && 1", 9, ["use `and`"]),
        ("n || 1", 9, ["use `or`"]),
        ("n = 1", 9, ["use `==`"]),
        ("!n", 7, ["use `not`"]),
        ("n if n > 1 elif 2", 18, ["no `elif`"]),
        ("(1 + 2", 13, ["end of the expression"]),
    ],
)
def test_syntax_errors_point_inside_the_expression(text, column, words):
    with pytest.raises(ExpressionSyntaxError) as info:
        ev(text)
    err = info.value
    assert err.mark == Mark("r.yaml", 4, column)
    for w in words:
        assert w in str(err)
    assert "^" in err.excerpt


def test_common_mistakes_table_each_message_fires():
    # Each entry of the table is shown for an expression that makes that mistake.
    examples = {
        "&&": "n && n",
        r"\|\|": "n || n",
        r"(?<![=!<>])=(?!=)": "n = 1",
        "!(?!=)": "!n",
        r"\bnull\b|\bnil\b": "n is null null",
        r"\belif\b": "n if n elif n",
        r"\blambda\b": "lambda x: x",
        r"\?.*:": "n ? 1 : 2",
    }
    for pattern, message in COMMON_MISTAKES:
        text = examples[pattern]
        assert re.search(pattern, text)
        with pytest.raises(ExpressionSyntaxError) as info:
            ev(text)
        assert message in str(info.value), (text, str(info.value))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("nn + 1", ["unknown name `nn`", "did you mean `n`"]),
        ("summ(xs)", ["unknown function `summ`", "did you mean `sum`"]),
        ("xs.rnk", ["no component or record has a field `rnk`", "did you mean `rank`"]),
        ("len(xs, xs)", ["`len` takes 1 argument(s), got 2"]),
        ("sum", ["`sum` is a function"]),
    ],
)
def test_compile_errors_name_the_problem(text, words):
    with pytest.raises(CompileError) as info:
        ev(text)
    for w in words:
        assert w in str(info.value)
    assert info.value.mark.file == "r.yaml"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("1 / 0", ["division by zero"]),
        ("xs[10]", ["index out of range"]),
        ("word + 1", ["can only concatenate"]),
        ("max([])", ["give a default"]),
        ("{'a': 1}.rank", ["no field `rank`"]),
        ("2 ** 1000", ["exponent too large"]),
    ],
)
def test_runtime_errors_name_the_expression_and_its_place(text, words):
    with pytest.raises(ExpressionError) as info:
        ev(text)
    msg = str(info.value)
    assert f"`{text}`" in msg
    assert msg.startswith("r.yaml:4:7:")
    for w in words:
        assert w in msg


def test_templates():
    t = compile_template("n is {n}, first {xs[0]}, braces {{ok}}, at {(1, 2)}, in {xs}", scope())
    assert t(Env(None, {})) == "n is 5, first 3, braces {ok}, at (1, 2), in 3, 1, 2"
    assert compile_template("plain", scope())(Env(None, {})) == "plain"


def test_template_error_points_inside_the_template():
    with pytest.raises(CompileError) as info:
        compile_template("value {nope}", scope(), Mark("r.yaml", 2, 10))
    assert info.value.mark == Mark("r.yaml", 2, 17)


def test_no_python_evaluation():
    # Python syntax outside the language is refused, not executed.
    for text in ["__import__('os')", "xs.__class__", "(lambda: 1)()", "open('x')"]:
        with pytest.raises((ExpressionSyntaxError, CompileError)):
            ev(text)


@given(st.integers(-1000, 1000), st.integers(-1000, 1000))
def test_arithmetic_matches_python(a, b):
    assert ev(f"{a} + {b} * 2 - ({a} % 7)".replace("+ -", "- ").replace("- -", "+ ")) == a + b * 2 - (a % 7)
    assert ev(f"max({a}, {b})") == max(a, b)
    assert ev(f"{a} < {b}") == (a < b)


class _FakeState:
    """Just what the state readers look at."""

    def __init__(self):
        self.zones = {"flight": [[[1, 5], []], [[7], [2, 3]]], "hand": [[4], [6, 8]]}
        self.vars = {"score": [10, 20], "first": 1}
        self.current = 1


def _state_scope(locals_=()):
    from interpreter.lang.expression import state_reader

    def resolve(name):
        if name in ("flight", "hand"):
            return state_reader("zone", name)
        if name in ("score", "first"):
            return state_reader("var", name)
        if name == "current":
            return state_reader("current")
        return {"limit": _const_reader(5)}.get(name)

    return Scope(resolve=resolve, locals=frozenset(locals_), attributes=frozenset({"rank"}))


def _const_reader(value):
    f = lambda env: value  # noqa: E731
    f.constant = value
    return f


@pytest.mark.parametrize(
    "text",
    [
        "flight[current][i]",
        "flight[i][j]",
        "flight[current][0][-1]",
        "flight[1][current]",
        "hand[current] + hand[i]",
        "score[current] + score[first]",
        "len(flight[current][i]) == 0 and (i == 0 or len(flight[current][i - 1]) > 0)",
        "0 < len(flight[current][j]) < limit and 3 not in flight[current][j] and 1 <= i <= 1",
        "first is not none and i != 2 or j is none",
        "[x * 2 for x in hand[current] if x > 6] + list(range(limit)) + [(1, 2), -first]",
        "sum(len(f) for f in flight[i]) - i + 1",
        "xs[i] if i in [0, 1] else none",
    ],
)
def test_fast_and_checked_compilations_agree(text):
    # Evaluations run the fast compilation (operands fused into operators); the checked one
    # exists for precise errors.  Both must compute the same value.
    compiled = compile_expression(text, _state_scope(["i", "j", "xs"]))
    for i, j in [(0, 1), (1, 0), (1, 1)]:
        env = Env(_FakeState(), {"i": i, "j": j, "xs": [9, 8]})
        assert compiled.fn(env) == compiled.checked(env)
        assert compiled.checked_fn is not compiled.fn


@pytest.mark.parametrize(("text", "name"), [("hand[i] + [1]", "i"), ("flight[current][i][0]", "i"), ("c.rank < 3", "c")])
def test_fast_compilation_failures_rerun_checked_for_the_precise_error(text, name):
    # The fast closures read local names without their check; a failure is re-run through the
    # checked compilation, so the error names the missing value and the expression's place.
    compiled = compile_expression(text, _state_scope(["i", "c"]), Mark("r.yaml", 4, 7))
    with pytest.raises(ExpressionError) as info:
        compiled(Env(_FakeState(), {}))
    msg = str(info.value)
    assert msg.startswith("r.yaml:4:7:")
    assert f"`{name}` has no value here" in msg and f"`{text}`" in msg
