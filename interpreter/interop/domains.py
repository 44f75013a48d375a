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
  out: the domain may hold values the ``if`` never lets through); a tuple: the product of its
  parts; ``t[i]`` of a tuple: its part; ``list``, ``sorted``, ``distinct``, ``reversed`` keep
  their argument's items; ``top``/``first``/``bottom`` give one of them; a ruleset function:
  its body with its parameters bound to the arguments' domains.

Anything else (a variable, a ``let``, an attribute) is *unknown*: :func:`option_domain` returns
None and the encoding says so (``tapster info`` shows which options are derived).
"""

from __future__ import annotations

from itertools import product
from typing import Any

from ..lang.expression import Node

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


class _Reader:
    def __init__(self, rs, num_players: int):
        self.rs = rs
        self.n = num_players
        self.all_components = _Coll(_Vals(rs.components))
        self.functions = getattr(rs, "function_trees", {})

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
            return env[name]
        rs = self.rs
        if name in rs.zones:  # a keyed zone's items are its keys (places): not known without playing
            return _ANY if rs.zones[name].keyed else self.all_components
        if name in rs.params:
            return _const_domain(rs.params[name])
        if name == "players":
            return _Coll(_Vals(range(self.n)))
        if name == "num_players":
            return _Vals((self.n,))
        return _ANY

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
            elif clause.data != "comp_if":
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
            if isinstance(d, _Coll):
                return d.item
            raise Unknown(fname)
        return _ANY


def option_domain(rs, option, num_players: int) -> list[tuple] | None:
    """The argument tuples ``option`` (a compiled choose option with ``for`` names) can ever
    produce, derived from its ``in:`` expression (see the module's notes), in a stable order;
    None when its values cannot be derived without playing."""
    from ..lang.expression import parse

    text = getattr(option.items, "text", None)
    const = getattr(option.items, "constant", None)
    k = len(option.names)
    try:
        if type(const) in (list, tuple, range):
            dom = _const_domain(list(const))
        elif isinstance(text, str):
            dom = _Reader(rs, num_players).domain(parse(text), {})
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
