"""The code generator's vocabulary: the namespace a generated function runs in (:class:`_Ns`),
the fragment of Python source an expression becomes with what is inferred of its value
(:class:`Frag`: its constant, if any, and a bound on the bits of a whole number), the limits of
unrolling and folding, and the small readers of the parse tree that the generator, the
statement forms and the reference evaluator share (:func:`range_arguments`,
:func:`call_arguments`).

Nothing here writes code; :mod:`interpreter.lang.genexpr` (expression forms),
:mod:`interpreter.lang.genstmt` (statement forms) and :mod:`interpreter.lang.codegen` (the entry
points) do.  Why the generated code is safe is said in :mod:`interpreter.lang.codegen`.
"""

from __future__ import annotations

import re
from typing import Any

from .runtime import HELPERS, _check_int

#: What one call of a ruleset function charges to the work budget (a call costs about ten loop
#: items' time).
CALL_COST = 10

#: False: a component's field is read with the class test even where the value is known to be
#: a component (``Frag.comp``); the tests compare both ways.
COMPONENTS = True

#: Most items unrolled from a loop over a constant collection (nested loops multiply).
MAX_UNROLL = 64

#: Largest constant folded at load (items): bigger results are computed when used.
MAX_FOLD_ITEMS = 4096

#: Around a ruleset function's body written out in place (see ``ExpressionForms._inline``): a
#: character no generated source holds otherwise (constants are written through ``repr``,
#: which escapes it), removed by the caller that charges the call.
INLINE_MARK = "\x00"

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_LOCAL = re.compile(r"(l_[A-Za-z0-9_]*|o_[0-9]+)\Z")  # a Python local: a bound name, or a hoisted frame local
_SIMPLE = re.compile(r"(l_[A-Za-z0-9_]*|o_[0-9]+|loc\['[A-Za-z0-9_]*'\])\Z")
_PROLOGUE = (("loc", "loc = env.loc"), ("Z", "Z = env.zones"), ("V", "V = env.vars"), ("CUR", "CUR = env.state.current"),
             ("P", "P = env.state.props"))
_NOCONST = object()


def range_arguments(node, scope) -> list | None:
    """The argument nodes of ``node`` when it is a call of the builtin ``range`` with one to
    three positional arguments (a comprehension's ``for`` then iterates it without building
    it), else None."""
    if getattr(node, "data", None) != "call" or str(node.children[0]) != "range":
        return None
    if scope.functions and "range" in scope.functions:
        return None
    positional, keywords, misplaced = call_arguments(node.children[1])
    if keywords or misplaced is not None or not 1 <= len(positional) <= 3:
        return None
    return positional


def small_range(args: list) -> bool:
    """True when ``range(*args)`` (constant arguments) is folded to a constant at load: a valid
    range of at most MAX_FOLD_ITEMS numbers."""
    try:
        return len(range(*args)) <= MAX_FOLD_ITEMS
    except (TypeError, ValueError, OverflowError):
        return False


def _max_bits(a: Frag, b: Frag) -> int | None:
    """The bound of a value that is one of ``a`` and ``b``: the larger, when both are known."""
    if a.bits is None or b.bits is None:
        return None
    return max(a.bits, b.bits)


def _small_const(f: Frag) -> bool:
    """A constant of at most MAX_FOLD_ITEMS items (a copy of it is as cheap as a list written out)."""
    return f.const and (not hasattr(f.value, "__len__") or len(f.value) <= MAX_FOLD_ITEMS)


#: Builtins whose result is a whole number of at most this many bits, whatever their arguments
#: (a length or a position is below 2**63; a sign is -1, 0 or 1).
_INT_RESULTS = {"len": 63, "count": 63, "index": 63, "sign": 1}

#: Builtins whose cost grows with their argument: the argument is charged to the budget.
_LINEAR = frozenset({"all", "any", "count", "distinct", "index", "list", "max", "min", "reversed", "sorted", "sum"})

#: Builtins whose result is a new list of (at most) their argument's items: the argument, or
#: their generator's loops, charged to the memory budget too (``H_itm``).
ALLOCATING = frozenset({"distinct", "list", "reversed", "sorted"})


class _Ns:
    """The namespace of one generated function: helpers plus constants under generated names."""

    def __init__(self, extra: dict | None = None):
        self.d: dict[str, Any] = {"__builtins__": {}}
        self.d.update(HELPERS)
        if extra:
            self.d.update(extra)
        self.n = 0
        self.ids: dict[int, str] = {}

    def const(self, value: Any) -> str:
        """Python source for ``value``: its ``repr`` for plain scalars, else a namespace name."""
        t = type(value)
        if value is None or t is bool or t is str:
            return repr(value)
        if t is int:
            _check_int(value)
            return repr(value) if value >= 0 else f"({value!r})"
        if t is float:
            if value != value or value in (float("inf"), float("-inf")):
                return self.bind(value)
            return repr(value) if value >= 0 else f"({value!r})"
        return self.bind(value)

    def bind(self, obj: Any, prefix: str = "K") -> str:
        key = id(obj)
        name = self.ids.get(key)
        if name is None:
            self.n += 1
            name = f"{prefix}{self.n}"
            self.ids[key] = name
            self.d[name] = obj
        return name


class Frag:
    """A generated Python expression: ``src``, and its value when it is a constant.

    ``bits``: when the value is known to be a whole number (an ``int`` or a ``bool``) whatever
    the state, a bound on its ``bit_length()`` (None: not known), inferred from the parse tree:
    a constant, a comparison, ``len``/``count``/``index``/``sign``, and sums, differences and
    products of such.  The generator leaves out the size checks (``H_add``, ``H_mul``) that
    such operands can never trigger.

    ``zdepth``: when the value is a zone's own value or part of it, how many indexes lead to a
    list of components (0: it is such a list, the zone's leaf; None: not known).  A zone's
    lists hold components and nothing else (moves put only components there), so the items of
    a leaf, and the names a loop over one binds, are components: ``comp``.  The generator reads
    a component's fields without the class test then (:meth:`ExpressionForms.g_attr`).  Both
    are inferred from the parse tree: a zone's name (its declared depth; a keyed zone is not
    followed), an index of such a value, a comprehension over a leaf, and a list comprehension
    whose items are components.

    ``ndepth``: a hint, how many indexes lead from the value to a number (0: a number), read
    from a variable's declared initial value (see :func:`numeric_depth`); see :attr:`num`.

    ``truth``: the value is ``True`` or ``False`` itself (a comparison, a ``not``, an ``any``
    or ``all``), so a chain of such values needs no conversion to a truth value.
    """

    __slots__ = ("src", "value", "charged", "bits", "zdepth", "comp", "ndepth", "truth")

    def __init__(self, src: str, value: Any = _NOCONST, bits: int | None = None, zdepth: int | None = None,
                 comp: bool = False, ndepth: int | None = None, truth: bool = False):
        self.src = src
        self.value = value
        self.charged = False  # a generator whose loops charge the work budget themselves
        t = type(value)
        self.bits = abs(value).bit_length() if t is int or t is bool else bits
        self.zdepth = zdepth
        self.comp = comp
        self.ndepth = ndepth
        self.truth = truth or type(value) is bool

    @property
    def num(self) -> bool:
        """A hint that the value is a number (a variable declared with a whole number there):
        the size check of a sum is then written without its class test.  Only a hint, never
        trusted for a value: the check compares the result with whole numbers, which raises
        TypeError for anything but a number, and the checked evaluator then evaluates the
        expression again (see :meth:`~interpreter.lang.genexpr.ExpressionForms._sum`)."""
        return self.ndepth == 0 or self.bits is not None

    @property
    def const(self) -> bool:
        return self.value is not _NOCONST


def _chain(node, kind: str) -> list:
    """The operands of a chain of ``and`` (or of ``or``), left to right: ``(a or b) or c`` is
    ``a or b or c`` in value and order of evaluation."""
    out = []
    for ch in node.children:
        if getattr(ch, "data", "").rstrip("_") == kind:
            out += _chain(ch, kind)
        else:
            out.append(ch)
    return out


def call_arguments(argnode) -> tuple[list, list, Any]:
    """A call's argument nodes, as both evaluators read them: (the positional ones, the
    ``(keyword, node)`` pairs, the first positional node that follows a keyword or None)."""
    positional, keywords, misplaced = [], [], None
    for ch in argnode.children if argnode is not None else ():
        if ch is None:
            continue
        if getattr(ch, "data", None) == "kwarg":
            keywords.append((str(ch.children[0]), ch.children[1]))
        elif keywords:
            misplaced = misplaced or ch
        else:
            positional.append(ch)
    return positional, keywords, misplaced


class GenerationFailed(Exception):
    """The tree has a form the generator does not handle: the closure evaluator runs it."""


def numeric_depth(value: Any) -> int | None:
    """How many indexes lead from ``value`` (a variable's declared initial value) to a whole
    number: 0 for a whole number, 1 for a non-empty list of them, 2 for a list of such lists...;
    None for anything else (a boolean, a text, an empty or mixed list).  A hint for the code
    generator (:attr:`Frag.num`), never a promise: a ruleset may set another value later."""
    if type(value) is int:
        return 0
    if type(value) is list and value:
        depths = {numeric_depth(x) for x in value}
        if len(depths) == 1:
            (d,) = depths
            return None if d is None else d + 1
    return None
