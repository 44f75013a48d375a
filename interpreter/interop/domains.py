"""The values an option's ``for`` names can take, derived from its ``in:`` expression, never played.

The action encoding (:mod:`interpreter.interop.encoding`) gives every action any decision can produce a
fixed index.  For an option ``{action: A, for: x, in: EXPR}`` the index space of ``A`` is the set
of values ``EXPR``'s items can take in *any* state, found here by reading ``EXPR`` (an abstract
evaluation over domains, not a game):

- a constant (``range(9)``, ``[0, 90, 180, 270]``, a parameter's list, a comprehension over
  constant ranges such as ``[(q, f) for q in range(1, 3) for f in range(1, 7)]``) gives exactly
  its items;
- a zone (``hand[current]``, ``field[c]``) holds components: every component of the ruleset (a
  keyed zone itself lists its keys, which are not known without playing);
  ``components('kind')`` those of the kind; ``players`` the seats;
- a map's ``nodes(m)`` and ``neighbors(m, n)``: every node of the map;
- ``a + b``, ``x if c else y`` and list displays: the union of their parts; a comprehension: its
  element over the domains of its ``for`` targets (an ``if`` only removes items, so it is left
  out: the domain may hold values the ``if`` never lets through, save that ``if x is not
  none`` drops none from ``x``); a tuple: the product of its parts; ``t[i]`` of a tuple: its
  part; ``list``, ``sorted``, ``distinct``, ``reversed`` keep their argument's items;
  ``top``/``first``/``bottom``/``last`` give one of them or none; a ruleset function: its body
  with its parameters bound to the arguments' domains;
- a ``let`` name bound before the decision (earlier in its block or in a block around it): its
  expression's domain, read where the ``let`` stands (:class:`_Scopes` walks every block of the
  flow, setup, procedures and triggers in order); a ``for_each`` name: its items'; a
  ``repeat`` counter: 0 to the count less 1; an enclosing option's ``for`` name: its values;
- a variable: the values of its static type (:func:`interpreter.interop.layout.settled_types`,
  read from every write to a fixed point), when that type is finite: components of some kinds,
  seats (and the negative sentinels among the constants), truth values, texts or numbers the
  writes spell out, tuples and lists of those; none is always among them.

Anything else is *unknown*: an attribute, a number computed from the state, a keyed zone's keys
(places: ``field[(x, y)]``'s coordinates are whatever the moves make of them), a local name
bound any other way (``random``'s or ``move``'s ``as``, a procedure's or trigger's parameters).
:func:`option_domain` then returns None and the encoding explores the option (``tapster info``
shows which options are derived).  A domain is a superset of the values an option can list
(ids never legal are masked out); it never misses one.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from ..engine.flow import Block, Choose, Effect, ForEach, If, Let, Phase, Repeat, Turn, While
from ..lang.expression import Node
from .layout import settled_types

__all__ = ["option_domain", "Unknown"]

_MAX_VALUES = 1_000_000  # a domain larger than this is not listed (the index space would not fit)
_MAX_DEPTH = 8  # ruleset functions calling each other


class Unknown(Exception):
    """The expression's values cannot be derived without playing."""


class _Vals:
    """A finite set of values (scalars, components, tuples)."""

    __slots__ = ("values",)

    def __init__(self, values):
        self.values = dict.fromkeys(values)  # ordered, no repeats
        if len(self.values) > _MAX_VALUES:
            raise Unknown("too many values")


class _Tup:
    """Tuples whose i-th item lies in ``parts[i]``."""

    __slots__ = ("parts",)

    def __init__(self, parts):
        self.parts = list(parts)


class _Coll:
    """A list (or zone, or set) whose items lie in ``item``."""

    __slots__ = ("item",)

    def __init__(self, item):
        self.item = item


class _AnyDomain:
    """Values not known without playing (an attribute, a variable): harmless until listed."""

    __slots__ = ()


_ANY = _AnyDomain()


def _values(d) -> list:
    """Every value of an element domain (a tuple domain is the product of its parts).

    Raises:
        Unknown: the domain holds values not known without playing, or too many.
    """
    if d is _ANY:
        raise Unknown("values not known without playing")
    if isinstance(d, _Vals):
        return list(d.values)
    if isinstance(d, _Tup):
        parts = [_values(p) for p in d.parts]
        size = 1
        for p in parts:
            size *= len(p)
        if size > _MAX_VALUES:
            raise Unknown("too many values")
        return [tuple(t) for t in product(*parts)]
    raise Unknown("a list where one value was expected")


def _union(a, b):
    if a is _ANY or b is _ANY:
        return _ANY
    if isinstance(a, _Coll) and isinstance(b, _Coll):
        return _Coll(_union(a.item, b.item))
    if isinstance(a, _Tup) and isinstance(b, _Tup) and len(a.parts) == len(b.parts):
        return _Tup(_union(x, y) for x, y in zip(a.parts, b.parts))
    if isinstance(a, _Coll) or isinstance(b, _Coll):
        raise Unknown("a list and a value")
    return _Vals([*_values(a), *_values(b)])


def _const_domain(value: Any):
    """The domain of a constant value (a list: a collection of its items)."""
    if isinstance(value, (list, range)) or (isinstance(value, tuple) and False):
        items = list(value)
        if not items:
            return _Coll(_Vals(()))
        doms = [_const_domain(v) for v in items]
        out = doms[0]
        for d in doms[1:]:
            out = _union(out, d)
        return _Coll(out)
    if isinstance(value, tuple):
        return _Tup(_const_domain(v) for v in value)
    if isinstance(value, dict):
        raise Unknown("a mapping")
    return _Vals((value,))


class _Let:
    """A ``let`` name's domain, read the first time an expression needs it: its expression
    where the local names ``env`` hold (the names bound before the ``let``)."""

    __slots__ = ("reader", "ex", "env", "value")

    def __init__(self, reader, ex, env: dict):
        self.reader, self.ex, self.env, self.value = reader, ex, env, None

    def get(self):
        if self.value is None:
            self.value = _ANY  # a name read while its own value is read (never, in a ruleset that compiles)
            self.value = self.reader.compiled(self.ex, self.env)
        return self.value


def _negative_ints(rs) -> set:
    """Every negative whole number among the ruleset's constants (parameters, variables'
    initial values, component fields): the sentinels a seat's static type may hide."""
    out: set = set()

    def scan(v, depth=0):
        if type(v) is int and v < 0:
            out.add(v)
        elif isinstance(v, (list, tuple)) and depth < 4:
            for x in v:
                scan(x, depth + 1)
        elif isinstance(v, dict) and depth < 4:
            for x in v.values():
                scan(x, depth + 1)

    scan(list(rs.params.values()))
    scan([d.value for d in rs.vars.values()])
    for c in rs.components:
        scan(list(c.fields.values()))
    return out


def _not_none(cond) -> list[str]:
    """The names a condition holds not none when true: ``x is not none``, ``x != none``, and
    each part of an ``and``."""
    if not isinstance(cond, Node):
        return []
    if cond.data == "and_":
        return [n for c in cond.children for n in _not_none(c)]
    if cond.data == "compare" and len(cond.children) == 3:
        left, op, right = cond.children
        ops = [str(t) for t in getattr(op, "children", ())]
        if ops in (["is", "not"], ["!="]) and isinstance(right, Node) and right.data == "none" \
                and isinstance(left, Node) and left.data == "name":
            return [str(left.children[0])]
    return []


class _Reader:
    def __init__(self, rs, num_players: int):
        self.rs = rs
        self.n = num_players
        self.all_components = _Coll(_Vals(rs.components))
        self.functions = getattr(rs, "function_trees", {})
        self.var_types: dict | None = None  # read when a variable is first met
        self.negatives = sorted(_negative_ints(rs))

    def compiled(self, ex, env: dict):
        """The domain of a compiled expression ``ex`` where the local names ``env`` hold (name
        -> domain or :class:`_Let`): a local name ``ex`` sees but ``env`` does not hold is
        unknown, never the global of that name."""
        if ex.source is None:  # a YAML scalar
            return _const_domain(ex.constant)
        tree, scope = ex.source
        return self.domain(tree, {name: env.get(name, _ANY) for name in scope.locals})

    def domain(self, node, env: dict, depth: int = 0):
        if not isinstance(node, Node):
            raise Unknown(f"token {node!r}")
        kind = node.data
        ch = node.children
        method = getattr(self, "d_" + kind, None)
        if method is None:
            return _ANY
        try:
            return method(ch, env, depth)
        except Unknown:
            return _ANY

    # literals ---------------------------------------------------------------------------------
    def d_number(self, ch, env, depth):
        text = str(ch[0])
        return _Vals((float(text) if any(c in text for c in ".eE") else int(text),))

    def d_string(self, ch, env, depth):
        import ast

        return _Vals((ast.literal_eval(str(ch[0])),))

    def d_true(self, ch, env, depth):
        return _Vals((True,))

    def d_false(self, ch, env, depth):
        return _Vals((False,))

    def d_none(self, ch, env, depth):
        return _Vals((None,))

    def d_neg(self, ch, env, depth):
        return _Vals(-v for v in _values(self.domain(ch[0], env, depth)))

    # names ------------------------------------------------------------------------------------
    def d_name(self, ch, env, depth):
        name = str(ch[0])
        if name in env:
            d = env[name]
            return d.get() if type(d) is _Let else d
        rs = self.rs
        if name in rs.zones:  # a keyed zone's items are its keys (places): not known without playing
            return _ANY if rs.zones[name].keyed else self.all_components
        if name in rs.params:
            return _const_domain(rs.params[name])
        if name == "players":
            return _Coll(_Vals(range(self.n)))
        if name == "num_players":
            return _Vals((self.n,))
        if name in rs.vars:
            return self.var_domain(name)
        return _ANY

    def var_domain(self, name: str):
        """A variable's values by its static type (:func:`interpreter.interop.layout.settled_types`):
        a per-player variable is a list of one value per seat."""
        if self.var_types is None:
            self.var_types = settled_types(self.rs, self.n) or {}
        t = self.var_types.get(name)
        if t is None:
            return _ANY
        d = self.type_domain(t)
        return _Coll(d) if self.rs.vars[name].per_player else d

    def type_domain(self, t: tuple):
        """The values a static type (:mod:`interpreter.interop.layout`) allows, none always
        among them (a type that may be none does not always say so), or ``_ANY``."""
        kind = t[0]
        if kind == "list":
            return _Coll(self.type_domain(t[1]))
        try:
            if kind == "comp":
                return _Vals([*(c for c in self.rs.components if c.kind in t[1]), None])
            if kind == "seat":  # a seat, or a sentinel a constant spells out (-1: nobody)
                return _Vals([*range(self.n), *self.negatives, None])
            if kind == "bool":
                return _Vals((False, True, None))
            if kind in ("text", "num") and t[1] is not None:
                return _Vals([*sorted(t[1], key=repr), None])
            if kind == "none":
                return _Vals((None,))
            if kind == "tuple":  # the tuples, or none
                return _Vals([*_values(_Tup(self.type_domain(p) for p in t[1])), None])
        except Unknown:
            pass
        return _ANY  # any, bottom, a record or a dict (indexing one gives a value, iterating its keys)

    # structure --------------------------------------------------------------------------------
    def d_tuple(self, ch, env, depth):
        parts = [ch[0], *(ch[1].children if len(ch) > 1 and isinstance(ch[1], Node) else ch[1:])]
        return _Tup(self.domain(p, env, depth) for p in parts)

    def d_list(self, ch, env, depth):
        items = [c for c in ch if c is not None]
        if len(items) == 1 and isinstance(items[0], Node) and items[0].data == "exprs":
            items = items[0].children
        if not items:
            return _Coll(_Vals(()))
        out = self.domain(items[0], env, depth)
        for it in items[1:]:
            out = _union(out, self.domain(it, env, depth))
        return _Coll(out)

    def d_add(self, ch, env, depth):
        a, b = self.domain(ch[0], env, depth), self.domain(ch[-1], env, depth)
        if isinstance(a, _Coll) and isinstance(b, _Coll):
            return _union(a, b)
        return self._arith(a, b, lambda x, y: x + y)

    def d_sub(self, ch, env, depth):
        return self._arith(self.domain(ch[0], env, depth), self.domain(ch[-1], env, depth), lambda x, y: x - y)

    def d_mul(self, ch, env, depth):
        return self._arith(self.domain(ch[0], env, depth), self.domain(ch[-1], env, depth), lambda x, y: x * y)

    @staticmethod
    def _arith(a, b, op):
        xs, ys = _values(a), _values(b)
        if not all(type(v) is int for v in xs + ys) or len(xs) * len(ys) > _MAX_VALUES:
            raise Unknown("arithmetic")
        return _Vals(op(x, y) for x in xs for y in ys)

    def d_ternary(self, ch, env, depth):
        return _union(self.domain(ch[0], env, depth), self.domain(ch[-1], env, depth))

    d_cond = d_ternary

    def d_index(self, ch, env, depth):
        base = ch[0]
        if isinstance(base, Node) and base.data == "name" and str(base.children[0]) in self.rs.zones and str(base.children[0]) not in env:
            return self.all_components  # a per-player, counted or keyed zone's part is a zone
        b = self.domain(base, env, depth)
        if isinstance(b, _Coll):
            return b.item
        if isinstance(b, _Tup):
            i = self.domain(ch[1], env, depth)
            idx = _values(i)
            if len(idx) == 1 and type(idx[0]) is int and -len(b.parts) <= idx[0] < len(b.parts):
                return b.parts[idx[0]]
        raise Unknown("an index")

    def d_listcomp(self, ch, env, depth):
        elt, clauses = ch[0], ch[1]
        return _Coll(self._comprehension(elt, clauses.children, env, depth))

    def _comprehension(self, elt, clauses, env, depth):
        env = dict(env)
        for clause in clauses:
            if clause.data == "comp_for":
                targets, source = clause.children[0], clause.children[1]
                names = [str(t) for t in (targets.children if isinstance(targets, Node) else [targets])]
                src = self.domain(source, env, depth)
                item = src.item if isinstance(src, _Coll) else _ANY
                if len(names) == 1:
                    env[names[0]] = item
                elif isinstance(item, _Tup) and len(item.parts) == len(names):
                    env.update(zip(names, item.parts))
                else:
                    env.update(dict.fromkeys(names, _ANY))
            elif clause.data == "comp_if":
                for name in _not_none(clause.children[0]):  # `if c is not none`: c is not none after it
                    d = env.get(name)
                    if isinstance(d, _Vals) and None in d.values:
                        env[name] = _Vals(v for v in d.values if v is not None)
            else:
                raise Unknown(clause.data)
        return self.domain(elt, env, depth)

    def d_call(self, ch, env, depth):
        fname = str(ch[0])
        args = list(ch[1].children) if len(ch) > 1 and isinstance(ch[1], Node) else []
        rs = self.rs
        if fname in self.functions and depth < _MAX_DEPTH:
            params, tree = self.functions[fname]
            if len(params) != len(args):
                raise Unknown("a call")
            inner = {p: self.domain(a, env, depth) for p, a in zip(params, args)}
            return self.domain(tree, inner, depth + 1)
        if fname == "range":
            nums = [_values(self.domain(a, env, depth)) for a in args]
            if all(len(v) == 1 and type(v[0]) is int for v in nums):
                return _Coll(_Vals(range(*[v[0] for v in nums])))
            raise Unknown("range over values not known")
        if fname in ("nodes", "neighbors", "neighbours", "successors", "predecessors") and args:
            m = args[0]
            if isinstance(m, Node) and m.data == "name" and str(m.children[0]) in getattr(rs, "maps", {}):
                return _Coll(_Vals(n for n in rs.maps[str(m.children[0])].graph.nodes))
            raise Unknown("a map")
        if fname == "components" and len(args) == 1:
            kinds = _values(self.domain(args[0], env, depth))
            comps = [c for k in kinds if k in rs.kinds for c in rs.kinds[k].components]
            return _Coll(_Vals(comps))
        if fname in ("list", "sorted", "distinct", "reversed", "shuffled") and args:
            d = self.domain(args[0], env, depth)
            if isinstance(d, _Coll):
                return d
            raise Unknown(fname)
        if fname in ("top", "first", "bottom", "last") and args:
            d = self.domain(args[0], env, depth)
            if isinstance(d, _Coll):  # one of its items, or none for an empty list
                return _union(d.item, _Vals((None,)))
            raise Unknown(fname)
        return _ANY


def _unwrap(eff):
    """An effect as compiled, without the explicit-chance wrappers around it."""
    inner = getattr(eff, "inner", None)
    while isinstance(inner, Effect):
        eff, inner = inner, getattr(inner, "inner", None)
    return eff


def _child_blocks(eff) -> list:
    """The blocks an effect holds (an ``if``'s branches, a loop's body, an option's ``do``...)."""
    out = []
    for slot in _slots(type(eff)):
        v = getattr(eff, slot, None)
        if isinstance(v, Block):
            out.append(v)
        elif isinstance(v, (tuple, list)):
            out.extend(x for x in v if isinstance(x, Block))
    if isinstance(eff, Choose):
        out.extend(o.body for o in eff.options if isinstance(o.body, Block))
    return out


def _slots(cls) -> list:
    return [s for k in cls.__mro__ for s in getattr(k, "__slots__", ())]


class _Scopes:
    """What the local names hold at every decision of a ruleset: each block of the flow,
    setup, procedures and triggers walked in order, ``let`` names bound to their expressions'
    domains (read lazily), loop names to their items', option names to their option's values;
    any other name a block binds (``random``'s ``as``, ``move``'s ``as``, a procedure's or
    trigger's parameters) is unknown."""

    def __init__(self, rs, num_players: int):
        self.reader = _Reader(rs, num_players)
        self.at: dict[int, tuple] = {}  # id(option) -> (option, the local names' domains at its decision)
        children = {id(b) for block in rs.blocks for eff in block.effects for b in _child_blocks(_unwrap(eff))}
        for block in rs.blocks:
            if id(block) not in children:
                self.block(block, {})

    def block(self, block, env: dict) -> None:
        env = dict(env)
        reader = self.reader
        for eff in block.effects:
            eff = _unwrap(eff)
            if isinstance(eff, Let):  # every expression of one `let` sees the names before it
                before = dict(env)
                env.update({k: _Let(reader, ex, before) for k, ex in eff.pairs})
                continue
            if isinstance(eff, Choose):
                here = dict(env)
                for o in eff.options:
                    self.at[id(o)] = (o, here)
                    inner = dict(env)
                    if o.names:
                        self.bind(inner, o.names, self.items(o.items, env))
                    self.block(o.body, inner)
                if eff.otherwise is not None:
                    self.block(eff.otherwise, env)
            elif isinstance(eff, ForEach):
                inner = dict(env)
                self.bind(inner, (eff.name,), self.items(eff.items, env))
                self.block(eff.body, inner)
            elif isinstance(eff, Repeat):
                inner = dict(env)
                if eff.name:
                    inner[eff.name] = _ANY
                    try:
                        times = _values(reader.compiled(eff.times, env))
                        if all(type(t) is int for t in times):
                            inner[eff.name] = _Vals(range(max([0, *times])))
                    except Unknown:
                        pass
                self.block(eff.body, inner)
            elif isinstance(eff, (If, While, Turn, Phase)):
                for b in _child_blocks(eff):
                    self.block(b, env)
            else:  # a block inside an effect not known here: names it may bind are unknown there
                for b in _child_blocks(eff):
                    self.block(b, dict.fromkeys(env, _ANY))
            for name in eff.binds:
                env[name] = _ANY

    def items(self, ex, env: dict):
        """The domain of one item of the list ``ex`` (a loop's or an option's items)."""
        d = self.reader.compiled(ex, env)
        return d.item if isinstance(d, _Coll) else _ANY

    @staticmethod
    def bind(env: dict, names: tuple, item) -> None:
        if len(names) == 1:
            env[names[0]] = item
        elif isinstance(item, _Tup) and len(item.parts) == len(names):
            env.update(zip(names, item.parts))
        else:
            env.update(dict.fromkeys(names, _ANY))


def _scopes(rs, num_players: int) -> _Scopes:
    """The ruleset's :class:`_Scopes` for ``num_players``, built once and kept with it."""
    kept = rs.__dict__.setdefault("_option_scopes", {})
    if num_players not in kept:
        kept[num_players] = _Scopes(rs, num_players)
    return kept[num_players]


def option_domain(rs, option, num_players: int) -> list[tuple] | None:
    """The argument tuples ``option`` (a compiled choose option of ``rs`` with ``for`` names)
    can ever produce, derived from its ``in:`` expression (see the module's notes), in a
    stable order; None when its values cannot be derived without playing (an option not of
    ``rs`` is read with every local name unknown)."""
    const = getattr(option.items, "constant", None)
    k = len(option.names)
    try:
        if type(const) in (list, tuple, range):
            dom = _const_domain(list(const))
        elif getattr(option.items, "source", None) is not None:
            scopes = _scopes(rs, num_players)
            mine, env = scopes.at.get(id(option), (option, {}))
            if mine is not option:
                env = {}
            dom = scopes.reader.compiled(option.items, env)
        else:
            return None
        if not isinstance(dom, _Coll):
            return None
        if k == 1:
            return [(v,) for v in _values(dom.item)]
        item = dom.item
        if isinstance(item, _Tup) and len(item.parts) != k:
            return None
        vals = _values(item)
        if not all(isinstance(v, tuple) and len(v) == k for v in vals):
            return None
        return vals
    except (Unknown, RecursionError, ValueError, SyntaxError, TypeError):
        return None
