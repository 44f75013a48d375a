"""The observation tensor's layout, derived from the ruleset's declarations, never from playing.

:class:`TensorLayout` gives one ruleset (a variant, a seat count) a flat float32 vector of a
fixed size, the same whatever ``explore``, and fills it for one seat straight from the game's
state, without building the JSON observation (no labels, no text): the *fast observation path*
of the adapters.  It writes only what the seat may see, by the same rules as
:meth:`State.observation <interpreter.engine.state.State.observation>` (``hidden`` zones and
variables for nobody, ``owner`` ones for their owner, a component's properties only while the
seat may see the component), so the tensor of seat ``p`` is a function of ``p``'s observation.

**Parts, in order** (``tapster info RULESET --tensor`` prints them with their offsets):

- ``seat`` (one-hot, ``num_players``): the observing seat;
- ``current`` (one-hot): the seat whose turn it is;
- ``deciding`` (multi-hot): the seats that must decide now; ``chance`` (1): a chance point is
  pending; ``finished`` (1);
- ``turns`` (numbers, ``num_players``): the turns each seat has begun (the observation's
  per-seat turn counters);
- ``phase`` (one-hot over the phase names the rules declare, ``phase: {name: ...}``; no phase:
  all 0);
- ``scores`` (numbers), ``winners`` (multi-hot) and ``ranks`` (each seat's place in the
  ranking, 1 the best), at the end (0 before; the end's reason, a text, is left out);
- ``zones.NAME[i]...``: for every single zone (a per-player zone seat by seat, a counted zone
  index by index), one slot per component of the ruleset (its position in the zone from the
  bottom, plus 1, when the seat may see it there, else 0; in a zone whose contents the seat
  knows but not their order, ``owner_contents`` to its owner and ``public_contents``, 1 for each
  component that lies there, whatever its place), one slot with the zone's count (which
  everyone sees; a ``hidden`` zone has this slot only) and, for a zone the seat holds up to others (``owner``) whose components show
  backs (``back:``), one count per back the ruleset's components can show; a keyed zone has three
  slots per component (its height in its stack plus 1, then the key: an ``(x, y)`` place's x and
  y, or a text or component key's code, see below) and its count;
- ``vars.NAME`` (and ``vars.NAME[p]`` seat by seat for a per-player variable): every variable
  any seat may see (a ``hidden`` variable is in nobody's observation and has no slots; an
  ``owner`` one is filled for its owner only), encoded by its *type* (below);
- ``props.ID.PROP``: each mutable property of each component, by its type, filled while the
  seat may see the component.

**Types** are derived statically (:func:`infer_types`): from each variable's declared initial
value, the values of every ``set``/``add``/``roll``/``random`` that writes it (read from the
expressions, never played), the parameters, the component tables and the seats, to a fixed
point.  Names are typed where they are bound: ``current``, a ``for_each`` over ``players`` and
``... % num_players`` are seats; a ``for_each``/option ``for`` over a zone, ``component(id)`` and
a ``move``'s ``as:`` give components; a component's ``id`` is a text over the ids of its kinds;
a ``repeat`` counter (and ``range(n)``'s items) is a number, 0 to n - 1 when ``n`` is a known
whole number up to 64; a procedure's parameters take the types of its calls' ``with``
values and a trigger's those of its event's ``emit`` (a parameter nothing has given a value
yet is *nothing* while the fixed point grows, *any* only when nothing ever gives it one); a
list written out of items of different types (``[c, 1]``) is a tuple; anything the reading
does not know is *any* (a code):

=================  ===================================================================  ==========
type               encoding                                                              slots
=================  ===================================================================  ==========
seat               one-hot over the seats (any other value, -1 or none: all 0)           players
truth value        one-hot ``[false, true]`` (none: both 0)                              2
component          one-hot over the components of the kinds it can hold (none: all 0)    components
text (enumerated)  one-hot over the texts it can hold (literals, parameters, cells)      texts
number             the number (none 0); a number that may be none: ``[set, value]``      1 or 2
list, fixed size   its items' slots one after the other                                  size × item
list of            as a zone: its length, then per component of its items' kinds         1 +
components         the item's place in the list + 1 (0: absent)                          components
list of pairs      its length, then per component and per value of the second            1 + values
(component, x)     part (a finite domain, as a dict's keys): the pair's place + 1        × components
list               its length, then ``capacity`` items (later items are cut)             1 + cap × item
tuple              its parts' slots one after the other                                  sum
record             text keys the rules spell out (``{'act': x}``, ``r['k']``):          keys ×
                   per key, sorted, 1 when there, then its value by its own type        (1 + value)
dict               keys of a finite domain (seats, enumerated texts, components,        keys ×
                   whole numbers), per key as a record, one value type                  (1 + value)
other              one *code*: a number itself, true 1, false/none 0, a list its
                   length, a text or component 1 + its index in the ruleset's
                   vocabulary (every component id, map node, phase, parameter text,
                   table text and quoted literal, sorted), any other value -1            1
=================  ===================================================================  ==========

A list of components (or of pairs of a component and a value of a finite domain, such as
``[card, 1 or 2]``) whose length the rules change is laid out as a zone is, one slot per
component (per component and value) holding its *place*: the list's distinct items counted in
the order they first appear, so a list of distinct items, which is what the rules build, is
written exactly (its place is its position + 1); of a repeated item the first appearance is
kept, and an item of another type is counted in the length only.  A list of enumerated texts
whose one-hot items would pass :data:`MAX_PART` (the ids of a hundred cards) is laid
out the same way, one slot per text.  Any other list whose length
the rules change has a static **capacity**: the seats for seats, the texts for texts, else the
largest of the ruleset's component count, its longest constant list (parameters, initial
values) and the seat count.  Its length slot always holds the true length.  A text outside its enumeration is
written as nothing (all 0); a value of another type than derived gets its code in the first
slot (never an error: the type is a static estimate, the code says what was there).

**Bounds** (:meth:`TensorLayout.bounds`): every slot's least and greatest value, from the
declarations only (the same for every seat): one-hot, multi-hot and flag slots in [0, 1]; zone
counts and positions (plus 1) in [0, components]; a place in a list of components in [0, its
slots after the length]; turn counters and list lengths at least 0;
ranks in [0, seats]; scores within the declared ``outcome: {range}``; a number within its
constants when every value written to it is a constant, else unbounded; codes unbounded.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

from ..lang.expression import parse
from ..model import Component

if TYPE_CHECKING:  # pragma: no cover
    from ..compile.ruleset import Ruleset
    from ..engine.state import State

__all__ = ["TensorLayout", "infer_types", "settled_types", "describe_type", "LAYOUT_VERSION"]

#: The layout's version: research code that stores tensors can check it (1: laid out from
#: playouts, raw numbers; 2: from the declarations, one-hot, this module; 3: records and dicts
#: key by key, list literals of mixed items as tuples, procedure and trigger parameters typed
#: from every call before any is *any*, ``component(id)``, ``c.id`` and ``move ... as`` typed;
#: 4: a list of components whose length changes laid out as a zone, each component's place in
#: it, a list of (component, value of a finite domain) pairs per component and value, a list of
#: enumerated texts too many for one-hot items per text).
LAYOUT_VERSION = 4

#: An enumerated text type with more values than this is encoded as one code slot instead.
MAX_ONE_HOT = 512
#: A variable's part larger than this many slots encodes its list items as codes instead.
MAX_PART = 4096

_BOTTOM = ("bottom",)
_NONE = ("none",)
_BOOL = ("bool",)
_SEAT = ("seat",)
_ANY = ("any",)
_NUM = ("num", None, False)
_ARITH = {"sub", "mul", "div", "floordiv", "neg", "pos", "pow"}
_NUMBER_CALLS = {"len", "count", "sum", "abs", "int", "round", "index", "floor", "ceil", "score", "distance"}
_BOOL_CALLS = {"any", "all", "contains", "is_empty", "empty", "has"}
_SAME_CALLS = {"list", "sorted", "reversed", "distinct", "shuffled"}
_ITEM_CALLS = {"top", "first", "bottom", "last", "choice"}
_QUOTED = re.compile(r"'([^'\\\n]*)'|\"([^\"\\\n]*)\"")


# -- the type lattice ------------------------------------------------------------------------
def _num(consts=None, nullable=False):
    return ("num", consts, nullable)


def _list(item, length):
    return ("list", item, length)


def merge(a: tuple, b: tuple) -> tuple:
    """The least type holding the values of both ``a`` and ``b``."""
    if a == b:
        return a
    ka, kb = a[0], b[0]
    if ka == "bottom":
        return b
    if kb == "bottom":
        return a
    if ka == "none":
        return _nullable(b)
    if kb == "none":
        return _nullable(a)
    if ka == kb:
        if ka == "num":
            consts = None if a[1] is None or b[1] is None else a[1] | b[1]
            if consts is not None and len(consts) > 64:
                consts = None
            return _num(consts, a[2] or b[2])
        if ka == "comp":
            return ("comp", a[1] | b[1])
        if ka == "text":
            return ("text", None if a[1] is None or b[1] is None else a[1] | b[1])
        if ka == "list":
            return _list(merge(a[1], b[1]), a[2] if a[2] == b[2] else None)
        if ka == "tuple":
            if len(a[1]) == len(b[1]):
                return ("tuple", tuple(merge(x, y) for x, y in zip(a[1], b[1])))
            return _ANY
        if ka == "dict":
            return ("dict", merge(a[1], b[1]), merge(a[2], b[2]))
        if ka == "rec":
            fields = dict(a[1])
            for k, t in b[1]:
                fields[k] = merge(fields.get(k, _BOTTOM), t)
            return _rec(fields)
        return a
    kinds = {ka, kb}
    if kinds == {"rec", "dict"}:
        return merge(_as_dict(a), _as_dict(b))
    if kinds == {"seat", "num"}:
        n = a if ka == "num" else b
        if n[1] is not None and all(c < 0 for c in n[1]):  # a seat or a sentinel (-1: nobody)
            return _SEAT
        return _num(None, n[2])
    if kinds == {"bool", "num"}:
        n = a if ka == "num" else b
        return _num(None, n[2])
    return _ANY


def _nullable(t: tuple) -> tuple:
    if t[0] == "num":
        return _num(t[1], True)
    return t


def _const_type(v: Any) -> tuple:
    """The type of a constant (a parameter, an initial value, a table cell)."""
    if v is None:
        return _NONE
    if type(v) is bool:
        return _BOOL
    if type(v) in (int, float):
        return _num(frozenset((v,)))
    if type(v) is str:
        return ("text", frozenset((v,)))
    if isinstance(v, Component):
        return ("comp", frozenset((v.kind,)))
    if isinstance(v, (list, range)):
        item = _BOTTOM
        for x in v:
            item = merge(item, _const_type(x))
        return _list(item, len(v))
    if isinstance(v, tuple):
        return ("tuple", tuple(_const_type(x) for x in v))
    if isinstance(v, dict):
        if all(type(k) is str for k in v):
            return _rec({k: _const_type(x) for k, x in v.items()})
        key, value = _BOTTOM, _BOTTOM
        for k, x in v.items():
            key, value = merge(key, _const_type(k)), merge(value, _const_type(x))
        return ("dict", key, value)
    return _ANY


def _rec(fields: dict) -> tuple:
    """A record whose keys are known texts: ``("rec", ((key, type), ...))``, keys sorted."""
    return ("rec", tuple(sorted(fields.items())))


def _as_dict(t: tuple) -> tuple:
    """A record as a dict of text keys and one value type (or ``t`` itself)."""
    if t[0] != "rec":
        return t
    value = _BOTTOM
    for _k, x in t[1]:
        value = merge(value, x)
    return ("dict", ("text", frozenset(k for k, _x in t[1])) if t[1] else _BOTTOM, value)


def _counter(times: tuple) -> tuple:
    """The type of a counter running from 0 below ``times`` (``repeat``'s ``as``, ``range(n)``):
    its values when ``times`` is a known whole number up to 64, else any number."""
    if times[0] == "num" and times[1] and all(type(x) is int for x in times[1]) and 0 < max(times[1]) <= 64:
        return _num(frozenset(range(max(times[1]))))
    return _NUM


def _list_literal(items: list) -> tuple:
    """The type of a list written out item by item: a list of the items' common type, or, when
    they have none (``[c, 1]``: a component then a number), a tuple of the items' types (a pair
    stored as a list reads the same by index)."""
    item = _BOTTOM
    for t in items:
        item = merge(item, t)
    if item == _ANY and 1 < len(items) <= 8 and all(t != _ANY for t in items):
        return ("tuple", tuple(items))
    return _list(item, len(items))


def _item(t: tuple) -> tuple:
    if t[0] == "list":
        return t[1]
    if t[0] in ("dict", "rec"):  # iterating a record gives its keys
        return _as_dict(t)[1]
    if t[0] == "tuple":
        out = _BOTTOM
        for p in t[1]:
            out = merge(out, p)
        return out
    return _ANY


class _Inferrer:
    """Reads a ruleset's expressions for the types of its variables and properties."""

    def __init__(self, rs: Ruleset, n: int):
        self.rs, self.n = rs, n
        self.vars: dict[str, tuple] = {}
        self.props: dict[str, tuple] = {}
        for name, decl in rs.vars.items():
            self.vars[name] = _const_type(decl.value)
        for comps in rs.initial_props.values():
            for pname, v in comps.items():
                self.props[pname] = merge(self.props.get(pname, _BOTTOM), _const_type(v))
        self.fields: dict[str, tuple] = {}
        for c in rs.components:
            for f, v in c.fields.items():
                if f not in ("id", "kind"):
                    self.fields[f] = merge(self.fields.get(f, _BOTTOM), _const_type(v))
        self.functions = getattr(rs, "function_trees", {})
        self.params = {k: _const_type(v) for k, v in rs.params.items()}
        #: procedure -> its parameters' types, from the calls' ``with`` values
        procs = (getattr(getattr(rs, "doc", None), "data", None) or {}).get("procedures") or {}
        self.proc_params: dict[str, dict[str, tuple]] = {
            name: dict.fromkeys(spec.get("params") or (), _BOTTOM) for name, spec in procs.items() if isinstance(spec, dict)}
        #: event -> its parameters' types, from the ``emit`` effects' ``with`` values
        self.event_params: dict[str, dict[str, tuple]] = {}
        self.changed = False

    # expressions ---------------------------------------------------------------------------
    def expr(self, text: Any, env: dict) -> tuple:
        if isinstance(text, bool) or text is None or isinstance(text, (int, float)):
            return _const_type(text)
        if not isinstance(text, str):
            return _ANY
        try:
            tree = parse(text)
        except Exception:  # a template or a non-expression: not a value we can type
            return _ANY
        return self.node(tree, env, 0)

    def node(self, node: Any, env: dict, depth: int) -> tuple:
        kind = getattr(node, "data", None)
        if kind is None or depth > 12:
            return _ANY
        ch = node.children
        if kind == "number":
            text = str(ch[0])
            return _num(frozenset((float(text) if "." in text else int(text),)))
        if kind == "string":
            import ast

            return ("text", frozenset((ast.literal_eval(str(ch[0])),)))
        if kind == "true" or kind == "false":
            return _BOOL
        if kind == "none":
            return _NONE
        if kind in ("compare", "not_"):
            return _BOOL
        if kind in ("and_", "or_"):
            return merge(self.node(ch[0], env, depth + 1), self.node(ch[-1], env, depth + 1))
        if kind == "ternary":
            return merge(self.node(ch[0], env, depth + 1), self.node(ch[-1], env, depth + 1))
        if kind == "mod":
            right = ch[-1]
            if getattr(right, "data", None) == "name" and str(right.children[0]) == "num_players":
                return _SEAT  # the next seat round the table
            return _NUM
        if kind == "add":
            a, b = self.node(ch[0], env, depth + 1), self.node(ch[-1], env, depth + 1)
            if a[0] == "list" and b[0] == "list":
                return _list(merge(a[1], b[1]), None)
            if a[0] == "text" or b[0] == "text":
                return ("text", None)
            return _NUM
        if kind in _ARITH:
            return _NUM
        if kind == "name":
            return self.name(str(ch[0]), env)
        if kind == "tuple":
            parts = [ch[0], *(ch[1].children if len(ch) > 1 and getattr(ch[1], "data", None) == "exprs" else ch[1:])]
            return ("tuple", tuple(self.node(p, env, depth + 1) for p in parts if p is not None))
        if kind == "list":
            items = [c for c in ch if c is not None]
            if len(items) == 1 and getattr(items[0], "data", None) == "exprs":
                items = items[0].children
            return _list_literal([self.node(it, env, depth + 1) for it in items])
        if kind == "dict":
            pairs = [(self.node(pair.children[0], env, depth + 1), self.node(pair.children[1], env, depth + 1))
                     for pair in (ch[0].children if ch and ch[0] is not None else ())]
            if all(k[0] == "text" and k[1] is not None and len(k[1]) == 1 for k, _v in pairs):
                fields: dict = {}
                for k, v in pairs:
                    key = next(iter(k[1]))
                    fields[key] = merge(fields.get(key, _BOTTOM), v)
                return _rec(fields)
            key, value = _BOTTOM, _BOTTOM
            for k, v in pairs:
                key, value = merge(key, k), merge(value, v)
            return ("dict", key, value)
        if kind == "listcomp":
            return _list(self._comprehension(ch[0], ch[1].children, env, depth), None)
        if kind == "index":
            base = self.node(ch[0], env, depth + 1)
            if base[0] == "tuple":
                idx = self.node(ch[1], env, depth + 1)
                if idx[0] == "num" and idx[1] is not None and len(idx[1]) == 1:
                    i = next(iter(idx[1]))
                    if type(i) is int and -len(base[1]) <= i < len(base[1]):
                        return base[1][i]
            if base[0] == "rec":
                idx = self.node(ch[1], env, depth + 1)
                if idx[0] == "text" and idx[1] is not None and len(idx[1]) == 1:
                    return dict(base[1]).get(next(iter(idx[1])), _NONE)
                base = _as_dict(base)
            if base[0] == "dict":
                return base[2]
            return _item(base)
        if kind == "slice":
            return self.node(ch[0], env, depth + 1)
        if kind == "attr":
            field = str(ch[1])
            base = self.node(ch[0], env, depth + 1)
            if field == "id" and base[0] == "comp":  # the ids of the components of its kinds
                return ("text", frozenset(c.id for c in self.rs.components if c.kind in base[1]))
            if base[0] == "rec":  # a record's field by its key
                return dict(base[1]).get(field, _ANY)
            if base[0] == "dict":
                return base[2]
            if field == "id":
                return ("text", None)
            if field == "kind":
                return ("text", frozenset(self.rs.kinds))
            if field in self.props:
                return self.props[field]
            return self.fields.get(field, _ANY)
        if kind in ("call", "call_gen"):
            return self.call(node, env, depth)
        return _ANY

    def _comprehension(self, elt, clauses, env, depth) -> tuple:
        env = dict(env)
        for clause in clauses:
            if clause.data == "comp_for":
                targets, source = clause.children[0], clause.children[1]
                names = [str(t) for t in (targets.children if hasattr(targets, "children") else [targets])]
                self._bind(names, _item(self.node(source, env, depth + 1)), env)
        return self.node(elt, env, depth + 1)

    @staticmethod
    def _bind(names: list, item: tuple, env: dict) -> None:
        if len(names) == 1:
            env[names[0]] = item
        elif item[0] == "tuple" and len(item[1]) == len(names):
            env.update(zip(names, item[1]))
        else:
            env.update(dict.fromkeys(names, _ANY))

    def name(self, name: str, env: dict) -> tuple:
        if name in env:
            return env[name]
        rs = self.rs
        if name in self.vars:
            t = self.vars[name]
            return _list(t, self.n) if rs.vars[name].per_player else t
        if name == "current":
            return _SEAT
        if name == "players":
            return _list(_SEAT, self.n)
        if name == "num_players":
            return _num(frozenset((self.n,)))
        if name in rs.zones:
            kinds = frozenset(rs.kinds)
            z = rs.zones[name]
            if z.keyed:
                return ("list", _ANY, None)
            seat_level = _list(("comp", kinds), None)
            if z.count is not None:
                seat_level = _list(seat_level, z.count)
            return _list(seat_level, self.n) if z.per_player else seat_level
        if name in self.params:
            return self.params[name]
        return _ANY

    def call(self, node, env, depth) -> tuple:
        ch = node.children
        fname = str(ch[0])
        if node.data == "call_gen":
            inner = _list(self._comprehension(ch[1], ch[2].children, env, depth), None)
            args = [inner]
        else:
            raw = list(ch[1].children) if len(ch) > 1 and getattr(ch[1], "data", None) == "args" else [c for c in ch[1:] if c is not None]
            args = [self.node(a, env, depth + 1) for a in raw if getattr(a, "data", None) != "kwarg"]
        if fname in self.functions:
            params, tree = self.functions[fname]
            inner_env = {p: (args[i] if i < len(args) else _ANY) for i, p in enumerate(params)}
            return self.node(tree, inner_env, depth + 1)
        if fname in _NUMBER_CALLS:
            return _NUM
        if fname in _BOOL_CALLS:
            return _BOOL
        if fname in ("min", "max"):
            if len(args) == 1:
                return _item(args[0])
            out = _BOTTOM
            for a in args:
                out = merge(out, a)
            return out
        if fname in _SAME_CALLS and args:
            t = args[0]
            return _list(t[1], None) if t[0] == "list" else t
        if fname in _ITEM_CALLS and args:
            return _item(args[0])
        if fname == "range":
            if len(args) == 1:
                return _list(_counter(args[0]), None)
            if len(args) == 2 and all(a[0] == "num" and a[1] and all(type(x) is int for x in a[1]) for a in args):
                lo, hi = min(args[0][1]), max(args[1][1])
                if 0 < hi - lo <= 64:
                    return _list(_num(frozenset(range(lo, hi))), None)
            return _list(_NUM, None)
        if fname == "component":  # the component with that id: of the kinds of the ids it may be
            ids = args[0] if args else _ANY
            by_id = getattr(self.rs, "by_id", {})
            if ids[0] == "text" and ids[1] is not None and all(i in by_id for i in ids[1]):
                return ("comp", frozenset(by_id[i].kind for i in ids[1]))
            return ("comp", frozenset(self.rs.kinds))
        if fname == "adjacent4":
            return _list(("tuple", (_NUM, _NUM)), 4)
        if fname == "wrap":
            return ("tuple", (_NUM, _NUM))
        if fname == "components" and len(ch) > 1:
            raw = list(ch[1].children) if getattr(ch[1], "data", None) == "args" else []
            kinds = self.node(raw[0], env, depth + 1) if raw else _ANY
            if kinds[0] == "text" and kinds[1] is not None and kinds[1] <= set(self.rs.kinds):
                return _list(("comp", frozenset(kinds[1])), None)
            return _list(("comp", frozenset(self.rs.kinds)), None)
        if fname in ("nodes", "neighbors", "neighbours", "successors", "predecessors", "shortest_path", "path") and len(ch) > 1:
            raw = list(ch[1].children) if getattr(ch[1], "data", None) == "args" else []
            m = getattr(self.rs, "maps", {}).get(str(raw[0].children[0])) if raw and getattr(raw[0], "data", None) == "name" else None
            if m is not None and all(type(x) is str for x in m.graph.nodes):
                return _list(("text", frozenset(m.graph.nodes)), None)
            return _list(_ANY, None)
        if fname in ("str", "join", "upper", "lower", "title", "format"):
            return ("text", None)
        if fname in ("clockwise", "counterclockwise", "others", "opponents", "seats", "teammates"):
            return _list(_SEAT, None)
        if fname in ("next_player", "previous_player", "owner", "seat_of", "next_seat", "left", "right"):
            return _SEAT
        return _ANY

    # effects -------------------------------------------------------------------------------
    def walk(self, data: Any, env: dict) -> None:
        """Every effect list under ``data`` (the ruleset's YAML), with the names bound around it."""
        if isinstance(data, list):
            env = dict(env)
            for item in data:
                self.effect(item, env)
        elif isinstance(data, dict):
            for v in data.values():
                self.walk(v, env)

    def effect(self, eff: Any, env: dict) -> None:
        if not isinstance(eff, dict):
            self.walk(eff, env)
            return
        if isinstance(eff.get("let"), dict):
            for k, v in eff["let"].items():
                env[k] = self.expr(v, env)
            return
        fe = eff.get("for_each")
        if isinstance(fe, dict) and "as" in fe:
            inner = dict(env)
            inner[str(fe["as"])] = _item(self.expr(fe.get("in"), env))
            self.walk(fe.get("do"), inner)
            return
        rp = eff.get("repeat")
        if isinstance(rp, dict) and "as" in rp:  # `repeat: {times: N, as: i}`: i counts 0, 1, ...
            inner = dict(env)
            inner[str(rp["as"])] = _counter(self.expr(rp.get("times"), env))
            self.walk(rp, inner)
            return
        if isinstance(eff.get("set"), dict):
            for target, value in eff["set"].items():
                self.assign(str(target), self.expr(value, env), env)
        if isinstance(eff.get("add"), dict):
            for target, value in eff["add"].items():
                t = self.expr(value, env)
                self.assign(str(target), _list(t[1], None) if t[0] == "list" else (_NUM if t[0] != "bool" else _NUM), env,
                            adding=t[0] == "list")
        roll = eff.get("roll")
        if isinstance(roll, dict):
            sides = self.expr(roll.get("sides"), env)
            face = _num(frozenset(range(1, max(sides[1]) + 1))) if sides[0] == "num" and sides[1] and all(
                type(s) is int for s in sides[1]) and max(sides[1]) <= 64 else _NUM
            value = _list(face, None)
            if "set" in roll:
                self.assign(str(roll["set"]), value, env)
            if "as" in roll:
                env[str(roll["as"])] = value
        rnd = eff.get("random")
        if isinstance(rnd, dict):
            value = _item(self.expr(rnd.get("from"), env))
            if "set" in rnd:
                self.assign(str(rnd["set"]), value, env)
            if "as" in rnd:
                env[str(rnd["as"])] = value
        mv = eff.get("move")
        if isinstance(mv, dict) and isinstance(mv.get("as"), str):  # the components it moved, as a list
            env[mv["as"]] = _list(("comp", frozenset(self.rs.kinds)), None)
        em = eff.get("emit")
        if isinstance(em, dict) and isinstance(em.get("event"), str) and isinstance(em.get("with"), dict):
            params = self.event_params.setdefault(em["event"], {})
            for pname, expr in em["with"].items():
                t = merge(params.get(pname, _BOTTOM), self.expr(expr, env))
                if t != params.get(pname):
                    params[pname] = t
                    self.changed = True
        call = eff.get("call")
        if isinstance(call, dict) and isinstance(call.get("with"), dict):
            names = [call["procedure"]] if isinstance(call.get("procedure"), str) else list(self.proc_params)
            for pname, expr in call["with"].items():
                t = self.expr(expr, env)
                for proc in names:
                    params = self.proc_params.get(proc)
                    if params is not None and pname in params and merge(params[pname], t) != params[pname]:
                        params[pname] = merge(params[pname], t)
                        self.changed = True
        ch = eff.get("choose")
        if isinstance(ch, dict):
            for o in ch.get("options") or ():
                if not isinstance(o, dict):
                    continue
                inner = dict(env)
                if "for" in o:
                    names = o["for"] if isinstance(o["for"], list) else [o["for"]]
                    self._bind([str(x) for x in names], _item(self.expr(o.get("in"), env)), inner)
                self.walk(o.get("do"), inner)
            self.walk(ch.get("otherwise"), env)
            return
        for k, v in eff.items():
            if k not in ("set", "add", "roll", "random", "let", "move", "emit"):
                self.walk(v, env)

    def assign(self, target: str, value: tuple, env: dict, adding: bool = False) -> None:
        try:
            tree = parse(target)
        except Exception:
            return
        keys: list[tuple] = []  # the types of the indexes, outermost first
        node = tree
        while getattr(node, "data", None) == "index":
            keys.insert(0, self.node(node.children[1], env, 0))
            node = node.children[0]
        indexes = len(keys)
        kind = getattr(node, "data", None)
        if kind == "attr" and indexes == 0:
            prop = str(node.children[1])
            if prop in self.props:
                self._update_prop(prop, value, adding)
            return
        if kind != "name":
            return
        name = str(node.children[0])
        if name not in self.vars or name in env:
            return
        if self.rs.vars[name].per_player:
            if indexes == 0:  # the whole per-seat list at once
                value = _item(value)
            else:
                keys = keys[1:]
        old = self.vars[name]
        new = _set_at(old, keys, value, adding)
        if new != old:
            self.vars[name] = new
            self.changed = True

    def _update_prop(self, prop: str, value: tuple, adding: bool) -> None:
        old = self.props[prop]
        new = _set_at(old, [], value, adding)
        if new != old:
            self.props[prop] = new
            self.changed = True


def _set_at(t: tuple, keys: list, value: tuple, adding: bool) -> tuple:
    """``t`` after a value of type ``value`` is written inside it at indexes of the types
    ``keys``, outermost first (an appending ``add`` of a list makes the list's length unknown;
    a record gets a key, a dict a key of the index's type)."""
    if not keys:
        if adding and t[0] == "list":
            return _list(merge(t[1], value[1] if value[0] == "list" else value), None)
        return merge(t, value)
    key, rest = keys[0], keys[1:]
    if t[0] == "list":
        return _list(_set_at(t[1], rest, value, adding), t[2])
    if t[0] == "rec":
        if key[0] == "text" and key[1] is not None and len(key[1]) == 1:
            fields = dict(t[1])
            k = next(iter(key[1]))
            fields[k] = _set_at(fields.get(k, _BOTTOM), rest, value, adding)
            return _rec(fields)
        t = _as_dict(t)
    if t[0] == "dict":
        return ("dict", merge(t[1], key), _set_at(t[2], rest, value, adding))
    if t[0] in ("bottom", "none"):
        return _list(_set_at(_BOTTOM, rest, value, adding), None)
    return _ANY


def infer_types(rs: Ruleset, num_players: int) -> tuple[dict[str, tuple], dict[str, tuple]]:
    """The static types of ``rs``'s variables (per-player ones: one seat's value) and mutable
    properties, for ``num_players`` seats: ``(vars, props)``, name -> type (see the module's
    notes; :func:`describe_type` writes one as text).  Read from the declarations and the
    expressions that write them, to a fixed point; never played."""
    inf, _settled = _infer(rs, num_players, False)
    return inf.vars, inf.props


def settled_types(rs: Ruleset, num_players: int) -> dict[str, tuple] | None:
    """The static types of ``rs``'s variables as :func:`infer_types` derives them, read on until
    one more reading of every write changes none of them (every value a write can give then
    fits its variable's type), or None when they do not settle in a dozen readings.  What the
    action encoding trusts (:mod:`interpreter.interop.domains`); a type may leave out ``none``
    and, for a seat, a negative sentinel among the constants."""
    inf, settled = _infer(rs, num_players, True)
    return inf.vars if settled else None


def _infer(rs: Ruleset, num_players: int, settle: bool) -> tuple[_Inferrer, bool]:
    """The inferrer after its readings, and whether a last reading changed nothing (read on
    up to a dozen times with ``settle``)."""
    inf = _Inferrer(rs, num_players)
    data = getattr(getattr(rs, "doc", None), "data", None) or {}

    def one_pass(unknown: tuple) -> None:
        # a parameter no call or emit has given a value yet is `unknown`: nothing (bottom) while
        # the types grow, so a procedure read before its callers adds no `any`; *any* in the last
        # pass, for a parameter nothing ever gives
        inf.changed = False
        for key in ("setup", "flow"):
            if key in data:
                inf.walk(data[key], {})
        for trig in data.get("triggers") or ():
            if isinstance(trig, dict):
                given = inf.event_params.get(trig.get("on"), {}) if isinstance(trig.get("on"), str) else {}
                env = {str(p): (unknown if given.get(p, _BOTTOM) == _BOTTOM else given[p]) for p in trig.get("params") or ()}
                inf.walk(trig, env)
            else:
                inf.walk(trig, {})
        for name, spec in (data.get("procedures") or {}).items():
            env = {p: (unknown if t == _BOTTOM else t) for p, t in inf.proc_params.get(name, {}).items()}
            inf.walk(spec.get("do") if isinstance(spec, dict) else spec, env)
    for _ in range(12):
        one_pass(_BOTTOM)
        if not inf.changed:
            break
    one_pass(_ANY)
    for _ in range(12 if settle else 0):
        if not inf.changed:
            break
        one_pass(_ANY)
    return inf, not inf.changed


def describe_type(t: tuple) -> str:
    """A type as text: ``seat``, ``list[9] of seat``, ``component (card)``..."""
    k = t[0]
    if k == "num":
        return "number" + (" or none" if t[2] else "")
    if k == "bool":
        return "truth value"
    if k == "seat":
        return "seat"
    if k == "comp":
        return f"component ({', '.join(sorted(t[1]))})"
    if k == "text":
        return "text" if t[1] is None else f"text ({len(t[1])} values)"
    if k == "list":
        return ("list" if t[2] is None else f"list[{t[2]}]") + " of " + describe_type(t[1])
    if k == "tuple":
        return "(" + ", ".join(describe_type(p) for p in t[1]) + ")"
    if k == "rec":
        return "record {" + ", ".join(f"{key}: {describe_type(x)}" for key, x in t[1]) + "}"
    if k == "dict":
        return f"dict of {describe_type(t[1])} to {describe_type(t[2])}"
    return "any"


# -- encoders --------------------------------------------------------------------------------
class _Enc:
    """How one typed value is written: ``size`` slots, ``encoding`` (text for the layout),
    ``write(v, t, at)``; ``batch(values, block)`` (or None) writes one value per row of
    ``block`` (a zeroed ``(rows, size)`` view) with numpy, the same slots as ``write``;
    ``low``/``high`` (float32, ``size``): the least and greatest value each slot can hold for a
    value of the type (always 0 included: a slot nothing was written to is 0)."""

    __slots__ = ("size", "encoding", "write", "batch", "low", "high")


_INF = float("inf")


def _code_writer(vocab: dict):
    def write(v, t, at):
        tv = type(v)
        if tv is int or tv is float:
            t[at] = v
        elif v is True:
            t[at] = 1.0
        elif v is None or v is False:
            pass
        elif tv is str:
            t[at] = vocab.get(v, -1)
        elif tv is Component:
            t[at] = vocab.get(v.id, -1)
        elif tv is list:
            t[at] = len(v)
        else:
            t[at] = -1.0
    return write


def _number_bounds(t: tuple) -> tuple[float, float]:
    """The range of a number of type ``t`` (its constants when the reading knows them all; 0
    always in: none and an unwritten slot are 0)."""
    consts = t[1] if t[0] == "num" else None
    if not consts:
        return -_INF, _INF
    return float(min(0, *consts)), float(max(0, *consts))


class _Encoders:
    def __init__(self, rs: Ruleset, n: int, vocab: dict, capacity: int):
        self.rs, self.n, self.vocab, self.capacity = rs, n, vocab, capacity
        self.code = _code_writer(vocab)

    def _make(self, size: int, encoding: str, write, low=None, high=None) -> _Enc:
        e = _Enc()
        e.size, e.encoding, e.write, e.batch = size, encoding, write, None
        e.low = np.full(size, -np.inf, np.float32) if low is None else np.asarray(low, np.float32).reshape(size)
        e.high = np.full(size, np.inf, np.float32) if high is None else np.asarray(high, np.float32).reshape(size)
        return e

    def _hot(self, size: int, encoding: str, write) -> _Enc:
        """A one-hot or multi-hot encoder: every slot in [0, 1]."""
        return self._make(size, encoding, write, np.zeros(size), np.ones(size))

    def code_enc(self) -> _Enc:
        return self._make(1, "code", self.code)

    def keys(self, key: tuple) -> tuple[list, Any, str] | None:
        """A dict key type's finite domain: ``(keys in order, key -> hashable lookup, what)``,
        or None when the reading knows no finite domain."""
        k = key[0]
        if k == "seat":
            return list(range(self.n)), (lambda v: v if type(v) is int else None), f"seat ({self.n})"
        if k == "text" and key[1] is not None and 0 < len(key[1]) <= MAX_ONE_HOT:
            values = sorted(key[1], key=str)
            return values, (lambda v: v if type(v) is str else None), "text (" + ", ".join(map(str, values[:4])) + (
                ", ..." if len(values) > 4 else "") + ")"
        if k == "comp":
            comps = [c for c in self.rs.components if c.kind in key[1]]
            if comps and len(comps) <= MAX_ONE_HOT:
                return [c.index for c in comps], (lambda v: v.index if type(v) is Component else None), \
                    f"component ({', '.join(sorted(key[1]))}: {len(comps)})"
        if k == "num" and key[1] and all(type(x) is int for x in key[1]) and len(key[1]) <= MAX_ONE_HOT:
            values = sorted(key[1])
            return values, (lambda v: v if type(v) is int else None), "number (" + ", ".join(map(str, values[:4])) + (
                ", ..." if len(values) > 4 else "") + ")"
        return None

    def _keyed(self, keys: list, lookup, what: str, values: list[_Enc]) -> _Enc:
        """One block per key (``keys``, in order): 1 when the key is there, then its value's
        slots (``values[i]``); a key outside ``keys`` is not written."""
        offsets, at0 = {}, 0
        for key, enc in zip(keys, values):
            offsets[key] = (at0, enc.write)
            at0 += 1 + enc.size
        code = self.code

        def write(v, out, at):
            if isinstance(v, dict):
                for key, x in v.items():
                    hit = offsets.get(lookup(key))
                    if hit is not None:
                        out[at + hit[0]] = 1.0
                        hit[1](x, out, at + hit[0] + 1)
            elif v is not None:
                code(v, out, at)
        low = np.concatenate([np.concatenate(([0.0], e.low)) for e in values]) if values else np.zeros(0)
        high = np.concatenate([np.concatenate(([1.0], e.high)) for e in values]) if values else np.zeros(0)
        inner = values[0].encoding if values and all(e.encoding == values[0].encoding for e in values) else "by its type"
        return self._make(at0, f"per key of {what}: [present, {inner}]", write, low, high)

    def of(self, t: tuple, budget: int = MAX_PART) -> _Enc:
        k = t[0]
        code = self.code
        if k == "seat":
            n = self.n

            def write(v, out, at):
                if type(v) is int and 0 <= v < n:
                    out[at + v] = 1.0
            e = self._hot(n, "one-hot seat", write)
            e.batch = _seat_batch(n)
            return e
        if k == "bool":
            def write(v, out, at):
                if v is True:
                    out[at + 1] = 1.0
                elif v is False:
                    out[at] = 1.0
                elif v is not None:
                    code(v, out, at)
            return self._hot(2, "one-hot [false, true]", write)
        if k == "num":
            lo, hi = _number_bounds(t)
            if t[2]:
                def write(v, out, at):
                    if v is not None:
                        out[at] = 1.0
                        code(v, out, at + 1)
                return self._make(2, "[set, number]", write, [0.0, lo], [1.0, hi])
            return self._make(1, "number", code, [lo], [hi])
        if k == "comp":
            comps = [c for c in self.rs.components if c.kind in t[1]]
            if not comps or len(comps) > budget:
                return self.code_enc()
            where = {c.index: i for i, c in enumerate(comps)}

            def write(v, out, at):
                if type(v) is Component:
                    i = where.get(v.index)
                    if i is not None:
                        out[at + i] = 1.0
                elif v is not None:
                    code(v, out, at)
            return self._hot(len(comps), f"one-hot component ({', '.join(sorted(t[1]))}: {len(comps)})", write)
        if k == "text" and t[1] is not None and 0 < len(t[1]) <= min(MAX_ONE_HOT, budget):
            values = sorted(t[1], key=str)
            where = {v: i for i, v in enumerate(values)}

            def write(v, out, at):
                i = where.get(v) if type(v) is str else None
                if i is not None:
                    out[at + i] = 1.0
            return self._hot(len(values), f"one-hot text ({', '.join(map(str, values[:4]))}{', ...' if len(values) > 4 else ''})",
                             write)
        if k == "rec":
            fields = [key for key, _x in t[1]]
            if fields:
                each = max(1, budget // len(fields) - 1)
                values = [self.of(x, each) for _key, x in t[1]]
                if sum(1 + e.size for e in values) <= budget:
                    return self._keyed(fields, lambda v: v if type(v) is str else None,
                                       "text (" + ", ".join(fields[:4]) + (", ..." if len(fields) > 4 else "") + ")", values)
            return self.code_enc()
        if k == "dict":
            domain = self.keys(t[1])
            if domain is not None:
                keys, lookup, what = domain
                item = self.of(t[2], max(1, budget // len(keys) - 1))
                if len(keys) * (1 + item.size) <= budget:
                    return self._keyed(keys, lookup, what, [item] * len(keys))
            return self.code_enc()
        if k == "tuple":
            parts = [self.of(p, budget) for p in t[1]]
            offsets = []
            at0 = 0
            for p in parts:
                offsets.append(at0)
                at0 += p.size
            pairs = list(zip(offsets, [p.write for p in parts]))

            def write(v, out, at):
                if type(v) is tuple or type(v) is list:
                    for (off, w), x in zip(pairs, v):
                        w(x, out, at + off)
                elif v is not None:
                    code(v, out, at)
            low = np.concatenate([p.low for p in parts]) if parts else np.zeros(0)
            high = np.concatenate([p.high for p in parts]) if parts else np.zeros(0)
            return self._make(at0, "tuple (" + ", ".join(p.encoding for p in parts) + ")", write, low, high)
        if k == "list":
            length = t[2]
            if length is None:
                placed = self._placed(t[1], budget)
                if placed is not None:
                    return placed
            cap = length if length is not None else self._capacity(t[1])
            if length is None and t[1][0] == "text" and t[1][1] and cap * len(t[1][1]) > budget:
                placed = self._placed(t[1], budget, texts=True)
                if placed is not None:  # enumerated texts too many for one-hot items: as a zone
                    return placed
            item = self.of(t[1], max(1, budget // max(cap, 1)))
            if cap * item.size > budget:
                item = self.code_enc()
            size, w = item.size, item.write
            low, high = np.tile(item.low, cap), np.tile(item.high, cap)
            if length is not None and t[1][0] == "seat" and item.size == self.n:
                n = self.n

                def write(v, out, at):  # list[L] of seat, written out: the boards of grid games
                    if type(v) is list or type(v) is tuple:
                        for x in v[:length]:
                            if type(x) is int and 0 <= x < n:
                                out[at + x] = 1.0
                            elif x is not None and type(x) is not int:
                                code(x, out, at)
                            at += n
                    elif v is not None:
                        code(v, out, at)
                e = self._make(cap * size, f"{cap} × {item.encoding}", write, low, high)
                e.batch = _seat_list_batch(n, length, write)
                return e
            if length is not None and t[1][0] == "num" and not t[1][2]:
                def write(v, out, at):  # list[L] of number, as one slice
                    if type(v) is list and len(v) == length and all(type(x) is int or type(x) is float for x in v):
                        out[at:at + length] = v
                    elif type(v) is list or type(v) is tuple:
                        for i, x in enumerate(v[:length]):
                            code(x, out, at + i)
                    elif v is not None:
                        code(v, out, at)
                return self._make(cap * size, f"{cap} × {item.encoding}", write, low, high)
            if length is not None:
                def write(v, out, at):
                    if type(v) is list or type(v) is tuple:
                        for i, x in enumerate(v[:length]):
                            w(x, out, at + i * size)
                    elif v is not None:
                        code(v, out, at)
                return self._make(cap * size, f"{cap} × {item.encoding}", write, low, high)

            def write(v, out, at):
                if type(v) is list or type(v) is tuple:
                    out[at] = len(v)
                    base = at + 1
                    for i, x in enumerate(v[:cap]):
                        w(x, out, base + i * size)
                elif v is not None:
                    code(v, out, at)
            return self._make(1 + cap * size, f"length, then up to {cap} × {item.encoding}", write,
                              np.concatenate(([0.0], low)), np.concatenate(([np.inf], high)))
        return self.code_enc()

    def _placed(self, item: tuple, budget: int, texts: bool = False) -> _Enc | None:
        """A list whose length the rules change and whose items are components of known kinds
        (or pairs of such a component and a value of a finite domain, :meth:`keys`; with
        ``texts``, enumerated texts), laid out as a zone is: its true length, then one slot per
        component or text (per component and value, the component major) holding the item's
        place in the list + 1, 0 when absent; or None when the items are of another type or the
        part would pass ``budget`` slots.

        A place counts the list's distinct items in the order they first appear, so a list of
        distinct items (the lists the rules build) is written exactly, its place its position;
        of a repeated item the first appearance is kept (the length still counts every item),
        and a place never passes the number of slots.  An item of another type (a component of
        another kind, a text outside the enumeration, a pair's value outside its domain) is
        counted in the length only."""
        pair = None
        if item[0] == "tuple" and len(item[1]) == 2 and item[1][0][0] == "comp":
            pair = self.keys(item[1][1])
            if pair is None:
                return None
            item = item[1][0]
        if item[0] == "comp":
            comps = [c for c in self.rs.components if c.kind in item[1]]
            firsts, lookup = [c.index for c in comps], _component_index
            what = f"component ({', '.join(sorted(item[1]))}: {len(comps)})"
        elif item[0] == "text" and texts and item[1] is not None:
            firsts = sorted(item[1], key=str)
            lookup = _text
            what = f"text ({', '.join(map(str, firsts[:4]))}{', ...' if len(firsts) > 4 else ''}: {len(firsts)})"
        else:
            return None
        keys = pair[0] if pair is not None else [None]
        slots = len(firsts) * len(keys)
        if not firsts or 1 + slots > budget:
            return None
        where = {x: i * len(keys) for i, x in enumerate(firsts)}
        code = self.code
        if pair is None:
            def write(v, out, at):
                if type(v) is list or type(v) is tuple:
                    out[at] = len(v)
                    base, k, seen = at + 1, 0, set()
                    for x in v:
                        i = where.get(lookup(x))
                        if i is not None and i not in seen:
                            seen.add(i)
                            k += 1
                            out[base + i] = k
                elif v is not None:
                    code(v, out, at)
            encoding = f"length, then per {what}: its place in the list + 1 (0: absent)"
        else:
            keys_, second, what2 = pair
            col = {key: j for j, key in enumerate(keys_)}

            def write(v, out, at):
                if type(v) is list or type(v) is tuple:
                    out[at] = len(v)
                    base, k, seen = at + 1, 0, set()
                    for x in v:
                        if (type(x) is list or type(x) is tuple) and len(x) == 2:
                            i, j = where.get(lookup(x[0])), col.get(second(x[1]))
                            if i is not None and j is not None and i + j not in seen:
                                seen.add(i + j)
                                k += 1
                                out[base + i + j] = k
                elif v is not None:
                    code(v, out, at)
            encoding = f"length, then per {what} × {what2}: the pair's place in the list + 1 (0: absent)"
        return self._make(1 + slots, encoding, write, np.zeros(1 + slots),
                          np.concatenate(([np.inf], np.full(slots, slots))))

    def _capacity(self, item: tuple) -> int:
        k = item[0]
        if k == "comp":
            return max(1, sum(1 for c in self.rs.components if c.kind in item[1]))
        if k == "seat":
            return self.n
        if k == "text" and item[1] is not None:
            return max(1, len(item[1]))
        return self.capacity


def _component_index(v: Any) -> int | None:
    return v.index if type(v) is Component else None


def _text(v: Any) -> str | None:
    return v if type(v) is str else None


def _seat_batch(n: int):
    seats = np.arange(n)

    def batch(values, block):
        arr = np.fromiter((v if type(v) is int else -1 for v in values), np.int64, len(values))
        block[:] = arr[:, None] == seats
    return batch


def _seat_list_batch(n: int, length: int, write):
    seats = np.arange(n)

    def batch(values, block):
        try:
            arr = np.array(values, np.int64)
        except (TypeError, ValueError):
            arr = None
        if arr is None or arr.shape != (len(values), length):
            for row, v in zip(block, values):  # a value of another shape: one by one
                write(v, row, 0)
            return
        block[:] = (arr[:, :, None] == seats).reshape(len(values), length * n)
    return batch


def vocabulary(rs: Ruleset) -> dict[str, int]:
    """Every text a game of ``rs`` can be expected to hold, statically: component ids, map
    nodes, phase names, parameter texts, table texts and the quoted literals of the rules; text
    -> 1 + its index in sorted order (the *code* of a text)."""
    texts: set[str] = {c.id for c in rs.components}
    for c in rs.components:
        texts.update(v for v in c.fields.values() if type(v) is str)
    for m in getattr(rs, "maps", {}).values():
        texts.update(x for x in m.graph.nodes if type(x) is str)

    def scan(v):
        if type(v) is str:
            texts.add(v)
        elif isinstance(v, (list, tuple)):
            for x in v:
                scan(x)
        elif isinstance(v, dict):
            for k, x in v.items():
                if type(k) is str:
                    texts.add(k)
                scan(x)
    scan(rs.params)

    def literals(v):
        if type(v) is str:
            for m in _QUOTED.finditer(v):
                texts.add(m.group(1) if m.group(1) is not None else m.group(2))
        elif isinstance(v, list):
            for x in v:
                literals(x)
        elif isinstance(v, dict):
            for x in v.values():
                literals(x)
    data = getattr(getattr(rs, "doc", None), "data", None) or {}
    literals({k: v for k, v in data.items() if k not in ("scenarios", "description", "display")})
    texts.update(phase_names(rs))
    return {t: i + 1 for i, t in enumerate(sorted(texts))}


def phase_names(rs: Ruleset) -> list[str]:
    """The phase names the rules declare (``phase: {name: ...}`` effects), sorted."""
    names: set[str] = set()

    def scan(v):
        if isinstance(v, dict):
            ph = v.get("phase")
            if isinstance(ph, dict) and isinstance(ph.get("name"), str):
                names.add(ph["name"])
            for x in v.values():
                scan(x)
        elif isinstance(v, list):
            for x in v:
                scan(x)
    data = getattr(getattr(rs, "doc", None), "data", None) or {}
    scan({k: v for k, v in data.items() if k != "scenarios"})
    return sorted(names)


def _longest_constant_list(rs: Ruleset) -> int:
    best = 0

    def scan(v):
        nonlocal best
        if isinstance(v, (list, tuple)):
            best = max(best, len(v))
            for x in v:
                scan(x)
        elif isinstance(v, dict):
            for x in v.values():
                scan(x)
    scan(rs.params)
    for decl in rs.vars.values():
        scan(decl.value)
    return best


# -- the layout ------------------------------------------------------------------------------
class TensorLayout:
    """The observation tensor of ``rs`` for ``num_players`` seats, laid out from the
    declarations (see the module's notes).

    Attributes: ``size`` (int), ``parts`` (``(name, start, size, what, encoding)`` tuples in
    order), ``var_types``/``prop_types`` (name -> type), ``vocab`` (text -> code),
    ``capacity`` (the static length bound of a list of unknown items).
    """

    def __init__(self, rs: Ruleset, num_players: int):
        self.ruleset, self.num_players = rs, n = rs, num_players
        self.vocab = vocab = vocabulary(rs)
        self.capacity = max(len(rs.components), _longest_constant_list(rs), n, 1)
        self.var_types, self.prop_types = infer_types(rs, n)
        encoders = _Encoders(rs, n, vocab, self.capacity)
        self.phases = phase_names(rs)
        ncomp = len(rs.components)
        parts: list[tuple] = []
        at = 0

        def part(name, size, what, encoding) -> int:
            nonlocal at
            parts.append((name, at, size, what, encoding))
            at += size
            return at - size

        self.o_seat = part("seat", n, "the observing seat", "one-hot seat")
        self.o_current = part("current", n, "the seat whose turn it is", "one-hot seat")
        self.o_deciding = part("deciding", n, "the seats that decide now", "multi-hot seat")
        self.o_chance = part("chance", 1, "a chance point is pending", "0/1")
        self.o_finished = part("finished", 1, "the game has ended", "0/1")
        self.o_turns = part("turns", n, "turns begun by each seat", "number per seat")
        self.phase_index = {p: i for i, p in enumerate(self.phases)}
        phases = "the phase (" + ", ".join(self.phases) + ")" if self.phases else "the phase (none declared)"
        self.o_phase = part("phase", len(self.phases), phases, "one-hot phase")
        self.o_scores = part("scores", n, "each seat's score at the end (0 before)", "number per seat")
        self.o_winners = part("winners", n, "the winners at the end", "multi-hot seat")
        self.o_ranks = part("ranks", n, "each seat's place in the ranking at the end (1 the best; 0 before)", "number per seat")
        backs = sorted({c.back for c in rs.components if c.back is not None})
        self.back_index = {b: i for i, b in enumerate(backs)}
        #: one entry per single zone: (decl, index path, owner seat or None, start, backs start or -1)
        self.zone_parts: list[tuple] = []
        for decl in rs.zone_list:
            if decl.keyed and decl.visibility == "hidden":
                start = part(f"zones.{decl.name}", 1, f"keyed zone {decl.name} (hidden)", "the count") - 3 * ncomp
                self.zone_parts.append((decl, (), None, start, -1))
                continue
            if decl.keyed:
                start = part(f"zones.{decl.name}", 3 * ncomp + 1, f"keyed zone {decl.name} ({decl.visibility})",
                             "per component: height + 1, key x, key y (or key code); then the count")
                self.zone_parts.append((decl, (), None, start, -1))
                continue
            for path in _zone_paths(decl.empty(n), decl.depth):
                label = decl.name + "".join(f"[{i}]" for i in path)
                owner = path[0] if decl.per_player else None
                if decl.visibility == "hidden":  # nobody sees into it: its count only
                    start = part(f"zones.{label}", 1, f"zone {label} (hidden)", "the count") - ncomp
                    self.zone_parts.append((decl, path, owner, start, -1))
                    continue
                start = part(f"zones.{label}", ncomp + 1, f"zone {label} ({decl.visibility})",
                             "per component: 1 where it lies there (its order unknown); then the count"
                             if decl.visibility in ("owner_contents", "public_contents") else
                             "per component: position from the bottom + 1; then the count")
                bstart = -1
                if decl.visibility == "owner" and decl.per_player and backs:  # as ZoneDecl.observe shows backs
                    bstart = part(f"zones.{label}.backs", len(backs), f"the backs others see of zone {label}",
                                  "count per back (" + ", ".join(backs[:3]) + (", ..." if len(backs) > 3 else "") + ")")
                self.zone_parts.append((decl, path, owner, start, bstart))
        #: (name, per_player, visibility, start, encoder)
        self.var_parts: list[tuple] = []
        for name, decl in rs.vars.items():
            if decl.visibility == "hidden":
                continue
            enc = encoders.of(self.var_types[name])
            what = describe_type(self.var_types[name])
            if decl.per_player:
                start = at
                for p in range(n):
                    part(f"vars.{name}[{p}]", enc.size, f"{what}" + (" (its owner only)" if decl.visibility == "owner" else ""),
                         enc.encoding)
            else:
                start = part(f"vars.{name}", enc.size, what, enc.encoding)
            self.var_parts.append((name, decl.per_player, decl.visibility, start, enc))
        #: (component index, [(prop, start, encoder)])
        self.prop_parts: list[tuple] = []
        for c in rs.components:
            if not c.mutable or c.index not in rs.initial_props:
                continue
            entries = []
            for prop in sorted(c.mutable):
                enc = encoders.of(self.prop_types.get(prop, _ANY))
                entries.append((prop, part(f"props.{c.id}.{prop}", enc.size, describe_type(self.prop_types.get(prop, _ANY)),
                                           enc.encoding), enc))
            self.prop_parts.append((c.index, entries))
        self.parts = tuple(parts)
        self.size = at
        self._per_player = {name for name, d in rs.vars.items() if d.per_player}

    def fill(self, st: State, player: int, out: np.ndarray, zero: bool = True, var_parts: list | None = None) -> np.ndarray:
        """Write seat ``player`` (a seat number) 's observation of ``st`` into ``out`` (float32,
        ``size``; zeroed first unless ``zero`` is false, for an ``out`` known to be zeros) from
        what the seat may see only, without building any text; returns ``out``.  ``var_parts``:
        the variables to write (default: all; :meth:`fill_many` writes some itself)."""
        if zero:
            out.fill(0.0)
        self._header(st, player, out)
        self._body(st, player, out, self.var_parts if var_parts is None else var_parts)
        return out

    def _header(self, st: State, player: int, out: np.ndarray) -> None:
        """The parts before the zones (seat, current, turns, then :meth:`_tail`'s) into the
        zeroed ``out``."""
        n = self.num_players
        out[self.o_seat + player] = 1.0
        cur = st.current
        if type(cur) is int and 0 <= cur < n:
            out[self.o_current + cur] = 1.0
        base = self.o_turns
        for i, k in enumerate(st.turns):
            out[base + i] = k
        self._tail(st, out)

    def _tail(self, st: State, out: np.ndarray) -> None:
        """The parts of the header :meth:`fill_many` writes row by row: deciding, chance, the
        phase, finished and the outcome."""
        n = self.num_players
        pending = st.pending
        if pending is not None:
            for q in pending[3]:
                if q < 0:
                    out[self.o_chance] = 1.0
                else:
                    out[self.o_deciding + q] = 1.0
        ph = self.phase_index.get(st.phase)
        if ph is not None:
            out[self.o_phase + ph] = 1.0
        if st.finished:
            out[self.o_finished] = 1.0
            outcome = st.outcome()
            for i, s in enumerate(outcome.scores):
                if type(s) in (int, float):
                    out[self.o_scores + i] = s
            for w in outcome.winners:
                if type(w) is int and 0 <= w < n:
                    out[self.o_winners + w] = 1.0
            for place, q in enumerate(outcome.ranking):
                if type(q) is int and 0 <= q < n:
                    out[self.o_ranks + q] = place + 1

    def _body(self, st: State, player: int, out: np.ndarray, var_parts: list) -> None:
        """The zones, the variables ``var_parts`` and the properties into the zeroed ``out``."""
        zones = st.zones
        for decl, path, owner, start, bstart in self.zone_parts:
            z = zones[decl.name]
            vis = decl.visibility
            if decl.keyed:
                count = 0
                for stack in z.values():
                    count += len(stack)
                out[start + 3 * len(self.ruleset.components)] = count
                if vis != "public":
                    continue
                code = self.vocab.get
                for key, stack in z.items():
                    if type(key) is tuple:
                        kx = key[0] if len(key) > 0 and type(key[0]) in (int, float) else 0
                        ky = key[1] if len(key) > 1 and type(key[1]) in (int, float) else 0
                    elif type(key) in (int, float):
                        kx, ky = key, 0
                    else:
                        kx, ky = code(key.id if type(key) is Component else key, -1), 0
                    for h, c in enumerate(stack):
                        i = start + 3 * c.index
                        out[i] = h + 1
                        out[i + 1] = kx
                        out[i + 2] = ky
                continue
            for i in path:
                z = z[i]
            out[start + len(self.ruleset.components)] = len(z)
            if vis == "public" or (vis == "owner" and owner == player):
                for pos, c in enumerate(z):
                    out[start + c.index] = pos + 1
            elif vis == "public_contents" or (vis == "owner_contents" and owner == player):
                for c in z:  # which components lie there, never where (ZoneDecl.observe's "ids")
                    out[start + c.index] = 1.0
            elif bstart >= 0 and z and z[0].back is not None:  # the backs others see, as ZoneDecl.observe shows them
                bi = self.back_index
                for c in z:
                    if c.back is not None:
                        out[bstart + bi[c.back]] += 1.0
        values = st.vars
        for name, per_player, vis, start, enc in var_parts:
            v = values[name]
            if per_player:
                size, write = enc.size, enc.write
                if vis == "owner":
                    write(v[player], out, start + player * size)
                else:
                    for p, x in enumerate(v):
                        write(x, out, start + p * size)
            else:
                enc.write(v, out, start)
        if self.prop_parts:
            seen = self.ruleset.visible_indexes(st, player)
            props = st.props
            for index, entries in self.prop_parts:
                if index in seen:
                    ps = props[index]
                    for prop, start, enc in entries:
                        enc.write(ps.get(prop), out, start)

    def fill_many(self, states: list, players: list[int], out: np.ndarray) -> np.ndarray:
        """Write each ``players[i]``'s observation of ``states[i]`` into row ``i`` of ``out``
        (float32, ``(len(states), size)``, all zeros): the same rows as :meth:`fill`, with the
        seat, current seat, turn counters and the variables whose type allows it written for
        every row at once with numpy (the vector env's observations); returns ``out``."""
        k, n = len(states), self.num_players
        rows = np.arange(k)
        out[rows, self.o_seat + np.asarray(players)] = 1.0
        cur = np.fromiter((c if type(c) is int and 0 <= c < n else -1 for c in (st.current for st in states)), np.int64, k)
        ok = cur >= 0
        out[rows[ok], self.o_current + cur[ok]] = 1.0
        turns = [st.turns for st in states]
        try:
            out[:, self.o_turns:self.o_turns + n] = turns
        except ValueError:  # turn counters of another length (never in a game of n seats): row by row
            for row, t in zip(out, turns):
                row[self.o_turns:self.o_turns + len(t)] = t
        batched = [(name, start, enc) for name, per_player, _vis, start, enc in self.var_parts
                   if enc.batch is not None and not per_player]
        rest = [v for v in self.var_parts if v[4].batch is None or v[1]]
        for st, p, row in zip(states, players, out):
            self._tail(st, row)
            self._body(st, p, row, rest)
        for name, start, enc in batched:
            enc.batch([st.vars[name] for st in states], out[:, start:start + enc.size])
        return out

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The least and greatest value of every slot, from the declarations: ``(low, high)``,
        two float32 vectors of ``size`` (copies; ``-inf``/``inf`` where nothing bounds a slot).
        One-hot and multi-hot slots and flags are in [0, 1]; a zone's count and a component's
        position in it (plus 1) in [0, components]; a component's (or pair's) place in a list
        laid out as a zone in [0, the slots after the length]; a count of backs up to the
        components showing that back; turn counters and list lengths at least 0; ranks in [0, seats]; the
        scores within the declared ``outcome: {range}`` (or 0 when none is declared for this
        seat count, unbounded); a number within its constants when every value written
        to it is a constant the rules spell out (:func:`infer_types`), else unbounded; a code
        unbounded.  The bounds are the same for every seat (they depend on the declarations
        only), and hold for every value of the derived type (a value of another type, which no
        shipped ruleset writes, may fall outside them)."""
        cached = getattr(self, "_bounds", None)
        if cached is None:
            cached = self._bounds = self._compute_bounds()
        return cached[0].copy(), cached[1].copy()

    def _compute_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        rs, n = self.ruleset, self.num_players
        ncomp = len(rs.components)
        low = np.zeros(self.size, np.float32)
        high = np.ones(self.size, np.float32)  # the flags and the one-hot header parts
        high[self.o_turns:self.o_turns + n] = np.inf
        declared = (getattr(rs, "facts", None) or {}).get(n)
        lo, hi = declared.range if declared is not None and declared.range is not None else (-np.inf, np.inf)
        low[self.o_scores:self.o_scores + n] = min(0.0, lo)
        high[self.o_scores:self.o_scores + n] = max(0.0, hi)
        high[self.o_ranks:self.o_ranks + n] = n
        back_counts: dict = {}
        for c in rs.components:
            if c.back is not None:
                back_counts[c.back] = back_counts.get(c.back, 0) + 1
        for decl, _path, _owner, start, bstart in self.zone_parts:
            count_at = start + (3 if decl.keyed else 1) * ncomp
            high[count_at] = ncomp
            if decl.visibility == "hidden":
                continue
            if decl.keyed:
                for i in range(ncomp):
                    high[start + 3 * i] = ncomp
                    low[start + 3 * i + 1:start + 3 * i + 3] = -np.inf  # a key's x and y, or its code (-1: unknown)
                    high[start + 3 * i + 1:start + 3 * i + 3] = np.inf
                continue
            if decl.visibility not in ("owner_contents", "public_contents"):
                high[start:start + ncomp] = ncomp
            if bstart >= 0:
                for back, i in self.back_index.items():
                    high[bstart + i] = back_counts[back]
        for _name, per_player, _vis, start, enc in self.var_parts:
            for p in range(n if per_player else 1):
                at = start + p * enc.size
                low[at:at + enc.size], high[at:at + enc.size] = enc.low, enc.high
        for _index, entries in self.prop_parts:
            for _prop, start, enc in entries:
                low[start:start + enc.size], high[start:start + enc.size] = enc.low, enc.high
        return low, high

    def describe(self) -> list[dict]:
        """The layout as JSON data, one entry per part: ``offset``, ``size``, ``name``, ``what``,
        ``encoding``, ``low`` and ``high`` (the least low and greatest high of its slots,
        :meth:`bounds`; None for an unbounded side)."""
        low, high = self.bounds()
        out = []
        for name, s, k, what, enc in self.parts:
            lo = float(low[s:s + k].min()) if k else 0.0
            hi = float(high[s:s + k].max()) if k else 0.0
            out.append({"offset": s, "size": k, "name": name, "what": what, "encoding": enc,
                        "low": None if lo == -np.inf else _plain(lo), "high": None if hi == np.inf else _plain(hi)})
        return out


def _plain(x: float) -> float | int:
    """A bound as JSON shows it: a whole number without its ``.0``."""
    return int(x) if x == int(x) else x


def _zone_paths(z: Any, depth: int, path: tuple = ()) -> list[tuple]:
    if depth == 0:
        return [path]
    out = []
    for i, sub in enumerate(z):
        out.extend(_zone_paths(sub, depth - 1, path + (i,)))
    return out
