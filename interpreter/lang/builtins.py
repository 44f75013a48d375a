"""The builtin functions of the expression language, and the limits on the values they make.

A table of :class:`Builtin` (the function, its one-line help for the reference, docs/reference.md, its arity): the
closure evaluator and the code generator both call these functions, so a builtin is written
once.  Every builtin is pure.  ``unescape`` reads a string literal's escapes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import TapsterError
from ..limits import MAX_ITEMS
from ..loader.load import MAX_INT_BITS  # the one integer limit: loading, computing and storing alike
from ..model import order_key, render

if TYPE_CHECKING:  # pragma: no cover
    from .expression import FunctionBody

__all__ = ["Builtin", "BUILTINS", "MAX_ITEMS", "MAX_INT_BITS", "unescape", "same", "WorkExceeded", "MemoryExceeded"]

_VALUES = (int, float, str, bool, tuple, type(None))


def same(a, b) -> bool:
    """The language's ``a is b``: the same component, list or record (identity); for values —
    numbers, text, booleans, none, tuples — the same type and an equal value.  (Python's own
    ``is`` on numbers and text depends on how the interpreter happened to store them, which a
    game's result must never do.)"""
    if type(a) in _VALUES:
        return type(a) is type(b) and a == b
    return a is b


@dataclass(frozen=True)
class Builtin:
    """A function callable from expressions.

    ``fn`` is called with the evaluated arguments (and first the :class:`Env` when
    ``needs_env``); ``doc`` is the one-line help the reference (docs/reference.md) lists; ``arity`` the (min, max)
    number of positional arguments (max None = any).  ``body``: for a ruleset function, its
    :class:`FunctionBody`, from which the code generator writes it as a Python function.
    """

    fn: Callable
    doc: str
    arity: tuple[int, int | None] = (1, 1)
    needs_env: bool = False
    body: FunctionBody | None = None


def _count(iterable=None, value=None, *_):
    if value is not None:
        if type(iterable) is list:
            return iterable.count(value)  # the same test (`is` or `==`), in C
        return sum(1 for v in iterable if v == value)
    return len(iterable) if hasattr(iterable, "__len__") else sum(1 for _ in iterable)


def _distinct(iterable):
    # A set for what is hashable (a list would make it quadratic: `distinct(range(10**6))`
    # never ended), a list for what is not (lists); equal values are dropped either way.
    if type(iterable) is list or type(iterable) is tuple:
        try:
            return list(dict.fromkeys(iterable))  # the same first of equal values, in C
        except TypeError:
            pass  # a list among the items: the loop below
    out = []
    seen = set()
    unhashable = []
    for v in iterable:
        try:
            if v in seen:
                continue
            seen.add(v)
        except TypeError:
            if v in unhashable:
                continue
            unhashable.append(v)
        out.append(v)
    return out


def _max(*args, default=None):
    items = args[0] if len(args) == 1 else args
    items = list(items)
    if not items:
        if default is None:
            raise ValueError("max() of nothing; give a default: max(x, default=0)")
        return default
    try:
        return max(items)
    except TypeError:  # components: in the ruleset's order (model.order_key)
        return max(items, key=order_key)


def _min(*args, default=None):
    items = args[0] if len(args) == 1 else args
    items = list(items)
    if not items:
        if default is None:
            raise ValueError("min() of nothing; give a default: min(x, default=0)")
        return default
    try:
        return min(items)
    except TypeError:  # components: in the ruleset's order (model.order_key)
        return min(items, key=order_key)


def _top(zone):
    return zone[-1] if zone else None


def _bottom(zone):
    return zone[0] if zone else None


def _index(seq, value):
    try:
        return list(seq).index(value)
    except ValueError:
        return -1


def _range(*args):
    r = range(*args)
    if len(r) > MAX_ITEMS:
        raise ValueError(f"range() of {len(r)} numbers; the limit is {MAX_ITEMS}")
    return list(r)


def _mul(a, b):
    """``a * b``, refusing a list or text repeated past MAX_ITEMS and numbers past MAX_INT_BITS."""
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        if a.bit_length() + b.bit_length() > MAX_INT_BITS:
            raise ValueError(f"the product has more than {MAX_INT_BITS} bits; numbers in a game stay smaller")
    elif ta in (list, str, tuple) and tb is int and len(a) * b > MAX_ITEMS:
        raise ValueError(f"repeating {len(a)} items {b} times makes more than {MAX_ITEMS}")
    elif tb in (list, str, tuple) and ta is int and len(b) * a > MAX_ITEMS:
        raise ValueError(f"repeating {len(b)} items {a} times makes more than {MAX_ITEMS}")
    return a * b


def _sorted(iterable, reverse=False):
    # a list or tuple as it is (sorted copies it; a refused sort leaves it as it was), anything
    # else read once into a list, so that the sort can be tried again with the key
    items = iterable if type(iterable) is list or type(iterable) is tuple else list(iterable)
    try:
        return sorted(items, reverse=reverse)
    except TypeError:  # components: in the ruleset's order (model.order_key)
        return sorted(items, key=order_key, reverse=reverse)


def _sign(x):
    return (x > 0) - (x < 0)


# Grids: places are (x, y) keys of a keyed zone, x growing to the right and y downward (screen
# order); a bearing is 0 (up), 90 (right), 180 (down) or 270 (left), degrees clockwise from up.
# Square pieces list their four sides clockwise from their own top; `rotation` turns a piece
# clockwise.  Any tile or grid game can use them.
_BEARING_STEPS = {0: (0, -1), 90: (1, 0), 180: (0, 1), 270: (-1, 0)}


def _xy(key) -> tuple:
    if type(key) is not tuple or len(key) != 2:
        raise ValueError(f"a grid place is an (x, y) pair, not {render(key)!r}")
    return key


def _step_of(bearing) -> tuple:
    step = _BEARING_STEPS.get(bearing % 360) if type(bearing) is int else None
    if step is None:
        raise ValueError(f"a bearing is 0, 90, 180 or 270 (degrees clockwise from up), not {render(bearing)!r}")
    return step


def _adjacent4(key):
    x, y = _xy(key)
    return [(x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)]


def _toward(key, bearing, n=1):
    x, y = _xy(key)
    dx, dy = _step_of(bearing)
    return (x + dx * n, y + dy * n)


def _extent(keys):
    keys = [_xy(k) for k in keys]
    if not keys:
        return None
    xs = [k[0] for k in keys]
    ys = [k[1] for k in keys]
    return (min(xs), max(xs), min(ys), max(ys))


def _box(box) -> tuple:
    if type(box) is not tuple or len(box) != 4:
        raise ValueError(f"a box is (min_x, max_x, min_y, max_y) as extent() gives, not {render(box)!r}")
    return box


def _wrap(key, box):
    x, y = _xy(key)
    x0, x1, y0, y1 = _box(box)
    return (x0 + (x - x0) % (x1 - x0 + 1), y0 + (y - y0) % (y1 - y0 + 1))


def _beyond(key, box, bearing):
    x, y = _xy(key)
    x0, x1, y0, y1 = _box(box)
    dx, dy = _step_of(bearing)
    return (dy < 0 and y < y0) or (dx > 0 and x > x1) or (dy > 0 and y > y1) or (dx < 0 and x < x0)


def _facing(sides, rotation, bearing):
    if len(sides) != 4:
        raise ValueError(f"facing() needs the four sides of a piece, clockwise from its top, not {len(sides)}")
    if type(rotation) is not int or rotation % 90:
        raise ValueError(f"a rotation is a multiple of 90 degrees, not {render(rotation)!r}")
    _step_of(bearing)
    return sides[((bearing - rotation) % 360) // 90]


def _key_of(zone, item):
    if not isinstance(zone, dict):
        raise ValueError("key_of() needs a keyed zone (a zone declared `keyed: true`)")
    for k, stack in zone.items():
        if item in stack:
            return k
    return None


# The work and memory budgets' errors and charges (the generated code's helpers in
# interpreter.lang.runtime re-export them; join and pluralize charge through them here).


class WorkExceeded(TapsterError):
    """An evaluation used up its work budget (``limits: {work: N}``)."""


class MemoryExceeded(WorkExceeded):
    """An evaluation used up its memory budget (``limits: {memory: N}``): a WorkExceeded, so
    that every place reporting the one reports the other."""


def _over(env) -> None:
    env.left = 0
    raise WorkExceeded(
        f"the work budget of {env.budget:,} steps (loop items, membership tests, function calls) was used up"
        " by one move; a rule seems to loop without end (raise it with `limits: {work: N}`)"
    )


def _oom(env) -> None:
    env.mem = 0
    raise MemoryExceeded(
        f"the memory budget of {env.memory:,} items and characters (lists, texts and ranges built) was used up"
        " by one move; a rule seems to build lists or texts without end (raise it with `limits: {memory: N}`)"
    )


def _charge(env, n: int) -> None:
    """Charge ``n`` items or characters to the memory budget (raises MemoryExceeded)."""
    env.mem -= n
    if env.mem < 0:
        _oom(env)


def _it(env, xs):
    """Charge a loop over ``xs`` to the budget; returns ``xs``.  Used by the generated code and
    the reference evaluator alike; something that is not a collection is returned uncharged
    (iterating it then gives the error)."""
    try:
        env.left -= len(xs)
    except TypeError:
        return xs
    if env.left < 0:
        _over(env)
    return xs


def _join(env, xs, sep):
    """``join(xs, sep)``: the items of the list ``xs`` as text (each shown as a template shows it:
    a component as its label, a number as written, a list as comma-separated items) with the
    text ``sep`` between them.  The loop charged to the work budget (one per item), the text to
    the memory budget as it grows.

    Raises:
        ValueError: ``xs`` is not a list (or tuple), ``sep`` is not a text, or the text would be
            longer than MAX_ITEMS characters.
    """
    if type(xs) is not list and type(xs) is not tuple:
        raise ValueError(f"join() takes a list and a text, found {_kind(xs)} as the list; "
                         "write join([x for x in ...], ', ')")
    if type(sep) is not str:
        raise ValueError(f"join() takes a list and a text, found {_kind(sep)} as the separator; write join(xs, ', ')")
    _it(env, xs)
    parts = []
    total = len(sep) * max(len(xs) - 1, 0)
    _charge(env, total)
    for x in xs:
        t = x if type(x) is str else render(x)
        total += len(t)
        if total > MAX_ITEMS:
            raise ValueError(f"join() would make a text of more than {MAX_ITEMS} characters")
        _charge(env, len(t))
        parts.append(t)
    return sep.join(parts)


def _pluralize(env, n, word, many=None):
    """``pluralize(n, word)`` or ``pluralize(n, word, many)``: the number and the word, the word
    in the plural unless ``n`` is 1 (or -1): ``1 card``, ``3 cards`` (``word`` with an ``s``; give
    ``many`` for any other plural: ``pluralize(n, 'copy', 'copies')`` gives ``2 copies``).  The
    number is shown as ``str(n)`` shows it.  The text's length is charged to the memory budget.

    Raises:
        ValueError: ``n`` is not a number, or ``word`` (or ``many``) is not a text.
    """
    if type(n) is not int and type(n) is not float:
        raise ValueError(f"pluralize() takes a number first, found {_kind(n)}; write pluralize(len(xs), 'card')")
    if type(word) is not str or (many is not None and type(many) is not str):
        bad = word if type(word) is not str else many
        raise ValueError(f"pluralize() takes texts for the word and its plural, found {_kind(bad)}; "
                         "write pluralize(n, 'card') or pluralize(n, 'copy', 'copies')")
    shown = render(n)
    r = f"{shown} {word if n == 1 or n == -1 else (word + 's' if many is None else many)}"
    _charge(env, len(r))
    return r


def _kind(x) -> str:
    """How an error names a value of the wrong kind: its kind and, when short, the value."""
    kinds = {bool: "a truth value", int: "a number", float: "a number", str: "a text", list: "a list",
             tuple: "a tuple", dict: "a record", type(None): "none"}
    kind = kinds.get(type(x), "a component" if hasattr(x, "fields") else type(x).__name__)
    shown = render(x)
    return f"{kind} `{shown}`" if len(shown) <= 30 else kind


BUILTINS: dict[str, Builtin] = {
    "adjacent4": Builtin(_adjacent4, "adjacent4((x, y)): the four orthogonal neighbours, clockwise from up"),
    "beyond": Builtin(
        _beyond, "beyond((x, y), box, bearing): true when the place lies past the box's edge on that side", (3, 3)
    ),
    "extent": Builtin(_extent, "extent(places): (min_x, max_x, min_y, max_y) of (x, y) places, or none for none"),
    "facing": Builtin(
        _facing,
        "facing(sides, rotation, bearing): of a square piece's four sides (clockwise from its top), "
        "the one facing bearing once the piece is turned rotation degrees clockwise",
        (3, 3),
    ),
    "key_of": Builtin(_key_of, "key_of(zone, c): the key of the keyed zone's stack that holds c, or none", (2, 2)),
    "toward": Builtin(
        _toward, "toward((x, y), bearing) or toward((x, y), bearing, n): the place n steps that way", (2, 3)
    ),
    "wrap": Builtin(_wrap, "wrap((x, y), box): the place brought back into the box from the opposite side", (2, 2)),
    "abs": Builtin(abs, "abs(x): the absolute value"),
    "all": Builtin(all, "all(xs): true when every item is true (true for nothing)"),
    "any": Builtin(any, "any(xs): true when some item is true"),
    "bottom": Builtin(_bottom, "bottom(zone): the bottom (first) item of a zone, or none"),
    "ceil": Builtin(math.ceil, "ceil(x): the smallest whole number ≥ x"),
    "count": Builtin(_count, "count(xs) or count(xs, v): how many items (equal to v)", (1, 2)),
    "distinct": Builtin(_distinct, "distinct(xs): the items without repeats, first occurrence order"),
    "first": Builtin(_bottom, "first(xs): the first item, or none"),
    "floor": Builtin(math.floor, "floor(x): the largest whole number ≤ x"),
    "index": Builtin(_index, "index(xs, v): the position of v in xs, or -1", (2, 2)),
    "int": Builtin(int, "int(x): x as a whole number (toward zero)"),
    "join": Builtin(_join, "join(xs, sep): the items as text (as a template shows each) with sep between them", (2, 2),
                    needs_env=True),
    "last": Builtin(_top, "last(xs): the last item, or none"),
    "len": Builtin(len, "len(xs): how many items"),
    "list": Builtin(list, "list(xs): the items as a list"),
    "max": Builtin(_max, "max(xs) or max(a, b, ...): the largest; max(xs, default=d) for none", (1, None)),
    "min": Builtin(_min, "min(xs) or min(a, b, ...): the smallest; min(xs, default=d) for none", (1, None)),
    "pluralize": Builtin(_pluralize, "pluralize(n, word) or pluralize(n, word, many): the number and the word, "
                         "in the plural unless n is 1 (word + 's' unless many is given)", (2, 3), needs_env=True),
    "range": Builtin(_range, "range(n) or range(a, b): whole numbers a..b-1", (1, 3)),
    "reversed": Builtin(lambda xs: list(reversed(list(xs))), "reversed(xs): the items backwards"),
    "round": Builtin(round, "round(x): x to the nearest whole number (halves to even)"),
    "sign": Builtin(_sign, "sign(x): -1, 0 or 1"),
    "sorted": Builtin(_sorted, "sorted(xs), sorted(xs, reverse=true): the items in order"),
    "str": Builtin(render, "str(x): the text shown for x"),
    "sum": Builtin(sum, "sum(xs): the total of the items (0 for nothing)"),
    "top": Builtin(_top, "top(zone): the top (last) item of a zone, or none"),
}


_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}


def _escaped(m: re.Match) -> str:
    e = m.group(1)
    if len(e) > 1:
        code = int(e[1:], 16)
        return chr(code) if code <= 0x10FFFF else m.group(0)
    return _ESCAPES.get(e, e)


def unescape(raw: str) -> str:
    """The text of a string literal's inside: Python's escapes ``\\n \\t \\r \\0 \\xNN
    \\uNNNN \\UNNNNNNNN``; any other escaped character stands for itself (``\\'``, ``\\\\``)."""
    return _ESCAPE.sub(_escaped, raw)


# Map builtins (interpreter/loader/maps.py): graphs declared under `maps:`.
def _register_maps() -> None:
    from ..loader.maps import MAP_BUILTINS

    for name, (fn, doc, arity, *needs_env) in MAP_BUILTINS.items():
        BUILTINS[name] = Builtin(fn, doc, arity, bool(needs_env and needs_env[0]))


_register_maps()
