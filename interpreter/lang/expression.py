"""The expression language: parse once with Lark (LALR), check and compile.

An expression is a string in a ruleset (``sum(c.hops for c in trash[p])``).  :func:`parse`
turns it into a Lark tree (each distinct text once); :func:`compile_expression` resolves its
names, compiles it to nested closures (the checked reference evaluator, which reports every
error) and has :mod:`interpreter.lang.codegen` write it as a Python function, which is what runs.
Ruleset text never reaches ``eval``/``exec``: the generated source is made from the tree.

Expressions are pure: they read the state through an :class:`Env` and never change it.  Names are
resolved when the expression is compiled (a :class:`Scope` says which local names exist and how
to read global ones), so an unknown name is a load-time error, not a run-time one.

This module is the language's front door: :func:`compile_expression`, :func:`compile_template`
and :class:`Compiled` (a compiled expression: the generated function, and the checked one for
precise errors).  The parts live by concern: :mod:`.parser` (text to tree), :mod:`.scope`
(:class:`Scope`, :class:`Env`: name resolution and what an expression reads),
:mod:`.evaluator` (the reference evaluator), :mod:`.codegen` (the generated code) and
:mod:`.builtins` (the functions); their public names are re-exported here, as before.

Imports: those modules of this package, the roots (errors, limits) and the model's ``render``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..errors import CompileError, ExpressionError, ExpressionSyntaxError, Mark, TapsterError
from ..model import render
from . import parser
from .builtins import BUILTINS, MAX_ITEMS, Builtin
from .codegen import _NOCONST as _NOCONST_GEN
from .codegen import WorkExceeded, generate_expression, generate_template, template_oom
from .evaluator import Evaluator, const
from .parser import COMMON_MISTAKES, Node, parse, preload_trees, save_trees, shorten
from .scope import Env, FunctionBody, Scope, operand, state_reader

__all__ = [
    "Env",
    "Scope",
    "Builtin",
    "FunctionBody",
    "BUILTINS",
    "COMMON_MISTAKES",
    "parse",
    "compile_expression",
    "compile_template",
    "Compiled",
    "Node",
    "state_reader",
    "preload_trees",
    "save_trees",
]

#: Names other modules read here under their names before the split: interpreter/engine/flow.py
#: (``_operand``), tests/lang/test_codegen.py (the tree cache).
_operand = operand
_PARSED, _to_json, _trees_path = parser._PARSED, parser._to_json, parser._trees_path


class Compiled:
    """A compiled expression: call it with an :class:`Env`.

    Run-time failures become :class:`ExpressionError` naming the expression text and its mark.
    ``fn`` is the raw closure (no error wrapping) for hot paths that wrap errors themselves:
    on any exception from ``fn`` they call the Compiled itself, which re-runs the evaluation
    (expressions are pure) to raise the precise error.

    ``fn`` is the generated function (:mod:`interpreter.lang.codegen`) where there is one, else the
    checked closure.  Its errors can be imprecise (a KeyError for an unbound name), so a
    failing evaluation is re-run through ``checked_fn``, the *checked* compilation (every node
    its own closure with its own checks, the reference evaluator); both compute the same
    values in the same order.  ``source`` is (the parse tree, the :class:`Scope`).
    """

    __slots__ = ("fn", "text", "mark", "constant", "source", "checked_fn", "_shares", "_items_shares")

    def __init__(self, fn: Callable, text: str, mark: Mark | None, constant: Any = None, source: tuple | None = None):
        self.fn = fn
        self.text = text
        self.mark = mark
        self.constant = constant
        self.source = source
        self.checked_fn = None if source is not None else fn
        self._shares = self._items_shares = None

    @property
    def shares_state(self) -> bool:
        """Whether a value of this expression may be, or hold, a list or record that the state
        changes in place (:func:`shares_state`, worked out once): a place that keeps the value
        past the moment it is made (a local name, a loop's items, a procedure's or trigger's
        parameter) takes a snapshot of it."""
        shares = self._shares
        if shares is None:
            shares = self._shares = self.source is not None and shares_state(*self.source)
        return shares

    @property
    def items_share_state(self) -> bool:
        """Whether an item of this expression's value may be, or hold, a list or record that
        the state changes in place (:func:`shares_state` with ``items``): what a loop's items, an
        option's values and a ``random`` pick keep."""
        shares = self._items_shares
        if shares is None:
            shares = self._items_shares = self.source is not None and shares_state(*self.source, items=True)
        return shares

    def __call__(self, env: Env) -> Any:
        try:
            return self.fn(env)
        except WorkExceeded as exc:
            raise ExpressionError(f"in expression `{self.text}`: {exc.message}", self.mark) from None
        except TapsterError as exc:
            if exc.mark is not None:  # an inner expression's precise error: the checked run gives the same
                raise
            return self.checked(env)
        except Exception:  # noqa: BLE001 - re-run through the checked compilation for the precise error
            return self.checked(env)

    def checked(self, env: Env) -> Any:
        """Evaluate through the checked compilation; failures become precise ExpressionErrors."""
        fn = self.checked_fn
        if fn is None:
            tree, scope = self.source
            compiler = Evaluator(self.text, self.mark)
            compiler._scope_functions = scope.functions
            fn = self.checked_fn = compiler.c(tree, scope)
        # The run that failed already charged the memory budget for what it built (and freed):
        # the checked run repeats it with the whole budget, and what it builds is then charged
        # to what was left (so that a repeat never turns the first error into a budget error).
        before = getattr(env, "mem", None)
        if before is not None:
            env.mem = env.memory
        try:
            return fn(env)
        except ExpressionError as exc:
            if exc.mark is None:  # raised inside, without context: add the expression's
                raise ExpressionError(f"in expression `{self.text}`: {exc.message}", self.mark) from None
            raise
        except TapsterError:
            raise
        except (ArithmeticError, LookupError, TypeError, ValueError, AttributeError) as exc:
            raise ExpressionError(
                f"in expression `{self.text}`: {_describe(exc)}", self.mark
            ) from None
        except RecursionError:
            raise ExpressionError(f"in expression `{self.text}`: nested too deeply", self.mark) from None
        finally:
            if before is not None:
                env.mem = before - (env.memory - env.mem)

    def __repr__(self) -> str:
        return f"Compiled({self.text!r})"


def shares_state(tree: Any, scope: Scope, items: bool = False) -> bool:
    """Whether the value of the expression ``tree`` (compiled in ``scope``) may be, or hold, a
    container that the state changes in place, as opposed to a value nothing changes; with
    ``items``, whether one of its items may (a loop's items, an option's values, a ``random``
    pick: the list itself is not kept).

    The state changes in place only its zones' lists (and a keyed zone's dict), a variable's
    own list or record (``set: {"x[i]": ...}`` and ``add`` replace an item of it; the values
    inside are replaced, never changed) and the turn counts (``turns_taken``).  So a value may
    share one only if the expression reads a zone (``hand``, ``flight[p]``; but the items of a
    zone's own list are components), a variable whole (``x``, ``[x]``, ``x or y``; but not
    ``x[p]``, ``x[1:]`` or ``x + [1]``, made of its items, which are values) or ``turns_taken``,
    or calls a ruleset function whose body does (its parameters are the caller's arguments,
    read here); and not where the value is a number, a truth or a text (a comparison, ``len``...),
    an index (``[...]``'s key) or a comprehension's condition.  Local names hold snapshots (this
    is what keeps them so); parameters and maps are constants.  A "no" is certain; a "yes" only
    means the binding takes a snapshot (:func:`interpreter.engine.places.snapshot`).
    """
    return (_items_share if items else _shares)(tree, scope, {}, {})


def _shares(node: Any, scope: Scope, bound: dict, functions: dict) -> bool:
    """:func:`shares_state` of ``node``; ``bound``: the comprehension names around it, each
    with whether it may share (an item of what it runs over)."""
    data = getattr(node, "data", None)
    if data is None or data in _TRUTHS:  # a token, an absent optional part; a comparison's true or false
        return False
    kids = node.children
    if data in _ARITHMETIC:  # a number, or a new list or text of the operands' items
        return any(_items_share(k, scope, bound, functions) for k in kids)
    if data in ("call", "call_gen"):
        builtin = _builtin(kids[0], scope)
        if builtin in _SCALAR_BUILTINS:
            return False  # a number, a truth or a text
        if builtin in _ITEM_BUILTINS or builtin in _PICK_BUILTINS:  # a new list of the argument's items, or one of them
            if data == "call_gen":
                return _comprehension(kids[1], kids[2], scope, bound, functions)
            args = kids[1].children if kids[1] is not None else ()
            if len(args) == 1 or builtin in _ITEM_BUILTINS:  # (sorted's `reverse` is a truth)
                return _items_share(args[0], scope, bound, functions)
    if data == "name":
        name = str(kids[0])
        if name in bound:
            return bound[name]
        if name in scope.locals:
            return False
        reads = getattr(scope.resolve(name), "reads", None)
        return name == "turns_taken" or (reads is not None and reads[0] in ("zone", "var"))
    if data in ("index", "attr", "slice"):  # an item (or items) of the base; the index is only a key
        return _items_share(kids[0], scope, bound, functions)
    if data in ("listcomp", "call_gen"):
        *head, elt, clauses = kids
        if _comprehension(elt, clauses, scope, bound, functions):
            return True
        kids = head  # the function's name (call_gen), whose body is read below
        data = "call" if head else data
    if data == "call":
        body = getattr(scope.functions.get(str(kids[0])), "body", None)
        if body is not None:
            key = id(body)
            if key not in functions:
                functions[key] = False  # a recursive call shares what the rest of the body shares
                functions[key] = _shares(body.tree, body.scope, {}, functions)
            if functions[key]:
                return True
        kids = kids[1:]
    elif data == "kwarg":
        kids = kids[1:]
    return any(_shares(k, scope, bound, functions) for k in kids)


def _items_share(node: Any, scope: Scope, bound: dict, functions: dict) -> bool:
    """Whether an item of ``node``'s value may be, or hold, a container the state changes."""
    data = getattr(node, "data", None)
    kids = getattr(node, "children", None)
    if data == "name" or data == "index":
        base, indexes = node, 0
        while getattr(base, "data", None) == "index":
            base, indexes = base.children[0], indexes + 1
        if getattr(base, "data", None) == "name":
            name = str(base.children[0])
            if name not in bound and name not in scope.locals:
                reader = scope.resolve(name)
                reads = getattr(reader, "reads", None)
                if reads is not None and reads[0] == "var":
                    return False  # a variable's items, and theirs, are values
                depth = getattr(reader, "depth", None)  # a zone: the indexes to one of its lists
                if depth is not None and indexes >= max(depth, 1 if depth < 0 else 0):
                    return False  # the items of a zone's own list are components
                if reads is None and data == "name":
                    return False  # a constant, the seats or the turn counts: no zone or variable in them
    elif data in ("list", "tuple"):
        return any(_shares(k, scope, bound, functions) for k in (kids[-1].children if kids and kids[-1] is not None else ())
                   ) or (data == "tuple" and _shares(kids[0], scope, bound, functions))
    elif data == "listcomp":
        return _comprehension(kids[0], kids[1], scope, bound, functions)
    elif data == "add":
        return any(_items_share(k, scope, bound, functions) for k in kids)
    elif data == "call" and _builtin(kids[0], scope) in _ITEM_BUILTINS and kids[1] is not None:
        return _items_share(kids[1].children[0], scope, bound, functions)
    elif data == "call_gen" and _builtin(kids[0], scope) in _ITEM_BUILTINS:
        return _comprehension(kids[1], kids[2], scope, bound, functions)
    return _shares(node, scope, bound, functions)


def _comprehension(elt: Any, clauses: Any, scope: Scope, bound: dict, functions: dict) -> bool:
    """Whether the items of a comprehension (its ``elt`` values) may share: each name it binds
    may if an item of what it runs over may; its conditions give truths only."""
    for clause in clauses.children:
        if clause.data == "comp_for":
            shares = _items_share(clause.children[1], scope, bound, functions)
            bound = {**bound, **{str(t): shares for t in clause.children[0].children}}
    return _shares(elt, scope, bound, functions)


def _builtin(name_tok: Any, scope: Scope) -> str | None:
    """The name of the builtin a call calls (None for a ruleset function)."""
    name = str(name_tok)
    return name if scope.functions.get(name) is None and name in BUILTINS else None


#: What gives a truth (comparisons, `not`) or a constant, and the operators that give a number
#: or a new list or text of their operands' items; the builtins whose value is a number, a
#: truth or a text, and those whose value is a new list of their argument's items.
_TRUTHS = frozenset(("compare", "not_", "true", "false", "none", "number", "string"))
_ARITHMETIC = frozenset(("add", "sub", "mul", "div", "floordiv", "mod", "neg", "pos", "pow"))
_SCALAR_BUILTINS = frozenset(("abs", "all", "any", "ceil", "count", "floor", "index", "int", "join", "len", "pluralize", "round",
                              "sign", "str"))
_ITEM_BUILTINS = frozenset(("list", "sorted", "reversed", "distinct"))
_PICK_BUILTINS = frozenset(("first", "last", "top", "bottom", "min", "max"))  # of one list: one of its items


def _describe(exc: Exception) -> str:
    if isinstance(exc, ZeroDivisionError):
        return "division by zero"
    if isinstance(exc, IndexError):
        return f"index out of range ({exc})"
    if isinstance(exc, KeyError):
        return f"no such key or field {exc}"
    return f"{type(exc).__name__.replace('Error', ' error').strip()}: {exc}"


def compile_expression(text: Any, scope: Scope, mark: Mark | None = None) -> Compiled:
    """Parse and compile ``text`` for ``scope``.

    A non-string YAML scalar (a number, a boolean) compiles to a constant.

    Raises:
        ExpressionSyntaxError: the text does not parse.
        CompileError: an unknown name, function or field, or a wrong number of arguments.
    """
    if isinstance(text, bool) or text is None or isinstance(text, (int, float)):
        value = text
        return Compiled(const(value), repr(text), mark, constant=value)
    if not isinstance(text, str):
        raise CompileError(f"expected an expression, found {type(text).__name__}", mark)
    tree = parse(text, mark)
    compiler = Evaluator(text, mark)
    compiler._scope_functions = scope.functions
    try:
        checked = compiler.c(tree, scope)  # the reference evaluator; reports unknown names and arities
    except RecursionError:
        raise ExpressionSyntaxError(f"expression `{shorten(text)}` nests too deeply", mark) from None
    if hasattr(checked, "constant") or hasattr(checked, "reads") or hasattr(checked, "local"):
        fn, constant = checked, getattr(checked, "constant", None)  # a plain name or constant: nothing to gain
    else:
        generated = generate_expression(tree, scope, text, mark, scope.codegen)
        if generated is None:
            fn, constant = checked, None
        else:
            fn, value = generated
            constant = None if value is _NOCONST_GEN else value
    c = Compiled(fn, text, mark, constant=constant, source=(tree, scope))
    c.checked_fn = checked
    return c


_TEMPLATE_PART = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")


def compile_template(text: str, scope: Scope, mark: Mark | None = None) -> Callable[[Env], str]:
    """Compile a text template: ``{expr}`` parts are expressions, ``{{``/``}}`` literal braces.

    Returns ``f(env) -> str``; values are shown with :func:`interpreter.model.render`.

    Raises:
        ExpressionSyntaxError, CompileError: as :func:`compile_expression`, for a part.
    """
    if not isinstance(text, str):
        text = render(text)
    parts: list = []
    pos = 0
    seen: dict[str, Compiled] = {}  # each distinct part compiled once (`{n}` written 1,000 times: once)
    for m in _TEMPLATE_PART.finditer(text):
        if m.start() > pos:
            parts.append(text[pos : m.start()])
        token = m.group(0)
        if token == "{{":
            parts.append("{")
        elif token == "}}":
            parts.append("}")
        else:
            part = seen.get(m.group(1))
            if part is None:  # its first occurrence: the one a failing evaluation reaches first
                inner_mark = mark.shifted(m.start(1)) if mark else None
                part = seen[m.group(1)] = compile_expression(m.group(1), scope, inner_mark)
            parts.append(part)
        pos = m.end()
    if pos < len(text):
        parts.append(text[pos:])
    if all(isinstance(p, str) for p in parts):
        constant = "".join(parts)
        return lambda env: constant
    generated = generate_template(parts, mark, text)
    if generated is not None:
        return generated

    def template(env):
        out = []
        n = 0
        for p in parts:
            t = p if type(p) is str else render(p(env))
            n += len(t)
            if n > MAX_ITEMS:
                raise ValueError(f"a text of more than {MAX_ITEMS} characters; the limit is {MAX_ITEMS}")
            out.append(t)
        env.mem -= n  # the text built, as the generated template charges it
        if env.mem < 0:
            template_oom(env, text, mark)
        return "".join(out)

    return template
