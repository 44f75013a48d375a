"""The driver: ``tapster play|replay|serve|validate|test|check|info|schema|map|simulate|analyse|compare|tune|perft``.

``main(argv) -> int`` runs one command in-process and returns its exit code: 0 success, 1 a
failure (an invalid ruleset, a failed scenario, a replay mismatch, an illegal action, a game
abandoned), 2 a usage error (unknown option, missing argument, bad option value).  A user's
mistake is printed to stderr as ``file:line:col: message`` lines, never as a traceback.

RULESET arguments are a path (a ``ruleset.yaml`` or its folder) or a bare name under the
installed ``rulesets/`` folder (``beer_flights``).  Seats are called P1, P2... in text output and
numbered from 0 in JSON output (``winners: [0]`` is P1).

One module a command group, each command a thin function over the library: ``common`` (the
click group, ``main``, shared options), ``play`` (play, replay, serve), ``author`` (validate,
test, check, info, schema, map) and ``analyse`` (simulate, analyse, compare, tune, perft).
"""

from ..analysis.simulate import agent_seed, game_seed, perft
from ..analysis.simulate import perft_subtrees as _perft_subtrees
from . import analyse, author, play  # noqa: F401  (each registers its commands on the group)
from .common import cli, main, print_error
from .play import LOG_FORMAT

__all__ = ["main", "cli", "game_seed", "agent_seed", "perft", "print_error", "LOG_FORMAT", "_perft_subtrees"]
