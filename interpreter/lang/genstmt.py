"""The code generator's statement forms: a body written as Python statements where that saves
calls (:class:`StatementForms`): ``and``/``or`` chains and conditionals become ``if``
statements, ``any``/``all`` of a generator a ``for`` loop that returns at the deciding item,
and what an expression evaluates first is evaluated into a name (``s_`` and a counter) and
charged by a subtraction and a test written out, in the expression's order of evaluation, so
every charge of the work and memory budgets falls where the expression form
(:class:`~interpreter.lang.genexpr.ExpressionForms`) makes it.
``tests/lang/test_codegen_statements.py`` checks both forms agree in value, error and charge.
"""

from __future__ import annotations

from .builtins import BUILTINS
from .frags import (
    _LINEAR,
    _LOCAL,
    ALLOCATING,
    MAX_UNROLL,
    Frag,
    GenerationFailed,
    _chain,
    call_arguments,
    range_arguments,
    small_range,
)
from .genexpr import ExpressionForms


class StatementForms(ExpressionForms):
    """Statement forms over the expression forms (see the module docstring)."""

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
                return self._assign_any_all(name, elt, clauses.children, t, scope, bound), Frag(t, bits=1, truth=True)
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
                return lines, self.subscript(obj, f"{obj.src}[{self.g(node.children[1], scope, bound).src}]", read=False)
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
        return Frag(f"({a.src} {op} {b.src})", bits=1, truth=True)

    def _assign_any_all(self, name: str, elt_node, clauses: list, t: str, scope, bound) -> list[str]:
        """``t = any(...)``/``all(...)`` of a generator with one ``for`` as a loop that breaks."""
        first, *rest = clauses
        it, charge = self._loop_iterable(first.children[1], scope, bound, False, True)
        s = self.stmt_temp()
        targets = [str(x) for x in first.children[0].children]
        inner_scope = scope.with_locals(targets)
        py = [self.pyname(x) for x in targets]
        inner_bound = {**bound, **dict(zip(targets, py))}
        self.loop_binds(py, it.zdepth)
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
        statements (after ``x``, as the expression does, reading ``x`` having no effect); so
        does such a test that leads an ``and`` chain (evaluated first, whatever follows)."""
        kind = str(getattr(node, "data", "")).rstrip("_")
        if kind == "and":
            first, *rest = _chain(node, "and")
            pre, src = self._test(first, scope, bound)
            if pre:
                return pre, "(" + " and ".join([src, *(self.g(x, scope, bound).src for x in rest)]) + ")"
            return [], self.g(node, scope, bound).src
        ch = node.children if kind == "compare" else ()
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
        if it.zdepth is not None:
            self.depths[t] = it.zdepth
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
                self.loop_binds(py, it.zdepth)
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
                    new.append((consts, sc, [*conds, cond]))
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
        truth = True  # every term True or False itself: the chain needs no conversion
        for consts, sc, conds in combos:
            ef = self.g(elt_node, sc, {**bound, **consts})
            elt = ef.src
            truth = truth and ef.truth and (name == "all" or all(c.truth for c in conds))
            cond = " and ".join(f"({c.src})" for c in conds)
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
        if truth:
            return Frag(f"({joiner.join(terms)})", bits=1, truth=True)
        return Frag(f"(True if ({joiner.join(terms)}) else False)", bits=1, truth=True)
