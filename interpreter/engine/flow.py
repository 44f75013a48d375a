"""The flow's verbs of control, output and chance, and the table of every verb.

Control: ``if``, ``for_each``, ``repeat``, ``while``, ``turn``, ``phase`` and ``call`` (each
pushes a frame, see :mod:`interpreter.engine.runner`); output and the end: ``log``, ``end_game``
and ``emit``; chance: ``random`` and ``roll``.  The verbs that change the table are in
:mod:`interpreter.engine.changes`, ``choose`` in :mod:`interpreter.engine.decisions`.

Every verb is one class with a ``compile`` classmethod (YAML -> effect) and a ``run`` method,
registered in :data:`EFFECTS`; adding a verb is one class, one table entry, one schema entry and
one test.  The names of the runner, the places and the other verb modules are importable from
here, as before the split.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ExpressionError, FlowError
from ..limits import MAX_DICE
from ..model import render
from .places import KeyedZoneRef, LValue, ZoneRef, _copy, _copy_stored, snapshot  # noqa: F401 - the places, re-exported
from .rng import below as rng_below
from .rng import dice as rng_dice

if TYPE_CHECKING:  # pragma: no cover
    pass
from .changes import SHORT_DRAWS, Add, Let, Move, Set, Shuffle  # noqa: F401 - re-exported
from .decisions import Choose, Option  # noqa: F401 - re-exported
from .runner import (  # noqa: F401 - re-exported
    EACH,
    PYTHON_ERRORS,
    TIMES,
    WHILE,
    Block,
    Effect,
    _bind,
    _budget_error,
    _opt,
    _run_to_budget,
    _tuple_new,
    run,
    unexpected,
)

__all__ = ["Block", "Effect", "EFFECTS", "run", "ZoneRef", "LValue"]


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
        if self.items.items_share_state:  # the items as they are now, whatever the loop moves
            items = snapshot(items)
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
                self.missing(name)
        else:
            proc = self.proc
        if not self.args:
            new = {}
        else:
            try:
                new = {k: ex.fn(env) for k, ex in self.args}
            except Exception:  # noqa: BLE001 - re-run checked for the precise error
                new = {k: ex(env) for k, ex in self.args}
            for k, ex in self.args:
                if ex.shares_state:  # a parameter holds a value
                    new[k] = snapshot(new[k])
        block = proc.block
        if block is None:  # pragma: no cover - compiled before play starts
            raise FlowError(f"procedure {proc.name} is not compiled", self.mark)
        if block.effects:
            st.stack.append((block, 0, new, None))

    def missing(self, name: object) -> None:
        """Raise the error of a dynamic call that names no procedure.

        Raises:
            FlowError: always, naming the value.
        """
        raise FlowError(f"no procedure named {render(name)!r}", self.mark)


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
        new = {k: snapshot(ex(env)) if ex.shares_state else ex(env) for k, ex in self.args}
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
            return _bind(loc, self.name, snapshot(value) if self.items.items_share_state else value)
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
