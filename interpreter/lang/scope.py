"""Name resolution and what an expression reads: :class:`Scope`, :class:`Env`.

A :class:`Scope` is what the compiler knows where an expression stands: its local names, how to
read each global name (:func:`state_reader` for the state's zones and variables), the functions
it may call and the attributes that exist.  An :class:`Env` is what an expression reads when it
runs: the state, the local values, and what is left of the work and memory budgets.
:class:`FunctionBody` is a ruleset function's body as the code generator reads it.

Imports: the limits (default budgets) only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import Mark
from ..limits import DEFAULT_MEMORY, DEFAULT_WORK


class Env:
    """What an expression reads: the ``state`` and the local names ``loc`` (a dict).

    ``zones`` and ``vars`` are the state's dicts, cached here because a state never replaces
    them while it lives (only their contents change): generated code reads a zone or a variable
    with one attribute load less (``env.zones[name]``), and evaluations are the hot path.

    ``left`` is what remains of the work budget (loop items, membership tests, ruleset
    function calls; see :mod:`interpreter.lang.codegen`), refilled to ``budget`` by :meth:`refill`
    at every move and every listing of legal actions.  ``mem`` is what remains of the memory
    budget (items and characters of the lists, texts and ranges built), refilled to ``memory``
    with it.

    ``pick`` is None, or while a playout runs (:func:`interpreter.engine.playout.playout`) the
    function that takes its decisions where the generated code lists them.

    ``chance_run`` counts the chance outcomes taken in a row since the last decision
    (``chance_since``: the state's ``record`` at the first of them), for the step budget's
    guarantee under explicit chance (:meth:`~interpreter.engine.chance.ChancePoint.resume`).
    """

    __slots__ = ("state", "loc", "zones", "vars", "left", "budget", "mem", "memory", "pick", "chance_run", "chance_since")

    def __init__(self, state: Any, loc: dict):
        self.state = state
        self.loc = loc
        self.pick = None
        # chance outcomes taken since the decision ``chance_since`` (the state's ``record`` then;
        # see interpreter.engine.chance.ChancePoint.resume)
        self.chance_run = 0
        self.chance_since = None
        self.zones = getattr(state, "zones", None)
        self.vars = getattr(state, "vars", None)
        rs = getattr(state, "ruleset", None)
        self.budget = self.left = getattr(rs, "work_budget", DEFAULT_WORK)
        self.memory = self.mem = getattr(rs, "memory_budget", DEFAULT_MEMORY)

    def refill(self) -> None:
        """Start a new work and memory budget (a move, a listing of legal actions, a load-time
        evaluation)."""
        self.left = self.budget
        self.mem = self.memory


class FunctionBody:
    """A ruleset function's body as the code generator reads it: ``params`` (the parameter
    names), ``tree``/``scope``/``text``/``mark`` (the body's parse tree, its scope — the
    parameters are its only local names, so a function sees its parameters and the game, not
    its caller's names —, text and mark).  See :class:`interpreter.lang.codegen.FunctionTable`."""

    __slots__ = ("params", "tree", "scope", "text", "mark")

    def __init__(self, params: tuple, tree: Any, scope: Scope, text: str, mark: Mark | None):
        self.params, self.tree, self.scope, self.text, self.mark = params, tree, scope, text, mark


@dataclass
class Scope:
    """Compile-time knowledge for name resolution.

    ``locals``: names bound at this point (read from ``env.loc``); ``resolve``: returns a
    closure reading a global name, or None if there is no such name; ``functions``: callable
    names; ``attributes``: every attribute name that can exist (for the load-time check), or
    None to skip that check; ``mutable``: attribute names that live in ``state.props``.
    """

    resolve: Callable[[str], Callable | None]
    locals: frozenset = frozenset()
    functions: dict = field(default_factory=dict)
    attributes: frozenset | None = None
    mutable: frozenset = frozenset()
    global_names: Callable[[], list] = lambda: []
    codegen: Any = None

    def with_locals(self, names) -> Scope:
        """A scope with ``names`` added to the locals."""
        return Scope(
            self.resolve,
            self.locals | frozenset(names),
            self.functions,
            self.attributes,
            self.mutable,
            self.global_names,
            self.codegen,
        )


def state_reader(kind: str, name: str = "") -> Callable:
    """The closure that reads a global name of the state: ``kind`` ``"zone"`` or ``"var"``
    (``name``), or ``"current"``.  Tagged with its kind so that the fast compiler fuses the
    read into the operator using it (``hand[current]`` is one closure, not three)."""
    if kind == "zone":
        f = lambda env: env.state.zones[name]  # noqa: E731
    elif kind == "var":
        f = lambda env: env.state.vars[name]  # noqa: E731
    elif kind == "current":
        f = lambda env: env.state.current  # noqa: E731
    else:  # pragma: no cover - a programming error
        raise ValueError(kind)
    f.reads = (kind, name)  # type: ignore[attr-defined]
    return f


def operand(f: Callable) -> tuple:
    """How a compiled operand gets its value, for fusing it into the operator that reads it:
    ``("const", value)``, ``("local", name)``, ``("zone", name)``, ``("var", name)``,
    ``("current", "")``, or ``("call", f)`` (anything else: call it)."""
    if hasattr(f, "constant"):
        return ("const", f.constant)
    name = getattr(f, "local", None)
    if name is not None:
        return ("local", name)
    reads = getattr(f, "reads", None)
    if reads is not None:
        return reads
    return ("call", f)
