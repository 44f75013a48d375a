"""Explicit chance: chance events as points of the game where "chance" moves, with their outcomes
listed and their probabilities, for algorithms that need them (CFR, expectimax, exact perft).

A ruleset is played in one of two chance modes:

- ``sample`` (the default): every chance event (``shuffle``, ``random``, ``roll``, the refill of
  an empty deck) draws from the state's seeded generator inside the flow, as it always has; a
  state is never at a chance point and the same seed gives the same game, byte for byte.
- ``explicit``: the ruleset is compiled a second time (``Ruleset.with_chance("explicit")``), and
  the compiler wraps every effect that meets chance in one of the classes below.  The flow then
  stops at each chance event with a *chance point* pending: ``State.current_players()`` is
  ``(CHANCE,)``, ``State.chance_outcomes()`` lists ``(Action("chance", (value,)), probability)``
  and ``State.apply(outcome)`` moves on.

**Lazy deals.**  A ``shuffle`` of a zone whose order nobody knows (``visibility: hidden``,
``owner_contents`` or ``public_contents``) does not order it: the state remembers the components
whose order is still unknown (``State.lazy``, zone path -> a list of *groups*, sets of components each arranged uniformly at random over the
positions its members hold; a shuffle makes one group of the whole zone).  Drawing from the top of such a zone, or reading its top
(``top(deck)``) or its order in an expression, first *reveals* the position read: a chance point
over the components that may be there (each with probability 1/k for the k still unknown), and
the one that comes out is swapped into that position.  So one draw from a 76-card deck is a
chance point of 76 outcomes, not one of 76! orders, and a determinising agent never needs the
real order.  This is exact: a uniformly random order revealed position by position gives every
sequence of draws the same probability as shuffling first.  Components taken by identity (``move:
{what: c}``, ``what: list(deck)``, ``what: "[c for c in deck if ...]"``) leave the rest of their
group uniform, and carry their unknown order with them into another hidden zone as a group of
their own, with no chance point.  A shuffle of a zone someone sees is
revealed in full at once, position by position from the top.

What an expression reads is found from its text when the ruleset is compiled: ``len(Z)`` reads
no order, ``top(Z)`` the top position, any other mention of a hidden zone ``Z`` (directly, or in
a ruleset function the expression calls) its whole order.  A reveal before it is needed changes
no probability, so the analysis may be cautious; it is never too late: the condition of a
``while`` loop is revealed before each of its tests (:func:`gate_while`).

Outcome values: a component id for a reveal or a draw, a die face (1..S) per die of a ``roll``
(one chance point per die), an index into the list for ``random``.  A chance event with a single
possible outcome is taken at once, without a chance point.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..errors import FlowError
from ..lang.expression import Env
from ..model import UNORDERED_VISIBILITIES, Action, Component, render
from .flow import Effect, KeyedZoneRef, _bind
from .rng import below as rng_below

if TYPE_CHECKING:  # pragma: no cover
    from .state import State

__all__ = ["CHANCE", "ChancePoint", "wrap", "order_reads", "zone_at", "prune", "MODES"]

#: The "player" that moves at a chance point (OpenSpiel's convention).
CHANCE = -1

#: The chance modes a ruleset can be played in.
MODES = ("sample", "explicit")

_OUTCOME = "chance"


# ---------------------------------------------------------------------------------------------
# What an effect's expressions read of hidden zones (compile time)


def template_parts(text: Any) -> str:
    """The expression parts of a template (``{...}``), the only places it reads zones."""
    if not isinstance(text, str):
        return ""
    return " ; ".join(re.findall(r"\{([^{}]*)\}", text))


def identity_selection(text: Any, hidden: set[str]) -> bool:
    """True when the ``what`` of a move selects components by identity only, whatever their order:
    a sum of terms each ``Z``, ``list(Z)`` or ``[x for x in Z if COND]`` (``Z`` a zone, indexed or
    not), so that moving them needs no reveal of ``Z``'s order."""
    if not isinstance(text, str):
        return False
    terms, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "+" and depth == 0:
            terms.append(cur)
            cur = ""
        else:
            cur += ch
    terms.append(cur)
    zone = r"[A-Za-z_]\w*(?:\s*\[[^\]]*\])*"
    term = re.compile(
        rf"\s*(?:{zone}|list\(\s*{zone}\s*\)|\[\s*(\w+)\s+for\s+\1\s+in\s+{zone}(?:\s+if\s+[^\[\]]*)?\])\s*"
    )
    return all(term.fullmatch(t) for t in terms)


def order_reads(texts: list[str], hidden: set[str], functions: dict[str, tuple]) -> tuple:
    """The order reads of hidden zones in the expression and template ``texts``: a tuple of
    ``(zone_name, "top" | "all")``, ``"all"`` winning over ``"top"``.

    ``hidden``: the names of zones nobody may look into; ``functions``: the ruleset functions'
    own reads (name -> such a tuple), added where a text calls one.
    """
    need: dict[str, str] = {}
    for text in texts:
        if not isinstance(text, str):
            continue
        for name in hidden:
            if name not in text:
                continue
            word = re.escape(name)
            index = r"(?:\s*\[[^\]]*\])*"
            rest = re.sub(rf"\blen\(\s*{word}\b{index}\s*\)", " ", text)
            tops = re.findall(rf"\btop\(\s*{word}\b{index}\s*\)", rest)
            rest = re.sub(rf"\btop\(\s*{word}\b{index}\s*\)", " ", rest)
            if re.search(rf"(?<![\w.'\"]){word}\b", rest):
                need[name] = "all"
            elif tops and need.get(name) != "all":
                need[name] = "top"
        for fname, reads in functions.items():
            if reads and re.search(rf"\b{re.escape(fname)}\s*\(", text):
                for name, how in reads:
                    if how == "all" or need.get(name) != "all":
                        need[name] = how
    return tuple(sorted(need.items()))


# ---------------------------------------------------------------------------------------------
# Lazy zones (run time)


def zone_at(st: State, key: tuple) -> list:
    """The zone list at ``key`` = ``(name, index, ...)``."""
    z = st.zones[key[0]]
    for i in key[1:]:
        z = z[i]
    return z


def zone_key(ref, env: Env) -> tuple:
    """The key of the zone a :class:`~interpreter.engine.flow.ZoneRef` names now."""
    if not ref.indexes:
        return (ref.decl.name,)
    return (ref.decl.name, *(ix(env) for ix in ref.indexes))


def prune(st: State) -> None:
    """Forget, for every lazy zone, the components that have left it (a component put back later
    has a known place), the groups left with fewer than two (one alone has a known place) and
    the zones left with none."""
    lazy = st.lazy
    for key in list(lazy):
        try:
            here = set(zone_at(st, key))
        except (LookupError, TypeError):
            del lazy[key]
            continue
        groups = [g & here for g in lazy[key]]
        groups = [g for g in groups if len(g) > 1]
        if groups:
            lazy[key] = groups
        else:
            del lazy[key]


def _group(st: State, key: tuple, comp: Component) -> set | None:
    for g in st.lazy.get(key, ()):
        if comp in g:
            return g
    return None


def _unknown_top(st: State, key: tuple, how: str) -> int | None:
    """The highest position of zone ``key`` still to reveal for a read ``how`` (``top``: only the
    top; ``all``: any), or None."""
    groups = st.lazy.get(key)
    if not groups:
        return None
    z = zone_at(st, key)
    if how == "top":
        return len(z) - 1 if z and any(z[-1] in g for g in groups) else None
    for i in range(len(z) - 1, -1, -1):
        if any(z[i] in g for g in groups):
            return i
    return None


def _candidates(st: State, key: tuple, pos: int) -> tuple:
    """The components that may be at unknown position ``pos`` of zone ``key`` (its group), in
    the zone's stored order (deterministic)."""
    z = zone_at(st, key)
    g = _group(st, key, z[pos])
    return tuple(c for c in z if c in g)


def _reveal(st: State, key: tuple, pos: int, comp: Component) -> None:
    """Put ``comp`` (a member of the group of ``pos`` in zone ``key``) at ``pos``; its place is
    known from now on."""
    z = zone_at(st, key)
    g = _group(st, key, z[pos])
    if g is None or comp not in g:
        raise FlowError(f"{comp.id} cannot be at position {pos} of {_key_text(key)}")
    j = z.index(comp)
    z[pos], z[j] = z[j], z[pos]
    g.discard(comp)
    if len(g) < 2:
        groups = [x for x in st.lazy[key] if len(x) > 1]
        if groups:
            st.lazy[key] = groups
        else:
            del st.lazy[key]


def _kept(st: State, loc: dict) -> bool:
    """Whether the frame of the effect running now is still on the stack (it is unless the
    effect was the last of its block: a tail call), so that names it binds can be stored there."""
    return bool(st.stack) and st.stack[-1][2] is loc


def _rebind(st: State, kept: bool, new: dict | None) -> None:
    if kept and new is not None:
        block, pc, _, loop = st.stack[-1]
        st.stack[-1] = (block, pc, new, loop)


# ---------------------------------------------------------------------------------------------
# Chance points


class ChancePoint:
    """A pending chance event: ``st.pending == (point, loc, outcomes, (CHANCE,))``.

    ``effect`` the wrapper that asked (its ``resume_chance`` continues), ``kind`` ``reveal`` |
    ``draw`` | ``roll`` | ``random``, ``key`` the zone (reveals and draws), ``pos`` the position
    revealed, ``data`` the progress (JSON-able: see ``to_json``), ``probs`` one probability per
    outcome.  Duck-types :class:`~interpreter.engine.flow.Choose` where the state reads a decision.
    """

    __slots__ = ("effect", "kind", "key", "pos", "data", "probs", "kept")
    name = "chance"

    def __init__(self, effect, kind: str, key: tuple | None, pos: int, data: Any, probs: tuple, kept: bool):
        self.effect = effect
        self.kind = kind
        self.key = key
        self.pos = pos
        self.data = data
        self.probs = probs
        self.kept = kept

    @property
    def mark(self):
        return self.effect.mark

    def resume(self, st: State, loc: dict, action: Action) -> None:
        """Apply the outcome ``action`` and continue the effect (which may stop at another chance
        point or a decision).

        With chance explicit, every outcome is a move of its own, with a new step budget; a rule
        that loops through chance alone (a die rolled until it shows 7) would never end, and a
        driver taking outcomes (an adapter's exploring, OpenSpiel's playouts) would hang.  So
        the outcomes taken in a row with no decision between them are counted, and more than the
        step budget of them (``limits: {steps}``, each outcome at least one effect) fails as
        that budget does in sample mode, naming the rule.

        Raises:
            FlowError: more chance outcomes in a row than the step budget.
        """
        env = st.env
        if env.chance_since is not st.record:  # a decision since the last outcome: a new run
            env.chance_since = st.record
            env.chance_run = 0
        env.chance_run += 1
        if env.chance_run > st.ruleset.step_budget:
            raise FlowError(
                f"{env.chance_run - 1:,} chance events in a row with no decision between them (the step budget of "
                f"{st.ruleset.step_budget:,} effects, with chance explicit): a rule seems to loop forever on chance "
                "(raise it with `limits: {steps: N}`)", self.mark)
        self.effect.resume_chance(st, loc, self, action.args[0])

    def label(self, st: State, loc: dict, action: Action) -> str:
        """The readable text of an outcome."""
        v = action.args[0]
        if self.kind in ("reveal", "draw"):
            comp = st.ruleset.by_id.get(v)
            return f"{'draw' if self.kind == 'draw' else 'reveal'} {comp.label if comp else v} from {_key_text(self.key)}"
        if self.kind == "roll":
            return f"roll {v}"
        return f"pick {render(self.data[0][v])}"

    def prompt(self, env: Env) -> str:
        return f"chance: {self.kind} ({self.effect.verb} at {self.effect.mark})"

    def to_json(self, encode) -> dict:
        """The chance point as JSON data, ``encode`` saving values (its outcomes are recomputed
        when loaded)."""
        return {
            "effect": self.effect.id,
            "kind": self.kind,
            "key": encode(list(self.key)) if self.key is not None else None,
            "pos": self.pos,
            "data": encode(self.data),
            "kept": self.kept,
        }


def _key_text(key: tuple | None) -> str:
    if not key:
        return ""
    return key[0] + "".join(f"[{render(i)}]" for i in key[1:])


def restore_point(st: State, data: dict, decode) -> tuple:
    """The pending tuple of a chance point saved by :meth:`ChancePoint.to_json`, ``decode``
    restoring values.

    Raises:
        LookupError, TypeError, ValueError: malformed data (the caller reports it).
    """
    rs = st.ruleset
    effect = rs.chance_effects[data["effect"]]
    key = tuple(decode(data["key"])) if data["key"] is not None else None
    kind = data["kind"]
    point_data = decode(data["data"])
    if isinstance(point_data, list):
        point_data = tuple(point_data)
    pos = int(data["pos"])
    if kind in ("reveal", "draw"):
        outcomes = tuple(c.id for c in _candidates(st, key, pos))
    elif kind == "roll":
        outcomes = tuple(range(1, point_data[1] + 1))
    elif kind == "random":
        outcomes = tuple(range(len(point_data[0])))
    else:
        raise ValueError(f"unknown chance point kind {kind!r}")
    if not outcomes:
        raise ValueError("a chance point without outcomes")
    p = 1.0 / len(outcomes)
    point = ChancePoint(effect, kind, key, pos, point_data, (p,) * len(outcomes), bool(data["kept"]))
    return (point, None, tuple(Action(_OUTCOME, (v,)) for v in outcomes), (CHANCE,))


def _pause(st: State, effect, kind: str, key, pos: int, data, values: tuple, loc: dict, kept: bool) -> None:
    p = 1.0 / len(values)
    point = ChancePoint(effect, kind, key, pos, data, (p,) * len(values), kept)
    st.pending = (point, loc, tuple(Action(_OUTCOME, (v,)) for v in values), (CHANCE,))


# ---------------------------------------------------------------------------------------------
# The wrappers


class Wrapper(Effect):
    """Base of the explicit-chance wrappers: ``inner`` the effect compiled as usual, ``reads``
    what its expressions read of hidden zones (see :func:`order_reads`), ``id`` the index in
    ``Ruleset.chance_effects`` (for saving a pending chance point).

    ``run`` reveals what the expressions read (a :class:`Gate`'s whole job), then ``act``s;
    either may stop at a chance point, and ``resume_chance`` continues from there.
    """

    __slots__ = ("inner", "reads", "id", "verb")
    simple = False

    def __init__(self, inner: Effect, reads: tuple):
        self.inner = inner
        self.reads = reads
        self.mark = inner.mark
        self.binds = inner.binds
        self.verb = inner.verb
        self.id = -1

    def run(self, st, loc):
        self.proceed(st, loc, _kept(st, loc))

    def proceed(self, st: State, loc: dict, kept: bool) -> None:
        if self.reads and self._gate(st, loc, kept):
            return
        self.act(st, loc, kept)

    def _gate(self, st: State, loc: dict, kept: bool) -> bool:
        """Stop at a chance point revealing the next position a read needs; True if stopped."""
        if not st.lazy:
            return False
        for name, how in self.reads:
            for key in list(st.lazy):
                if key[0] != name:
                    continue
                pos = _unknown_top(st, key, how)
                if pos is not None:
                    values = tuple(c.id for c in _candidates(st, key, pos))
                    if len(values) == 1:
                        _reveal(st, key, pos, st.ruleset.by_id[values[0]])
                        return self._gate(st, loc, kept)
                    _pause(st, self, "reveal", key, pos, None, values, loc, kept)
                    return True
        return False

    def act(self, st: State, loc: dict, kept: bool) -> None:
        """Run the wrapped effect (after the reveals), storing the names it binds."""
        _rebind(st, kept, self.inner.run(st, loc))

    def resume_chance(self, st: State, loc: dict, point: ChancePoint, value: Any) -> None:
        """Continue after the outcome ``value`` of ``point``."""
        if point.kind == "reveal":
            _reveal(st, point.key, point.pos, st.ruleset.by_id[value])
            self.proceed(st, loc, point.kept)
        else:  # pragma: no cover - subclasses handle their own kinds
            raise FlowError(f"unexpected chance point {point.kind}", self.mark)


class Gate(Wrapper):
    """Any effect whose expressions read the order of a hidden zone: the positions read are
    revealed (chance points) before it runs.  A ``while`` whose condition reads such an order
    also ends its body with a :class:`RevealForCondition` gate, so the condition is revealed
    before each repeat's test too (see :func:`gate_while`)."""

    __slots__ = ()


class RevealForCondition(Effect):
    """Does nothing: run inside a :class:`Gate` as the last effect of a ``while`` body, it makes
    the positions the loop's condition reads be revealed before the condition is tested again."""

    verb = "reveal"
    simple = False
    __slots__ = ()

    def __init__(self, mark):
        self.mark = mark
        self.binds = ()

    def run(self, st, loc):
        return None


def gate_while(effect: Effect, hidden: set[str], functions: dict, register) -> None:
    """For a ``while`` effect (or a wrapper of one) whose condition reads the order of a hidden
    zone: append to its body a gate revealing what the condition reads, so every test of the
    condition (the first one is gated by the wrapper around the ``while`` itself) sees revealed
    positions only."""
    inner = getattr(effect, "inner", effect)
    if getattr(inner, "verb", "") != "while":
        return
    reads = order_reads([inner.cond.text], hidden, functions)
    if not reads:
        return
    gate = Gate(RevealForCondition(inner.mark), reads)
    register(gate)
    body = inner.body
    body.effects = body.effects + (gate,)
    body.rebuild([eff.simple for eff in body.effects], None)


class ExplicitShuffle(Wrapper):
    """``shuffle`` with explicit chance: a hidden zone's components are marked as in unknown
    order (a lazy deal); a zone someone may see is revealed at once, from the top down."""

    __slots__ = ("hidden",)

    def __init__(self, inner, reads, hidden: bool):
        super().__init__(inner, reads)
        self.hidden = hidden

    def act(self, st, loc, kept):
        env = st.env
        env.loc = loc
        z = self.inner.zone.get(env)
        key = zone_key(self.inner.zone, env)
        if len(z) < 2:
            st.lazy.pop(key, None)
            return
        st.lazy[key] = [set(z)]
        if not self.hidden:
            self._reveal_all(st, loc, key, kept)

    def _reveal_all(self, st, loc, key, kept):
        while True:
            pos = _unknown_top(st, key, "all")
            if pos is None:
                return
            values = tuple(c.id for c in _candidates(st, key, pos))
            if len(values) == 1:
                _reveal(st, key, pos, st.ruleset.by_id[values[0]])
                continue
            _pause(st, self, "reveal", key, pos, ("all",), values, loc, kept)
            return

    def resume_chance(self, st, loc, point, value):
        _reveal(st, point.key, point.pos, st.ruleset.by_id[value])
        if point.data == ("all",):
            self._reveal_all(st, loc, point.key, point.kept)
        else:
            self.proceed(st, loc, point.kept)


class ExplicitRandom(Wrapper):
    """``random`` with explicit chance: one chance point over the list's indexes."""

    __slots__ = ()

    def act(self, st, loc, kept):
        inner = self.inner
        env = st.env
        env.loc = loc
        items = list(inner.items(env))
        if not items:
            raise FlowError("`random` from an empty list", self.mark)
        if len(items) == 1:
            self._finish(st, loc, kept, items[0])
            return
        _pause(st, self, "random", None, 0, (items,), tuple(range(len(items))), loc, kept)

    def resume_chance(self, st, loc, point, value):
        if point.kind == "reveal":
            return super().resume_chance(st, loc, point, value)
        self._finish(st, loc, point.kept, list(point.data[0])[value])

    def _finish(self, st, loc, kept, value):
        inner = self.inner
        if inner.name:
            _rebind(st, kept, _bind(loc, inner.name, value))
        else:
            env = st.env
            env.loc = loc
            inner.place.set(env, value)


class ExplicitRoll(Wrapper):
    """``roll`` with explicit chance: one chance point per die (faces 1..S, each 1/S)."""

    __slots__ = ()

    def act(self, st, loc, kept):
        from .flow import MAX_DICE

        inner = self.inner
        env = st.env
        env.loc = loc
        n, s = inner.dice(env), inner.sides(env)
        if type(n) is not int or not 0 <= n <= MAX_DICE or type(s) is not int or s < 1:
            raise FlowError(
                f"`roll` needs 0 to {MAX_DICE} dice (found {render(n)!r}) of at least 1 side (found {render(s)!r})",
                self.mark,
            )
        self._next(st, loc, kept, n, s, [])

    def _next(self, st, loc, kept, n, s, rolls):
        while len(rolls) < n and s == 1:
            rolls.append(1)
        if len(rolls) < n:
            _pause(st, self, "roll", None, 0, (n, s, tuple(rolls)), tuple(range(1, s + 1)), loc, kept)
            return
        inner = self.inner
        if inner.name:
            _rebind(st, kept, _bind(loc, inner.name, list(rolls)))
        else:
            env = st.env
            env.loc = loc
            inner.place.set(env, list(rolls))

    def resume_chance(self, st, loc, point, value):
        if point.kind == "reveal":
            return super().resume_chance(st, loc, point, value)
        n, s, rolls = point.data
        self._next(st, loc, point.kept, n, s, [*rolls, value])


class ExplicitMove(Wrapper):
    """``move`` touching a hidden zone, with explicit chance: a draw from the top of a lazily
    dealt zone reveals each card as it is drawn (a refill of an empty zone from ``refill_from``
    is a lazy deal too), and the lazy zones forget the components that leave them."""

    __slots__ = ()

    def act(self, st, loc, kept):
        inner = self.inner
        if inner.what is not None:
            carried = []
            if st.lazy and inner.dst.decl.visibility in UNORDERED_VISIBILITIES and type(inner.dst) is not KeyedZoneRef:
                # components taken by identity keep their unknown order in a hidden zone
                env = st.env
                env.loc = loc
                items = inner.what(env)
                items = {items} if type(items) is Component else set(items or ())
                carried = [g & items for groups in st.lazy.values() for g in groups]
                carried = [g for g in carried if len(g) > 1]
                dkey = zone_key(inner.dst, env) if carried else None
            _rebind(st, kept, inner.run(st, loc))
            if carried:
                st.lazy.setdefault(dkey, []).extend(carried)
            if st.lazy:
                prune(st)
            return
        env = st.env
        env.loc = loc
        n = inner.count(env)
        if type(n) is not int:
            raise FlowError(f"`count` must be a whole number, found {render(n)!r}", inner.mark)
        self._draw(st, loc, kept, n, [])

    def _draw(self, st, loc, kept, n, moved: list) -> None:
        inner = self.inner
        env = st.env
        env.loc = loc
        src_ref, dst_ref = inner.src, inner.dst
        src = src_ref.get(env)
        key = zone_key(src_ref, env)
        dkey = None
        if type(dst_ref) is KeyedZoneRef:
            dst, dkey = dst_ref.locate(env, True)
        else:
            dst = dst_ref.get(env)
        at = inner.at
        base = None if at in ("top", "bottom") else at(env)
        try:
            while len(moved) < n:
                if not src:
                    st.refill(inner.src.decl, src, env, key)
                    if not src:
                        break
                if key in st.lazy and _group(st, key, src[-1]) is not None:
                    pos = len(src) - 1
                    values = tuple(c.id for c in _candidates(st, key, pos))
                    _pause(st, self, "draw", key, pos, (n, tuple(moved)), values, loc, kept)
                    return
                c = src.pop()
                if at == "top":
                    dst.append(c)
                elif at == "bottom":
                    dst.insert(0, c)
                else:
                    dst.insert(base + len(moved), c)
                moved.append(c)
        finally:
            if dkey is not None:
                dst_ref.settle(env, dst, dkey)
        if inner.refill_now:
            st.refill_immediately(env)
        if st.lazy:
            prune(st)
        if inner.name:
            _rebind(st, kept, _bind(loc, inner.name, list(moved)))

    def resume_chance(self, st, loc, point, value):
        if point.kind == "reveal":
            return super().resume_chance(st, loc, point, value)
        _reveal(st, point.key, point.pos, st.ruleset.by_id[value])
        n, moved = point.data
        self._draw(st, loc, point.kept, n, list(moved))


def wrap(inner: Effect, texts: list, hidden: set[str], functions: dict, register) -> Effect:
    """The effect to run in explicit chance mode in place of ``inner`` (``inner`` itself when it
    meets no chance).  ``texts``: the expression and template texts compiled for ``inner``
    itself (not its nested blocks); ``hidden``: the names of hidden zones; ``functions``: the
    order reads of ruleset functions; ``register(wrapper)`` gives the wrapper its id."""
    verb = inner.verb
    if verb == "move" and inner.what is not None and inner.dst.decl.name in hidden:
        if identity_selection(inner.what.text, hidden):
            texts = [t for t in texts if t is not inner.what.text and t != inner.what.text]
    reads = order_reads(texts, hidden, functions)
    if verb == "shuffle":
        w = ExplicitShuffle(inner, reads, inner.zone.decl.visibility in UNORDERED_VISIBILITIES)
    elif verb == "random":
        w = ExplicitRandom(inner, reads)
    elif verb == "roll":
        w = ExplicitRoll(inner, reads)
    elif verb == "move" and (
        inner.src is None
        or inner.src.decl.name in hidden
        or inner.dst.decl.name in hidden
        or inner.src.decl.refill_from is not None
    ):
        w = ExplicitMove(inner, reads)
    elif reads:
        w = Gate(inner, reads)
    else:
        return inner
    register(w)
    return w


def sample(st: State, rng=None) -> Action:
    """An outcome of the pending chance point drawn with its probability, from ``rng`` (an
    :class:`~interpreter.engine.rng.Rng`) or the state's own generator."""
    actions = st.pending[2]
    if rng is not None:
        return actions[rng.below(len(actions))]
    st.rng, i = rng_below(st.rng, len(actions))
    return actions[i]
