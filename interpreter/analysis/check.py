"""Generic invariants of any ruleset (``tapster check``; OpenSpiel's random_sim_test, in spirit).

Every check plays random games over several seeds and reports a :class:`CheckResult`; a failed
check carries the seed and the action sequence that reproduce the failure.  The checks are:

- ``games end``: random games end, every pending decision lists an action, the outcome has a
  score and a place per seat, every log line (logs are on) renders, and the game stays inside
  the ruleset's declared facts (each score within ``outcome: {range}``, their sum
  ``outcome: {sum}``, no more decisions than ``limits: {actions}``); the decisions the games
  never reached (or reached fewer than :data:`PER_DECISION` times) are named in notes;
- ``score at every step``: the ruleset's score (``outcome.score``) is defined for every seat at
  every step of the games, not only at the end: greedy agents, searches cut at their depth and
  ``tapster analyse``'s score trace read it mid-game;
- ``legal actions apply``: every listed legal action applies to a copy, an unlisted one is
  refused with :class:`IllegalActionError` and the state unchanged;
- ``clone and JSON round trip``: a clone and a ``to_json``/``from_json`` copy continue exactly
  as the original under the same actions, and playing them leaves the original unchanged;
- ``same seed, same game``: two games with the same seed and agent seed are equal byte for byte;
- ``observations hide``: an observation never shows a component of a zone the seat may not see;
- ``secret decisions``: at a ``secret: true`` decision the actions of one option leave every
  other seat's observation and log identical (their information set is one);
- ``views hide``: each seat's view (the observation with the display's public text, drawn as
  the terminal draws it) is the same in a world the seat cannot tell apart from the game
  (``State.determinize``), and the display renders for every seat and an observer; the parts
  of the display that only an observer sees (they read hidden information) are named in notes;
  a failure names the part of the view that differs (a zone, a variable, the outcome, a display
  line) with both values, and the usual fix;
- ``templates render``: every template of the flow (a decision's prompt, an option's label, a
  ``log`` line, an ``end_game`` reason) renders without error wherever random games reach it,
  the prompt and every label at every decision; the templates never reached are named in a
  note (a PASS: random games need not reach every line).  A prompt, label or log line that
  shows a raw identifier from a component's table (a snake_case cell such as ``from_discard``)
  fails it, naming the template: players read words (a card's ability belongs on its face,
  ``display.faces``, or in the template's own words).

How many games: given seeds (``tapster check --games N`` plays seeds 1..N), or by default a
:class:`Games` plan per check: at least :data:`MIN_GAMES` games, then on while its share of the
time budget lasts (up to :data:`ENOUGH_GAMES` games: small games are played many times, which is
what catches a leak that shows only in some deals), and on past it until every decision the games
reach has been reached :data:`PER_DECISION` times, within a hard limit of
:data:`HARD_LIMIT` times the share.  The seed of a failure reproduces it whatever the budget.

The test suite (``tests/analysis/test_invariants.py``) runs these same functions on every shipped ruleset.

The checks live by family: :mod:`.check_rules` (the game runs by its rules),
:mod:`.check_secrecy` (hidden information stays hidden), :mod:`.check_templates` (templates
render, in words), over the games of :mod:`.check_games`; this module is the driver: the list of
checks in the order they run, and running them.

Imports: the check modules of this package and the compiled Ruleset (type).
"""

from __future__ import annotations

from collections.abc import Callable

from ..compile.ruleset import Ruleset
from .check_games import BUDGET, ENOUGH_GAMES, HARD_LIMIT, MIN_GAMES, MOVE_LIMIT, PER_DECISION, CheckFailure, CheckResult, Games
from .check_rules import TREE_STATES, check_games_end, check_legal_actions, check_round_trip, check_same_seed, check_score
from .check_secrecy import END_WORLDS, VIEW_WORLDS, check_observations, check_secret_decisions, check_views
from .check_templates import EXTRA_GAMES, check_templates, raw_cells

__all__ = ["CheckResult", "CheckFailure", "CHECKS", "SEEDS", "Games", "BUDGET", "run_checks", "run_check", "raw_cells",
           "MIN_GAMES", "ENOUGH_GAMES", "PER_DECISION", "HARD_LIMIT", "MOVE_LIMIT", "TREE_STATES", "EXTRA_GAMES",
           "VIEW_WORLDS", "END_WORLDS"]

#: Seeds for a quick run (``tapster check --games 3``; the default is a :class:`Games` plan).
SEEDS = (1, 2, 3)


#: (name, function(rs, seeds) -> detail, or (detail, notes)) in the order they run.
CHECKS: list[tuple[str, Callable[[Ruleset, tuple], str | tuple[str, list[str]]]]] = [
    ("games end", check_games_end),
    ("score at every step", check_score),
    ("legal actions apply", check_legal_actions),
    ("clone and JSON round trip", check_round_trip),
    ("same seed, same game", check_same_seed),
    ("observations hide", check_observations),
    ("secret decisions", check_secret_decisions),
    ("views hide", check_views),
    ("templates render", check_templates),
]


def _plan(seeds, seconds: float | None) -> Games:
    if isinstance(seeds, Games):
        return seeds
    if seeds is None:
        return Games(None, (BUDGET if seconds is None else seconds) / len(CHECKS))
    return Games(tuple(seeds))


def run_check(rs: Ruleset, name: str, seeds=None, budget: float | None = None) -> CheckResult:
    """Run the check called ``name`` (a name of :data:`CHECKS`) on ``rs`` over ``seeds`` (an
    iterable of seeds), or by default a :class:`Games` plan given its share of ``budget``
    seconds (default :data:`BUDGET`, the budget of all the checks of one ruleset).

    Any exception a game raises (a broken log template, an effect error) is a failure too,
    reported with its type and message and the moves up to it.

    Raises:
        KeyError: no check called ``name``.
    """
    fn = dict(CHECKS)[name]
    try:
        detail = fn(rs, _plan(seeds, budget))
        if isinstance(detail, tuple):
            return CheckResult(name, True, detail[0], notes=list(detail[1]))
        return CheckResult(name, True, detail)
    except CheckFailure as f:
        return CheckResult(name, False, f.message, f.seed, f.players, f.actions)
    except Exception as exc:  # noqa: BLE001 - the error is the failure reported
        return CheckResult(name, False, f"{type(exc).__name__}: {exc}")


def run_checks(rs: Ruleset, seeds=None, budget: float | None = None) -> list[CheckResult]:
    """Every check of :data:`CHECKS` on ``rs`` over ``seeds`` (default: a :class:`Games` plan
    per check within ``budget`` seconds for them all), in order (one result each)."""
    return [run_check(rs, name, seeds, budget) for name, _ in CHECKS]
