"""The flow runner: compiled blocks of effects, the effect base class, and the loop that runs
effects until the next decision.

A ruleset's ``setup``, ``flow``, procedures, option bodies and triggers compile to
:class:`Block` objects: tuples of effects.  Where the game stands is a stack of *frames* held in
the :class:`~interpreter.engine.state.State` as plain data::

    (block, pc, locals, loop)

``block`` is the compiled block, ``pc`` the index of the next effect, ``locals`` the names bound
there (a dict treated as immutable: binding a name replaces it), ``loop`` None or a tuple that
says how the block repeats (``("each", items, i, name)``, ``("times", n, i, name)``,
``("while", cond)``).  No Python generator holds game progress, so a state can be cloned,
saved and resumed at any decision.

Most blocks run as generated code (:mod:`interpreter.engine.flowgen`); :func:`run` then only
calls a block's function for each frame, and interprets frames itself when there is none (code
generation off, explicit chance).  The verbs are in :mod:`interpreter.engine.changes` (what
changes the table), :mod:`interpreter.engine.decisions` (``choose``) and
:mod:`interpreter.engine.flow` (control, output, chance, and the table of every verb).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import FlowError, Mark
from .places import LValue, ZoneRef

if TYPE_CHECKING:  # pragma: no cover
    from ..compile.compiler import Ctx
    from .state import State

__all__ = ["Block", "Effect", "run", "unexpected", "PYTHON_ERRORS"]

EACH, TIMES, WHILE = "each", "times", "while"
_tuple_new = tuple.__new__  # builds an Action without NamedTuple's Python-level __new__


class Block:
    """A compiled list of effects; ``id`` indexes ``Ruleset.blocks`` (for saving frames).

    ``runs[pc]`` (and ``quiet_runs[pc]`` for a game whose log is not recorded) is
    ``(simple, j, effect, last)``: ``simple`` the *simple* effects from ``pc`` up to ``j`` (or,
    where :mod:`interpreter.engine.flowgen` generated the run, its function), the
    index of the next effect that is not simple, ``effect`` (None at the end of the block) and
    ``last`` whether it is the block's last.  A simple effect (``Effect.simple``) never touches
    the stack, the pending decision or the end of the game, so the runner calls a run of them
    in a row without saving the frame between them (the frame's ``pc`` is saved before the
    next effect that is not simple).  ``quiet_runs`` leaves out the ``log`` effects, which do
    nothing when the game is not logged (in a narrated card game, logs are the commonest effect).
    ``fn`` is the whole block as one generated function and ``entry`` the ``pc`` values it can
    resume at (:mod:`interpreter.engine.flowgen`; None and empty when the block is interpreted).
    """

    __slots__ = ("effects", "id", "mark", "runs", "quiet_runs", "whole", "fn", "entry")

    def __init__(self, effects: tuple, id: int, mark: Mark | None):
        self.effects = effects
        self.id = id
        self.mark = mark
        self.whole = None  # a decision-free procedure's body as one generated run (flowgen)
        self.fn = None  # the whole block as one generated function (flowgen), or None
        self.entry = frozenset()  # the pcs its function can resume at
        self.rebuild([eff.simple for eff in effects], None)

    def rebuild(self, simple: list, gens) -> None:
        """Compute the runs with ``simple[i]`` saying whether effect i is simple, and ``gens``
        the block's generated runs (:mod:`interpreter.engine.flowgen`; None to interpret them)."""
        effects = self.effects
        n = len(effects)
        runs: list = [((), n, None, False)] * (n + 1)
        quiet: list = [((), n, None, False)] * (n + 1)
        for i in range(n - 1, -1, -1):
            eff = effects[i]
            if not simple[i]:
                runs[i] = quiet[i] = ((), i, eff, i == n - 1)
                continue
            after, j, nxt, last = runs[i + 1]
            runs[i] = ((eff, *after), j, nxt, last)
            after_quiet = quiet[i + 1][0]
            quiet[i] = (after_quiet if eff.verb == "log" else (eff, *after_quiet), j, nxt, last)
        if gens is not None:  # a generated run replaces the effects where a run starts
            for i, gen in enumerate(gens):
                if gen is not None:
                    runs[i] = quiet[i] = (gen, *runs[i][1:])
        self.runs = tuple(runs)
        self.quiet_runs = tuple(quiet)

    def __repr__(self) -> str:
        return f"Block({self.id}, {len(self.effects)} effects, at {self.mark})"


class Effect:
    """Base of the effect verbs.  ``mark`` is the effect's place in the ruleset; ``binds`` the
    local names it adds to its frame for the effects after it.

    ``run(st, loc)`` returns None, or, for an effect that binds names (``let``, ``as:``), the
    new locals dict of the frame (frames never mutate theirs).  ``simple``: the verb never
    touches ``st.stack``, ``st.pending`` or ``st.finished`` (see :class:`Block`).
    """

    verb = ""
    simple = False
    __slots__ = ("mark", "binds")

    def run(self, st: State, loc: dict) -> dict | None:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def compile(cls, ctx: Ctx, spec: Any, path: tuple, scope) -> Effect:  # pragma: no cover
        raise NotImplementedError


def _bind(loc: dict, name: str, value: Any) -> dict:
    """``loc`` with ``name`` bound: a new locals dict (frames never mutate theirs), which the
    effect returns to the runner."""
    new = dict(loc)
    new[name] = value
    return new


# ---------------------------------------------------------------------------------------------
# The runner


def run(st: State, finish: bool = True) -> None:
    """Run effects from the top of ``st.stack`` until a decision is pending or the game ends.

    When the stack empties the game ends with the ruleset's default reason (unless ``finish``
    is false, as for ``setup``).

    A frame whose block has a generated function (``Block.fn``, :mod:`interpreter.engine.flowgen`)
    and stands at a place it can resume at (``Block.entry``) is popped and handed to it: the
    function runs the block to its end, loops included, and returns what remains of the step
    budget, or ``-1 - left`` when it stopped (a decision, the end of the game, or frames it
    pushed to run next, below which it saved its own).  Other frames are interpreted here:

    The frame on top is saved only before an effect that is not simple (see :class:`Block`):
    such an effect may push a frame on top of it or set the pending decision, and the game
    resumes from the saved ``pc``.  When that effect is the last of a block that does not
    repeat, the frame is popped first instead (a tail call: nothing is left to do in it, so
    the frame pushed next, e.g. by a ``call`` or a ``turn``, returns straight to the frame
    below).  After an error the state is not to be played on (effects before it have run).

    Raises:
        FlowError: the ruleset's step budget is exhausted (a rule loops forever), or a decision
            has no legal action and no ``otherwise``.
        ExpressionError: an expression failed.
    """
    stack = st.stack
    env = st.env
    env.left = env.budget  # env.refill(), written out (every move runs it): the work and memory budgets
    env.mem = env.memory
    budget = st.ruleset.step_budget
    steps = 0
    quiet = st.log is None  # log effects do nothing: step over them (Block.quiet_runs)
    while stack:
        block, pc, loc, loop = stack[-1]
        fn = block.fn
        if fn is not None and pc in block.entry:  # the whole block as one function (flowgen)
            stack.pop()
            left = fn(st, env, loc, pc, loop, budget - steps)
            if left < 0:  # it stopped: a decision, the end, or frames pushed to run next
                if st.pending is not None or st.finished:
                    return
                left = -1 - left
            steps = budget - left
            continue
        runs = block.quiet_runs if quiet else block.runs
        while True:
            simple, j, eff, last = runs[pc]
            if j > pc:
                # A run of simple effects: none touches the stack, so the frame need not follow.
                if simple.__class__ is not tuple:  # one generated function (interpreter/engine/flowgen.py)
                    loc, left = simple(st, env, loc, budget - steps)
                    steps = budget - left
                    if st.finished:  # an `end_game` in the run
                        return
                else:
                    if steps + j - pc > budget:  # as if run one by one: the effect that crossed it
                        _run_to_budget(st, block.effects, pc, loc, budget - steps)
                    steps += j - pc
                    for e in simple:
                        new = e.run(st, loc)
                        if new is not None:  # it bound names (`let`, `as:`)
                            loc = new
            if eff is None:  # the end of the block
                break
            steps += 1
            if steps > budget:
                raise _budget_error(budget, eff)
            pc = j + 1
            if last and loop is None:
                stack.pop()  # a tail call: see above
                frame = None
            else:
                frame = (block, pc, loc, loop)
                stack[-1] = frame
            eff.run(st, loc)
            if st.pending is not None or st.finished:
                return
            if frame is None or stack[-1] is not frame:  # pushed or popped a frame: start again from the top
                break
        if eff is not None:
            continue
        # The block is done: repeat it or leave it.
        if loop is None:
            stack.pop()
            continue
        kind = loop[0]
        if kind is EACH:
            items, i, name = loop[1], loop[2] + 1, loop[3]
            if i < len(items):
                new = dict(loc)
                new[name] = items[i]
                stack[-1] = (block, 0, new, (EACH, items, i, name))
            else:
                stack.pop()
        elif kind is TIMES:
            n, i, name = loop[1], loop[2] + 1, loop[3]
            if i < n:
                if name is not None:
                    new = dict(loc)
                    new[name] = i
                    loc = new
                stack[-1] = (block, 0, loc, (TIMES, n, i, name))
            else:
                stack.pop()
        else:  # WHILE
            env = st.env
            env.loc = loc
            if loop[1](env):
                stack[-1] = (block, 0, loc, loop)
            else:
                stack.pop()
    if finish and not st.finished:
        st.finish(st.ruleset.default_reason)


def _run_to_budget(st: State, effects: tuple, pc: int, loc: dict, left: int) -> None:
    """Run the ``left`` effects from ``pc`` that the step budget still allows, then raise the
    budget error naming the next one (the runner's slow path at the budget's edge)."""
    for eff in effects[pc : pc + left]:
        new = eff.run(st, loc)
        if new is not None:
            loc = new
    raise _budget_error(st.ruleset.step_budget, effects[pc + left])


def _budget_error(budget: int, eff: Effect) -> FlowError:
    return FlowError(
        f"the step budget of {budget} effects in one move was exhausted: a rule seems to loop forever", eff.mark
    )


def _opt(spec: Any, key: str, default: Any = None) -> Any:
    return spec.get(key, default) if isinstance(spec, dict) else default


#: Python errors an effect can meet when a ruleset hands it a value of the wrong kind (or one too
#: large) that its own checks did not foresee; :func:`unexpected` turns them into FlowErrors.
PYTHON_ERRORS = (TypeError, ValueError, LookupError, AttributeError, ArithmeticError, RecursionError, MemoryError)


def unexpected(exc: BaseException) -> FlowError:
    """A FlowError for a Python error ``exc`` escaping the runner, at the mark of the innermost
    effect (or place, or zone) it escaped from, so that a ruleset's mistake never shows as a
    traceback.  Callers: ``raise flow.unexpected(exc) from None`` around :func:`run`."""
    where = None
    tb = exc.__traceback__
    while tb is not None:  # innermost last
        obj = tb.tb_frame.f_locals.get("self")
        if isinstance(obj, (Effect, LValue, ZoneRef)) and getattr(obj, "mark", None) is not None:
            where = obj
        tb = tb.tb_next
    if isinstance(exc, RecursionError):
        what = "a value nested too deeply"
    elif isinstance(exc, MemoryError):
        what = "out of memory (a list or text grew too large)"
    else:
        what = f"{type(exc).__name__.replace('Error', ' error').strip()}: {exc}"
    if isinstance(where, Effect):
        return FlowError(f"`{where.verb}` failed: {what}", where.mark)
    if where is not None:
        return FlowError(f"`{where.text}` failed: {what}", where.mark)
    return FlowError(f"the flow failed: {what}")
