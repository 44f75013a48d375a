"""The expression language: parse once with Lark (LALR), check and compile.

An expression is a string in a ruleset (``sum(c.hops for c in trash[p])``).  :func:`parse`
turns it into a Lark tree (each distinct text once); :func:`compile_expression` resolves its
names, compiles it to nested closures (the checked reference evaluator, which reports every
error) and has :mod:`interpreter.lang.codegen` write it as a Python function, which is what runs.
Ruleset text never reaches ``eval``/``exec``: the generated source is made from the tree.

Expressions are pure: they read the state through an :class:`Env` and never change it.  Names are
resolved when the expression is compiled (a :class:`Scope` says which local names exist and how
to read global ones), so an unknown name is a load-time error, not a run-time one.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ExpressionError, ExpressionSyntaxError, Mark, TapsterError, close_matches
from ..limits import DEFAULT_MEMORY, DEFAULT_WORK, MAX_EXPRESSION_CHARS, MAX_NESTING
from ..loader.load import MAX_NUMBER_CHARS
from ..model import Component, render
from .builtins import BUILTINS, MAX_INT_BITS, MAX_ITEMS, Builtin, _extent, _mul, same, unescape  # noqa: F401 - re-exported
from .builtins import _range as _plain_range
from .codegen import _NOCONST as _NOCONST_GEN
from .codegen import (
    ALLOCATING,
    WorkExceeded,
    _charge,
    _grow,
    _it,
    _itm,
    _lazy_range,
    _mod,
    _mulm,
    call_arguments,
    generate_expression,
    generate_template,
    range_arguments,
    small_range,
    template_oom,
)
from .codegen import MAX_FOLD_ITEMS as _MAX_FOLD_ITEMS
from .codegen import _range as _charged_range
from .codegen import _str as _charged_str

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
]

_GRAMMAR = Path(__file__).with_name("expression.lark")
_PARSER = None  # a lark.Lark, built on first use (importing Lark costs ~50 ms: not for `import interpreter`)


def _parser():
    global _PARSER
    if _PARSER is None:
        from lark import Lark

        options = {"parser": "lalr", "propagate_positions": True, "maybe_placeholders": True}
        grammar = _GRAMMAR.read_text(encoding="utf-8")
        cache = _parser_cache_path()
        if cache is not None:
            try:  # the grammar's analysis, saved by Lark: ~80 ms once, ~5 ms after
                _PARSER = Lark(grammar, cache=str(cache), **options)
            except Exception:  # noqa: BLE001 - a damaged or unwritable cache: build without it
                _PARSER = None
        if _PARSER is None:
            _PARSER = Lark(grammar, **options)
    return _PARSER


def _parser_cache_path():
    """Where Lark keeps the grammar's analysis: in the user's own cache folder (never a shared
    temporary folder, since Lark's cache is a pickle), or None when there is none."""
    from ..loader.schema import _cache_dir

    d = _cache_dir()
    if d is None:
        return None
    d = d.parent
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    import lark

    return d / f"expression-grammar-lark{lark.__version__}.cache"


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
    """

    __slots__ = ("state", "loc", "zones", "vars", "left", "budget", "mem", "memory")

    def __init__(self, state: Any, loc: dict):
        self.state = state
        self.loc = loc
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

    __slots__ = ("fn", "text", "mark", "constant", "source", "checked_fn")

    def __init__(self, fn: Callable, text: str, mark: Mark | None, constant: Any = None, source: tuple | None = None):
        self.fn = fn
        self.text = text
        self.mark = mark
        self.constant = constant
        self.source = source
        self.checked_fn = None if source is not None else fn

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
            compiler = _Compiler(self.text, self.mark)
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


def _describe(exc: Exception) -> str:
    if isinstance(exc, ZeroDivisionError):
        return "division by zero"
    if isinstance(exc, IndexError):
        return f"index out of range ({exc})"
    if isinstance(exc, KeyError):
        return f"no such key or field {exc}"
    return f"{type(exc).__name__.replace('Error', ' error').strip()}: {exc}"


# ---------------------------------------------------------------------------------------------
# Parsing

#: Common mistakes: (regex on the text, message).  Checked when a parse fails, and run as a test.
COMMON_MISTAKES: list[tuple[str, str]] = [
    (r"&&", "use `and` instead of `&&`"),
    (r"\|\|", "use `or` instead of `||`"),
    (r"(?<![=!<>])=(?!=)", "use `==` to compare; `=` only names a keyword argument"),
    (r"!(?!=)", "use `not` instead of `!`"),
    (r"\bnull\b|\bnil\b", "write `none` for the absence of a value"),
    (r"\belif\b", "there is no `elif`: nest `a if c else (b if d else e)`"),
    (r"\blambda\b", "there is no `lambda`: use a generator such as `max(c.rank for c in zone)`"),
    (r"\?.*:", "there is no `c ? a : b`: write `a if c else b`"),
]


def _mark_in(mark: Mark | None, line: int, column: int) -> Mark | None:
    """The file mark of (line, column) inside an expression that starts at ``mark``."""
    if mark is None:
        return None
    if line <= 1:
        return Mark(mark.file, mark.line, mark.column + column - 1)
    return Mark(mark.file, mark.line + line - 1, column)


def _excerpt(text: str, line: int, column: int) -> str:
    lines = text.splitlines() or [""]
    src = lines[min(line, len(lines)) - 1]
    return f"    {src}\n    {' ' * (column - 1)}^"


#: Grammar nodes that only group their parent's parts (not a level of nesting of their own).
_WRAPPERS = frozenset({"exprs", "pairs", "pair", "args", "comp_clauses", "comp_for", "comp_if", "targets"})


def _shorten(text: str, n: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


def _check_nesting(tree, text: str, mark: Mark | None) -> None:
    """Raise unless ``tree`` nests at most MAX_NESTING levels (checked without recursion)."""
    todo = [(tree, 1)]
    while todo:
        node, depth = todo.pop()
        if not hasattr(node, "data"):  # a token
            continue
        if depth > MAX_NESTING:
            meta = node.meta
            line, column = (meta.line, meta.column) if not meta.empty else (1, 1)
            raise ExpressionSyntaxError(
                f"expression `{_shorten(text)}` nests more than {MAX_NESTING} levels deep (brackets, operators,"
                " calls); simplify it or split it with `let` or a function",
                _mark_in(mark, line, column),
            )
        todo.extend((ch, depth if getattr(ch, "data", None) in _WRAPPERS else depth + 1) for ch in node.children)


#: Parse trees by expression text: each distinct text is parsed once per process (variants and
#: repeated formulas share them; trees are never changed after parsing).
_PARSED: dict[str, Any] = {}
_MAX_PARSED = 100_000
#: The expression texts parsed while a ruleset compiles (set by the compiler), for save_trees.
RECORD: set | None = None


class Node:
    """A node of a parse tree: ``data`` (the rule's name), ``children`` (nodes and tokens),
    ``meta`` (its ``line``/``column`` in the expression).  Parse trees are made of these and
    :class:`Tok` whether they come from Lark or from the tree cache (:func:`preload_trees`)."""

    __slots__ = ("data", "children", "meta")

    def __init__(self, data: str, children: list, meta: Meta):
        self.data, self.children, self.meta = data, children, meta

    def __repr__(self) -> str:
        return f"Node({self.data!r}, {self.children!r})"


class Meta:
    """Where a node starts in its expression (``empty``: no position known)."""

    __slots__ = ("line", "column", "empty")

    def __init__(self, line: int, column: int, empty: bool):
        self.line, self.column, self.empty = line, column, empty


class Tok(str):
    """A token of a parse tree: its text, with ``type``, ``line`` and ``column``."""

    def __new__(cls, type_: str, value: str, line: int, column: int):
        t = super().__new__(cls, value)
        t.type, t.line, t.column = type_, line, column
        return t


def _own(tree) -> Any:
    """A Lark tree as :class:`Node`/:class:`Tok` (without recursion: trees nest 100 deep)."""
    def convert(x):
        if x is None:
            return None
        if hasattr(x, "data"):
            m = x.meta
            empty = getattr(m, "empty", True)
            return Node(str(x.data), [], Meta(getattr(m, "line", 1) if not empty else 1,
                                              getattr(m, "column", 1) if not empty else 1, empty))
        return Tok(str(x.type), str(x), x.line or 1, x.column or 1)

    root = convert(tree)
    todo = [(tree, root)]
    while todo:
        src, dst = todo.pop()
        if not hasattr(src, "data"):
            continue
        for ch in src.children:
            mine = convert(ch)
            dst.children.append(mine)
            if ch is not None and hasattr(ch, "data"):
                todo.append((ch, mine))
    return root


def _to_json(tree) -> Any:
    """A tree as JSON data: a node ``[data, line, column, empty, child...]``, a token
    ``{"t": type, "v": text, "l": line, "c": column}``, a missing optional part ``null``."""
    if tree is None:
        return None
    if isinstance(tree, Node):
        m = tree.meta
        return [tree.data, m.line, m.column, m.empty, *[_to_json(ch) for ch in tree.children]]
    return {"t": tree.type, "v": str(tree), "l": tree.line, "c": tree.column}


def _from_json(data) -> Any:
    if data is None:
        return None
    if isinstance(data, dict):
        return Tok(str(data["t"]), str(data["v"]), int(data["l"]), int(data["c"]))
    return Node(str(data[0]), [_from_json(ch) for ch in data[4:]], Meta(int(data[1]), int(data[2]), bool(data[3])))


def _trees_path(text: str) -> Any:
    """The tree cache file of a ruleset whose text is ``text`` (with the grammar's digest in
    the name), or None without a cache folder."""
    import hashlib

    from ..loader.schema import _cache_dir

    d = _cache_dir()
    if d is None:
        return None
    h = hashlib.sha256(_GRAMMAR.read_bytes())
    h.update(text.encode("utf-8", "surrogatepass"))
    return d.parent / "trees" / f"{h.hexdigest()}.json"


def preload_trees(source_text: str) -> bool:
    """Load the parse trees saved for a ruleset file whose text is ``source_text`` (see
    :func:`save_trees`): its expressions then need neither Lark nor parsing.  False when there
    is no usable cache.  A damaged cache file is ignored (and parsed anew)."""
    import json

    path = _trees_path(source_text)
    if path is None or not path.is_file():
        return False
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        trees = {str(k): _from_json(v) for k, v in data.items()}
    except (OSError, ValueError, TypeError, KeyError, IndexError, RecursionError):
        return False
    for k, v in trees.items():
        if len(_PARSED) < _MAX_PARSED:
            _PARSED.setdefault(k, v)
    return True


def save_trees(source_text: str, texts) -> None:
    """Save the parse trees of ``texts`` (expression texts of one ruleset file) for the next
    run; nothing happens without a cache folder or when it cannot be written."""
    import json

    path = _trees_path(source_text)
    if path is None:
        return
    data = {t: _to_json(_PARSED[t]) for t in texts if t in _PARSED}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
        tmp.replace(path)
    except (OSError, ValueError, RecursionError):
        pass


def parse(text: str, mark: Mark | None = None) -> Any:
    """Parse expression ``text``; ``mark`` is where it stands in its file.

    Returns the Lark tree.  Raises:
        ExpressionSyntaxError: with the mark of the offending character and a caret excerpt.
    """
    if not isinstance(text, str):
        text = str(text)
    if RECORD is not None and len(RECORD) < _MAX_PARSED:
        RECORD.add(text)
    tree = _PARSED.get(text)
    if tree is not None:
        return tree
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ExpressionSyntaxError(
            f"expression `{_shorten(text)}` is {len(text)} characters long; the limit is {MAX_EXPRESSION_CHARS}"
            " (split it with `let` or a function)",
            mark,
        )
    parser = _parser()
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

    try:
        tree = _own(parser.parse(text))
        _check_nesting(tree, text, mark)
        if len(_PARSED) < _MAX_PARSED:
            _PARSED[text] = tree
        return tree
    except UnexpectedInput as exc:
        line, column = exc.line if exc.line > 0 else 1, exc.column if exc.column > 0 else len(text) + 1
        if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
            found = "the end of the expression"
            line, column = 1, len(text) + 1
        elif isinstance(exc, UnexpectedCharacters):
            found = repr(text[exc.pos_in_stream]) if exc.pos_in_stream < len(text) else "end"
        else:
            found = repr(str(exc.token))
        expected = sorted(getattr(exc, "expected", None) or getattr(exc, "allowed", None) or [])
        hint = ""
        for pattern, message in COMMON_MISTAKES:
            if re.search(pattern, text):
                hint = f" ({message})"
                break
        exp = ""
        if expected:
            names = [_TOKEN_NAMES.get(e, e.lower()) for e in expected][:8]
            exp = f"expected {', '.join(names)}; "
        raise ExpressionSyntaxError(
            f"cannot parse expression `{text}`: {exp}found {found}{hint}",
            _mark_in(mark, line, column),
            _excerpt(text, line, column),
        ) from None


_TOKEN_NAMES = {
    "NAME": "a name",
    "NUMBER": "a number",
    "STRING": "a string",
    "RPAR": "`)`",
    "LPAR": "`(`",
    "RSQB": "`]`",
    "LSQB": "`[`",
    "RBRACE": "`}`",
    "COMMA": "`,`",
    "COLON": "`:`",
    "DOT": "`.`",
    "ELSE": "`else`",
    "IN": "`in`",
    "MINUS": "`-`",
    "PLUS": "`+`",
    "STAR": "`*`",
    "SLASH": "`/`",
    "__ANON_0": "a name",
}


# ---------------------------------------------------------------------------------------------
# Compilation

_MISSING = object()

_COMPARE = {
    "<": operator.lt,
    ">": operator.gt,
    "==": operator.eq,
    ">=": operator.ge,
    "<=": operator.le,
    "!=": operator.ne,
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
    "is": same,
    "is not": lambda a, b: not same(a, b),
}


#: Comparisons with a constant on the right, fused into one closure.
_CONST_RIGHT = {
    operator.eq: lambda a, k: lambda env: a(env) == k,
    operator.ne: lambda a, k: lambda env: a(env) != k,
    operator.lt: lambda a, k: lambda env: a(env) < k,
    operator.le: lambda a, k: lambda env: a(env) <= k,
    operator.gt: lambda a, k: lambda env: a(env) > k,
    operator.ge: lambda a, k: lambda env: a(env) >= k,
}

def _static_attr(obj: Any, name: str) -> Any:
    if isinstance(obj, dict):
        if name in obj:
            return obj[name]
        raise ExpressionError(f"the record has no field `{name}` (fields: {', '.join(map(str, obj))})")
    if isinstance(obj, Component):
        raise ExpressionError(
            f"{obj.id} (a {obj.kind}) has no field `{name}` "
            f"(fields: {', '.join(sorted(set(obj.fields) | obj.mutable))})"
        )
    raise ExpressionError(f"{render(obj)!r} has no field `{name}`")


class _Compiler:
    """Compiles a parse tree to closures, each node its own closure with its own checks: the
    reference evaluator.  It reports every compile-time error (unknown names, fields,
    functions, arities) and evaluates an expression again for a precise run-time error."""

    def __init__(self, text: str, mark: Mark | None):
        self.text = text
        self.mark = mark

    def error(self, node, message: str) -> ExpressionSyntaxError:
        meta = getattr(node, "meta", None)
        line = getattr(node, "line", None) or (meta.line if meta and not meta.empty else 1)
        column = getattr(node, "column", None) or (meta.column if meta and not meta.empty else 1)
        from ..errors import CompileError

        return CompileError(
            f"in expression `{self.text}`: {message}",
            _mark_in(self.mark, line, column),
            _excerpt(self.text, line, column),
        )

    # Each compile returns (closure, is_constant, constant_value)
    def c(self, node, scope: Scope) -> Callable:
        if not hasattr(node, "data"):  # a token, not a tree
            raise self.error(node, f"unexpected {node!r}")
        method = getattr(self, "c_" + node.data.rstrip("_"), None)
        if method is None:  # pragma: no cover - grammar and compiler out of step
            raise self.error(node, f"internal: no compiler for {node.data}")
        return method(node, scope)

    # literals ----------------------------------------------------------------------------
    def c_number(self, node, scope):
        text = node.children[0]
        if len(text) > MAX_NUMBER_CHARS:
            raise self.error(node.children[0], f"a number of {len(text)} digits; the limit is {MAX_NUMBER_CHARS}"
                             f" (whole numbers of at most {MAX_INT_BITS} bits)")
        value = float(text) if "." in text else int(text)
        return _const(value)

    def c_string(self, node, scope):
        return _const(unescape(node.children[0][1:-1]))

    def c_true(self, node, scope):
        return _const(True)

    def c_false(self, node, scope):
        return _const(False)

    def c_none(self, node, scope):
        return _const(None)

    def c_list(self, node, scope):
        items = self._exprs(node.children[0], scope)
        if not items:
            return lambda env: []
        if all(hasattr(f, "constant") for f in items):  # a constant, as generated code binds it
            return _const([f.constant for f in items])
        return lambda env: [f(env) for f in items]

    def c_tuple(self, node, scope):
        first = self.c(node.children[0], scope)
        rest = self._exprs(node.children[1], scope)
        items = [first, *rest]
        return lambda env: tuple(f(env) for f in items)

    def c_dict(self, node, scope):
        pairs = []
        if node.children[0] is not None:
            for pair in node.children[0].children:
                pairs.append((self.c(pair.children[0], scope), self.c(pair.children[1], scope)))
        return lambda env: {k(env): v(env) for k, v in pairs}

    def _exprs(self, node, scope) -> list:
        if node is None:
            return []
        return [self.c(ch, scope) for ch in node.children if ch is not None]

    # names -------------------------------------------------------------------------------
    def c_name(self, node, scope):
        name = str(node.children[0])
        if name in scope.locals:
            def local(env):
                try:
                    return env.loc[name]
                except KeyError:
                    raise ExpressionError(f"`{name}` has no value here") from None

            local.local = name  # lets operators read the name without a call
            return local
        getter = scope.resolve(name)
        if getter is not None:
            return getter
        if name in scope.functions or name in BUILTINS:
            raise self.error(node.children[0], f"`{name}` is a function: call it as `{name}(...)`")
        candidates = list(scope.locals) + list(scope.global_names())
        close = close_matches(name, candidates, n=3)
        hint = f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""
        tok = node.children[0]
        line, col = getattr(tok, "line", None), getattr(tok, "column", None)
        dashed = None
        if isinstance(line, int) and isinstance(col, int):
            end = sum(len(t) + 1 for t in self.text.split("\n")[: line - 1]) + col - 1 + len(name)
            dashed = re.match(r"(?:-[A-Za-z0-9_]+)+", self.text[end:])
        if dashed:  # `route-r22`: a component id written as a name
            hint = f"; a component is named by its id in quotes: `component('{name}{dashed.group(0)}')`"
        raise self.error(tok, f"unknown name `{name}`{hint}")

    # operators ---------------------------------------------------------------------------
    def c_ternary(self, node, scope):
        a, cond, b = (self.c(ch, scope) for ch in node.children)
        return lambda env: a(env) if cond(env) else b(env)

    def c_or(self, node, scope):
        a, b = (self.c(ch, scope) for ch in node.children)
        return lambda env: a(env) or b(env)

    def c_and(self, node, scope):
        a, b = (self.c(ch, scope) for ch in node.children)
        return lambda env: a(env) and b(env)

    def c_not(self, node, scope):
        a = self.c(node.children[0], scope)
        return lambda env: not a(env)

    def c_compare(self, node, scope):
        children = node.children
        operands = [self.c(children[0], scope)]
        ops = []
        for i in range(1, len(children), 2):
            op = " ".join(str(t) for t in children[i].children)
            ops.append(_COMPARE[op])
            lazy = self._lazy_range(children[i + 1], scope) if op in ("in", "not in") else None
            operands.append(lazy or self.c(children[i + 1], scope))
        if len(ops) == 1:
            op, a, b = ops[0], operands[0], operands[1]
            k = getattr(b, "constant", _MISSING) if hasattr(b, "constant") else _MISSING
            if k is not _MISSING and op in _CONST_RIGHT:
                return _CONST_RIGHT[op](a, k)
            if op is operator.eq:
                return lambda env: a(env) == b(env)
            if op is operator.lt:
                return lambda env: a(env) < b(env)
            if op is operator.gt:
                return lambda env: a(env) > b(env)
            return lambda env: op(a(env), b(env))
        if len(ops) == 2:
            op1, op2 = ops
            a, b, c = operands

            def chain2(env):
                middle = b(env)
                return op1(a(env), middle) and op2(middle, c(env))

            return chain2

        def chain(env):
            left = operands[0](env)
            for op, f in zip(ops, operands[1:]):
                right = f(env)
                if not op(left, right):
                    return False
                left = right
            return True

        return chain

    def _lazy_range(self, node, scope) -> Callable | None:
        """``range(...)`` where it is only iterated or searched, not built (no memory charged),
        as the generated code does (see ``_Gen.lazy_range``); None when ``node`` is no such call
        or its arguments are constants."""
        rargs = range_arguments(node, scope)
        if rargs is None:
            return None
        fns = [self.c(a, scope) for a in rargs]
        if all(hasattr(f, "constant") for f in fns) and small_range([f.constant for f in fns]):
            return None
        return lambda env: _lazy_range(*[f(env) for f in fns])

    def _binop(self, node, scope, fn):
        a, b = (self.c(ch, scope) for ch in node.children)
        return lambda env: fn(a(env), b(env))

    def c_add(self, node, scope):
        a, b = (self.c(ch, scope) for ch in node.children)
        return lambda env: _grow(a(env) + b(env), env)  # text and lists checked for size and charged, as generated code does

    def c_sub(self, node, scope):
        a, b = (self.c(ch, scope) for ch in node.children)
        return lambda env: a(env) - b(env)

    def c_mul(self, node, scope):
        a, b = (self.c(ch, scope) for ch in node.children)
        return lambda env: _mulm(env, a(env), b(env))  # a list or text built charged to memory

    def c_div(self, node, scope):
        return self._binop(node, scope, operator.truediv)

    def c_floordiv(self, node, scope):
        return self._binop(node, scope, operator.floordiv)

    def c_mod(self, node, scope):
        return self._binop(node, scope, _mod)

    def c_pow(self, node, scope):
        def power(x, y):
            if isinstance(y, (int, float)) and abs(y) > 64:
                raise ValueError("exponent too large")
            if type(x) is int and type(y) is int and x.bit_length() * y > MAX_INT_BITS:
                raise ValueError(f"the power has more than {MAX_INT_BITS} bits; numbers in a game stay smaller")
            r = x**y
            if type(r) is complex:  # (-8) ** 0.5: not a number a game can hold (or save)
                raise ValueError(f"{render(x)} ** {render(y)} is not a real number")
            return r

        return self._binop(node, scope, power)

    def c_neg(self, node, scope):
        a = self.c(node.children[0], scope)
        return lambda env: -a(env)

    def c_pos(self, node, scope):
        a = self.c(node.children[0], scope)
        return lambda env: +a(env)

    # access ------------------------------------------------------------------------------
    def c_attr(self, node, scope):
        obj = self.c(node.children[0], scope)
        name_tok = node.children[1]
        name = str(name_tok)
        if scope.attributes is not None and name not in scope.attributes:
            close = close_matches(name, sorted(scope.attributes), n=3)
            hint = f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""
            raise self.error(name_tok, f"no component or record has a field `{name}`{hint}")
        if name in scope.mutable:
            def mutable_attr(env):
                o = obj(env)
                if type(o) is Component and name in o.mutable:
                    return env.state.props[o.index][name]
                try:
                    return o.fields[name]
                except (AttributeError, KeyError):
                    return _static_attr(o, name)

            return mutable_attr

        def attr(env):
            o = obj(env)
            try:
                return o.fields[name]
            except (AttributeError, KeyError):
                return _static_attr(o, name)

        return attr

    def c_index(self, node, scope):
        # Fold chains such as `flight[p][i]` into one closure (one call instead of nested ones).
        chain = []
        base = node
        while getattr(base, "data", None) == "index" and len(chain) < 3:
            chain.append(base.children[1])
            base = base.children[0]
        chain.reverse()
        obj = self.c(base, scope)
        idx = [self.c(ch, scope) for ch in chain]
        consts = [getattr(f, "constant", _MISSING) if hasattr(f, "constant") else _MISSING for f in idx]
        if len(idx) == 1:
            (i0,) = idx
            if consts[0] is not _MISSING and type(consts[0]) is int:
                k = consts[0]
                return lambda env: obj(env)[k]
            return lambda env: obj(env)[i0(env)]
        if len(idx) == 2:
            i0, i1 = idx
            return lambda env: obj(env)[i0(env)][i1(env)]
        i0, i1, i2 = idx
        return lambda env: obj(env)[i0(env)][i1(env)][i2(env)]

    def c_slice(self, node, scope):
        obj = self.c(node.children[0], scope)
        lo = self.c(node.children[1], scope) if node.children[1] is not None else (lambda env: None)
        hi = self.c(node.children[2], scope) if node.children[2] is not None else (lambda env: None)
        def slice_(env):
            o = obj(env)[lo(env) : hi(env)]
            _charge(env, len(o))
            return o if type(o) is str else list(o)  # text slices stay text

        return slice_

    # calls -------------------------------------------------------------------------------
    def _function(self, name_tok) -> Builtin:
        name = str(name_tok)
        fn = scope_functions = self._scope_functions.get(name) if self._scope_functions else None
        del scope_functions
        if fn is None:
            fn = BUILTINS.get(name)
        if fn is None:
            names = sorted(set(BUILTINS) | set(self._scope_functions or ()))
            close = close_matches(name, names, n=3)
            hint = f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""
            raise self.error(name_tok, f"unknown function `{name}`{hint}")
        return fn

    def _call(self, name_tok, builtin: Builtin, args: list, kwargs: dict, charged: bool = False):
        lo, hi = builtin.arity
        n = len(args)
        if n < lo or (hi is not None and n > hi):
            want = f"{lo}" if lo == hi else (f"{lo} or more" if hi is None else f"{lo} to {hi}")
            raise self.error(name_tok, f"`{name_tok}` takes {want} argument(s), got {n}")
        fn = builtin.fn
        # The memory budget, charged as the generated code charges it (see interpreter.lang.codegen).
        name = str(name_tok)
        if BUILTINS.get(name) is builtin and not kwargs:
            if name == "range":
                if all(hasattr(a, "constant") for a in args) and small_range([a.constant for a in args]):
                    return _const(_plain_range(*[a.constant for a in args]))  # folded, as generated code does
                return lambda env: _charged_range(env, *[a(env) for a in args])
            if name == "str":
                a0 = args[0]
                return lambda env: _charged_str(env, a0(env))
        if BUILTINS.get(name) is builtin and name in ALLOCATING and not charged:
            first, rest = args[0], args[1:]
            k = getattr(first, "constant", _MISSING) if hasattr(first, "constant") else _MISSING
            small = k is not _MISSING and (not hasattr(k, "__len__") or len(k) <= _MAX_FOLD_ITEMS)
            if not small:
                args = [lambda env: _itm(env, first(env)), *rest]
        if builtin.needs_env:
            if kwargs:
                return lambda env: fn(env, *[a(env) for a in args], **{k: v(env) for k, v in kwargs.items()})
            if n == 1:
                a0 = args[0]
                return lambda env: fn(env, a0(env))
            if n == 2:
                a0, a1 = args
                return lambda env: fn(env, a0(env), a1(env))
            return lambda env: fn(env, *[a(env) for a in args])
        if kwargs:
            return lambda env: fn(*[a(env) for a in args], **{k: v(env) for k, v in kwargs.items()})
        if n == 0:
            return lambda env: fn()
        if n == 1:
            a0 = args[0]
            return lambda env: fn(a0(env))
        if n == 2:
            a0, a1 = args
            return lambda env: fn(a0(env), a1(env))
        return lambda env: fn(*[a(env) for a in args])

    def c_call(self, node, scope):
        self._scope_functions = scope.functions
        name_tok, argnode = node.children
        builtin = self._function(name_tok)
        positional, keywords, misplaced = call_arguments(argnode)
        if misplaced is not None:
            raise self.error(misplaced, "a positional argument cannot follow a keyword argument")
        args = [self.c(ch, scope) for ch in positional]
        kwargs = {k: self.c(v, scope) for k, v in keywords}
        return self._call(name_tok, builtin, args, kwargs)

    def c_call_gen(self, node, scope):
        self._scope_functions = scope.functions
        name_tok, elt, clauses = node.children
        builtin = self._function(name_tok)
        alloc = str(name_tok) in ALLOCATING and BUILTINS.get(str(name_tok)) is builtin
        gen = self._comprehension(elt, clauses, scope, alloc)
        return self._call(name_tok, builtin, [gen], {}, charged=True)

    def c_listcomp(self, node, scope):
        elt, clauses = node.children
        return self._comprehension(elt, clauses, scope, True)

    def _comprehension(self, elt_node, clauses_node, scope, alloc: bool = False):
        """The comprehension's list; ``alloc``: its items are kept (a list comprehension, the
        generator of ``sorted``...), so each loop charges memory too, as generated code does
        (a single loop over a small constant charges nothing)."""
        single = sum(1 for c in clauses_node.children if c.data == "comp_for") == 1
        steps = []
        names: list[str] = []
        inner = scope
        for clause in clauses_node.children:
            if clause.data == "comp_for":
                targets = [str(t) for t in clause.children[0].children]
                it = self._lazy_range(clause.children[1], inner) or self.c(clause.children[1], inner)
                if alloc:
                    k = getattr(it, "constant", _MISSING) if hasattr(it, "constant") else _MISSING
                    if not (single and k is not _MISSING and hasattr(k, "__len__") and len(k) <= _MAX_FOLD_ITEMS):
                        it = _charging(it)
                inner = inner.with_locals(targets)
                names.extend(targets)
                steps.append(("for", targets, it))
            else:
                steps.append(("if", None, self.c(clause.children[0], inner)))
        elt = self.c(elt_node, inner)
        names = list(dict.fromkeys(names))

        # Fast path: one `for` over a single name, at most one `if`.
        if len(steps) <= 2 and steps[0][0] == "for" and len(steps[0][1]) == 1 and all(
            s[0] == "if" for s in steps[1:]
        ):
            target, it = steps[0][1][0], steps[0][2]
            cond = steps[1][2] if len(steps) == 2 else None
            def comp(env):
                loc = env.loc
                old = loc.get(target, _MISSING)
                out = []
                try:
                    if cond is None:
                        for v in _it(env, it(env)):
                            loc[target] = v
                            out.append(elt(env))
                    else:
                        for v in _it(env, it(env)):
                            loc[target] = v
                            if cond(env):
                                out.append(elt(env))
                finally:
                    if old is _MISSING:
                        loc.pop(target, None)
                    else:
                        loc[target] = old
                return out

            return comp

        def build(i):
            if i == len(steps):
                return lambda env, out: out.append(elt(env))
            kind, targets, fn = steps[i]
            nxt = build(i + 1)
            if kind == "if":
                def when(env, out):
                    if fn(env):
                        nxt(env, out)

                return when
            if len(targets) == 1:
                t = targets[0]

                def loop1(env, out):
                    loc = env.loc
                    for v in _it(env, fn(env)):
                        loc[t] = v
                        nxt(env, out)

                return loop1

            def loopn(env, out):
                loc = env.loc
                for v in _it(env, fn(env)):
                    if len(v) != len(targets):
                        raise ValueError(f"cannot unpack {len(v)} values into {len(targets)} names")
                    for t, x in zip(targets, v):
                        loc[t] = x
                    nxt(env, out)

            return loopn

        body = build(0)

        def comp_general(env):
            loc = env.loc
            saved = [(n, loc.get(n, _MISSING)) for n in names]
            out = []
            try:
                body(env, out)
            finally:
                for n, old in saved:
                    if old is _MISSING:
                        loc.pop(n, None)
                    else:
                        loc[n] = old
            return out

        return comp_general


def _charging(it: Callable) -> Callable:
    """The loop's iterable charged to the memory budget as well (a comprehension that keeps its
    items); the work budget is charged by the loop's own ``_it``, so only memory here."""

    def charged(env):
        xs = it(env)
        try:
            n = len(xs)
        except TypeError:
            return xs
        _charge(env, n)
        return xs

    return charged


def _const(value):
    f = lambda env: value  # noqa: E731
    f.constant = value  # type: ignore[attr-defined]
    return f


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


def _operand(f: Callable) -> tuple:
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


def compile_expression(text: Any, scope: Scope, mark: Mark | None = None) -> Compiled:
    """Parse and compile ``text`` for ``scope``.

    A non-string YAML scalar (a number, a boolean) compiles to a constant.

    Raises:
        ExpressionSyntaxError: the text does not parse.
        CompileError: an unknown name, function or field, or a wrong number of arguments.
    """
    if isinstance(text, bool) or text is None or isinstance(text, (int, float)):
        value = text
        return Compiled(_const(value), repr(text), mark, constant=value)
    if not isinstance(text, str):
        from ..errors import CompileError

        raise CompileError(f"expected an expression, found {type(text).__name__}", mark)
    tree = parse(text, mark)
    compiler = _Compiler(text, mark)
    compiler._scope_functions = scope.functions
    try:
        checked = compiler.c(tree, scope)  # the reference evaluator; reports unknown names and arities
    except RecursionError:
        raise ExpressionSyntaxError(f"expression `{_shorten(text)}` nests too deeply", mark) from None
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
