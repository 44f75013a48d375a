"""One root error for everything a ruleset author or an agent can get wrong.

Every error a user can cause derives from :class:`TapsterError`; the CLI catches that one class
and prints ``file:line:col: message`` without a traceback.  Subclasses name the stage that found
the problem (load, schema, expression syntax, expression evaluation, flow, illegal action).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Mark",
    "TapsterError",
    "RulesetError",
    "LoadError",
    "SchemaError",
    "ExpressionSyntaxError",
    "ExpressionError",
    "CompileError",
    "FlowError",
    "IllegalActionError",
    "ScenarioFailure",
]


@dataclass(frozen=True, slots=True)
class Mark:
    """A place in a source file: ``file`` path, 1-based ``line`` and ``column``."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def shifted(self, column_offset: int) -> Mark:
        """The mark ``column_offset`` characters further along the same line."""
        return Mark(self.file, self.line, self.column + column_offset)


class TapsterError(Exception):
    """Root of every error a ruleset, a scenario, a log or an agent can cause.

    ``mark`` is where the problem is (may be None); ``excerpt`` an optional caret excerpt shown
    under the message.
    """

    def __init__(self, message: str, mark: Mark | None = None, excerpt: str | None = None):
        super().__init__(message)
        self.message = message
        self.mark = mark
        self.excerpt = excerpt

    def __str__(self) -> str:
        text = f"{self.mark}: {self.message}" if self.mark else self.message
        if self.excerpt:
            text += "\n" + self.excerpt
        return text


class RulesetError(TapsterError):
    """Something is wrong with a ruleset file (any stage before play)."""


class LoadError(RulesetError):
    """The YAML or an included table could not be read: syntax, duplicate keys, bombs, size."""


class SchemaError(RulesetError):
    """The ruleset does not match ``schemas/ruleset.schema.json``."""


class ExpressionSyntaxError(RulesetError):
    """An expression in the ruleset cannot be parsed; ``mark`` points inside the expression."""


class CompileError(RulesetError):
    """A ruleset is well formed but refers to something that does not exist or has a wrong type."""


class ExpressionError(TapsterError):
    """An expression failed while it was evaluated (unknown attribute, wrong type, division by zero,
    index out of range).  The message names the expression and where it came from."""


class FlowError(TapsterError):
    """The game's flow went wrong at run time: a step budget exhausted (a rule that loops forever),
    an effect applied to something of the wrong kind."""


class IllegalActionError(TapsterError):
    """An action that is not among the legal actions was applied.  The state is unchanged.

    ``legal`` holds the legal actions at that point.
    """

    def __init__(self, message: str, legal: tuple = ()):
        super().__init__(message)
        self.legal = legal


class ScenarioFailure(TapsterError):
    """A scenario's expectation did not hold."""


#: The most candidates "did you mean" compares a word with (those of similar length first).
MAX_SUGGESTION_CANDIDATES = 500


def close_matches(word: str, candidates, n: int = 3) -> list[str]:
    """Up to ``n`` of ``candidates`` close to ``word``, for "did you mean" hints.

    Bounded: only candidates whose length is within 3 of the word's are compared, at most
    MAX_SUGGESTION_CANDIDATES of them, so a ruleset with 30,000 names and 100 misspellings
    costs milliseconds, not minutes."""
    import difflib

    word = str(word)
    size = len(word)
    pool = [c for c in candidates if isinstance(c, str) and abs(len(c) - size) <= 3][:MAX_SUGGESTION_CANDIDATES]
    return difflib.get_close_matches(word, pool, n=n)
