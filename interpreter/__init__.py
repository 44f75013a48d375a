"""Tapster: a declarative rules-as-data interpreter for tabletop games.

The pipeline, one module a stage, each importing only the ones before it (tests/test_layout.py):
``load`` (safe YAML with marks) -> ``schema`` (JSON Schema) -> ``expression`` (the language:
parser and reference evaluator; its functions in ``builtins``) -> ``codegen``/``flowgen`` (the
code generator) -> ``flow`` (effect verbs and the runner) -> ``state`` (a game as plain data)
-> ``ruleset`` (the compiled, immutable :class:`Ruleset`) -> ``compiler`` (variants, names,
expressions -> Ruleset) -> ``scenarios``, ``agents`` -> ``analysis`` (simulations,
statistics, perft) -> ``cli`` (arguments and printing only).
"""

from .compile.compiler import RulesetErrors, available_rulesets, find_ruleset, load_ruleset
from .compile.ruleset import Ruleset
from .engine.state import State, new_game
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
