"""Tapster: a declarative rules-as-data interpreter for tabletop games.

The pipeline, one module a stage: ``load`` (safe YAML with marks) -> ``schema`` (JSON Schema) ->
``compiler`` (variants, names, expressions -> immutable :class:`Ruleset`) -> ``state`` (a game as
plain data) -> ``flow`` (effect verbs and the runner) -> ``agents`` -> ``cli``.
"""

from .compiler import Ruleset, RulesetErrors, available_rulesets, find_ruleset, load_ruleset
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
from .state import State, new_game

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
