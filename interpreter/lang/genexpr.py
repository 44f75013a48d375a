"""The code generator's expression forms: each syntax node of a validated, name-resolved parse
tree becomes one Python expression (:class:`ExpressionForms`, one ``g_<node>`` method per node
kind), with constants folded at load, comprehensions as Python's own, loops over constant
collections unrolled and size checks left out where the inferred bounds rule them out.

:class:`~interpreter.lang.genstmt.StatementForms` builds on these to write a body as
statements; :mod:`interpreter.lang.codegen` compiles what they write.  Raises
:class:`~interpreter.lang.frags.GenerationFailed` for a form it does not handle (the reference
evaluator then runs that expression).
"""

from __future__ import annotations

import operator
import re
from typing import TYPE_CHECKING

from ..limits import MAX_PLAYERS
from ..loader.maps import GameMap
from . import frags
from .builtins import BUILTINS, MAX_INT_BITS, _mul, unescape
from .frags import (
    _IDENT,
    _INT_RESULTS,
    _LINEAR,
    _LOCAL,
    _NOCONST,
    _PROLOGUE,
    _SIMPLE,
    ALLOCATING,
    INLINE_MARK,
    MAX_FOLD_ITEMS,
    Frag,
    GenerationFailed,
    _max_bits,
    _Ns,
    _small_const,
    call_arguments,
    small_range,
)
from .runtime import (
    _add,
    _mod,
    _sub,
)

if TYPE_CHECKING:
    from .codegen import FunctionTable


_COMPARISONS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


#: A Python string literal as ``repr`` writes it (what :func:`invariant_read` leaves out).
_STR_LITERAL = re.compile(r"'(?:[^'\\]|\\.)*'" + r'|"(?:[^"\\]|\\.)*"')
#: What a pure read is made of, string literals left out: subscripts of the state's variables
#: and zones, the current seat, constants, the frame's hoisted locals and the reads already
#: hoisted, with whole numbers for indexes.
_READ_PARTS = re.compile(r"(?:\b(?:V|Z|CUR|(?:K|MAP|o_|h_)[0-9]+)\b|[0-9]+|[\[\]])*\Z")
_READ_HEAD = re.compile(r"(?:V|Z|CUR|(?:K|MAP|o_|h_)[0-9]+)\[")


def invariant_read(src: str) -> bool:
    """Whether the generated source ``src`` is a subscript chain that only reads (no call, no
    operator, no name a loop or a comprehension binds, no budget): its value is the same at
    every item of a listing's loop, since a listing changes nothing, and reading it raises
    nothing that reading it again would not."""
    if not _READ_HEAD.match(src) or len(src) > 400:
        return False
    return _READ_PARTS.match(_STR_LITERAL.sub("", src)) is not None


#: the bound on ``current``'s ``bit_length()``: a seat, 0 to MAX_PLAYERS - 1
_SEAT_BITS = (MAX_PLAYERS - 1).bit_length()


def _attr_bits(attr: Frag, tables) -> int | None:
    """The bound on ``bit_length()`` of a map attribute read (see :class:`Frag`'s ``bits``)
    when ``attr`` is a constant name and every row of every table in ``tables`` (node -> its
    attributes) that has it holds a whole number there, else None.  The map is the ruleset's
    constant data, so the type is known at load.  A row without the attribute (a pair of nodes
    with no edge between them) reads None, on which every operation the bound lets through
    unchecked (``+``, ``-``, ``*``, a comparison of order) raises TypeError, and the checked
    evaluator then gives the builtin's own error, as for any generated expression."""
    name = attr.value if attr.const else None
    if type(name) is not str:
        return None
    bits = 0
    for table in tables:
        for row in table.values():
            v = row.get(name)
            if v is None:
                continue
            if type(v) is not int:
                return None
            bits = max(bits, abs(v).bit_length())
    return bits


class ExpressionForms:
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
        #: where ``current`` may change between expressions (the flow's runs, see
        #: :meth:`~interpreter.engine.effectgen._Writer.expr`): the Python local one expression
        #: reads it from, assigned before the expression; None: read ``env.state.current`` at
        #: each read
        self.cur_name: str | None = None
        #: the same for a variable's or a zone's value: name -> the Python local one expression
        #: reads it from (see :meth:`~interpreter.engine.effectgen._Writer.expr`); None: none
        self.read_cache: dict[str, str] | None = None
        self.in_iterable = 0  # > 0 inside a comprehension's `in` part, where Python allows no `:=`
        self.temps = 0
        #: frame local -> the Python name the prologue reads it into, where the frame's locals
        #: cannot change while the code runs (an expression, a listing); None: read ``loc`` each time
        self.hoisted: dict[str, str] | None = None
        #: ``id``s of the call nodes of ruleset functions to write out in place (see
        #: :meth:`_inline`; a listing's conditions name them), and how many were written out
        self.inline_calls: set[int] = set()
        self.inlined = 0
        #: source of a read -> the Python name a listing's loop reads it from (see :meth:`read`),
        #: while a listing's option condition is generated; None elsewhere
        self.invariant: dict[str, str] | None = None
        #: Python names that hold a component (a loop's name over a zone's leaf list), and names
        #: that hold a zone's value or part of it, with its ``zdepth`` (see
        #: :class:`~interpreter.lang.frags.Frag`)
        self.comps: set[str] = set()
        self.depths: dict[str, int] = {}

    def prologue(self) -> list[str]:
        """The lines that read what the generated code uses from ``env`` once, at its start
        (nothing an expression or a listing evaluates changes them), then the frame's locals
        it reads (:attr:`hoisted`; a name missing from the frame raises there, and the checked
        evaluator then runs, as for any error of generated code)."""
        lines = [line for key, line in _PROLOGUE if key in self.uses]
        if self.hoisted:
            lines += [f"{py} = loc[{name!r}]" for name, py in self.hoisted.items()]
        return lines

    def pyname(self, name: str) -> str:
        self.counter += 1
        if _IDENT.match(name):
            return f"l_{name}_{self.counter}"
        return f"l_{self.counter}"

    def read(self, src: str) -> str:
        """``src``, a subscript the generator wrote, or while a listing's option condition is
        generated (:attr:`invariant` is a dict) and ``src`` only reads the state, constants and
        the frame's hoisted locals (see :func:`invariant_read`), the name of a Python local the
        listing evaluates it into once, before the option's loop
        (:func:`interpreter.lang.codegen.generate_legal`)."""
        if self.invariant is None or not invariant_read(src):
            return src
        name = self.invariant.get(src)
        if name is None:
            name = self.invariant[src] = f"h_{len(self.invariant) + 1}"
        return name

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
            return Frag(b, comp=b in self.comps, zdepth=self.depths.get(b))
        if name in scope.locals:
            self.uses.add("loc")
            if self.hoisted is not None:
                py = self.hoisted.get(name)
                if py is None:
                    py = self.hoisted[name] = f"o_{len(self.hoisted) + 1}"
                return Frag(py)
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
            cached = self.read_cache.get(name) if self.read_cache else None
            if kind == "zone":
                self.uses.add("Z")
                depth = getattr(getter, "depth", -1)  # -1: keyed, not followed
                return Frag(cached or f"Z[{rname!r}]", zdepth=depth if depth >= 0 else None)
            if kind == "var":
                self.uses.add("V")
                return Frag(cached or f"V[{rname!r}]", ndepth=getattr(getter, "ndepth", None))
            if kind == "current":
                if not self.hoist_current:
                    return Frag(self.cur_name or "env.state.current", bits=_SEAT_BITS)
                self.uses.add("CUR")
                return Frag("CUR", bits=_SEAT_BITS)
        source = getattr(getter, "inline_source", None)  # the seats (see compiler._seats_reader)
        if source is not None:
            return Frag(source)
        return Frag(f"{self.ns.bind(getter, 'G')}(env)")

    # operators -----------------------------------------------------------------------------
    def g_ternary(self, node, scope, bound):
        a, cond, b = (self.g(ch, scope, bound) for ch in node.children)
        if cond.const:
            return a if cond.value else b
        return Frag(f"({a.src} if {cond.src} else {b.src})", bits=_max_bits(a, b))

    def g_or(self, node, scope, bound):
        a, b = (self.g(ch, scope, bound) for ch in node.children)
        if a.const:  # Python's `or` of a known first operand (an argument written out in place)
            return a if a.value else b
        return Frag(f"({a.src} or {b.src})", bits=_max_bits(a, b))

    def g_and(self, node, scope, bound):
        a, b = (self.g(ch, scope, bound) for ch in node.children)
        if a.const:
            return b if a.value else a
        return Frag(f"({a.src} and {b.src})", bits=_max_bits(a, b))

    def g_not(self, node, scope, bound):
        a = self.g(node.children[0], scope, bound)
        if a.const:
            return Frag(self.ns.const(not a.value), not a.value)
        return Frag(f"(not {a.src})", bits=1, truth=True)

    def g_compare(self, node, scope, bound):
        children = node.children
        if any(" ".join(str(t) for t in children[i].children) in ("is", "is not") for i in range(1, len(children), 2)):
            return self._chain_with_is(children, scope, bound)
        first = self.g(children[0], scope, bound)
        parts = [first.src]
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
        if len(ops) == 1 and ops[0][0] in _COMPARISONS and first.const:  # two constants (an argument written out in place)
            folded = self._fold(_COMPARISONS[ops[0][0]], first, ops[0][1])
            if folded is not None:
                return folded
        return Frag("(" + " ".join(parts) + ")", bits=1, truth=True)

    def _chain_with_is(self, children, scope, bound) -> Frag:
        """A comparison using ``is``: the language's ``same`` (see interpreter/lang/builtins.py).
        ``a is none`` (the common case) is Python's own ``is``, which agrees with it there."""
        frags = [self.g(children[i], scope, bound) for i in range(0, len(children), 2)]
        opers = [" ".join(str(t) for t in children[i].children) for i in range(1, len(children), 2)]
        if len(opers) == 1:
            (op,), (a, b) = opers, frags
            if b.src == "None" or a.src == "None":
                return Frag(f"({a.src} {op} {b.src})", bits=1, truth=True)
            neg = "not " if op == "is not" else ""
            return Frag(f"({neg}H_same({a.src}, {b.src}))", bits=1, truth=True)
        raise GenerationFailed("a chain of comparisons with `is`")  # rare: the reference runs it

    def _fold(self, fn, *args: Frag) -> Frag | None:
        """``fn`` of constant operands computed now (``k + 1``, ``range(1, k + 1)`` with ``k``
        unrolled), or None when an operand is not constant or the operation fails (it then
        fails when evaluated, with the expression's place)."""
        if not all(a.const for a in args):
            return None
        if fn is _mul and _repeats_too_many(args[0].value, args[1].value):
            return None  # its size is known before it is built: not built at every load to be dropped
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
        """``a + b`` with the size check its operands can trigger (see :meth:`_sum`)."""
        return self._sum(a, b, "+")

    def g_sub(self, node, scope, bound):
        """``a - b`` checked as ``+`` is: a whole number within MAX_INT_BITS (``H_sub``)."""
        a, b = (self.g(ch, scope, bound) for ch in node.children)
        return self._sum(a, b, "-")

    def _sum(self, a: Frag, b: Frag, op: str) -> Frag:
        """``a + b`` or ``a - b`` with the size check its operands can trigger: none for two
        bounded whole numbers or with a fraction, an inline test of the result otherwise
        (``H_add``/``H_sub`` where no ``:=`` is allowed).  Where only numbers can come out (a
        difference; a sum with a whole-number constant) the bounds alone decide; a sum of
        unknown operands (text, lists) is tested for a whole number first."""
        folded = self._fold(_add if op == "+" else _sub, a, b)
        if folded is not None:
            return folded
        if a.bits is not None and b.bits is not None and max(a.bits, b.bits) < MAX_INT_BITS:
            # two whole numbers that cannot reach the limit (the check could never raise)
            return Frag(f"({a.src} {op} {b.src})", bits=max(a.bits, b.bits) + 1)
        if type(b.value) is float or type(a.value) is float:
            return Frag(f"({a.src} {op} {b.src})")  # a number and a fraction: no list, text or whole number grows
        if op == "+" and a.zdepth == 0 and b.zdepth == 0:
            # two zones' leaves (``hand[p] + tent[p]``): a new list of components, checked and
            # charged to memory as any list a sum builds, and known to hold components
            return Frag(f"H_grow({a.src} + {b.src}, env)", zdepth=0)
        t = self.temp()
        if t is None:
            return Frag(f"H_add(env, {a.src}, {b.src})" if op == "+" else f"H_sub({a.src}, {b.src})")
        if op == "-" or type(b.value) in (int, bool) or type(a.value) in (int, bool) or a.num or b.num:
            # only numbers can come out (or an operand is most likely one, see Frag.num): the
            # bounds alone decide, and comparing anything but a number with them raises
            # TypeError (the checked evaluator then evaluates the expression again)
            return Frag(f"({t} if H_NBIG <= ({t} := ({a.src} {op} {b.src})) <= H_BIG else H_grow({t}, env))")
        return Frag(f"({t} if ({t} := ({a.src} + {b.src})).__class__ is H_int and H_NBIG <= {t} <= H_BIG else H_grow({t}, env))")

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
            # whichever branch runs, after a, as in the call).  Where a is most likely a number
            # (Frag.num) the class test is left out: comparing anything else with the limits
            # raises TypeError, and the checked evaluator evaluates the expression again.
            t = a.src if _SIMPLE.match(a.src) else self.temp()
            if t is not None:
                first = t if t == a.src else f"({t} := {a.src})"
                lim, nlim = self._limits(MAX_INT_BITS - b.bits)
                test = f"{nlim} < {first} < {lim}" if a.num else f"{first}.__class__ is H_int and {nlim} < {t} < {lim}"
                return Frag(f"({t} * {b.src} if {test} else {helper}(env, {t}, {b.src}))")
        if a.bits is not None and a.bits < MAX_INT_BITS and (a.const or _LOCAL.match(a.src)):
            # the same with a's bound known (a constant or a Python local, whose reading cannot
            # fail, so a is as good as evaluated before b): one comparison of b decides
            t = b.src if _SIMPLE.match(b.src) else self.temp()
            if t is not None:
                second = t if t == b.src else f"({t} := {b.src})"
                lim, nlim = self._limits(MAX_INT_BITS - a.bits)
                test = f"{nlim} < {second} < {lim}" if b.num else f"{second}.__class__ is H_int and {nlim} < {t} < {lim}"
                return Frag(f"({a.src} * {t} if {test} else {helper}(env, {a.src}, {t}))")
        return Frag(f"{helper}(env, {a.src}, {b.src})")

    def _limits(self, bits: int) -> tuple[str, str]:
        """The names of ``2**bits`` and of its negative, bound once: a test written
        ``-LIM < t`` would build the negative of a number of thousands of bits at every
        evaluation (Python folds no name), and did, at every product checked."""
        return self.ns.bind(1 << bits, "LIM"), self.ns.bind(-(1 << bits), "LIM")

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
            # a whole number modulo a non-zero whole number lies between 0 and it
            bits = abs(b.value).bit_length() if a.bits is not None and b.value else None
            return Frag(f"({a.src} % {b.src})", bits=bits)
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
            if obj.comp and frags.COMPONENTS:  # a component (a loop over a zone's leaf): no class test
                return Frag(f"({self._props()}[{obj.src}.index][{name!r}] if {name!r} in {obj.src}.mutable"
                            f" else {obj.src}.fields[{name!r}])")
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
        if obj.comp and frags.COMPONENTS:  # a component: H_attr's first line, which raises as it does for a missing field
            return Frag(f"{obj.src}.fields[{name!r}]")
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
        return self.subscript(obj, f"{obj.src}[{idx.src}]")

    def subscript(self, obj: Frag, src: str, read: bool = True) -> Frag:
        """``src``, the read of an item of ``obj`` (through :meth:`read` when ``read``), with
        what is known of it: one level nearer a zone's leaf, or a component when ``obj`` is a
        leaf (a leaf holds components only; an index that is not a whole number raises)."""
        d = obj.zdepth
        n = obj.ndepth
        return Frag(self.read(src) if read else src, zdepth=d - 1 if d else None, comp=d == 0,
                    ndepth=n - 1 if n else None)

    def loop_binds(self, py: list[str], zdepth: int | None) -> None:
        """Record what a loop's one name ``py`` binds, when its iterable's ``zdepth`` is known: a
        component over a leaf, else one level nearer a leaf."""
        if len(py) == 1 and zdepth is not None:
            if zdepth == 0:
                self.comps.add(py[0])
            else:
                self.depths[py[0]] = zdepth - 1

    def _props(self) -> str:
        if self.hoist_current:
            self.uses.add("P")
            return "P"
        return "env.state.props"

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
        # a range's length is known before it is built: a long one is not built at every load to be dropped
        small = name != "range" or small_range([a.value for a in args])
        if pure and small and all(a.const for a in args) and all(v.const for v in kwargs.values()):
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
            row = self.read(f"{self.ns.bind(pairs, 'MAP')}[{a}]")
            return Frag(f"{row}[{b}].get({attr})", bits=_attr_bits(args[3], gm.adj.values()))
        if name == "node_attr" and len(args) == 3:
            row = self.read(f"{self.ns.bind(gm.node_data, 'MAP')}[{args[1].src}]")
            return Frag(f"{row}.get({args[2].src})", bits=_attr_bits(args[2], [gm.node_data]))
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
        if id(node) in self.inline_calls:
            inlined = self._inline(builtin, args, kwargs)
            if inlined is not None:
                return inlined
        return self._emit_call(name, builtin, args, kwargs)

    def _inline(self, builtin, args: list[Frag], kwargs: dict) -> Frag | None:
        """A call of a ruleset function written out in place: its body generated with the
        parameters bound to the arguments (constants fold: ``cost(p, n, 'slow')`` does
        not test ``mode == 'fast'`` when it runs), or None where it cannot be.  Only arguments
        that are constants or Python locals are taken (their reading cannot fail, so reading
        them where the body does is as good as before the call); nothing inside the body is
        written out in turn.  The call's work (``CALL_COST``) is not charged here: the caller
        that asked for it charges it where the call certainly happens (see
        :func:`~interpreter.lang.codegen.generate_legal`), and finds the written-out body
        between two ``INLINE_MARK``s, which it removes."""
        body = getattr(builtin, "body", None)
        if body is None or kwargs or self.functions is None or len(args) != len(body.params):
            return None
        if not all(a.const or _LOCAL.match(a.src) for a in args):
            return None
        bound = {p: (a if a.const else a.src) for p, a in zip(body.params, args)}
        saved, self.inline_calls = self.inline_calls, set()
        try:
            f = self.g(body.tree, body.scope, bound)
        except GenerationFailed:
            return None
        finally:
            self.inline_calls = saved
        self.inlined += 1
        return Frag(f"{INLINE_MARK}({f.src}){INLINE_MARK}", bits=f.bits)

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
                    depth = self.depths.get(src)
                else:
                    self.in_iterable += 1
                    try:
                        it, charge = self._loop_iterable(clause.children[1], inner_scope, inner_bound, alloc, single)
                    finally:
                        self.in_iterable -= 1
                    src = f"{charge}(env, {it.src})" if charge else it.src
                    depth = it.zdepth
                inner_scope = inner_scope.with_locals(targets)
                py = [self.pyname(t) for t in targets]
                for t, p in zip(targets, py):
                    inner_bound[t] = p
                self.loop_binds(py, depth)
                target_src = py[0] if len(py) == 1 else "(" + ", ".join(py) + ",)"
                parts.append(f"for {target_src} in {src}")
            else:
                cond = self.g(clause.children[0], inner_scope, inner_bound)
                parts.append(f"if {cond.src}")
        elt = self.g(elt_node, inner_scope, inner_bound)
        # a list of components, as a zone's leaf is (what a loop over it binds is known)
        return Frag(f"{open_}{elt.src} {' '.join(parts)}{close}", zdepth=0 if elt.comp and open_ == "[" else None)



def _repeats_too_many(a, b) -> bool:
    """Whether ``a * b`` repeats a list, tuple or text into more than ``MAX_FOLD_ITEMS`` items
    (``[0] * 999999``), known from the lengths, before building it."""
    for seq, n in ((a, b), (b, a)):
        if type(seq) in (list, tuple, str) and type(n) is int:
            return len(seq) * n > MAX_FOLD_ITEMS
    return False
