"""The expression language: parse once with Lark (LALR), compile to Python closures.

An expression is a string in a ruleset (``sum(c.hops for c in trash[p])``).  :func:`parse`
turns it into a Lark tree; :func:`compile_expression` turns the tree into a callable
``f(env) -> value`` made of nested closures, so that evaluation never walks a tree.  Ruleset text
never reaches ``eval``/``exec``: the only operations are the ones this module implements.

Expressions are pure: they read the state through an :class:`Env` and never change it.  Names are
resolved when the expression is compiled (a :class:`Scope` says which local names exist and how
to read global ones), so an unknown name is a load-time error, not a run-time one.
"""

from __future__ import annotations

import difflib
import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from .errors import ExpressionError, ExpressionSyntaxError, Mark, TapsterError
from .model import Component, render

__all__ = [
    "Env",
    "Scope",
    "Builtin",
    "InlineBody",
    "BUILTINS",
    "COMMON_MISTAKES",
    "parse",
    "compile_expression",
    "compile_template",
    "Compiled",
]

_GRAMMAR = Path(__file__).with_name("expression.lark")
_PARSER: Lark | None = None


def _parser() -> Lark:
    global _PARSER
    if _PARSER is None:
        _PARSER = Lark(
            _GRAMMAR.read_text(encoding="utf-8"),
            parser="lalr",
            propagate_positions=True,
            maybe_placeholders=True,
        )
    return _PARSER


class Env:
    """What an expression reads: the ``state`` and the local names ``loc`` (a dict).

    ``zones`` and ``vars`` are the state's dicts, cached here because a state never replaces
    them while it lives (only their contents change): the fast closures read a zone or a
    variable with one attribute load less (``env.zones[name]``), and evaluations are the hot
    path.
    """

    __slots__ = ("state", "loc", "zones", "vars")

    def __init__(self, state: Any, loc: dict):
        self.state = state
        self.loc = loc
        self.zones = getattr(state, "zones", None)
        self.vars = getattr(state, "vars", None)


@dataclass(frozen=True)
class Builtin:
    """A function callable from expressions.

    ``fn`` is called with the evaluated arguments (and first the :class:`Env` when
    ``needs_env``); ``doc`` is the one-line help the README lists; ``arity`` the (min, max)
    number of positional arguments (max None = any).  ``inline``: for a ruleset function
    that is not recursive, its :class:`InlineBody`, which the fast compiler evaluates in place
    instead of calling ``fn``.
    """

    fn: Callable
    doc: str
    arity: tuple[int, int | None] = (1, 1)
    needs_env: bool = False
    inline: InlineBody | None = None


class InlineBody:
    """A ruleset function's body as the fast compiler evaluates it at a call site.

    A call through :attr:`Builtin.fn` makes a new :class:`Env` holding the parameters and
    goes through the body's :class:`Compiled` (about 0.65 µs a call, and rulesets call their
    functions from their hottest expressions).  Instead, the fast compiler evaluates the
    arguments, binds the parameters in the caller's ``env.loc`` for the body's evaluation
    (saved and restored, as comprehension names are) and runs the body's fast closure.  The
    body is compiled in a scope whose only local names are the parameters, so it still sees
    only its parameters and the game.  Only functions outside any cycle of calls get one (the
    compiler checks): a recursive call keeps the call, and its "nested too deeply" error.
    The checked compilation (errors) always calls ``fn``, so errors read as before.

    ``params``: the parameter names; ``tree``/``scope``/``text``/``mark``: the body's parse tree,
    scope, text and mark; :meth:`closure` compiles the fast body once, on first use.
    """

    __slots__ = ("params", "tree", "scope", "text", "mark", "fast", "failed")

    def __init__(self, params: tuple, tree: Any, scope: Scope, text: str, mark: Mark | None):
        self.params, self.tree, self.scope, self.text, self.mark = params, tree, scope, text, mark
        self.fast = None
        self.failed = False

    def closure(self) -> Callable | None:
        """The body's fast closure, or None when it does not compile (its own compilation
        reports why; the call sites then keep the call)."""
        if self.fast is None and not self.failed:
            compiler = _Compiler(self.text, self.mark, fast=True)
            compiler._scope_functions = self.scope.functions
            try:
                self.fast = compiler.c(self.tree, self.scope)
            except TapsterError:
                self.failed = True
        return self.fast


@dataclass
class Scope:
    """Compile-time knowledge for name resolution.

    ``locals``: names bound at this point (read from ``env.loc``); ``resolve``: returns a
    closure reading a global name, or None if there is no such name; ``functions``: callable
    names; ``attributes``: every attribute name that can exist (for the load-time check), or
    None to skip that check; ``mutable``: attribute names that live in ``state.props``.
    """

    resolve: Callable[[str], Callable | None]
    locals: frozenset = frozenset()
    functions: dict = field(default_factory=dict)
    attributes: frozenset | None = None
    mutable: frozenset = frozenset()
    global_names: Callable[[], list] = lambda: []

    def with_locals(self, names) -> Scope:
        """A scope with ``names`` added to the locals."""
        return Scope(
            self.resolve,
            self.locals | frozenset(names),
            self.functions,
            self.attributes,
            self.mutable,
            self.global_names,
        )


class Compiled:
    """A compiled expression: call it with an :class:`Env`.

    Run-time failures become :class:`ExpressionError` naming the expression text and its mark.
    ``fn`` is the raw closure (no error wrapping) for hot paths that wrap errors themselves:
    on any exception from ``fn`` they call the Compiled itself, which re-runs the evaluation
    (expressions are pure) to raise the precise error.

    When ``source`` (the parse tree and the :class:`Scope`) is given, ``fn`` is the *fast*
    compilation: operators fused with the names they read, local names read without the
    "has no value here" check.  Its errors can be imprecise, so a failing evaluation is re-run
    through the *checked* compilation (every node its own closure with its own checks), made
    from ``source`` on the first failure; both compute the same values in the same order.
    """

    __slots__ = ("fn", "text", "mark", "constant", "source", "checked_fn")

    def __init__(self, fn: Callable, text: str, mark: Mark | None, constant: Any = None, source: tuple | None = None):
        self.fn = fn
        self.text = text
        self.mark = mark
        self.constant = constant
        self.source = source
        self.checked_fn = None if source is not None else fn

    def __call__(self, env: Env) -> Any:
        try:
            return self.fn(env)
        except TapsterError as exc:
            if exc.mark is not None:  # an inner expression's precise error: the checked run gives the same
                raise
            return self.checked(env)
        except Exception:  # noqa: BLE001 - re-run through the checked compilation for the precise error
            return self.checked(env)

    def checked(self, env: Env) -> Any:
        """Evaluate through the checked compilation; failures become precise ExpressionErrors."""
        fn = self.checked_fn
        if fn is None:
            tree, scope = self.source
            compiler = _Compiler(self.text, self.mark)
            compiler._scope_functions = scope.functions
            fn = self.checked_fn = compiler.c(tree, scope)
        try:
            return fn(env)
        except ExpressionError as exc:
            if exc.mark is None:  # raised inside, without context: add the expression's
                raise ExpressionError(f"in expression `{self.text}`: {exc.message}", self.mark) from None
            raise
        except TapsterError:
            raise
        except (ArithmeticError, LookupError, TypeError, ValueError, AttributeError) as exc:
            raise ExpressionError(
                f"in expression `{self.text}`: {_describe(exc)}", self.mark
            ) from None
        except RecursionError:
            raise ExpressionError(f"in expression `{self.text}`: nested too deeply", self.mark) from None

    def __repr__(self) -> str:
        return f"Compiled({self.text!r})"


def _describe(exc: Exception) -> str:
    if isinstance(exc, ZeroDivisionError):
        return "division by zero"
    if isinstance(exc, IndexError):
        return f"index out of range ({exc})"
    if isinstance(exc, KeyError):
        return f"no such key or field {exc}"
    return f"{type(exc).__name__.replace('Error', ' error').strip()}: {exc}"


# ---------------------------------------------------------------------------------------------
# Parsing

#: Common mistakes: (regex on the text, message).  Checked when a parse fails, and run as a test.
COMMON_MISTAKES: list[tuple[str, str]] = [
    (r"&&", "use `and` instead of `&&`"),
    (r"\|\|", "use `or` instead of `||`"),
    (r"(?<![=!<>])=(?!=)", "use `==` to compare; `=` only names a keyword argument"),
    (r"!(?!=)", "use `not` instead of `!`"),
    (r"\bnull\b|\bnil\b", "write `none` for the absence of a value"),
    (r"\belif\b", "there is no `elif`: nest `a if c else (b if d else e)`"),
    (r"\blambda\b", "there is no `lambda`: use a generator such as `max(c.rank for c in zone)`"),
    (r"\?.*:", "there is no `c ? a : b`: write `a if c else b`"),
]


def _mark_in(mark: Mark | None, line: int, column: int) -> Mark | None:
    """The file mark of (line, column) inside an expression that starts at ``mark``."""
    if mark is None:
        return None
    if line <= 1:
        return Mark(mark.file, mark.line, mark.column + column - 1)
    return Mark(mark.file, mark.line + line - 1, column)


def _excerpt(text: str, line: int, column: int) -> str:
    lines = text.splitlines() or [""]
    src = lines[min(line, len(lines)) - 1]
    return f"    {src}\n    {' ' * (column - 1)}^"


#: Longest expression text read, in characters (parsing is linear, but a megabyte takes long).
MAX_EXPRESSION_CHARS = 10_000
#: Deepest nesting of an expression's parts (brackets, operators, calls, conditionals): the
#: compiler and the compiled closures recurse once per level.
MAX_NESTING = 100


#: Grammar nodes that only group their parent's parts (not a level of nesting of their own).
_WRAPPERS = frozenset({"exprs", "pairs", "pair", "args", "comp_clauses", "comp_for", "comp_if", "targets"})


def _shorten(text: str, n: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


def _check_nesting(tree, text: str, mark: Mark | None) -> None:
    """Raise unless ``tree`` nests at most MAX_NESTING levels (checked without recursion)."""
    todo = [(tree, 1)]
    while todo:
        node, depth = todo.pop()
        if not isinstance(node, Tree):
            continue
        if depth > MAX_NESTING:
            meta = node.meta
            line, column = (meta.line, meta.column) if not meta.empty else (1, 1)
            raise ExpressionSyntaxError(
                f"expression `{_shorten(text)}` nests more than {MAX_NESTING} levels deep (brackets, operators,"
                " calls); simplify it or split it with `let` or a function",
                _mark_in(mark, line, column),
            )
        todo.extend((ch, depth if ch.__class__ is Tree and ch.data in _WRAPPERS else depth + 1) for ch in node.children)


def parse(text: str, mark: Mark | None = None) -> Tree | Token:
    """Parse expression ``text``; ``mark`` is where it stands in its file.

    Returns the Lark tree.  Raises:
        ExpressionSyntaxError: with the mark of the offending character and a caret excerpt.
    """
    if not isinstance(text, str):
        text = str(text)
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ExpressionSyntaxError(
            f"expression `{_shorten(text)}` is {len(text)} characters long; the limit is {MAX_EXPRESSION_CHARS}"
            " (split it with `let` or a function)",
            mark,
        )
    try:
        tree = _parser().parse(text)
        _check_nesting(tree, text, mark)
        return tree
    except UnexpectedInput as exc:
        line, column = exc.line if exc.line > 0 else 1, exc.column if exc.column > 0 else len(text) + 1
        if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
            found = "the end of the expression"
            line, column = 1, len(text) + 1
        elif isinstance(exc, UnexpectedCharacters):
            found = repr(text[exc.pos_in_stream]) if exc.pos_in_stream < len(text) else "end"
        else:
            found = repr(str(exc.token))
        expected = sorted(getattr(exc, "expected", None) or getattr(exc, "allowed", None) or [])
        hint = ""
        for pattern, message in COMMON_MISTAKES:
            if re.search(pattern, text):
                hint = f" ({message})"
                break
        exp = ""
        if expected:
            names = [_TOKEN_NAMES.get(e, e.lower()) for e in expected][:8]
            exp = f"expected {', '.join(names)}; "
        raise ExpressionSyntaxError(
            f"cannot parse expression `{text}`: {exp}found {found}{hint}",
            _mark_in(mark, line, column),
            _excerpt(text, line, column),
        ) from None


_TOKEN_NAMES = {
    "NAME": "a name",
    "NUMBER": "a number",
    "STRING": "a string",
    "RPAR": "`)`",
    "LPAR": "`(`",
    "RSQB": "`]`",
    "LSQB": "`[`",
    "RBRACE": "`}`",
    "COMMA": "`,`",
    "COLON": "`:`",
    "DOT": "`.`",
    "ELSE": "`else`",
    "IN": "`in`",
    "MINUS": "`-`",
    "PLUS": "`+`",
    "STAR": "`*`",
    "SLASH": "`/`",
    "__ANON_0": "a name",
}


# ---------------------------------------------------------------------------------------------
# Builtins


def _count(iterable=None, value=None, *_):
    if value is not None:
        return sum(1 for v in iterable if v == value)
    return len(iterable) if hasattr(iterable, "__len__") else sum(1 for _ in iterable)


def _distinct(iterable):
    # A set for what is hashable (a list would make it quadratic: `distinct(range(10**6))`
    # never ended), a list for what is not (lists); equal values are dropped either way.
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
    return max(items)


def _min(*args, default=None):
    items = args[0] if len(args) == 1 else args
    items = list(items)
    if not items:
        if default is None:
            raise ValueError("min() of nothing; give a default: min(x, default=0)")
        return default
    return min(items)


def _top(zone):
    return zone[-1] if zone else None


def _bottom(zone):
    return zone[0] if zone else None


def _index(seq, value):
    try:
        return list(seq).index(value)
    except ValueError:
        return -1


#: Most items a list made by an expression may have (``range``, ``xs * n``): a slip such as
#: ``range(10**9)`` is an error, not a machine out of memory.
MAX_ITEMS = 1_000_000
#: Largest whole number an expression computes with ``*`` and ``**``, in bits (about 1,200 digits).
MAX_INT_BITS = 4096


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
    return sorted(iterable, reverse=reverse)


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
    "last": Builtin(_top, "last(xs): the last item, or none"),
    "len": Builtin(len, "len(xs): how many items"),
    "list": Builtin(list, "list(xs): the items as a list"),
    "max": Builtin(_max, "max(xs) or max(a, b, ...): the largest; max(xs, default=d) for none", (1, None)),
    "min": Builtin(_min, "min(xs) or min(a, b, ...): the smallest; min(xs, default=d) for none", (1, None)),
    "range": Builtin(_range, "range(n) or range(a, b): whole numbers a..b-1", (1, 3)),
    "reversed": Builtin(lambda xs: list(reversed(list(xs))), "reversed(xs): the items backwards"),
    "round": Builtin(round, "round(x): x to the nearest whole number (halves to even)"),
    "sign": Builtin(_sign, "sign(x): -1, 0 or 1"),
    "sorted": Builtin(_sorted, "sorted(xs), sorted(xs, reverse=true): the items in order"),
    "str": Builtin(render, "str(x): the text shown for x"),
    "sum": Builtin(sum, "sum(xs): the total of the items (0 for nothing)"),
    "top": Builtin(_top, "top(zone): the top (last) item of a zone, or none"),
}

# Map builtins (interpreter/maps.py): graphs declared under `maps:`.
from .maps import MAP_BUILTINS as _MAP_BUILTINS  # noqa: E402

for _name, (_fn, _doc, _arity) in _MAP_BUILTINS.items():
    BUILTINS[_name] = Builtin(_fn, _doc, _arity)


# ---------------------------------------------------------------------------------------------
# Compilation

_MISSING = object()

_COMPARE = {
    "<": operator.lt,
    ">": operator.gt,
    "==": operator.eq,
    ">=": operator.ge,
    "<=": operator.le,
    "!=": operator.ne,
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
    "is": operator.is_,
    "is not": operator.is_not,
}


#: Comparisons with a constant on the right, fused into one closure.
_CONST_RIGHT = {
    operator.eq: lambda a, k: lambda env: a(env) == k,
    operator.ne: lambda a, k: lambda env: a(env) != k,
    operator.lt: lambda a, k: lambda env: a(env) < k,
    operator.le: lambda a, k: lambda env: a(env) <= k,
    operator.gt: lambda a, k: lambda env: a(env) > k,
    operator.ge: lambda a, k: lambda env: a(env) >= k,
}

#: The fast compiler's comparisons: a local name against a constant (`i == 0`), and any two
#: operands with the operator inline instead of called.
_LOCAL_CONST = {
    operator.eq: lambda n, k: lambda env: env.loc[n] == k,
    operator.ne: lambda n, k: lambda env: env.loc[n] != k,
    operator.lt: lambda n, k: lambda env: env.loc[n] < k,
    operator.le: lambda n, k: lambda env: env.loc[n] <= k,
    operator.gt: lambda n, k: lambda env: env.loc[n] > k,
    operator.ge: lambda n, k: lambda env: env.loc[n] >= k,
    operator.is_: lambda n, k: lambda env: env.loc[n] is k,
    operator.is_not: lambda n, k: lambda env: env.loc[n] is not k,
}
_INLINE = {
    operator.eq: lambda a, b: lambda env: a(env) == b(env),
    operator.ne: lambda a, b: lambda env: a(env) != b(env),
    operator.lt: lambda a, b: lambda env: a(env) < b(env),
    operator.le: lambda a, b: lambda env: a(env) <= b(env),
    operator.gt: lambda a, b: lambda env: a(env) > b(env),
    operator.ge: lambda a, b: lambda env: a(env) >= b(env),
    operator.is_: lambda a, b: lambda env: a(env) is b(env),
    operator.is_not: lambda a, b: lambda env: a(env) is not b(env),
    _COMPARE["in"]: lambda a, b: lambda env: a(env) in b(env),
    _COMPARE["not in"]: lambda a, b: lambda env: a(env) not in b(env),
}
_INLINE_CONST_RIGHT = {
    **_CONST_RIGHT,
    operator.is_: lambda a, k: lambda env: a(env) is k,
    operator.is_not: lambda a, k: lambda env: a(env) is not k,
}


def _in_fields(a: Callable, items: Callable, name: str, negate: bool) -> Callable:
    """``a in [c.name for c in items]`` (``not in`` when ``negate``) without building the list
    (option conditions ask it: a beer type not yet in a flight).  Every item's field is still
    read, as the list would be (a missing field is the same error), and compared (``is`` or
    ``==``, as ``in`` does) until one equals the value."""

    def in_fields(env):
        x = a(env)
        found = False
        for v in items(env):
            try:
                y = v.fields[name]
            except (AttributeError, KeyError):
                y = _static_attr(v, name)
            if not found and (y is x or y == x):
                found = True
        return found != negate

    return in_fields


def _static_attr(obj: Any, name: str) -> Any:
    if isinstance(obj, dict):
        if name in obj:
            return obj[name]
        raise ExpressionError(f"the record has no field `{name}` (fields: {', '.join(map(str, obj))})")
    if isinstance(obj, Component):
        raise ExpressionError(
            f"{obj.id} (a {obj.kind}) has no field `{name}` "
            f"(fields: {', '.join(sorted(set(obj.fields) | obj.mutable))})"
        )
    raise ExpressionError(f"{render(obj)!r} has no field `{name}`")


class _Compiler:
    """Compiles a parse tree to closures.

    ``fast``: fuse operators with the operands they read (constants, local names, zones,
    variables, ``current``; see :func:`_operand`) so that an evaluation makes fewer Python
    calls.  Fast closures may fail with imprecise errors (a local name read without its check),
    so :class:`Compiled` re-runs a failed fast evaluation through the checked compilation.
    """

    def __init__(self, text: str, mark: Mark | None, fast: bool = False):
        self.text = text
        self.mark = mark
        self.fast = fast

    def error(self, node, message: str) -> ExpressionSyntaxError:
        meta = getattr(node, "meta", None)
        line = getattr(node, "line", None) or (meta.line if meta and not meta.empty else 1)
        column = getattr(node, "column", None) or (meta.column if meta and not meta.empty else 1)
        from .errors import CompileError

        return CompileError(
            f"in expression `{self.text}`: {message}",
            _mark_in(self.mark, line, column),
            _excerpt(self.text, line, column),
        )

    # Each compile returns (closure, is_constant, constant_value)
    def c(self, node, scope: Scope) -> Callable:
        if isinstance(node, Token):
            raise self.error(node, f"unexpected {node!r}")
        method = getattr(self, "c_" + node.data.rstrip("_"), None)
        if method is None:  # pragma: no cover - grammar and compiler out of step
            raise self.error(node, f"internal: no compiler for {node.data}")
        return method(node, scope)

    # literals ----------------------------------------------------------------------------
    def c_number(self, node, scope):
        text = node.children[0]
        value = float(text) if "." in text else int(text)
        return _const(value)

    def c_string(self, node, scope):
        raw = node.children[0][1:-1]
        value = re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), raw)
        return _const(value)

    def c_true(self, node, scope):
        return _const(True)

    def c_false(self, node, scope):
        return _const(False)

    def c_none(self, node, scope):
        return _const(None)

    def c_list(self, node, scope):
        items = self._exprs(node.children[0], scope)
        if not items:
            return lambda env: []
        if self.fast and all(hasattr(f, "constant") for f in items):
            return _const([f.constant for f in items])
        return lambda env: [f(env) for f in items]

    def c_tuple(self, node, scope):
        first = self.c(node.children[0], scope)
        rest = self._exprs(node.children[1], scope)
        items = [first, *rest]
        if self.fast and all(hasattr(f, "constant") for f in items):
            return _const(tuple(f.constant for f in items))
        return lambda env: tuple(f(env) for f in items)

    def c_dict(self, node, scope):
        pairs = []
        if node.children[0] is not None:
            for pair in node.children[0].children:
                pairs.append((self.c(pair.children[0], scope), self.c(pair.children[1], scope)))
        return lambda env: {k(env): v(env) for k, v in pairs}

    def _exprs(self, node, scope) -> list:
        if node is None:
            return []
        return [self.c(ch, scope) for ch in node.children if ch is not None]

    # names -------------------------------------------------------------------------------
    def c_name(self, node, scope):
        name = str(node.children[0])
        if name in scope.locals and self.fast:
            fast_local = lambda env: env.loc[name]  # noqa: E731 - a KeyError re-runs checked
            fast_local.local = name
            return fast_local
        if name in scope.locals:
            def local(env):
                try:
                    return env.loc[name]
                except KeyError:
                    raise ExpressionError(f"`{name}` has no value here") from None

            local.local = name  # lets operators read the name without a call
            return local
        getter = scope.resolve(name)
        if getter is not None:
            return getter
        if name in scope.functions or name in BUILTINS:
            raise self.error(node.children[0], f"`{name}` is a function: call it as `{name}(...)`")
        candidates = list(scope.locals) + list(scope.global_names())
        close = difflib.get_close_matches(name, candidates, n=3)
        hint = f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""
        raise self.error(node.children[0], f"unknown name `{name}`{hint}")

    # operators ---------------------------------------------------------------------------
    def c_ternary(self, node, scope):
        a, cond, b = (self.c(ch, scope) for ch in node.children)
        return lambda env: a(env) if cond(env) else b(env)

    def c_or(self, node, scope):
        if self.fast:
            return _flat_or([self.c(ch, scope) for ch in _flatten(node, "or_")])
        a, b = (self.c(ch, scope) for ch in node.children)
        return lambda env: a(env) or b(env)

    def c_and(self, node, scope):
        if self.fast:
            return _flat_and([self.c(ch, scope) for ch in _flatten(node, "and_")])
        a, b = (self.c(ch, scope) for ch in node.children)
        return lambda env: a(env) and b(env)

    def c_not(self, node, scope):
        a = self.c(node.children[0], scope)
        return lambda env: not a(env)

    def c_compare(self, node, scope):
        children = node.children
        operands = [self.c(children[0], scope)]
        ops = []
        for i in range(1, len(children), 2):
            op = " ".join(str(t) for t in children[i].children)
            ops.append(_COMPARE[op])
            operands.append(self.c(children[i + 1], scope))
        if len(ops) == 1 and self.fast:
            op, a, b = ops[0], operands[0], operands[1]
            if getattr(b, "fields_of", None) is not None and op in (_COMPARE["in"], _COMPARE["not in"]):
                return _in_fields(a, *b.fields_of, op is _COMPARE["not in"])
            ak, av = _operand(a)
            bk, bv = _operand(b)
            if bk == "const":
                if ak == "local" and op in _LOCAL_CONST:
                    return _LOCAL_CONST[op](av, bv)
                if op in _INLINE_CONST_RIGHT:
                    return _INLINE_CONST_RIGHT[op](a, bv)
            return _INLINE[op](a, b)
        if len(ops) == 2 and self.fast:
            (op1, op2), (a, b, c) = ops, operands
            ak, av = _operand(a)
            ck, cv = _operand(c)
            if ak == "const" and ck == "const":  # `0 < len(xs) < limit`
                if op1 is operator.lt and op2 is operator.lt:
                    return lambda env: av < b(env) < cv
                if op1 is operator.le and op2 is operator.le:
                    return lambda env: av <= b(env) <= cv
                if op1 is operator.le and op2 is operator.lt:
                    return lambda env: av <= b(env) < cv

                def chain2_const(env):
                    middle = b(env)
                    return op1(av, middle) and op2(middle, cv)

                return chain2_const
        if len(ops) == 1:
            op, a, b = ops[0], operands[0], operands[1]
            k = getattr(b, "constant", _MISSING) if hasattr(b, "constant") else _MISSING
            if k is not _MISSING and op in _CONST_RIGHT:
                return _CONST_RIGHT[op](a, k)
            if op is operator.eq:
                return lambda env: a(env) == b(env)
            if op is operator.lt:
                return lambda env: a(env) < b(env)
            if op is operator.gt:
                return lambda env: a(env) > b(env)
            return lambda env: op(a(env), b(env))
        if len(ops) == 2:
            op1, op2 = ops
            a, b, c = operands

            def chain2(env):
                middle = b(env)
                return op1(a(env), middle) and op2(middle, c(env))

            return chain2

        def chain(env):
            left = operands[0](env)
            for op, f in zip(ops, operands[1:]):
                right = f(env)
                if not op(left, right):
                    return False
                left = right
            return True

        return chain

    def _binop(self, node, scope, fn):
        a, b = (self.c(ch, scope) for ch in node.children)
        return lambda env: fn(a(env), b(env))

    def c_add(self, node, scope):
        a, b = (self.c(ch, scope) for ch in node.children)
        if self.fast:
            folded = _fold(operator.add, [a, b])
            if folded is not None:
                return folded
            if hasattr(b, "constant"):  # `n + 1`
                k = b.constant
                return lambda env: a(env) + k
        return lambda env: a(env) + b(env)

    def c_sub(self, node, scope):
        a, b = (self.c(ch, scope) for ch in node.children)
        if self.fast:
            folded = _fold(operator.sub, [a, b])
            if folded is not None:
                return folded
            if hasattr(b, "constant"):  # `i - 1`
                k = b.constant
                if getattr(a, "local", None) is not None:
                    n = a.local
                    return lambda env: env.loc[n] - k
                return lambda env: a(env) - k
        return lambda env: a(env) - b(env)

    def c_mul(self, node, scope):
        return self._binop(node, scope, _mul)

    def c_div(self, node, scope):
        return self._binop(node, scope, operator.truediv)

    def c_floordiv(self, node, scope):
        return self._binop(node, scope, operator.floordiv)

    def c_mod(self, node, scope):
        return self._binop(node, scope, operator.mod)

    def c_pow(self, node, scope):
        def power(x, y):
            if isinstance(y, (int, float)) and abs(y) > 64:
                raise ValueError("exponent too large")
            if type(x) is int and type(y) is int and x.bit_length() * y > MAX_INT_BITS:
                raise ValueError(f"the power has more than {MAX_INT_BITS} bits; numbers in a game stay smaller")
            return x**y

        return self._binop(node, scope, power)

    def c_neg(self, node, scope):
        a = self.c(node.children[0], scope)
        folded = _fold(operator.neg, [a]) if self.fast else None
        if folded is not None:  # `xs[-1]`: a constant index
            return folded
        return lambda env: -a(env)

    def c_pos(self, node, scope):
        a = self.c(node.children[0], scope)
        return lambda env: +a(env)

    # access ------------------------------------------------------------------------------
    def c_attr(self, node, scope):
        obj = self.c(node.children[0], scope)
        name_tok = node.children[1]
        name = str(name_tok)
        if scope.attributes is not None and name not in scope.attributes:
            close = difflib.get_close_matches(name, sorted(scope.attributes), n=3)
            hint = f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""
            raise self.error(name_tok, f"no component or record has a field `{name}`{hint}")
        if name in scope.mutable and self.fast and getattr(obj, "local", None) is not None:
            lname = obj.local

            def mutable_local_attr(env):
                o = env.loc[lname]
                if type(o) is Component and name in o.mutable:
                    return env.state.props[o.index][name]
                try:
                    return o.fields[name]
                except (AttributeError, KeyError):
                    return _static_attr(o, name)

            return mutable_local_attr
        if name in scope.mutable:
            def mutable_attr(env):
                o = obj(env)
                if type(o) is Component and name in o.mutable:
                    return env.state.props[o.index][name]
                try:
                    return o.fields[name]
                except (AttributeError, KeyError):
                    return _static_attr(o, name)

            return mutable_attr

        lname = getattr(obj, "local", None)
        if lname is not None and self.fast:
            def local_attr(env):
                o = env.loc[lname]
                try:
                    return o.fields[name]
                except (AttributeError, KeyError):
                    return _static_attr(o, name)

            local_attr.field_of = (lname, name)  # a comprehension over lname reads it without binding
            return local_attr

        def attr(env):
            o = obj(env)
            try:
                return o.fields[name]
            except (AttributeError, KeyError):
                return _static_attr(o, name)

        return attr

    def c_index(self, node, scope):
        if self.fast:
            # One closure per index, each reading its operands inline: `flight[current][i]` is
            # two calls instead of four.
            return _index_fast(self.c(node.children[0], scope), self.c(node.children[1], scope))
        # Fold chains such as `flight[p][i]` into one closure (one call instead of nested ones).
        chain = []
        base = node
        while isinstance(base, Tree) and base.data == "index" and len(chain) < 3:
            chain.append(base.children[1])
            base = base.children[0]
        chain.reverse()
        obj = self.c(base, scope)
        idx = [self.c(ch, scope) for ch in chain]
        consts = [getattr(f, "constant", _MISSING) if hasattr(f, "constant") else _MISSING for f in idx]
        if len(idx) == 1:
            (i0,) = idx
            if consts[0] is not _MISSING and type(consts[0]) is int:
                k = consts[0]
                return lambda env: obj(env)[k]
            return lambda env: obj(env)[i0(env)]
        if len(idx) == 2:
            i0, i1 = idx
            return lambda env: obj(env)[i0(env)][i1(env)]
        i0, i1, i2 = idx
        return lambda env: obj(env)[i0(env)][i1(env)][i2(env)]

    def c_slice(self, node, scope):
        obj = self.c(node.children[0], scope)
        lo = self.c(node.children[1], scope) if node.children[1] is not None else (lambda env: None)
        hi = self.c(node.children[2], scope) if node.children[2] is not None else (lambda env: None)
        def slice_(env):
            o = obj(env)[lo(env) : hi(env)]
            return o if type(o) is str else list(o)  # text slices stay text

        return slice_

    # calls -------------------------------------------------------------------------------
    def _function(self, name_tok) -> Builtin:
        name = str(name_tok)
        fn = scope_functions = self._scope_functions.get(name) if self._scope_functions else None
        del scope_functions
        if fn is None:
            fn = BUILTINS.get(name)
        if fn is None:
            names = sorted(set(BUILTINS) | set(self._scope_functions or ()))
            close = difflib.get_close_matches(name, names, n=3)
            hint = f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""
            raise self.error(name_tok, f"unknown function `{name}`{hint}")
        return fn

    def _call(self, name_tok, builtin: Builtin, args: list, kwargs: dict):
        lo, hi = builtin.arity
        n = len(args)
        if n < lo or (hi is not None and n > hi):
            want = f"{lo}" if lo == hi else (f"{lo} or more" if hi is None else f"{lo} to {hi}")
            raise self.error(name_tok, f"`{name_tok}` takes {want} argument(s), got {n}")
        fn = builtin.fn
        if self.fast and not builtin.needs_env and BUILTINS.get(str(name_tok)) is builtin:
            folded = _fold(fn, args, kwargs)
            if folded is not None:
                return folded
            if n == 1 and not kwargs:
                kind, v = _operand(args[0])
                if kind == "local":
                    return lambda env: fn(env.loc[v])
                if kind == "zone":
                    return lambda env: fn(env.zones[v])
                if kind == "var":
                    return lambda env: fn(env.vars[v])
                fused = _call_zone_index(fn, args[0])
                if fused is not None:
                    return fused
        if builtin.needs_env:
            if kwargs:
                return lambda env: fn(env, *[a(env) for a in args], **{k: v(env) for k, v in kwargs.items()})
            if n == 1:
                a0 = args[0]
                return lambda env: fn(env, a0(env))
            if n == 2:
                a0, a1 = args
                return lambda env: fn(env, a0(env), a1(env))
            return lambda env: fn(env, *[a(env) for a in args])
        if kwargs:
            return lambda env: fn(*[a(env) for a in args], **{k: v(env) for k, v in kwargs.items()})
        if n == 0:
            return lambda env: fn()
        if n == 1:
            a0 = args[0]
            return lambda env: fn(a0(env))
        if n == 2:
            a0, a1 = args
            return lambda env: fn(a0(env), a1(env))
        return lambda env: fn(*[a(env) for a in args])

    def c_call(self, node, scope):
        self._scope_functions = scope.functions
        name_tok, argnode = node.children
        builtin = self._function(name_tok)
        args, kwargs = [], {}
        if argnode is not None:
            for ch in argnode.children:
                if ch is None:
                    continue
                if isinstance(ch, Tree) and ch.data == "kwarg":
                    kwargs[str(ch.children[0])] = self.c(ch.children[1], scope)
                else:
                    if kwargs:
                        raise self.error(ch, "a positional argument cannot follow a keyword argument")
                    args.append(self.c(ch, scope))
        if self.fast and builtin.inline is not None and not kwargs:
            call = self._inline_call(name_tok, builtin, args)
            if call is not None:
                return call
        return self._call(name_tok, builtin, args, kwargs)

    def _inline_call(self, name_tok, builtin: Builtin, args: list) -> Callable | None:
        """A ruleset function's call evaluated in place (see :class:`InlineBody`), or None to
        keep the call (a wrong number of arguments, which ``_call`` reports, or a body that
        does not compile)."""
        lo, hi = builtin.arity
        if not lo <= len(args) <= hi:
            return None
        body = builtin.inline.closure()
        if body is None:
            return None
        params = builtin.inline.params
        if not params:
            return body
        if len(params) == 1:
            (p0,), (a0,) = params, args

            def inline1(env):
                value = a0(env)
                loc = env.loc
                old = loc.get(p0, _MISSING)
                loc[p0] = value
                try:
                    return body(env)
                finally:
                    if old is _MISSING:
                        del loc[p0]
                    else:
                        loc[p0] = old

            return inline1

        def inline(env):
            values = [a(env) for a in args]  # every argument before any parameter is bound
            loc = env.loc
            saved = [loc.get(p, _MISSING) for p in params]
            loc.update(zip(params, values))
            try:
                return body(env)
            finally:
                for p, old in zip(params, saved):
                    if old is _MISSING:
                        del loc[p]
                    else:
                        loc[p] = old

        return inline

    def c_call_gen(self, node, scope):
        self._scope_functions = scope.functions
        name_tok, elt, clauses = node.children
        builtin = self._function(name_tok)
        gen = self._comprehension(elt, clauses, scope)
        if self.fast and builtin.inline is not None:
            call = self._inline_call(name_tok, builtin, [gen])
            if call is not None:
                return call
        return self._call(name_tok, builtin, [gen], {})

    def c_listcomp(self, node, scope):
        elt, clauses = node.children
        return self._comprehension(elt, clauses, scope)

    def _comprehension(self, elt_node, clauses_node, scope):
        steps = []
        names: list[str] = []
        inner = scope
        for clause in clauses_node.children:
            if clause.data == "comp_for":
                targets = [str(t) for t in clause.children[0].children]
                it = self.c(clause.children[1], inner)
                inner = inner.with_locals(targets)
                names.extend(targets)
                steps.append(("for", targets, it))
            else:
                steps.append(("if", None, self.c(clause.children[0], inner)))
        elt = self.c(elt_node, inner)
        names = list(dict.fromkeys(names))

        # Fast path: one `for` over a single name, at most one `if`.
        if len(steps) <= 2 and steps[0][0] == "for" and len(steps[0][1]) == 1 and all(
            s[0] == "if" for s in steps[1:]
        ):
            target, it = steps[0][1][0], steps[0][2]
            cond = steps[1][2] if len(steps) == 2 else None
            if self.fast and cond is None and getattr(elt, "field_of", (None,))[0] == target:
                # `[c.type for c in xs]`: the item only feeds its own field, so it need not be
                # bound (the name would be unbound again afterwards anyway).
                field_name = elt.field_of[1]

                def comp_fields(env):
                    out = []
                    for v in it(env):
                        try:
                            out.append(v.fields[field_name])
                        except (AttributeError, KeyError):
                            out.append(_static_attr(v, field_name))
                    return out

                comp_fields.fields_of = (it, field_name)  # `x in [c.type for c in xs]` scans without the list
                return comp_fields

            def comp(env):
                loc = env.loc
                old = loc.get(target, _MISSING)
                out = []
                try:
                    if cond is None:
                        for v in it(env):
                            loc[target] = v
                            out.append(elt(env))
                    else:
                        for v in it(env):
                            loc[target] = v
                            if cond(env):
                                out.append(elt(env))
                finally:
                    if old is _MISSING:
                        loc.pop(target, None)
                    else:
                        loc[target] = old
                return out

            return comp

        def build(i):
            if i == len(steps):
                return lambda env, out: out.append(elt(env))
            kind, targets, fn = steps[i]
            nxt = build(i + 1)
            if kind == "if":
                def when(env, out):
                    if fn(env):
                        nxt(env, out)

                return when
            if len(targets) == 1:
                t = targets[0]

                def loop1(env, out):
                    loc = env.loc
                    for v in fn(env):
                        loc[t] = v
                        nxt(env, out)

                return loop1

            def loopn(env, out):
                loc = env.loc
                for v in fn(env):
                    if len(v) != len(targets):
                        raise ValueError(f"cannot unpack {len(v)} values into {len(targets)} names")
                    for t, x in zip(targets, v):
                        loc[t] = x
                    nxt(env, out)

            return loopn

        body = build(0)

        def comp_general(env):
            loc = env.loc
            saved = [(n, loc.get(n, _MISSING)) for n in names]
            out = []
            try:
                body(env, out)
            finally:
                for n, old in saved:
                    if old is _MISSING:
                        loc.pop(n, None)
                    else:
                        loc[n] = old
            return out

        return comp_general


def _const(value):
    f = lambda env: value  # noqa: E731
    f.constant = value  # type: ignore[attr-defined]
    return f


def _fold(fn: Callable, args: list, kwargs: dict | None = None) -> Callable | None:
    """The fast compiler's constant folding: ``fn`` (pure, like every builtin and operator)
    applied to constant arguments, computed once (`range(flights)`), or None when an argument
    is not constant or the call fails (the failure then happens, with its error, when run).

    A folded list is shared by every evaluation, as parameters are: expressions never change
    values, and the state stores a copy of anything it keeps (``LValue.set``)."""
    if not all(hasattr(a, "constant") for a in args) or not all(hasattr(v, "constant") for v in (kwargs or {}).values()):
        return None
    try:
        value = fn(*[a.constant for a in args], **{k: v.constant for k, v in (kwargs or {}).items()})
    except Exception:  # noqa: BLE001 - not folded: the evaluation raises it with the expression's mark
        return None
    return _const(value)


def state_reader(kind: str, name: str = "") -> Callable:
    """The closure that reads a global name of the state: ``kind`` ``"zone"`` or ``"var"``
    (``name``), or ``"current"``.  Tagged with its kind so that the fast compiler fuses the
    read into the operator using it (``hand[current]`` is one closure, not three)."""
    if kind == "zone":
        f = lambda env: env.state.zones[name]  # noqa: E731
    elif kind == "var":
        f = lambda env: env.state.vars[name]  # noqa: E731
    elif kind == "current":
        f = lambda env: env.state.current  # noqa: E731
    else:  # pragma: no cover - a programming error
        raise ValueError(kind)
    f.reads = (kind, name)  # type: ignore[attr-defined]
    return f


def _operand(f: Callable) -> tuple:
    """How a compiled operand gets its value, for fusing it into the operator that reads it:
    ``("const", value)``, ``("local", name)``, ``("zone", name)``, ``("var", name)``,
    ``("current", "")``, or ``("call", f)`` (anything else: call it)."""
    if hasattr(f, "constant"):
        return ("const", f.constant)
    name = getattr(f, "local", None)
    if name is not None:
        return ("local", name)
    reads = getattr(f, "reads", None)
    if reads is not None:
        return reads
    return ("call", f)


def _flatten(node: Tree, data: str) -> list:
    """The operands of ``a and b and c`` (parsed ``(a and b) and c``), left to right."""
    left, right = node.children
    if isinstance(left, Tree) and left.data == data:
        return [*_flatten(left, data), right]
    return [left, right]


def _flat_and(fs: list) -> Callable:
    """``a and b and c`` in one closure (the fast compiler's; same value as nested ``and``s)."""
    if len(fs) == 2:
        a, b = fs
        return lambda env: a(env) and b(env)
    if len(fs) == 3:
        a, b, c = fs
        return lambda env: a(env) and b(env) and c(env)
    if len(fs) == 4:
        a, b, c, d = fs
        return lambda env: a(env) and b(env) and c(env) and d(env)
    a, rest = fs[0], _flat_and(fs[1:])
    return lambda env: a(env) and rest(env)


def _flat_or(fs: list) -> Callable:
    """``a or b or c`` in one closure."""
    if len(fs) == 2:
        a, b = fs
        return lambda env: a(env) or b(env)
    if len(fs) == 3:
        a, b, c = fs
        return lambda env: a(env) or b(env) or c(env)
    a, rest = fs[0], _flat_or(fs[1:])
    return lambda env: a(env) or rest(env)


#: ``zone[i][j]`` in one closure, by how the two indexes are read (the fast compiler's).
_ZONE_INDEX2 = {
    ("current", "local"): lambda z, i, j: lambda env: env.zones[z][env.state.current][env.loc[j]],
    ("current", "const"): lambda z, i, j: lambda env: env.zones[z][env.state.current][j],
    ("current", "current"): lambda z, i, j: lambda env: env.zones[z][env.state.current][env.state.current],
    ("local", "local"): lambda z, i, j: lambda env: env.zones[z][env.loc[i]][env.loc[j]],
    ("local", "const"): lambda z, i, j: lambda env: env.zones[z][env.loc[i]][j],
    ("local", "current"): lambda z, i, j: lambda env: env.zones[z][env.loc[i]][env.state.current],
    ("const", "local"): lambda z, i, j: lambda env: env.zones[z][i][env.loc[j]],
    ("const", "const"): lambda z, i, j: lambda env: env.zones[z][i][j],
    ("const", "current"): lambda z, i, j: lambda env: env.zones[z][i][env.state.current],
}


#: ``fn(zone[i])`` and ``fn(zone[i][j])`` in one closure for a one-argument builtin
#: (``len(hand[current])``, ``top(holding[current])``, ``len(flight[current][i])``: the most
#: common calls of option conditions), by how the indexes are read; other shapes keep the call.
_CALL_ZONE_INDEX = {
    "current": lambda fn, z, i: lambda env: fn(env.zones[z][env.state.current]),
    "local": lambda fn, z, i: lambda env: fn(env.zones[z][env.loc[i]]),
}
_CALL_ZONE_INDEX2 = {
    ("current", "local"): lambda fn, z, i, j: lambda env: fn(env.zones[z][env.state.current][env.loc[j]]),
    ("current", "const"): lambda fn, z, i, j: lambda env: fn(env.zones[z][env.state.current][j]),
    ("local", "local"): lambda fn, z, i, j: lambda env: fn(env.zones[z][env.loc[i]][env.loc[j]]),
    ("local", "const"): lambda fn, z, i, j: lambda env: fn(env.zones[z][env.loc[i]][j]),
}


def _call_zone_index(fn: Callable, arg: Callable) -> Callable | None:
    """``fn(arg)`` fused with ``arg`` when it is a zone indexed once or twice (see above)."""
    zi = getattr(arg, "zone_index", None)
    if zi is not None and zi[2] in _CALL_ZONE_INDEX:
        return _CALL_ZONE_INDEX[zi[2]](fn, zi[0], zi[1])
    zi2 = getattr(arg, "zone_index2", None)
    if zi2 is not None and zi2[3] in _CALL_ZONE_INDEX2:
        return _CALL_ZONE_INDEX2[zi2[3]](fn, zi2[0], zi2[1], zi2[2])
    return None


def _index_fast(base: Callable, index: Callable) -> Callable:
    """``base[index]`` as one closure reading both operands inline (the fast compiler's index)."""
    bk, b = _operand(base)
    ik, i = _operand(index)
    inner = getattr(base, "zone_index", None)
    if inner is not None and (inner[2], ik) in _ZONE_INDEX2:  # `flight[current][i]`
        f = _ZONE_INDEX2[inner[2], ik](inner[0], inner[1], i)
        f.zone_index2 = (inner[0], inner[1], i, (inner[2], ik))  # lets a call fuse with it
        return f
    f = _index_fast_read(base, bk, b, index, ik, i)
    if bk == "zone" and ik in ("const", "local", "current"):
        f.zone_index = (b, i, ik)  # lets a second index fuse with this one
    return f


def _index_fast_read(base: Callable, bk: str, b: Any, index: Callable, ik: str, i: Any) -> Callable:
    if bk == "zone":
        if ik == "const":
            return lambda env: env.zones[b][i]
        if ik == "local":
            return lambda env: env.zones[b][env.loc[i]]
        if ik == "current":
            return lambda env: env.zones[b][env.state.current]
        return lambda env: env.zones[b][index(env)]
    if bk == "var":
        if ik == "const":
            return lambda env: env.vars[b][i]
        if ik == "local":
            return lambda env: env.vars[b][env.loc[i]]
        if ik == "current":
            return lambda env: env.vars[b][env.state.current]
        return lambda env: env.vars[b][index(env)]
    if bk == "local":
        if ik == "const":
            return lambda env: env.loc[b][i]
        if ik == "local":
            return lambda env: env.loc[b][env.loc[i]]
        if ik == "current":
            return lambda env: env.loc[b][env.state.current]
        return lambda env: env.loc[b][index(env)]
    if ik == "const":
        return lambda env: base(env)[i]
    if ik == "local":
        return lambda env: base(env)[env.loc[i]]
    if ik == "current":
        return lambda env: base(env)[env.state.current]
    return lambda env: base(env)[index(env)]


def compile_expression(text: Any, scope: Scope, mark: Mark | None = None) -> Compiled:
    """Parse and compile ``text`` for ``scope``.

    A non-string YAML scalar (a number, a boolean) compiles to a constant.

    Raises:
        ExpressionSyntaxError: the text does not parse.
        CompileError: an unknown name, function or field, or a wrong number of arguments.
    """
    if isinstance(text, bool) or text is None or isinstance(text, (int, float)):
        value = text
        return Compiled(_const(value), repr(text), mark, constant=value)
    if not isinstance(text, str):
        from .errors import CompileError

        raise CompileError(f"expected an expression, found {type(text).__name__}", mark)
    tree = parse(text, mark)
    compiler = _Compiler(text, mark, fast=True)
    compiler._scope_functions = scope.functions
    try:
        fn = compiler.c(tree, scope)
    except RecursionError:  # within MAX_NESTING, but functions called in place nest deeper still
        raise ExpressionSyntaxError(
            f"expression `{_shorten(text)}` nests too deeply, with the bodies of the functions it calls", mark
        ) from None
    return Compiled(fn, text, mark, constant=getattr(fn, "constant", None), source=(tree, scope))


_TEMPLATE_PART = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")


def compile_template(text: str, scope: Scope, mark: Mark | None = None) -> Callable[[Env], str]:
    """Compile a text template: ``{expr}`` parts are expressions, ``{{``/``}}`` literal braces.

    Returns ``f(env) -> str``; values are shown with :func:`interpreter.model.render`.

    Raises:
        ExpressionSyntaxError, CompileError: as :func:`compile_expression`, for a part.
    """
    if not isinstance(text, str):
        text = render(text)
    parts: list = []
    pos = 0
    for m in _TEMPLATE_PART.finditer(text):
        if m.start() > pos:
            parts.append(text[pos : m.start()])
        token = m.group(0)
        if token == "{{":
            parts.append("{")
        elif token == "}}":
            parts.append("}")
        else:
            inner_mark = mark.shifted(m.start(1)) if mark else None
            parts.append(compile_expression(m.group(1), scope, inner_mark))
        pos = m.end()
    if pos < len(text):
        parts.append(text[pos:])
    if all(isinstance(p, str) for p in parts):
        constant = "".join(parts)
        return lambda env: constant

    def template(env):
        return "".join(p if type(p) is str else render(p(env)) for p in parts)

    return template
