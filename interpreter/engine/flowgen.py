"""The flow's code generator: every block the runner can meet as a frame, decisions included,
becomes one Python function that runs it from a saved place to its end.

:mod:`interpreter.engine.effectgen` writes the code of *decision-free* effects (a ``set``, a
``move``, an ``if`` or a loop holding no decision, a call of such a procedure).  Here each block
that can stand in a frame (``setup``, ``flow``, option bodies, ``otherwise``, procedure bodies,
triggers, and the bodies of effects that hold a decision) gets a function

    blk(st, env, loc, pc, loop, S) -> S, or -1 - S when it stopped

that runs the block from ``pc`` with the frame's names ``loc`` and loop state ``loop`` (see
:mod:`interpreter.engine.flow`), repeats it as ``loop`` says, and returns what remains of the
move's step budget ``S``.  The decision-free effects are written inline; an effect that holds a
decision is Python control flow around a direct call of its nested block's function: ``if``
calls the branch's function, ``for_each``/``repeat``/``while`` call the body's function with the
loop's first state (the body's function runs the rest of the loop itself, as a Python loop),
``turn``/``phase``/``call`` the body's (a dynamic ``call`` finds its procedure first).  A
``choose`` whose listing is generated is written out (its seats, the listing called, the decision
set pending, or ``Choose.no_action``; a failed listing through ``Choose.relisted``); any other
``choose`` runs the verb's own ``run``.

Frames stay plain data: nothing is written to ``st.stack`` while the code runs.  Only when a
decision stops it (``st.pending`` set, or a frame pushed, as ``choose``'s ``otherwise`` does)
does each function on the way out insert its own frame, ``(block, index after the effect,
locals, loop)``, below the frames the inner code pushed, and return ``-1 - S``; the frames are
exactly those the frame runner (:func:`interpreter.engine.flow.run`) saves, the tail call
included (the last effect of a block that does not repeat leaves no frame).  So clone,
``to_json``/``from_json``, resuming, and the half-apply guarantee (``State.apply`` rebuilds the
state from its history when a move fails) are unchanged, and the runner only pops a frame and
calls its block's function.

Steps are counted as the runner counts them (one per effect run, the effect that crosses the
budget named in the error); the loop state of a resumed body is advanced as the runner advances
it (the names its ``let`` effects bound in one pass stay in the frame's locals for the next, as the
runner leaves them).  The safety argument of :mod:`interpreter.lang.codegen` holds: the source is
made from compiled effects and their parse trees, constants go through ``repr`` or the
namespace, names are the generator's own.
"""

from __future__ import annotations

from ..lang.codegen import GenerationFailed, _compile, _fell_back, comment
from ..lang.evaluator import unescape
from . import effectgen, flow
from .effectgen import _generate_run, inline_ok

__all__ = ["inline_ok", "finalize", "generate_blocks"]

#: False: generate no block functions, only the runs of decision-free effects that the frame
#: runner calls (the back end the differential tests compare the block functions against).
#: Read when a ruleset is compiled.
BLOCKS = True

#: False: every nested block is called through its function, none written out where it is
#: entered (:func:`_inline_block`; what the differential tests compare against).  Read when a
#: ruleset is compiled.
INLINE = True


def finalize(blocks, codegen_table) -> None:
    """Generate the code of ``blocks`` (a ruleset's, compiled), at load: every block that can
    stand in a frame as one function (:func:`generate_blocks`).  Should one fail to generate,
    the runner interprets frames instead, with every run of decision-free effects as one
    generated function (``Block.runs``); a block any of whose runs cannot be generated keeps
    the interpreter's runs (only the verbs that never push a frame count as simple there)."""
    memo: dict = {}
    simple_of = {block.id: [inline_ok(e, memo, set()) for e in block.effects] for block in blocks}
    if BLOCKS and generate_blocks(blocks, simple_of, codegen_table):
        return
    for block in blocks:
        simple = simple_of[block.id]
        if not any(simple):
            continue
        runs: list = [None] * (len(block.effects) + 1)
        n = len(block.effects)
        starts = [0] + [i + 1 for i in range(n) if not simple[i]]
        ok = True
        for pc in starts:
            j = pc
            while j < n and simple[j]:
                j += 1
            if j == pc:
                continue
            fn = _generate_run(block, pc, j, codegen_table)
            if fn is None:
                ok = False
                break
            runs[pc] = fn
        if ok:
            block.rebuild(simple, tuple(runs))


#: Most effects (nested decision-free bodies counted) one block's function may hold.
MAX_BLOCK_EFFECTS = 2000


def generate_blocks(blocks, simple_of: dict, table) -> bool:
    """Give every block of ``blocks`` that can stand in a frame its function (``Block.fn``) and
    the places it can resume at (``Block.entry``); ``simple_of[block id]`` says which of its
    effects are decision-free (:func:`interpreter.engine.effectgen.inline_ok`).  All or nothing:
    False (and no block changed) when one cannot be generated, the caller then keeps the
    interpreted runs."""
    inline_only: set = set()
    for block in blocks:
        for eff, simple in zip(block.effects, simple_of[block.id]):
            if simple:
                _nested(eff, inline_only)
    recursive = _recursive_calls(blocks, simple_of)  # (static calls through frames, dynamic calls' direct targets)
    owners = {}  # id of a loop's body block -> the loop (its function goes on to the next pass itself)
    for block in blocks:
        for eff, simple in zip(block.effects, simple_of[block.id]):
            if not simple and type(eff) in (flow.ForEach, flow.Repeat, flow.While):
                owners[id(eff.body)] = eff
    made = {}
    namespaces = []
    try:
        for block in blocks:
            if id(block) in inline_only:
                continue
            try:
                fn, ns, entry = _generate_block(block, simple_of, table, recursive, owners.get(id(block)), inline_only,
                                                inline=INLINE)
            except Exception as exc:  # noqa: BLE001 - the same block again, every nested block called
                _fell_back(f"{block.mark} with its nested blocks written out", exc)
                fn, ns, entry = _generate_block(block, simple_of, table, recursive, owners.get(id(block)), inline_only,
                                                inline=False)
            made[block.id] = (block, fn, entry)
            namespaces.append(ns)
        for ns in namespaces:  # the functions call each other by name (a procedure may call itself)
            for name in list(ns.d.get("CALLS", ())):
                ns.d[f"F{name}"] = made[name][1]
    except Exception as exc:  # noqa: BLE001 - never a user's error: the runner interprets instead
        _fell_back("blocks", exc)
        return False
    for block, fn, entry in made.values():
        block.fn = fn
        block.entry = entry
    return True


def _direct(eff) -> tuple:
    """The blocks the code of ``eff`` (an effect that holds a decision) calls directly."""
    t = type(eff)
    if t is flow.If:
        return (eff.then, eff.orelse)
    if t in (flow.ForEach, flow.Repeat, flow.While, flow.Turn, flow.Phase):
        return (eff.body,)
    if t is flow.Call and eff.dynamic is None and eff.proc is not None and eff.proc.block is not None:
        return (eff.proc.block,)
    return ()


def _candidates(eff) -> tuple:
    """The blocks a ``call: {dynamic: ...}`` may run: the procedures whose names start with the
    text its name starts with (``'ab_' + c.pair_ab``: every ``ab_...``), every procedure's when
    the expression does not start with a text."""
    prefix = ""
    tree = eff.dynamic.source[0] if eff.dynamic.source is not None else None
    while getattr(tree, "data", None) == "add":
        tree = tree.children[0]
    if getattr(tree, "data", None) == "string":
        prefix = unescape(str(tree.children[0])[1:-1])
    return tuple(p.block for name, p in eff.ctx_procs.items() if p.block is not None and name.startswith(prefix))


def _calls_graph(blocks, simple_of: dict, dynamic: dict | None) -> dict:
    """``id`` of each block -> the blocks its code may call directly: a nested block, a static
    ``call``'s procedure, and with ``dynamic`` (``id`` of a dynamic ``call`` -> its
    :func:`_candidates`) every procedure a dynamic ``call`` may name."""
    edges = {}
    for block in blocks:
        out = []
        for eff, simple in zip(block.effects, simple_of.get(block.id, ())):
            if not simple:
                out.extend(_direct(eff))
                if dynamic is not None and id(eff) in dynamic:
                    out.extend(dynamic[id(eff)])
        edges[id(block)] = out
    return edges


def _reaches(edges: dict, start, target) -> bool:
    """Whether ``target`` is ``start`` or can be called from it, however deep (see :func:`_calls_graph`)."""
    todo, seen = [start], set()
    while todo:
        b = todo.pop()
        if b is target:
            return True
        if id(b) not in seen:
            seen.add(id(b))
            todo.extend(edges.get(id(b), ()))
    return False


def _recursive_calls(blocks, simple_of: dict) -> tuple[set, dict]:
    """``id`` of every static ``call`` (holding a decision) whose procedure can reach the block
    the call is in again through direct calls: a procedure that calls itself, however deep; and
    for each dynamic ``call``, ``id`` -> the procedures' blocks it may call directly (those that
    cannot reach its block again).  A recursive call goes through the verb's own run (a frame
    for the runner) rather than a Python call, so a ruleset's recursion is bounded by the step
    budget, never by Python's stack.

    No chain of Python calls can come back to where it started: a chain of static calls alone
    is found in the graph of static calls, and a dynamic call's direct targets are those that
    cannot reach its block in the graph of every call, dynamic ones included."""
    calls = [(eff, block) for block in blocks for eff, simple in zip(block.effects, simple_of.get(block.id, ()))
             if not simple and type(eff) is flow.Call]
    candidates = {id(eff): _candidates(eff) for eff, _ in calls if eff.dynamic is not None}
    static, every = _calls_graph(blocks, simple_of, None), _calls_graph(blocks, simple_of, candidates)
    found = set()
    direct: dict = {}
    for eff, block in calls:
        if eff.dynamic is not None:
            direct[id(eff)] = frozenset(b for b in candidates[id(eff)] if not _reaches(every, b, block))
        elif _direct(eff) and _reaches(static, eff.proc.block, block):
            found.add(id(eff))
    return found, direct


def _nested(eff, out: set) -> None:
    """Add the blocks nested in the decision-free ``eff`` (they run inline, never as frames)."""
    t = type(eff)
    if t is flow.If:
        blocks = (eff.then, eff.orelse)
    elif t in (flow.ForEach, flow.Repeat, flow.While, flow.Turn, flow.Phase):
        blocks = (eff.body,)
    else:  # a procedure's or a trigger's block may stand in a frame elsewhere: kept
        return
    for b in blocks:
        out.add(id(b))
        for e in b.effects:
            _nested(e, out)


def _generate_block(block, simple_of: dict, table, recursive: tuple, owner=None, inline_only: frozenset | set = frozenset(),
                    inline: bool = True):
    """(function, namespace, entry places) of one block; raises when it cannot be generated.
    ``owner``: the ``for_each``, ``repeat`` or ``while`` whose body the block is (None for
    any other block), whose next pass the function then makes itself (see :func:`_next_lines`).
    ``inline_only``: ids of the blocks that get no function (bodies of decision-free effects).
    ``inline``: nested blocks that run once are written out where they are entered
    (:func:`_inline_block`); False calls every nested block through its function."""
    w = effectgen._Writer(table)
    w.fin = "return -1 - S"
    w.simple_of = simple_of  # for the option bodies a playout's decision runs in place (_inline_body)
    # the frame being written (its block's name in the namespace, its loop), the frames of the
    # blocks it is written out in (innermost first: see _inline_block), what may still be inlined
    w.blk, w.loopvar, w.frames = "BLK", "loop", []
    w.recursive, w.inline_only = recursive, inline_only
    w.inline_left = MAX_INLINED if inline else 0
    w.ns.d.update({"H_EACH": flow.EACH, "H_TIMES": flow.TIMES, "H_dict": dict, "H_len": len, "H_next": _next_pass,
                   "H_seat": effectgen._seat, "H_items": effectgen._items, "H_times": effectgen._times, "H_zip": zip,
                   "BLK": block})
    w.ns.d["CALLS"] = calls = set()
    effects = block.effects
    n = len(effects)
    simple = simple_of[block.id]
    if sum(map(effectgen._size, effects)) > MAX_BLOCK_EFFECTS:
        raise GenerationFailed(f"a block of more than {MAX_BLOCK_EFFECTS} effects")
    entry = {0}
    w.depth = 2
    a = 0
    while a <= n:
        b = a
        while b < n and simple[b]:
            b += 1
        if a == n:
            break
        w.line(f"if pc <= {a}:")
        w.depth += 1
        if b > a:
            w.line("try:")
            w.depth += 1
            for eff in effects[a:b]:
                effectgen._effect(w, eff)
            w.depth -= 1
            w.line("except (TapsterError, KeyboardInterrupt): raise")
            w.line("except Exception as exc: raise H_unexpected(exc, MARKS[m]) from None")
        if b < n:
            _stopping(w, effects[b], b, n, calls, recursive, inline_only)
            entry.add(b + 1)
        w.depth -= 1
        a = b + 1
    w.depth = 2
    _next_lines(w, owner)
    body = "\n".join(w.lines)
    name = f"blk_{block.id}"
    prologue = "".join(f"    {line}\n" for line in w.gen.prologue() if not line.startswith("loc ="))
    src = (
        f"# {comment(block.mark)}, the whole block\n"
        f"def {name}(st, env, loc, pc, loop, S):\n"
        f"{prologue}"
        "    stack = st.stack\n"
        "    base = H_len(stack)\n"
        "    m = 0\n"
        "    while True:\n"
        f"{body}\n"
        "        pc = 0\n"
    )
    w.ns.d["MARKS"] = tuple(w.marks)
    return _compile(src, name, w.ns, block.mark), w.ns, frozenset(entry)


def _next_lines(w, owner) -> None:
    """The end of a pass of a block: return when it does not repeat, else the next pass's names
    and loop, as :func:`_next_pass` makes them, written out for the loop that owns the block
    (``owner``: its kind known, the ``while`` condition inline); any other loop a frame holds
    goes through :func:`_next_pass`."""
    w.line("if loop is None: return S")
    generic = ["loc, loop = H_next(env, loc, loop)", "if loop is None: return S"]
    t = type(owner)
    if t is flow.ForEach or t is flow.Repeat:
        kind = "H_EACH" if t is flow.ForEach else "H_TIMES"
        w.line(f"if loop[0] is {kind}:")
        w.depth += 1
        w.line("i = loop[2] + 1")
        if t is flow.ForEach:
            w.line("items = loop[1]")
            w.line("if i >= H_len(items): return S")
            w.line("loc = H_dict(loc)")
            w.line("loc[loop[3]] = items[i]")
            w.line("loop = (H_EACH, items, i, loop[3])")
        else:
            w.line("if i >= loop[1]: return S")
            w.line("if loop[3] is not None:")
            w.line("    loc = H_dict(loc)")
            w.line("    loc[loop[3]] = i")
            w.line("loop = (H_TIMES, loop[1], i, loop[3])")
    elif t is flow.While:
        w.line(f"if loop[1] is {w.ns.bind(owner.cond, 'COND')}:")
        w.depth += 1
        w.line("env.loc = loc")
        w.expr(owner.cond, "go")
        w.line("if not go: return S")
    else:  # a block no loop owns: only a hand-written frame gives it one
        for line in generic:
            w.line(line)
        return
    w.depth -= 1
    w.line("else:")
    for line in generic:
        w.line("    " + line)


def _save(w, k: int, n: int) -> None:
    """The frame of the block being written, to resume after effect ``k`` of ``n``, inserted
    below what the inner code pushed (none for the last effect of a block that does not repeat:
    a tail call); then the frames of the blocks it is written out in (:func:`_inline_block`),
    each below the last, as each function on the way out would insert its own."""
    _save_one(w, w.blk, k, n, "loc", w.loopvar)
    for blk, kk, nn, loc, loop in w.frames:
        _save_one(w, blk, kk, nn, loc, loop)


def _save_one(w, blk: str, k: int, n: int, loc: str, loop: str) -> None:
    if k < n - 1:
        w.line(f"stack.insert(base, ({blk}, {k + 1}, {loc}, {loop}))")
    elif loop != "None":
        w.line(f"if {loop} is not None: stack.insert(base, ({blk}, {k + 1}, {loc}, {loop}))")


#: Most effects (nested ones counted) of one nested block written out where it is entered
#: (:func:`_inline_block`), and most in all that one block's function writes out so.
MAX_INLINE_BLOCK = 60
MAX_INLINED = 300
#: Most blocks written out one inside another.
MAX_INLINE_DEPTH = 3


def _call_block(w, nested, loc: str, loop: str, k: int, n: int, calls: set) -> None:
    """Run the block ``nested`` (entered with the names ``loc`` and the loop ``loop``): written
    out here when it runs once and is small (:func:`_inline_block`), else through its function;
    stop here when it stopped."""
    if loop == "None" and len(w.frames) < MAX_INLINE_DEPTH and nested.effects:
        size = sum(map(effectgen._size, nested.effects))
        if size <= MAX_INLINE_BLOCK and size <= w.inline_left and nested.id in w.simple_of:
            w.inline_left -= size
            _inline_block(w, nested, loc, k, n, calls)
            return
    calls.add(nested.id)
    w.line(f"r = F{nested.id}(st, env, {loc}, 0, {loop}, S)")
    _stop_if(w, "r < 0", "return r", k, n)
    w.line("S = r")


def _inline_block(w, nested, loc: str, k: int, n: int, calls: set) -> None:
    """The block ``nested``, entered once with the names ``loc`` from effect ``k`` (of ``n``) of
    the block being written, written out here as its function would run it called with pc 0 and
    no loop: its decision-free runs inline, each effect that holds a decision as its function
    writes it (so blocks nest in blocks, up to :data:`MAX_INLINE_DEPTH`).  Its steps and marks
    are counted in this function, as the call would count them.  Frames are written only when
    it stops: its own frame (to resume after the effect that stopped, a tail call leaving none,
    as its function would save it) and then this block's (:func:`_save`), the frames the call
    would have left; so resuming runs ``nested``'s own function, and the runner sees the same
    stack.  Saves the call, the protocol of the called function and the test of its result."""
    saved = w.fresh("saved")
    w.line(f"{saved} = loc")
    if loc != "loc":
        w.line(f"loc = {loc}")
    w.line(f"# {comment(nested.mark)}, the nested block written out")
    outer = (w.blk, w.loopvar, w.frames)
    w.frames = [(w.blk, k, n, saved, w.loopvar), *w.frames]
    w.blk, w.loopvar = w.ns.bind(nested, "BLK"), "None"
    try:
        effects = nested.effects
        simple = w.simple_of[nested.id]
        count = len(effects)
        a = 0
        while a < count:
            b = a
            while b < count and simple[b]:
                b += 1
            if b > a:
                w.line("try:")
                w.depth += 1
                for eff in effects[a:b]:
                    effectgen._effect(w, eff)
                w.depth -= 1
                w.line("except (TapsterError, KeyboardInterrupt): raise")
                w.line("except Exception as exc: raise H_unexpected(exc, MARKS[m]) from None")
            if b < count:
                _stopping(w, effects[b], b, count, calls, w.recursive, w.inline_only)
            a = b + 1
    finally:
        w.blk, w.loopvar, w.frames = outer
    w.line(f"loc = {saved}")


def _stop_if(w, test: str, back: str, k: int, n: int) -> None:
    """``if test``: this block's frame saved to resume after effect ``k`` (of ``n``) unless the
    game ended, then ``back`` (the return that hands the stop to the caller)."""
    w.line(f"if {test}:")
    w.depth += 1
    w.line("if not st.finished:")
    w.depth += 1
    _save(w, k, n)
    w.depth -= 1
    w.line(back)
    w.depth -= 1


def _stopping(w, eff, k: int, n: int, calls: set, recursive: tuple, inline_only=frozenset()) -> None:
    """The code of effect ``k`` (of ``n``), one that holds a decision."""
    w.line(f"# {comment(eff.mark)}: {eff.verb}")
    w.step(eff)
    t = type(eff)
    if t is flow.If:
        c = w.fresh("c")
        w.line("env.loc = loc")
        w.expr(eff.cond, c)
        w.line(f"if {c}:")
        w.depth += 1
        if eff.then.effects:
            _call_block(w, eff.then, "loc", "None", k, n, calls)
        else:
            w.line("pass")
        w.depth -= 1
        if eff.orelse.effects:
            w.line("else:")
            w.depth += 1
            _call_block(w, eff.orelse, "loc", "None", k, n, calls)
            w.depth -= 1
    elif t is flow.ForEach and eff.body.effects:
        items = w.fresh("items")
        w.line("env.loc = loc")
        w.expr(eff.items, items)
        w.line(f"{items} = H_tuple({items}) if {items}.__class__ is H_list else H_items({items}, MARKS[m])")
        effectgen._snapshot(w, eff.items, items, items=True)
        w.line(f"if {items}:")
        w.depth += 1
        w.line("new = H_dict(loc)")
        w.line(f"new[{eff.name!r}] = {items}[0]")
        _call_block(w, eff.body, "new", f"(H_EACH, {items}, 0, {eff.name!r})", k, n, calls)
        w.depth -= 1
    elif t is flow.Repeat and eff.body.effects:
        times = w.fresh("n")
        w.line("env.loc = loc")
        w.expr(eff.times, times)
        w.line(f"{times} = H_times({times}, MARKS[m])")
        w.line(f"if {times} > 0:")
        w.depth += 1
        if eff.name is not None:
            w.line("new = H_dict(loc)")
            w.line(f"new[{eff.name!r}] = 0")
        else:
            w.line("new = loc")
        _call_block(w, eff.body, "new", f"(H_TIMES, {times}, 0, {eff.name!r})", k, n, calls)
        w.depth -= 1
    elif t is flow.While and eff.body.effects:
        w.line("env.loc = loc")
        c = w.fresh("c")
        w.expr(eff.cond, c)
        w.line(f"if {c}:")
        w.depth += 1
        loop = w.ns.bind((flow.WHILE, eff.cond), "W")
        _call_block(w, eff.body, "loc", loop, k, n, calls)
        w.depth -= 1
    elif t is flow.Turn:
        effectgen._turn_start(w, eff)
        if eff.body.effects:
            _call_block(w, eff.body, "loc", "None", k, n, calls)
    elif t is flow.Phase:
        w.line(f"st.phase = {eff.name!r}")
        if eff.body.effects:
            _call_block(w, eff.body, "loc", "None", k, n, calls)
    elif t is flow.Call and eff.dynamic is not None and recursive[1].get(id(eff)):
        _dynamic_call(w, eff, recursive[1][id(eff)], k, n)
    elif t is flow.Call and _direct(eff) and id(eff) not in recursive[0]:
        w.line("env.loc = loc")
        new = _call_args(w, eff)
        if eff.proc.block.effects:
            w.line(f"new = {new}")
            _call_block(w, eff.proc.block, "new", "None", k, n, calls)
    elif t is flow.Choose and eff.generated is not None:
        # Choose.run written out for a decision whose listing is generated: the deciding seats
        # (`current`, or `player:` evaluated: one seat inline, anything else through
        # Choose.seats), the actions listed, the decision pending, or `otherwise` (Choose.no_action)
        ch, acts = w.ns.bind(eff, "EFF"), w.fresh("acts")
        w.line("env.loc = loc")
        if eff.by_current:
            seats = "(st.current,)"
        else:
            pl, seats = w.fresh("pl"), w.fresh("seats")
            w.expr(eff.player, pl)
            w.line(f"{seats} = ({pl},) if {pl}.__class__ is H_int and 0 <= {pl} < st.num_players else {ch}.seats(st, {pl})")
            w.line("env.loc = loc")
        w.line("try:")
        w.line(f"    {acts} = {w.ns.bind(eff.generated, 'LEGAL')}(env)")
        w.line("except Exception as exc:")
        w.line(f"    {acts} = {ch}.relisted(st, loc, exc)")
        w.line(f"if {acts}:")
        w.depth += 1
        if all(not o.body.effects or id(o.body) not in inline_only for o in eff.options):
            _picked_in_place(w, eff, ch, acts, seats, k, n, calls)
            w.line("else:")
            w.line(f"    st.pending = ({ch}, loc, {acts}, {seats})")
        else:
            w.line(f"st.pending = ({ch}, loc, {acts}, {seats})")
        w.depth -= 1
        w.line("else:")
        w.line(f"    {ch}.no_action(st, loc)")
        _stopped(w, k, n)
    else:  # `choose`, and the rest through the verb's own run: it may push frames or stop
        w.line(f"{w.ns.bind(eff, 'EFF')}.run(st, loc)")
        _stopped(w, k, n)


def _picked_in_place(w, eff, ch: str, acts: str, seats: str, k: int, n: int, calls: set) -> None:
    """A playout's decision taken where it is listed (:mod:`interpreter.engine.playout`): when
    ``env.pick`` is set and returns an index into the listed actions, the action is recorded as
    :meth:`State.apply <interpreter.engine.state.State.apply>` records it (``history``,
    ``record``), a new move's budgets start (as :func:`interpreter.engine.flow.run` starts
    them), and the chosen option's body runs through its function with its names bound, as
    ``Choose.resume`` would push it; then this block goes on after the ``choose``, as the frame
    runner would resume it.  Nothing is listed twice and no frame is written unless the body
    stopped.  Opens an ``if`` whose ``else`` the caller writes (the decision left pending)."""
    pk, i, a = w.fresh("pk"), w.fresh("i"), w.fresh("a")
    w.line(f"{pk} = env.pick")
    w.line(f"if {pk} is not None and ({i} := {pk}({ch}, {acts}, {seats})) is not None:")
    w.depth += 1
    w.line(f"{a} = {acts}[{i}]")
    w.line(f"st.history = ({a}, st.history)")
    w.line(f"st.record = (({seats}, {a}, {eff.secret!r}), st.record)")
    w.line("env.left = env.budget")
    w.line("env.mem = env.memory")
    w.line("S = st.ruleset.step_budget")
    with_body = [o for o in eff.options if o.body.effects]
    for j, o in enumerate(with_body):
        test = "if" if j == 0 else "elif"
        if len(with_body) == 1 and len(eff.options) == 1:
            w.line("if True:")
        else:
            w.line(f"{test} {a}.name == {o.name!r}:")
        w.depth += 1
        if _inlinable(w, o.body):
            _inline_body(w, o, a)
        elif o.names:
            _bind_names(w, o, a, "new")
            _call_block(w, o.body, "new", "None", k, n, calls)
        else:
            _call_block(w, o.body, "loc", "None", k, n, calls)
        w.depth -= 1
    w.depth -= 1


def _bind_names(w, o, a: str, target: str) -> None:
    """``target`` = a new frame dict: this block's ``loc`` with option ``o``'s ``for`` names
    bound to the arguments of the action ``a`` (as ``Choose.resume`` binds them)."""
    w.line(f"{target} = H_dict(loc)")
    if len(o.names) == 1:
        w.line(f"{target}[{o.names[0]!r}] = {a}.args[0]")
    else:
        w.line(f"{target}.update(H_zip({o.names!r}, {a}.args))")


#: Most effects (nested ones counted) of an option body a playout's decision runs written out
#: where it is taken (:func:`_inline_body`); a larger body is called through its function.
MAX_INLINE_BODY = 40


def _inlinable(w, body) -> bool:
    """Whether the option body ``body`` is written out where a playout takes its decision: every
    effect decision-free (it cannot stop, so it needs no frame of its own) and at most
    :data:`MAX_INLINE_BODY` effects, nested ones counted."""
    simple = w.simple_of.get(body.id)
    return bool(simple) and all(simple) and sum(map(effectgen._size, body.effects)) <= MAX_INLINE_BODY


def _inline_body(w, o, a: str) -> None:
    """The decision-free body of option ``o`` run where the playout's decision is taken, as its
    block's function would run it when called with pc 0 and no loop: its names bound in a new
    frame dict (the option's ``for`` names from the action ``a``; with none, the frame of the
    ``choose`` itself, as the call passes it), its effects counted and marked in this function
    (the same step count: the budget was just restarted), a Python error turned into the
    ruleset's error at the effect that raised it, an ``end_game`` returning as the call's
    result would be returned; then this block's frame dict back.  Saves the call, the body
    function's protocol and the test of its result at every decision of a playout."""
    saved = w.fresh("saved")
    w.line(f"{saved} = loc")
    if o.names:
        _bind_names(w, o, a, "loc")
    w.line(f"# the body of option {comment(o.name)}, written out")
    w.line("try:")
    w.depth += 1
    for eff in o.body.effects:
        effectgen._effect(w, eff)
    w.depth -= 1
    w.line("except (TapsterError, KeyboardInterrupt): raise")
    w.line("except Exception as exc: raise H_unexpected(exc, MARKS[m]) from None")
    w.line(f"loc = {saved}")


def _call_args(w, eff) -> str:
    """A ``call``'s arguments evaluated in order (each copied where it may share the state, as
    ``Call.run`` copies it); returns the source of the procedure's new locals dict."""
    args = []
    for pname, ex in eff.args:
        v = w.fresh("a")
        w.expr(ex, v)
        effectgen._snapshot(w, ex, v)
        args.append((pname, v))
    return "{" + ", ".join(f"{pname!r}: {v}" for pname, v in args) + "}"


def _dynamic_call(w, eff, direct: frozenset, k: int, n: int) -> None:
    """``call: {dynamic: NAME, with: ...}`` written out (:meth:`flow.Call.run`'s steps, in its
    order): the name evaluated, the procedure found (or ``Call.missing``'s error), the arguments
    evaluated and copied where they may share the state; then a procedure of ``direct`` (one that
    cannot reach this block again) through its block's function, as a static ``call`` does, any
    other pushed as a frame (the runner runs it next, so recursion stays bounded by the step
    budget)."""
    call = w.ns.bind(eff, "EFF")
    name, proc, blk = w.fresh("d"), w.fresh("pr"), w.fresh("bl")
    w.line("env.loc = loc")
    w.expr(eff.dynamic, name)
    w.line(f"{proc} = {w.ns.bind(eff.ctx_procs, 'PROCS')}.get({name}) if {name}.__class__ is {w.ns.bind(str, 'T')} else None")
    w.line(f"if {proc} is None: {call}.missing({name})")
    new = _call_args(w, eff)
    w.line(f"{blk} = {proc}.block")
    w.line(f"if {blk}.effects:")
    w.depth += 1
    w.line(f"new = {new}")
    w.line(f"if {blk} in {w.ns.bind(direct, 'DIRECT')}:")
    w.depth += 1
    w.line(f"r = {blk}.fn(st, env, new, 0, None, S)")
    _stop_if(w, "r < 0", "return r", k, n)
    w.line("S = r")
    w.depth -= 1
    w.line("else:")
    w.depth += 1
    w.line(f"stack.append(({blk}, 0, new, None))")
    _stopped(w, k, n)
    w.depth -= 2


def _stopped(w, k: int, n: int) -> None:
    """After effect ``k`` (of ``n``) ran a decision or a verb's own run: stop here (this frame
    saved below the ones it pushed) when it set a decision, ended the game or pushed frames."""
    _stop_if(w, "st.pending is not None or st.finished or H_len(stack) != base", "return -1 - S", k, n)


def _next_pass(env, loc: dict, loop: tuple) -> tuple:
    """After a pass of a repeating block, ``(locals, loop)`` of the next pass, advanced as the
    frame runner advances it (:func:`interpreter.engine.flow.run`), or ``(loc, None)`` when
    the loop is over.  ``loc`` holds the names as the pass left them."""
    kind = loop[0]
    if kind is flow.EACH:
        items, i, name = loop[1], loop[2] + 1, loop[3]
        if i >= len(items):
            return loc, None
        loc = dict(loc)
        loc[name] = items[i]
        return loc, (flow.EACH, items, i, name)
    if kind is flow.TIMES:
        n, i, name = loop[1], loop[2] + 1, loop[3]
        if i >= n:
            return loc, None
        if name is not None:
            loc = dict(loc)
            loc[name] = i
        return loc, (flow.TIMES, n, i, name)
    env.loc = loc  # WHILE: the condition; a failure again through the checked evaluation
    cond = loop[1]
    try:
        go = cond.fn(env)
    except Exception:  # noqa: BLE001 - re-run checked for the precise error
        go = cond(env)
    return loc, (loop if go else None)
