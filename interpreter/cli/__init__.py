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
info, schema, map), ``checks`` (test, check) and ``analyse`` (simulate, analyse, compare, tune, perft).  A
command's module is imported when the command runs; the names below are imported on first use.
"""

from __future__ import annotations

import sys

__all__ = ["main", "cli", "game_seed", "agent_seed", "perft", "print_error", "LOG_FORMAT"]

#: The package's other public names, imported when first read (PEP 562): name -> (module, attribute).
_LAZY = {
    "cli": ("common", "cli"),
    "print_error": ("common", "print_error"),
    "LOG_FORMAT": ("play", "LOG_FORMAT"),
    "game_seed": ("..analysis.simulate", "game_seed"),
    "agent_seed": ("..analysis.simulate", "agent_seed"),
    "perft": ("..analysis.simulate", "perft"),
    "_perft_subtrees": ("..analysis.simulate", "perft_subtrees"),
}


def main(argv: list[str] | None = None) -> int:
    """Run the ``tapster`` command line with ``argv`` (``sys.argv[1:]`` when None); return the
    exit code (0 success, 1 failure, 2 usage error, 130 interrupted by Ctrl-C).  Never raises
    for a user's mistake; a Ctrl-C while the command line's own modules load is an interrupt too."""
    try:
        from .common import main as run
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    return run(argv)


def __getattr__(name: str):
    """``interpreter.cli.cli``, ``perft`` and the other names of ``_LAZY``, imported when first read.

    Raises:
        AttributeError: ``name`` is not a name of the package.
    """
    if name not in _LAZY:
        raise AttributeError(f"module 'interpreter.cli' has no attribute {name!r}")
    from importlib import import_module

    module, attr = _LAZY[name]
    value = getattr(import_module(module if module.startswith("..") else f".{module}", __name__), attr)
    globals()[name] = value
    return value
