"""The ruleset's declarations: component kinds and their components, zones, variables, maps.

:class:`Declarations` compiles ``components:`` (tables and items, ``copies``, ``derived``
fields, labels, ``props``, ``back``), ``zones:`` (per player, counted, keyed, refills),
``vars:`` and ``maps:`` (node and edge tables built into graphs, edges that are components) into
the :class:`~interpreter.compile.ruleset.Ruleset`; every problem is recorded with
file:line:column and compiling goes on.  Its scopes see the parameters and the maps only: the
components exist before any game.

Imports: :mod:`.context` (the compilation context it extends), the loader (tables, maps), the
limits and the model's Component.
"""

from __future__ import annotations

from typing import Any

from ..errors import CompileError, LoadError, Mark, TapsterError, close_matches
from ..lang.expression import Env, Scope
from ..limits import MAX_COMPONENTS, MAX_ZONE_COUNT
from ..loader import maps
from ..loader.load import load_table
from ..model import Component, render
from .context import NAME_RE, Context, constant
from .names import SPECIAL_NAMES
from .ruleset import Kind, Ruleset, VarDecl, ZoneDecl


class Declarations(Context):
    """The declarations stage of the compiler (see the module's docstring)."""

    def _compile_components(self, rs: Ruleset) -> None:
        rs.kinds = {}
        rs.components = []
        rs.by_id = {}
        rs.initial_props = {}
        self.mutable = set()
        self.attributes = {"id", "kind"}
        # a component's label, derived fields and props read its row, the parameters and the maps
        # (`node_attr(land, a, 'name')`: the nodes are built before the components, see _early_maps)
        param_scope = Scope(resolve=lambda n: constant(rs.params[n]) if n in rs.params else (
                                constant(rs.maps[n]) if n in rs.maps else None),
                            global_names=lambda: list(rs.params) + list(rs.maps))
        self.component_rows: dict = {}  # component id -> (its row's mark, an inline item's path or None)
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
            row_paths: list = [None] * len(rows)  # an inline item's path, for a cell's own mark
            for i, item in enumerate(spec.get("items") or []):
                rows.append(dict(item))
                row_marks.append(self.mark(path + ("items", i)))
                row_paths.append(path + ("items", i))
            key = spec.get("key")
            if spec.get("rows") is not None:
                self._change_rows(kname, spec, key, rows, row_marks, row_paths)
            row_copies = self._row_copies(kname, rows, row_marks, row_paths)
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
            row_copies = [copies if n is None else n for n in row_copies]  # a row's own `copies` cell wins
            if any(n != copies for n in row_copies) and len(rs.components) + sum(row_copies) > MAX_COMPONENTS:
                self.errors.append(self.error(
                    f"{kname}: the rows' `copies` add up to {sum(row_copies)}, which would make more than "
                    f"{MAX_COMPONENTS} components in the ruleset (the limit)", path))
                row_copies = [0] * len(rows)
            elif len(rs.components) + len(rows) * copies > MAX_COMPONENTS:
                self.errors.append(self.error(
                    f"{kname}: {len(rows)} rows × {copies} copies would make more than {MAX_COMPONENTS} components "
                    f"in the ruleset (the limit)", path + (("copies",) if "copies" in spec else ())))
                copies = 0
                row_copies = [0] * len(rows)
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
            for copy_no in range(max(row_copies, default=0)):  # copy by copy, as without a `copies` column
                for r, rmark, rpath, n in zip(rows, row_marks, row_paths, row_copies):
                    if copy_no >= n:
                        continue
                    if key is not None:
                        if key not in r:
                            self.errors.append(CompileError(f"row has no key column `{key}`", rmark))
                            continue
                        ident = f"{kname}-{r[key]}"
                    else:
                        ident = f"{kname}-{len(kind.components) + 1}"
                    if n > 1 and key is not None:
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
                    self.component_rows[ident] = (rmark, rpath)  # where its cells are written
                    kind.components.append(c)
            rs.kinds[kname] = kind
            _set_looks(kind.components)
        rs.components = tuple(rs.components)

    def _row_copies(self, kname: str, rows: list, row_marks: list, row_paths: list) -> list:
        """Each row's own ``copies`` cell (taken out of its fields), or None where it has none
        (the kind's ``copies`` then).  A cell that is not a whole number ≥ 0 is an error at the
        cell (a table's row), and the row is made once."""
        out: list = []
        for r, rmark, rpath in zip(rows, row_marks, row_paths):
            n = r.pop("copies", None)
            if n is not None and (type(n) is not int or n < 0):
                where = self.doc.text_mark(rpath + ("copies",)) if rpath is not None else rmark
                self.errors.append(CompileError(
                    f"{kname}: a row's `copies` is how many components the row makes, a whole number ≥ 0, "
                    f"found {render(n)!r}; write e.g. `copies: 3` (0 leaves the row out)", where))
                n = 1
            out.append(n)
        return out

    def _change_rows(self, kname: str, spec: dict, key: str | None, rows: list, row_marks: list,
                     row_paths: list) -> None:
        """``rows: {KEY: {FIELD: VALUE, ...}}`` (a variant's way to change a table): each named
        row's fields replaced or added, in place in ``rows`` (``copies: 0`` leaves the row out).

        Errors (appended, at the entry): the kind has no ``key:``; no row has that key (the
        nearest keys named); an entry that is not a mapping; an entry that changes the key.
        """
        path = ("components", kname, "rows")
        changes = spec["rows"]
        if not isinstance(changes, dict):
            self.errors.append(self.error(
                f"{kname}: `rows:` takes a mapping of rows' keys to the fields to change, found {render(changes)!r}", path))
            return
        if key is None:
            self.errors.append(self.error(
                f"{kname}: `rows:` changes rows by their key, and the kind has no `key:`; declare the column that "
                "names each row (`key: name`)", path))
            return
        index = {str(r.get(key)): i for i, r in enumerate(rows)}
        for k, fields in changes.items():
            i = index.get(str(k))
            if i is None:
                close = close_matches(str(k), list(index), n=3)
                hint = f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""
                self.errors.append(self.error(
                    f"{kname}: no row has `{key}: {k}`, so `rows:` cannot change it{hint} (expected the `{key}` of a "
                    "row of the table or `items:`)", path + (k,)))
                continue
            if not isinstance(fields, dict):
                self.errors.append(self.error(
                    f"{kname}: `rows: {{{k}: ...}}` takes a mapping of fields to new values, found {render(fields)!r}",
                    path + (k,)))
                continue
            if key in fields and str(fields[key]) != str(k):
                self.errors.append(self.error(
                    f"{kname}: `rows:` cannot change a row's key `{key}` (found {render(fields[key])!r} for row {k}); "
                    "add a row to the table instead", path + (k, key)))
                continue
            rows[i] = {**rows[i], **fields}
            row_marks[i] = self.mark(path + (k,))
            row_paths[i] = path + (k,)

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
            if z.refill_when == "immediately" and (z.refill_from is None or count is not None):
                self.errors.append(self.error(
                    "`refill_when: immediately` needs `refill_from` on one zone, or one zone a seat (no `count`), "
                    f"found {'no `refill_from`' if z.refill_from is None else '`count`'}; write e.g. "
                    "`{refill_from: discard, refill_when: immediately}`", path + ("refill_when",)))
                z.refill_when = "on_draw"
            z.depth = int(z.per_player) + int(count is not None)
            z.keyed = bool(spec.get("keyed", False))
            if z.keyed:
                if z.depth:
                    self.errors.append(self.error(
                        "a keyed zone is one shared zone: it cannot be `per_player` or have a `count`",
                        path + ("keyed",)))
                if z.visibility not in ("public", "hidden"):
                    self.errors.append(self.error(
                        f"a keyed zone is `public` or `hidden`, found `visibility: {z.visibility}`: its stacks belong to no "
                        f"seat and lie in order; write `visibility: public` or `visibility: hidden`, or drop `keyed: true`",
                        path + ("visibility",) if "visibility" in spec else path + ("keyed",)))
                if z.refill_from is not None:
                    self.errors.append(self.error("a keyed zone cannot be refilled", path + ("refill_from",)))
                    z.refill_from = None
                z.depth = 1
            if not NAME_RE.match(zname):
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
            if vname in self.zones or vname in rs.params or vname in SPECIAL_NAMES:
                self.errors.append(self.error(f"`{vname}` is already the name of a zone, parameter or built-in", ("vars", vname)))
            self.vars[vname] = v
        for pname in rs.params:
            if pname in self.zones or pname in SPECIAL_NAMES:
                self.errors.append(self.error(f"`{pname}` is already the name of a zone or built-in", ("params", pname)))
        rs.vars = self.vars

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


class _MapsInPlace(dict):
    """``rs.maps`` while :meth:`Declarations._compile_maps` fills it: a map stored under a name the
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


def _set_looks(components: list) -> None:
    """Each component's ``look``: the first of ``components`` (one kind's, in order) whose
    fields but ``id`` are the same as its own (the copies of one row look alike)."""
    first: dict = {}
    for c in components:
        key = repr(sorted((k, repr(v)) for k, v in c.fields.items() if k != "id"))
        c.look = first.setdefault(key, c)
