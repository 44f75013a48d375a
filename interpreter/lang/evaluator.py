"""The reference evaluator: a parse tree compiled to closures, each node with its own checks.

:class:`Evaluator` resolves every name of a tree in its :class:`~interpreter.lang.scope.Scope`
and reports every compile-time error (unknown names, fields, functions, arities) with the
expression's file:line:column; the closures it returns compute what the generated code
(:mod:`interpreter.lang.codegen`) computes, in the same order and charging the same budgets, and
are what runs again when a generated function fails, for the precise error.

Imports: :mod:`.builtins` (the functions), :mod:`.codegen` (its run-time helpers, shared so that
both evaluations charge alike), :mod:`.parser` (marks and excerpts) and :mod:`.scope` (types).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import ExpressionError, ExpressionSyntaxError, close_matches
from ..loader.load import MAX_NUMBER_CHARS
from ..model import Component, greater, less, render
from .builtins import BUILTINS, MAX_INT_BITS, Builtin, same, unescape
from .builtins import _range as _plain_range
from .codegen import ALLOCATING, _charge, _grow, _it, _itm, _lazy_range, _mod, _mulm, call_arguments, range_arguments, small_range
from .codegen import MAX_FOLD_ITEMS as _MAX_FOLD_ITEMS
from .codegen import _range as _charged_range
from .codegen import _str as _charged_str
from .parser import excerpt, mark_in

if TYPE_CHECKING:
    from ..errors import Mark
    from .scope import Scope

# ---------------------------------------------------------------------------------------------
# Compilation

_MISSING = object()

_COMPARE = {
    "<": less,  # Python's, or components in the ruleset's order
    ">": greater,
    "==": operator.eq,
    ">=": operator.ge,
    "<=": operator.le,
    "!=": operator.ne,
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
    "is": same,
    "is not": lambda a, b: not same(a, b),
}


#: Comparisons with a constant on the right, fused into one closure.
_CONST_RIGHT = {
    operator.eq: lambda a, k: lambda env: a(env) == k,
    operator.ne: lambda a, k: lambda env: a(env) != k,
    less: lambda a, k: lambda env: less(a(env), k),
    operator.le: lambda a, k: lambda env: a(env) <= k,
    greater: lambda a, k: lambda env: greater(a(env), k),
    operator.ge: lambda a, k: lambda env: a(env) >= k,
}

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


class Evaluator:
    """Compiles a parse tree to closures, each node its own closure with its own checks: the
    reference evaluator.  It reports every compile-time error (unknown names, fields,
    functions, arities) and evaluates an expression again for a precise run-time error."""

    def __init__(self, text: str, mark: Mark | None):
        self.text = text
        self.mark = mark

    def error(self, node, message: str) -> ExpressionSyntaxError:
        meta = getattr(node, "meta", None)
        line = getattr(node, "line", None) or (meta.line if meta and not meta.empty else 1)
        column = getattr(node, "column", None) or (meta.column if meta and not meta.empty else 1)
        from ..errors import CompileError

        return CompileError(
            f"in expression `{self.text}`: {message}",
            mark_in(self.mark, line, column),
            excerpt(self.text, line, column),
        )

    # Each compile returns (closure, is_constant, constant_value)
    def c(self, node, scope: Scope) -> Callable:
        if not hasattr(node, "data"):  # a token, not a tree
            raise self.error(node, f"unexpected {node!r}")
        method = getattr(self, "c_" + node.data.rstrip("_"), None)
        if method is None:  # pragma: no cover - grammar and compiler out of step
            raise self.error(node, f"internal: no compiler for {node.data}")
        return method(node, scope)

    # literals ----------------------------------------------------------------------------
    def c_number(self, node, scope):
        text = node.children[0]
        if len(text) > MAX_NUMBER_CHARS:
            raise self.error(node.children[0], f"a number of {len(text)} digits; the limit is {MAX_NUMBER_CHARS}"
                             f" (whole numbers of at most {MAX_INT_BITS} bits)")
        value = float(text) if "." in text else int(text)
        return const(value)

    def c_string(self, node, scope):
        return const(unescape(node.children[0][1:-1]))

    def c_true(self, node, scope):
        return const(True)

    def c_false(self, node, scope):
        return const(False)

    def c_none(self, node, scope):
        return const(None)

    def c_list(self, node, scope):
        items = self._exprs(node.children[0], scope)
        if not items:
            return lambda env: []
        if all(hasattr(f, "constant") for f in items):  # a constant, as generated code binds it
            return const([f.constant for f in items])
        return lambda env: [f(env) for f in items]

    def c_tuple(self, node, scope):
        first = self.c(node.children[0], scope)
        rest = self._exprs(node.children[1], scope)
        items = [first, *rest]
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
        close = close_matches(name, candidates, n=3)
        hint = f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""
        tok = node.children[0]
        line, col = getattr(tok, "line", None), getattr(tok, "column", None)
        dashed = None
        if isinstance(line, int) and isinstance(col, int):
            end = sum(len(t) + 1 for t in self.text.split("\n")[: line - 1]) + col - 1 + len(name)
            dashed = re.match(r"(?:-[A-Za-z0-9_]+)+", self.text[end:])
        if dashed:  # `route-r22`: a component id written as a name
            hint = f"; a component is named by its id in quotes: `component('{name}{dashed.group(0)}')`"
        err = self.error(tok, f"unknown name `{name}`{hint}")
        if not dashed:
            # the compiler, which knows the whole ruleset, says why when the name exists elsewhere
            # (interpreter/compile/names.py): `unknown name `x` here: `x` is a `for_each` variable ...`
            err.unknown_name, err.unknown_hint = name, hint
        raise err

    # operators ---------------------------------------------------------------------------
    def c_ternary(self, node, scope):
        a, cond, b = (self.c(ch, scope) for ch in node.children)
        return lambda env: a(env) if cond(env) else b(env)

    def c_or(self, node, scope):
        a, b = (self.c(ch, scope) for ch in node.children)
        return lambda env: a(env) or b(env)

    def c_and(self, node, scope):
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
            lazy = self._lazy_range(children[i + 1], scope) if op in ("in", "not in") else None
            operands.append(lazy or self.c(children[i + 1], scope))
        if len(ops) == 1:
            op, a, b = ops[0], operands[0], operands[1]
            k = getattr(b, "constant", _MISSING) if hasattr(b, "constant") else _MISSING
            if k is not _MISSING and op in _CONST_RIGHT:
                return _CONST_RIGHT[op](a, k)
            if op is operator.eq:
                return lambda env: a(env) == b(env)
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

    def _lazy_range(self, node, scope) -> Callable | None:
        """``range(...)`` where it is only iterated or searched, not built (no memory charged),
        as the generated code does (see ``_Gen.lazy_range``); None when ``node`` is no such call
        or its arguments are constants."""
        rargs = range_arguments(node, scope)
        if rargs is None:
            return None
        fns = [self.c(a, scope) for a in rargs]
        if all(hasattr(f, "constant") for f in fns) and small_range([f.constant for f in fns]):
            return None
        return lambda env: _lazy_range(*[f(env) for f in fns])

    def _binop(self, node, scope, fn):
        a, b = (self.c(ch, scope) for ch in node.children)
        return lambda env: fn(a(env), b(env))

    def c_add(self, node, scope):
        a, b = (self.c(ch, scope) for ch in node.children)
        return lambda env: _grow(a(env) + b(env), env)  # text and lists checked for size and charged, as generated code does

    def c_sub(self, node, scope):
        a, b = (self.c(ch, scope) for ch in node.children)
        return lambda env: _grow(a(env) - b(env))  # a whole number within MAX_INT_BITS, as `+`

    def c_mul(self, node, scope):
        a, b = (self.c(ch, scope) for ch in node.children)
        return lambda env: _mulm(env, a(env), b(env))  # a list or text built charged to memory

    def c_div(self, node, scope):
        return self._binop(node, scope, operator.truediv)

    def c_floordiv(self, node, scope):
        return self._binop(node, scope, operator.floordiv)

    def c_mod(self, node, scope):
        return self._binop(node, scope, _mod)

    def c_pow(self, node, scope):
        def power(x, y):
            if isinstance(y, (int, float)) and abs(y) > 64:
                raise ValueError("exponent too large")
            if type(x) is int and type(y) is int and x.bit_length() * y > MAX_INT_BITS:
                raise ValueError(f"the power has more than {MAX_INT_BITS} bits; numbers in a game stay smaller")
            r = x**y
            if type(r) is complex:  # (-8) ** 0.5: not a number a game can hold (or save)
                raise ValueError(f"{render(x)} ** {render(y)} is not a real number")
            return r

        return self._binop(node, scope, power)

    def c_neg(self, node, scope):
        a = self.c(node.children[0], scope)
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
            close = close_matches(name, sorted(scope.attributes), n=3)
            hint = f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""
            raise self.error(name_tok, f"no component or record has a field `{name}`{hint}")
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

        def attr(env):
            o = obj(env)
            try:
                return o.fields[name]
            except (AttributeError, KeyError):
                return _static_attr(o, name)

        return attr

    def c_index(self, node, scope):
        # Fold chains such as `flight[p][i]` into one closure (one call instead of nested ones).
        chain = []
        base = node
        while getattr(base, "data", None) == "index" and len(chain) < 3:
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
            _charge(env, len(o))
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
            close = close_matches(name, names, n=3)
            hint = f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""
            raise self.error(name_tok, f"unknown function `{name}`{hint}")
        return fn

    def _call(self, name_tok, builtin: Builtin, args: list, kwargs: dict, charged: bool = False):
        lo, hi = builtin.arity
        n = len(args)
        if n < lo or (hi is not None and n > hi):
            want = f"{lo}" if lo == hi else (f"{lo} or more" if hi is None else f"{lo} to {hi}")
            raise self.error(name_tok, f"`{name_tok}` takes {want} argument(s), got {n}")
        fn = builtin.fn
        # The memory budget, charged as the generated code charges it (see interpreter.lang.codegen).
        name = str(name_tok)
        if BUILTINS.get(name) is builtin and not kwargs:
            if name == "range":
                if all(hasattr(a, "constant") for a in args) and small_range([a.constant for a in args]):
                    return const(_plain_range(*[a.constant for a in args]))  # folded, as generated code does
                return lambda env: _charged_range(env, *[a(env) for a in args])
            if name == "str":
                a0 = args[0]
                return lambda env: _charged_str(env, a0(env))
        if BUILTINS.get(name) is builtin and name in ALLOCATING and not charged:
            first, rest = args[0], args[1:]
            k = getattr(first, "constant", _MISSING) if hasattr(first, "constant") else _MISSING
            small = k is not _MISSING and (not hasattr(k, "__len__") or len(k) <= _MAX_FOLD_ITEMS)
            if not small:
                args = [lambda env: _itm(env, first(env)), *rest]
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
        positional, keywords, misplaced = call_arguments(argnode)
        if misplaced is not None:
            raise self.error(misplaced, "a positional argument cannot follow a keyword argument")
        args = [self.c(ch, scope) for ch in positional]
        kwargs = {k: self.c(v, scope) for k, v in keywords}
        return self._call(name_tok, builtin, args, kwargs)

    def c_call_gen(self, node, scope):
        self._scope_functions = scope.functions
        name_tok, elt, clauses = node.children
        builtin = self._function(name_tok)
        alloc = str(name_tok) in ALLOCATING and BUILTINS.get(str(name_tok)) is builtin
        gen = self._comprehension(elt, clauses, scope, alloc)
        return self._call(name_tok, builtin, [gen], {}, charged=True)

    def c_listcomp(self, node, scope):
        elt, clauses = node.children
        return self._comprehension(elt, clauses, scope, True)

    def _comprehension(self, elt_node, clauses_node, scope, alloc: bool = False):
        """The comprehension's list; ``alloc``: its items are kept (a list comprehension, the
        generator of ``sorted``...), so each loop charges memory too, as generated code does
        (a single loop over a small constant charges nothing)."""
        single = sum(1 for c in clauses_node.children if c.data == "comp_for") == 1
        steps = []
        names: list[str] = []
        inner = scope
        for clause in clauses_node.children:
            if clause.data == "comp_for":
                targets = [str(t) for t in clause.children[0].children]
                it = self._lazy_range(clause.children[1], inner) or self.c(clause.children[1], inner)
                if alloc:
                    k = getattr(it, "constant", _MISSING) if hasattr(it, "constant") else _MISSING
                    if not (single and k is not _MISSING and hasattr(k, "__len__") and len(k) <= _MAX_FOLD_ITEMS):
                        it = _charging(it)
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
            def comp(env):
                loc = env.loc
                old = loc.get(target, _MISSING)
                out = []
                try:
                    if cond is None:
                        for v in _it(env, it(env)):
                            loc[target] = v
                            out.append(elt(env))
                    else:
                        for v in _it(env, it(env)):
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
                    for v in _it(env, fn(env)):
                        loc[t] = v
                        nxt(env, out)

                return loop1

            def loopn(env, out):
                loc = env.loc
                for v in _it(env, fn(env)):
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


def _charging(it: Callable) -> Callable:
    """The loop's iterable charged to the memory budget as well (a comprehension that keeps its
    items); the work budget is charged by the loop's own ``_it``, so only memory here."""

    def charged(env):
        xs = it(env)
        try:
            n = len(xs)
        except TypeError:
            return xs
        _charge(env, n)
        return xs

    return charged


def const(value):
    f = lambda env: value  # noqa: E731
    f.constant = value  # type: ignore[attr-defined]
    return f
