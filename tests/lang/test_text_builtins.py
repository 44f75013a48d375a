"""`join(xs, sep)` and `pluralize(n, word[, many])` (interpreter/lang/builtins.py), in
expressions and templates, in the generated code and the reference evaluator alike: the texts
docs/reference.md promises, the errors for bad arguments (file:line:col, what was expected, what
was found, the fix), and the work budget counting join's loop (the memory budget: the CHARGES
of tests/lang/test_codegen.py)."""

from __future__ import annotations

import pytest

from interpreter import TapsterError, load_ruleset
from interpreter.lang import codegen

RULES = """\
name: Text
players: {{min: 2, max: 2}}
{limits}components:
  card:
    items: [{{name: Ale}}, {{name: Stout}}, {{name: Porter}}]
    start: deck
    label: "{{name}}"
zones:
  deck: {{visibility: public}}
vars: {{t: "", n: 0}}
flow:
  - set: {{t: {expr}}}
  - log: {template}
  - end_game: done
outcome:
  score: "0"
"""


def _game(tmp_path, expr: str = "\"''\"", template: str = "x", limits: str = ""):
    path = tmp_path / "ruleset.yaml"
    path.write_text(RULES.format(expr=expr, template=template, limits=limits))
    return load_ruleset(path).new_game(2, log=True)


def _both(fn):
    fast = fn()
    codegen.ENABLED = False
    try:
        return fast, fn()
    finally:
        codegen.ENABLED = True


@pytest.mark.parametrize(("expr", "value"), [
    ('"join(deck, \', \')"', "Ale, Stout, Porter"),  # components as their labels
    ('"join([c.name for c in deck if c.name != \'Ale\'], \' and \')"', "Stout and Porter"),
    ('"join([], \', \')"', ""),
    ('"join([1, 2.5, none, true, [3, 4]], \'/\')"', "1/2.5/none/true/3, 4"),  # as a template shows each
    ('"join((\'a\', \'b\'), \'\')"', "ab"),
    ('"pluralize(1, \'card\')"', "1 card"),
    ('"pluralize(len(deck), \'card\')"', "3 cards"),
    ('"pluralize(0, \'card\')"', "0 cards"),
    ('"pluralize(-1, \'point\')"', "-1 point"),
    ('"pluralize(2, \'copy\', \'copies\')"', "2 copies"),
    ('"pluralize(1, \'copy\', \'copies\')"', "1 copy"),
    ('"pluralize(1.5, \'pint\')"', "1.5 pints"),
])
def test_values_in_both_evaluators(tmp_path, expr, value):
    fast, reference = _both(lambda: _game(tmp_path, expr).vars["t"])
    assert fast == reference == value


def test_in_a_template(tmp_path):
    template = "\"{pluralize(len(deck), 'card')}: {join(deck, ', ')}\""
    fast, reference = _both(lambda: _game(tmp_path, template=template).visible_log())
    assert fast == reference == ["3 cards: Ale, Stout, Porter"]


@pytest.mark.parametrize(("expr", "words"), [
    ('"join(3, \', \')"', ["join() takes a list and a text, found a number `3` as the list",
                           "write join([x for x in ...], ', ')"]),
    ('"join(\'abc\', \', \')"', ["found a text `abc` as the list"]),
    ('"join(deck, 0)"', ["found a number `0` as the separator", "write join(xs, ', ')"]),
    ('"pluralize(\'3\', \'card\')"', ["pluralize() takes a number first, found a text `3`",
                                      "write pluralize(len(xs), 'card')"]),
    ('"pluralize(true, \'card\')"', ["found a truth value `true`"]),
    ('"pluralize(2, deck)"', ["takes texts for the word and its plural, found a list",
                              "pluralize(n, 'copy', 'copies')"]),
    ('"pluralize(2, \'copy\', 3)"', ["found a number `3`"]),
    ('"join([1])"', ["`join` takes 2 argument(s), got 1"]),
    ('"pluralize(1)"', ["`pluralize` takes 2 to 3 argument(s), got 1"]),
])
def test_bad_arguments_are_errors_with_the_place_and_a_fix(tmp_path, expr, words):
    def run():
        try:
            _game(tmp_path, expr)
        except TapsterError as exc:
            exc = getattr(exc, "errors", [exc])[0]  # a load's errors come together
            return str(exc), exc.mark.line, exc.mark.column
        return None

    fast, reference = _both(run)
    assert fast == reference and fast is not None
    message, line, column = fast
    assert line == 12 and column == 15, message  # the set's value, inside its quote
    assert message.startswith(f"{tmp_path / 'ruleset.yaml'}:12:15: ")
    for w in words:
        assert w in message, message


def test_the_work_budget_counts_joins_loop(tmp_path):
    """`join` of a 1,000-item list goes through 1,000 items: under a work budget of 1,500 one
    fits and two do not, in both evaluators, and the error names the budget."""
    limits = "limits: {work: 1500}\n"
    expr = "\"join([str(i) for i in range(0)] + [1] * 1000, '') + join([1] * 1000, '')\""
    fast, reference = _both(lambda: _error(lambda: _game(tmp_path, expr, limits=limits)))
    assert fast == reference and fast is not None and "work budget" in fast, fast
    one = "\"join([1] * 1000, '')\""
    fast, reference = _both(lambda: _game(tmp_path, one, limits=limits).vars["t"])
    assert fast == reference == "1" * 1000


def test_a_joined_text_longer_than_the_limit_is_refused(tmp_path):
    expr = "\"join(['x' * 600000, 'y' * 600000], '')\""
    fast, reference = _both(lambda: _error(lambda: _game(tmp_path, expr, limits="limits: {memory: 100000000}\n")))
    assert fast == reference and "join() would make a text of more than 1000000 characters" in fast, fast


def _error(fn):
    try:
        fn()
    except TapsterError as exc:
        return str(exc)
    return None
