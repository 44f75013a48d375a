"""The code generator: a ruleset's expressions, templates, ruleset functions and decisions' legal
action listings become Python source, compiled once at load.

This module holds the entry points (:func:`generate_expression`, :func:`generate_template`,
:func:`generate_legal`, :class:`FunctionTable`) and compiles what the forms write: the
expression forms are in :mod:`interpreter.lang.genexpr`, the statement forms in
:mod:`interpreter.lang.genstmt`, the fragments, namespace and inferred bounds they share in
:mod:`interpreter.lang.frags`.

Why: a tree of closures costs one Python call per syntax node per item; generated source runs
as one Python function, with comprehensions as Python's own comprehensions, names bound by
``for`` as Python locals, and loops over constant collections unrolled
(``any(all(board[i] == current for i in line) for line in lines)`` with constant ``lines``
becomes eight ``and`` chains of constant indexes).

Why it is safe (the argument Jinja2 makes for its templates, and the one ``dataclasses`` makes
for the ``__init__`` it builds):

* The source is generated from the **validated, name-resolved parse tree**, never from ruleset
  text: every syntax node maps to a fixed Python form written here.
* **Every identifier is the generator's own**: Python names are ``l_`` plus a name the grammar
  accepted (``[A-Za-z_][A-Za-z0-9_]*``, checked again here) or a counter; state is reached
  through ``env`` (``Z['hand']`` is a dict read with a ``repr()`` key, not an identifier made
  from the zone's name); fields are read as ``o.fields['rank']``; helpers and constants are
  ``H_*`` and ``K*`` names bound in the function's own namespace.
* **Every constant is emitted with ``repr()``** of the parsed value (ints, floats, strings,
  booleans, None) or, for anything else (lists, components), bound in the namespace under a
  generated name: no ruleset text is pasted into the source as code.
* The code runs with **empty ``__builtins__``** and a namespace holding only the engine's
  helpers: there is no ``open``, ``__import__``, ``getattr`` or ``eval`` to reach.

``tests/lang/test_codegen.py`` tries to inject code through every place a ruleset puts text
(names, strings with quotes, backslashes, newlines and Unicode, fields, zones, parameters,
labels, templates) and checks that a canary file never appears.

Errors stay precise: the generated function is the fast path of a
:class:`~interpreter.lang.expression.Compiled`; when it raises, the expression is evaluated again
through the checked closure evaluator (the reference implementation, every node its own
closure with its own checks), which raises the error naming the expression and its
file:line:column.  ``tests/lang/test_codegen.py`` plays thousands of random games with both and
compares them.

Statements, not one expression: a ruleset function's or an expression's body is written as
Python statements where that saves calls (:meth:`_Gen.body`): ``and``/``or`` chains and
conditionals become ``if`` statements, ``any``/``all`` of a generator a ``for`` loop that
returns (or breaks) at the deciding item, and what the expression evaluates first — a
comprehension's first iterable, a charged builtin's list argument, the list a membership test
searches, the operands of ``+`` and of a comparison — is evaluated into a name (``s_`` and a
counter, the generator's own) and charged by a subtraction and a test written out, in the
expression's order of evaluation, so every charge falls at the same point as in the expression
form (``STATEMENTS = False`` generates that form; ``tests/lang/test_codegen_statements.py``
checks both agree in value, error and every charge).

Work budget: each loop (a comprehension's ``for``, an O(n) builtin over a list, a membership
test against a list that is not a constant) charges the number of items to ``env.left``; a
ruleset function call charges ``CALL_COST``.  When ``env.left`` falls below zero :class:`WorkExceeded`
is raised and becomes an :class:`~interpreter.errors.ExpressionError` naming the limit
(``limits: {work: N}``).  The runner refills ``env.left`` at every move and every listing of
legal actions.

Memory budget: what an evaluation allocates is charged to ``env.mem`` (items of a list,
characters of a text), refilled with ``env.left``; below zero :class:`MemoryExceeded` is raised
(``limits: {memory: N}``).  The charges ride on calls the code makes anyway, so the common case
pays one subtraction: a loop whose items become a new list (a list comprehension, the generator
of ``sorted``/``list``/``reversed``/``distinct``, their list argument) is charged by ``H_itm``
instead of ``H_it`` (to work and memory alike: an upper bound of the list it builds);
``range`` by ``H_range`` before it is materialised; ``+`` of texts or lists by ``H_grow``,
``*`` by ``H_mulm``, a slice by ``H_slice``, ``str`` by ``H_str``, a template by its length.
A mutable property of a component is read inline from ``env.state.props`` (``H_mattr`` only
for something that is not a component of a kind with that property).  Size checks are left out
where the inferred bounds of whole numbers rule them out (see :class:`Frag`), and a product with
one bounded operand is checked by one comparison of the other.  The helpers themselves live in
:mod:`interpreter.lang.runtime`.
A constant (a list written out, folded at load) costs nothing at run time; a list or tuple
written out with computed items is bounded by the expression's length and is not charged.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

from ..errors import Mark
from ..model import Action
from .runtime import (  # noqa: F401 - re-exported: the reference evaluator and the engine import them from here
    _BIG,
    HELPERS,
    MemoryExceeded,
    WorkExceeded,
    _add,
    _addm,
    _attr,
    _charge,
    _check_int,
    _grow,
    _it,
    _itm,
    _lazy_range,
    _mattr,
    _mod,
    _mulm,
    _over,
    _range,
    _slice,
    _str,
    template_oom,
)

__all__ = ["WorkExceeded", "MemoryExceeded", "generate_expression", "generate_template", "generate_legal", "FunctionTable"]


#: Where the ruleset being compiled collects its generated sources, (place, source) pairs
#: (set by the compiler; ``Ruleset.sources``, which ``tapster info --source`` prints).
SINK: list | None = None

#: False: a listing's conditions call every ruleset function (the form its written-out calls
#: must agree with, value and work charged; a test compares them).
INLINE = True

#: False: a listing tests every link of an option's condition at every item (the form the links
#: tested once before the loop must agree with, see ``_invariant_prefix``; a test compares them).
HOIST = True

#: False: a listing's loop reads every subscript of an option's condition at every item (the
#: form the reads made once before the loop must agree with, see ``_hoisting``; a test compares
#: them).
READS = True

#: False: a listing's loop charges the calls its condition certainly writes out at every item (the
#: form the charge made once for the whole loop must agree with, see ``_bulk_charge``; a test
#: compares them).
BULK = True

#: Where the generator gave up and the closure evaluator runs instead: (place, why); a test
#: checks that no shipped ruleset has any.
FALLBACKS: list[tuple[str, str]] = []

from . import frags  # noqa: E402
from .frags import (  # noqa: E402,F401 - re-exported: the engine and the reference evaluator import them from here
    _IDENT,
    _NOCONST,
    ALLOCATING,
    CALL_COST,
    INLINE_MARK,
    MAX_FOLD_ITEMS,
    MAX_UNROLL,
    Frag,
    GenerationFailed,
    _chain,
    _Ns,
    call_arguments,
    range_arguments,
    small_range,
)
from .genstmt import StatementForms  # noqa: E402


class _Gen(StatementForms):
    """Generates the Python expression for a parse tree in a :class:`Scope`.

    ``bound`` maps local names to the Python names the generated code binds them to
    (comprehension targets, option names, function parameters); other local names are read
    from ``loc`` (the frame's dict), global names through ``env``.
    """
    def body(self, node, scope, bound) -> tuple[list[str], Frag | None]:
        """The statements of a generated function returning the value of ``node``, and the
        expression when it is a single ``return`` (its ``value`` the constant, if any).

        The lean hot path: ``a and b``, ``a or b`` and ``x if c else y`` at the top become
        ``if`` statements; ``any``/``all`` of a generator become ``for`` loops that return at
        the first item deciding them; the first loop of any other comprehension there has its
        iterable evaluated and charged by statements before it.  Every charge is the one the
        expression form makes, at the same point of the evaluation (so the budgets' errors
        come where they came), written as a subtraction and a test instead of a call."""
        r = self.lower(node, scope, bound, 0) if STATEMENTS else self.g(node, scope, bound)
        if isinstance(r, Frag):
            return [f"return {r.src}"], r
        return r, None


class FunctionTable:
    """The ruleset's own functions as generated Python functions ``f_<name>(env, *params)``,
    each compiled on first use (so that functions may call each other in any order).

    A call charges ``CALL_COST`` to the work budget; an endless recursion ends at Python's depth
    limit and is then reported by the checked evaluator ("nested too deeply").
    """

    def __init__(self):
        self._builtins: dict[str, Any] = {}

    def register(self, name: str, builtin) -> str:
        """The attribute under which the function ``name`` (a Builtin with a ``body``) is called."""
        attr = "f_" + name if _IDENT.match(name) else f"f_{len(self._builtins)}"
        self._builtins.setdefault(attr, builtin)
        return attr

    def generate_all(self) -> None:
        """Generate every function registered so far (the compiler calls it once, at the end,
        so that a ruleset's generated source is complete before play).  The table then becomes
        a :class:`_GeneratedTable`: the same functions, each a plain attribute, and no
        ``__getattr__`` (CPython does not specialise ``FN.f_name`` on a class that has one)."""
        for attr in list(self.__dict__.get("_builtins", {})):
            getattr(self, attr)
        self.__class__ = _GeneratedTable

    def __getattr__(self, attr: str):
        builtin = self.__dict__.get("_builtins", {}).get(attr)
        if builtin is None:
            raise AttributeError(attr)
        fn = _generate_function(attr, builtin, self)
        setattr(self, attr, fn)
        return fn


class _GeneratedTable:
    """A :class:`FunctionTable` after ``generate_all``: every function is an attribute, and a
    function registered later (an expression compiled after the ruleset, as a scenario's) is
    generated as it is registered, since no ``__getattr__`` generates it on first use."""

    def register(self, name: str, builtin) -> str:
        attr = FunctionTable.register(self, name, builtin)
        if attr not in self.__dict__:
            # Set before generating: a function that calls itself (or back through another)
            # finds its attribute taken, so generating stops there; the generated code looks the
            # attribute up only when it runs.
            self.__dict__[attr] = builtin.fn
            self.__dict__[attr] = _generate_function(attr, self._builtins[attr], self)
        return attr

    def generate_all(self) -> None:
        """Nothing to do: every registered function is generated."""


def _generate_function(attr: str, builtin, table: FunctionTable):
    body = builtin.body
    ns = _Ns({"FN": table})
    gen = _Gen(ns, table)
    bound = {p: gen.pyname(p) for p in body.params}
    try:
        lines, _ = gen.body(body.tree, body.scope, bound)
        src = _def(
            attr,
            ["env", *bound.values()],
            [f"env.left -= {CALL_COST}", "if env.left < 0: H_over(env)", *gen.prologue()],
            lines,
            body.mark,
        )
        return _compile(src, attr, ns, body.mark)
    except Exception as exc:  # noqa: BLE001 - never a user's error: the interpreted call runs instead
        _fell_back(str(body.mark), exc)
        return builtin.fn  # the interpreted call: binds the parameters, evaluates the body


def comment(text: Any) -> str:
    """``text`` as one safe line of a Python comment: ASCII, with every control character
    (newlines, carriage returns) escaped, so that nothing after it can become code."""
    return repr(str(text))[1:-1].encode("ascii", "backslashreplace").decode("ascii")


def _def(name: str, params: list[str], prologue: list[str], value: str | list[str], mark: Mark | None) -> str:
    """A generated function's source: ``value`` an expression to return, or the statements of
    its body (ending in ``return``)."""
    where = f"# {comment(mark)}" if mark is not None else "# (generated)"
    lines = [where, f"def {name}({', '.join(params)}):"]
    lines += [f"    {line}" for line in prologue]
    if isinstance(value, str):
        lines.append(f"    return {value}")
    else:
        lines += [f"    {line}" for line in value]
    return "\n".join(lines) + "\n"


def _fell_back(place: str, exc: Exception) -> None:
    if ENABLED and len(FALLBACKS) < 1000:
        FALLBACKS.append((place, f"{type(exc).__name__}: {exc}"))


_CODE: dict[str, Any] = {}


#: False: ruleset functions and expressions as one ``return`` of an expression (the form the
#: statement forms of :meth:`_Gen.body` must agree with, value and charges; a test compares them).
STATEMENTS = True

#: False: generate nothing, every evaluation through the closure evaluator (the reference the
#: differential tests compare the generated code against).  Read when a ruleset is compiled.
ENABLED = True


def _compile(src: str, name: str, ns: _Ns, mark: Mark | None):
    if not ENABLED:
        raise GenerationFailed("code generation is switched off")
    # The code object depends only on the source (constants live in the namespace), so the
    # same expression in another variant, or loaded again, is not compiled again.
    body = src.split("\n", 1)[1] if src.startswith("#") else src  # without the heading place
    code = _CODE.get(body)
    if code is None:
        with warnings.catch_warnings():
            # Python warns at compile time about a subscript that must fail (``3[0]``, a constant
            # tree the resolver let through): that code is left to the reference evaluator, which
            # raises the precise error when (and if) the expression runs, and nothing is printed.
            warnings.simplefilter("error", SyntaxWarning)
            try:
                code = compile(body, "<tapster generated>", "exec")
            except SyntaxWarning as exc:
                raise GenerationFailed(f"generated code that must fail: {exc}") from None
        if len(_CODE) >= 50_000:
            _CODE.clear()
        _CODE[body] = code
    exec(code, ns.d)  # noqa: S102 - generated source, see the module docstring
    if SINK is not None:
        SINK.append((str(mark or name), src))
    return ns.d[name]


def generate_expression(tree, scope, text: str, mark: Mark | None, functions: FunctionTable | None):
    """The generated function ``f(env) -> value`` for the parse tree of ``text`` in ``scope``,
    and its constant value (or the ``_NOCONST`` marker); None when the generator does not handle
    the tree (the caller then uses the closure evaluator).

    Raises nothing: any failure to generate is a None.
    """
    ns = _Ns()
    gen = _Gen(ns, functions)
    gen.hoisted = {}  # an expression's frame does not change while it is evaluated
    try:
        lines, frag = gen.body(tree, scope, {})
        src = _def("expr", ["env"], gen.prologue(), lines, mark)
        return _compile(src, "expr", ns, mark), (frag.value if frag is not None else _NOCONST)
    except Exception as exc:  # noqa: BLE001 - never a user's error: the closure evaluator runs instead
        _fell_back(str(mark), exc)
        return None


#: Most expression parts of a template written out as generated code; a longer template runs
#: through the interpreted loop (its generated source would grow with its text, and Python's
#: compiler takes time and memory in proportion).
MAX_TEMPLATE_PARTS = 64


def generate_template(parts: list, mark: Mark | None, text: str = ""):
    """A template's generated function from its ``parts`` (text, or Compiled expressions): the
    parts' generated functions called in a row and joined, the text built charged to the memory
    budget; None if any part has none or there are more than MAX_TEMPLATE_PARTS expressions."""
    if sum(1 for p in parts if type(p) is not str) > MAX_TEMPLATE_PARTS:
        return None
    ns = _Ns()
    fixed = sum(len(p) for p in parts if type(p) is str)
    lines = ["T = []", "n = 0"]
    for p in parts:
        if type(p) is str:
            lines.append(f"T.append({p!r})")
        else:  # the Compiled: precise errors; the text is counted as it grows
            lines += [f"t = H_render({ns.bind(p, 'E')}(env))", "n += H_len(t)", "if n > MAX_ITEMS: H_toolong(n)", "T.append(t)"]
    lines += [f"env.mem -= n + {fixed}", f"if env.mem < 0: H_toobig(env, {ns.bind(text, 'TEXT')}, {ns.bind(mark, 'MARK')})"]
    src = _def("template", ["env"], lines, "''.join(T)", mark)
    try:
        return _compile(src, "template", ns, mark)
    except Exception as exc:  # noqa: BLE001 - never a user's error: the interpreted template runs instead
        _fell_back(str(mark), exc)
        return None


def generate_legal(choose, functions: FunctionTable | None, snapshot: Callable | None = None):
    """The generated listing of a decision's legal actions, ``legal(env, loc) -> tuple``, with
    each option's ``for`` names bound as Python locals and its condition inlined; None when an
    option's expressions cannot be generated (the interpreted listing then runs).

    ``choose`` is a :class:`~interpreter.engine.flow.Choose`; each option's ``items`` and ``cond`` are
    Compiled expressions with their parse trees (``source``).  ``snapshot`` (the engine's
    :func:`~interpreter.engine.places.snapshot`) copies the items of an option whose items may
    hold the state's own lists (``Compiled.items_share_state``), so that no action holds one.
    """
    ns = _Ns(snapshot and {"H_snap": snapshot})
    gen = _Gen(ns, functions)
    gen.hoisted = {}  # nor a listing's: it is pure
    lines = ["A = []", "append = A.append"]
    try:
        for o in choose.options:
            lines.append(f"# option {comment(o.name)}")
            if not o.names:
                act = ns.bind(o.action, "ACT")
                if o.cond is None:
                    lines.append(f"append({act})")
                else:
                    lines += _test(gen, o.cond, {}, f"append({act})")
                continue
            bound = {n: gen.pyname(n) for n in o.names}
            items_tree = o.items.source
            if items_tree is None and o.items.constant is None:
                return None
            if o.items.constant is not None and isinstance(o.items.constant, (list, tuple)) and len(o.names) == 1:
                v = bound[o.names[0]]
                pairs = tuple((x, Action(o.name, (x,))) for x in o.items.constant)
                loop = f"for {v}, act in {ns.bind(pairs, 'PAIRS')}:"
                if o.cond is None:
                    lines += [loop, "    append(act)"]
                    continue

                def pairs_lines(links, ahead, loop=loop, some=bool(pairs)):
                    return _option_loop(links, ahead if some else 0, [loop], "append(act)", "")

                lines += _hoisting(gen, o.cond, bound, bool(pairs), pairs_lines)
                continue
            # what the items evaluate first (a comprehension's list, charged) as statements
            pre, frag = _operand_frag(gen, o.items)
            items = frag.src
            if o.items.items_share_state:  # an action holds values, never a list the state changes
                if snapshot is None:
                    raise GenerationFailed("an option's items need snapshot")
                items = f"H_snap({items})"
            name = repr(o.name)
            if len(o.names) == 1:
                v = bound[o.names[0]]
                kept = ns.bind({}, "KEPT")  # this option's actions by value, built once (H_act)
                head = [f"for {v} in I:"]
                if frag.zdepth == 0:  # the items of a zone's leaf are components (a copy holds the same)
                    gen.comps.add(v)
                if v in gen.comps and frags.COMPONENTS:  # a component is one of H_KEPT's classes
                    add = f"append({kept}.get({v}) or H_act({kept}, {name}, {v}))"
                else:
                    add = (f"append(({kept}.get({v}) or H_act({kept}, {name}, {v})) if {v}.__class__ in H_KEPT"
                           f" else H_tnew(H_Action, ({name}, ({v},))))")
            else:
                vs = list(bound.values())
                head = ["for v in I:", f"    {', '.join(vs)}, = v"]
                add = f"append(H_tnew(H_Action, ({name}, ({', '.join(vs)},))))"

            def loop_lines(links, ahead, head=head, add=add):
                return _option_loop(links, ahead, head, add, "I and ")

            # H_it written out: the items charged to the work budget before the loop.  With
            # links tested before the loop, what is not a collection is iterated at once, so
            # that it fails as the loop would have, whatever the links say.
            lines += [*pre, f"I = {items}", "try:", "    env.left -= H_len(I)", "except TypeError:",
                      "    H_iter(I)" if o.cond is not None and HOIST else "    pass", "else:",
                      "    if env.left < 0: H_over(env)"]
            if o.cond is None:
                lines += loop_lines([], 0)
            else:
                lines += _hoisting(gen, o.cond, bound, "I", loop_lines)
        lines.append("return H_tuple(A)")
        body = "\n".join("    " + line for line in [*gen.prologue(), *lines])
        src = f"# {comment(choose.mark)}\ndef legal(env):\n{body}\n"
        return _compile(src, "legal", ns, choose.mark)
    except Exception as exc:  # noqa: BLE001 - never a user's error: the interpreted listing runs instead
        _fell_back(str(choose.mark), exc)
        return None


def _option_loop(links: list[tuple[str, int]], ahead: int, head: list[str], add: str, guard: str) -> list[str]:
    """An option's loop (``head``: its ``for`` lines) whose body is ``if <links>: <add>``, the
    first ``ahead`` links tested once before it (see :func:`_invariant_prefix`), after ``guard``
    (``"I and "``: only when there are items)."""
    out, indent = [], ""
    if ahead:
        out.append(f"if {guard}{' and '.join(src for src, _ in links[:ahead])}:")
        indent = "    "
    loop = [*head, *("    " + line for line in _if_lines(links[ahead:], add))]
    return out + [indent + line for line in _bulk_charge(links[ahead:], head, add, loop) or loop]


#: Generated helpers that charge the memory budget, never the work budget (with ``FN.``, a
#: ruleset function's call, and ``env.left`` itself, the rest does or may).
_MEMORY_ONLY = re.compile(r"\bH_(?:mulm|str|mattr|slice|range|add|oom)\(env\b|\bH_grow\(\w+, env\)")


def _charges_work(src: str) -> bool:
    """Whether generated source may charge the work budget (see :data:`_MEMORY_ONLY`)."""
    return "FN." in src or re.search(r"\benv\b", _MEMORY_ONLY.sub("", src)) is not None


def _bulk_charge(links: list[tuple[str, int]], head: list[str], add: str, loop: list[str]) -> list[str] | None:
    """An option's loop that charges its first link's written-out calls once, for every item,
    before it, instead of at each item (``env.left -= 10`` and its test, 12 bytecodes an item
    of a road listing), with ``loop`` (the loop as written) where that charge does not fit;
    or None when that would not be the same.

    The first link is tested at every item, so its calls are charged at every item, first.
    When nothing else in the loop charges the work budget, the charges in order are those
    alone: when the whole loop's charge fits in what is left, no item's would have failed, and
    the loop charges it at once and tests the links without it (the same actions and errors,
    the same work left); when it does not fit, the loop as written runs and fails where it
    did.  One ``for`` line over a name only (``I``, or an option's constant pairs)."""
    m = re.fullmatch(r"for .+ in (\w+):", head[0]) if len(head) == 1 else None
    if not BULK or m is None or not links or not links[0][1]:
        return None
    rest = _if_lines([(links[0][0], 0), *links[1:]], add)
    if any(n for _, n in links[1:]) or _charges_work("\n".join(rest)) or _charges_work(add):
        return None
    cost = f"{links[0][1] * CALL_COST} * H_len({m.group(1)})"
    return ["try:", f"    bulk = env.left >= {cost}", "except TypeError:", "    bulk = False",
            "if bulk:", f"    env.left -= {cost}", "    " + head[0], *("        " + line for line in rest),
            "else:", *("    " + line for line in loop)]


def _hoisting(gen: _Gen, cond, bound: dict, items, loop_lines) -> list[str]:
    """The lines of an option's loop over its items, its condition ``cond`` tested at each
    item: ``loop_lines(links, ahead)`` writes the loop from the condition's links (see
    :func:`_links`) and how many of them to test before it (see :func:`_invariant_prefix`).

    The subscripts of the condition that read the same at every item (:func:`~interpreter.
    lang.genexpr.invariant_read`: the state, constants, the frame's locals) are read once,
    before the loop, into Python locals, when ``items`` (the source of a test that the loop has
    items, or a constant truth) holds.  When every one of them reads without an error, the
    loop reads the locals; when one fails, the loop as written runs instead (the same error at
    the same item, or none if no item reaches it).  A listing changes nothing and a read
    charges nothing, so both loops list the same actions and charge the same work."""
    if READS and items:
        gen.invariant = {}
        try:
            fast = _links(gen, cond, bound)
        finally:
            hoists, gen.invariant = gen.invariant, None
        if not hoists:  # nothing read before the loop: the links as written
            return loop_lines(fast, _invariant_prefix(fast, bound))
    else:
        hoists = {}
    links = _links(gen, cond, bound)
    if not hoists:
        return loop_lines(links, _invariant_prefix(links, bound))
    test = "if True:" if items is True else f"if {items}:"
    return ["hoisted = False", test, "    try:",
            *(f"        {h} = {src}" for src, h in hoists.items()),
            "    except Exception:", "        pass", "    else:", "        hoisted = True",
            "if hoisted:", *("    " + line for line in loop_lines(fast, _invariant_prefix(fast, bound))),
            "else:", *("    " + line for line in loop_lines(links, _invariant_prefix(links, bound)))]


def _test(gen: _Gen, cond, bound: dict, then: str) -> list[str]:
    """The lines of ``if <cond>: <then>`` in a listing (see :func:`_links`)."""
    return _if_lines(_links(gen, cond, bound), then)


def _links(gen: _Gen, cond, bound: dict) -> list[tuple[str, int]]:
    """The tests of ``cond`` in a listing, ``(source, calls written out)`` for each link of its
    ``and`` chain, with the calls of ruleset functions that a link certainly makes written out
    in place (``ExpressionForms._inline``), or one link when there is nothing to write out.

    A link's calls are charged before it, ``CALL_COST`` each (:func:`_if_lines`): a call the
    link makes only on one side of an ``and``, an ``or``, a conditional or a comparison chain,
    or in a loop, is left a call, which charges itself.  So the work charged is what the
    calls charged, at the link that makes them.  A link whose written-out bodies do not each
    appear exactly once in its source (an operator that writes an operand twice) is generated
    again without them."""
    if cond.source is None:  # a YAML scalar: a constant
        return [(gen.ns.const(cond.constant), 0)]
    tree, scope = cond.source
    links = _chain(tree, "and") if getattr(tree, "data", "").rstrip("_") == "and" else [tree]
    calls: list[set[int]] = [set() for _ in links]
    if INLINE:
        functions = set(scope.functions or ())
        for link, found in zip(links, calls):
            _certain_calls(link, functions, found)
    if not any(calls):  # nothing to write out (most conditions): the links, each generated once
        return [(gen.g(link, scope, bound).src, 0) for link in links]
    out: list[tuple[str, int]] = []
    for link, found in zip(links, calls):
        before = gen.inlined
        gen.inline_calls = found
        try:
            src = gen.g(link, scope, bound).src
        finally:
            gen.inline_calls = set()
        n = gen.inlined - before
        if n and src.count(INLINE_MARK) != 2 * n:
            src, n = gen.g(link, scope, bound).src, 0
        out.append((src.replace(INLINE_MARK, ""), n))
    return out


def _if_lines(links: list[tuple[str, int]], then: str) -> list[str]:
    """``if <links>: <then>``: one test when no link has calls written out, else nested
    ``if``s, each link's written-out calls charged before it."""
    if not links:
        return [then]
    if not any(n for _, n in links):
        return [f"if {' and '.join(src for src, _ in links)}: {then}"]
    lines, indent = [], ""
    for k, (src, n) in enumerate(links):
        if n:
            lines += [f"{indent}env.left -= {n * CALL_COST}", f"{indent}if env.left < 0: H_over(env)"]
        lines.append(f"{indent}if {src}: {then}" if k == len(links) - 1 else f"{indent}if {src}:")
        indent += "    "
    return lines


#: A listing's generated source that charges a budget or reads what a loop binds: ``env`` (the
#: budgets, and the helpers that charge them), a ruleset function's call (``FN.``), ``loc``.
_CHARGES = re.compile(r"\benv\b|\bFN\.|\bloc\b")


def _invariant_prefix(links: list[tuple[str, int]], bound: dict) -> int:
    """How many leading links of an option's condition to test once, before its ``for`` loop:
    those that read none of the names the loop binds (``bound``) and charge nothing (no call
    written out, no ``env``: no budget, no call, no helper that charges memory).

    A listing changes nothing, so such a link has the same value at every item; it was the
    first thing each item evaluated, so an error it raises comes first either way, and when
    the items are empty it is not evaluated (the test is ``I and ...``).  Leaving it in the
    loop only repeats it (``not busy[p]`` tested again for every item of ``for: n``)."""
    if not HOIST or not bound:
        return 0
    names = re.compile(r"\b(?:" + "|".join(re.escape(py) for py in bound.values()) + r")\b")
    k = 0
    for src, n in links:
        if n or _CHARGES.search(src) or names.search(src):
            break
        k += 1
    return k


def _certain_calls(node, functions: set[str], out: set[int]) -> None:
    """Add to ``out`` the ``id`` of every call of one of the ruleset's ``functions`` that
    evaluating ``node`` certainly evaluates (not only on one side of ``and``/``or``, in a branch
    of a conditional, past the first comparison of a chain, or in a comprehension)."""
    data = getattr(node, "data", None)
    if data is None:
        return
    kind = data.rstrip("_")
    if kind in ("and", "or"):
        _certain_calls(node.children[0], functions, out)
        return
    if kind == "ternary":
        _certain_calls(node.children[1], functions, out)
        return
    if kind == "compare":
        _certain_calls(node.children[0], functions, out)
        if len(node.children) > 2:
            _certain_calls(node.children[2], functions, out)
        return
    if kind in ("call_gen", "listcomp"):
        return
    if kind == "call" and str(node.children[0]) in functions:
        out.add(id(node))
    for ch in node.children:
        if ch is not None:
            _certain_calls(ch, functions, out)


def _operand_lines(gen: _Gen, compiled) -> tuple[list[str], str]:
    """The statements that compute what a Compiled expression evaluates first, and the
    expression that finishes it (:meth:`~interpreter.lang.genstmt.StatementForms._operand`: a
    comprehension's first list evaluated and charged without a call), in its order of
    evaluation and with its charges."""
    pre, frag = _operand_frag(gen, compiled)
    return pre, frag.src


def _operand_frag(gen: _Gen, compiled) -> tuple[list[str], Frag]:
    """:func:`_operand_lines` with the expression as a Frag (what is known of its value)."""
    if compiled.source is None:  # a YAML scalar (a number, a boolean): a constant
        return [], Frag(gen.ns.const(compiled.constant), compiled.constant)
    tree, scope = compiled.source
    if not STATEMENTS:
        return [], gen.g(tree, scope, {})
    return gen._operand(tree, scope, {}, 0)


def _tree_frag(gen: _Gen, compiled, bound: dict) -> str:
    """The generated source of a Compiled expression inside a bigger generated function."""
    if compiled.source is None:  # a YAML scalar (a number, a boolean): a constant
        return gen.ns.const(compiled.constant)
    tree, scope = compiled.source
    return gen.g(tree, scope, bound).src
