"""What an expression may reveal: the static check that keeps a display's text public.

A ruleset's ``display`` text (header and footer lines, a board's cells) is evaluated on the
game state, but a seat's view may only hold what that seat may see.  :func:`private_read`
reads an expression's parse tree and answers the one question that matters: can its value
depend on something some seat may not see?  If so (or if it cannot tell), it names the first
such read, and the line is left out of every seat's view (it still shows to an observer: the
omniscient account of ``tapster play`` with agents only, ``tapster replay --all``).

The rule, conservative by design (a false "private" only hides a line; a false "public"
would leak):

- constants, parameters, maps, ``current``/``players``/``num_players``/``phase``/
  ``turns_taken`` and variables declared ``visibility: public`` are public;
- a zone declared ``public`` is public, its components and their properties too;
- an ``owner`` or ``hidden`` zone is public only as ``len(zone)`` or ``len(zone[i])`` (the
  number of components, which every observation shows), with public indexes;
- ``components(kind)``, ``component(id)`` and ``edges(m)`` give public identities whose fixed fields are
  public but whose mutable properties are not (they may lie face down);
- ``zone_of(c)`` is private (a place may be hidden); ``score(p)`` is as public as the
  outcome's ``score`` expression;
- a ruleset function is as public as its body, given the publicity of its arguments
  (recursion is private); a local name is as public as what it was bound to.

Source: issue 19 ("hidden information leaks through the drawing"); docs/authoring.md, "Display".
"""

from __future__ import annotations

from typing import Any

from ..lang.expression import _TEMPLATE_PART, parse

__all__ = ["Knowledge", "private_read", "template_expressions"]

# Publicity levels, ordered: the worst of the parts wins.
PUBLIC, IDENT, ZONE, PRIVATE = 0, 1, 2, 3

_SPECIAL = frozenset({"current", "num_players", "players", "phase", "turns_taken"})


class Knowledge:
    """What the check needs of a ruleset: ``zones`` (name -> visibility), ``vars`` (name ->
    visibility), ``params`` and ``maps`` (names), ``functions`` (name -> Builtin, whose
    ``body`` is a :class:`~interpreter.lang.expression.FunctionBody` for a ruleset function),
    ``mutable`` (the names of mutable component properties) and ``score`` (the outcome's score
    expression of seat ``p``, the body of ``score(p)``; None: ``score(p)`` is private)."""

    def __init__(self, zones: dict, vars_: dict, params, maps, functions: dict, mutable, score: str | None = None):
        self.zones, self.vars = zones, vars_
        self.score = score
        self.params, self.maps = frozenset(params), frozenset(maps)
        self.functions, self.mutable = functions, frozenset(mutable)
        self._memo: dict = {}
        self._active: set = set()


class _Body:
    """A function body for the check: ``params`` and parse ``tree``."""

    def __init__(self, params: tuple, tree: Any):
        self.params, self.tree = params, tree


class _Private(Exception):
    def __init__(self, why: str):
        self.why = why


def private_read(text: str, know: Knowledge, locals_: dict[str, int] | None = None) -> str | None:
    """None when the value of expression ``text`` depends only on what every seat sees;
    otherwise a short reason naming the first private read (``"reads hand (an owner zone)"``).

    ``locals_``: the publicity of local names bound around it (name -> level; an unknown local
    is private).  An expression that does not parse is private ("does not parse").
    """
    try:
        tree = parse(text)
    except Exception:  # noqa: BLE001 - a compile error is reported elsewhere, by the compiler
        return "does not parse"
    walk = _Walk(know)
    try:
        level = walk.level(tree, dict(locals_ or {}))
    except _Private as p:
        return p.why
    if level >= ZONE:
        return f"reads {walk.hidden_zone()}"
    return None


def template_expressions(text: Any) -> list[str]:
    """The ``{expression}`` parts of a template (``{{``/``}}`` are literal braces)."""
    if not isinstance(text, str):
        return []
    return [m.group(1) for m in _TEMPLATE_PART.finditer(text) if m.group(1) is not None]


class _Walk:
    def __init__(self, know: Knowledge):
        self.k = know
        self.zone = "a zone"  # the last non-public zone read, for the messages

    def hidden_zone(self) -> str:
        """What the last non-public zone read was, for a reason."""
        vis = self.k.zones.get(self.zone)
        if vis is None:
            return "a zone some seat may not look into"
        return f"`{self.zone}` (a zone declared `visibility: {vis}`) other than by len(...)"

    def level(self, node, env: dict) -> int:
        data = getattr(node, "data", None)
        if data is None:  # a bare token
            return PUBLIC
        method = getattr(self, "n_" + data, None)
        if method is not None:
            return method(node, env)
        return self.worst(node.children, env)

    def worst(self, children, env: dict) -> int:
        out = PUBLIC
        for ch in children:
            if getattr(ch, "data", None) is None:
                continue
            lv = self.level(ch, env)
            if lv >= ZONE:  # a zone used as a value (not counted): its contents
                lv = PRIVATE
            out = max(out, lv)
        return out

    # leaves -------------------------------------------------------------------------------
    def n_name(self, node, env: dict) -> int:
        name = str(node.children[0])
        k = self.k
        if name in env:
            return env[name]
        if name in k.params or name in k.maps or name in _SPECIAL:
            return PUBLIC
        if name in k.vars:
            vis = k.vars[name]
            if vis == "public":
                return PUBLIC
            raise _Private(f"reads `{name}` (a variable declared `visibility: {vis}`)")
        if name in k.zones:
            if k.zones[name] == "public":
                return PUBLIC
            self.zone = name
            return ZONE
        raise _Private(f"reads `{name}`, which the check does not know")

    # structure ----------------------------------------------------------------------------
    def n_index(self, node, env: dict) -> int:
        base = self.level(node.children[0], env)
        idx = self.worst(node.children[1:], env)
        if base == ZONE and idx == PUBLIC:
            return ZONE
        return max(PRIVATE if base == ZONE else base, idx)

    def n_attr(self, node, env: dict) -> int:
        base = self.level(node.children[0], env)
        if base == ZONE:
            raise _Private(f"reads {self.hidden_zone()}")
        if base == IDENT:
            if str(node.children[1]) in self.k.mutable:
                raise _Private(f"reads `.{node.children[1]}`, a property that may lie face down")
            return PUBLIC
        return base

    def n_call(self, node, env: dict) -> int:
        name = str(node.children[0])
        argnode = node.children[1]
        args = [] if argnode is None else list(argnode.children)
        if name == "len" and len(args) == 1:
            lv = self.level(args[0], env)
            return PUBLIC if lv in (ZONE, IDENT) else lv
        levels = []
        for a in args:
            expr = a.children[1] if getattr(a, "data", None) == "kwarg" else a
            lv = self.level(expr, env)
            if lv == ZONE:
                raise _Private(f"reads {self.hidden_zone()} through `{name}(...)`")
            levels.append(lv)
        fn = self.k.functions.get(name)
        body = getattr(fn, "body", None) if fn is not None else None
        if body is not None:
            return self.function(name, body, tuple(levels[: len(body.params)]))
        if name == "score" and isinstance(self.k.score, str) and len(levels) == 1:
            try:
                tree = parse(self.k.score)
            except Exception:  # noqa: BLE001 - reported by the compiler
                raise _Private("calls `score(...)`, whose expression does not parse") from None
            return self.function("score", _Body(("p",), tree), tuple(levels))
        if name in ("zone_of", "score"):
            raise _Private(f"calls `{name}(...)`, which may depend on hidden components")
        if name in ("components", "component", "edges"):
            return max([IDENT, *levels])
        return max([PUBLIC, *levels])

    def n_call_gen(self, node, env: dict) -> int:
        name = str(node.children[0])
        inner = self.comprehension(node.children[1], node.children[2], env)
        if name in ("zone_of", "score"):
            raise _Private(f"calls `{name}(...)`, which may depend on hidden components")
        fn = self.k.functions.get(name)
        if fn is not None and getattr(fn, "body", None) is not None:
            return self.function(name, fn.body, (inner,))
        return inner

    def n_listcomp(self, node, env: dict) -> int:
        return self.comprehension(node.children[0], node.children[1], env)

    def comprehension(self, elt, clauses, env: dict) -> int:
        inner = dict(env)
        out = PUBLIC
        for clause in clauses.children:
            if clause.data == "comp_for":
                lv = self.level(clause.children[1], inner)
                if lv == ZONE:
                    raise _Private(f"iterates over {self.hidden_zone()}")
                for t in clause.children[0].children:
                    inner[str(t)] = lv
                out = max(out, lv if lv != IDENT else PUBLIC)
            else:
                cond = self.level(clause.children[0], inner)
                out = max(out, PRIVATE if cond >= ZONE else cond)
        elt_level = self.level(elt, inner)
        if elt_level == ZONE:
            elt_level = PRIVATE
        return max(out, elt_level)

    def n_compare(self, node, env: dict) -> int:
        return self.worst(node.children, env)

    def n_ternary(self, node, env: dict) -> int:
        return self.worst(node.children, env)

    def function(self, name: str, body, levels: tuple) -> int:
        key = (name, levels)
        if key in self.k._memo:
            return self.k._memo[key]
        if key in self.k._active:
            raise _Private(f"`{name}` calls itself: the check cannot tell what it reads")
        self.k._active.add(key)
        try:
            env = {p: (levels[i] if i < len(levels) else PRIVATE) for i, p in enumerate(body.params)}
            lv = self.level(body.tree, env)
        except _Private as p:
            raise _Private(f"calls `{name}`, which {p.why}") from None
        finally:
            self.k._active.discard(key)
        self.k._memo[key] = lv
        return lv
