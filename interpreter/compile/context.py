"""The compilation context: what every effect, display line and face compiles against.

:class:`Context` holds the document being compiled and the errors found so far, and compiles
the pieces an effect is made of: expressions and text templates (``interpreter.lang``), zone
references, assignable places, blocks of effects (``interpreter.engine.flow``'s effect classes,
wrapped for explicit chance by ``interpreter.engine.chance``), procedure and event look-ups.  The
compiler's stages extend it (:mod:`.declarations`, :mod:`.functions`, :mod:`.outcome`) and
:mod:`.compiler` assembles them.

Imports: ``interpreter.lang`` (parser, compiler of expressions and templates), the engine's
``flow`` and ``chance`` (effects), the loader's ``Document``, and :mod:`.ruleset`'s declarations.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..engine import chance, flow
from ..errors import CompileError, ExpressionSyntaxError, Mark, RulesetError, TapsterError, close_matches
from ..lang.evaluator import Evaluator
from ..lang.expression import Builtin, Compiled, Scope, compile_expression, compile_template, parse
from ..loader.load import Document
from ..model import render
from .names import NameIndex
from .ruleset import Procedure, Ruleset, Trigger, VarDecl, ZoneDecl

#: What a local name (a parameter, a loop variable, a binding) may be: an identifier, no keyword.
NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z_0-9]*$")
RESERVED = {"and", "or", "not", "if", "else", "for", "in", "is", "true", "false", "none", "True", "False", "None"}


class Context:
    """Compilation context handed to every effect's ``compile`` (and to the display's and the
    faces' compilers): resolves names, compiles expressions, templates, zone references, places
    and blocks, and collects errors.  The compiler's stages (:mod:`.declarations`,
    :mod:`.functions`, :mod:`.outcome`, assembled in :class:`interpreter.compile.compiler.Ctx`)
    fill in the attributes declared below as they run."""

    #: The Ruleset being built (set first by ``Ctx._compile``).
    rs: Ruleset
    #: zone name -> declaration; variable name -> declaration (set by the declarations stage).
    zones: dict[str, ZoneDecl]
    vars: dict[str, VarDecl]
    #: every mutable property of any component kind; every attribute name a component may have.
    mutable: set[str]
    attributes: set[str]
    #: the game's global scope (every expression's) and the functions it calls: the state
    #: builtins and the ruleset's own (set by ``Ctx._global_scope``, filled by the functions stage).
    scope: Scope
    functions: dict[str, Builtin]
    #: explicit chance only: the hidden zones, and each ruleset function's reads of their order.
    hidden_zones: set[str]
    function_reads: dict[str, tuple]

    def __init__(self, doc: Document, path: Path, variant: str | None, explicit: bool = False, blocks: bool = True):
        self.doc = doc
        # Explicit chance (interpreter/engine/chance.py): effects meeting chance are wrapped; the texts
        # each effect compiles are collected (innermost effect first) to find its order reads.
        self.explicit = explicit
        self.generate_blocks = blocks  # False: no code for the flow (``load_ruleset(blocks=False)``)
        self.reading: list[list] = []
        self.chance_effects: list = []
        self.data = doc.data
        self.path = path
        self.base = path.parent
        self.variant = variant
        self.errors: list[TapsterError] = []
        self.blocks: list[flow.Block] = []
        self.chooses: list = []
        self.while_conds: list = []
        self.procedures: dict[str, Procedure] = {}
        self.triggers: dict[str, list[Trigger]] = {}
        self.events_emitted: set[str] = set()
        self.emits: list[tuple[str, frozenset, tuple]] = []
        self.templates: list[tuple] = []
        # every name the ruleset declares or binds, for the reason a name is unknown where it is out of scope
        self.names = NameIndex(doc, lambda: getattr(getattr(self, "rs", None), "kinds", None) or {},
                               lambda: getattr(getattr(self, "rs", None), "maps", None) or {})

    # -- helpers for effects ---------------------------------------------------------------------
    def mark(self, path: tuple) -> Mark:
        """The file:line:column of the node at ``path``."""
        return self.doc.mark(path)

    def error(self, message: str, path: tuple) -> CompileError:
        """A CompileError at ``path`` (raise it)."""
        return CompileError(message, self.mark(path))

    def require(self, spec: Any, keys: tuple, path: tuple) -> None:
        """Raise unless ``spec`` is a mapping holding every key in ``keys``."""
        if not isinstance(spec, dict):
            raise self.error(f"expected a mapping with {', '.join(keys)}", path)
        missing = [k for k in keys if k not in spec]
        if missing:
            raise self.error(f"missing {', '.join(f'`{k}`' for k in missing)}", path)

    def sibling(self, path: tuple, key: str, default: Any) -> Any:
        """The value of ``key`` in the mapping at ``path``."""
        node = self.doc.data
        for k in path:
            node = node[k]
        return node.get(key, default)

    def check_local_name(self, name: Any, path: tuple) -> None:
        """Raise unless ``name`` can name a local (an identifier, not a keyword)."""
        if not isinstance(name, str) or not NAME_RE.match(name) or name in RESERVED:
            raise self.error(f"{name!r} cannot be a name: use letters, digits and _", path)

    def expr(self, value: Any, path: tuple, scope: Scope) -> Compiled:
        """Compile an expression found at ``path``."""
        if self.reading:
            self.reading[-1].append(value)
        mark = self._value_mark(value, path)
        try:
            return compile_expression(value, scope, mark)
        except ExpressionSyntaxError as exc:
            hint = flow_comma_hint(value, self._source_line(mark), mark.column)
            if not hint:
                raise
            raise ExpressionSyntaxError(exc.message + hint, exc.mark, exc.excerpt) from None
        except CompileError as exc:
            raise self.out_of_scope(exc, path) from None

    def out_of_scope(self, exc: CompileError, path: tuple) -> CompileError:
        """``exc``, or for an ``unknown name `x``` where the ruleset has ``x`` elsewhere (a variable,
        a loop variable, a parameter, a zone, a column, a node key...), the same error saying why:
        what ``x`` is, where it is bound (file:line:column), and what the place at ``path`` sees
        (:class:`~interpreter.compile.names.NameIndex`)."""
        name = getattr(exc, "unknown_name", None)
        if name is None:
            return exc
        why = self.names.why(name, tuple(path))
        if why is None:
            return exc
        message = exc.message.replace(f"unknown name `{name}`{exc.unknown_hint}", f"unknown name `{name}` here: {why}", 1)
        return CompileError(message, exc.mark, exc.excerpt)

    def template(self, value: Any, path: tuple, scope: Scope):
        """Compile a text template found at ``path``; remember it in ``templates`` as
        ``(function, mark, text, written)`` (``written``: the ruleset's own text, not a default
        such as an option's label made from its name), for ``tapster check``."""
        if self.reading:
            self.reading[-1].append(chance.template_parts(value))
        text = value if isinstance(value, str) else render(value)
        mark = self._value_mark(value, path)
        # A template repeated through YAML aliases (the same text at the same mark, in the same
        # kind of scope) is compiled once: its cost counts once per distinct text.
        key = (text, mark, scope.locals, id(scope.resolve), id(scope.functions), id(scope.codegen))
        cache = self.__dict__.setdefault("_templates_seen", {})
        hit = cache.get(key)
        if hit is not None:
            fn = hit[0]
        else:
            try:
                fn = compile_template(text, scope, mark)
            except CompileError as exc:
                raise self.out_of_scope(exc, path) from None
            cache[key] = (fn, scope)  # the scope kept alive: the ids in the key stay its own
        self.templates.append((fn, mark, text, tuple(path) in self.doc.marks))
        return fn

    def _value_mark(self, value: Any, path: tuple) -> Mark:
        """Where the text of the value at ``path`` starts (after an opening quote; a block
        scalar's first content line), so that a column inside an expression is its column in
        the file; a value without a text of its own (a default) has its entry's mark."""
        return self.doc.text_mark(path)

    def _source_line(self, m: Mark) -> str | None:
        if not hasattr(self, "_lines"):
            self._lines = {}
        if m.file not in self._lines:
            try:
                self._lines[m.file] = Path(m.file).read_text(encoding="utf-8").splitlines()
            except OSError:
                self._lines[m.file] = []
        lines = self._lines[m.file]
        return lines[m.line - 1] if 0 < m.line <= len(lines) else None

    def zone(self, value: Any, path: tuple, scope: Scope) -> flow.ZoneRef:
        """Compile a zone reference (``deck``, ``trash[p]``, ``flight[p][i]``)."""
        mark = self._value_mark(value, path)
        if not isinstance(value, str):
            raise self.error(f"expected a zone, found {value!r}", path)
        tree = parse(value, mark)
        indexes = []
        node = tree
        while getattr(node, "data", None) == "index":
            indexes.append(node.children[1])
            node = node.children[0]
        if getattr(node, "data", None) != "name":
            raise self.error(f"`{value}` is not a zone: write a zone name, indexed as needed", path)
        name = str(node.children[0])
        decl = self.zones.get(name)
        if decl is None:
            close = close_matches(name, list(self.zones), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else f"; zones: {', '.join(self.zones)}"
            raise CompileError(f"unknown zone `{name}`{hint}", mark)
        indexes.reverse()
        if len(indexes) != decl.depth:
            if decl.keyed:
                raise CompileError(f"keyed zone `{name}` needs one index, the key of a stack: `{name}[key]`", mark)
            raise CompileError(
                f"zone `{name}` needs {decl.depth} index(es) to name one zone, found {len(indexes)}", mark
            )
        comp = Evaluator(value, mark)
        compiled = tuple(self._part(comp, ix, scope, path) for ix in indexes)
        if decl.keyed:
            key_text = value[value.index("[") + 1 : value.rindex("]")]
            return flow.KeyedZoneRef(decl, (Compiled(compiled[0], key_text, mark),), value, mark)
        ref = flow.ZoneRef(decl, compiled, value, mark)
        ref.source = (tuple(indexes), scope)  # for the code generator (interpreter/engine/flowgen.py)
        return ref

    def lvalue(self, value: Any, path: tuple, scope: Scope) -> flow.LValue:
        """Compile an assignable place: ``var``, ``var[i]``, ``obj.prop``."""
        mark = self.mark(path)  # a key: a quoted one's text starts a column after its mark
        line = self._source_line(mark)
        if line is not None and 0 < mark.column <= len(line) and line[mark.column - 1] in "\"'":
            mark = mark.shifted(1)
        if not isinstance(value, str):
            raise self.error(f"expected a place to set, found {value!r}", path)
        tree = parse(value, mark)
        comp = Evaluator(value, mark)
        if getattr(tree, "data", None) == "name":
            name = str(tree.children[0])
            if name in self.vars:
                return flow.LValue("var", name, None, None, value, mark)
            if name in scope.locals:
                raise CompileError(f"`{name}` is a local name (use `let` to bind it anew)", mark)
            raise CompileError(f"unknown variable `{name}`{self._close(name, self.vars)}", mark)
        if getattr(tree, "data", None) == "index":
            base, nodes = tree, []
            while getattr(base, "data", None) == "index":  # `res[p][k]`: the indexes, innermost first
                nodes.append(base.children[1])
                base = base.children[0]
            nodes.reverse()
            if getattr(base, "data", None) == "name" and str(base.children[0]) in self.vars:
                idx = tuple(Compiled(self._part(comp, n, scope, path), value, mark, source=(n, scope)) for n in nodes)
                if len(idx) == 1:
                    return flow.LValue("item", str(base.children[0]), idx[0], None, value, mark)
                return flow.LValue("path", str(base.children[0]), idx, None, value, mark)
            raise CompileError(self._not_settable(value, base, scope), mark)
        if getattr(tree, "data", None) == "attr":
            prop = str(tree.children[1])
            if prop not in self.mutable:
                root = tree.children[0]
                while getattr(root, "data", None) in ("index", "attr"):
                    root = root.children[0]
                hint = ""
                if getattr(root, "data", None) == "name" and str(root.children[0]) in self.vars:
                    base_text = value[: value.rindex(".")]
                    hint = f"; a field of a record inside a variable is set by its key: `{base_text}['{prop}']`"
                raise CompileError(
                    f"`{prop}` is not a mutable property of any component kind (declare it under `props:`){hint}", mark
                )
            obj = Compiled(self._part(comp, tree.children[0], scope, path), value, mark, source=(tree.children[0], scope))
            return flow.LValue("prop", prop, None, obj, value, mark)
        raise CompileError(f"`{value}` is not a place that can be set", mark)

    def _not_settable(self, value: str, base: Any, scope: Scope) -> str:
        """The error for ``set``/``add`` on an index of something that is not a variable
        (``base``: the parse tree under the indexes): what it is, and what to write instead."""
        expected = "expected a variable's item at any depth (`score[p]`, `res[p][k]`)"
        if getattr(base, "data", None) != "name":
            return f"`{value}` cannot be set: {expected}, found an index of an expression"
        name = str(base.children[0])
        if name in self.zones:
            return (f"`{value}` cannot be set: {expected}, found an index of the zone `{name}`; "
                    f"components change places with `move` and change properties with `set: {{\"c.prop\": ...}}`")
        if name in scope.locals:
            return (f"`{value}` cannot be set: {expected}, found an index of the local name `{name}`; "
                    "declare a variable under `vars:` to change it")
        return f"`{value}` cannot be set: {expected}, found `{name}`, not a variable{self._close(name, self.vars)}"

    def _part(self, comp: Evaluator, node: Any, scope: Scope, path: tuple):
        """A part of a zone reference or a place (an index, an object), compiled by ``comp``."""
        try:
            return comp.c(node, scope)
        except CompileError as exc:
            raise self.out_of_scope(exc, path) from None

    def block(self, spec: Any, path: tuple, scope: Scope) -> flow.Block:
        """Compile a list of effects; later effects see names bound by earlier ones."""
        if spec is None:
            spec = []
        if not isinstance(spec, list):
            raise self.error("expected a list of effects", path)
        effects = []
        for i, item in enumerate(spec):
            ipath = path + (i,)
            if self.explicit:
                self.reading.append([])
            try:
                eff = self.effect(item, ipath, scope)
            except RulesetError as exc:
                self.errors.append(exc)
                continue
            finally:
                texts = self.reading.pop() if self.explicit else None
            if self.explicit:
                eff = chance.wrap(eff, texts, self.hidden_zones, self.function_reads, self._register_chance)
                chance.gate_while(eff, self.hidden_zones, self.function_reads, self._register_chance)
            effects.append(eff)
            if eff.binds:
                scope = scope.with_locals(eff.binds)
        b = flow.Block(tuple(effects), len(self.blocks), self.mark(path))
        self.blocks.append(b)
        return b

    def effect(self, item: Any, path: tuple, scope: Scope) -> flow.Effect:
        """Compile one effect (a mapping with one verb key, plus the verb's sibling keys)."""
        if not isinstance(item, dict) or not item:
            raise self.error("an effect is a mapping with one verb: move, set, choose, ...", path)
        verbs = [k for k in item if k in flow.EFFECTS]
        if len(verbs) != 1:
            if not verbs:
                k = next(iter(item))
                close = close_matches(str(k), list(flow.EFFECTS), n=3)
                hint = f"; did you mean {', '.join(close)}?" if close else ""
                raise self.error(f"unknown effect `{k}`{hint} (effects: {', '.join(flow.EFFECTS)})", path + (k,))
            raise self.error(f"one effect per list item, found {', '.join(verbs)}", path)
        verb = verbs[0]
        allowed = set(flow.SIBLING_KEYS.get(verb, ())) | {verb}
        extra = [k for k in item if k not in allowed]
        if extra:
            raise self.error(f"`{extra[0]}` does not belong beside `{verb}`", path + (extra[0],))
        cls = flow.EFFECTS[verb]
        eff = cls.compile(self, item[verb], path + (verb,), scope)
        eff.mark = self.mark(path)
        return eff

    def _register_chance(self, wrapper) -> None:
        wrapper.id = len(self.chance_effects)
        self.chance_effects.append(wrapper)

    def register_choose(self, choose) -> int:
        """Number a decision point (for saving states)."""
        self.chooses.append(choose)
        return len(self.chooses) - 1

    def register_while(self, cond: Compiled) -> None:
        """Number a `while` condition (for saving states)."""
        self.while_conds.append(cond)

    def procedure(self, name: Any, path: tuple, args: tuple) -> Procedure:
        """The procedure ``name``; its parameters must match ``args``."""
        proc = self.procedures.get(name)
        if proc is None:
            raise self.error(f"unknown procedure `{name}`{self._close(str(name), self.procedures)}", path)
        if set(args) != set(proc.params):
            raise self.error(
                f"procedure `{name}` takes ({', '.join(proc.params)}), given ({', '.join(args)})", path
            )
        return proc

    def triggers_for(self, event: str, path: tuple, args: tuple) -> list[Trigger]:
        """The triggers listening to ``event`` (a live list, filled when triggers compile)."""
        self.events_emitted.add(event)
        self.emits.append((event, frozenset(args), path))
        return self.triggers.setdefault(event, [])

    @staticmethod
    def _close(name: str, options) -> str:
        close = close_matches(name, list(options), n=3)
        return f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""

    def _guard(self, fn, *args):
        try:
            return fn(*args)
        except RulesetError as exc:
            self.errors.append(exc)
            return None


def constant(value):
    """A compiled expression giving ``value`` (its ``constant`` attribute holds it)."""
    # Lists and dicts are shared, not copied: expressions never change values, and every place
    # a value is stored into the state (LValue.set) stores a copy.
    f = lambda env: value  # noqa: E731
    f.constant = value  # type: ignore[attr-defined]
    return f


def flow_comma_hint(text: Any, line: str | None, column: int) -> str:
    """The hint for an expression cut short by a comma inside a YAML flow mapping or list:
    ``{"stake[p]": max(stake, 1)}`` gives the value ``max(stake`` (and a key ``1)``).  When
    ``text`` opens more brackets than it closes and the source ``line`` (the value at or after
    1-based ``column``) goes on with a comma after it, the hint says to quote the whole value and shows
    it quoted; else "".  The README promises this hint (Values and expressions)."""
    if not isinstance(text, str) or line is None or column < 1:
        return ""
    if text.count("(") + text.count("[") + text.count("{") <= text.count(")") + text.count("]") + text.count("}"):
        return ""
    at = line.find(text, column - 1)  # a value's mark may stand on the `{` of its mapping
    if at < 0 or not line[at + len(text):].lstrip().startswith(","):
        return ""
    rest = line[at:]
    depth, end = 0, len(rest)
    for i, ch in enumerate(rest):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                end = i
                break
            depth -= 1
        elif ch == "," and depth == 0:
            end = i
            break
    whole = rest[:end].rstrip().replace('"', "'")
    return (f" (a comma inside a flow mapping or list `{{...}}`/`[...]` ends the value there: quote the value, "
            f"e.g. `\"{whole}\"`, or write the mapping in block style)")
