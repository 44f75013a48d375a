"""The ``choose`` verb: a decision point.  The flow stops; a seat picks one of the legal actions
its options list (:class:`Option`: ``for`` names, legality, label, body), and the chosen option's
body runs with its names bound.  Listing legal actions is generated code where it can be
(:func:`interpreter.lang.codegen.generate_legal`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ExpressionError, FlowError
from ..lang.codegen import WorkExceeded, generate_legal
from ..lang.expression import Env, _operand
from ..model import Action, Component, render
from .places import snapshot
from .runner import Effect, _tuple_new

if TYPE_CHECKING:  # pragma: no cover
    pass

class Option:
    """One option of a ``choose``: ``name``, ``names`` bound by ``for``, the ``items`` they range
    over, the legality condition ``cond``, the ``label`` template and the ``body`` block;
    ``action``: the option's one action when it binds no names (made once, actions are
    immutable); ``merge``: identical components give one action (``merge_identical: true``,
    see :func:`merge_identical`)."""

    __slots__ = ("name", "names", "items", "cond", "label", "body", "mark", "action", "merge")


def look_key(v, st) -> object:
    """What tells a value of an action apart when identical components merge: a component by
    its look (:attr:`~interpreter.model.Component.look`, the copies of one row alike) and, for a
    kind with mutable properties, their values now in ``st``; any other value as itself."""
    if type(v) is Component:
        if v.mutable:
            return (v.look, repr(sorted(st.props.get(v.index, {}).items())))
        return v.look
    if type(v) is tuple:
        return tuple(look_key(x, st) for x in v)
    if type(v) in (list, dict):  # an item that is a list or a record: compared as written
        return repr(v)
    return v


def merge_identical(actions: tuple, merging: frozenset, st) -> tuple:
    """``actions`` with the actions of the options named in ``merging`` (``merge_identical:
    true``) merged: among the actions of one option whose values are identical components
    (:func:`look_key`), one action, at the place of the first of them and on the last copy
    listed (a zone's top: ``in:`` lists a zone from its bottom).  Other actions as they are."""
    out: list = []
    at: dict = {}
    for a in actions:
        if a.name in merging:
            key = (a.name, tuple(look_key(v, st) for v in a.args))
            i = at.get(key)
            if i is not None:
                out[i] = a  # a later copy: the top one wins
                continue
            at[key] = len(out)
        out.append(a)
    return tuple(out)


class Choose(Effect):
    """``choose``: a decision point.  The flow stops; ``player`` (default ``current``) picks one
    of the legal actions listed by ``options``; that option's ``do`` runs with its ``for`` names
    bound.  When no option is legal, ``otherwise`` runs (an error if there is none).
    """

    verb = "choose"
    __slots__ = (
        "id", "name", "player", "by_current", "prompt", "options", "by_name", "otherwise", "secret", "plan",
        "shared_locals", "generated", "merging",
    )  # fmt: skip

    @classmethod
    def compile(cls, ctx, spec, path, scope):
        e = cls()
        ctx.require(spec, ("options",), path)
        e.name = spec.get("name", "")
        # `secret`: others must not tell apart the actions of one option (tested generically).
        e.secret = bool(spec.get("secret", False))
        e.player = ctx.expr(spec.get("player", "current"), path + ("player",), scope)
        e.by_current = _operand(e.player.fn)[0] == "current"
        e.prompt = ctx.template(spec.get("prompt", ""), path + ("prompt",), scope)
        options = []
        e.by_name = {}
        for i, ospec in enumerate(spec["options"]):
            opath = path + ("options", i)
            ctx.require(ospec, ("action",), opath)
            o = Option()
            o.name = str(ospec["action"])
            o.mark = ctx.mark(opath)
            if o.name in e.by_name:
                raise ctx.error(f"two options are named `{o.name}` in one decision", opath + ("action",))
            names = ospec.get("for", [])
            o.names = tuple([names] if isinstance(names, str) else names)
            for n in o.names:
                ctx.check_local_name(n, opath + ("for",))
            if o.names and "in" not in ospec:
                raise ctx.error("an option with `for` needs `in`", opath)
            o.items = ctx.expr(ospec["in"], opath + ("in",), scope) if o.names else None
            o.merge = bool(ospec.get("merge_identical", False))
            if o.merge and not o.names:
                raise ctx.error("`merge_identical: true` merges the actions of an option's `for` over identical "
                                "components, and this option has no `for`; add `for: c` and `in: ZONE`, or drop "
                                "`merge_identical`", opath + ("merge_identical",))
            inner = scope.with_locals(o.names)
            o.cond = ctx.expr(ospec["if"], opath + ("if",), inner) if "if" in ospec else None
            default_label = o.name.replace("_", " ") + "".join(" {" + n + "}" for n in o.names)
            o.label = ctx.template(ospec.get("label", default_label), opath + ("label",), inner)
            o.body = ctx.block(ospec.get("do", []), opath + ("do",), inner)
            o.action = Action(o.name, ())
            options.append(o)
            e.by_name[o.name] = o
        e.options = tuple(options)
        e.plan = e._plan()
        e.mark = ctx.mark(path)
        e.generated = generate_legal(e, scope.codegen, snapshot)
        e.merging = frozenset(o.name for o in options if o.merge)
        if e.merging and e.generated is not None:  # every listing merges (the flow's generated code calls this one)
            e.generated = _merged(e.generated, e.merging)
        # No option's `for` names hide a local name of the decision's own: then one copy of the
        # locals serves every option in turn (a name an option left bound is read by no other).
        e.shared_locals = not any(n in scope.locals for o in options for n in o.names)
        e.otherwise = ctx.block(spec["otherwise"], path + ("otherwise",), scope) if "otherwise" in spec else None
        e.id = ctx.register_choose(e)
        e.binds = ()
        return e

    def legal(self, st, loc) -> tuple:
        """The legal actions in ``loc`` (no side effects).

        Runs the raw closures (no per-expression error wrapping: this is the hottest path); if
        anything fails, expressions being pure, it runs again through the checked wrappers so
        that the error names the expression that failed and its place.
        """
        st.env.refill()
        try:
            return self._legal_fast(st, loc)
        except WorkExceeded as exc:
            raise FlowError(f"listing the actions of decision `{self.name or 'choose'}`: {exc.message}", self.mark) from None
        except Exception:  # noqa: BLE001 - re-raised below with the expression's context
            return self._legal_checked(st, loc)

    def _plan(self) -> tuple:
        """The options as the fast listing reads them, one tuple each:
        ``(names, items, cond, action_or_name)`` with the raw closures; for an option without
        ``for``, its one action; for one ``for`` name over a constant list (``range(flights)``),
        ``items`` pairs each value with its action, made once (actions are immutable)."""
        plan = []
        for o in self.options:
            cond = o.cond.fn if o.cond is not None else None
            if not o.names:
                plan.append(((), None, cond, o.action))
            elif len(o.names) == 1 and type(o.items.constant) in (list, tuple):
                fixed = tuple((v, Action(o.name, (v,))) for v in o.items.constant)
                plan.append((o.names[0], fixed, cond, None))
            elif o.items.items_share_state:  # an action holds values, never a list the state changes
                plan.append((o.names, lambda env, items=o.items.fn: snapshot(items(env)), cond, o.name))
            else:
                plan.append((o.names, o.items.fn, cond, o.name))
        return tuple(plan)

    def _legal_fast(self, st, loc) -> tuple:
        """:meth:`legal` through the generated listing (:func:`interpreter.lang.codegen.generate_legal`),
        or the raw closures and the precomputed :meth:`_plan` where there is none."""
        env = st.env
        env.loc = loc
        if self.generated is not None:
            return self.generated(env)
        actions = []
        append = actions.append
        shared = self.shared_locals
        tmp = None
        for names, items, cond, action in self.plan:
            if not names:
                if cond is None or cond(env):
                    append(action)
                continue
            if tmp is None or not shared:  # the locals with the option's names bound
                tmp = dict(loc)
            if action is None:  # one name over constant items
                if cond is None:
                    actions.extend(act for _, act in items)
                    continue
                env.loc = tmp
                for v, act in items:
                    tmp[names] = v
                    if cond(env):
                        append(act)
                env.loc = loc
                continue
            items = items(env)
            env.loc = tmp
            if len(names) == 1:
                n = names[0]
                new = _tuple_new
                for v in items:
                    tmp[n] = v
                    if cond is None or cond(env):
                        append(new(Action, (action, (v,))))
            else:
                for v in items:
                    v = tuple(v)
                    if len(v) != len(names):
                        raise ValueError  # the checked listing below gives the error
                    tmp.update(zip(names, v))
                    if cond is None or cond(env):
                        append(Action(action, v))
            env.loc = loc
        if self.merging:
            return merge_identical(tuple(actions), self.merging, st)
        return tuple(actions)

    def _legal_checked(self, st, loc) -> tuple:
        """:meth:`legal` through the checked wrappers, for the precise error of a failure."""
        env = st.env
        actions = []
        append = actions.append
        new = _tuple_new
        for o in self.options:
            cond = o.cond
            if not o.names:
                env.loc = loc
                if cond is None or cond(env):
                    append(o.action)
                continue
            env.loc = loc
            items = o.items(env)
            if o.items.items_share_state:
                items = snapshot(items)
            if not isinstance(items, (list, tuple, dict, str)):
                raise ExpressionError(f"option `{o.name}`: `in` must give a list, found {render(items)!r}", o.items.mark)
            tmp = dict(loc)
            env.loc = tmp
            if len(o.names) == 1:
                n = o.names[0]
                name = o.name
                for v in items:
                    tmp[n] = v
                    if cond is None or cond(env):
                        append(new(Action, (name, (v,))))
            else:
                for v in items:
                    if not isinstance(v, (list, tuple)) or len(v) != len(o.names):
                        raise ExpressionError(
                            f"option `{o.name}` binds {len(o.names)} names, so each item of `in` must be a list of "
                            f"{len(o.names)} values; found {render(v)!r}",
                            o.mark,
                        )
                    v = tuple(v)
                    tmp.update(zip(o.names, v))
                    if cond is None or cond(env):
                        append(Action(o.name, v))
        if self.merging:
            return merge_identical(tuple(actions), self.merging, st)
        return tuple(actions)

    def run(self, st, loc):
        env = st.env
        env.loc = loc
        if self.by_current:  # `player: current`, the default: read without a call
            players = (st.current,)
        else:
            try:
                player = self.player.fn(env)
            except Exception:  # noqa: BLE001 - re-run checked for the precise error
                player = self.player(env)
            if type(player) is int and 0 <= player < st.num_players:  # one seat: the commonest
                players = (player,)
            else:
                players = self.seats(st, player)
        try:  # as legal(), one call less: every decision runs it
            gen = self.generated
            if gen is not None:
                env.loc = loc
                actions = gen(env)
            else:
                actions = self._legal_fast(st, loc)
        except Exception as exc:  # noqa: BLE001 - re-raised below with the expression's context
            actions = self.relisted(st, loc, exc)
        if not actions:
            self.no_action(st, loc)
            return
        st.pending = (self, loc, actions, players)

    def seats(self, st, player) -> tuple:
        """The deciding seats for ``player``, the value of ``player:`` that is not one seat of the
        game: a list of seats as a tuple.  The generated flow calls it as :meth:`run` does.

        Raises:
            ExpressionError: it is neither a seat nor a non-empty list of seats.
        """
        if type(player) is int and 0 <= player < st.num_players:
            return (player,)
        players = tuple(player) if isinstance(player, (list, tuple)) else (player,)
        if not players or not all(type(x) is int and 0 <= x < st.num_players for x in players):
            raise ExpressionError(
                f"`player` of a decision must be a seat from 0 to {st.num_players - 1} (or a list of seats), "
                f"found {render(player)!r}", self.player.mark)
        return players

    def relisted(self, st, loc, exc: Exception) -> tuple:
        """After the fast listing failed with ``exc``: a budget error as a FlowError naming the
        decision, anything else by listing again through the checked evaluator (the precise
        error, or the actions).  The generated flow (interpreter/engine/flowgen.py) calls it as
        :meth:`run` does.

        Raises:
            FlowError: the listing exhausted the work budget.
            ExpressionError: an expression of the listing failed.
        """
        if isinstance(exc, WorkExceeded):
            raise FlowError(f"listing the actions of decision `{self.name or 'choose'}`: {exc.message}", self.mark) from None
        return self._legal_checked(st, loc)

    def no_action(self, st, loc) -> None:
        """No action is legal: push ``otherwise`` (nothing when it is empty), or raise.

        Raises:
            FlowError: the decision has no ``otherwise``.
        """
        if self.otherwise is not None:
            if self.otherwise.effects:
                st.stack.append((self.otherwise, 0, loc, None))
            return
        raise FlowError(f"decision `{self.name or 'choose'}` has no legal action and no `otherwise`", self.mark)

    def resume(self, st, loc, action: Action) -> None:
        """Continue after ``action`` was taken: push the option's body with its names bound.
        (:meth:`State.apply <interpreter.engine.state.State.apply>` writes this out for a
        ``Choose``: a change here is a change there.)"""
        o = self.by_name[action.name]
        if o.body.effects:
            if o.names:
                loc = dict(loc)
                # values: where the items may hold the state's lists, they were copied when listed
                loc.update(zip(o.names, action.args))
            st.stack.append((o.body, 0, loc, None))

    def label(self, st, loc, action: Action) -> str:
        """The readable text of ``action``."""
        o = self.by_name[action.name]
        env = Env(st, dict(loc))
        env.loc.update(zip(o.names, action.args))
        return o.label(env)


def _merged(listing, merging: frozenset):
    """The generated ``listing(env)`` with identical components' actions merged
    (:func:`merge_identical`)."""

    def legal(env):
        return merge_identical(listing(env), merging, env.state)

    return legal
