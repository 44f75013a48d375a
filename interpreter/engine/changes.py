"""The effect verbs that change the table: ``move`` (components between zones, with draws from
an empty zone and the ``on_empty`` rule), ``shuffle``, ``set``, ``add`` and ``let``.

Each verb is a class with a ``compile`` classmethod (YAML -> effect) and a ``run`` method; the
table of every verb is :data:`interpreter.engine.flow.EFFECTS`.  What they read and write, zone
references and assignable places, is in :mod:`interpreter.engine.places`.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ..errors import ExpressionError, FlowError
from ..lang.runtime import _BIG, _NBIG
from ..limits import MAX_INT_BITS
from ..model import Component, render
from .places import KeyedZoneRef, snapshot
from .runner import Effect, _bind

if TYPE_CHECKING:  # pragma: no cover
    pass

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
    __slots__ = ("what", "src", "dst", "count", "at", "name", "keyed", "refill_now", "short")  # refill_now: (zone name, per player)

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
        e.refill_now = tuple((z.name, z.per_player) for z in ctx.zones.values() if z.refill_when == "immediately")
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
            lv.set(env, ex(env), ex.shares_state)
            return
        values = [(lv, ex(env), ex.shares_state) for lv, ex in pairs]  # evaluate all, then assign
        for lv, value, shares in values:
            lv.set(env, value, shares)


class Add(Set):
    """``add: {PLACE: EXPR, ...}``: add to numeric places (subtract with a negative amount); a
    whole number stays within MAX_INT_BITS bits, as an expression's ``+`` does (repeated, an
    ``add`` of a place to itself doubles it)."""

    verb = "add"
    __slots__ = ()

    def run(self, st, loc):
        st.env.loc = loc
        for k in range(len(self.pairs)):
            self.pair(st, k)

    def pair(self, st, k: int) -> None:
        """Pair ``k`` of :meth:`run` alone, with ``st.env.loc`` already set (also the generated
        run's way, :mod:`interpreter.engine.effectgen`, for a sum that is not of two whole
        numbers, or that failed)."""
        lv, ex = self.pairs[k]
        env = st.env
        try:
            value = lv.get(env) + ex(env)
            if type(value) is int and (value > _BIG or value < _NBIG):
                raise ExpressionError(f"cannot add to `{lv.text}`: a whole number of more than {MAX_INT_BITS} bits; "
                                      "numbers in a game stay smaller", lv.mark)
            lv.set(env, value)
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
            if ex.shares_state:  # a name holds a value: not a list the state changes later
                new[k] = snapshot(new[k])
            return new
        for k, ex in self.pairs:
            try:
                new[k] = ex.fn(env)
            except Exception:  # noqa: BLE001 - re-run checked for the precise error (expressions are pure)
                new[k] = ex(env)
            if ex.shares_state:
                new[k] = snapshot(new[k])
        return new
