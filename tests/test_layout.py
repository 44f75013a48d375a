"""The package reads as the pipeline: every module imports only modules below it, so there is
no circle (imports inside functions and under TYPE_CHECKING are for type hints and lazy
loading, and are checked to point down too)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "interpreter"

#: Bottom to top: each module may import only modules earlier in this list.
LAYERS = [
    "limits",                                   # the one table of limits
    "errors", "model", "rng", "load", "maps",  # plain data, chance, safe YAML, map graphs
    "builtins", "codegen", "schema",            # the language's functions; the code generator; the schema
    "params",                                   # parameter declarations (kind, range); variant composition
    "expression",                               # the expression language (parser, reference evaluator)
    "domains",                                  # the values an option's in: can give, read from the expression
    "lint",                                     # load-time warnings (values that look like null or expressions)
    "flow", "flowgen",                          # effect verbs and the runner; the flow's code generator
    "chance",                                   # explicit chance points and lazy deals
    "publicity",                                # what a display text may reveal
    "faces",                                    # card faces: a component's fixed fields and abilities in words
    "state", "render", "ruleset",               # a game; its display; the compiled ruleset
    "compiler",                                 # document -> Ruleset
    "facts",                                    # a game's facts: utility bounds and longest game, declared or enumerated
    "encoding",                                 # a ruleset as index spaces and tensors
    "scenarios", "search", "view", "termview", "terminal", "agents",  # scenarios; search agents; a seat's view; the terminal table; agents
    "analysis",                                 # simulations, their statistics, perft
    "check",                                    # generic invariants of any ruleset (tapster check)
    "stats", "balance", "runner",               # intervals and tests; balance metrics; backends
    "tune", "report",                           # the search over parameters (tapster tune); HTML and plots
    "openspiel", "pettingzoo",                  # the adapters (optional extras)
    "store", "webview", "serve",                # the browser table: its database, a seat's HTML, the server
    "cli", "__init__",                          # the command line; the public names
]


def _imports(path: Path, lazy: bool) -> set[str]:
    """The package modules ``path`` imports at module level (or, with ``lazy``, anywhere)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    nodes = ast.walk(tree) if lazy else tree.body
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module.split(".")[0])
            else:
                out.update(a.name for a in node.names)
    return out


def test_every_module_is_in_a_layer():
    modules = {p.stem for p in PACKAGE.glob("*.py")}
    assert modules == set(LAYERS), f"add to LAYERS: {modules - set(LAYERS)}; remove: {set(LAYERS) - modules}"


def test_imports_only_point_down():
    rank = {m: i for i, m in enumerate(LAYERS)}
    for module in LAYERS:
        for lazy in (False, True):
            for imported in _imports(PACKAGE / f"{module}.py", lazy):
                if imported == module:
                    continue
                allowed = rank[imported] < rank[module]
                # a module may name a higher one lazily only for type hints (TYPE_CHECKING)
                if not allowed and lazy:
                    src = (PACKAGE / f"{module}.py").read_text(encoding="utf-8")
                    allowed = "TYPE_CHECKING" in src and f"from .{imported} import" in src.split("if TYPE_CHECKING:")[1][:400]
                assert allowed, f"interpreter/{module}.py imports {imported}, which is above it"
