"""The code generator: a ruleset's expressions, templates, ruleset functions and decisions' legal
action listings become Python source, compiled once at load.

Why: a tree of closures costs one Python call per syntax node per item; generated source runs
as one Python function, with comprehensions as Python's own comprehensions, names bound by
``for`` as Python locals, and loops over constant collections unrolled
(``any(all(board[i] == current for i in line) for line in lines)`` with constant ``lines``
becomes eight ``and`` chains of constant indexes).

Why it is safe (the argument Jinja2 makes for its templates, and the one ``dataclasses`` makes
for the ``__init__`` it builds):

* The source is generated from the **validated, name-resolved parse tree**, never from ruleset
  text: every syntax node maps to a fixed Python form written here.
* **Every identifier is the generator's own**: Python names are ``l_`` plus a name the grammar
  accepted (``[A-Za-z_][A-Za-z0-9_]*``, checked again here) or a counter; state is reached
  through ``env`` (``Z['hand']`` is a dict read with a ``repr()`` key, not an identifier made
  from the zone's name); fields are read as ``o.fields['rank']``; helpers and constants are
  ``H_*`` and ``K*`` names bound in the function's own namespace.
* **Every constant is emitted with ``repr()``** of the parsed value (ints, floats, strings,
  booleans, None) or, for anything else (lists, components), bound in the namespace under a
  generated name: no ruleset text is pasted into the source as code.
* The code runs with **empty ``__builtins__``** and a namespace holding only the engine's
  helpers: there is no ``open``, ``__import__``, ``getattr`` or ``eval`` to reach.

``tests/lang/test_codegen.py`` tries to inject code through every place a ruleset puts text
(names, strings with quotes, backslashes, newlines and Unicode, fields, zones, parameters,
labels, templates) and checks that a canary file never appears.

Errors stay precise: the generated function is the fast path of a
:class:`~interpreter.lang.expression.Compiled`; when it raises, the expression is evaluated again
through the checked closure evaluator (the reference implementation, every node its own
closure with its own checks), which raises the error naming the expression and its
file:line:column.  ``tests/lang/test_codegen.py`` plays thousands of random games with both and
compares them.

Statements, not one expression: a ruleset function's or an expression's body is written as
Python statements where that saves calls (:meth:`_Gen.body`): ``and``/``or`` chains and
conditionals become ``if`` statements, ``any``/``all`` of a generator a ``for`` loop that
returns (or breaks) at the deciding item, and what the expression evaluates first — a
comprehension's first iterable, a charged builtin's list argument, the list a membership test
searches, the operands of ``+`` and of a comparison — is evaluated into a name (``s_`` and a
counter, the generator's own) and charged by a subtraction and a test written out, in the
expression's order of evaluation, so every charge falls at the same point as in the expression
form (``STATEMENTS = False`` generates that form; ``tests/lang/test_codegen_statements.py``
checks both agree in value, error and every charge).

Work budget: each loop (a comprehension's ``for``, an O(n) builtin over a list, a membership
test against a list that is not a constant) charges the number of items to ``env.left``; a
ruleset function call charges ``CALL_COST``.  When ``env.left`` falls below zero :class:`WorkExceeded`
is raised and becomes an :class:`~interpreter.errors.ExpressionError` naming the limit
(``limits: {work: N}``).  The runner refills ``env.left`` at every move and every listing of
legal actions.

Memory budget: what an evaluation allocates is charged to ``env.mem`` (items of a list,
characters of a text), refilled with ``env.left``; below zero :class:`MemoryExceeded` is raised
(``limits: {memory: N}``).  The charges ride on calls the code makes anyway, so the common case
pays one subtraction: a loop whose items become a new list (a list comprehension, the generator
of ``sorted``/``list``/``reversed``/``distinct``, their list argument) is charged by ``H_itm``
instead of ``H_it`` (to work and memory alike: an upper bound of the list it builds);
``range`` by ``H_range`` before it is materialised; ``+`` of texts or lists by ``H_grow``,
``*`` by ``H_mulm``, a slice by ``H_slice``, ``str`` by ``H_str``, a template by its length.
A mutable property of a component is read inline from ``env.state.props`` (``H_mattr`` only
for something that is not a component of a kind with that property).  Size checks are left out
where the inferred bounds of whole numbers rule them out (see :class:`Frag`), and a product with
one bounded operand is checked by one comparison of the other.  The helpers themselves live in
:mod:`interpreter.lang.runtime`.
A constant (a list written out, folded at load) costs nothing at run time; a list or tuple
written out with computed items is bounded by the expression's length and is not charged.
"""

from __future__ import annotations

import operator
import re
import warnings
from typing import Any

from ..errors import Mark
from ..loader.maps import GameMap
from ..model import Action
from .builtins import BUILTINS, MAX_INT_BITS, _mul, unescape
from .runtime import (  # noqa: F401 - re-exported: the reference evaluator and the engine import them from here
    _BIG,
    HELPERS,
    MemoryExceeded,
    WorkExceeded,
    _add,
    _addm,
    _attr,
    _charge,
    _check_int,
    _grow,
    _it,
    _itm,
    _lazy_range,
    _mattr,
    _mod,
    _mulm,
    _over,
    _range,
    _slice,
    _str,
    template_oom,
)

__all__ = ["WorkExceeded", "MemoryExceeded", "generate_expression", "generate_template", "generate_legal", "FunctionTable"]


#: What one call of a ruleset function charges to the work budget (a call costs about ten loop
#: items' time).
CALL_COST = 10

#: Most items unrolled from a loop over a constant collection (nested loops multiply).
MAX_UNROLL = 64

#: Largest constant folded at load (items): bigger results are computed when used.
MAX_FOLD_ITEMS = 4096

#: Where the ruleset being compiled collects its generated sources, (place, source) pairs
#: (set by the compiler; ``Ruleset.sources``, which ``tapster info --source`` prints).
SINK: list | None = None

#: Where the generator gave up and the closure evaluator runs instead: (place, why); a test
#: checks that no shipped ruleset has any.
FALLBACKS: list[tuple[str, str]] = []

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_LOCAL = re.compile(r"l_[A-Za-z0-9_]*\Z")
_SIMPLE = re.compile(r"(l_[A-Za-z0-9_]*|loc\['[A-Za-z0-9_]*'\])\Z")
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
    """

    __slots__ = ("src", "value", "charged", "bits")

    def __init__(self, src: str, value: Any = _NOCONST, bits: int | None = None):
        self.src = src
        self.value = value
        self.charged = False  # a generator whose loops charge the work budget themselves
        t = type(value)
        self.bits = abs(value).bit_length() if t is int or t is bool else bits

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


class _Gen:
    """Generates the Python expression for a parse tree in a :class:`Scope`.

    ``bound`` maps local names to the Python names the generated code binds them to
    (comprehension targets, option names, function parameters); other local names are read
    from ``loc`` (the frame's dict), global names through ``env``.
    """

    def __init__(self, ns: _Ns, functions: FunctionTable | None):
        self.ns = ns
        self.functions = functions
        self.uses: set[str] = set()
        self.counter = 0
        self.hoist_current = True  # False where `current` may change (the flow's runs)
        self.in_iterable = 0  # > 0 inside a comprehension's `in` part, where Python allows no `:=`
        self.temps = 0

    def prologue(self) -> list[str]:
        """The lines that read what the generated code uses from ``env`` once, at its start
        (nothing an expression or a listing evaluates changes them)."""
        return [line for key, line in _PROLOGUE if key in self.uses]

    def pyname(self, name: str) -> str:
        self.counter += 1
        if _IDENT.match(name):
            return f"l_{name}_{self.counter}"
        return f"l_{self.counter}"

    def g(self, node, scope, bound: dict) -> Frag:
        if not hasattr(node, "data"):  # a token, not a tree
            raise GenerationFailed(node)
        method = getattr(self, "g_" + node.data.rstrip("_"), None)
        if method is None:
            raise GenerationFailed(node.data)
        return method(node, scope, bound)

    # literals ------------------------------------------------------------------------------
    def g_number(self, node, scope, bound):
        text = str(node.children[0])
        value = float(text) if "." in text else int(text)
        return Frag(self.ns.const(value), value)

    def g_string(self, node, scope, bound):
        value = unescape(node.children[0][1:-1])
        return Frag(repr(value), value)

    def g_true(self, node, scope, bound):
        return Frag("True", True)

    def g_false(self, node, scope, bound):
        return Frag("False", False)

    def g_none(self, node, scope, bound):
        return Frag("None", None)

    def _items(self, node, scope, bound) -> list[Frag]:
        if node is None:
            return []
        return [self.g(ch, scope, bound) for ch in node.children if ch is not None]

    def g_list(self, node, scope, bound):
        items = self._items(node.children[0], scope, bound)
        if items and all(f.const for f in items):
            value = [f.value for f in items]
            return Frag(self.ns.bind(value), value)
        return Frag("[" + ", ".join(f.src for f in items) + "]")

    def g_tuple(self, node, scope, bound):
        items = [self.g(node.children[0], scope, bound), *self._items(node.children[1], scope, bound)]
        if all(f.const for f in items):
            value = tuple(f.value for f in items)
            return Frag(self.ns.bind(value), value)
        return Frag("(" + "".join(f.src + ", " for f in items) + ")")

    def g_dict(self, node, scope, bound):
        pairs = []
        if node.children[0] is not None:
            for pair in node.children[0].children:
                pairs.append((self.g(pair.children[0], scope, bound), self.g(pair.children[1], scope, bound)))
        return Frag("{" + ", ".join(f"{k.src}: {v.src}" for k, v in pairs) + "}")

    # names ---------------------------------------------------------------------------------
    def g_name(self, node, scope, bound):
        name = str(node.children[0])
        if name in bound:
            b = bound[name]
            if isinstance(b, Frag):  # a constant bound by unrolling
                return b
            return Frag(b)
        if name in scope.locals:
            self.uses.add("loc")
            return Frag(f"loc[{name!r}]")
        getter = scope.resolve(name)
        if getter is None:
            raise GenerationFailed(name)  # the closure compiler reports the unknown name
        if hasattr(getter, "constant"):
            value = getter.constant
            return Frag(self.ns.const(value), value)
        reads = getattr(getter, "reads", None)
        if reads is not None:
            kind, rname = reads
            if kind == "zone":
                self.uses.add("Z")
                return Frag(f"Z[{rname!r}]")
            if kind == "var":
                self.uses.add("V")
                return Frag(f"V[{rname!r}]")
            if kind == "current":
                if not self.hoist_current:
                    return Frag("env.state.current")
                self.uses.add("CUR")
                return Frag("CUR")
        return Frag(f"{self.ns.bind(getter, 'G')}(env)")

    # operators -----------------------------------------------------------------------------
    def g_ternary(self, node, scope, bound):
        a, cond, b = (self.g(ch, scope, bound) for ch in node.children)
        if cond.const:
            return a if cond.value else b
        return Frag(f"({a.src} if {cond.src} else {b.src})", bits=_max_bits(a, b))

    def g_or(self, node, scope, bound):
        a, b = (self.g(ch, scope, bound) for ch in node.children)
        return Frag(f"({a.src} or {b.src})", bits=_max_bits(a, b))

    def g_and(self, node, scope, bound):
        a, b = (self.g(ch, scope, bound) for ch in node.children)
        return Frag(f"({a.src} and {b.src})", bits=_max_bits(a, b))

    def g_not(self, node, scope, bound):
        a = self.g(node.children[0], scope, bound)
        return Frag(f"(not {a.src})", bits=1)

    def g_compare(self, node, scope, bound):
        children = node.children
        parts = [self.g(children[0], scope, bound).src]
        ops = []
        for i in range(1, len(children), 2):
            op = " ".join(str(t) for t in children[i].children)
            right = self.lazy_range(children[i + 1], scope, bound) if op in ("in", "not in") else None
            if right is None:
                right = self.g(children[i + 1], scope, bound)
            if op in ("is", "is not"):
                ops.append((op, right))
                continue
            if op in ("in", "not in") and not right.const:
                parts.append(f"{op} H_it(env, {right.src})")
            else:
                parts.append(f"{op} {right.src}")
            ops.append((op, right))
        if any(op in ("is", "is not") for op, _ in ops):
            return self._chain_with_is(children, scope, bound)
        return Frag("(" + " ".join(parts) + ")", bits=1)

    def _chain_with_is(self, children, scope, bound) -> Frag:
        """A comparison using ``is``: the language's ``same`` (see interpreter/lang/builtins.py).
        ``a is none`` (the common case) is Python's own ``is``, which agrees with it there."""
        frags = [self.g(children[i], scope, bound) for i in range(0, len(children), 2)]
        opers = [" ".join(str(t) for t in children[i].children) for i in range(1, len(children), 2)]
        if len(opers) == 1:
            (op,), (a, b) = opers, frags
            if b.src == "None" or a.src == "None":
                return Frag(f"({a.src} {op} {b.src})", bits=1)
            neg = "not " if op == "is not" else ""
            return Frag(f"({neg}H_same({a.src}, {b.src}))", bits=1)
        raise GenerationFailed("a chain of comparisons with `is`")  # rare: the reference runs it

    def _fold(self, fn, *args: Frag) -> Frag | None:
        """``fn`` of constant operands computed now (``k + 1``, ``range(1, k + 1)`` with ``k``
        unrolled), or None when an operand is not constant or the operation fails (it then
        fails when evaluated, with the expression's place)."""
        if not all(a.const for a in args):
            return None
        try:
            value = fn(*[a.value for a in args])
        except Exception:  # noqa: BLE001 - raised with the expression's mark when evaluated
            return None
        if hasattr(value, "__len__") and len(value) > MAX_FOLD_ITEMS:
            return None
        return Frag(self.ns.const(value), value)

    def _binary(self, node, scope, bound, op: str, helper: str | None, safe_const: bool, fn):
        a, b = (self.g(ch, scope, bound) for ch in node.children)
        folded = self._fold(fn, a, b)
        if folded is not None:
            return folded
        if helper is None or (safe_const and (type(b.value) in (int, float) or type(a.value) in (int, float))):
            bits = None
            if a.bits is not None and b.bits is not None and op in "+-":
                bits = max(a.bits, b.bits) + 1
            return Frag(f"({a.src} {op} {b.src})", bits=bits)
        return Frag(f"{helper}({a.src}, {b.src})")

    def temp(self) -> str | None:
        """A fresh Python name for ``:=`` (the generator's own: ``w_`` and a counter), or None
        inside a comprehension's ``in`` part, where Python allows no ``:=``."""
        if self.in_iterable:
            return None
        self.temps += 1
        return f"w_{self.temps}"

    def g_add(self, node, scope, bound):
        a, b = (self.g(ch, scope, bound) for ch in node.children)
        return self._add(a, b)

    def _add(self, a: Frag, b: Frag) -> Frag:
        """``a + b`` with the size check its operands can trigger (none for two bounded whole
        numbers, an inline test of the result otherwise, ``H_add`` where no ``:=`` is allowed)."""
        folded = self._fold(_add, a, b)
        if folded is not None:
            return folded
        if a.bits is not None and b.bits is not None and max(a.bits, b.bits) < MAX_INT_BITS:
            # two whole numbers that cannot reach the limit (H_add could never raise)
            return Frag(f"({a.src} + {b.src})", bits=max(a.bits, b.bits) + 1)
        if type(b.value) in (int, float) or type(a.value) in (int, float):
            return Frag(f"({a.src} + {b.src})")  # a number and a constant: no list or text grows
        t = self.temp()
        if t is None:
            return Frag(f"H_add(env, {a.src}, {b.src})")
        # H_add's check inline: a whole number within the limit passes, anything else is checked
        return Frag(f"({t} if ({t} := ({a.src} + {b.src})).__class__ is H_int and -H_BIG <= {t} <= H_BIG else H_grow({t}, env))")

    def g_sub(self, node, scope, bound):
        return self._binary(node, scope, bound, "-", None, False, operator.sub)

    def g_mul(self, node, scope, bound):
        a, b = (self.g(ch, scope, bound) for ch in node.children)
        folded = self._fold(_mul, a, b)
        if folded is not None:
            return folded
        helper = "H_mulm"
        if a.bits is not None and b.bits is not None and a.bits + b.bits <= MAX_INT_BITS:
            # whole numbers whose product cannot pass the limit (H_mul could never raise)
            return Frag(f"({a.src} * {b.src})", bits=a.bits + b.bits)
        if b.bits is not None and b.bits < MAX_INT_BITS and len(b.src) <= 200:
            # H_mul raises for whole numbers only when a.bit_length() + b.bit_length() passes the
            # limit: with b's bound known, one comparison of a decides (b is evaluated once, in
            # whichever branch runs, after a, as in the call)
            t = a.src if _SIMPLE.match(a.src) else self.temp()
            if t is not None:
                first = t if t == a.src else f"({t} := {a.src})"
                lim = self.ns.bind(1 << (MAX_INT_BITS - b.bits), "LIM")
                return Frag(f"({t} * {b.src} if {first}.__class__ is H_int and -{lim} < {t} < {lim}"
                            f" else {helper}(env, {t}, {b.src}))")
        if a.bits is not None and a.bits < MAX_INT_BITS and (a.const or _LOCAL.match(a.src)):
            # the same with a's bound known (a constant or a Python local, whose reading cannot
            # fail, so a is as good as evaluated before b): one comparison of b decides
            t = b.src if _SIMPLE.match(b.src) else self.temp()
            if t is not None:
                second = t if t == b.src else f"({t} := {b.src})"
                lim = self.ns.bind(1 << (MAX_INT_BITS - a.bits), "LIM")
                return Frag(f"({a.src} * {t} if {second}.__class__ is H_int and -{lim} < {t} < {lim}"
                            f" else {helper}(env, {a.src}, {t}))")
        return Frag(f"{helper}(env, {a.src}, {b.src})")

    def g_div(self, node, scope, bound):
        return self._binary(node, scope, bound, "/", None, False, operator.truediv)

    def g_floordiv(self, node, scope, bound):
        return self._binary(node, scope, bound, "//", None, False, operator.floordiv)

    def g_mod(self, node, scope, bound):
        a, b = (self.g(ch, scope, bound) for ch in node.children)
        folded = self._fold(_mod, a, b)
        if folded is not None:
            return folded
        if type(b.value) is int and type(a.value) is not str:
            return Frag(f"({a.src} % {b.src})")
        return Frag(f"H_mod({a.src}, {b.src})")

    def g_pow(self, node, scope, bound):
        raise GenerationFailed("pow")  # rare: the checked closure (with its limits) runs it

    def g_neg(self, node, scope, bound):
        a = self.g(node.children[0], scope, bound)
        if type(a.value) in (int, float):
            return Frag(self.ns.const(-a.value), -a.value)
        return Frag(f"(-{a.src})", bits=a.bits)

    def g_pos(self, node, scope, bound):
        a = self.g(node.children[0], scope, bound)
        return Frag(f"(+{a.src})")

    # access --------------------------------------------------------------------------------
    def g_attr(self, node, scope, bound):
        obj = self.g(node.children[0], scope, bound)
        name = str(node.children[1])
        if scope.attributes is not None and name not in scope.attributes:
            raise GenerationFailed(name)  # the closure compiler reports it
        if name in scope.mutable:
            if not _SIMPLE.match(obj.src):
                return Frag(f"H_mattr(env, {obj.src}, {name!r})")
            # H_mattr's common case inline: a component whose kind has the property reads it
            # from the state's properties, anything else goes through H_mattr
            if self.hoist_current:
                self.uses.add("P")
                props = "P"
            else:
                props = "env.state.props"
            o = obj.src
            return Frag(f"({props}[{o}.index][{name!r}] if {o}.__class__ is H_Component and {name!r} in {o}.mutable"
                        f" else H_mattr(env, {o}, {name!r}))")
        if _SIMPLE.match(obj.src):  # read twice at no cost: the common case inline
            return Frag(f"({obj.src}.fields[{name!r}] if {obj.src}.__class__ is H_Component else H_attr({obj.src}, {name!r}))")
        return Frag(f"H_attr({obj.src}, {name!r})")

    def g_index(self, node, scope, bound):
        obj = self.g(node.children[0], scope, bound)
        idx = self.g(node.children[1], scope, bound)
        if obj.const and idx.const:
            try:
                value = obj.value[idx.value]
            except Exception:  # noqa: BLE001 - the evaluation raises it with the expression's mark
                pass
            else:
                return Frag(self.ns.const(value), value)
        return Frag(f"{obj.src}[{idx.src}]")

    def g_slice(self, node, scope, bound):
        obj = self.g(node.children[0], scope, bound)
        lo = self.g(node.children[1], scope, bound).src if node.children[1] is not None else "None"
        hi = self.g(node.children[2], scope, bound).src if node.children[2] is not None else "None"
        return Frag(f"H_slice(env, {obj.src}, {lo}, {hi})")

    # calls ---------------------------------------------------------------------------------
    def _function(self, name: str, scope):
        fn = scope.functions.get(name) if scope.functions else None
        if fn is None:
            fn = BUILTINS.get(name)
        if fn is None:
            raise GenerationFailed(name)
        return fn

    def _emit_call(self, name: str, builtin, args: list[Frag], kwargs: dict[str, Frag]) -> Frag:
        lo, hi = builtin.arity
        if not (lo <= len(args) and (hi is None or len(args) <= hi)):
            raise GenerationFailed(name)  # the closure compiler reports the arity
        if getattr(builtin, "body", None) is not None and self.functions is not None and not kwargs:
            fname = self.functions.register(name, builtin)
            self.ns.d["FN"] = self.functions
            return Frag(f"FN.{fname}(env{''.join(', ' + a.src for a in args)})")
        pure = BUILTINS.get(name) is builtin and not builtin.needs_env
        if pure and all(a.const for a in args) and all(v.const for v in kwargs.values()):
            try:
                value = builtin.fn(*[a.value for a in args], **{k: v.value for k, v in kwargs.items()})
            except Exception:  # noqa: BLE001 - not folded: raised with the expression's mark when run
                value = _NOCONST
            if value is not _NOCONST and (not hasattr(value, "__len__") or len(value) <= MAX_FOLD_ITEMS):
                return Frag(self.ns.const(value), value)
        if type(args[0].value if args else None) is GameMap and BUILTINS.get(name) is builtin and not kwargs:
            inline = self._map_read(name, args)
            if inline is not None:
                return inline
        srcs = [a.src for a in args]
        iterable_first = name not in ("max", "min") or len(args) == 1  # max(a, b) takes no list
        if pure and name in _LINEAR and iterable_first and srcs and not args[0].charged:
            if name in ALLOCATING and not _small_const(args[0]):  # a new list of the argument's items
                srcs[0] = f"H_itm(env, {srcs[0]})"
            elif not args[0].const:
                srcs[0] = f"H_it(env, {srcs[0]})"
        if pure and name in ("range", "str") and not kwargs:  # the result charged to memory (range before it is built)
            return Frag(f"H_{name}(env, {', '.join(srcs)})")
        if builtin.needs_env:
            srcs.insert(0, "env")
        srcs.extend(f"{k}={v.src}" for k, v in kwargs.items() if _IDENT.match(k))
        bits = _INT_RESULTS.get(name) if BUILTINS.get(name) is builtin else None
        if name == "abs" and BUILTINS.get(name) is builtin and len(args) == 1:
            bits = args[0].bits
        return Frag(f"{self.ns.bind(builtin.fn, 'B')}({', '.join(srcs)})", bits=bits)

    def _map_read(self, name: str, args: list[Frag]) -> Frag | None:
        """A map builtin of a constant map as a read of the map's frozen data (see
        :class:`~interpreter.loader.maps.GameMap`), or None.  A node that is not on the map, or a
        value that cannot be a key, raises KeyError or TypeError here, and the checked evaluator
        then gives the builtin's own error, as for any generated expression."""
        gm = args[0].value
        if name == "edge" and len(args) == 4:
            pairs = gm.all_pairs()
            if pairs is None:
                return None
            a, b, attr = (x.src for x in args[1:])
            return Frag(f"{self.ns.bind(pairs, 'MAP')}[{a}][{b}].get({attr})")
        if name == "node_attr" and len(args) == 3:
            return Frag(f"{self.ns.bind(gm.node_data, 'MAP')}[{args[1].src}].get({args[2].src})")
        if name == "neighbors" and len(args) == 2:
            return Frag(f"{self.ns.bind(gm.sorted_adj, 'MAP')}[{args[1].src}][:]")
        return None

    def g_call(self, node, scope, bound):
        name_tok, argnode = node.children
        name = str(name_tok)
        builtin = self._function(name, scope)
        positional, keywords, misplaced = call_arguments(argnode)
        if misplaced is not None:
            raise GenerationFailed("positional after keyword")  # the reference evaluator reports it
        args = [self.g(ch, scope, bound) for ch in positional]
        kwargs = {k: self.g(v, scope, bound) for k, v in keywords}
        return self._emit_call(name, builtin, args, kwargs)

    def g_call_gen(self, node, scope, bound):
        name_tok, elt, clauses = node.children
        name = str(name_tok)
        builtin = self._function(name, scope)
        if name in ("any", "all", "sum") and BUILTINS.get(name) is builtin:
            unrolled = self._unroll(name, elt, clauses.children, scope, bound)
            if unrolled is not None:
                return unrolled
        alloc = name in ALLOCATING and BUILTINS.get(name) is builtin
        gen = self._comprehension(elt, clauses, scope, bound, "(", ")", alloc)
        gen.charged = True
        return self._emit_call(name, builtin, [gen], {})

    def g_listcomp(self, node, scope, bound):
        elt, clauses = node.children
        return self._comprehension(elt, clauses, scope, bound, "[", "]", True)

    def _loop_iterable(self, node, scope, bound, alloc: bool, single: bool) -> tuple[Frag, str | None]:
        """A comprehension's ``for`` iterable and what charges the loop over it: None (a small
        constant, free unless nested loops multiply it), ``H_it`` (work) or ``H_itm`` (work and
        memory, when its items become a new list)."""
        it = self.lazy_range(node, scope, bound)
        rargs = it
        if it is None:
            it = self.g(node, scope, bound)
        if it.const and len(it.value) <= MAX_FOLD_ITEMS:
            return it, ("H_itm" if alloc and not single else None)
        if rargs is not None and not alloc:
            return it, "H_it"
        return it, ("H_itm" if alloc else "H_it")

    def _comprehension(self, elt_node, clauses_node, scope, bound, open_: str, close: str, alloc: bool = False,
                       first: str | None = None) -> Frag:
        """A comprehension; ``alloc``: its items become a list, so its loops charge memory too.
        ``first``: the Python name holding its first loop's iterable, already evaluated and
        charged by statements before it (see :meth:`lower`)."""
        single = sum(1 for c in clauses_node.children if c.data == "comp_for") == 1
        parts = []
        inner_scope, inner_bound = scope, dict(bound)
        for clause in clauses_node.children:
            if clause.data == "comp_for":
                targets = [str(t) for t in clause.children[0].children]
                if first is not None:
                    src, first = first, None
                else:
                    self.in_iterable += 1
                    try:
                        it, charge = self._loop_iterable(clause.children[1], inner_scope, inner_bound, alloc, single)
                    finally:
                        self.in_iterable -= 1
                    src = f"{charge}(env, {it.src})" if charge else it.src
                inner_scope = inner_scope.with_locals(targets)
                py = [self.pyname(t) for t in targets]
                for t, p in zip(targets, py):
                    inner_bound[t] = p
                target_src = py[0] if len(py) == 1 else "(" + ", ".join(py) + ",)"
                parts.append(f"for {target_src} in {src}")
            else:
                cond = self.g(clause.children[0], inner_scope, inner_bound)
                parts.append(f"if {cond.src}")
        elt = self.g(elt_node, inner_scope, inner_bound)
        return Frag(f"{open_}{elt.src} {' '.join(parts)}{close}")

    # statements -----------------------------------------------------------------------------
    def stmt_temp(self) -> str:
        """A fresh Python name for a statement's result (the generator's own: ``s_`` and a counter)."""
        self.temps += 1
        return f"s_{self.temps}"

    @staticmethod
    def charge_lines(charge: str | None, name: str) -> list[str]:
        """``H_it``/``H_itm`` of the value in ``name`` written out as statements (the same
        charges, checks and errors, without a call): a value that is not a collection is not
        charged (iterating it then gives the error)."""
        if charge is None:
            return []
        if charge == "H_it":
            return ["try:", f"    env.left -= H_len({name})", "except TypeError:", "    pass", "else:",
                    "    if env.left < 0: H_over(env)"]
        return ["try:", f"    n_{name} = H_len({name})", "except TypeError:", "    pass", "else:",
                f"    env.left -= n_{name}", f"    env.mem -= n_{name}", "    if env.left < 0: H_over(env)",
                "    if env.mem < 0: H_oom(env)"]

    def body(self, node, scope, bound) -> tuple[list[str], Frag | None]:
        """The statements of a generated function returning the value of ``node``, and the
        expression when it is a single ``return`` (its ``value`` the constant, if any).

        The lean hot path: ``a and b``, ``a or b`` and ``x if c else y`` at the top become
        ``if`` statements; ``any``/``all`` of a generator become ``for`` loops that return at
        the first item deciding them; the first loop of any other comprehension there has its
        iterable evaluated and charged by statements before it.  Every charge is the one the
        expression form makes, at the same point of the evaluation (so the budgets' errors
        come where they came), written as a subtraction and a test instead of a call."""
        r = self.lower(node, scope, bound, 0) if STATEMENTS else self.g(node, scope, bound)
        if isinstance(r, Frag):
            return [f"return {r.src}"], r
        return r, None

    def _lines(self, node, scope, bound, depth: int) -> list[str]:
        r = self.lower(node, scope, bound, depth)
        return [f"return {r.src}"] if isinstance(r, Frag) else r

    def lower(self, node, scope, bound, depth: int) -> list[str] | Frag:
        """Statements returning the value of ``node`` (see :meth:`body`), or its Frag when it
        has no statement form."""
        kind = getattr(node, "data", "")
        kind = kind.rstrip("_") if isinstance(kind, str) else ""
        if depth > 16:  # deep chains stay one expression (the statements' nesting is Python's limit too)
            return self.g(node, scope, bound)
        if kind in ("and", "or"):
            *heads, last = _chain(node, kind)
            t = self.stmt_temp()
            test = f"not {t}" if kind == "and" else t
            lines = []
            for h in heads:  # each operand into t; the first that decides is the value
                lines += [*self.lower_to(h, t, scope, bound, depth + 1), f"if {test}: return {t}"]
            return [*lines, *self._lines(last, scope, bound, depth + 1)]
        if kind == "ternary":
            a_node, cond_node, b_node = node.children
            cond = self.g(cond_node, scope, bound)
            if cond.const:
                return self.lower(a_node if cond.value else b_node, scope, bound, depth + 1)
            inner = self._lines(a_node, scope, bound, depth + 1)
            return [f"if {cond.src}:", *("    " + line for line in inner), *self._lines(b_node, scope, bound, depth + 1)]
        if kind == "call_gen":
            name_tok, elt, clauses = node.children
            name = str(name_tok)
            builtin = self._function(name, scope)
            plain = BUILTINS.get(name) is builtin
            if name in ("any", "all", "sum") and plain:
                unrolled = self._unroll(name, elt, clauses.children, scope, bound)
                if unrolled is not None:
                    return unrolled
            if name in ("any", "all") and plain:
                return self._lower_any_all(name, elt, clauses.children, scope, bound)
            alloc = name in ALLOCATING and plain
            lines, first = self._first_loop(clauses, scope, bound, alloc)
            gen = self._comprehension(elt, clauses, scope, bound, "(", ")", alloc, first=first)
            gen.charged = True
            return [*lines, f"return {self._emit_call(name, builtin, [gen], {}).src}"]
        if kind == "listcomp":
            elt, clauses = node.children
            lines, first = self._first_loop(clauses, scope, bound, True)
            return [*lines, f"return {self._comprehension(elt, clauses, scope, bound, '[', ']', True, first=first).src}"]
        lines, frag = self._operand(node, scope, bound, depth)
        return [*lines, f"return {frag.src}"] if lines else frag

    def lower_to(self, node, t: str, scope, bound, depth: int) -> list[str]:
        """Statements that leave the value of ``node`` in the Python name ``t`` (``and``/``or``
        chains and conditionals as ``if`` statements, ``any``/``all`` of one loop as a ``for``
        that breaks at the item deciding it), in the expression's order of evaluation."""
        kind = getattr(node, "data", "")
        kind = kind.rstrip("_") if isinstance(kind, str) else ""
        if depth <= 16 and kind in ("and", "or"):
            operands = _chain(node, kind)
            test = t if kind == "and" else f"not {t}"
            lines: list[str] = []
            pad = ""
            for i, op in enumerate(operands):
                lines += [pad + line for line in self.lower_to(op, t, scope, bound, depth + 1)]
                if i < len(operands) - 1:
                    lines.append(f"{pad}if {test}:")
                    pad += "    "
            return lines
        if depth <= 16 and kind == "ternary":
            a_node, cond_node, b_node = node.children
            cond = self.g(cond_node, scope, bound)
            if cond.const:
                return self.lower_to(a_node if cond.value else b_node, t, scope, bound, depth + 1)
            a_lines = self.lower_to(a_node, t, scope, bound, depth + 1)
            b_lines = self.lower_to(b_node, t, scope, bound, depth + 1)
            return [f"if {cond.src}:", *("    " + x for x in a_lines), "else:", *("    " + x for x in b_lines)]
        if kind == "call_gen":
            name_tok, elt, clauses = node.children
            name = str(name_tok)
            builtin = self._function(name, scope)
            fors = sum(1 for c in clauses.children if c.data == "comp_for")
            if name in ("any", "all") and BUILTINS.get(name) is builtin and fors == 1:
                if self._unroll(name, elt, clauses.children, scope, bound) is None:
                    return self._assign_any_all(name, elt, clauses.children, t, scope, bound)
        lines, frag = self._operand(node, scope, bound, depth)
        return [*lines, f"{t} = {frag.src}"]

    def _operand(self, node, scope, bound, depth: int) -> tuple[list[str], Frag]:
        """Statements computing what ``node`` evaluates first, and the expression that finishes
        it after them (together: ``node`` in its order of evaluation).  Lowered: comprehensions
        (their first iterable evaluated and charged by statements), ``any``/``all`` of one loop,
        both operands of ``+`` (the left one into a name first when the right one has
        statements), and the list argument of a builtin that charges it (``sum``, ``max``,
        ``distinct``...).  Anything else: no statements, its expression."""
        kind = getattr(node, "data", "")
        kind = kind.rstrip("_") if isinstance(kind, str) else ""
        if depth > 16:
            return [], self.g(node, scope, bound)
        if kind == "listcomp":
            elt, clauses = node.children
            lines, first = self._first_loop(clauses, scope, bound, True)
            return lines, self._comprehension(elt, clauses, scope, bound, "[", "]", True, first=first)
        if kind == "call_gen":
            name_tok, elt, clauses = node.children
            name = str(name_tok)
            builtin = self._function(name, scope)
            plain = BUILTINS.get(name) is builtin
            if name in ("any", "all", "sum") and plain and self._unroll(name, elt, clauses.children, scope, bound) is not None:
                return [], self.g(node, scope, bound)
            if name in ("any", "all") and plain:
                if sum(1 for c in clauses.children if c.data == "comp_for") != 1:
                    return [], self.g(node, scope, bound)
                t = self.stmt_temp()
                return self._assign_any_all(name, elt, clauses.children, t, scope, bound), Frag(t, bits=1)
            alloc = name in ALLOCATING and plain
            lines, first = self._first_loop(clauses, scope, bound, alloc)
            gen = self._comprehension(elt, clauses, scope, bound, "(", ")", alloc, first=first)
            gen.charged = True
            return lines, self._emit_call(name, builtin, [gen], {})
        if kind == "add":
            la, a = self._operand(node.children[0], scope, bound, depth + 1)
            lb, b = self._operand(node.children[1], scope, bound, depth + 1)
            if lb and not a.const:
                t = self.stmt_temp()
                la, a = [*la, f"{t} = {a.src}"], Frag(t, bits=a.bits)
            return [*la, *lb], self._add(a, b)
        if kind == "call":
            name_tok, argnode = node.children
            name = str(name_tok)
            builtin = self._function(name, scope)
            positional, keywords, misplaced = call_arguments(argnode)
            if (len(positional) == 1 and misplaced is None and name in _LINEAR
                    and BUILTINS.get(name) is builtin and not builtin.needs_env):
                lines, arg = self._operand(positional[0], scope, bound, depth + 1)
                if not arg.const and not arg.charged:
                    charge = "H_itm" if name in ALLOCATING else "H_it"
                    t = self.stmt_temp()
                    lines = [*lines, f"{t} = {arg.src}", *self.charge_lines(charge, t)]
                    arg = Frag(t)
                    arg.charged = True
                    kwargs = {k: self.g(v, scope, bound) for k, v in keywords}  # after the argument, as in the call
                    return lines, self._emit_call(name, builtin, [arg], kwargs)
        if kind == "index":
            lines, obj = self._operand(node.children[0], scope, bound, depth + 1)
            if lines:
                return lines, Frag(f"{obj.src}[{self.g(node.children[1], scope, bound).src}]")
        if kind == "compare" and len(node.children) == 3:
            op = " ".join(str(x) for x in node.children[1].children)
            if op in ("==", "!=", "<", "<=", ">", ">=", "in", "not in"):
                return self._compare(op, node.children[0], node.children[2], scope, bound, depth)
        return [], self.g(node, scope, bound)

    def _compare(self, op: str, left_node, right_node, scope, bound, depth: int) -> tuple[list[str], Frag]:
        """One comparison with statements for its operands (:meth:`_operand`): the left one into
        a name first when the right one has statements; the list a membership test searches
        into a name, charged by statements (``H_it`` written out)."""
        la, a = self._operand(left_node, scope, bound, depth + 1)
        b = self.lazy_range(right_node, scope, bound) if op in ("in", "not in") else None
        lb, b = ([], b) if b is not None else self._operand(right_node, scope, bound, depth + 1)
        search = op in ("in", "not in") and not b.const
        if not lb and not search:
            if not la:
                return [], self.g_compare_frags(a, op, b)
            return la, self.g_compare_frags(a, op, b)
        if not a.const and not _LOCAL.match(a.src):
            t = self.stmt_temp()
            la, a = [*la, f"{t} = {a.src}"], Frag(t)
        if search:
            t = self.stmt_temp()
            lb, b = [*lb, f"{t} = {b.src}", *self.charge_lines("H_it", t)], Frag(t)
        return [*la, *lb], self.g_compare_frags(a, op, b)

    @staticmethod
    def g_compare_frags(a: Frag, op: str, b: Frag) -> Frag:
        return Frag(f"({a.src} {op} {b.src})", bits=1)

    def _assign_any_all(self, name: str, elt_node, clauses: list, t: str, scope, bound) -> list[str]:
        """``t = any(...)``/``all(...)`` of a generator with one ``for`` as a loop that breaks."""
        first, *rest = clauses
        it, charge = self._loop_iterable(first.children[1], scope, bound, False, True)
        s = self.stmt_temp()
        targets = [str(x) for x in first.children[0].children]
        inner_scope = scope.with_locals(targets)
        py = [self.pyname(x) for x in targets]
        inner_bound = {**bound, **dict(zip(targets, py))}
        target_src = py[0] if len(py) == 1 else "(" + ", ".join(py) + ",)"
        lines = [f"{s} = {it.src}", *self.charge_lines(charge, s), f"{t} = {name == 'all'}", f"for {target_src} in {s}:"]
        pad = "    "
        for clause in rest:
            cond = self.g(clause.children[0], inner_scope, inner_bound)
            lines.append(f"{pad}if {cond.src}:")
            pad += "    "
        pre, elt = self._test(elt_node, inner_scope, inner_bound)
        test = elt if name == "any" else f"not {elt}"
        return [*lines, *(pad + x for x in pre), f"{pad}if {test}:", f"{pad}    {t} = {name != 'all'}", f"{pad}    break"]

    def _test(self, node, scope, bound) -> tuple[list[str], str]:
        """A loop's item test as statements and an expression: ``x in xs`` with ``x`` a local
        or a constant and ``xs`` not constant evaluates ``xs`` into a name and charges it by
        statements (after ``x``, as the expression does, reading ``x`` having no effect)."""
        ch = node.children if str(getattr(node, "data", "")).rstrip("_") == "compare" else ()
        if len(ch) == 3:
            op = " ".join(str(x) for x in ch[1].children)
            if op in ("in", "not in"):
                left = self.g(ch[0], scope, bound)
                if left.const or _LOCAL.match(left.src):
                    right = self.lazy_range(ch[2], scope, bound) or self.g(ch[2], scope, bound)
                    if not right.const:
                        r = self.stmt_temp()
                        return [f"{r} = {right.src}", *self.charge_lines("H_it", r)], f"({left.src} {op} {r})"
        return [], self.g(node, scope, bound).src

    def _first_loop(self, clauses_node, scope, bound, alloc: bool) -> tuple[list[str], str]:
        """A comprehension's first iterable evaluated into a name and charged, as statements
        (it is what the comprehension evaluates first, so nothing moves before it)."""
        single = sum(1 for c in clauses_node.children if c.data == "comp_for") == 1
        first = clauses_node.children[0]  # the grammar starts every comprehension with a `for`
        if first.data != "comp_for":
            raise GenerationFailed("a comprehension starting with `if`")
        it, charge = self._loop_iterable(first.children[1], scope, bound, alloc, single)
        t = self.stmt_temp()
        return [f"{t} = {it.src}", *self.charge_lines(charge, t)], t

    def _lower_any_all(self, name: str, elt_node, clauses: list, scope, bound) -> list[str]:
        """``any``/``all`` of a generator as nested ``for`` and ``if`` statements returning at the
        first item that decides (the items, conditions and charges in the generator's order)."""
        lines: list[str] = []
        pad = ""
        inner_scope, inner_bound = scope, dict(bound)
        for clause in clauses:
            if clause.data == "comp_for":
                targets = [str(t) for t in clause.children[0].children]
                it, charge = self._loop_iterable(clause.children[1], inner_scope, inner_bound, False, True)
                t = self.stmt_temp()
                lines += [pad + line for line in [f"{t} = {it.src}", *self.charge_lines(charge, t)]]
                inner_scope = inner_scope.with_locals(targets)
                py = [self.pyname(x) for x in targets]
                inner_bound.update(zip(targets, py))
                target_src = py[0] if len(py) == 1 else "(" + ", ".join(py) + ",)"
                lines.append(f"{pad}for {target_src} in {t}:")
            else:
                cond = self.g(clause.children[0], inner_scope, inner_bound)
                lines.append(f"{pad}if {cond.src}:")
            pad += "    "
        pre, elt = self._test(elt_node, inner_scope, inner_bound)
        lines += [pad + x for x in pre]
        if name == "any":
            return [*lines, f"{pad}if {elt}: return True", "return False"]
        return [*lines, f"{pad}if not {elt}: return False", "return True"]

    def lazy_range(self, node, scope, bound) -> Frag | None:
        """``range(...)`` where it is only iterated or searched (a ``for``'s iterable, the right
        of ``in``): a Python range, not built, so charged to work but not to memory; None when
        ``node`` is no such call or its arguments are constants (then folded at load)."""
        rargs = range_arguments(node, scope)
        if rargs is None:
            return None
        frags = [self.g(a, scope, bound) for a in rargs]
        if all(f.const for f in frags) and small_range([f.value for f in frags]):
            return None
        return Frag(f"H_lrange({', '.join(f.src for f in frags)})")

    def _unroll(self, name: str, elt_node, clauses: list, scope, bound) -> Frag | None:
        """``any``/``all``/``sum`` of a generator whose loops all run over constant collections,
        written out item by item with the loop names bound to the items' constants (and its
        ``if`` clauses as conditions of each item, constant ones decided now); None when the
        loops are not constant or too many.  The items are evaluated in the same order and with
        the same short-circuits as the generator's."""
        combos: list = [({}, scope, [])]  # (constants bound, scope, condition sources)
        for clause in clauses:
            new = []
            if clause.data != "comp_for":
                for consts, sc, conds in combos:
                    cond = self.g(clause.children[0], sc, {**bound, **consts})
                    if cond.const:
                        if cond.value:
                            new.append((consts, sc, conds))
                        continue
                    new.append((consts, sc, [*conds, cond.src]))
                combos = new
                continue
            targets = [str(t) for t in clause.children[0].children]
            for consts, sc, conds in combos:
                b = {**bound, **consts}
                it = self.g(clause.children[1], sc, b)
                if not it.const or not isinstance(it.value, (list, tuple)):
                    return None
                for v in it.value:
                    if len(targets) == 1:
                        vals = {targets[0]: Frag(self.ns.const(v), v)}
                    else:
                        if not isinstance(v, (list, tuple)) or len(v) != len(targets):
                            return None
                        vals = {t: Frag(self.ns.const(x), x) for t, x in zip(targets, v)}
                    new.append(({**consts, **vals}, sc.with_locals(targets), conds))
                    if len(new) > MAX_UNROLL:
                        return None
            combos = new
        terms = []
        for consts, sc, conds in combos:
            elt = self.g(elt_node, sc, {**bound, **consts}).src
            cond = " and ".join(f"({c})" for c in conds)
            if name == "sum":
                terms.append(f"({elt} if ({cond}) else 0)" if cond else elt)
            elif name == "any":
                terms.append(f"(({cond}) and {elt})" if cond else elt)
            else:
                terms.append(f"((not ({cond})) or {elt})" if cond else elt)
        if name == "sum":
            return Frag("(0" + "".join(" + " + t for t in terms) + ")")
        if not terms:
            return Frag("True" if name == "all" else "False", name == "all")
        joiner = " or " if name == "any" else " and "
        return Frag(f"(True if ({joiner.join(terms)}) else False)")


class FunctionTable:
    """The ruleset's own functions as generated Python functions ``f_<name>(env, *params)``,
    each compiled on first use (so that functions may call each other in any order).

    A call charges one step to the work budget; an endless recursion ends at Python's depth
    limit and is then reported by the checked evaluator ("nested too deeply").
    """

    def __init__(self):
        self._builtins: dict[str, Any] = {}

    def register(self, name: str, builtin) -> str:
        """The attribute under which the function ``name`` (a Builtin with a ``body``) is called."""
        attr = "f_" + name if _IDENT.match(name) else f"f_{len(self._builtins)}"
        self._builtins.setdefault(attr, builtin)
        return attr

    def generate_all(self) -> None:
        """Generate every function registered so far (the compiler calls it once, at the end,
        so that a ruleset's generated source is complete before play)."""
        for attr in list(self.__dict__.get("_builtins", {})):
            getattr(self, attr)

    def __getattr__(self, attr: str):
        builtin = self.__dict__.get("_builtins", {}).get(attr)
        if builtin is None:
            raise AttributeError(attr)
        fn = _generate_function(attr, builtin, self)
        setattr(self, attr, fn)
        return fn


def _generate_function(attr: str, builtin, table: FunctionTable):
    body = builtin.body
    ns = _Ns({"FN": table})
    gen = _Gen(ns, table)
    bound = {p: gen.pyname(p) for p in body.params}
    try:
        lines, _ = gen.body(body.tree, body.scope, bound)
        src = _def(
            attr,
            ["env", *bound.values()],
            [f"env.left -= {CALL_COST}", "if env.left < 0: H_over(env)", *gen.prologue()],
            lines,
            body.mark,
        )
        return _compile(src, attr, ns, body.mark)
    except Exception as exc:  # noqa: BLE001 - never a user's error: the interpreted call runs instead
        _fell_back(str(body.mark), exc)
        return builtin.fn  # the interpreted call: binds the parameters, evaluates the body


def comment(text: Any) -> str:
    """``text`` as one safe line of a Python comment: ASCII, with every control character
    (newlines, carriage returns) escaped, so that nothing after it can become code."""
    return repr(str(text))[1:-1].encode("ascii", "backslashreplace").decode("ascii")


def _def(name: str, params: list[str], prologue: list[str], value: str | list[str], mark: Mark | None) -> str:
    """A generated function's source: ``value`` an expression to return, or the statements of
    its body (ending in ``return``)."""
    where = f"# {comment(mark)}" if mark is not None else "# (generated)"
    lines = [where, f"def {name}({', '.join(params)}):"]
    lines += [f"    {line}" for line in prologue]
    if isinstance(value, str):
        lines.append(f"    return {value}")
    else:
        lines += [f"    {line}" for line in value]
    return "\n".join(lines) + "\n"


def _fell_back(place: str, exc: Exception) -> None:
    if ENABLED and len(FALLBACKS) < 1000:
        FALLBACKS.append((place, f"{type(exc).__name__}: {exc}"))


_CODE: dict[str, Any] = {}


#: False: ruleset functions and expressions as one ``return`` of an expression (the form the
#: statement forms of :meth:`_Gen.body` must agree with, value and charges; a test compares them).
STATEMENTS = True

#: False: generate nothing, every evaluation through the closure evaluator (the reference the
#: differential tests compare the generated code against).  Read when a ruleset is compiled.
ENABLED = True


def _compile(src: str, name: str, ns: _Ns, mark: Mark | None):
    if not ENABLED:
        raise GenerationFailed("code generation is switched off")
    # The code object depends only on the source (constants live in the namespace), so the
    # same expression in another variant, or loaded again, is not compiled again.
    body = src.split("\n", 1)[1] if src.startswith("#") else src  # without the heading place
    code = _CODE.get(body)
    if code is None:
        with warnings.catch_warnings():
            # Python warns at compile time about a subscript that must fail (``3[0]``, a constant
            # tree the resolver let through): that code is left to the reference evaluator, which
            # raises the precise error when (and if) the expression runs, and nothing is printed.
            warnings.simplefilter("error", SyntaxWarning)
            try:
                code = compile(body, "<tapster generated>", "exec")
            except SyntaxWarning as exc:
                raise GenerationFailed(f"generated code that must fail: {exc}") from None
        if len(_CODE) >= 50_000:
            _CODE.clear()
        _CODE[body] = code
    exec(code, ns.d)  # noqa: S102 - generated source, see the module docstring
    if SINK is not None:
        SINK.append((str(mark or name), src))
    return ns.d[name]


def generate_expression(tree, scope, text: str, mark: Mark | None, functions: FunctionTable | None):
    """The generated function ``f(env) -> value`` for the parse tree of ``text`` in ``scope``,
    and its constant value (or the ``_NOCONST`` marker); None when the generator does not handle
    the tree (the caller then uses the closure evaluator).

    Raises nothing: any failure to generate is a None.
    """
    ns = _Ns()
    gen = _Gen(ns, functions)
    try:
        lines, frag = gen.body(tree, scope, {})
        src = _def("expr", ["env"], gen.prologue(), lines, mark)
        return _compile(src, "expr", ns, mark), (frag.value if frag is not None else _NOCONST)
    except Exception as exc:  # noqa: BLE001 - never a user's error: the closure evaluator runs instead
        _fell_back(str(mark), exc)
        return None


#: Most expression parts of a template written out as generated code; a longer template runs
#: through the interpreted loop (its generated source would grow with its text, and Python's
#: compiler takes time and memory in proportion).
MAX_TEMPLATE_PARTS = 64


def generate_template(parts: list, mark: Mark | None, text: str = ""):
    """A template's generated function from its ``parts`` (text, or Compiled expressions): the
    parts' generated functions called in a row and joined, the text built charged to the memory
    budget; None if any part has none or there are more than MAX_TEMPLATE_PARTS expressions."""
    if sum(1 for p in parts if type(p) is not str) > MAX_TEMPLATE_PARTS:
        return None
    ns = _Ns()
    fixed = sum(len(p) for p in parts if type(p) is str)
    lines = ["T = []", "n = 0"]
    for p in parts:
        if type(p) is str:
            lines.append(f"T.append({p!r})")
        else:  # the Compiled: precise errors; the text is counted as it grows
            lines += [f"t = H_render({ns.bind(p, 'E')}(env))", "n += H_len(t)", "if n > MAX_ITEMS: H_toolong(n)", "T.append(t)"]
    lines += [f"env.mem -= n + {fixed}", f"if env.mem < 0: H_toobig(env, {ns.bind(text, 'TEXT')}, {ns.bind(mark, 'MARK')})"]
    src = _def("template", ["env"], lines, "''.join(T)", mark)
    try:
        return _compile(src, "template", ns, mark)
    except Exception as exc:  # noqa: BLE001 - never a user's error: the interpreted template runs instead
        _fell_back(str(mark), exc)
        return None


def generate_legal(choose, functions: FunctionTable | None):
    """The generated listing of a decision's legal actions, ``legal(env, loc) -> tuple``, with
    each option's ``for`` names bound as Python locals and its condition inlined; None when an
    option's expressions cannot be generated (the interpreted listing then runs).

    ``choose`` is a :class:`~interpreter.engine.flow.Choose`; each option's ``items`` and ``cond`` are
    Compiled expressions with their parse trees (``source``).
    """
    ns = _Ns()
    gen = _Gen(ns, functions)
    lines = ["A = []", "append = A.append"]
    try:
        for o in choose.options:
            lines.append(f"# option {comment(o.name)}")
            if not o.names:
                act = ns.bind(o.action, "ACT")
                if o.cond is None:
                    lines.append(f"append({act})")
                else:
                    cond = _tree_frag(gen, o.cond, {})
                    lines.append(f"if {cond}: append({act})")
                continue
            bound = {n: gen.pyname(n) for n in o.names}
            items_tree = o.items.source
            if items_tree is None and o.items.constant is None:
                return None
            if o.items.constant is not None and isinstance(o.items.constant, (list, tuple)) and len(o.names) == 1:
                v = bound[o.names[0]]
                pairs = ns.bind(tuple((x, Action(o.name, (x,))) for x in o.items.constant), "PAIRS")
                cond = _tree_frag(gen, o.cond, bound) if o.cond is not None else None
                lines.append(f"for {v}, act in {pairs}:")
                lines.append(f"    if {cond}: append(act)" if cond else "    append(act)")
                continue
            items = _tree_frag(gen, o.items, {})
            cond = _tree_frag(gen, o.cond, bound) if o.cond is not None else None
            name = repr(o.name)
            # H_it written out: the items charged to the work budget before the loop
            lines += [f"I = {items}", "try:", "    env.left -= H_len(I)", "except TypeError:", "    pass",
                      "else:", "    if env.left < 0: H_over(env)"]
            if len(o.names) == 1:
                v = bound[o.names[0]]
                lines.append(f"for {v} in I:")
                add = f"append(H_tnew(H_Action, ({name}, ({v},))))"
            else:
                vs = list(bound.values())
                lines.append("for v in I:")
                lines.append(f"    {', '.join(vs)}, = v")
                add = f"append(H_tnew(H_Action, ({name}, ({', '.join(vs)},))))"
            lines.append(f"    if {cond}: {add}" if cond else f"    {add}")
        lines.append("return H_tuple(A)")
        body = "\n".join("    " + line for line in [*gen.prologue(), *lines])
        src = f"# {comment(choose.mark)}\ndef legal(env):\n{body}\n"
        return _compile(src, "legal", ns, choose.mark)
    except Exception as exc:  # noqa: BLE001 - never a user's error: the interpreted listing runs instead
        _fell_back(str(choose.mark), exc)
        return None


def _tree_frag(gen: _Gen, compiled, bound: dict) -> str:
    """The generated source of a Compiled expression inside a bigger generated function."""
    if compiled.source is None:  # a YAML scalar (a number, a boolean): a constant
        return gen.ns.const(compiled.constant)
    tree, scope = compiled.source
    return gen.g(tree, scope, bound).src
