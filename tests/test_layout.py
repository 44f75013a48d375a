"""The package reads as the pipeline: subpackages in stage order, and every module imports only
modules below it — an earlier package, or an earlier module of its own package — so there is no
circle (imports inside functions and under TYPE_CHECKING are for type hints and lazy loading, and
are checked to point down too, unless they sit under TYPE_CHECKING)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "interpreter"

#: Bottom to top: the stages, each a subpackage (``""``: the roots at the top of ``interpreter/``),
#: and inside each its modules, bottom to top.  A module may import only modules earlier in this
#: order.  ``interpreter/__init__.py`` (the public names) is the top of everything.
STAGES = [
    ("", ["limits", "errors", "model"]),                    # the one table of limits; the error hierarchy; plain values
    ("loader", ["load", "maps", "schema", "params", "results"]),  # safe YAML, tables; maps; the schema; parameters; results by content
    # the language's functions; what generated code calls; the code generator (its vocabulary, expression forms, statement
    # forms, entry points); the parser; name resolution (Scope, Env); the reference evaluator; compile_expression and templates
    ("lang", ["builtins", "runtime", "frags", "genexpr", "genstmt", "codegen", "parser", "scope", "evaluator", "expression"]),
    # the generator; zone references and value limits; blocks and the runner; verbs that change the table; choose; control,
    # output and chance verbs; decision-free effects as code; blocks as code; chance; a saved state as JSON; a seat's worlds; a game;
    # playouts inside the generated code
    ("engine", ["rng", "places", "runner", "changes", "decisions", "flow", "effectgen", "flowgen", "chance", "saved", "worlds", "state",
                "playout"]),
    ("views", ["publicity", "faces", "render", "view", "termview", "screen", "spectator", "takeback", "terminal", "maplabels",
               "webview"]),  # what people see
    ("compile", ["lint", "ruleset", "names", "context", "declarations", "functions", "outcome", "references", "compiler",
                 "facts"]),
    # warnings; the compiled ruleset; why a name is out of scope; the compilation context effects see; its stages: declarations, functions,
    # outcome; procedure names a dynamic call builds from table data; the driver (document -> Ruleset); a game's facts
    ("agents", ["search", "core"]),                         # search agents; the agent protocol and specs
    # the tensor's layout (and the variables' static types); index spaces (reading those types); the encoding; the adapters
    # (Gymnasium's opponents are agents)
    ("interop", ["layout", "domains", "encoding", "openspiel", "gymnasium", "pettingzoo"]),
    ("analysis", ["simulate", "scenarios", "check_games", "check_rules", "check_secrecy", "check_templates", "check",
                  "stats", "balance", "runner", "tune", "report"]),  # many games (check: its games, three families, the driver)
    ("web", ["store", "guards", "tables", "server", "playtest"]),       # the browser table: its store; limits, request checks, agent pool;
    # the live tables; routes and serve; the take-back, spectator and replay routes
    ("cli", ["common", "play", "author", "checks", "analyse"]),  # the command line: shared options; a module per command group
]


def _order() -> dict[str, int]:
    """Every module's dotted name below ``interpreter`` -> its rank."""
    rank, i = {}, 0
    for package, modules in STAGES:
        prefix = f"{package}." if package else ""
        if package and package != "cli":
            rank[f"{package}.__init__"] = i
            i += 1
        for m in modules:
            rank[prefix + m] = i
            i += 1
        if package == "cli":  # the CLI's __init__ gathers its command groups; __main__ runs it
            rank["cli.__init__"], rank["cli.__main__"] = i, i + 1
            i += 2
    rank["__init__"] = i + 1
    return rank


def _name(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    return ".".join(rel.parts)


def _resolve(module: str, node: ast.ImportFrom) -> list[str]:
    """The package modules an ``from . import`` names, as dotted names below ``interpreter``."""
    parts = module.split(".")
    base = parts[:-1]                       # the module's package
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    target = base + (node.module.split(".") if node.module else [])
    if node.module:
        return [".".join(target)]
    return [".".join(target + [a.name]) for a in node.names]


def _imports(path: Path, lazy: bool) -> set[str]:
    """The package modules ``path`` imports at module level (or, with ``lazy``, anywhere)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in (ast.walk(tree) if lazy else tree.body):
        if isinstance(node, ast.ImportFrom) and node.level >= 1:
            out.update(_resolve(_name(path), node))
    return out


def _type_checking_imports(path: Path) -> set[str]:
    """The modules imported under ``if TYPE_CHECKING:`` (type hints only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in ast.walk(node):
                if isinstance(sub, ast.ImportFrom) and sub.level >= 1:
                    out.update(_resolve(_name(path), sub))
    return out


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_module_is_in_a_stage():
    rank = _order()
    names = {_name(p) for p in _modules()}
    assert names == set(rank), f"add to STAGES: {names - set(rank)}; remove: {set(rank) - names}"


def test_stage_packages_say_their_stage():
    for package, _ in STAGES:
        if package:
            doc = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text(encoding="utf-8")))
            assert doc, f"interpreter/{package}/__init__.py has no docstring saying its stage"


def test_imports_only_point_down():
    rank = _order()
    for path in _modules():
        module = _name(path)
        hints = _type_checking_imports(path)
        for lazy in (False, True):
            for imported in _imports(path, lazy):
                if imported not in rank and f"{imported}.__init__" in rank:
                    imported = f"{imported}.__init__"          # a package: its __init__
                elif imported not in rank and "." in imported:  # a name from a package's __init__
                    package = imported.rsplit(".", 1)[0]
                    imported = f"{package}.__init__" if f"{package}.__init__" in rank else package
                assert imported in rank, f"{path}: imports {imported}, which is no module of the package"
                if imported == module or rank[imported] < rank[module]:
                    continue
                assert lazy and imported in hints, f"interpreter/{module.replace('.', '/')}.py imports {imported}, which is above it"
