"""Stages 2-4: apply a variant, validate against the schema, compile to an immutable Ruleset.

``load_ruleset(path, variant=None)`` is the one entry point: it reads the YAML (and the tables
it includes), overlays the chosen variant, validates the result against
``schemas/ruleset.schema.json``, then compiles every expression once with Lark into closures,
resolves every name (zones, variables, parameters, procedures, events) and builds the
:class:`Ruleset`.  Every problem found is reported with file:line:column; as many as can be found
are reported at once (:class:`RulesetErrors`).

This module is the driver: finding and loading a ruleset, overlaying variants, and :class:`Ctx`,
which runs the compiler's stages in order: the declarations (:mod:`.declarations`), the global
scope, the functions (:mod:`.functions`), procedures, triggers, the setup and the flow (effects,
compiled against :mod:`.context`), the outcome and facts (:mod:`.outcome`) and the display
(``interpreter.views.render``).

Imports: the loader (YAML, schema, parameters), ``interpreter.lang`` (the code generator's
table, the parse-tree cache), the engine (``flowgen``, chance modes), the views' display compiler
and the compile stages below it.
"""

from __future__ import annotations

import copy
from pathlib import Path

from ..engine import flowgen
from ..engine.chance import MODES
from ..engine.places import SeatZoneRef
from ..errors import CompileError, LoadError, RulesetError, TapsterError, close_matches
from ..lang import codegen, parser
from ..lang.codegen import FunctionTable
from ..lang.expression import BUILTINS, Scope, state_reader
from ..lang.frags import numeric_depth
from ..limits import DEFAULT_ACTIONS, DEFAULT_MEMORY, DEFAULT_STEPS, DEFAULT_WORK
from ..loader import schema
from ..loader.load import Document, load_yaml, recording
from ..loader.params import keep_declarations, param_values, variant_chain
from ..views.render import compile_display
from .context import constant
from .declarations import Declarations
from .functions import Functions, ruleset_builtins
from .names import SPECIAL_NAMES
from .outcome import Outcome
from .references import check_by_players, check_dynamic_calls
from .ruleset import Procedure, Ruleset, Trigger, VarDecl, ZoneDecl

__all__ = ["Ruleset", "RulesetErrors", "load_ruleset", "find_ruleset", "RULESETS_DIR", "ZoneDecl", "VarDecl"]


#: Where bare ruleset names are looked up: the ``rulesets/`` folder shipped with the package.
RULESETS_DIR = schema._data_dir("rulesets")


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
    name_or_path: str | Path, variant: str | None = None, overrides: dict | None = None, chance: str = "sample",
    *, blocks: bool = True,
) -> Ruleset:
    """Load, overlay ``variant`` (and ``overrides``, e.g. ``{"params": {"turns": 3}}``),
    validate and compile a ruleset.

    ``blocks=False`` generates no code for the flow (:func:`interpreter.engine.flowgen.finalize`
    is not run): for checking a ruleset, not playing it.  The problems found are the same (the
    flow's code is generated only once the ruleset has none, and a block that cannot be generated
    falls back, never fails), and such a ruleset still plays the same games, on the frame runner,
    effect by effect, several times slower.

    Raises:
        LoadError: the file cannot be read or is not safe, well-formed YAML.
        RulesetErrors: schema and compile problems (every one found, most relevant first).
        RulesetError: an unknown variant.
    """
    path = find_ruleset(name_or_path)
    with recording() as reads:
        rs = _load(path, variant, overrides, chance, blocks)
    rs.files = tuple(dict.fromkeys(reads))
    return rs


def _load(path: Path, variant: str | None, overrides: dict | None, chance: str, blocks: bool) -> Ruleset:
    """:func:`load_ruleset` of the file at ``path``, its reads recorded by the caller."""
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
    ctx = Ctx(doc, path, variant, explicit=chance == "explicit", blocks=blocks)
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeError):
        source = None
    cached = parser.preload_trees(source, path) if source is not None else False
    outer, parser.RECORD = parser.RECORD, set()
    try:
        rs = ctx.compile()
        texts = parser.RECORD
    finally:
        parser.RECORD = outer
    if source is not None and not cached:
        parser.save_trees(source, texts, path)  # the next run needs neither Lark nor parsing
    rs.chance = chance
    rs.load_args = (path, variant, overrides)
    return rs


Ruleset.loader = staticmethod(load_ruleset)


def overlay(doc: Document, over: dict, over_path: tuple | None) -> Document:
    """``doc`` with the mapping ``over`` overlaid: mappings merge recursively, anything else
    replaces (a list replaces a list).  ``over_path`` is where ``over`` stands in ``doc`` (a
    variant), so that marks follow the overlay; None for data from elsewhere (overrides).

    Linear in the size of the overlay and of the marks, not of the document: only the mappings
    on the overlay's paths are copied (shallow), the values it brings are deep-copied, and every
    other value is shared with ``doc`` (documents are never changed once loaded: the compiler
    only reads them).  The marks of every replaced value are dropped in one pass, and the
    overlay's own marks added in another."""
    replaced: list[tuple] = []

    def merge(base: dict, new: dict, path: tuple) -> dict:
        out = dict(base)
        for k, v in new.items():
            if isinstance(v, dict) and isinstance(base.get(k), dict):
                out[k] = merge(base[k], v, path + (k,))
                continue
            out[k] = copy.deepcopy(v)
            replaced.append(path + (k,))
        return out

    data = merge(doc.data, over, ())
    if over_path is None:
        return Document(data, dict(doc.marks), doc.file, dict(doc.texts))
    gone = set(replaced)
    heads = {g[0] for g in gone}

    def kept(m: tuple) -> bool:
        return not m or m[0] not in heads or not any(m[:i] in gone for i in range(1, len(m) + 1))

    n = len(over_path)

    def moved(table: dict) -> dict:
        out = {m: mark for m, mark in table.items() if kept(m)}
        for m, mark in table.items():
            if m[:n] == over_path and len(m) > n:
                rest = m[n:]
                if not kept(rest):
                    out[rest] = mark
        return out

    return Document(data, moved(doc.marks), doc.file, moved(doc.texts))


# ---------------------------------------------------------------------------------------------
# The compiler: the stages in order


class Ctx(Declarations, Functions, Outcome):
    """The whole compiler: the compilation context (:class:`~interpreter.compile.context.Context`)
    with every stage; :meth:`compile` runs them in order and builds the Ruleset."""

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
        caps = limits.get("caps", ())
        rs.cap_reasons = tuple(str(x) for x in caps) if isinstance(caps, list) else ()
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
        self._compile_metrics(rs)
        self._compile_facts(rs)
        rs.display = self._guard(compile_display, self, d.get("display"))
        self.errors.extend(check_dynamic_calls(self, rs))  # procedure names made from table data
        if parser.RECORD:  # values per player count in table cells and parameters
            self.errors.extend(check_by_players(self, rs, parser.RECORD))
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
        if not self.errors and codegen.ENABLED and not self.explicit and self.generate_blocks:
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

    def _global_scope(self, rs: Ruleset) -> Scope:
        params, zones, vars_ = rs.params, self.zones, self.vars

        def resolve(name: str):
            if name in params:
                return constant(params[name])
            if name in zones:
                reader = state_reader("zone", name)
                reader.depth = -1 if zones[name].keyed else zones[name].depth  # the indexes to one of its lists (-1: keyed)
                return reader
            if name in vars_:
                reader = state_reader("var", name)
                decl = vars_[name]
                # a hint for the code generator (Frag.num): how many indexes lead to a number
                d = numeric_depth(decl.value)
                reader.ndepth = None if d is None else d + (1 if decl.per_player else 0)
                return reader
            if name in rs.maps:
                return constant(rs.maps[name])
            if name == "current":
                return state_reader("current")
            if name == "num_players":
                return _seats_reader(lambda env: env.state.num_players, "env.state.num_players")
            if name == "players":
                return _seats_reader(lambda env: list(range(env.state.num_players)), "[*H_prange(env.state.num_players)]")
            if name == "phase":
                return lambda env: env.state.phase
            if name == "turns_taken":
                return lambda env: env.state.turns
            return None

        self.functions = ruleset_builtins(rs)
        return Scope(
            resolve=resolve,
            codegen=FunctionTable(),
            functions=self.functions,
            attributes=frozenset(self.attributes),
            mutable=frozenset(self.mutable),
            global_names=lambda: list(params) + list(zones) + list(vars_) + list(rs.maps) + list(SPECIAL_NAMES),
        )

    def _compile_refills(self) -> None:
        """Compile each zone's ``refill_from``: a zone reference (seen from the game: no seat is
        in scope), or, for a per-player zone, a per-player zone named bare (``discard``), which
        means the same seat's (:class:`~interpreter.engine.places.SeatZoneRef`)."""
        for z in self.zones.values():
            if z.refill_from is not None:
                path = ("zones", z.name, "refill_from")
                src = self.zones.get(z.refill_from) if isinstance(z.refill_from, str) else None
                if z.per_player and src is not None and src.per_player and src.count is None and not src.keyed:
                    z.refill_from = SeatZoneRef(src, z.refill_from, self.doc.text_mark(path))
                    continue
                if z.per_player and z.refill_when == "immediately":
                    # each seat's zone refills at once from its own seat's: nothing else names one source a seat
                    named = z.refill_from.split("[")[0].strip() if isinstance(z.refill_from, str) else z.refill_from
                    self.errors.append(CompileError(
                        f"`refill_when: immediately` on the per-player zone `{z.name}` refills each seat's from that "
                        f"seat's own zone, so `refill_from` names a per-player zone bare (one zone a seat), found "
                        f"`{z.refill_from}`"
                        + (f"; write `refill_from: {named}`" if named in self.zones and self.zones[named].per_player
                           and self.zones[named].count is None else "; make the source per-player and name it bare"),
                        self.doc.text_mark(path)))
                    z.refill_from, z.refill_when = None, "on_draw"
                    continue
                try:
                    z.refill_from = self.zone(z.refill_from, path, self.scope)
                except RulesetError as exc:
                    named = self.zones.get(z.refill_from.split("[")[0].strip()) if isinstance(z.refill_from, str) else None
                    if (z.per_player and named is not None and named.per_player and named.count is None
                            and not named.keyed):
                        exc = CompileError(
                            f"{exc.message}; write `{named.name}`: a per-player zone named bare means the same seat's "
                            f"(`{z.name}` of seat 2 refills from `{named.name}` of seat 2)", exc.mark)
                    elif src is not None and src.per_player and not z.per_player:
                        exc = CompileError(
                            f"{exc.message}; the zone `{z.name}` is shared, so no seat is implied: name the seat "
                            f"(`{src.name}[0]`), or make `{z.name}` per-player to refill each seat's from its own "
                            f"`{src.name}`", exc.mark)
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


__all__ += ["overlay", "available_rulesets", "BUILTINS"]

#: The state builtins under their name before the split (tests/test_docs.py imports it).
_ruleset_functions = ruleset_builtins


def _seats_reader(f, source: str):
    """``f`` (a reader of the seats' count or list) tagged with the Python ``source`` the code
    generator writes in its place (:meth:`~interpreter.lang.genexpr.ExpressionForms.g_name`):
    the same value without a call."""
    f.inline_source = source
    return f
