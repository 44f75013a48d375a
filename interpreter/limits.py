"""Every limit Tapster sets, in one table: the resource model of "Limits and safety" (docs/reference.md).

Each module that enforces a limit imports its number from here; ``tests/test_limits.py``
checks that no other module defines one of its own, that the reference's table (docs/reference.md) states every
value below, and that the schema's maximums for ``limits:`` are the ones here.  A ruleset may
raise ``steps``, ``actions``, ``work`` and ``memory`` under ``limits:`` (up to their maximums); a user may
lower the command line's counts with its options.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Limit", "LIMITS"]

# -- a ruleset's own budgets (`limits:`), default and maximum ------------------------------------
DEFAULT_STEPS = 200_000
MAX_STEPS = 100_000_000
DEFAULT_ACTIONS = 100_000
MAX_ACTIONS = 100_000_000
DEFAULT_WORK = 10_000_000
MAX_WORK = 1_000_000_000
DEFAULT_MEMORY = 4_000_000  # items and characters of the lists, texts and ranges one move builds
MAX_MEMORY = 100_000_000

# -- what one ruleset may declare ---------------------------------------------------------------
MAX_COMPONENTS = 100_000
MAX_ZONE_COUNT = 10_000
MAX_VARIANTS = 100
MAX_EXPRESSION_CHARS = 10_000
MAX_NESTING = 100

# -- values ---------------------------------------------------------------------------------------
MAX_ITEMS = 1_000_000  # a list or text an expression builds
MAX_INT_BITS = 4096
MAX_NUMBER_CHARS = 1300
MAX_VALUE_ITEMS = 10_000  # a value stored by `set`
MAX_VALUE_DEPTH = 32
MAX_VALUE_TEXT = 1_000_000
MAX_FUNCTION_CALLS = 200_000
MAX_DICE = 10_000

# -- drawings -------------------------------------------------------------------------------------
MAX_BOARD_CELLS = 10_000
MAX_CELL_WIDTH = 200

# -- files ----------------------------------------------------------------------------------------
MAX_YAML_BYTES = 2 * 1024 * 1024
MAX_YAML_NODES = 200_000
MAX_YAML_DEPTH = 64
MAX_YAML_EXPANDED = 2 * 1024 * 1024  # characters of a file's scalars, its aliases written out
MAX_LOG_BYTES = 64 * 1024 * 1024
MAX_LOG_ACTIONS = 1_000_000
MAX_SAVED_DEPTH = 64
MAX_SAVED_SIZE = 50_000_000

# -- the command line -----------------------------------------------------------------------------
MAX_GAMES = 10_000_000
MAX_PLAYERS = 64
MAX_JOBS = 256
MAX_PERFT_DEPTH = 64
MAX_SEED = 2**64 - 1
MAX_PARAM_TEXT = 10_000

# -- the search agents ----------------------------------------------------------------------------
MAX_PLAYOUT_DEPTH = 10_000  # actions of one playout (`depth=`): what a deadline may overrun by is one playout


class Limit(NamedTuple):
    """One row of the table: ``name`` (the constant), ``value``, ``what`` it bounds."""

    name: str
    value: int
    what: str


#: The table, in the reference's order (docs/reference.md, "Limits and safety").
LIMITS: tuple[Limit, ...] = (
    Limit("DEFAULT_STEPS", DEFAULT_STEPS, "effects run in one move (`limits: {steps}`)"),
    Limit("MAX_STEPS", MAX_STEPS, "the most `limits: {steps}` may ask"),
    Limit("DEFAULT_ACTIONS", DEFAULT_ACTIONS, "actions in one game played out (`limits: {actions}`)"),
    Limit("MAX_ACTIONS", MAX_ACTIONS, "the most `limits: {actions}` may ask"),
    Limit("DEFAULT_WORK", DEFAULT_WORK, "work in one move or load-time evaluation (`limits: {work}`)"),
    Limit("MAX_WORK", MAX_WORK, "the most `limits: {work}` may ask"),
    Limit("DEFAULT_MEMORY", DEFAULT_MEMORY,
          "items and characters of the lists, texts and ranges built in one move or load-time evaluation (`limits: {memory}`)"),
    Limit("MAX_MEMORY", MAX_MEMORY, "the most `limits: {memory}` may ask"),
    Limit("MAX_COMPONENTS", MAX_COMPONENTS, "components of one ruleset"),
    Limit("MAX_ZONE_COUNT", MAX_ZONE_COUNT, "zones of one counted zone"),
    Limit("MAX_VARIANTS", MAX_VARIANTS, "variants of one ruleset"),
    Limit("MAX_EXPRESSION_CHARS", MAX_EXPRESSION_CHARS, "characters of one expression"),
    Limit("MAX_NESTING", MAX_NESTING, "levels of nesting in one expression"),
    Limit("MAX_ITEMS", MAX_ITEMS, "items or characters of a list or text an expression builds"),
    Limit("MAX_INT_BITS", MAX_INT_BITS, "bits of a whole number"),
    Limit("MAX_NUMBER_CHARS", MAX_NUMBER_CHARS, "characters of a number in YAML, tables and expressions"),
    Limit("MAX_VALUE_ITEMS", MAX_VALUE_ITEMS, "items of a value stored by `set`"),
    Limit("MAX_VALUE_DEPTH", MAX_VALUE_DEPTH, "levels of a value stored by `set`"),
    Limit("MAX_VALUE_TEXT", MAX_VALUE_TEXT, "characters of text in a value stored by `set`"),
    Limit("MAX_FUNCTION_CALLS", MAX_FUNCTION_CALLS, "ruleset function calls for one value (reference evaluator)"),
    Limit("MAX_DICE", MAX_DICE, "dice of one `roll`"),
    Limit("MAX_BOARD_CELLS", MAX_BOARD_CELLS, "places of a board drawing"),
    Limit("MAX_CELL_WIDTH", MAX_CELL_WIDTH, "characters of one place of a board drawing"),
    Limit("MAX_YAML_BYTES", MAX_YAML_BYTES, "bytes of a ruleset or table file"),
    Limit("MAX_YAML_NODES", MAX_YAML_NODES, "nodes of a YAML file"),
    Limit("MAX_YAML_DEPTH", MAX_YAML_DEPTH, "levels of a YAML file"),
    Limit("MAX_YAML_EXPANDED", MAX_YAML_EXPANDED, "characters of a YAML file's values with its aliases written out"),
    Limit("MAX_LOG_BYTES", MAX_LOG_BYTES, "bytes of a replay log"),
    Limit("MAX_LOG_ACTIONS", MAX_LOG_ACTIONS, "actions of a replay log (a longer game is played, not logged)"),
    Limit("MAX_SAVED_DEPTH", MAX_SAVED_DEPTH, "levels of a value in a saved state"),
    Limit("MAX_SAVED_SIZE", MAX_SAVED_SIZE, "characters and items of a saved state"),
    Limit("MAX_GAMES", MAX_GAMES, "`--games`"),
    Limit("MAX_PLAYERS", MAX_PLAYERS, "seats of a game (`players:`, `--players`, saved states, logs)"),
    Limit("MAX_JOBS", MAX_JOBS, "`--jobs`"),
    Limit("MAX_PERFT_DEPTH", MAX_PERFT_DEPTH, "`--depth` of perft"),
    Limit("MAX_PARAM_TEXT", MAX_PARAM_TEXT, "characters of a `--param` value"),
    Limit("MAX_PLAYOUT_DEPTH", MAX_PLAYOUT_DEPTH, "actions of one search playout (`mcts:depth=`, `ismcts:depth=`)"),
)
