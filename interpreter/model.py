"""Small immutable values shared by every stage: components, actions, outcomes, decisions."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from .limits import MAX_ITEMS

__all__ = [
    "Component", "Action", "Outcome", "Decision", "render", "order_key", "less", "greater", "sees_contents",
    "contents_of", "CONTENTS_VISIBILITIES", "UNORDERED_VISIBILITIES",
]


class Component:
    """One physical piece of a game (a card, a mat, a token), immutable for the life of a ruleset.

    ``id`` is a string unique in the ruleset (``"card-16"``), ``kind`` the component kind's name,
    ``fields`` the static data from its table (plus ``id`` and ``kind``), ``mutable`` the names of
    the kind's mutable properties (their values live in ``State.props``), ``label`` the text shown
    to people, ``index`` a dense integer used for fast lookups, ``back`` the text its back shows
    when it lies face down (its kind's ``back:`` fields, e.g. ``Knight``; None: a plain back),
    ``look`` the first component of the ruleset identical to it (the same kind and the same
    fields but ``id``: the copies of one row), itself when it is the first.
    """

    __slots__ = ("id", "kind", "fields", "mutable", "label", "index", "back", "look")

    def __init__(self, id: str, kind: str, fields: dict, mutable: frozenset, label: str, index: int):
        self.id = id
        self.kind = kind
        self.fields = fields
        self.mutable = mutable
        self.label = label
        self.index = index
        self.back = None
        self.look = self

    def __repr__(self) -> str:
        return f"Component({self.id!r})"

    def __str__(self) -> str:
        return self.label

    # Components are compared by identity (one object per physical piece), with Python's own
    # comparison: a class that defines any ordering method makes every `==`, `!=` and `in` on
    # its objects a slot call ten times slower, and every move and listing compares components.
    # The language orders them through `order_key` (sorted, min, max, `<` and `>`).


#: The visibilities of a zone whose contents a seat may know without knowing their order.
CONTENTS_VISIBILITIES = ("owner_contents", "public_contents")

#: The visibilities under which nobody knows a zone's order (its contents may be known).
UNORDERED_VISIBILITIES = ("hidden", *CONTENTS_VISIBILITIES)


def sees_contents(vis: str, own: bool) -> bool:
    """True when a seat knows which components lie in a part of a zone of visibility ``vis``
    (``own``: the part is the seat's), whether or not it knows their order."""
    return vis in ("public", "public_contents") or (own and vis in ("owner", "owner_contents"))


def contents_of(z) -> list:
    """The components of ``z`` (a list) as ``[[id, k], ...]``: each look (:attr:`Component.look`,
    identical components) once, by its id, with how many lie in ``z``, in the ruleset's order."""
    counts: dict = {}
    for c in z:
        look = c.look
        counts[look] = counts.get(look, 0) + 1
    return [[look.id, k] for look, k in sorted(counts.items(), key=lambda item: item[0].index)]


class _InOrder:
    """A component's place in the ruleset's order, as the language orders components (by
    ``index``): only ``<`` (and so ``>``, reflected) and ``==``, as components had them."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index

    def __lt__(self, other: Any) -> bool:
        if type(other) is not _InOrder:
            return NotImplemented
        return self.index < other.index

    def __eq__(self, other: Any) -> bool:
        return type(other) is _InOrder and self.index == other.index

    __hash__ = None  # type: ignore[assignment] - a key for sorting only


def order_key(value: Any) -> Any:
    """``value`` as the language orders it: each component (also inside tuples and lists) by
    its place in the ruleset (``index``), everything else as itself.  For ``sorted``, ``min``,
    ``max``, ``<`` and ``>`` where Python's own comparison refuses components; two values that
    could not be ordered before still cannot (a component and a number raise TypeError)."""
    t = type(value)
    if t is Component:
        return _InOrder(value.index)
    if t is tuple:
        return tuple(map(order_key, value))
    if t is list:
        return list(map(order_key, value))
    return value


def less(a: Any, b: Any) -> bool:
    """The language's ``a < b``: Python's, or by :func:`order_key` where that refuses the
    operands (components).

    Raises:
        TypeError: the two cannot be ordered.
    """
    try:
        return a < b
    except TypeError:
        return order_key(a) < order_key(b)


def greater(a: Any, b: Any) -> bool:
    """The language's ``a > b`` (see :func:`less`)."""
    try:
        return a > b
    except TypeError:
        return order_key(a) > order_key(b)


class Action(NamedTuple):
    """One legal action of a decision: the option's ``name`` and the values bound to its ``for``
    names (``args``: ints, strings, components or tuples of them).

    A plain tuple, so equality and hashing are fast.  ``str(action)`` is the canonical text,
    e.g. ``front(0)`` or ``keep(card-16)``; :meth:`Decision.find` parses it back.  The readable
    label lives in :attr:`Decision.labels`, computed only when someone asks for a decision.
    """

    name: str
    args: tuple = ()

    def __str__(self) -> str:
        if not self.args:
            return self.name
        return f"{self.name}({', '.join(_arg_text(a) for a in self.args)})"

    def to_json(self) -> Any:
        """The action as JSON data: its canonical text."""
        return str(self)


def _arg_text(value: Any) -> str:
    """A value of an action's canonical text, written as the expression language writes it, so
    that two different actions never share a text: a component by its id, a whole number as it
    is, ``true``/``false``/``none``, lists ``[...]``, tuples ``(...)``, records ``{...}``, and a
    text as it is unless it could be read as something else (see :func:`_plain_text`), then
    quoted as a string literal."""
    t = type(value)
    if t is Component:
        return value.id
    if t is str:
        return value if _plain_text(value) else _quoted(value)
    if t is int:
        return str(value)
    if t is bool:
        return "true" if value else "false"
    if value is None:
        return "none"
    if t is tuple:
        return "(" + ", ".join(_arg_text(v) for v in value) + ")"
    if t is list:
        return "[" + ", ".join(_arg_text(v) for v in value) + "]"
    if t is dict:
        return "{" + ", ".join(f"{_arg_text(k)}: {_arg_text(v)}" for k, v in value.items()) + "}"
    return str(value)


_NUMBER = re.compile(r"[+-]?(\d[\d_]*(\.[\d_]*)?|\.\d[\d_]*)([eE][+-]?\d+)?")
_SEPARATORS = frozenset(",()[]{}:")


def _plain_text(text: str) -> bool:
    """Whether ``text`` reads as itself in an action's canonical text: not empty, no space at
    either end, printable, none of ``\\ , ( ) [ ] { } :``, no leading quote, and not a number,
    ``true``, ``false`` or ``none``.  The shipped games' texts (``Knight``, ``B12``, ``GP``, the
    component ids an explicit chance outcome names, ``black-pale-2``) are all plain.  A text equal
    to a component's id reads as that component: no option lists both."""
    return (
        text != ""
        and text == text.strip()
        and text.isprintable()
        and "\\" not in text
        and _SEPARATORS.isdisjoint(text)
        and text[0] not in "'\""
        and text not in ("true", "false", "none")
        and _NUMBER.fullmatch(text) is None
    )


def _quoted(text: str) -> str:
    """``text`` as a string literal of the expression language: in single quotes, with a
    backslash before a quote or a backslash and control characters as ``\\xNN``."""
    out = []
    for ch in text:
        if ch == "\\" or ch == "'":
            out.append("\\" + ch)
        elif ch < " " or ch == "\x7f":
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "'" + "".join(out) + "'"


@dataclass(frozen=True, slots=True)
class Decision:
    """Who must decide now and between what.

    ``players``: the seats (0-based) that decide (one for an ordinary decision);
    ``actions``: the legal actions, in the ruleset's order; ``labels``: one readable text per
    action; ``prompt``: the question; ``name``: the decision's name in the ruleset.
    """

    players: tuple[int, ...]
    actions: tuple[Action, ...]
    labels: tuple[str, ...] = ()
    prompt: str = ""
    name: str = ""

    @property
    def player(self) -> int:
        """The deciding seat (the first one for a simultaneous decision)."""
        return self.players[0]

    def find(self, text: str) -> Action | None:
        """The legal action whose canonical text (``str(action)``) or label is ``text``, or None."""
        text = text.strip()
        for action in self.actions:
            if str(action) == text:
                return action
        for action, label in zip(self.actions, self.labels):
            if label == text:
                return action
        return None


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended.

    ``scores``: one number per seat; ``ranking``: seats best first; ``winners``: the winning seats
    (empty for a draw with no winner); ``reason``: why the game ended, in words.
    """

    scores: tuple
    ranking: tuple[int, ...]
    winners: tuple[int, ...]
    reason: str

    def to_json(self) -> dict:
        """The outcome as a JSON object."""
        return {
            "scores": list(self.scores),
            "ranking": list(self.ranking),
            "winners": list(self.winners),
            "reason": self.reason,
        }


def render(value: Any) -> str:
    """The text people see for a value: a component's label, lists joined by commas.

    Raises:
        ValueError: the text would be longer than MAX_ITEMS characters (a list holding the
            same long text many times: its text is never built).
    """
    if isinstance(value, Component):
        return value.label
    if value is None:
        return "none"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (tuple, list)):
        left = [MAX_ITEMS]
        text = _render_seq(value, left)
        return text
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    text = str(value)
    if len(text) > MAX_ITEMS:
        raise ValueError(f"a text of more than {MAX_ITEMS} characters; the limit is {MAX_ITEMS}")
    return text


def _render_seq(value: tuple | list, left: list) -> str:
    """``render`` of a list or tuple, charging its characters to ``left[0]``."""
    parts = []
    for v in value:
        if isinstance(v, (tuple, list)):
            t = _render_seq(v, left)
        else:
            t = render(v)
            left[0] -= len(t)
        left[0] -= 2
        if left[0] < 0:
            raise ValueError(f"a text of more than {MAX_ITEMS} characters; the limit is {MAX_ITEMS}")
        parts.append(t)
    if isinstance(value, tuple):
        return "(" + ", ".join(parts) + ")"
    return ", ".join(parts) if value else "nothing"
