"""Stages 2-4: apply a variant, validate against the schema, compile to an immutable Ruleset.

``load_ruleset(path, variant=None)`` is the one entry point: it reads the YAML (and the tables
it includes), overlays the chosen variant, validates the result against
``schemas/ruleset.schema.json``, then compiles every expression once with Lark into closures,
resolves every name (zones, variables, parameters, procedures, events) and builds the
:class:`Ruleset`.  Every problem found is reported with file:line:column; as many as can be found
are reported at once (:class:`RulesetErrors`).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

from ..engine import chance, flow, flowgen
from ..engine.chance import MODES
from ..errors import CompileError, ExpressionError, ExpressionSyntaxError, LoadError, Mark, RulesetError, TapsterError, close_matches
from ..lang import codegen, expression
from ..lang.codegen import FunctionTable
from ..lang.expression import (
    BUILTINS,
    Builtin,
    Compiled,
    Env,
    FunctionBody,
    Scope,
    compile_expression,
    compile_template,
    parse,
    state_reader,
)
from ..limits import (
    DEFAULT_ACTIONS,
    DEFAULT_MEMORY,
    DEFAULT_STEPS,
    DEFAULT_WORK,
    MAX_ACTIONS,
    MAX_COMPONENTS,
    MAX_FUNCTION_CALLS,
    MAX_ZONE_COUNT,
)
from ..loader import maps, schema
from ..loader.load import Document, load_table, load_yaml
from ..loader.params import keep_declarations, param_values, variant_chain
from ..model import Component, render
from ..views.render import compile_display
from .ruleset import GameFacts, Kind, Procedure, Ruleset, Trigger, VarDecl, ZoneDecl

__all__ = ["Ruleset", "RulesetErrors", "load_ruleset", "find_ruleset", "RULESETS_DIR", "ZoneDecl", "VarDecl"]


#: Where bare ruleset names are looked up: the ``rulesets/`` folder shipped with the package.
RULESETS_DIR = schema._data_dir("rulesets")

_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z_0-9]*$")
_RESERVED = {"and", "or", "not", "if", "else", "for", "in", "is", "true", "false", "none", "True", "False", "None"}
_SPECIAL_NAMES = {
    "current": "the seat whose turn it is (0-based)",
    "num_players": "how many players there are",
    "players": "the list of seats, 0 to num_players - 1",
    "phase": "the name of the current phase",
    "turns_taken": "turns begun per seat (a list)",
}


class RulesetErrors(RulesetError):
    """Several problems in one ruleset; ``errors`` lists them, most relevant first."""

    def __init__(self, errors: list[TapsterError]):
        super().__init__(f"{len(errors)} problem(s)")
        self.errors = errors

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


# ---------------------------------------------------------------------------------------------
# Finding and loading


def find_ruleset(name_or_path: str | Path) -> Path:
    """The ruleset file for a path (a file or a folder holding ``ruleset.yaml``) or a bare name
    under the installed ``rulesets/`` folder.

    Raises:
        LoadError: nothing found, with the names available.
    """
    p = Path(name_or_path)
    if p.is_file():
        return p
    if p.is_dir() and (p / "ruleset.yaml").is_file():
        return p / "ruleset.yaml"
    for base in (Path.cwd() / "rulesets", RULESETS_DIR):
        cand = base / str(name_or_path) / "ruleset.yaml"
        if cand.is_file():
            return cand
    known = available_rulesets()
    close = close_matches(str(name_or_path), known, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else f"; available: {', '.join(known)}"
    raise LoadError(f"no ruleset {str(name_or_path)!r}{hint}")


def available_rulesets() -> list[str]:
    """The bare names of the rulesets shipped in ``rulesets/``."""
    if not RULESETS_DIR.is_dir():
        return []
    return sorted(p.parent.name for p in RULESETS_DIR.glob("*/ruleset.yaml"))


def load_ruleset(
    name_or_path: str | Path, variant: str | None = None, overrides: dict | None = None, chance: str = "sample"
) -> Ruleset:
    """Load, overlay ``variant`` (and ``overrides``, e.g. ``{"params": {"turns": 3}}``),
    validate and compile a ruleset.

    Raises:
        LoadError: the file cannot be read or is not safe, well-formed YAML.
        RulesetErrors: schema and compile problems (every one found, most relevant first).
        RulesetError: an unknown variant.
    """
    path = find_ruleset(name_or_path)
    doc = load_yaml(path)
    if not isinstance(doc.data, dict):
        raise LoadError("a ruleset is a YAML mapping (name:, players:, zones:, flow: ...)", doc.mark(()))
    base_errors = schema.validate(doc)
    if base_errors:
        raise RulesetErrors(base_errors)
    if variant is not None:  # "a,b": a then b, each after what it `extends`
        variants = doc.data.get("variants") or {}
        try:
            chain = variant_chain(variants, [v.strip() for v in variant.split(",")])
        except ValueError as exc:
            raise RulesetError(f"{doc.file}: {exc}") from None
        for name in chain:
            over = {k: v for k, v in (variants[name] or {}).items() if k not in ("description", "extends")}
            doc = overlay(doc, keep_declarations(doc.data.get("params"), over), ("variants", name))
    if overrides:
        doc = overlay(doc, keep_declarations(doc.data.get("params"), overrides), None)
    if variant is not None or overrides:
        errors = schema.validate(doc)
        if errors:
            raise RulesetErrors(errors)
    if chance not in MODES:
        raise TapsterError(f"chance mode {chance!r}: expected one of {', '.join(MODES)}")
    ctx = Ctx(doc, path, variant, explicit=chance == "explicit")
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeError):
        source = None
    cached = expression.preload_trees(source) if source is not None else False
    outer, expression.RECORD = expression.RECORD, set()
    try:
        rs = ctx.compile()
        texts = expression.RECORD
    finally:
        expression.RECORD = outer
    if source is not None and not cached:
        expression.save_trees(source, texts)  # the next run needs neither Lark nor parsing
    rs.chance = chance
    rs.load_args = (path, variant, overrides)
    return rs


Ruleset.loader = staticmethod(load_ruleset)


def overlay(doc: Document, over: dict, over_path: tuple | None) -> Document:
    """``doc`` with the mapping ``over`` overlaid: mappings merge recursively, anything else
    replaces (a list replaces a list).  ``over_path`` is where ``over`` stands in ``doc`` (a
    variant), so that marks follow the overlay; None for data from elsewhere (overrides).

    Linear in the size of the document and the overlay: the marks of every replaced value are
    dropped in one pass, and the overlay's own marks added in another."""
    data = copy.deepcopy(doc.data)
    replaced: list[tuple] = []

    def merge(base: dict, new: dict, path: tuple):
        for k, v in new.items():
            if isinstance(v, dict) and isinstance(base.get(k), dict):
                merge(base[k], v, path + (k,))
                continue
            base[k] = copy.deepcopy(v)
            replaced.append(path + (k,))

    merge(data, over, ())
    if over_path is None:
        return Document(data, dict(doc.marks), doc.file)
    gone = set(replaced)
    marks = {m: mark for m, mark in doc.marks.items() if not any(m[:i] in gone for i in range(1, len(m) + 1))}
    n = len(over_path)
    for m, mark in doc.marks.items():
        if m[:n] == over_path and len(m) > n:
            rest = m[n:]
            if any(rest[:i] in gone for i in range(1, len(rest) + 1)):
                marks[rest] = mark
    return Document(data, marks, doc.file)


# ---------------------------------------------------------------------------------------------
# The compiler


class Ctx:
    """Compilation context handed to every effect's ``compile``: resolves names, compiles
    expressions, templates, zone references, places and blocks, and collects errors."""

    def __init__(self, doc: Document, path: Path, variant: str | None, explicit: bool = False):
        self.doc = doc
        # Explicit chance (interpreter/engine/chance.py): effects meeting chance are wrapped; the texts
        # each effect compiles are collected (innermost effect first) to find its order reads.
        self.explicit = explicit
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
        if not isinstance(name, str) or not _NAME_RE.match(name) or name in _RESERVED:
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
            fn = compile_template(text, scope, mark)
            cache[key] = (fn, scope)  # the scope kept alive: the ids in the key stay its own
        self.templates.append((fn, mark, text, tuple(path) in self.doc.marks))
        return fn

    def _value_mark(self, value: Any, path: tuple) -> Mark:
        # A quoted scalar's text starts one column after its mark.
        m = self.mark(path)
        text = self._source_line(m)
        if text is not None and 0 < m.column <= len(text) and text[m.column - 1] in "\"'":
            return m.shifted(1)
        return m

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
        from ..lang.expression import _Compiler

        comp = _Compiler(value, mark)
        compiled = tuple(comp.c(ix, scope) for ix in indexes)
        if decl.keyed:
            key_text = value[value.index("[") + 1 : value.rindex("]")]
            return flow.KeyedZoneRef(decl, (Compiled(compiled[0], key_text, mark),), value, mark)
        ref = flow.ZoneRef(decl, compiled, value, mark)
        ref.source = (tuple(indexes), scope)  # for the code generator (interpreter/engine/flowgen.py)
        return ref

    def lvalue(self, value: Any, path: tuple, scope: Scope) -> flow.LValue:
        """Compile an assignable place: ``var``, ``var[i]``, ``obj.prop``."""
        mark = self.mark(path)
        if not isinstance(value, str):
            raise self.error(f"expected a place to set, found {value!r}", path)
        tree = parse(value, mark)
        from ..lang.expression import _Compiler

        comp = _Compiler(value, mark)
        if getattr(tree, "data", None) == "name":
            name = str(tree.children[0])
            if name in self.vars:
                return flow.LValue("var", name, None, None, value, mark)
            if name in scope.locals:
                raise CompileError(f"`{name}` is a local name (use `let` to bind it anew)", mark)
            raise CompileError(f"unknown variable `{name}`{self._close(name, self.vars)}", mark)
        if getattr(tree, "data", None) == "index":
            base = tree.children[0]
            if getattr(base, "data", None) == "name" and str(base.children[0]) in self.vars:
                idx = Compiled(comp.c(tree.children[1], scope), value, mark, source=(tree.children[1], scope))
                return flow.LValue("item", str(base.children[0]), idx, None, value, mark)
            raise CompileError(f"`{value}`: only an item of a variable can be set (`score[p]`)", mark)
        if getattr(tree, "data", None) == "attr":
            prop = str(tree.children[1])
            if prop not in self.mutable:
                raise CompileError(
                    f"`{prop}` is not a mutable property of any component kind (declare it under `props:`)", mark
                )
            obj = Compiled(comp.c(tree.children[0], scope), value, mark, source=(tree.children[0], scope))
            return flow.LValue("prop", prop, None, obj, value, mark)
        raise CompileError(f"`{value}` is not a place that can be set", mark)

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

    # -- the stages --------------------------------------------------------------------------
    def compile(self) -> Ruleset:
        """The immutable :class:`Ruleset`, its generated source collected in ``rs.sources``.

        Raises:
            RulesetErrors: every problem found, most relevant first.
        """
        sources: list = []
        outer = codegen.SINK
        codegen.SINK = sources
        try:
            rs = self._compile()
            self.scope.codegen.generate_all()
        finally:
            codegen.SINK = outer
        rs.sources = tuple(sources)
        return rs

    def _compile(self) -> Ruleset:
        d = self.data
        rs = Ruleset()
        self.rs = rs
        rs.path = self.path
        rs.doc = self.doc
        # resolved: `tapster play .` inside the ruleset's folder names the folder, never ""
        rs.name = self.path.resolve().parent.name if self.path.name == "ruleset.yaml" else self.path.stem
        rs.title = str(d.get("name", rs.name))
        rs.description = d.get("description", "")
        rs.source = d.get("source", "")
        rs.variant = self.variant
        rs.variants = {k: (v or {}).get("description", "") for k, v in (d.get("variants") or {}).items()}
        players = d.get("players", {})
        rs.min_players = int(players.get("min", 1))
        rs.max_players = int(players.get("max", rs.min_players))
        rs.default_players = int(players.get("default", rs.min_players))
        if not 1 <= rs.min_players <= rs.default_players <= rs.max_players:
            self.errors.append(self.error(
                f"players: expected 1 <= min <= default <= max, found min {rs.min_players}, "
                f"default {rs.default_players}, max {rs.max_players}", ("players",)))
        rs.params = param_values(d.get("params") or {}, lambda msg, name: self.errors.append(self.error(msg, ("params", name))))
        limits = d.get("limits") or {}
        rs.step_budget = int(limits.get("steps", DEFAULT_STEPS))
        # `limits: {actions}` and `outcome: {range, sum}` may be expressions: see _compile_facts
        rs.action_limit = limits["actions"] if type(limits.get("actions")) is int else DEFAULT_ACTIONS
        rs.work_budget = int(limits.get("work", DEFAULT_WORK))
        rs.memory_budget = int(limits.get("memory", DEFAULT_MEMORY))

        self._early_maps(rs)
        self._compile_components(rs)
        self._compile_zones(rs)
        self._compile_vars(rs)
        self._compile_maps(rs)
        self.scope = self._global_scope(rs)
        self._compile_functions()
        self._compile_refills()
        if self.explicit:
            self._chance_reads()
        self._declare_procedures()
        self._compile_triggers()
        self._compile_procedures()
        rs.setup = self.block(d.get("setup", []), ("setup",), self.scope)
        rs.flow = self.block(d.get("flow", []), ("flow",), self.scope)
        self._compile_outcome(rs)
        self._compile_facts(rs)
        rs.display = self._guard(compile_display, self, d.get("display"))
        for event in sorted(set(self.triggers) - self.events_emitted):
            t = self.triggers[event][0]
            self.errors.append(CompileError(f"no effect emits event `{event}`", t.block.mark))
        for event, args, epath in self.emits:
            for t in self.triggers.get(event, ()):
                if set(t.params) - args:
                    missing = ", ".join(sorted(set(t.params) - args))
                    self.errors.append(self.error(
                        f"event `{event}` is emitted without {missing}, which a trigger at "
                        f"{t.block.mark} needs (`with: {{...}}`)", epath))
        if not self.errors and codegen.ENABLED and not self.explicit:
            flowgen.finalize(self.blocks, self.scope.codegen)
        rs.blocks = tuple(self.blocks)
        rs.chooses = tuple(self.chooses)
        rs.templates = tuple(self.templates)
        rs.chance_effects = tuple(self.chance_effects)
        rs.while_conds = tuple(self.while_conds)
        rs.procedures = {k: p.block for k, p in self.procedures.items()}
        rs.scenarios = d.get("scenarios") or []
        rs.scope = self.scope
        rs.ctx_functions = self.functions
        if self.errors:
            raise RulesetErrors(_sorted_errors(self.errors))
        return rs

    def _compile_components(self, rs: Ruleset) -> None:
        rs.kinds = {}
        rs.components = []
        rs.by_id = {}
        rs.initial_props = {}
        self.mutable = set()
        self.attributes = {"id", "kind"}
        # a component's label, derived fields and props read its row, the parameters and the maps
        # (`node_attr(land, a, 'name')`: the nodes are built before the components, see _early_maps)
        param_scope = Scope(resolve=lambda n: _constant(rs.params[n]) if n in rs.params else (
                                _constant(rs.maps[n]) if n in rs.maps else None),
                            global_names=lambda: list(rs.params) + list(rs.maps))
        for kname, spec in (self.data.get("components") or {}).items():
            path = ("components", kname)
            kind = Kind()
            kind.name = kname
            kind.description = spec.get("description", "")
            kind.start = spec.get("start")
            kind.back = tuple(spec.get("back") or ())
            kind.components = []
            rows: list[dict] = []
            row_marks: list[Mark] = []
            if "table" in spec:
                try:
                    rows, row_marks = load_table(self.base, spec["table"], self.mark(path + ("table",)))
                except LoadError as exc:
                    self.errors.append(exc)
            for i, item in enumerate(spec.get("items") or []):
                rows.append(dict(item))
                row_marks.append(self.mark(path + ("items", i)))
            copies = 1
            if "copies" in spec:
                compiled_copies = self._guard(self.expr, spec["copies"], path + ("copies",), param_scope)
                try:
                    copies = compiled_copies(Env(None, {})) if compiled_copies else 1
                except TapsterError as exc:  # `copies: 1 // 0`
                    self.errors.append(exc)
                    copies, compiled_copies = 1, None
                if type(copies) is not int or copies < 1:
                    if compiled_copies is not None:
                        self.errors.append(self.error(
                            f"`copies` must be a whole number ≥ 1, found {render(copies)!r}", path + ("copies",)))
                    copies = 1
            if len(rs.components) + len(rows) * copies > MAX_COMPONENTS:
                self.errors.append(self.error(
                    f"{kname}: {len(rows)} rows × {copies} copies would make more than {MAX_COMPONENTS} components "
                    f"in the ruleset (the limit)", path + (("copies",) if "copies" in spec else ())))
                copies = 0
            fields = set()
            for r in rows:
                fields.update(r)
            for reserved in ("id", "kind"):  # `c.id`/`c.kind` are the component's, never a column's
                if reserved in fields:
                    rmark = next(m for r, m in zip(rows, row_marks) if reserved in r)
                    rename = "code" if reserved == "id" else "type"
                    self.errors.append(CompileError(
                        f"{kname}: a column named `{reserved}` would be hidden by the component's own `{reserved}` "
                        f"(`c.{reserved}` is {'`' + kname + '-…`' if reserved == 'id' else repr(kname)}); rename the column, "
                        f"e.g. `{rename}`" + (f" (with `key: {rename}` the ids are `{kname}-<{rename}>`)" if reserved == "id" else ""),
                        rmark))
                    rows = [{k: v for k, v in r.items() if k != reserved} for r in rows]
                    fields.discard(reserved)
            kind.fields = fields
            self.attributes |= fields
            props = spec.get("props") or {}
            kind.mutable = frozenset(props)
            self.mutable |= set(props)
            self.attributes |= set(props)
            key = spec.get("key")
            field_scope = Scope(resolve=param_scope.resolve, locals=frozenset(fields) | {"copy", "id", "kind"},
                                global_names=param_scope.global_names)
            # `derived`: static fields computed once per component from its row (and the derived
            # fields before it), e.g. `sides: "[top, right, bottom, left]"`; no state, no cost in play.
            derived_exprs = {}
            for dname, dval in (spec.get("derived") or {}).items():
                if dname in fields or dname in props:
                    self.errors.append(
                        self.error(f"`{dname}` is already a column or property", path + ("derived", dname))
                    )
                    continue
                derived_exprs[dname] = self._guard(self.expr, dval, path + ("derived", dname), field_scope)
                field_scope = field_scope.with_locals([dname])
            kind.fields = fields | set(derived_exprs)
            self.attributes |= set(derived_exprs)
            for i, f in enumerate(kind.back):
                if f not in kind.fields:
                    self.errors.append(self.error(
                        f"`back` names `{f}`, which is not a field of `{kname}`{self._close(f, kind.fields)}", path + ("back", i)))
            label = self._guard(self.template, spec.get("label", "{id}"), path + ("label",), field_scope)
            prop_exprs = {
                pname: self._guard(self.expr, pval, path + ("props", pname), field_scope)
                for pname, pval in props.items()
            }
            for copy_no in range(copies):
                for r, rmark in zip(rows, row_marks):
                    if key is not None:
                        if key not in r:
                            self.errors.append(CompileError(f"row has no key column `{key}`", rmark))
                            continue
                        ident = f"{kname}-{r[key]}"
                    else:
                        ident = f"{kname}-{len(kind.components) + 1}"
                    if copies > 1 and key is not None:
                        ident += f"-{copy_no + 1}"
                    if ident in rs.by_id:
                        self.errors.append(CompileError(f"two components have the id {ident!r}", rmark))
                        continue
                    f = dict(r)
                    f["id"] = ident
                    f["kind"] = kname
                    env = Env(None, {**r, "id": ident, "kind": kname, "copy": copy_no})
                    try:
                        for dname, dexpr in derived_exprs.items():
                            f[dname] = env.loc[dname] = dexpr(env) if dexpr else None
                    except TapsterError as exc:
                        self.errors.append(exc)
                    text = label(env) if label else ident
                    c = Component(ident, kname, f, kind.mutable, text, len(rs.components))
                    if kind.back:  # what its back shows: text fields as they are, others named
                        c.back = ", ".join(str(f.get(b)) if isinstance(f.get(b), str) else f"{b} {render(f.get(b))}"
                                           for b in kind.back)
                    if prop_exprs:
                        try:
                            rs.initial_props[c.index] = {
                                pn: (pe(env) if pe else None) for pn, pe in prop_exprs.items()
                            }
                        except TapsterError as exc:
                            self.errors.append(exc)
                    rs.components.append(c)
                    rs.by_id[ident] = c
                    kind.components.append(c)
            rs.kinds[kname] = kind
        rs.components = tuple(rs.components)

    def _compile_zones(self, rs: Ruleset) -> None:
        self.zones: dict[str, ZoneDecl] = {}
        for zname, spec in (self.data.get("zones") or {}).items():
            path = ("zones", zname)
            spec = spec or {}
            z = ZoneDecl()
            z.name = zname
            z.description = spec.get("description", "")
            z.per_player = bool(spec.get("per_player", False))
            count = spec.get("count")
            if count is not None:
                if isinstance(count, str):
                    count = rs.params.get(count)
                if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_ZONE_COUNT:
                    found = spec.get("count")
                    shown = f"{found!r}" if found == count else f"{found!r} = {count!r}"
                    self.errors.append(self.error(
                        f"`count` must be a whole number from 1 to {MAX_ZONE_COUNT} or a parameter, found {shown}",
                        path + ("count",)))
                    count = 1
            z.count = count
            z.visibility = spec.get("visibility", "public")
            z.refill_from = spec.get("refill_from")
            z.refill_shuffle = bool(spec.get("refill_shuffle", True))
            z.refill_when = spec.get("refill_when", "on_draw")
            if z.refill_when not in ("on_draw", "immediately"):
                self.errors.append(self.error(
                    f"`refill_when` is `on_draw` or `immediately`, found {z.refill_when!r}", path + ("refill_when",)))
                z.refill_when = "on_draw"
            if z.refill_when == "immediately" and (z.refill_from is None or z.per_player or count is not None):
                self.errors.append(self.error(
                    "`refill_when: immediately` needs `refill_from` on one shared zone (not `per_player`, no `count`)",
                    path + ("refill_when",)))
                z.refill_when = "on_draw"
            z.depth = int(z.per_player) + int(count is not None)
            z.keyed = bool(spec.get("keyed", False))
            if z.keyed:
                if z.depth:
                    self.errors.append(self.error(
                        "a keyed zone is one shared zone: it cannot be `per_player` or have a `count`",
                        path + ("keyed",)))
                if z.visibility == "owner":
                    self.errors.append(self.error("a keyed zone has no owner: use public or hidden", path + ("keyed",)))
                if z.refill_from is not None:
                    self.errors.append(self.error("a keyed zone cannot be refilled", path + ("refill_from",)))
                    z.refill_from = None
                z.depth = 1
            if not _NAME_RE.match(zname):
                self.errors.append(self.error(f"{zname!r} cannot be a zone name", path))
            self.zones[zname] = z
        for kind in rs.kinds.values():
            if kind.start is not None:
                problem = _start_problem(kind.name, kind.start, self.zones)
                if problem:
                    self.errors.append(self.error(problem, ("components", kind.name, "start")))
                    kind.start = None
        rs.zones = self.zones
        rs.zone_list = tuple(self.zones.values())
        # the zones a move refills at once when empty (State.refill_immediately), in zone_list order
        rs.immediate_zones = tuple(z for z in rs.zone_list if z.refill_when == "immediately")
        # depth -1 marks a keyed zone (a dict of stacks) for clone/save
        rs.zone_depths = tuple((z.name, -1 if z.keyed else z.depth) for z in rs.zone_list)

    def _compile_vars(self, rs: Ruleset) -> None:
        self.vars: dict[str, VarDecl] = {}
        list_vars = []
        for vname, spec in (self.data.get("vars") or {}).items():
            v = VarDecl()
            v.name = vname
            if isinstance(spec, dict):
                v.per_player = bool(spec.get("per_player", False))
                v.value = spec.get("initial", 0)
                v.visibility = spec.get("visibility", "public")
                v.description = spec.get("description", "")
                v.shown = bool(spec.get("shown", False))
            else:
                v.per_player, v.value, v.visibility, v.description, v.shown = False, spec, "public", "", False
            if vname in self.zones or vname in rs.params or vname in _SPECIAL_NAMES:
                self.errors.append(self.error(f"`{vname}` is already the name of a zone, parameter or built-in", ("vars", vname)))
            if v.per_player or isinstance(v.value, (list, dict)):
                list_vars.append(vname)
            self.vars[vname] = v
        for pname in rs.params:
            if pname in self.zones or pname in _SPECIAL_NAMES:
                self.errors.append(self.error(f"`{pname}` is already the name of a zone or built-in", ("params", pname)))
        rs.vars = self.vars
        rs.list_vars = tuple(list_vars)

    def _early_maps(self, rs: Ruleset) -> None:
        """The maps as the components see them (their labels and derived fields may read node
        and edge attributes): built before the components from their tables, without the edges
        that are components (``edges: {components: kind}``), which :meth:`_compile_maps` adds
        later to the same objects.  Errors are left to :meth:`_compile_maps`, which reports them."""
        rs.maps = {}
        for mname, spec in (self.data.get("maps") or {}).items():
            if not isinstance(spec, dict):
                continue
            espec, nspec = spec.get("edges") or {}, spec.get("nodes") or {}
            try:
                nodes = self._map_rows(("maps", mname), "nodes", nspec)
                edges = ([], []) if "components" in espec else self._map_rows(("maps", mname), "edges", espec)
                rs.maps[mname] = maps.build_map(mname, *nodes, nspec.get("key", "id"), *edges, espec.get("source", "source"),
                                                espec.get("target", "target"), bool(spec.get("directed", False)))
            except LoadError:
                pass

    def _map_rows(self, path: tuple, part: str, pspec: dict) -> tuple[list, list]:
        """The rows and marks of a map's ``nodes`` or ``edges`` table (``table:`` and ``items:``)."""
        rows, marks = [], []
        if "table" in pspec:
            rows, marks = load_table(self.base, pspec["table"], self.mark(path + (part, "table")))
        for i, item in enumerate(pspec.get("items") or []):
            rows.append(dict(item))
            marks.append(self.mark(path + (part, "items", i)))
        return rows, marks

    def _compile_maps(self, rs: Ruleset) -> None:
        """``maps:``: node and edge tables (CSV/YAML by relative path, or inline ``items``) built
        once into read-only graphs (interpreter/loader/maps.py).  A map :meth:`_early_maps` made is
        completed in place (compiled labels hold it)."""
        early = rs.maps
        rs.maps = _MapsInPlace(early)
        for mname, spec in (self.data.get("maps") or {}).items():
            path = ("maps", mname)
            if mname in self.zones or mname in self.vars or mname in rs.params:
                self.errors.append(self.error(f"map `{mname}` has the name of a zone, variable or parameter", path))
                continue
            parts = {}
            espec = spec.get("edges") or {}
            kind = None
            if "components" in espec:
                kind = rs.kinds.get(espec["components"])
                if kind is None:
                    self.errors.append(self.error(
                        f"`components` names no component kind: {espec['components']!r}{self._close(espec['components'], rs.kinds)}",
                        path + ("edges", "components")))
                    rs.maps[mname] = maps.GameMap(mname, maps.nx.Graph())  # no knock-on errors
                    continue
                if "table" in espec or "items" in espec:
                    self.errors.append(self.error(
                        "the edges are either a component kind's (`components:`) or a table (`table:`/`items:`), not both",
                        path + ("edges",)))
                    rs.maps[mname] = maps.GameMap(mname, maps.nx.Graph())  # no knock-on errors
                    continue
            try:
                for part in ("nodes", "edges"):
                    pspec = spec.get(part) or {}
                    if part == "edges" and kind is not None:
                        # one edge per component of the kind: its fields are the edge's attributes
                        mark = self.mark(path + ("edges", "components"))
                        parts[part] = ([dict(c.fields) for c in kind.components], [mark] * len(kind.components))
                        continue
                    parts[part] = self._map_rows(path, part, pspec)
                nspec = spec.get("nodes") or {}
                rs.maps[mname] = maps.build_map(
                    mname, *parts["nodes"], nspec.get("key", "id"), *parts["edges"],
                    espec.get("source", "source"), espec.get("target", "target"), bool(spec.get("directed", False)),
                    kind.name if kind else None, list(kind.components) if kind else None)
            except LoadError as exc:
                self.errors.append(exc)
                # an empty map stands in, so that the expressions naming it report no knock-on
                # `unknown name` (the ruleset is refused anyway, with this error first)
                rs.maps[mname] = maps.GameMap(mname, maps.nx.Graph())
        rs.maps = dict(rs.maps)

    def _global_scope(self, rs: Ruleset) -> Scope:
        params, zones, vars_ = rs.params, self.zones, self.vars

        def resolve(name: str):
            if name in params:
                return _constant(params[name])
            if name in zones:
                return state_reader("zone", name)
            if name in vars_:
                return state_reader("var", name)
            if name in rs.maps:
                return _constant(rs.maps[name])
            if name == "current":
                return state_reader("current")
            if name == "num_players":
                return lambda env: env.state.num_players
            if name == "players":
                return lambda env: list(range(env.state.num_players))
            if name == "phase":
                return lambda env: env.state.phase
            if name == "turns_taken":
                return lambda env: env.state.turns
            return None

        self.functions = _ruleset_functions(rs)
        return Scope(
            resolve=resolve,
            codegen=FunctionTable(),
            functions=self.functions,
            attributes=frozenset(self.attributes),
            mutable=frozenset(self.mutable),
            global_names=lambda: list(params) + list(zones) + list(vars_) + list(rs.maps) + list(_SPECIAL_NAMES),
        )

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
        self.hidden_zones = {z.name for z in self.zones.values() if z.visibility == "hidden" and not z.keyed}
        specs = self.data.get("functions") or {}
        texts = {f: [spec.get("value")] for f, spec in specs.items() if isinstance(spec, dict)}
        reads: dict[str, tuple] = {f: () for f in texts}
        for _ in range(len(texts) + 1):
            new = {f: chance.order_reads(t, self.hidden_zones, reads) for f, t in texts.items()}
            if new == reads:
                break
            reads = new
        self.function_reads = reads

    def _compile_refills(self) -> None:
        for z in self.zones.values():
            if z.refill_from is not None:
                try:
                    z.refill_from = self.zone(z.refill_from, ("zones", z.name, "refill_from"), self.scope)
                except RulesetError as exc:
                    self.errors.append(exc)
                    z.refill_from = None

    def _declare_procedures(self) -> None:
        for pname, spec in (self.data.get("procedures") or {}).items():
            proc = Procedure()
            proc.name = pname
            proc.path = ("procedures", pname)
            if isinstance(spec, dict):
                proc.params = tuple(spec.get("params") or ())
                proc.spec = spec.get("do", [])
                proc.path = proc.path + ("do",)
            else:
                proc.params = ()
                proc.spec = spec
            proc.block = None
            self.procedures[pname] = proc

    def _compile_procedures(self) -> None:
        for proc in self.procedures.values():
            for p in proc.params:
                self._guard(self.check_local_name, p, ("procedures", proc.name, "params"))
            proc.block = self.block(proc.spec, proc.path, self.scope.with_locals(proc.params))

    def _compile_triggers(self) -> None:
        for i, spec in enumerate(self.data.get("triggers") or []):
            path = ("triggers", i)
            try:
                self.require(spec, ("on", "do"), path)
                params = tuple(spec.get("params") or ())
                scope = self.scope.with_locals(params)
                cond = self.expr(spec["if"], path + ("if",), scope) if "if" in spec else None
                block = self.block(spec["do"], path + ("do",), scope)
                self.triggers.setdefault(str(spec["on"]), []).append(Trigger(str(spec["on"]), params, cond, block))
            except RulesetError as exc:
                self.errors.append(exc)

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

    def _compile_facts(self, rs: Ruleset) -> None:
        """The game's declared facts, for every seat count: ``limits: {actions: N}`` (the most
        decisions a game takes), ``outcome: {range: [lo, hi]}`` (every score lies in it) and
        ``outcome: {sum: S}`` (every outcome's scores add up to S), each a number or an
        expression over the parameters and ``num_players``.  Sets ``rs.facts`` (seat count ->
        :class:`~interpreter.compile.ruleset.GameFacts`) and ``rs.action_limit`` (the most over the
        seat counts; ``DEFAULT_ACTIONS`` when undeclared)."""
        spec = self.data.get("outcome") or {}
        limits = self.data.get("limits") or {}
        scope = Scope(resolve=lambda n: _constant(rs.params[n]) if n in rs.params else None,
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


def _start_problem(kind: str, start: Any, zones: dict) -> str | None:
    """What is wrong with ``start: START`` of component kind ``kind`` (None when it names a
    shared zone): every component of a kind starts in one zone, so a per-player, counted or
    keyed zone (``hand``, ``hand[0]``) is refused with the ``setup`` that deals into it."""
    text = str(start)
    name = text.split("[", 1)[0].strip()
    decl = zones.get(name)
    if decl is None:
        close = close_matches(name, list(zones), n=3)
        hint = f"did you mean {', '.join(close)}?" if close else f"zones: {', '.join(zones) or 'none'}"
        return f"`start: {text}` names no zone; {hint}"
    if decl.depth == 0 and text == name:
        return None
    what = ("per player" if decl.per_player else "counted") if not decl.keyed else "keyed"
    if decl.per_player and decl.count is None:
        deal = f'- for_each: {{in: players, as: p, do: [{{move: {{from: deck, to: "{name}[p]", count: 5}}}}]}}'
    else:
        deal = f'- move: {{from: deck, to: "{name}[...]", count: 5}}'
    return (f"`start: {text}`: `start` puts every `{kind}` in one shared zone, and `{name}` is {what}; start them in a "
            f"shared zone (`start: deck`) and deal them in `setup`: `{deal}`")


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


def _constant(value):
    # Lists and dicts are shared, not copied: expressions never change values, and every place
    # a value is stored into the state (LValue.set) stores a copy.
    f = lambda env: value  # noqa: E731
    f.constant = value  # type: ignore[attr-defined]
    return f


class _MapsInPlace(dict):
    """``rs.maps`` while :meth:`_Compiler._compile_maps` fills it: a map stored under a name the
    early maps hold re-initialises that early object in place (the components' compiled labels
    and derived fields captured it), so every reader sees one, complete map."""

    def __init__(self, early: dict):
        super().__init__()
        self.early = early

    def __setitem__(self, name, gm) -> None:
        old = self.early.get(name)
        if old is not None and old is not gm:
            old.__init__(gm.name, gm.graph, gm.edge_list, gm.edge_kind, gm.edge_components)
            gm = old
        super().__setitem__(name, gm)


def _sorted_errors(errors: list[TapsterError]) -> list[TapsterError]:
    def key(e):
        m = e.mark
        return (m.file, m.line, m.column) if m else ("", 0, 0)

    seen = set()
    out = []
    for e in sorted(errors, key=key):
        s = str(e)
        if s not in seen:
            seen.add(s)
            out.append(e)
    return out


def _ruleset_functions(rs: Ruleset) -> dict[str, Builtin]:
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
        "edges_of": Builtin(edges_of, "edges_of(xs): the (a, b) node pairs of the map edge components among xs, in order",
                            (1, 1), True),
    }


__all__ += ["overlay", "available_rulesets", "BUILTINS"]


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
