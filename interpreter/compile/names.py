"""Why a name is unknown where it is not in scope (issue 31).

An expression that names something the ruleset has elsewhere — a variable or a zone in a
component's label, a ``for_each`` variable after its loop, a procedure's parameter in the flow
that calls it, a column of another component kind, a map's node key written bare — fails to
compile with ``unknown name``.  :class:`NameIndex` knows every name the ruleset declares or binds
and where (file:line:column), and :meth:`NameIndex.why` turns the bare ``unknown name `x``` into
"unknown name `x` here: `x` is a `for_each` variable of phase `deal` (rules.yaml:12:9), not in
scope in a component's `label:` (...)".  The index is built only when such an error happens.

Imports: the roots (errors' Mark) and the loader's Document (marks of the document's nodes).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import Mark
from ..loader.load import Document

#: The names every expression of a running game knows, which no variable or parameter may take,
#: with what they are.
SPECIAL_NAMES = {
    "current": "the seat whose turn it is (0-based)",
    "num_players": "how many players there are",
    "players": "the list of seats, 0 to num_players - 1",
    "phase": "the name of the current phase",
    "turns_taken": "turns begun per seat (a list)",
}

#: Where a flow's local names come from, said once for every place in a flow.
_FLOW_LOCALS = ("a name bound by `for_each`, `repeat`, `let`, `random`, `roll` or an option's `for:` is seen "
                "only inside it, or after it in the same list of effects")


class NameIndex:
    """Every name the document declares or binds, by name: ``(what it is, where it is bound)``.

    ``kinds`` and ``maps`` give the compiled component kinds and maps when asked (the columns of
    the kinds and the node keys of the maps are names too, of another kind); they are read when
    the first unknown name is explained, so compiling a correct ruleset costs nothing here.
    """

    def __init__(self, doc: Document, kinds: Callable[[], dict], maps: Callable[[], dict]):
        self.doc = doc
        self.kinds = kinds
        self.maps = maps
        self._index: dict[str, list[tuple[str, Mark | None, str]]] | None = None

    # -- the index ---------------------------------------------------------------------------
    def _add(self, name: Any, what: str, path: tuple, advice: str = "") -> None:
        if isinstance(name, str) and name:
            self._index.setdefault(name, []).append((what, self.doc.mark(path) if path else None, advice))

    def _build(self) -> dict[str, list[tuple[str, Mark | None, str]]]:
        self._index = {}
        data = self.doc.data if isinstance(self.doc.data, dict) else {}
        for name, what in SPECIAL_NAMES.items():
            self._add(name, f"{what}, known only while a game runs", ())
        for section, what in (("vars", "a variable"), ("zones", "a zone"), ("params", "a parameter"), ("maps", "a map")):
            for name in _mapping(data.get(section)):
                self._add(name, what, (section, name))
        for fname, spec in _mapping(data.get("functions")).items():
            for i, p in enumerate(_names(_mapping(spec).get("params"))):
                self._add(p, f"a parameter of function `{fname}`", ("functions", fname, "params", i))
        for pname, spec in _mapping(data.get("procedures")).items():
            for i, p in enumerate(_names(_mapping(spec).get("params"))):
                self._add(p, f"a parameter of procedure `{pname}`", ("procedures", pname, "params", i))
            body = spec.get("do") if isinstance(spec, dict) else spec
            self._walk(body, ("procedures", pname) + (("do",) if isinstance(spec, dict) else ()), f" in procedure `{pname}`")
        for i, spec in enumerate(data.get("triggers") or []):
            spec = _mapping(spec)
            on = spec.get("on", "?")
            for j, p in enumerate(_names(spec.get("params"))):
                self._add(p, f"a parameter of the trigger on `{on}`", ("triggers", i, "params", j))
            self._walk(spec.get("do"), ("triggers", i, "do"), f" in the trigger on `{on}`")
        for section in ("setup", "flow"):
            self._walk(data.get(section), (section,), f" in `{section}`")
        self._walk(data.get("display"), ("display",), " in the display", display=True)
        derived = {}
        for kname, spec in _mapping(data.get("components")).items():
            derived[kname] = _mapping(_mapping(spec).get("derived"))
            for d in derived[kname]:
                self._add(d, f"a `derived:` field of component kind `{kname}`", ("components", kname, "derived", d),
                          "a derived field reads its row and the fields derived before it, in order; "
                          "elsewhere read it from a component: `c." + d + "`")
        for kname, kind in (self.kinds() or {}).items():
            for f in sorted(getattr(kind, "fields", ()) or ()):
                if f not in ("id", "kind") and f not in derived.get(kname, {}):
                    self._add(f, f"a field of component kind `{kname}`", ("components", kname), f"read it from a component: `c.{f}`")
        for mname, gm in (self.maps() or {}).items():
            graph = getattr(gm, "graph", None)
            for node in (graph.nodes if graph is not None else ()):
                if isinstance(node, str):
                    self._add(node, f"a node of map `{mname}`", ("maps", mname, "nodes"),
                              f"a node is named by its key as a text: `'{node}'`")
        return self._index

    def _walk(self, node: Any, path: tuple, where: str, display: bool = False) -> None:
        """Record the names the effects (or display lines) under ``node`` bind."""
        todo = [(node, path, where)]
        while todo:
            node, path, where = todo.pop()
            if isinstance(node, list):
                todo.extend((x, path + (i,), where) for i, x in reversed(list(enumerate(node))))
                continue
            if not isinstance(node, dict):
                continue
            for verb, what in (("for_each", "a `for_each` variable"), ("repeat", "a `repeat` counter"),
                               ("random", "the value a `random` binds"), ("roll", "the value a `roll` binds")):
                spec = node.get(verb)
                if isinstance(spec, dict):
                    self._add(spec.get("as"), what + where, path + (verb, "as"))
            for k in _mapping(node.get("let")):
                self._add(k, "a `let` name" + where, path + ("let", k))
            choose = node.get("choose")
            if isinstance(choose, dict):
                decision = f" of decision `{choose['name']}`" if choose.get("name") else ""
                for i, opt in enumerate(choose.get("options") or []):
                    opt = _mapping(opt)
                    for n in _names(opt.get("for")):
                        self._add(n, f"a name bound by option `{opt.get('action', '?')}`{decision}{where}",
                                  path + ("choose", "options", i, "for"))
            if display:
                for n in _names(node.get("for")):
                    self._add(n, "a name bound by a display line's `for:`", path + ("for",))
            phase = node.get("phase")
            if isinstance(phase, dict) and phase.get("name"):
                self._add(str(phase["name"]), "the name of a phase", path + ("phase", "name"),
                          f"compare it as a text: `phase == '{phase['name']}'`")
            for k, v in node.items():
                inner = f" of phase `{phase['name']}`" if k == "phase" and isinstance(phase, dict) and phase.get("name") else where
                if isinstance(v, (dict, list)):
                    todo.append((v, path + (k,), inner))

    # -- the explanation ---------------------------------------------------------------------
    def why(self, name: str, path: tuple) -> str | None:
        """Why ``name`` is unknown in the expression at ``path`` (a path into the document): what
        the name is elsewhere, where (file:line:column), and what the place at ``path`` sees; None
        when the ruleset has no such name anywhere (the plain error, with its suggestions, stands)."""
        index = self._index if self._index is not None else self._build()
        found = index.get(name)
        if not found:
            return None
        what, mark, advice = found[0]
        at = f" ({mark})" if mark is not None else ""
        more = f" (and {len(found) - 1} other place(s))" if len(found) > 1 else ""
        return f"`{name}` is {what}{at}{more}, not in scope in {self.place(path)}" + (f"; {advice}" if advice else "")

    def place(self, path: tuple) -> str:
        """The place at ``path`` in words, with what an expression there sees."""
        data = self.doc.data if isinstance(self.doc.data, dict) else {}
        head = path[0] if path else None
        key = path[2] if len(path) > 2 else None
        if head == "components" and len(path) > 2:
            kind = path[1]
            sees = "its row, the parameters and the maps: components are made before any game"
            if key == "label":
                return f"a component's `label:` (kind `{kind}`; a label reads {sees})"
            if key == "derived" and len(path) > 3:
                return f"a component's `derived:` field `{path[3]}` (kind `{kind}`; it reads {sees}, and the fields derived before it)"
            if key == "props":
                return f"a component's `props:` (kind `{kind}`; the initial values read {sees})"
            if key == "copies":
                return f"a component kind's `copies:` (kind `{kind}`; it reads the parameters and the maps)"
        if head == "functions" and len(path) > 1:
            return f"the body of function `{path[1]}` (a function sees its parameters and the game, not its caller's names)"
        if head == "procedures" and len(path) > 1:
            return (f"procedure `{path[1]}`{_in_phase(data, path)} (a procedure sees its `params`, given by "
                    f"`call: {{with: ...}}`, and the game; {_FLOW_LOCALS})")
        if head == "triggers" and len(path) > 1:
            spec = _at(data, path[:2])
            return (f"the trigger on `{_mapping(spec).get('on', '?')}`{_in_phase(data, path)} (a trigger sees its `params`, "
                    f"given by `emit: {{with: ...}}`, and the game; {_FLOW_LOCALS})")
        if head in ("setup", "flow"):
            phase = _phase(data, path)
            return f"{f'phase `{phase}`' if phase else f'`{head}`'} at this point ({_FLOW_LOCALS})"
        if head == "outcome" and len(path) > 1:
            part = path[1]
            if part in ("range", "sum"):
                return f"`outcome: {{{part}}}` (it reads the parameters and `num_players`)"
            if part in ("score", "tiebreak", "heuristic"):
                return f"`outcome: {{{part}}}` (it sees `p`, the seat, and the game)"
            return f"`outcome: {{{part}}}` (it sees the game)"
        if head == "limits":
            return "`limits:` (it reads the parameters and `num_players`)"
        if head == "display":
            return "the display at this point (a line sees the game, and the names its own `for:` and `let:` bind)"
        if head == "zones" and len(path) > 2:
            return f"zone `{path[1]}`'s `{path[2]}:` (it sees the game)"
        return "this place"



def _phase(data: dict, path: tuple) -> str | None:
    """The name of the innermost phase around ``path``, or None."""
    name = None
    for i, k in enumerate(path):
        if k == "phase":
            spec = _at(data, path[: i + 1])
            if isinstance(spec, dict) and spec.get("name"):
                name = spec["name"]
    return name


def _in_phase(data: dict, path: tuple) -> str:
    phase = _phase(data, path)
    return f" in phase `{phase}`" if phase else ""


def _mapping(x: Any) -> dict:
    return x if isinstance(x, dict) else {}


def _names(x: Any) -> list:
    """The names a ``params:``/``for:`` holds: one name, or a list of them."""
    if isinstance(x, str):
        return [x]
    return [n for n in x if isinstance(n, str)] if isinstance(x, list) else []


def _at(data: Any, path: tuple) -> Any:
    for k in path:
        try:
            data = data[k]
        except (KeyError, IndexError, TypeError):
            return None
    return data
