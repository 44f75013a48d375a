"""Zones and assignable places of the flow: what an effect reads and writes.

:class:`ZoneRef` (and :class:`KeyedZoneRef`, one stack of a keyed zone) is a compiled
reference to a zone (``flight[p][i]``, ``field[(x, y)]``); :class:`LValue` a compiled place a
``set`` assigns (a variable, an item of one, a component's mutable property), storing a copy of
a list, record or tuple within the value limits (:func:`_copy_stored`: ``MAX_VALUE_ITEMS``,
``MAX_VALUE_TEXT``, ``MAX_VALUE_DEPTH``).  The effect verbs (:mod:`interpreter.engine.flow`)
and the generated code (:mod:`interpreter.engine.effectgen`) use them.
"""

from __future__ import annotations

from itertools import chain
from typing import Any

from ..errors import ExpressionError, Mark
from ..lang.expression import Compiled, Env, _operand
from ..limits import MAX_VALUE_DEPTH, MAX_VALUE_ITEMS, MAX_VALUE_TEXT
from ..model import Component, render

__all__ = ["ZoneRef", "KeyedZoneRef", "SeatZoneRef", "LValue", "seat_of", "set_path", "snapshot"]




class Keyed(dict):
    """The contents of a keyed zone (``zones: {field: {keyed: true}}``): a dict from keys (ints,
    strings, tuples such as ``(x, y)``, components) to stacks (lists, bottom first), e.g. the
    places of a grid or the nodes of a map.

    Invariant: a key is present exactly when its stack is non-empty (effects delete a key whose
    stack they empty), so ``k in field`` asks "is place k occupied?", ``len(field)`` counts
    occupied places and iterating yields the occupied keys in the order they were filled.
    Reading an absent key (``field[(3, 1)]``) gives a new empty list and stores nothing, so
    expressions stay pure; ``move: {to: "field[k]"}`` creates the stack.
    """

    __slots__ = ()

    def __missing__(self, key):
        return []

    def copy_stacks(self) -> Keyed:
        """A copy with every stack copied (components themselves are shared)."""
        new = Keyed()
        for k, v in self.items():
            new[k] = v[:]
        return new


class ZoneRef:
    """A compiled reference to a zone: ``name`` and index expressions (``flight[p][i]``).

    ``get(env)`` returns the live list.  ``decl`` is the zone's declaration.  ``read(env)`` is
    the same without error checks, the indexes read inline (moves are a hot path): when it
    raises, call ``get`` for the precise error (reading a zone is pure).
    """

    __slots__ = ("decl", "indexes", "text", "mark", "read", "source")

    def __init__(self, decl, indexes: tuple, text: str, mark: Mark | None):
        self.source = None  # (index parse trees, scope), for the code generator
        self.decl = decl
        self.indexes = indexes
        self.text = text
        self.mark = mark
        self.read = _zone_reader(decl.name, indexes)

    def get(self, env: Env) -> list:
        # The compiler checked that the indexes reach exactly one zone.
        z = env.state.zones[self.decl.name]
        try:
            for ix in self.indexes:
                z = z[ix(env)]
        except (IndexError, TypeError, KeyError) as exc:
            raise ExpressionError(f"no such zone `{self.text}` ({exc})", self.mark) from None
        return z


class SeatZoneRef:
    """A per-player zone named bare where a seat is implied: a per-player zone's
    ``refill_from: discard`` means the refilled zone's own seat's ``discard`` (so
    ``deck[2]`` refills from ``discard[2]``).  ``decl``: the source zone's declaration
    (per-player, one zone a seat); ``text``, ``mark``: as written.

    It has no ``get``: the seat is not in the expression but in the zone being refilled, which
    :meth:`interpreter.engine.state.State.refill` finds (:meth:`for_seat` then gives the list).
    """

    __slots__ = ("decl", "text", "mark")

    def __init__(self, decl, text: str, mark: Mark | None):
        self.decl, self.text, self.mark = decl, text, mark

    def for_seat(self, state, seat: int) -> list:
        """The source zone of ``seat`` in ``state``: ``state.zones[name][seat]``."""
        return state.zones[self.decl.name][seat]


def seat_of(zones: list, zone: list) -> int | None:
    """The seat whose part of the per-player zone ``zones`` (one list a seat, or a list of
    lists a seat for a counted per-player zone) is the list ``zone`` itself, or None."""
    for seat, part in enumerate(zones):
        if part is zone or (part and type(part[0]) is list and any(z is zone for z in part)):
            return seat
    return None


def _zone_reader(name: str, indexes: tuple):
    """``ZoneRef.read``: the zone ``name`` indexed by ``indexes``, common shapes fused."""
    if not indexes:
        return lambda env: env.zones[name]
    if len(indexes) == 1:
        (ix,) = indexes
        kind, v = _operand(ix)
        if kind == "current":  # `hand[current]`
            return lambda env: env.zones[name][env.state.current]
        if kind == "local":
            return lambda env: env.zones[name][env.loc[v]]
        return lambda env: env.zones[name][ix(env)]
    if len(indexes) == 2:
        i0, i1 = indexes
        if _operand(i0)[0] == "current":  # `flight[current][i]`
            return lambda env: env.zones[name][env.state.current][i1(env)]
        return lambda env: env.zones[name][i0(env)][i1(env)]

    def read(env):
        z = env.zones[name]
        for ix in indexes:
            z = z[ix(env)]
        return z

    return read


class KeyedZoneRef(ZoneRef):
    """A reference to one stack of a keyed zone (``field[(x, y)]``): one index, the key.

    ``get`` returns the live stack, or a detached empty list for an absent key (nothing is
    stored, see :class:`~interpreter.engine.state.Keyed`); :meth:`locate` can create the stack, and
    :meth:`settle` deletes an emptied one.
    """

    __slots__ = ()

    def get(self, env: Env) -> list:
        return self.locate(env, False)[0]

    def locate(self, env: Env, create: bool) -> tuple[list, Any]:
        """(the live stack, its key); an absent key's new empty stack is stored when ``create``."""
        z = env.state.zones[self.decl.name]
        index = self.indexes[0]
        try:
            key = index.fn(env)
        except Exception:  # noqa: BLE001 - re-run checked for the precise error
            key = index(env)
        try:
            stack = z.get(key)
        except TypeError:
            raise ExpressionError(
                f"`{self.text}`: {render(key)!r} cannot be a key (use a number, text, tuple or component)", self.mark
            ) from None
        if stack is None:
            stack = []
            if create:
                z[key] = stack
        return stack, key

    def settle(self, env: Env, stack: list, key: Any) -> None:
        """After a move: delete ``key`` when its ``stack`` is empty (a keyed zone holds no empty
        stack), and keep a non-empty one stored (a component moved onto its own stack)."""
        z = env.state.zones[self.decl.name]
        if not stack:
            if z.get(key) is stack:
                del z[key]
        elif z.get(key) is not stack:
            z[key] = stack


_CONTAINERS = (list, dict, tuple)
_FLAT = frozenset((list, dict, tuple, str))  # the item types _copy_stored must look into
_NESTED = frozenset(_CONTAINERS)
_DICTS = {dict}
_STR = {str}
_chain = chain.from_iterable


def _copy_stored(value: Any, place: LValue, shares: bool = True, top: bool = True) -> Any:
    """A copy of ``value`` (lists and records copied, tuples shared) for ``place`` to store.

    ``shares``: the value may share containers with the state (its expression's
    :attr:`~interpreter.lang.expression.Compiled.shares_state`; True when not known).  A value
    that shares none holds only values nothing changes in place (a local name's, a parameter's,
    an item of a variable, what the expression made), so it is checked against the limits
    but not copied, except at the ``top`` when the place is a variable's own list or record,
    which an item ``set`` or ``add`` later changes in place.  The general shapes (nested lists,
    records of lists) are copied either way.

    Raises:
        ExpressionError: more than MAX_VALUE_ITEMS items, MAX_VALUE_TEXT characters of text or
            MAX_VALUE_DEPTH levels.
    """
    t = type(value)
    if t is list:
        # The commonest value, a list of numbers, components or none: one C-level copy (what
        # _copy gives it, without setting up the counts).
        if len(value) <= MAX_VALUE_ITEMS:
            types = set(map(type, value))
            if _FLAT.isdisjoint(types):
                return value[:] if shares or top else value
            if _NESTED.isdisjoint(types):  # and texts (names of things done): _copy's count, at once
                chars = sum(map(len, value)) if types == _STR else sum([len(x) for x in value if x.__class__ is str])
                if chars <= MAX_VALUE_TEXT:
                    return value[:] if shares or top else value
            if not shares and types == _DICTS and _records_fit(value, [MAX_VALUE_ITEMS - len(value), MAX_VALUE_TEXT]):
                return value[:] if top else value  # records of plain values (a list of moves made): as _copy counts them
    elif t is str:
        if len(value) > MAX_VALUE_TEXT:
            raise _too_big(place, f"is a text of more than {MAX_VALUE_TEXT} characters")
        return value
    elif t is not dict and t is not tuple:
        return value
    return _copy(value, 0, [MAX_VALUE_ITEMS, MAX_VALUE_TEXT], place)


def _records_fit(v: list, left: list) -> bool:
    """Whether the records ``v`` (dicts) hold no container and, every key and value counted
    at once, fit in ``left`` (``[items, characters]``, counted down when they do): the whole
    check of such a list within the limits (see :func:`_copy`)."""
    values = list(_chain(map(dict.values, v)))
    vtypes = set(map(type, values))
    if not _NESTED.isdisjoint(vtypes):
        return False
    keys = list(_chain(v))
    chars = sum(map(len, values)) if vtypes == _STR else sum([len(x) for x in values if x.__class__ is str])
    chars += sum(map(len, keys)) if set(map(type, keys)) == _STR else sum([len(k) for k in keys if k.__class__ is str])
    if left[0] >= len(values) and left[1] >= chars:
        left[0] -= len(values)
        left[1] -= chars
        return True
    return False


def _text(x: str, left: list, place: LValue) -> None:
    """Count the text ``x`` against ``left[1]`` (see :func:`_copy`)."""
    left[1] -= len(x)
    if left[1] < 0:
        raise _too_big(place, f"holds more than {MAX_VALUE_TEXT} characters of text")


def _text_total(xs, left: list, place: LValue) -> None:
    """:func:`_text` of every text among ``xs`` at once (the same limit, the same error)."""
    left[1] -= sum([len(x) for x in xs if x.__class__ is str])
    if left[1] < 0:
        raise _too_big(place, f"holds more than {MAX_VALUE_TEXT} characters of text")


def _copy(v: Any, depth: int, left: list, place: LValue) -> Any:
    """The copy of the container ``v`` at nesting ``depth`` for :func:`_copy_stored`; ``left``
    is ``[items, characters]`` still allowed in the whole value (counted down as it goes)."""
    t = type(v)
    left[0] -= len(v)
    if left[0] < 0 or depth > MAX_VALUE_DEPTH:
        raise _too_big(place, f"has more than {MAX_VALUE_ITEMS} items" if left[0] < 0
                       else f"is nested more than {MAX_VALUE_DEPTH} levels deep")
    if t is list:
        types = set(map(type, v))
        if _FLAT.isdisjoint(types):  # numbers, components, none: one C-level copy
            return v[:]
        if _NESTED.isdisjoint(types):  # and text: counted in one sum, then one copy
            _text_total(v, left, place)
            return v[:]
        if types == _DICTS and depth < MAX_VALUE_DEPTH and _records_fit(v, left):
            # records (a list of moves made) within the limits: the copy is one C-level map.
            # Over a limit, the loop below finds the same first error as before.
            return list(map(dict.copy, v))
        if types == _DICTS and depth < MAX_VALUE_DEPTH and all(
            [_NESTED.isdisjoint(set(map(type, d.values()))) for d in v]
        ):  # records of plain values, over a limit: the general path's counts, unrolled
            out = []
            for d in v:
                left[0] -= len(d)
                if left[0] < 0:
                    raise _too_big(place, f"has more than {MAX_VALUE_ITEMS} items")
                _text_total(d, left, place)
                _text_total(d.values(), left, place)
                out.append(d.copy())
            return out
        out = []
        for x in v:
            tx = type(x)
            if tx in _CONTAINERS:
                x = _copy(x, depth + 1, left, place)
            elif tx is str:
                _text(x, left, place)
            out.append(x)
        return out
    if t is dict:
        if _NESTED.isdisjoint(set(map(type, v.values()))):  # no container inside: one copy
            _text_total(v, left, place)
            _text_total(v.values(), left, place)
            return dict(v)
        out_d = {}
        for k, x in v.items():
            if type(k) is str:
                _text(k, left, place)
            tx = type(x)
            if tx in _CONTAINERS:
                x = _copy(x, depth + 1, left, place)
            elif tx is str:
                _text(x, left, place)
            out_d[k] = x
        return out_d
    for x in v:  # a tuple: shared, but counted
        tx = type(x)
        if tx in _CONTAINERS:
            _copy(x, depth + 1, left, place)
        elif tx is str:
            _text(x, left, place)
    return v


_SHARED = _NESTED | {Keyed}  # what snapshot copies (a Keyed is a zone's dict)


def snapshot(value: Any) -> Any:
    """``value`` with every list, record, tuple and keyed zone's dict in it copied, at every
    level (components, numbers, texts and none are shared): what a local name, a loop's items
    or a procedure's or trigger's parameter keeps of a value that may share the state's own
    containers (:attr:`interpreter.lang.expression.Compiled.shares_state`).

    A value is a value: ``let: {old: "hand[p]"}`` names the cards in the hand then, and a move
    or a ``set: {"x[i]": ...}`` after it does not change ``old``.  The state changes its zones'
    lists and its variables' own lists in place; a name bound to one of them would see the
    change, and would stop seeing it in a clone or a saved and resumed game (which copy the
    state), so the same moves would give different games.  What is shared within ``value`` is
    copied once (the copy has the same shape, whatever the sharing).

    Raises:
        ExpressionError: the value is nested too deeply to copy (Python's recursion limit).
    """
    t = value.__class__
    if t is list:
        if _SHARED.isdisjoint(map(type, value)):  # numbers, texts, components, none: one C-level copy
            return value[:]
    elif t is tuple:
        if _SHARED.isdisjoint(map(type, value)):  # nothing in it can change
            return value
    elif t is not dict and t is not Keyed:
        return value
    try:
        return _snapshot(value, {})
    except RecursionError:
        raise ExpressionError("a value nested too deeply to keep a copy of it") from None


def _snapshot(v: Any, memo: dict) -> Any:
    t = v.__class__
    if t is not list and t is not tuple and t is not dict and t is not Keyed:
        return v
    done = memo.get(id(v))
    if done is not None:
        return done
    if t is list:
        out: Any = [_snapshot(x, memo) for x in v]
    elif t is tuple:
        out = tuple([_snapshot(x, memo) for x in v])
    else:
        out = t()
        for k, x in v.items():
            out[k] = _snapshot(x, memo)
    memo[id(v)] = out
    return out


def _too_big(place: LValue, what: str) -> ExpressionError:
    return ExpressionError(f"cannot set `{place.text}`: the value {what} (the limit)", place.mark)


class LValue:
    """A compiled assignable place: a variable (kind ``"var"``), an item of a variable
    (``"item"``: ``score[p]``, ``index`` one Compiled), an item at any depth inside one
    (``"path"``: ``res[p][k]``, ``grid[x][y][z]``; ``index`` a tuple of Compileds, one per
    ``[...]``, outermost first), or a mutable property of a component (``"prop"``: ``m.team``)."""

    __slots__ = ("kind", "name", "index", "obj", "text", "mark")

    def __init__(self, kind: str, name: str, index: Any, obj: Compiled | None, text: str, mark):
        self.kind, self.name, self.index, self.obj, self.text, self.mark = kind, name, index, obj, text, mark

    def get(self, env: Env) -> Any:
        """The value at this place now (what ``add`` adds to).

        Raises:
            ExpressionError: (a ``"path"`` place) an index out of range, a key not in a record,
                or a step into a value that is not a list or record, naming the place.
        """
        st = env.state
        if self.kind == "var":
            return st.vars[self.name]
        if self.kind == "item":
            return st.vars[self.name][self.index(env)]
        if self.kind == "path":
            keys = [ix(env) for ix in self.index]
            c = st.vars[self.name]
            try:
                for k in keys:
                    c = c[k]
            except (IndexError, KeyError, TypeError):
                self._diagnose(st.vars[self.name], keys, True)
                raise
            return c
        comp = self._component(env)
        return st.props[comp.index][self.name]

    def set(self, env: Env, value: Any, shares: bool = True) -> None:
        """Store ``value`` here (a copy where it may be changed in place or may share the state's
        own lists: :func:`_copy_stored`; ``shares``: as there).

        A ``"path"`` place (``res[p][k] = v``) replaces, rather than changes, every list or record
        on the way down: the variable's own list gets a new ``res[p]``, a copy of the old one with
        item ``k`` replaced (:func:`set_path`).  So the values inside a variable are never
        changed in place, and what a name, a loop or a saved state kept of them stays as it was
        (the invariant :func:`interpreter.lang.expression.shares_state` relies on).  Nothing is
        stored when an index fails.

        Raises:
            ExpressionError: the value is over a size limit (:func:`_copy_stored`), an index is
                out of range or of the wrong kind, or a step is not into a list or record; the
                message names the place and the failing part, with a fix.
        """
        st = env.state
        if type(value) is list or type(value) is dict or type(value) is tuple:
            value = _copy_stored(value, self, shares, self.kind == "var")  # the state owns its values
        if self.kind == "var":
            st.vars[self.name] = value
        elif self.kind == "item":
            container = st.vars[self.name]
            key = self.index(env)
            try:
                container[key] = value
            except (IndexError, TypeError) as exc:
                raise ExpressionError(f"cannot set `{self.text}`: {exc}", self.mark) from None
        elif self.kind == "path":
            keys = [ix(env) for ix in self.index]
            top = st.vars[self.name]
            try:
                set_path(top, keys, value)
            except (IndexError, KeyError, TypeError):
                self._diagnose(top, keys, False)
                raise
        else:
            comp = self._component(env)
            st.props[comp.index][self.name] = value

    def _diagnose(self, top: Any, keys: list, reading: bool) -> None:
        """Raise the ExpressionError for the first index of ``keys`` (the evaluated indexes of a
        ``"path"`` place) that fails in ``top``: what was there, what the index was, and a fix.
        ``reading``: the last index must name an existing item too (``add`` reads it first; a
        ``set`` may give a record a new key, as ``set: {"r[k]": ...}`` does)."""
        c = top
        for depth, k in enumerate(keys):
            where = self.name + "".join(f"[{render_key(x)}]" for x in keys[:depth])
            t = type(c)
            if t is list:
                if not isinstance(k, int):
                    raise ExpressionError(
                        f"cannot set `{self.text}`: `{where}` is a list, indexed by a whole number, "
                        f"found {render_key(k)}; write a position from 0 to {len(c) - 1}", self.mark)
                if not -len(c) <= k < len(c):
                    raise ExpressionError(
                        f"cannot set `{self.text}`: `{where}` has {len(c)} item(s), found index {k}; a list "
                        "keeps its length when an item is set (give the variable's `initial:` every position, "
                        "or check the index first)", self.mark)
            elif t is dict:
                try:
                    missing = k not in c
                except TypeError:
                    raise ExpressionError(
                        f"cannot set `{self.text}`: a record's key is a text, found {render_key(k)} "
                        f"in `{where}`", self.mark) from None
                if missing and (reading or depth < len(keys) - 1):
                    known = ", ".join(render_key(x) for x in list(c)[:8]) or "none"
                    raise ExpressionError(
                        f"cannot set `{self.text}`: the record `{where}` has no key {render_key(k)} (its keys: "
                        f"{known}); add the key to the variable's `initial:`", self.mark)
            else:
                shown = render(c)
                shown = shown if len(shown) <= 40 else shown[:37] + "..."
                raise ExpressionError(
                    f"cannot set `{self.text}`: `{where}` is `{shown}`, not a list or record; only items of "
                    "lists and records (at any depth) inside a variable can be set", self.mark)
            if depth < len(keys) - 1:
                c = c[k]

    def _component(self, env: Env) -> Component:
        comp = self.obj(env)
        if type(comp) is not Component or self.name not in comp.mutable:
            raise ExpressionError(
                f"cannot set `{self.text}`: {render(comp)!r} has no mutable property `{self.name}`",
                self.mark,
            )
        return comp


def render_key(k: Any) -> str:
    """An index as the place's text shows it: a text quoted, anything else rendered."""
    return repr(k) if type(k) is str else render(k)


def set_path(top: Any, keys: list, value: Any) -> None:
    """``top[k0][k1]...[kn] = value`` without changing any container below ``top`` in place:
    each list or record on the way is copied (one level, the items shared), the copy's item
    replaced, and the copy stored where the old one was; ``top`` (a variable's own list or
    record, which the state owns) is the only container changed, and only by the last store,
    after every index has worked.  The generated code calls this (``H_setpath``), falling back
    to :meth:`LValue.set` for the precise error when it raises.

    Raises:
        IndexError, KeyError, TypeError, AttributeError: an index failed (nothing is stored).
    """
    chain = [top]
    c = top
    for k in keys[:-1]:
        c = c[k]
        t = type(c)
        if t is list:
            c = c[:]
        elif t is dict:
            c = c.copy()
        else:
            raise TypeError(f"{t.__name__} is not a list or record")
        chain.append(c)
    c[keys[-1]] = value
    for i in range(len(keys) - 1, 0, -1):
        chain[i - 1][keys[i - 1]] = chain[i]


def _leaves(z: list, depth: int):
    if depth == 0:
        yield z
    else:
        for sub in z:
            yield from _leaves(sub, depth - 1)


def _leaves_with_path(z: list, depth: int, path: tuple = ()):
    if depth == 0:
        yield path, z
    else:
        for i, sub in enumerate(z):
            yield from _leaves_with_path(sub, depth - 1, path + (i,))
