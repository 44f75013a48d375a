"""The functions an expression may call beyond the generic builtins: the ruleset's own and
those reading the state.

:class:`Functions` compiles ``functions:`` (named, pure expressions with parameters; every
name registered before any body compiles, so they may call each other in any order) and, for
explicit chance, what each reads of the hidden zones' order.  :func:`ruleset_builtins` are the
builtins over a game's state and its components (``clockwise``, ``component``, ``score``,
``edges_of``...).

Imports: :mod:`.context` (the compilation context it extends), ``interpreter.lang.expression``
(Builtin, FunctionBody, Env), the engine's ``chance`` (order reads) and the limits.
"""

from __future__ import annotations

from ..engine import chance
from ..errors import ExpressionError, TapsterError
from ..lang.expression import BUILTINS, Builtin, Compiled, Env, FunctionBody, parse
from ..limits import MAX_FUNCTION_CALLS
from ..model import UNORDERED_VISIBILITIES, render
from .context import Context
from .ruleset import Ruleset


class Functions(Context):
    """The functions stage of the compiler (see the module's docstring)."""

    def _compile_functions(self) -> None:
        """The ruleset's own functions (``functions: {name: {params: [...], value: EXPR}}``):
        named, pure expressions with parameters, callable from any expression like a builtin.

        Every name is registered before any body compiles, so functions may call each other in
        any order; a function sees its parameters and the game, not its caller's names.
        Endless recursion stops with an ExpressionError ("nested too deeply").
        """
        specs = self.data.get("functions") or {}
        bodies: dict[str, Compiled] = {}
        trees = {}  # the bodies' parse trees, for the call graph and inlining (errors come later)
        for fname, spec in specs.items():
            if isinstance(spec, dict) and isinstance(spec.get("value"), str):
                try:
                    trees[fname] = parse(spec["value"])
                except TapsterError:
                    pass
        # (params, parse tree) of each function, for the action encoding's domains (interpreter/interop/domains.py)
        self.rs.function_trees = {f: (tuple((specs[f] or {}).get("params") or ()), t) for f, t in trees.items()}
        for fname, spec in specs.items():
            path = ("functions", fname)
            if not isinstance(spec, dict) or "value" not in spec:
                self.errors.append(self.error("a function is {params: [names], value: expression}", path))
                continue
            if fname in BUILTINS or fname in self.functions:
                self.errors.append(self.error(f"`{fname}` is already a builtin function", path))
                continue
            params = tuple(spec.get("params") or ())
            for prm in params:
                self._guard(self.check_local_name, prm, path + ("params",))
            body = None
            if fname in trees:
                vpath = path + ("value",)
                body = FunctionBody(
                    params, trees[fname], self.scope.with_locals(params), spec["value"], self._value_mark(spec["value"], vpath)
                )
            self.functions[fname] = Builtin(
                _user_function(fname, params, bodies),
                str(spec.get("description", fname)),
                (len(params), len(params)),
                True,
                body,
            )
        for fname, spec in specs.items():
            if fname not in self.functions or not isinstance(spec, dict):
                continue
            params = tuple(spec.get("params") or ())
            body = self._guard(self.expr, spec["value"], ("functions", fname, "value"), self.scope.with_locals(params))
            if body is not None:
                bodies[fname] = body

    def _chance_reads(self) -> None:
        """For explicit chance: the hidden zones, and what each ruleset function reads of their
        order (through the functions it calls, to a fixed point)."""
        self.hidden_zones = {z.name for z in self.zones.values() if z.visibility in UNORDERED_VISIBILITIES and not z.keyed}
        specs = self.data.get("functions") or {}
        texts = {f: [spec.get("value")] for f, spec in specs.items() if isinstance(spec, dict)}
        reads: dict[str, tuple] = {f: () for f in texts}
        for _ in range(len(texts) + 1):
            new = {f: chance.order_reads(t, self.hidden_zones, reads) for f, t in texts.items()}
            if new == reads:
                break
            reads = new
        self.function_reads = reads


def _user_function(name: str, params: tuple, bodies: dict):
    """The callable behind a ruleset function: binds the arguments and evaluates the body."""

    new_env = object.__new__

    def frame(env, loc):
        # A fresh Env sharing the caller's cached lookups (Env.__init__ would look them up).
        e = new_env(Env)
        e.state, e.zones, e.vars, e.loc = env.state, env.zones, env.vars, loc
        e.left, e.budget, e.mem, e.memory = env.left, env.budget, env.mem, env.memory
        return e

    calls = _CALLS

    def count():
        # The reference evaluator's calls come here (generated code calls the generated
        # function): endless recursion ends at Python's depth limit, but a recursion that
        # branches (`f(n - 1) + f(n - 1)`) can run for ages within it; count the calls of one
        # outermost evaluation (the work budget counts them too).
        if calls[0] == 0:
            calls[1] = 0
        calls[1] += 1
        if calls[1] > MAX_FUNCTION_CALLS:
            body = bodies[name]
            raise ExpressionError(
                f"in expression `{body.text}`: ruleset functions were called more than {MAX_FUNCTION_CALLS} times "
                f"to compute one value (a recursion that branches too much?)", body.mark)

    if len(params) == 1:
        (p0,) = params

        def call1(env, a0):
            count()
            calls[0] += 1
            e = frame(env, {p0: a0})
            try:
                return bodies[name](e)
            finally:
                calls[0] -= 1
                env.left, env.mem = e.left, e.mem

        call1.__name__ = name
        return call1

    def call(env, *args):
        count()
        calls[0] += 1
        e = frame(env, dict(zip(params, args)))
        try:
            return bodies[name](e)
        finally:
            calls[0] -= 1
            env.left, env.mem = e.left, e.mem

    call.__name__ = name
    return call


_CALLS = [0, 0]  # [calls in progress, calls since the outermost began]


def ruleset_builtins(rs: Ruleset) -> dict[str, Builtin]:
    """Builtins that read the state (documented in the README with the generic ones)."""

    def clockwise(env, start, *rest):
        n = env.state.num_players
        return [(start + i) % n for i in range(n)]

    def next_player(env, p, k=1):
        return (p + k) % env.state.num_players

    def components(env, kind):
        k = rs.kinds.get(kind)
        if k is None:
            raise ValueError(f"no component kind {kind!r}")
        return list(k.components)

    def component(env, ident):
        c = rs.by_id.get(ident)
        if c is None:
            raise ValueError(f"no component {ident!r}")
        return c

    def score(env, p):
        return rs.score_of(env.state, p)

    def zone_of(env, c):
        return env.state.zone_of(c)

    def by_players(env, v):
        """``by_players(v)``: a value that depends on the number of players.  ``v`` a record
        whose keys are seat counts (``{2: 1, 3: 2, 4: 2}``, a table cell or a parameter) gives
        its value for this game's ``num_players``; any other ``v`` is the same for every count
        and is itself (``1``).

        Raises:
            ValueError: ``v`` is a record without the game's number of players among its keys
                (the message names the counts it has).
        """
        if type(v) is not dict:
            return v
        n = env.state.num_players
        if n in v:
            return v[n]
        counts = ", ".join(render(k) for k in v)
        raise ValueError(f"by_players() found no value for {n} players in the record {render(v)} "
                         f"(it has {counts or 'no counts'}): add `{n}: VALUE` to it")

    def edges_of(env, xs):
        if isinstance(xs, (str, dict)) or not hasattr(xs, "__iter__"):
            raise ValueError(f"edges_of() takes a list or a zone of components, not {render(xs)!r}")
        out = []
        for c in xs:
            for gm in rs.maps.values():
                ends = gm.ends.get(getattr(c, "id", None)) if hasattr(c, "kind") else None
                if ends is not None:
                    out.append(ends)
                    break
        return out

    return {
        "clockwise": Builtin(clockwise, "clockwise(p): every seat in turn order, starting with p", (1, 1), True),
        "next_player": Builtin(next_player, "next_player(p) or next_player(p, k): the seat k places after p", (1, 2), True),
        "components": Builtin(components, "components(kind): every component of a kind, in table order", (1, 1), True),
        "component": Builtin(component, "component(id): the component with that id (`card-16`)", (1, 1), True),
        "score": Builtin(score, "score(p): the outcome's score expression for seat p, now", (1, 1), True),
        "zone_of": Builtin(zone_of, "zone_of(c): the name of the zone holding c (`flight[0][1]`), or none", (1, 1), True),
        "by_players": Builtin(by_players, "by_players(v): v's value for this many players ({2: 1, 3: 2}), "
                              "or v itself when it is not a record", (1, 1), True),
        "edges_of": Builtin(edges_of, "edges_of(xs): the (a, b) node pairs of the map edge components among xs, in order",
                            (1, 1), True),
    }
