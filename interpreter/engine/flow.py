"""The flow engine: effect verbs and the loop that runs them until the next decision.

A ruleset's ``setup``, ``flow``, procedures, option bodies and triggers compile to
:class:`Block` objects: tuples of effects.  Where the game stands is a stack of *frames* held in
the :class:`~interpreter.engine.state.State` as plain data::

    (block, pc, locals, loop)

``block`` is the compiled block, ``pc`` the index of the next effect, ``locals`` the names bound
there (a dict treated as immutable: binding a name replaces it), ``loop`` None or a tuple that
says how the block repeats (``("each", items, i, name)``, ``("times", n, i, name)``,
``("while", cond)``).  No Python generator holds game progress, so a state can be cloned,
saved and resumed at any decision.

Every verb is one class here with a ``compile`` classmethod (YAML -> effect) and a ``run``
method, registered in :data:`EFFECTS`; adding a verb is one class, one table entry, one schema
entry and one test.  What the verbs read and write, zone references and assignable places, is
in :mod:`interpreter.engine.places` (imported here under the same names).  Most blocks run as
generated code (:mod:`interpreter.engine.flowgen`); :func:`run` then only calls a block's
function for each frame, and interprets frames itself when there is none (code generation off,
explicit chance).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from ..errors import ExpressionError, FlowError, Mark
from ..lang.codegen import WorkExceeded, generate_legal
from ..lang.expression import Env, _operand
from ..limits import MAX_DICE
from ..model import Action, Component, render
from .places import KeyedZoneRef, LValue, ZoneRef, _copy, _copy_stored  # noqa: F401 - the places, re-exported
from .rng import below as rng_below
from .rng import dice as rng_dice

if TYPE_CHECKING:  # pragma: no cover
    from ..compile.compiler import Ctx
    from .state import State

__all__ = ["Block", "Effect", "EFFECTS", "run", "ZoneRef", "LValue"]

EACH, TIMES, WHILE = "each", "times", "while"
_tuple_new = tuple.__new__  # builds an Action without NamedTuple's Python-level __new__


class Block:
    """A compiled list of effects; ``id`` indexes ``Ruleset.blocks`` (for saving frames).

    ``runs[pc]`` (and ``quiet_runs[pc]`` for a game whose log is not recorded) is
    ``(simple, j, effect, last)``: ``simple`` the *simple* effects from ``pc`` up to ``j`` (or,
    where :mod:`interpreter.engine.flowgen` generated the run, its function), the
    index of the next effect that is not simple, ``effect`` (None at the end of the block) and
    ``last`` whether it is the block's last.  A simple effect (``Effect.simple``) never touches
    the stack, the pending decision or the end of the game, so the runner calls a run of them
    in a row without saving the frame between them (the frame's ``pc`` is saved before the
    next effect that is not simple).  ``quiet_runs`` leaves out the ``log`` effects, which do
    nothing when the game is not logged (in a narrated card game, logs are the commonest effect).
    ``fn`` is the whole block as one generated function and ``entry`` the ``pc`` values it can
    resume at (:mod:`interpreter.engine.flowgen`; None and empty when the block is interpreted).
    """

    __slots__ = ("effects", "id", "mark", "runs", "quiet_runs", "whole", "fn", "entry")

    def __init__(self, effects: tuple, id: int, mark: Mark | None):
        self.effects = effects
        self.id = id
        self.mark = mark
        self.whole = None  # a decision-free procedure's body as one generated run (flowgen)
        self.fn = None  # the whole block as one generated function (blockgen), or None
        self.entry = frozenset()  # the pcs its function can resume at
        self.rebuild([eff.simple for eff in effects], None)

    def rebuild(self, simple: list, gens) -> None:
        """Compute the runs with ``simple[i]`` saying whether effect i is simple, and ``gens``
        the block's generated runs (:mod:`interpreter.engine.flowgen`; None to interpret them)."""
        effects = self.effects
        n = len(effects)
        runs: list = [((), n, None, False)] * (n + 1)
        quiet: list = [((), n, None, False)] * (n + 1)
        for i in range(n - 1, -1, -1):
            eff = effects[i]
            if not simple[i]:
                runs[i] = quiet[i] = ((), i, eff, i == n - 1)
                continue
            after, j, nxt, last = runs[i + 1]
            runs[i] = ((eff, *after), j, nxt, last)
            after_quiet = quiet[i + 1][0]
            quiet[i] = (after_quiet if type(eff) is Log else (eff, *after_quiet), j, nxt, last)
        if gens is not None:  # a generated run replaces the effects where a run starts
            for i, gen in enumerate(gens):
                if gen is not None:
                    runs[i] = quiet[i] = (gen, *runs[i][1:])
        self.runs = tuple(runs)
        self.quiet_runs = tuple(quiet)

    def __repr__(self) -> str:
        return f"Block({self.id}, {len(self.effects)} effects, at {self.mark})"


class Effect:
    """Base of the effect verbs.  ``mark`` is the effect's place in the ruleset; ``binds`` the
    local names it adds to its frame for the effects after it.

    ``run(st, loc)`` returns None, or, for an effect that binds names (``let``, ``as:``), the
    new locals dict of the frame (frames never mutate theirs).  ``simple``: the verb never
    touches ``st.stack``, ``st.pending`` or ``st.finished`` (see :class:`Block`).
    """

    verb = ""
    simple = False
    __slots__ = ("mark", "binds")

    def run(self, st: State, loc: dict) -> dict | None:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def compile(cls, ctx: Ctx, spec: Any, path: tuple, scope) -> Effect:  # pragma: no cover
        raise NotImplementedError


def _bind(loc: dict, name: str, value: Any) -> dict:
    """``loc`` with ``name`` bound: a new locals dict (frames never mutate theirs), which the
    effect returns to the runner."""
    new = dict(loc)
    new[name] = value
    return new


# ---------------------------------------------------------------------------------------------
# The runner


def run(st: State, finish: bool = True) -> None:
    """Run effects from the top of ``st.stack`` until a decision is pending or the game ends.

    When the stack empties the game ends with the ruleset's default reason (unless ``finish``
    is false, as for ``setup``).

    A frame whose block has a generated function (``Block.fn``, :mod:`interpreter.engine.flowgen`)
    and stands at a place it can resume at (``Block.entry``) is popped and handed to it: the
    function runs the block to its end, loops included, and returns what remains of the step
    budget, or ``-1 - left`` when it stopped (a decision, the end of the game, or frames it
    pushed to run next, below which it saved its own).  Other frames are interpreted here:

    The frame on top is saved only before an effect that is not simple (see :class:`Block`):
    such an effect may push a frame on top of it or set the pending decision, and the game
    resumes from the saved ``pc``.  When that effect is the last of a block that does not
    repeat, the frame is popped first instead (a tail call: nothing is left to do in it, so
    the frame pushed next, e.g. by a ``call`` or a ``turn``, returns straight to the frame
    below).  After an error the state is not to be played on (effects before it have run).

    Raises:
        FlowError: the ruleset's step budget is exhausted (a rule loops forever), or a decision
            has no legal action and no ``otherwise``.
        ExpressionError: an expression failed.
    """
    stack = st.stack
    env = st.env
    env.left = env.budget  # env.refill(), written out (every move runs it): the work and memory budgets
    env.mem = env.memory
    budget = st.ruleset.step_budget
    steps = 0
    quiet = st.log is None  # log effects do nothing: step over them (Block.quiet_runs)
    while stack:
        block, pc, loc, loop = stack[-1]
        fn = block.fn
        if fn is not None and pc in block.entry:  # the whole block as one function (blockgen)
            stack.pop()
            left = fn(st, env, loc, pc, loop, budget - steps)
            if left < 0:  # it stopped: a decision, the end, or frames pushed to run next
                if st.pending is not None or st.finished:
                    return
                left = -1 - left
            steps = budget - left
            continue
        runs = block.quiet_runs if quiet else block.runs
        while True:
            simple, j, eff, last = runs[pc]
            if j > pc:
                # A run of simple effects: none touches the stack, so the frame need not follow.
                if simple.__class__ is not tuple:  # one generated function (interpreter/engine/flowgen.py)
                    loc, left = simple(st, env, loc, budget - steps)
                    steps = budget - left
                    if st.finished:  # an `end_game` in the run
                        return
                else:
                    if steps + j - pc > budget:  # as if run one by one: the effect that crossed it
                        _run_to_budget(st, block.effects, pc, loc, budget - steps)
                    steps += j - pc
                    for e in simple:
                        new = e.run(st, loc)
                        if new is not None:  # it bound names (`let`, `as:`)
                            loc = new
            if eff is None:  # the end of the block
                break
            steps += 1
            if steps > budget:
                raise _budget_error(budget, eff)
            pc = j + 1
            if last and loop is None:
                stack.pop()  # a tail call: see above
                frame = None
            else:
                frame = (block, pc, loc, loop)
                stack[-1] = frame
            eff.run(st, loc)
            if st.pending is not None or st.finished:
                return
            if frame is None or stack[-1] is not frame:  # pushed or popped a frame: start again from the top
                break
        if eff is not None:
            continue
        # The block is done: repeat it or leave it.
        if loop is None:
            stack.pop()
            continue
        kind = loop[0]
        if kind is EACH:
            items, i, name = loop[1], loop[2] + 1, loop[3]
            if i < len(items):
                new = dict(loc)
                new[name] = items[i]
                stack[-1] = (block, 0, new, (EACH, items, i, name))
            else:
                stack.pop()
        elif kind is TIMES:
            n, i, name = loop[1], loop[2] + 1, loop[3]
            if i < n:
                if name is not None:
                    new = dict(loc)
                    new[name] = i
                    loc = new
                stack[-1] = (block, 0, loc, (TIMES, n, i, name))
            else:
                stack.pop()
        else:  # WHILE
            env = st.env
            env.loc = loc
            if loop[1](env):
                stack[-1] = (block, 0, loc, loop)
            else:
                stack.pop()
    if finish and not st.finished:
        st.finish(st.ruleset.default_reason)


def _run_to_budget(st: State, effects: tuple, pc: int, loc: dict, left: int) -> None:
    """Run the ``left`` effects from ``pc`` that the step budget still allows, then raise the
    budget error naming the next one (the runner's slow path at the budget's edge)."""
    for eff in effects[pc : pc + left]:
        new = eff.run(st, loc)
        if new is not None:
            loc = new
    raise _budget_error(st.ruleset.step_budget, effects[pc + left])


# ---------------------------------------------------------------------------------------------
# Effect verbs


def _budget_error(budget: int, eff: Effect) -> FlowError:
    return FlowError(
        f"the step budget of {budget} effects in one move was exhausted: a rule seems to loop forever", eff.mark
    )


def _opt(spec: Any, key: str, default: Any = None) -> Any:
    return spec.get(key, default) if isinstance(spec, dict) else default


#: mark of a ``move`` declared ``on_empty: short`` -> times it drew short in this process
#: (``tapster check`` reads and clears it to note the moves that did).
SHORT_DRAWS: Counter = Counter()


class Move(Effect):
    """``move``: move components into a zone.

    ``what`` (components, or one) from anywhere (or from ``from``), or the top ``count`` of
    ``from`` when ``what`` is absent; ``to`` the zone; ``at``: ``top`` (default), ``bottom``,
    or an index expression; ``as``: bind the moved components (a list) to a local name.
    Drawing from an empty zone with ``refill_from`` first refills and shuffles it; after the
    move, every zone declared ``refill_when: immediately`` that is empty is refilled at once
    (``refill_now``: the ruleset declares one).  A keyed zone's stack (``to: "field[k]"``) is
    created when first moved into and forgotten when a move leaves it empty.
    """

    verb = "move"
    simple = True
    __slots__ = ("what", "src", "dst", "count", "at", "name", "keyed", "refill_now", "short")  # refill_now: zone names

    @classmethod
    def compile(cls, ctx, spec, path, scope):
        e = cls()
        if not isinstance(spec, dict):
            raise ctx.error("`move` takes a mapping: {what: ..., from: ..., to: ...}", path)
        e.what = ctx.expr(spec["what"], path + ("what",), scope) if "what" in spec else None
        e.src = ctx.zone(spec["from"], path + ("from",), scope) if "from" in spec else None
        if e.what is None and e.src is None:
            raise ctx.error("`move` needs `what` or `from`", path)
        e.dst = ctx.zone(spec["to"], path + ("to",), scope)
        e.count = ctx.expr(spec.get("count", 1), path + ("count",), scope)
        at = spec.get("at", "top")
        e.at = at if at in ("top", "bottom") else ctx.expr(at, path + ("at",), scope)
        e.name = spec.get("as")
        e.binds = (e.name,) if e.name else ()
        e.keyed = type(e.dst) is KeyedZoneRef or type(e.src) is KeyedZoneRef
        # the zones refilled the moment they run out (shared zones), checked after every move
        e.refill_now = tuple(z.name for z in ctx.zones.values() if z.refill_when == "immediately")
        e.short = spec.get("on_empty", "error") == "short"
        return e

    def run(self, st, loc):
        env = st.env
        env.loc = loc
        if self.keyed:
            return self._run_keyed(st, env)
        src_ref = self.src
        try:
            src = src_ref.read(env) if src_ref is not None else None
            dst = self.dst.read(env)
        except Exception:  # noqa: BLE001 - read again, checked, for the precise error
            src = src_ref.get(env) if src_ref is not None else None
            dst = self.dst.get(env)
        if self.what is None:
            return self._transfer(st, env, src, dst, None)
        try:
            items = self.what.fn(env)
        except Exception:  # noqa: BLE001 - re-run checked for the precise error
            items = self.what(env)
        if type(items) is Component and src is not None and self.at == "top":
            # One component from a named zone to the top of another, the common case (`what:
            # card`; moves are a hot path): without the general path's lists.
            try:
                src.remove(items)
            except ValueError:
                raise FlowError(f"{items.id} is not in `{self.src.text}`", self.mark) from None
            dst.append(items)
            st.where[items] = dst  # the hint State.locate reads
            if self.refill_now:
                st.refill_immediately(env)
            return _bind(loc, self.name, [items]) if self.name else None
        return self._transfer(st, env, src, dst, items)

    def _run_keyed(self, st, env):
        """A keyed source or destination: locate the stacks by key before moving, create the
        destination, and delete the keys of stacks left empty (the Keyed invariant)."""
        src_ref, dst_ref = self.src, self.dst
        src = skey = dkey = None
        if type(src_ref) is KeyedZoneRef:
            src, skey = src_ref.locate(env, False)
        elif src_ref is not None:
            src = src_ref.get(env)
        if type(dst_ref) is KeyedZoneRef:
            dst, dkey = dst_ref.locate(env, True)
        else:
            dst = dst_ref.get(env)
        try:
            items = None
            if self.what is not None:
                try:
                    items = self.what.fn(env)
                except Exception:  # noqa: BLE001 - re-run checked for the precise error
                    items = self.what(env)
            return self._transfer(st, env, src, dst, items)
        finally:
            if type(src_ref) is KeyedZoneRef:
                src_ref.settle(env, src, skey)
            if type(dst_ref) is KeyedZoneRef:
                dst_ref.settle(env, dst, dkey)

    def _transfer(self, st, env, src, dst, items):
        """Move ``items`` (the value of ``what``), or the top ``count`` of ``src`` when there is
        no ``what``, from ``src`` (None: from wherever each is) to ``dst``."""
        moved = []
        if self.what is None:
            try:
                n = self.count.fn(env)
            except Exception:  # noqa: BLE001 - re-run checked for the precise error
                n = self.count(env)
            for _ in range(n):
                if not src:
                    st.refill(self.src.decl, src, env)
                    if not src:
                        if not self.short:
                            raise FlowError(
                                f"`{self.src.text}` is empty: the move draws {n} and found {len(moved)} (a rule that draws "
                                "from an empty deck; if the rules say to draw what there is, declare `on_empty: short`)",
                                self.mark)
                        SHORT_DRAWS[self.mark] += 1
                        break
                moved.append(src.pop())
        else:
            if type(items) is Component:
                items = (items,)
            elif items is None:
                items = ()
            else:
                items = tuple(items)
            for c in items:
                if type(c) is not Component:
                    raise FlowError(f"`move` can only move components, not {render(c)!r}", self.mark)
                if src is not None:
                    try:
                        src.remove(c)
                    except ValueError:
                        raise FlowError(f"{c.id} is not in `{self.src.text}`", self.mark) from None
                else:
                    st.remove_anywhere(c, self.mark)
                moved.append(c)
        where = st.where  # the hints State.locate reads
        for c in moved:
            where[c] = dst
        at = self.at
        if at == "top":
            dst.extend(moved)
        elif at == "bottom":
            dst[0:0] = moved[::-1]
        else:
            i = at(env)
            dst[i:i] = moved
        if self.refill_now:
            st.refill_immediately(env)
        if self.name:
            return _bind(env.loc, self.name, moved)
        return None


class Shuffle(Effect):
    """``shuffle: ZONE``: put the zone in a uniformly random order (the state's generator)."""

    verb = "shuffle"
    simple = True
    __slots__ = ("zone",)

    @classmethod
    def compile(cls, ctx, spec, path, scope):
        e = cls()
        e.zone = ctx.zone(spec, path, scope)
        e.binds = ()
        return e

    def run(self, st, loc):
        env = st.env
        env.loc = loc
        st.shuffle(self.zone.get(env))


class Set(Effect):
    """``set: {PLACE: EXPR, ...}``: assign variables, items of variables, or component properties."""

    verb = "set"
    simple = True
    __slots__ = ("pairs",)
    add = False

    @classmethod
    def compile(cls, ctx, spec, path, scope):
        e = cls()
        if not isinstance(spec, dict) or not spec:
            raise ctx.error(f"`{cls.verb}` takes a mapping of places to expressions", path)
        e.pairs = tuple(
            (ctx.lvalue(k, path + (k,), scope), ctx.expr(v, path + (k,), scope)) for k, v in spec.items()
        )
        e.binds = ()
        return e

    def run(self, st, loc):
        env = st.env
        env.loc = loc
        pairs = self.pairs
        if len(pairs) == 1:  # one place, the common case: without the list of values
            lv, ex = pairs[0]
            lv.set(env, ex(env))
            return
        values = [(lv, ex(env)) for lv, ex in pairs]  # evaluate all, then assign
        for lv, value in values:
            lv.set(env, value)


class Add(Set):
    """``add: {PLACE: EXPR, ...}``: add to numeric places (subtract with a negative amount)."""

    verb = "add"
    __slots__ = ()

    def run(self, st, loc):
        env = st.env
        env.loc = loc
        for lv, ex in self.pairs:
            try:
                lv.set(env, lv.get(env) + ex(env))
            except TypeError as exc:
                raise ExpressionError(f"cannot add to `{lv.text}`: {exc}", lv.mark) from None


class Let(Effect):
    """``let: {NAME: EXPR, ...}``: bind local names for the effects after it in the block."""

    verb = "let"
    simple = True
    __slots__ = ("pairs",)

    @classmethod
    def compile(cls, ctx, spec, path, scope):
        e = cls()
        if not isinstance(spec, dict) or not spec:
            raise ctx.error("`let` takes a mapping of names to expressions", path)
        for k in spec:
            ctx.check_local_name(k, path + (k,))
        e.pairs = tuple((k, ctx.expr(v, path + (k,), scope)) for k, v in spec.items())
        e.binds = tuple(spec)
        return e

    def run(self, st, loc):
        env = st.env
        env.loc = loc
        new = dict(loc)
        if len(self.pairs) == 1:  # one name, the common case: without the loop
            k, ex = self.pairs[0]
            try:
                new[k] = ex.fn(env)
            except Exception:  # noqa: BLE001 - re-run checked for the precise error (expressions are pure)
                new[k] = ex(env)
            return new
        for k, ex in self.pairs:
            try:
                new[k] = ex.fn(env)
            except Exception:  # noqa: BLE001 - re-run checked for the precise error (expressions are pure)
                new[k] = ex(env)
        return new


class If(Effect):
    """``if: COND`` with ``then: [...]`` and optional ``else: [...]``."""

    verb = "if"
    __slots__ = ("cond", "then", "orelse")

    @classmethod
    def compile(cls, ctx, spec, path, scope):
        e = cls()
        parent = path[:-1]
        e.cond = ctx.expr(spec, path, scope)
        e.then = ctx.block(ctx.sibling(parent, "then", []), parent + ("then",), scope)
        e.orelse = ctx.block(ctx.sibling(parent, "else", []), parent + ("else",), scope)
        e.binds = ()
        return e

    def run(self, st, loc):
        env = st.env
        env.loc = loc
        try:
            c = self.cond.fn(env)
        except Exception:  # noqa: BLE001 - re-run checked for the precise error
            c = self.cond(env)
        block = self.then if c else self.orelse
        if block.effects:
            st.stack.append((block, 0, loc, None))


class ForEach(Effect):
    """``for_each: {in: EXPR, as: NAME, do: [...]}``: run ``do`` once per item (a snapshot of
    the items taken at the start)."""

    verb = "for_each"
    __slots__ = ("items", "name", "body")

    @classmethod
    def compile(cls, ctx, spec, path, scope):
        e = cls()
        ctx.require(spec, ("in", "as", "do"), path)
        e.name = spec["as"]
        ctx.check_local_name(e.name, path + ("as",))
        e.items = ctx.expr(spec["in"], path + ("in",), scope)
        e.body = ctx.block(spec["do"], path + ("do",), scope.with_locals([e.name]))
        e.binds = ()
        return e

    def run(self, st, loc):
        env = st.env
        env.loc = loc
        try:
            items = self.items.fn(env)
        except Exception:  # noqa: BLE001 - re-run checked for the precise error
            items = self.items(env)
        if isinstance(items, dict):
            items = tuple(items)
        else:
            try:
                items = tuple(items)
            except TypeError:
                raise ExpressionError(f"`for_each` needs a list, got {render(items)!r}", self.mark) from None
        if items and self.body.effects:
            new = dict(loc)
            new[self.name] = items[0]
            st.stack.append((self.body, 0, new, (EACH, items, 0, self.name)))


class Repeat(Effect):
    """``repeat: {times: EXPR, as: NAME?, do: [...]}``: run ``do`` a number of times; ``as``
    binds the 0-based repetition number."""

    verb = "repeat"
    __slots__ = ("times", "name", "body")

    @classmethod
    def compile(cls, ctx, spec, path, scope):
        e = cls()
        ctx.require(spec, ("times", "do"), path)
        e.name = spec.get("as")
        if e.name:
            ctx.check_local_name(e.name, path + ("as",))
        e.times = ctx.expr(spec["times"], path + ("times",), scope)
        e.body = ctx.block(spec["do"], path + ("do",), scope.with_locals([e.name] if e.name else []))
        e.binds = ()
        return e

    def run(self, st, loc):
        env = st.env
        env.loc = loc
        n = self.times(env)
        if type(n) is not int:
            raise ExpressionError(f"`repeat` needs a whole number of times, got {render(n)!r}", self.mark)
        if n > 0 and self.body.effects:
            if self.name is not None:
                loc = dict(loc)
                loc[self.name] = 0
            st.stack.append((self.body, 0, loc, (TIMES, n, 0, self.name)))


class While(Effect):
    """``while: {cond: EXPR, do: [...]}``: run ``do`` while ``cond`` holds (checked before each
    pass; the step budget stops a loop that never ends)."""

    verb = "while"
    __slots__ = ("cond", "body")

    @classmethod
    def compile(cls, ctx, spec, path, scope):
        e = cls()
        ctx.require(spec, ("cond", "do"), path)
        e.cond = ctx.expr(spec["cond"], path + ("cond",), scope)
        ctx.register_while(e.cond)
        e.body = ctx.block(spec["do"], path + ("do",), scope)
        e.binds = ()
        return e

    def run(self, st, loc):
        env = st.env
        env.loc = loc
        if self.cond(env):
            if not self.body.effects:
                raise FlowError("`while` with an empty body and a true condition never ends", self.mark)
            st.stack.append((self.body, 0, loc, (WHILE, self.cond)))


class Option:
    """One option of a ``choose``: ``name``, ``names`` bound by ``for``, the ``items`` they range
    over, the legality condition ``cond``, the ``label`` template and the ``body`` block;
    ``action``: the option's one action when it binds no names (made once, actions are
    immutable)."""

    __slots__ = ("name", "names", "items", "cond", "label", "body", "mark", "action")


class Choose(Effect):
    """``choose``: a decision point.  The flow stops; ``player`` (default ``current``) picks one
    of the legal actions listed by ``options``; that option's ``do`` runs with its ``for`` names
    bound.  When no option is legal, ``otherwise`` runs (an error if there is none).
    """

    verb = "choose"
    __slots__ = (
        "id", "name", "player", "by_current", "prompt", "options", "by_name", "otherwise", "secret", "plan",
        "shared_locals", "generated",
    )  # fmt: skip

    @classmethod
    def compile(cls, ctx, spec, path, scope):
        e = cls()
        ctx.require(spec, ("options",), path)
        e.name = spec.get("name", "")
        # `secret`: others must not tell apart the actions of one option (tested generically).
        e.secret = bool(spec.get("secret", False))
        e.player = ctx.expr(spec.get("player", "current"), path + ("player",), scope)
        e.by_current = _operand(e.player.fn)[0] == "current"
        e.prompt = ctx.template(spec.get("prompt", ""), path + ("prompt",), scope)
        options = []
        e.by_name = {}
        for i, ospec in enumerate(spec["options"]):
            opath = path + ("options", i)
            ctx.require(ospec, ("action",), opath)
            o = Option()
            o.name = str(ospec["action"])
            o.mark = ctx.mark(opath)
            if o.name in e.by_name:
                raise ctx.error(f"two options are named `{o.name}` in one decision", opath + ("action",))
            names = ospec.get("for", [])
            o.names = tuple([names] if isinstance(names, str) else names)
            for n in o.names:
                ctx.check_local_name(n, opath + ("for",))
            if o.names and "in" not in ospec:
                raise ctx.error("an option with `for` needs `in`", opath)
            o.items = ctx.expr(ospec["in"], opath + ("in",), scope) if o.names else None
            inner = scope.with_locals(o.names)
            o.cond = ctx.expr(ospec["if"], opath + ("if",), inner) if "if" in ospec else None
            default_label = o.name.replace("_", " ") + "".join(" {" + n + "}" for n in o.names)
            o.label = ctx.template(ospec.get("label", default_label), opath + ("label",), inner)
            o.body = ctx.block(ospec.get("do", []), opath + ("do",), inner)
            o.action = Action(o.name, ())
            options.append(o)
            e.by_name[o.name] = o
        e.options = tuple(options)
        e.plan = e._plan()
        e.mark = ctx.mark(path)
        e.generated = generate_legal(e, scope.codegen)
        # No option's `for` names hide a local name of the decision's own: then one copy of the
        # locals serves every option in turn (a name an option left bound is read by no other).
        e.shared_locals = not any(n in scope.locals for o in options for n in o.names)
        e.otherwise = ctx.block(spec["otherwise"], path + ("otherwise",), scope) if "otherwise" in spec else None
        e.id = ctx.register_choose(e)
        e.binds = ()
        return e

    def legal(self, st, loc) -> tuple:
        """The legal actions in ``loc`` (no side effects).

        Runs the raw closures (no per-expression error wrapping: this is the hottest path); if
        anything fails, expressions being pure, it runs again through the checked wrappers so
        that the error names the expression that failed and its place.
        """
        st.env.refill()
        try:
            return self._legal_fast(st, loc)
        except WorkExceeded as exc:
            raise FlowError(f"listing the actions of decision `{self.name or 'choose'}`: {exc.message}", self.mark) from None
        except Exception:  # noqa: BLE001 - re-raised below with the expression's context
            return self._legal_checked(st, loc)

    def _plan(self) -> tuple:
        """The options as the fast listing reads them, one tuple each:
        ``(names, items, cond, action_or_name)`` with the raw closures; for an option without
        ``for``, its one action; for one ``for`` name over a constant list (``range(flights)``),
        ``items`` pairs each value with its action, made once (actions are immutable)."""
        plan = []
        for o in self.options:
            cond = o.cond.fn if o.cond is not None else None
            if not o.names:
                plan.append(((), None, cond, o.action))
            elif len(o.names) == 1 and type(o.items.constant) in (list, tuple):
                fixed = tuple((v, Action(o.name, (v,))) for v in o.items.constant)
                plan.append((o.names[0], fixed, cond, None))
            else:
                plan.append((o.names, o.items.fn, cond, o.name))
        return tuple(plan)

    def _legal_fast(self, st, loc) -> tuple:
        """:meth:`legal` through the generated listing (:func:`interpreter.lang.codegen.generate_legal`),
        or the raw closures and the precomputed :meth:`_plan` where there is none."""
        env = st.env
        env.loc = loc
        if self.generated is not None:
            return self.generated(env)
        actions = []
        append = actions.append
        shared = self.shared_locals
        tmp = None
        for names, items, cond, action in self.plan:
            if not names:
                if cond is None or cond(env):
                    append(action)
                continue
            if tmp is None or not shared:  # the locals with the option's names bound
                tmp = dict(loc)
            if action is None:  # one name over constant items
                if cond is None:
                    actions.extend(act for _, act in items)
                    continue
                env.loc = tmp
                for v, act in items:
                    tmp[names] = v
                    if cond(env):
                        append(act)
                env.loc = loc
                continue
            items = items(env)
            env.loc = tmp
            if len(names) == 1:
                n = names[0]
                new = _tuple_new
                for v in items:
                    tmp[n] = v
                    if cond is None or cond(env):
                        append(new(Action, (action, (v,))))
            else:
                for v in items:
                    v = tuple(v)
                    if len(v) != len(names):
                        raise ValueError  # the checked listing below gives the error
                    tmp.update(zip(names, v))
                    if cond is None or cond(env):
                        append(Action(action, v))
            env.loc = loc
        return tuple(actions)

    def _legal_checked(self, st, loc) -> tuple:
        """:meth:`legal` through the checked wrappers, for the precise error of a failure."""
        env = st.env
        actions = []
        append = actions.append
        new = _tuple_new
        for o in self.options:
            cond = o.cond
            if not o.names:
                env.loc = loc
                if cond is None or cond(env):
                    append(o.action)
                continue
            env.loc = loc
            items = o.items(env)
            if not isinstance(items, (list, tuple, dict, str)):
                raise ExpressionError(f"option `{o.name}`: `in` must give a list, found {render(items)!r}", o.items.mark)
            tmp = dict(loc)
            env.loc = tmp
            if len(o.names) == 1:
                n = o.names[0]
                name = o.name
                for v in items:
                    tmp[n] = v
                    if cond is None or cond(env):
                        append(new(Action, (name, (v,))))
            else:
                for v in items:
                    if not isinstance(v, (list, tuple)) or len(v) != len(o.names):
                        raise ExpressionError(
                            f"option `{o.name}` binds {len(o.names)} names, so each item of `in` must be a list of "
                            f"{len(o.names)} values; found {render(v)!r}",
                            o.mark,
                        )
                    v = tuple(v)
                    tmp.update(zip(o.names, v))
                    if cond is None or cond(env):
                        append(Action(o.name, v))
        return tuple(actions)

    def run(self, st, loc):
        env = st.env
        env.loc = loc
        if self.by_current:  # `player: current`, the default: read without a call
            players = (st.current,)
        else:
            try:
                player = self.player.fn(env)
            except Exception:  # noqa: BLE001 - re-run checked for the precise error
                player = self.player(env)
            players = tuple(player) if isinstance(player, (list, tuple)) else (player,)
            if not players or not all(type(x) is int and 0 <= x < st.num_players for x in players):
                raise ExpressionError(
                    f"`player` of a decision must be a seat from 0 to {st.num_players - 1} (or a list of seats), "
                    f"found {render(player)!r}", self.player.mark)
        try:  # as legal(), one call less: every decision runs it
            gen = self.generated
            if gen is not None:
                env.loc = loc
                actions = gen(env)
            else:
                actions = self._legal_fast(st, loc)
        except WorkExceeded as exc:
            raise FlowError(f"listing the actions of decision `{self.name or 'choose'}`: {exc.message}", self.mark) from None
        except Exception:  # noqa: BLE001 - re-raised below with the expression's context
            actions = self._legal_checked(st, loc)
        if not actions:
            if self.otherwise is not None:
                if self.otherwise.effects:
                    st.stack.append((self.otherwise, 0, loc, None))
                return
            raise FlowError(f"decision `{self.name or 'choose'}` has no legal action and no `otherwise`", self.mark)
        st.pending = (self, loc, actions, players)

    def resume(self, st, loc, action: Action) -> None:
        """Continue after ``action`` was taken: push the option's body with its names bound."""
        o = self.by_name[action.name]
        if o.body.effects:
            if o.names:
                loc = dict(loc)
                loc.update(zip(o.names, action.args))
            st.stack.append((o.body, 0, loc, None))

    def label(self, st, loc, action: Action) -> str:
        """The readable text of ``action``."""
        o = self.by_name[action.name]
        env = Env(st, dict(loc))
        env.loc.update(zip(o.names, action.args))
        return o.label(env)


class Turn(Effect):
    """``turn: {player: EXPR, do: [...]}``: ``player`` becomes ``current`` and plays ``do``;
    ``turns_taken[player]`` counts the turns begun; a seat's first turn appends it to the
    state's ``order`` (who moved first, second...)."""

    verb = "turn"
    __slots__ = ("player", "body")

    @classmethod
    def compile(cls, ctx, spec, path, scope):
        e = cls()
        ctx.require(spec, ("player", "do"), path)
        e.player = ctx.expr(spec["player"], path + ("player",), scope)
        e.body = ctx.block(spec["do"], path + ("do",), scope)
        e.binds = ()
        return e

    def run(self, st, loc):
        env = st.env
        env.loc = loc
        try:
            p = self.player.fn(env)
        except Exception:  # noqa: BLE001 - re-run checked for the precise error
            p = self.player(env)
        if type(p) is not int or not 0 <= p < st.num_players:
            raise ExpressionError(f"`turn` needs a seat from 0 to {st.num_players - 1}, got {render(p)!r}", self.mark)
        st.current = p
        if not st.turns[p]:
            st.order += (p,)
        st.turns[p] += 1
        if self.body.effects:
            st.stack.append((self.body, 0, loc, None))


class Phase(Effect):
    """``phase: {name: TEXT, do: [...]}``: run ``do`` with ``phase`` set to ``name``."""

    verb = "phase"
    __slots__ = ("name", "body")

    @classmethod
    def compile(cls, ctx, spec, path, scope):
        e = cls()
        ctx.require(spec, ("name", "do"), path)
        e.name = str(spec["name"])
        e.body = ctx.block(spec["do"], path + ("do",), scope)
        e.binds = ()
        return e

    def run(self, st, loc):
        st.phase = self.name
        if self.body.effects:
            st.stack.append((self.body, 0, loc, None))


class Call(Effect):
    """``call: NAME`` or ``call: {procedure: NAME, with: {ARG: EXPR}}`` runs a procedure with its
    parameters bound; ``call: {dynamic: EXPR, with: ...}`` names the procedure by an expression
    (every procedure it may name must take the same parameters)."""

    verb = "call"
    __slots__ = ("proc", "dynamic", "args", "ctx_procs")

    @classmethod
    def compile(cls, ctx, spec, path, scope):
        e = cls()
        e.binds = ()
        e.dynamic = None
        if isinstance(spec, str):
            spec = {"procedure": spec}
            args_path = path
        else:
            args_path = path + ("with",)
        with_ = spec.get("with", {}) or {}
        e.args = tuple((k, ctx.expr(v, args_path + (k,), scope)) for k, v in with_.items())
        if "dynamic" in spec:
            e.dynamic = ctx.expr(spec["dynamic"], path + ("dynamic",), scope)
            e.proc = None
            e.ctx_procs = ctx.procedures
        else:
            name = spec.get("procedure")
            e.proc = ctx.procedure(name, path, tuple(with_))
        return e

    def run(self, st, loc):
        if self.dynamic is None and not self.args:  # `call: take_turn`, the commonest: no expression to evaluate
            block = self.proc.block
            if block is None:  # pragma: no cover - compiled before play starts
                raise FlowError(f"procedure {self.proc.name} is not compiled", self.mark)
            if block.effects:
                st.stack.append((block, 0, {}, None))
            return
        env = st.env
        env.loc = loc
        if self.dynamic is not None:
            name = self.dynamic(env)
            proc = self.ctx_procs.get(name) if type(name) is str else None  # not a list: unhashable
            if proc is None:
                raise FlowError(f"no procedure named {render(name)!r}", self.mark)
        else:
            proc = self.proc
        if not self.args:
            new = {}
        else:
            try:
                new = {k: ex.fn(env) for k, ex in self.args}
            except Exception:  # noqa: BLE001 - re-run checked for the precise error
                new = {k: ex(env) for k, ex in self.args}
        block = proc.block
        if block is None:  # pragma: no cover - compiled before play starts
            raise FlowError(f"procedure {proc.name} is not compiled", self.mark)
        if block.effects:
            st.stack.append((block, 0, new, None))


class Log(Effect):
    """``log: TEXT`` or ``log: {text: TEXT, to: SEATS}``: a line for the game's account; ``to``
    limits who may read it (hidden information never reaches another player's log)."""

    verb = "log"
    simple = True
    __slots__ = ("text", "to")

    @classmethod
    def compile(cls, ctx, spec, path, scope):
        e = cls()
        if isinstance(spec, dict):
            ctx.require(spec, ("text",), path)
            e.text = ctx.template(spec["text"], path + ("text",), scope)
            e.to = ctx.expr(spec["to"], path + ("to",), scope) if "to" in spec else None
        else:
            e.text = ctx.template(spec, path, scope)
            e.to = None
        e.binds = ()
        return e

    def run(self, st, loc):
        if st.log is None:
            return
        env = st.env
        env.loc = loc
        to = None
        if self.to is not None:
            t = self.to(env)
            to = tuple(t) if isinstance(t, (list, tuple)) else (t,)
        st.log.append((to, self.text(env)))


class EndGame(Effect):
    """``end_game: REASON``: the game ends now; REASON (a template) says why."""

    verb = "end_game"
    __slots__ = ("reason",)

    @classmethod
    def compile(cls, ctx, spec, path, scope):
        e = cls()
        e.reason = ctx.template(spec, path, scope)
        e.binds = ()
        return e

    def run(self, st, loc):
        env = st.env
        env.loc = loc
        st.finish(self.reason(env))


class Emit(Effect):
    """``emit: EVENT`` or ``emit: {event: EVENT, with: {NAME: EXPR}}``: run every trigger that
    listens to EVENT (in the ruleset's order) whose ``if`` holds, with the names bound."""

    verb = "emit"
    __slots__ = ("event", "args", "triggers")

    @classmethod
    def compile(cls, ctx, spec, path, scope):
        e = cls()
        if isinstance(spec, str):
            spec = {"event": spec}
            args_path = path
        else:
            args_path = path + ("with",)
        e.event = str(spec.get("event"))
        e.args = tuple((k, ctx.expr(v, args_path + (k,), scope)) for k, v in (spec.get("with") or {}).items())
        e.triggers = ctx.triggers_for(e.event, path, tuple(k for k, _ in e.args))
        e.binds = ()
        return e

    def run(self, st, loc):
        env = st.env
        env.loc = loc
        new = {k: ex(env) for k, ex in self.args}
        env.loc = new
        fired = [t for t in self.triggers if t.cond is None or t.cond(env)]
        for t in reversed(fired):
            st.stack.append((t.block, 0, new, None))


class Random(Effect):
    """``random: {from: EXPR, as: NAME}`` or ``{from: EXPR, set: PLACE}``: a uniformly random item
    of a non-empty list, drawn from the state's generator (a chance event)."""

    verb = "random"
    simple = True
    __slots__ = ("items", "name", "place")

    @classmethod
    def compile(cls, ctx, spec, path, scope):
        e = cls()
        ctx.require(spec, ("from",), path)
        e.items = ctx.expr(spec["from"], path + ("from",), scope)
        e.name = spec.get("as")
        e.place = ctx.lvalue(spec["set"], path + ("set",), scope) if "set" in spec else None
        if (e.name is None) == (e.place is None):
            raise ctx.error("`random` needs exactly one of `as` (a local name) or `set` (a place)", path)
        e.binds = (e.name,) if e.name else ()
        return e

    def run(self, st, loc):
        env = st.env
        env.loc = loc
        items = list(self.items(env))
        if not items:
            raise FlowError("`random` from an empty list", self.mark)
        st.rng, i = rng_below(st.rng, len(items))
        value = items[i]
        if self.name:
            return _bind(loc, self.name, value)
        self.place.set(env, value)
        return None


class Roll(Effect):
    """``roll: {dice: N, sides: S, as: NAME}`` (or ``set: PLACE``): a list of N dice of S sides
    (1..S), drawn from the state's generator."""

    verb = "roll"
    simple = True
    __slots__ = ("dice", "sides", "name", "place")

    @classmethod
    def compile(cls, ctx, spec, path, scope):
        e = cls()
        ctx.require(spec, ("sides",), path)
        e.dice = ctx.expr(spec.get("dice", 1), path + ("dice",), scope)
        e.sides = ctx.expr(spec["sides"], path + ("sides",), scope)
        e.name = spec.get("as")
        e.place = ctx.lvalue(spec["set"], path + ("set",), scope) if "set" in spec else None
        if (e.name is None) == (e.place is None):
            raise ctx.error("`roll` needs exactly one of `as` (a local name) or `set` (a place)", path)
        e.binds = (e.name,) if e.name else ()
        return e

    def run(self, st, loc):
        env = st.env
        env.loc = loc
        n, s = self.dice(env), self.sides(env)
        if type(n) is not int or not 0 <= n <= MAX_DICE or type(s) is not int or s < 1:
            raise FlowError(
                f"`roll` needs 0 to {MAX_DICE} dice (found {render(n)!r}) of at least 1 side (found {render(s)!r})",
                self.mark,
            )
        st.rng, rolls = rng_dice(st.rng, n, s)
        if self.name:
            return _bind(loc, self.name, rolls)
        self.place.set(env, rolls)
        return None


#: Every effect verb: YAML key -> class.
EFFECTS: dict[str, type[Effect]] = {
    cls.verb: cls
    for cls in (Move, Shuffle, Set, Add, Let, If, ForEach, Repeat, While, Choose, Turn, Phase, Call, Log, EndGame, Emit, Random, Roll)
}

#: Keys that may stand beside a verb in the same mapping (``if`` takes ``then``/``else``).
SIBLING_KEYS = {"if": ("then", "else")}


#: Python errors an effect can meet when a ruleset hands it a value of the wrong kind (or one too
#: large) that its own checks did not foresee; :func:`unexpected` turns them into FlowErrors.
PYTHON_ERRORS = (TypeError, ValueError, LookupError, AttributeError, ArithmeticError, RecursionError, MemoryError)


def unexpected(exc: BaseException) -> FlowError:
    """A FlowError for a Python error ``exc`` escaping the runner, at the mark of the innermost
    effect (or place, or zone) it escaped from, so that a ruleset's mistake never shows as a
    traceback.  Callers: ``raise flow.unexpected(exc) from None`` around :func:`run`."""
    where = None
    tb = exc.__traceback__
    while tb is not None:  # innermost last
        obj = tb.tb_frame.f_locals.get("self")
        if isinstance(obj, (Effect, LValue, ZoneRef)) and getattr(obj, "mark", None) is not None:
            where = obj
        tb = tb.tb_next
    if isinstance(exc, RecursionError):
        what = "a value nested too deeply"
    elif isinstance(exc, MemoryError):
        what = "out of memory (a list or text grew too large)"
    else:
        what = f"{type(exc).__name__.replace('Error', ' error').strip()}: {exc}"
    if isinstance(where, Effect):
        return FlowError(f"`{where.verb}` failed: {what}", where.mark)
    if where is not None:
        return FlowError(f"`{where.text}` failed: {what}", where.mark)
    return FlowError(f"the flow failed: {what}")
