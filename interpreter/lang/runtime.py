"""The run time of generated code: the helpers the generated Python calls (its whole namespace,
with the constants bound per function), and the budget errors they raise.

The generator (:mod:`interpreter.lang.codegen`) writes Python source that calls only these
``H_*`` names (and constants it binds itself); the reference evaluator
(:mod:`interpreter.lang.expression`) charges its budgets through the same functions, so both
raise the same errors for the same work.  The split follows Jinja2's ``compiler.py`` (writes
the code) and ``runtime.py`` (what that code calls).

Work budget: ``env.left`` (refilled at every move), charged by :func:`_it` and :func:`_itm` per
loop (the number of items), by ruleset function calls, and by membership tests; below zero
:class:`WorkExceeded` (``limits: {work: N}``).  Memory budget: ``env.mem``, charged with what an
evaluation builds (items of a list, characters of a text); below zero :class:`MemoryExceeded`
(``limits: {memory: N}``).  See the module docstring of :mod:`interpreter.lang.codegen`.
"""

from __future__ import annotations

from typing import Any

from ..errors import ExpressionError, Mark
from ..model import Action, Component, render

# the budgets' errors and charges live with the builtins that charge them too (join, pluralize); re-exported here
from .builtins import MAX_INT_BITS, MAX_ITEMS, MemoryExceeded, WorkExceeded, _charge, _it, _mul, _oom, _over, same  # noqa: F401
from .builtins import _range as _plain_range

__all__ = ["WorkExceeded", "MemoryExceeded", "HELPERS", "template_oom"]

# ---------------------------------------------------------------------------------------------
# Helpers the generated code calls (the whole of its namespace, with the constants)


def template_oom(env, text: str, mark: Mark | None) -> None:
    """Raise the memory budget's error for the template ``text`` at ``mark`` (an
    ExpressionError naming the template and its place)."""
    try:
        _oom(env)
    except MemoryExceeded as exc:
        shown = " ".join(text.split())
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise ExpressionError(f"in template `{shown}`: {exc.message}", mark) from None


def _itm(env, xs):
    """:func:`_it` for a loop whose items become a new list (a list comprehension, ``sorted``,
    ``list``...): ``len(xs)`` charged to the work and the memory budgets alike (for nested loops
    the sum of the charges bounds the list built).  Returns ``xs``."""
    try:
        n = len(xs)
    except TypeError:
        return xs
    env.left -= n
    env.mem -= n
    if env.left < 0:
        _over(env)
    if env.mem < 0:
        _oom(env)
    return xs


def _range(env, *args):
    """``range(...)`` as a list, its length charged to the memory budget before it is built
    (the limits of :func:`interpreter.lang.builtins._range` otherwise)."""
    n = len(range(*args))
    if n <= MAX_ITEMS:
        env.mem -= n
        if env.mem < 0:
            _oom(env)
    return _plain_range(*args)


def _lazy_range(*args):
    """``range(...)`` as the ``for`` of a comprehension iterates it: not built (so not charged
    to memory), with the limits of :func:`interpreter.lang.builtins._range`."""
    r = range(*args)
    if len(r) > MAX_ITEMS:
        raise ValueError(f"range() of {len(r)} numbers; the limit is {MAX_ITEMS}")
    return r


def _mulm(env, a, b):
    """``a * b`` (:func:`interpreter.lang.builtins._mul`), a list or text built charged to memory."""
    r = _mul(a, b)
    t = type(r)
    if t is str or t is list or t is tuple:
        env.mem -= len(r)
        if env.mem < 0:
            _oom(env)
    return r


def _str(env, x):
    """``str(x)``: the text shown for ``x``, its length charged to memory."""
    r = render(x)
    env.mem -= len(r)
    if env.mem < 0:
        _oom(env)
    return r


def _attr(o, name):
    try:
        return o.fields[name]
    except (AttributeError, KeyError):
        if type(o) is dict and name in o:
            return o[name]
        raise


def _mattr(env, o, name):
    if type(o) is Component and name in o.mutable:
        return env.state.props[o.index][name]
    return _attr(o, name)


def _grow(r, env=None):
    """``r``, the result of ``+``, checked: a list or text of at most MAX_ITEMS (charged to
    ``env``'s memory budget when given), a whole number of at most MAX_INT_BITS bits."""
    t = type(r)
    if t is str or t is list or t is tuple:
        if len(r) > MAX_ITEMS:
            raise ValueError(f"a value of {len(r)} items or characters; the limit is {MAX_ITEMS}")
        if env is not None:
            env.mem -= len(r)
            if env.mem < 0:
                _oom(env)
    if t is int and (r > _BIG or r < _NBIG):
        raise ValueError("a whole number of more than 4096 bits; numbers in a game stay smaller")
    return r


_BIG = 1 << MAX_INT_BITS
_NBIG = -_BIG  # bound once (``-_BIG`` builds a 4096-bit number at every use)


def _add(a, b):
    return _grow(a + b)


def _addm(env, a, b):
    return _grow(a + b, env)


def _sub(a, b):
    """``a - b``, a whole number of at most MAX_INT_BITS bits (as ``+``: repeated, a difference
    doubles, ``x - (0 - x)``)."""
    return _grow(a - b)


def _toolong(n):
    raise ValueError(f"a text of more than {MAX_ITEMS} characters; the limit is {MAX_ITEMS}")


def _mod(a, b):
    if type(a) is str:
        raise ValueError("`%` formats no text in the expression language; build text with a template")
    return a % b


def _slice(env, o, lo, hi):
    r = o[lo:hi]
    env.mem -= len(r)
    if env.mem < 0:
        _oom(env)
    return r if type(r) is str else list(r)


def _check_int(v):
    if type(v) is int and (v > _BIG or v < _NBIG):
        raise ValueError("a whole number of more than 4096 bits")
    return v


#: The namespace every generated function starts from (its constants are added per function).
#: Most actions one option of a listing keeps for reuse (see :func:`_act`).
MAX_KEPT_ACTIONS = 4096

#: The classes of the values a listing's kept actions are looked up by: no two values of them
#: are equal unless they are the same value of the same class (``1 == True`` is why bool is not).
_KEPT_KEYS = frozenset({str, int, Component})


def _act(kept: dict, name: str, value: Any) -> Action:
    """``Action(name, (value,))``, kept in ``kept`` by ``value`` (one of :data:`_KEPT_KEYS`'
    classes) while it holds fewer than :data:`MAX_KEPT_ACTIONS`, so that the next listing of the
    option reuses it instead of building it: an action is an immutable tuple, equal to a new one."""
    a = tuple.__new__(Action, (name, (value,)))
    if len(kept) < MAX_KEPT_ACTIONS:
        kept[value] = a
    return a


HELPERS: dict[str, Any] = {
    "H_it": _it,
    "H_itm": _itm,
    "H_range": _range,
    "H_lrange": _lazy_range,
    "H_mulm": _mulm,
    "H_str": _str,
    "H_oom": _oom,
    "H_toobig": template_oom,
    "H_same": same,
    "H_attr": _attr,
    "H_mattr": _mattr,
    "H_add": _addm,
    "H_sub": _sub,
    "H_mod": _mod,
    "H_grow": _grow,
    "H_slice": _slice,
    "H_over": _over,
    "H_render": render,
    "H_toolong": _toolong,
    "MAX_ITEMS": MAX_ITEMS,
    "H_Component": Component,
    "H_Action": Action,
    "H_act": _act,
    "H_prange": range,
    "H_KEPT": _KEPT_KEYS,
    "H_tnew": tuple.__new__,
    "H_tuple": tuple,
    "H_len": len,
    "H_iter": iter,
    "H_zip": zip,
    "H_int": int,
    "H_BIG": _BIG,
    "H_NBIG": _NBIG,
    "TypeError": TypeError,
}
