"""An action's canonical text (``str(action)``, interpreter/model.py): its values written as the
expression language writes them, so that two different actions never share a text (but for a
text equal to a component's id, which reads as that component).  A text is
how a person types an action, how a saved game and a browser table name it, and how
``State.apply`` and ``Decision.find`` find it: two actions with one text would make the second
one unreachable, and a replay could take the first instead."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from interpreter import load_ruleset
from interpreter.engine.state import State
from interpreter.errors import IllegalActionError
from interpreter.model import Action, Component
from tests.lang.test_expression import ev

CARD = Component("card-16", "card", {}, frozenset(), "card 16", 0)


@pytest.mark.parametrize(
    ("args", "text"),
    [
        ((0,), "pick(0)"),
        ((CARD, "Knight"), "pick(card-16, Knight)"),  # as the shipped games write theirs
        (("B12",), "pick(B12)"),
        (("Bière blonde",), "pick(Bière blonde)"),
        ((True,), "pick(true)"),
        ((False, None), "pick(false, none)"),
        (([1, [True, "a"]],), "pick([1, [true, a]])"),
        (((3, 4),), "pick((3, 4))"),
        (({"act": "taste"},), "pick({act: taste})"),
        (("a, b",), "pick('a, b')"),
        (("a", "b"), "pick(a, b)"),
        (("1",), "pick('1')"),
        (("true",), "pick('true')"),
        (("Sint-Truiden",), "pick(Sint-Truiden)"),
        (("black-pale-2",), "pick(black-pale-2)"),  # an explicit chance outcome names a card by its id
        (("",), "pick('')"),
        ((" x",), "pick(' x')"),
        (("it's",), "pick(it's)"),
        (("'q",), "pick('\\'q')"),
        (("a\nb\\",), "pick('a\\x0ab\\\\')"),
    ],
)
def test_values_are_written_as_the_language_writes_them(args, text):
    assert str(Action("pick", args)) == text


def _key(v):
    """A value with its types: what tells two action values apart (``1``, ``1.0`` and ``True``
    are equal in Python but are three values here)."""
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(_key(x) for x in v))
    if isinstance(v, dict):
        return ("dict", tuple((_key(k), _key(x)) for k, x in v.items()))
    if isinstance(v, Component):
        return ("component", v.id)
    return (type(v).__name__, v)


# (a text equal to a component's id reads as that component, by design: no option lists both)
TEXTS = st.text(alphabet=st.sampled_from(list("ab -,()[]{}:'\"\\ \n1.0etrufalsnoc")), max_size=8).filter(lambda t: t != CARD.id)
SCALARS = st.one_of(st.integers(-20, 20), st.booleans(), st.none(), TEXTS, st.just(CARD))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3), st.tuples(inner, inner)), max_leaves=6)


@given(st.lists(VALUES, min_size=1, max_size=3), st.lists(VALUES, min_size=1, max_size=3))
def test_different_actions_have_different_texts(a, b):
    if [_key(v) for v in a] != [_key(v) for v in b]:
        assert str(Action("x", tuple(a))) != str(Action("x", tuple(b)))


@given(TEXTS)
def test_a_quoted_text_reads_back_as_itself(text):
    written = str(Action("x", (text,)))[2:-1]
    if written.startswith("'"):
        assert ev(written) == text


RULES = """\
name: Texts
players: {min: 2, max: 2}
vars: {got: []}
flow:
  - repeat:
      times: 3
      do:
        - choose:
            options:
              - action: pick
                for: v
                in: "[true, false, none, 1, '1', 'a, b', 'a', 'b', [1, 2], 'x-1']"
                do: [{set: {got: "got + [v]"}}]
              - {action: two, for: [x, y], in: "[['a', 'b'], ['a, b', '']]", do: [{set: {got: "got + [[x, y]]"}}]}
outcome:
  score: "len(got)"
"""


def test_a_game_takes_every_action_by_its_text_and_replays_it(tmp_path):
    path = tmp_path / "ruleset.yaml"
    path.write_text(RULES)
    rs = load_ruleset(path)
    st = rs.new_game(2)
    texts = [str(a) for a in st.legal_actions()]
    assert texts == ["pick(true)", "pick(false)", "pick(none)", "pick(1)", "pick('1')", "pick('a, b')", "pick(a)",
                     "pick(b)", "pick([1, 2])", "pick(x-1)", "two(a, b)", "two('a, b', '')"]
    assert len(set(texts)) == len(texts)
    for text in texts:  # each text takes its own action, and no other
        probe = st.clone()
        probe.apply(text)
        assert str(probe.history[0]) == text
    with pytest.raises(IllegalActionError):
        st.apply("pick(True)")  # Python's spelling is not the language's
    st.apply("pick('1')")
    st.apply("two('a, b', '')")
    st.apply("pick(true)")
    assert st.vars["got"] == ["1", ["a, b", ""], True]
    again = State.from_json(rs, st.to_json())
    assert again.to_json() == st.to_json()
