"""Tapster: a declarative rules-as-data interpreter for tabletop games.

The pipeline, one module a stage, each importing only the ones before it (tests/test_layout.py):
``load`` (safe YAML with marks) -> ``schema`` (JSON Schema) -> ``expression`` (the language:
parser and reference evaluator; its functions in ``builtins``) -> ``codegen``/``flowgen`` (the
code generator) -> ``flow`` (effect verbs and the runner) -> ``state`` (a game as plain data)
-> ``ruleset`` (the compiled, immutable :class:`Ruleset`) -> ``compiler`` (variants, names,
expressions -> Ruleset) -> ``scenarios``, ``agents`` -> ``analysis`` (simulations,
statistics, perft) -> ``cli`` (arguments and printing only).
"""

from typing import TYPE_CHECKING

from .errors import (
    CompileError,
    ExpressionError,
    ExpressionSyntaxError,
    FlowError,
    IllegalActionError,
    LoadError,
    Mark,
    RulesetError,
    ScenarioFailure,
    SchemaError,
    TapsterError,
)
from .model import Action, Component, Decision, Outcome

if TYPE_CHECKING:  # what the lazy names below are, for type checkers and editors
    from .compile.compiler import RulesetErrors, available_rulesets, find_ruleset, load_ruleset
    from .compile.ruleset import Ruleset
    from .engine.state import State, new_game

#: The public names that need the compiler or the engine, imported on first use (PEP 562), so
#: that ``import interpreter`` (and ``tapster --help``) does not pay for YAML, the language and
#: the engine: name -> (module, attribute).
_LAZY = {
    "RulesetErrors": ("compile.compiler", "RulesetErrors"),
    "available_rulesets": ("compile.compiler", "available_rulesets"),
    "find_ruleset": ("compile.compiler", "find_ruleset"),
    "load_ruleset": ("compile.compiler", "load_ruleset"),
    "Ruleset": ("compile.ruleset", "Ruleset"),
    "State": ("engine.state", "State"),
    "new_game": ("engine.state", "new_game"),
}


def __getattr__(name: str):
    """``interpreter.load_ruleset`` and the other names of ``_LAZY``, imported when first read.

    Raises:
        AttributeError: ``name`` is not a public name of the package.
    """
    if name not in _LAZY:
        raise AttributeError(f"module 'interpreter' has no attribute {name!r}")
    from importlib import import_module

    module, attr = _LAZY[name]
    value = getattr(import_module(f".{module}", __name__), attr)
    globals()[name] = value  # read once: later reads are plain attribute reads
    return value


#: Modules that moved, importable from their old names for one release with a
#: ``DeprecationWarning`` (CHANGELOG.md): old dotted name -> new one.
MOVED_MODULES = {
    "interpreter.openspiel": "interpreter.interop.openspiel",
    "interpreter.pettingzoo": "interpreter.interop.pettingzoo",
}


class _MovedModules:
    """The import system's finder and loader for :data:`MOVED_MODULES`: importing an old name
    warns (``DeprecationWarning``) and gives the module under its new name (the same object)."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name not in MOVED_MODULES:
            return None
        from importlib.util import spec_from_loader

        return spec_from_loader(name, _MovedModules)

    @staticmethod
    def create_module(spec):
        import warnings
        from importlib import import_module

        new = MOVED_MODULES[spec.name]
        warnings.warn(f"{spec.name} moved to {new}: import it from there (the old name goes in the next release; "
                      "see CHANGELOG.md)", DeprecationWarning, stacklevel=2)
        return import_module(new)

    @staticmethod
    def exec_module(module):
        pass


def _install_moved_modules() -> None:
    import sys

    if _MovedModules not in sys.meta_path:
        sys.meta_path.append(_MovedModules)


_install_moved_modules()


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "Action",
    "Component",
    "CompileError",
    "Decision",
    "ExpressionError",
    "ExpressionSyntaxError",
    "FlowError",
    "IllegalActionError",
    "LoadError",
    "Mark",
    "Outcome",
    "Ruleset",
    "RulesetError",
    "RulesetErrors",
    "ScenarioFailure",
    "SchemaError",
    "State",
    "TapsterError",
    "available_rulesets",
    "find_ruleset",
    "load_ruleset",
    "new_game",
]
