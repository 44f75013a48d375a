"""The outcome and the game's declared facts.

:class:`Outcome` compiles ``outcome:`` (score, tiebreaks, winners, heuristic, the default
reason) and the declared facts (``limits: {actions}``, ``outcome: {range, sum}``, each per seat
count); :func:`one_value` is the conservative test that refuses a ``winners`` expression
certainly giving one value where a list of seats is expected.

Imports: :mod:`.context` (the compilation context it extends), ``interpreter.lang.expression``
(Scope, Env, Compiled) and the limits.
"""

from __future__ import annotations

from typing import Any

from ..errors import CompileError, TapsterError
from ..lang.expression import Compiled, Env, Scope
from ..limits import MAX_ACTIONS
from ..model import render
from .context import Context, constant
from .ruleset import GameFacts, MetricDecl, Ruleset


class Outcome(Context):
    """The outcome stage of the compiler (see the module's docstring)."""

    def _check_winners(self, compiled: Compiled, value: Any, path: tuple) -> None:
        """``winners`` must give a list of seats: an expression that certainly gives one value (a
        seat, a number, a truth value: :func:`one_value`) is a load error at its file:line:column.

        Raises:
            CompileError: the expression gives one value where a list is expected.
        """
        tree = None if compiled.source is None else compiled.source[0]
        what = one_value(value, tree, self.functions)
        if what is not None:
            shown = value if isinstance(value, str) else render(value)
            raise CompileError(f"outcome: winners: `{shown}` gives {what}, where a list of seats is expected: "
                               f"write `[{shown}]` for one winner, `players` for a split pot, `[]` for none",
                               self._value_mark(value, path))

    def _compile_outcome(self, rs: Ruleset) -> None:
        spec = self.data.get("outcome") or {}
        path = ("outcome",)
        pscope = self.scope.with_locals(["p"])
        rs.score_expr = self._guard(self.expr, spec.get("score", 0), path + ("score",), pscope) or Compiled(lambda e: 0, "0", None)
        rs.tiebreaks = tuple(
            t for t in (self._guard(self.expr, t, path + ("tiebreak", i), pscope) for i, t in enumerate(spec.get("tiebreak") or []))
            if t is not None
        )
        rs.winners_expr = self._guard(self.expr, spec["winners"], path + ("winners",), self.scope) if "winners" in spec else None
        if rs.winners_expr is not None:
            self._guard(self._check_winners, rs.winners_expr, spec["winners"], path + ("winners",))
        rs.heuristic_expr = (
            self._guard(self.expr, spec["heuristic"], path + ("heuristic",), pscope) if "heuristic" in spec else None
        )
        rs.default_reason = str(spec.get("reason", "the game's flow is complete"))

    def _compile_metrics(self, rs: Ruleset) -> None:
        """``metrics:``: the designer's own measures, evaluated when a game ends (see
        :meth:`~interpreter.compile.ruleset.Ruleset.metric_values`).  Sets ``rs.metrics`` (a tuple of
        :class:`~interpreter.compile.ruleset.MetricDecl`, in the order written).  A name that is a
        built-in metric's (:data:`RESERVED_METRIC_NAMES`) or a value that certainly is no number
        (a text) is an error at its file:line:column; the schema checks the rest."""
        spec = self.data.get("metrics") or {}
        out = []
        pscope = self.scope.with_locals(["p"])
        for name, m in spec.items() if isinstance(spec, dict) else ():
            path = ("metrics", name)
            if not isinstance(m, dict) or "value" not in m:
                continue  # the schema reports it
            if name in RESERVED_METRIC_NAMES:
                self.errors.append(self.error(
                    f"metrics: `{name}` is the name of a built-in metric; built-in: {', '.join(RESERVED_METRIC_NAMES)}", path))
                continue
            value = m["value"]
            per_player = bool(m.get("per_player", False))
            if isinstance(value, str) and not value.strip():
                self.errors.append(self.error(f"metrics: {name}: `value` is empty: write an expression giving a number",
                                              path + ("value",)))
                continue
            fn = self._guard(self.expr, value, path + ("value",), pscope if per_player else self.scope)
            if fn is None:
                continue
            tree = None if fn.source is None else fn.source[0]
            if getattr(tree, "data", None) == "string":
                self.errors.append(CompileError(f"metrics: {name}: `value` gives a text; a metric is a number "
                                                f"(or true/false, counted 1/0)", self._value_mark(value, path + ("value",))))
                continue
            out.append(MetricDecl(str(name), str(m.get("description", "")), per_player, fn,
                                  self._value_mark(value, path + ("value",))))
        rs.metrics = tuple(out)

    def _compile_facts(self, rs: Ruleset) -> None:
        """The game's declared facts, for every seat count: ``limits: {actions: N}`` (the most
        decisions a game takes), ``outcome: {range: [lo, hi]}`` (every score lies in it) and
        ``outcome: {sum: S}`` (every outcome's scores add up to S), each a number or an
        expression over the parameters and ``num_players``.  Sets ``rs.facts`` (seat count ->
        :class:`~interpreter.compile.ruleset.GameFacts`) and ``rs.action_limit`` (the most over the
        seat counts; ``DEFAULT_ACTIONS`` when undeclared)."""
        spec = self.data.get("outcome") or {}
        limits = self.data.get("limits") or {}
        scope = Scope(resolve=lambda n: constant(rs.params[n]) if n in rs.params else None,
                      locals=frozenset({"num_players"}), global_names=lambda: list(rs.params))
        seats = range(rs.min_players, rs.max_players + 1)

        def values(value: Any, path: tuple, what: str, whole: bool) -> dict[int, Any] | None:
            if value is None:
                return None
            fn = self._guard(self.expr, value, path, scope)
            if fn is None:
                return None
            out = {}
            for n in seats:
                try:
                    v = fn(Env(None, {"num_players": n}))
                except TapsterError as exc:
                    self.errors.append(exc)
                    return None
                ok = type(v) is int if whole else type(v) in (int, float)
                if not ok or (whole and not 1 <= v <= MAX_ACTIONS):
                    expected = f"a whole number from 1 to {MAX_ACTIONS}" if whole else "a number"
                    self.errors.append(self.error(f"{what}: expected {expected}, found {render(v)!r} with {n} players", path))
                    return None
                out[n] = v
            return out

        actions = values(limits.get("actions"), ("limits", "actions"), "limits: {actions}", True)
        bounds = spec.get("range")
        lo = hi = None
        if bounds is not None:
            if not isinstance(bounds, list) or len(bounds) != 2:
                self.errors.append(self.error(f"outcome: {{range}}: expected [lowest, highest], found {render(bounds)!r}",
                                              ("outcome", "range")))
            else:
                lo = values(bounds[0], ("outcome", "range", 0), "outcome: {range} (lowest score)", False)
                hi = values(bounds[1], ("outcome", "range", 1), "outcome: {range} (highest score)", False)
        total = values(spec.get("sum"), ("outcome", "sum"), "outcome: {sum}", False)
        rs.facts = {}
        for n in seats:
            if lo is not None and hi is not None and lo[n] > hi[n]:
                self.errors.append(self.error(
                    f"outcome: {{range}}: the lowest score {lo[n]} is above the highest {hi[n]} with {n} players", ("outcome", "range")))
                lo = hi = None
            rs.facts[n] = GameFacts(
                actions[n] if actions else None,
                (lo[n], hi[n]) if lo is not None and hi is not None else None,
                total[n] if total else None)
        if actions:
            rs.action_limit = max(actions.values())


#: The built-in metrics' names (``tapster tune --target``'s own and the reports' keys): a declared
#: metric may not take one.
RESERVED_METRIC_NAMES = ("first_player_advantage", "advantage_p1", "drawishness", "duration", "decisions", "margin",
                         "lead_change", "drama", "decisiveness", "position_spread", "win_rate", "balance")


#: Operators whose result is never a list (a list there is an error: ``[1] - 1``).
_NUMERIC_OPS = frozenset({"sub", "div", "floordiv", "pow", "neg", "pos", "compare", "not_"})
#: Builtins whose result is never a list.
_ONE_VALUE_BUILTINS = frozenset({"len", "abs", "int", "round", "count"})


def one_value(value: Any, tree: Any, functions: dict, seen: frozenset = frozenset()) -> str | None:
    """What an expression certainly gives when that is one value, not a list: "a number" for a
    YAML number, "one value (a seat, a number or a truth value)" for an expression whose parse
    ``tree`` can only give one (a number, arithmetic other than ``+``/``*`` of unknowns, a
    comparison, ``not``, a conditional whose branches both give one, a ruleset function whose
    body does, ``len``...); None when it may give a list (a name, an index, a list...).  A
    conservative test: None is never wrong, so only certain mistakes are load errors."""
    if isinstance(value, bool):
        return "a truth value"
    if isinstance(value, (int, float)):
        return "a number"
    if tree is None:
        return None
    return "one value (a seat, a number or a truth value)" if _gives_one(tree, functions, seen) else None


def _gives_one(node: Any, functions: dict, seen: frozenset) -> bool:
    data = getattr(node, "data", None)
    kids = getattr(node, "children", ())
    if data in ("number", "true", "false", "none", "string"):
        return data != "string"  # a text is one value too, but `winners` texts are rare; leave them to run time
    if data in _NUMERIC_OPS:
        return True
    if data == "add":  # a number plus anything is a number (or an error)
        return any(_gives_one(k, functions, seen) for k in kids)
    if data == "mul":  # a list times a number is a list
        return all(_gives_one(k, functions, seen) for k in kids)
    if data == "ternary":
        return _gives_one(kids[0], functions, seen) and _gives_one(kids[2], functions, seen)
    if data in ("and_", "or_"):
        return all(_gives_one(k, functions, seen) for k in kids)
    if data == "call":
        name = str(kids[0])
        if name in _ONE_VALUE_BUILTINS:
            return True
        fn = functions.get(name)
        body = getattr(fn, "body", None)
        if body is None or name in seen:
            return False
        return _gives_one(body.tree, functions, seen | {name})
    return False
