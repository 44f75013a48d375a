"""The code of decision-free effects: each effect that cannot stop for a decision written as
Python source, for the flow's code generator (:mod:`interpreter.engine.flowgen`).

Most effects never stop: a ``set``, a ``move``, an ``if`` whose branches hold no decision, a
``for_each`` over such a body, a ``call`` of such a procedure.  :func:`inline_ok` finds them (a
*decision-free* effect: it never asks a decision, never calls a procedure by a computed name,
and calls no procedure that can reach itself; an ``end_game`` is one, the code returns after
it).  :func:`_effect` writes one in Python's own control flow: ``if``/``else``, ``for`` loops for
``for_each``/``repeat``/``while``, procedure bodies as calls of their own generated functions
(:func:`_procedure_run`), and :func:`_generate_run` makes a run of them one function

    run(st, env, loc, S) -> (loc, S)

(the runner's fallback when a whole block cannot be generated).  ``loc`` is the frame's names
(a dict, replaced, never changed, as frames do), ``S`` what remains of the move's step budget:
every effect run counts one step, exactly as the runner counts them, and the effect that
crosses the budget is the one named in the error.

Expressions are written inline (see :mod:`interpreter.lang.codegen`, whose safety argument holds
here: the source is made from the compiled effects and their parse trees, names are the
generator's own, constants go through ``repr`` or the namespace); each one is evaluated in a
``try`` whose ``except`` evaluates it again through its :class:`~interpreter.lang.expression.Compiled`
for the precise error.  Effects without a generated form here (``shuffle``, ``random``,
``roll``, some moves; an ``add`` whose sides are not both whole numbers) call their own code.  A Python error escaping an
effect becomes a FlowError at that effect's mark.
"""

from __future__ import annotations

import ast
from typing import Any

from ..errors import ExpressionError, FlowError, TapsterError
from ..lang.codegen import GenerationFailed, _compile, _fell_back, _Gen, _Ns, _operand_frag, _tree_frag, comment
from ..lang.frags import Frag
from ..model import render
from . import flow
from .places import _CONTAINERS, _SHARED, set_path, snapshot  # the values LValue.set copies before it stores them; what a name keeps

__all__ = ["inline_ok"]

#: Most effects (nested bodies counted) one generated run may hold; a longer run is split.
MAX_RUN_EFFECTS = 400


def inline_ok(eff: Any, memo: dict, visiting: set) -> bool:
    """Whether ``eff`` is decision-free (see the module docstring); ``memo`` caches answers by
    ``id``, ``visiting`` holds the procedures being looked into (a cycle is not decision-free)."""
    key = id(eff)
    if key in memo:
        return memo[key]
    t = type(eff)
    if t in (flow.Move, flow.Shuffle, flow.Set, flow.Add, flow.Let, flow.Log, flow.Random, flow.Roll, flow.EndGame):
        ok = True
    elif t is flow.If:
        ok = _block_ok(eff.then, memo, visiting) and _block_ok(eff.orelse, memo, visiting)
    elif t in (flow.ForEach, flow.Repeat, flow.While, flow.Turn, flow.Phase):
        ok = _block_ok(eff.body, memo, visiting)
    elif t is flow.Call:
        if eff.dynamic is not None or eff.proc is None or eff.proc.block is None:
            ok = False
        elif id(eff.proc) in visiting:
            return False  # a cycle: not decided yet, and not memoised on the way back
        else:
            visiting.add(id(eff.proc))
            ok = _block_ok(eff.proc.block, memo, visiting)
            visiting.discard(id(eff.proc))
    elif t is flow.Emit:
        ok = all(_block_ok(tr.block, memo, visiting) for tr in eff.triggers)
    else:  # choose, and any verb this generator does not know
        ok = False
    memo[key] = ok
    return ok


def _block_ok(block, memo, visiting) -> bool:
    return all(inline_ok(e, memo, visiting) for e in block.effects)


def _size(eff) -> int:
    t = type(eff)
    if t is flow.If:
        return 1 + sum(map(_size, eff.then.effects)) + sum(map(_size, eff.orelse.effects))
    if t in (flow.ForEach, flow.Repeat, flow.While, flow.Turn, flow.Phase):
        return 1 + sum(map(_size, eff.body.effects))
    if t is flow.Emit:
        return 1 + sum(sum(map(_size, tr.block.effects)) for tr in eff.triggers)
    return 1


# ---------------------------------------------------------------------------------------------
# Generation


class _Writer:
    """Lines of Python source with indentation, and the namespace they run in."""

    def __init__(self, table):
        self.ns = _Ns({"FlowError": FlowError, "ExpressionError": ExpressionError, "H_render": render,
                       "H_unexpected": _unexpected, "H_steps": _steps_error, "H_items": _items,
                       "H_times": _times, "H_seat": _seat, "H_list": list, "H_dict": dict,
                       "H_copy": flow._copy_stored, "H_setpath": set_path, "H_snap": snapshot, "H_SHARED": _SHARED,
                       "H_range": range, "Exception": Exception,
                       "KeyboardInterrupt": KeyboardInterrupt, "TapsterError": TapsterError,
                       "ValueError": ValueError})
        self.gen = _Gen(self.ns, table)
        self.gen.hoist_current = False
        self.lines: list[str] = []
        self.depth = 1
        self.marks: list = []
        self.table = table
        self.n = 0
        self.fin = "return loc, S"  # how the code returns when an `end_game` has run

    def line(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    def fresh(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def expr(self, compiled, target: str) -> bool:
        """``target = <compiled's value>``, inline, with the checked evaluation on failure.

        Returns whether the value is known to need no copy when stored (see :func:`_assign`):
        a YAML scalar or a literal (a number, a text, a truth value, ``none``) that is not a
        container, an empty list written ``[]`` (a new list at every evaluation, shared with
        nothing), or a whole number (:class:`~interpreter.lang.frags.Frag`'s ``bits``: a number,
        or none where a map has no such edge, neither of which is copied)."""
        if compiled.source is None:  # a YAML scalar
            self.line(f"{target} = {self.ns.const(compiled.constant)}")
            return type(compiled.constant) not in _CONTAINERS
        try:
            # what it evaluates first (a comprehension's list, charged) as statements, and what
            # it reads more than once read into locals first (see _operand_frag)
            pre, frag = self._operand_frag(compiled)
        except GenerationFailed:  # a form the generator leaves to the evaluator (`**`)
            self.line(f"{target} = {self.ns.bind(compiled, 'X')}(env)")
            return False
        src = frag.src
        if not pre and (src == "[]" or _scalar_literal(src)):  # cannot fail: no `try`
            self.line(f"{target} = {src}")
            return True
        self.line("try:")
        for line in pre:
            self.line(f"    {line}")
        self.line(f"    {target} = {src}")
        self.line("except Exception:")
        self.line(f"    {target} = {self.ns.bind(compiled, 'X')}(env)")
        return frag.bits is not None

    def _operand_frag(self, compiled) -> tuple[list, Frag]:
        """:func:`~interpreter.lang.codegen._operand_frag` of ``compiled``, where ``current``
        and each variable or zone the expression names more than once are read once, into
        Python locals, before it (nothing changes them while one expression is evaluated, and
        reading them cannot fail: every declared variable and zone is in the state)."""
        gen = self.gen
        names = _repeated_names(compiled)
        if not names:
            return _operand_frag(gen, compiled)
        scope = compiled.source[1]
        cache: dict[str, str] = {}
        lines = []
        for name in sorted(names):
            getter = scope.resolve(name) if name not in scope.locals else None
            reads = getattr(getter, "reads", None)
            if reads is None or reads[0] not in ("var", "zone"):
                continue
            py = cache[name] = f"r_{len(cache) + 1}"
            lines.append(f"{py} = {'V' if reads[0] == 'var' else 'Z'}[{reads[1]!r}]")
            gen.uses.add("V" if reads[0] == "var" else "Z")
        if "current" in names and "current" not in scope.locals:
            gen.cur_name = "cur"
            lines.append("cur = env.state.current")
        gen.read_cache = cache or None
        try:
            pre, frag = _operand_frag(gen, compiled)
        finally:
            gen.cur_name = None
            gen.read_cache = None
        return [*lines, *pre], frag

    def step(self, eff) -> None:
        """Count one step for ``eff`` and remember it as the effect running now."""
        self.marks.append(eff)
        self.line(f"m = {len(self.marks) - 1}")
        self.line("S -= 1")
        self.line("if S < 0: H_steps(env, MARKS[m])")


def _repeated_names(compiled) -> set[str]:
    """The names ``compiled``'s parse tree may read more than once: twice in its text, or once
    inside a comprehension (read at every item, or written out once per item when unrolled).
    A bound name that shadows a global one is counted too (its read is then simply not cached)."""
    source = getattr(compiled, "source", None)
    if source is None:
        return set()
    seen: dict[str, int] = {}
    todo = [(source[0], 1)]
    while todo:
        node, weight = todo.pop()
        if node.data == "name":
            n = str(node.children[0])
            seen[n] = seen.get(n, 0) + weight
        if node.data in ("call_gen", "listcomp"):
            weight = 2
        todo.extend((ch, weight) for ch in node.children if hasattr(ch, "data"))
    return {n for n, k in seen.items() if k > 1}


def _scalar_literal(src: str) -> bool:
    """Whether the generated fragment ``src`` is a Python literal of a number, text, truth value
    or ``None`` (``ast.literal_eval`` reads it; nothing is evaluated)."""
    if len(src) > 200:
        return False
    try:
        return type(ast.literal_eval(src)) in (int, float, str, bool, type(None))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def _generate_run(block, pc: int, j: int, table):
    try:
        return _generate_run_unchecked(block, pc, j, table)
    except Exception as exc:  # noqa: BLE001 - never a user's error: the runner interprets the run instead
        _fell_back(str(block.mark), exc)
        return None


def _generate_run_unchecked(block, pc: int, j: int, table):
    w = _Writer(table)
    for eff in block.effects[pc:j]:
        _effect(w, eff)
    body = "\n".join(w.lines) or "    pass"
    name = f"run_{block.id}_{pc}"
    prologue = "".join(f"    {line}\n" for line in w.gen.prologue() if not line.startswith("loc ="))
    src = (
        f"# {comment(block.mark)}, effects {pc} to {j - 1}\n"
        f"def {name}(st, env, loc, S):\n"
        f"{prologue}"
        "    m = 0\n"
        "    try:\n"
        + "\n".join("    " + ln for ln in body.split("\n"))
        + "\n    except (TapsterError, KeyboardInterrupt): raise\n"
        "    except Exception as exc: raise H_unexpected(exc, MARKS[m]) from None\n"
        "    return loc, S\n"
    )
    w.ns.d["MARKS"] = tuple(w.marks)
    return _compile(src, name, w.ns, block.mark)


def _body(w: _Writer, block) -> None:
    """The effects of a nested block (an ``if`` branch, a loop body) in the current frame's
    names, which their ``let``s may extend only inside the block."""
    if not block.effects:
        w.line("pass")
        return
    for eff in block.effects:
        _effect(w, eff)


def _effect(w: _Writer, eff) -> None:
    w.line(f"# {comment(eff.mark)}: {eff.verb}")
    w.step(eff)
    t = type(eff)
    handler = _HANDLERS.get(t)
    if handler is not None:
        handler(w, eff)
        if t in _NESTS:  # an `end_game` inside ends the run, and the loops around it
            w.line(f"if st.finished: {w.fin}")
        return
    if t is flow.EndGame:
        w.line("env.loc = loc")
        w.line(f"{w.ns.bind(eff, 'EFF')}.run(st, loc)")
        w.line(w.fin)
        return
    _own_run(w, eff)


def _own_run(w: _Writer, eff) -> None:
    """The verb's own run: it reads the names from env.loc, and may bind new ones."""
    w.line("env.loc = loc")
    w.line(f"r = {w.ns.bind(eff, 'EFF')}.run(st, loc)")
    w.line("if r is not None: loc = r")


def _set(w: _Writer, eff) -> None:
    # ``env.loc`` is set once: evaluating an expression never rebinds it (a generated function
    # reads its parameters as Python names, an interpreted call runs in an Env of its own, a
    # checked comprehension puts back the names it bound), and nothing between here and the
    # stores rebinds ``loc``.
    w.line("env.loc = loc")
    names = []
    for lv, ex in eff.pairs:
        v = w.fresh("v")
        names.append((lv, v, w.expr(ex, v), ex.shares_state))
    for lv, v, owned, shares in names:
        _assign(w, lv, v, owned, shares)


def _assign(w: _Writer, lv, v: str, owned: bool = False, shares: bool = True) -> None:
    """``lv.set(env, v, shares)`` (see :class:`~interpreter.engine.flow.LValue`) inline: the value
    copied when it is a container (the same copy and size limits), then stored; whatever fails
    there calls ``set`` itself, which gives its own error.  ``owned``: the value is known to need
    no copy (see :meth:`_Writer.expr`), so none is tested for."""
    name = w.ns.bind(lv, "LV")
    if not owned:
        keep = "" if shares else f", False, {lv.kind == 'var'}"
        w.line(f"if {v}.__class__ is H_list or {v}.__class__ is H_dict or {v}.__class__ is H_tuple: {v} = H_copy({v}, {name}{keep})")
    if lv.kind == "var":
        w.line(f"st.vars[{lv.name!r}] = {v}")
        return
    if lv.kind == "path":  # `res[p][k]`: each list or record on the way replaced (places.set_path)
        try:
            keys = _path_keys(w, lv)
        except GenerationFailed:
            w.line(f"{name}.set(env, {v})")
            return
        w.line("try:")
        w.line(f"    H_setpath(st.vars[{lv.name!r}], {keys}, {v})")
        w.line("except Exception:")
        w.line(f"    {name}.set(env, {v})")
        return
    place = lv.index if lv.kind == "item" else lv.obj
    try:
        if place.source is None:  # (the compiler gives every place its parse tree)
            raise GenerationFailed(lv.text)
        src = _tree_frag(w.gen, place, {})
    except GenerationFailed:
        w.line(f"{name}.set(env, {v})")
        return
    if lv.kind == "item":
        w.line("try:")
        w.line(f"    st.vars[{lv.name!r}][{src}] = {v}")
        w.line("except Exception:")
        w.line(f"    {name}.set(env, {v})")
        return
    o = w.fresh("o")
    w.line("try:")
    w.line(f"    {o} = {src}")
    w.line("except Exception:")
    w.line(f"    {o} = None")
    w.line(f"if {o}.__class__ is H_Component and {lv.name!r} in {o}.mutable:")
    w.line(f"    st.props[{o}.index][{lv.name!r}] = {v}")
    w.line("else:")
    w.line(f"    {name}.set(env, {v})")


def _add(w: _Writer, eff) -> None:
    """``add``, pair by pair as :meth:`~interpreter.engine.changes.Add.run`: a variable or an
    item of one read, the amount evaluated and the two whole numbers added inline; a sum of
    anything else, a property, or any failure runs the pair through ``Add.pair`` (the same
    value or the same error; expressions are pure, so evaluating again changes nothing)."""
    eff_name = w.ns.bind(eff, "EFF")
    for k, (lv, ex) in enumerate(eff.pairs):
        w.line("env.loc = loc")
        try:
            if lv.kind not in ("var", "item", "path"):
                raise GenerationFailed(lv.text)
            place = f"st.vars[{lv.name!r}]"
            if lv.kind == "item":
                if lv.index.source is None:
                    raise GenerationFailed(lv.text)
                place += f"[{_tree_frag(w.gen, lv.index, {})}]"
            elif lv.kind == "path":
                keys_src = _path_keys(w, lv)
            amount = w.ns.const(ex.constant) if ex.source is None else _tree_frag(w.gen, ex, {})
        except GenerationFailed:
            w.line(f"{eff_name}.pair(st, {k})")
            continue
        if lv.kind == "path":  # the indexes evaluated once, into a tuple the read and the store both use
            keys = w.fresh("keys")
            w.line("try:")
            w.line(f"    {keys} = {keys_src}")
            w.line("except Exception:")
            w.line(f"    {keys} = None")
        v = w.fresh("v")
        w.line("try:")
        if lv.kind == "path":
            read = place + "".join(f"[{keys}[{i}]]" for i in range(len(lv.index)))
            w.line(f"    {v} = {read} + {amount}")
        else:
            w.line(f"    {v} = {place} + {amount}")
        w.line("except Exception:")
        w.line(f"    {v} = None")
        w.line(f"if {v}.__class__ is H_int and H_NBIG <= {v} <= H_BIG:")
        if lv.kind == "path":  # set_path cannot fail where the read just worked, but a failure still falls back
            w.line("    try:")
            w.line(f"        H_setpath({place}, {keys}, {v})")
            w.line("    except Exception:")
            w.line(f"        {eff_name}.pair(st, {k})")
        else:
            w.line(f"    {place} = {v}")
        w.line("else:")
        w.line(f"    {eff_name}.pair(st, {k})")


def _path_keys(w: _Writer, lv) -> str:
    """The Python source of the tuple of a ``"path"`` place's indexes (``(p, k)`` for
    ``res[p][k]``), each from its parse tree (:func:`_tree_frag`).

    Raises:
        GenerationFailed: an index has no parse tree or no generated form.
    """
    parts = []
    for ix in lv.index:
        if ix.source is None:
            raise GenerationFailed(lv.text)
        parts.append(_tree_frag(w.gen, ix, {}))
    return "(" + ", ".join(parts) + ",)"


def _let(w: _Writer, eff) -> None:
    w.line("env.loc = loc")
    vals = []
    for k, ex in eff.pairs:
        v = w.fresh("v")
        w.expr(ex, v)
        _snapshot(w, ex, v)
        vals.append((k, v))
    w.line("loc = H_dict(loc)")
    for k, v in vals:
        w.line(f"loc[{k!r}] = {v}")


def _snapshot(w: _Writer, ex, v: str, items: bool = False) -> None:
    """``v = snapshot(v)`` where the value of ``ex`` (with ``items``: an item of it) may share
    the state's own lists (:func:`interpreter.engine.places.snapshot`): what a name, a loop or a
    parameter keeps."""
    if ex.items_share_state if items else ex.shares_state:
        w.line(f"if {v}.__class__ in H_SHARED: {v} = H_snap({v})")


def _log(w: _Writer, eff) -> None:
    w.line("if st.log is not None:")
    w.depth += 1
    w.line("env.loc = loc")
    w.line(f"{w.ns.bind(eff, 'EFF')}.run(st, loc)")
    w.depth -= 1


def _if(w: _Writer, eff) -> None:
    c = w.fresh("c")
    w.line("env.loc = loc")
    w.expr(eff.cond, c)
    saved = w.fresh("saved")
    w.line(f"{saved} = loc")
    w.line(f"if {c}:")
    w.depth += 1
    _body(w, eff.then)
    w.depth -= 1
    if eff.orelse.effects:
        w.line("else:")
        w.depth += 1
        _body(w, eff.orelse)
        w.depth -= 1
    w.line(f"loc = {saved}")


def _for_each(w: _Writer, eff) -> None:
    items, outer, item = w.fresh("items"), w.fresh("outer"), w.fresh("item")
    w.line("env.loc = loc")
    w.expr(eff.items, items)
    w.line(f"{items} = H_tuple({items}) if {items}.__class__ is H_list else H_items({items}, MARKS[m])")
    _snapshot(w, eff.items, items, items=True)
    w.line(f"{outer} = loc")
    w.line(f"for {item} in {items}:")
    w.depth += 1
    w.line(f"loc = H_dict({outer})")
    w.line(f"loc[{eff.name!r}] = {item}")
    _body(w, eff.body)
    w.depth -= 1
    w.line(f"loc = {outer}")


def _repeat(w: _Writer, eff) -> None:
    n, outer, i = w.fresh("n"), w.fresh("outer"), w.fresh("i")
    w.line("env.loc = loc")
    w.expr(eff.times, n)
    w.line(f"{n} = H_times({n}, MARKS[m])")
    w.line(f"{outer} = loc")
    w.line(f"for {i} in H_range({n}):")
    w.depth += 1
    if eff.name is not None:
        w.line(f"loc = H_dict({outer})")
        w.line(f"loc[{eff.name!r}] = {i}")
    else:
        w.line(f"loc = {outer}")
    _body(w, eff.body)
    w.depth -= 1
    w.line(f"loc = {outer}")


def _while(w: _Writer, eff) -> None:
    c, outer, mark = w.fresh("c"), w.fresh("outer"), w.fresh("wm")
    w.line(f"{outer} = loc")
    w.line(f"{mark} = m")
    w.line("while True:")
    w.depth += 1
    w.line(f"loc = {outer}")
    w.line("env.loc = loc")
    w.expr(eff.cond, c)
    w.line(f"if not {c}: break")
    if not eff.body.effects:
        w.line(f"raise FlowError('`while` with an empty body and a true condition never ends', MARKS[{mark}].mark)")
    _body(w, eff.body)
    w.depth -= 1
    w.line(f"loc = {outer}")


def _turn_start(w: _Writer, eff) -> None:
    """A ``turn``'s start (:meth:`flow.Turn.run`): its seat evaluated and tested (``H_seat``
    raises the error), made current and counted.  The flow generator writes it too."""
    p = w.fresh("p")
    w.line("env.loc = loc")
    w.expr(eff.player, p)
    # the class test stays even for a whole number: a map attribute read between two nodes with
    # no edge is none (Frag.bits bounds it only where it is a number), and H_seat names that
    w.line(f"if {p}.__class__ is not H_int or not 0 <= {p} < st.num_players: H_seat(st, {p}, MARKS[m])")
    w.line(f"st.current = {p}")
    w.line(f"if not st.turns[{p}]: st.order += ({p},)")
    w.line(f"st.turns[{p}] += 1")


def _turn(w: _Writer, eff) -> None:
    _turn_start(w, eff)
    saved = w.fresh("saved")
    w.line(f"{saved} = loc")
    _body(w, eff.body)
    w.line(f"loc = {saved}")


def _phase(w: _Writer, eff) -> None:
    w.line(f"st.phase = {eff.name!r}")
    saved = w.fresh("saved")
    w.line(f"{saved} = loc")
    _body(w, eff.body)
    w.line(f"loc = {saved}")


def _call(w: _Writer, eff) -> None:
    saved = w.fresh("saved")
    w.line(f"{saved} = loc")
    w.line("env.loc = loc")
    args = []
    for k, ex in eff.args:
        v = w.fresh("a")
        w.expr(ex, v)
        _snapshot(w, ex, v)
        args.append((k, v))
    w.line("loc = {" + ", ".join(f"{k!r}: {v}" for k, v in args) + "}")
    fn = w.ns.bind(_procedure_run(eff.proc.block, w.table), "PROC")
    w.line(f"_, S = {fn}(st, env, loc, S)")
    w.line(f"loc = {saved}")


def _emit(w: _Writer, eff) -> None:
    saved, new = w.fresh("saved"), w.fresh("new")
    w.line(f"{saved} = loc")
    w.line("env.loc = loc")
    args = []
    for k, ex in eff.args:
        v = w.fresh("a")
        w.line(f"{v} = {w.ns.bind(ex, 'X')}(env)")
        _snapshot(w, ex, v)
        args.append((k, v))
    w.line(f"{new} = {{" + ", ".join(f"{k!r}: {v}" for k, v in args) + "}")
    w.line(f"env.loc = {new}")
    fired = []
    for tr in eff.triggers:
        f = w.fresh("fired")
        fired.append((f, tr))
        if tr.cond is None:
            w.line(f"{f} = True")
        else:
            w.line(f"{f} = {w.ns.bind(tr.cond, 'X')}(env)")
    for f, tr in fired:
        w.line(f"if {f}:")
        w.depth += 1
        w.line(f"loc = {new}")
        _body(w, tr.block)
        w.depth -= 1
    w.line(f"loc = {saved}")


def _zone(w: _Writer, ref, target: str) -> bool:
    """``target = the live list of zone ref`` (not keyed), with the checked read on failure;
    False when the zone is keyed (the verb's own run handles it)."""
    if ref is None or type(ref) is flow.KeyedZoneRef or ref.source is None:
        return False
    trees, scope = ref.source
    try:
        parts = [f"Z[{ref.decl.name!r}]"] + [f"[{w.gen.g(tree, scope, {}).src}]" for tree in trees]
    except GenerationFailed:
        return False
    w.gen.uses.add("Z")
    w.line("try:")
    w.line(f"    {target} = {''.join(parts)}")
    w.line("except Exception:")
    w.line(f"    {target} = {w.ns.bind(ref, 'ZR')}.get(env)")
    return True


def _move(w: _Writer, eff) -> None:
    """A ``move`` as ``Move.run`` makes it: one component to the top of a zone inline (then, in a
    ruleset with ``refill_when: immediately``, the refill of the emptied decks), the rest
    through the verb's own ``_transfer`` (which refills itself)."""
    if eff.src is None and not eff.keyed and eff.what is not None and eff.at == "top" and not eff.name:
        _move_from_anywhere(w, eff)
        return
    if eff.keyed and eff.src is not None and eff.what is not None and eff.at == "top" and not eff.name and not eff.refill_now:
        _move_keyed(w, eff)
        return
    if eff.keyed or eff.src is None:
        _own_run(w, eff)
        return
    eff_name = w.ns.bind(eff, "EFF")
    w.line("env.loc = loc")
    src, dst = w.fresh("src"), w.fresh("dst")
    if not (_zone(w, eff.src, src) and _zone(w, eff.dst, dst)):
        _own_run(w, eff)
        return
    if eff.what is None:  # draw the top `count`
        count = eff.count
        if eff.at == "top" and not eff.name and count.source is None and type(count.constant) is int and count.constant == 1:
            # one card from a zone that has one, inline; an empty zone (its refill, a short draw,
            # the error) through the verb's own _transfer
            x = w.fresh("x")
            w.line(f"if {src}:")
            w.line(f"    {x} = {src}.pop()")
            _on_top(w, eff, x, dst)
            w.line("else:")
            w.line(f"    {eff_name}._transfer(st, env, {src}, {dst}, None)")
            return
        w.line(f"r = {eff_name}._transfer(st, env, {src}, {dst}, None)")
        w.line("if r is not None: loc = r")
        return
    x = w.fresh("x")
    w.expr(eff.what, x)
    if eff.at == "top" and not eff.name:
        # One component from a zone to the top of another: the common case, inline.
        w.line(f"if {x}.__class__ is H_Component:")
        w.line("    try:")
        w.line(f"        {src}.remove({x})")
        w.line("    except ValueError:")
        w.line(f"        raise FlowError(f'{{{x}.id}} is not in `' + {w.ns.const(eff.src.text)} + '`', MARKS[m].mark) from None")
        _on_top(w, eff, x, dst)
        w.line("else:")
        w.line(f"    {eff_name}._transfer(st, env, {src}, {dst}, {x})")
        return
    w.line(f"r = {eff_name}._transfer(st, env, {src}, {dst}, {x})")
    w.line("if r is not None: loc = r")


def _move_keyed(w: _Writer, eff) -> None:
    """``move: {what: C, from: A, to: B}`` where A or B is a stack of a keyed zone (a piece
    moving from node to node), as ``Move._run_keyed`` makes it: the stacks located by key (the
    destination created), one component moved inline (anything else through ``_transfer``),
    and whatever happens, the emptied source's key deleted and the destination kept stored."""
    w.line("env.loc = loc")
    src, dst, skey, dkey = w.fresh("src"), w.fresh("dst"), w.fresh("skey"), w.fresh("dkey")
    sref, dref = w.ns.bind(eff.src, "ZR"), w.ns.bind(eff.dst, "ZR")
    src_keyed, dst_keyed = type(eff.src) is flow.KeyedZoneRef, type(eff.dst) is flow.KeyedZoneRef
    w.line(f"{src}, {skey} = {sref}.locate(env, False)" if src_keyed else f"{src} = {sref}.get(env)")
    w.line(f"{dst}, {dkey} = {dref}.locate(env, True)" if dst_keyed else f"{dst} = {dref}.get(env)")
    w.line("try:")
    w.depth += 1
    x = w.fresh("x")
    w.expr(eff.what, x)
    w.line(f"if {x}.__class__ is H_Component:")
    w.line("    try:")
    w.line(f"        {src}.remove({x})")
    w.line("    except ValueError:")
    w.line(f"        raise FlowError(f'{{{x}.id}} is not in `' + {w.ns.const(eff.src.text)} + '`', MARKS[m].mark) from None")
    _on_top(w, eff, x, dst)  # (no immediate refill: not written out with one)
    w.line("else:")
    w.line(f"    {w.ns.bind(eff, 'EFF')}._transfer(st, env, {src}, {dst}, {x})")
    w.depth -= 1
    w.line("finally:")
    if src_keyed:
        w.line(f"    {sref}.settle(env, {src}, {skey})")
    if dst_keyed:
        w.line(f"    {dref}.settle(env, {dst}, {dkey})")


def _on_top(w: _Writer, eff, x: str, dst: str) -> None:
    """Inside an ``if``: component ``x`` put on top of ``dst``, the zone index told, and in a
    ruleset with ``refill_when: immediately`` the emptied zones refilled (``Move._transfer``'s
    end for one component)."""
    w.line(f"    {dst}.append({x})")
    w.line(f"    st.where[{x}] = {dst}")
    if eff.refill_now:
        _refill(w, eff, "    ")


def _refill(w: _Writer, eff, indent: str) -> None:
    """After a move in a ruleset with ``refill_when: immediately``: State.refill_immediately
    when one of those zones is empty (it refills each empty one)."""
    w.gen.uses.add("Z")
    # a per-player zone: some seat's list is empty (`[] in`: no builtin needed in generated code)
    test = " or ".join(f"[] in Z[{name!r}]" if per_player else f"not Z[{name!r}]" for name, per_player in eff.refill_now)
    w.line(f"{indent}if {test}: st.refill_immediately(env)")


def _move_from_anywhere(w: _Writer, eff) -> None:
    """``move: {what: C, to: Z}`` without ``from``: one component taken from wherever it lies
    (State.remove_anywhere, through the zone index) to the top of Z, inline; anything but one
    component goes through the verb's own ``_transfer``, as ``Move.run`` does."""
    w.line("env.loc = loc")
    dst = w.fresh("dst")
    if not _zone(w, eff.dst, dst):
        _own_run(w, eff)
        return
    eff_name = w.ns.bind(eff, "EFF")
    x = w.fresh("x")
    w.expr(eff.what, x)
    w.line(f"if {x}.__class__ is H_Component:")
    w.line(f"    st.remove_anywhere({x}, MARKS[m].mark)")
    _on_top(w, eff, x, dst)
    w.line("else:")
    w.line(f"    {eff_name}._transfer(st, env, None, {dst}, {x})")


_NESTS = (flow.If, flow.ForEach, flow.Repeat, flow.While, flow.Turn, flow.Phase, flow.Call, flow.Emit)

_HANDLERS = {
    flow.Move: _move,
    flow.Set: _set,
    flow.Add: _add,
    flow.Let: _let,
    flow.Log: _log,
    flow.If: _if,
    flow.ForEach: _for_each,
    flow.Repeat: _repeat,
    flow.While: _while,
    flow.Turn: _turn,
    flow.Phase: _phase,
    flow.Call: _call,
    flow.Emit: _emit,
}


def _procedure_run(block, table):
    """A decision-free procedure's whole body as one generated run (made once per block).

    Raises:
        GenerationFailed (or any error of generation): the caller's run is then not generated.
    """
    if block.whole is None:
        block.whole = _generate_run_unchecked(block, 0, len(block.effects), table)
    return block.whole


# ---------------------------------------------------------------------------------------------
# Helpers of the generated runs (the same checks and messages as the verbs' own ``run``)


def _steps_error(env, eff):
    raise flow._budget_error(env.state.ruleset.step_budget, eff)


def _items(items, eff):
    if isinstance(items, dict):
        return tuple(items)
    try:
        return tuple(items)
    except TypeError:
        raise ExpressionError(f"`for_each` needs a list, got {render(items)!r}", eff.mark) from None


def _times(n, eff):
    if type(n) is not int:
        raise ExpressionError(f"`repeat` needs a whole number of times, got {render(n)!r}", eff.mark)
    return n


def _seat(st, p, eff):
    if type(p) is not int or not 0 <= p < st.num_players:
        raise ExpressionError(f"`turn` needs a seat from 0 to {st.num_players - 1}, got {render(p)!r}", eff.mark)


def _unexpected(exc: BaseException, eff) -> FlowError:
    if isinstance(exc, RecursionError):
        return FlowError(f"`{eff.verb}` failed: nested too deeply", eff.mark)
    return FlowError(f"`{eff.verb}` failed: {type(exc).__name__}: {exc}", eff.mark)
