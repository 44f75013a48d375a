"""The games ``tapster check``'s checks play: how many, and how each is played and recorded.

:class:`Games` is a check's plan of seeds (fixed, or adaptive within a time budget until every
decision reached has been reached often enough); :class:`Game` is one game played with a
record of its actions, so that a failure (:class:`CheckFailure`) carries the seed, the seat
count and the actions that reproduce it; :func:`random_game` plays one to its end with a random
agent; :class:`CheckResult` is what a check reports.  The checks themselves are in
:mod:`.check_rules`, :mod:`.check_secrecy` and :mod:`.check_templates`; :mod:`.check` runs them.

Imports: the compiled Ruleset (type), the engine's random generator; nothing else of the package.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..compile.ruleset import Ruleset
from ..engine.rng import Rng

#: The default time budget of ``tapster check``, in processor seconds per ruleset (and variant),
#: shared equally by the checks: a small game is then played :data:`ENOUGH_GAMES` times per check
#: (a three-card poker's 200 games take well under the budget), a long one a few times (a
#: three-day race on a map: 3 to 20 games), about 2 to 6 seconds a ruleset in all.
BUDGET = 4.0

#: Games each check plays at least, by default.
MIN_GAMES = 3

#: Games after which a check stops by default even while its time lasts (once every decision
#: reached has been reached :data:`PER_DECISION` times).
ENOUGH_GAMES = 200

#: Times each decision (``choose``) the games reach must be reached before a check stops.
PER_DECISION = 5

#: A check stops at this many times its share of the budget, whatever it has reached.
HARD_LIMIT = 3

#: Moves after which a game counts as not ending.
MOVE_LIMIT = 20_000


class Games:
    """The seeds one check plays: ``fixed`` seeds, or (``fixed`` None) an adaptive plan: seeds
    1, 2, ... while fewer than :data:`MIN_GAMES` were played, or the check's ``seconds`` (of
    processor time, so that a busy machine changes the number of games little) last
    (and fewer than :data:`ENOUGH_GAMES` were played), or a decision reached so far was reached
    fewer than :data:`PER_DECISION` times; never past :data:`HARD_LIMIT` times ``seconds``
    (after :data:`MIN_GAMES`).  Iterate it once per check; a check's games count the decisions
    they reach in ``reached`` (``choose`` name -> times pending), ``played`` counts the seeds
    handed out and finished, ``stopped`` says why the plan stopped (for the detail line)."""

    def __init__(self, fixed=None, seconds: float = BUDGET / 8):
        self.fixed = None if fixed is None else tuple(fixed)
        self.seconds = seconds
        self.reached: Counter = Counter()
        self.played = 0
        self.stopped = ""
        self.start = time.process_time()

    def __len__(self) -> int:
        return self.played

    def elapsed(self) -> float:
        """Processor seconds (this process's, so that other work on the machine changes the
        number of games little) since the plan started."""
        return time.process_time() - self.start

    def short(self) -> list[str]:
        """The decisions reached fewer than :data:`PER_DECISION` times."""
        return sorted(k for k, v in self.reached.items() if v < PER_DECISION)

    def _enough(self) -> bool:
        if self.played < MIN_GAMES:
            return False
        elapsed = self.elapsed()
        if elapsed >= HARD_LIMIT * self.seconds:
            self.stopped = "the time limit"
            return True
        if self.short():
            return False
        if elapsed >= self.seconds:
            self.stopped = "the time budget"
            return True
        if self.played >= ENOUGH_GAMES:
            self.stopped = f"{ENOUGH_GAMES} games"
            return True
        return False

    def __iter__(self) -> Iterator[int]:
        self.start = time.process_time()
        self.played = 0
        self.reached.clear()
        if self.fixed is not None:
            for seed in self.fixed:
                yield seed
                self.played += 1
            return
        seed = 0
        while not self._enough():
            seed += 1
            yield seed
            self.played += 1

    def next_seed(self) -> int:
        """The first seed after those handed out (for games played on beyond the plan)."""
        if self.fixed is not None:
            return max(self.fixed, default=0) + 1
        return self.played + 1


class CheckFailure(Exception):
    """An invariant does not hold: ``message`` says which, ``seed`` and ``players`` make the game,
    ``actions`` (action strings, in order) replay it from the start to the failing point."""

    def __init__(self, message: str, seed: int | None = None, players: int | None = None, actions: list[str] | None = None):
        super().__init__(message)
        self.message = message
        self.seed = seed
        self.players = players
        self.actions = list(actions or [])


@dataclass
class CheckResult:
    """One check on one ruleset (and variant): ``ok``; ``detail`` (a line saying what was
    checked, or what failed); on failure ``seed``, ``players`` and ``actions`` reproducing it;
    ``notes``: lines worth reading on a pass (the templates no game reached)."""

    name: str
    ok: bool
    detail: str
    seed: int | None = None
    players: int | None = None
    actions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """The result as JSON data (``name``, ``ok``, ``detail``, ``seed``, ``players``, ``actions``, ``notes``)."""
        return {"name": self.name, "ok": self.ok, "detail": self.detail, "seed": self.seed,
                "players": self.players, "actions": self.actions, "notes": self.notes}


class Game:
    """A game being played with a record of its actions (for the reproduction of a failure)."""

    def __init__(self, rs: Ruleset, players: int, seed: int, seeds: Games | None = None):
        self.seed, self.players = seed, players
        self.actions: list[str] = []
        self.reached = seeds.reached if isinstance(seeds, Games) else None
        try:
            self.st = rs.new_game(players, seed=seed, log=True)
        except Exception as exc:  # noqa: BLE001 - an error in `setup` (a log line too) is the failure
            raise self.fail(f"setting up the game raised {type(exc).__name__}: {exc}") from None

    def fail(self, message: str) -> CheckFailure:
        return CheckFailure(message, self.seed, self.players, self.actions)

    def apply(self, action) -> None:
        self.actions.append(str(action))
        if self.reached is not None and self.st.pending is not None:
            self.reached[getattr(self.st.pending[0], "name", None)] += 1
        try:
            self.st.apply(action)
        except Exception as exc:  # noqa: BLE001 - any error (a broken log template too) is the failure
            raise self.fail(f"{type(exc).__name__}: {exc}") from None

    def legal(self) -> list:
        try:
            legal = self.st.legal_actions()
        except Exception as exc:  # noqa: BLE001
            raise self.fail(f"listing the legal actions raised {type(exc).__name__}: {exc}") from None
        if not legal:
            raise self.fail("a pending decision lists no legal action")
        return legal


def player_counts(rs: Ruleset) -> list[int]:
    return sorted({rs.min_players, rs.default_players, rs.max_players})


def random_game(rs: Ruleset, players: int, seed: int, agent_seed: int, seeds: Games | None = None) -> Game:
    g = Game(rs, players, seed, seeds)
    rng = Rng(agent_seed)
    longest = getattr(rs.facts.get(players), "actions", None)
    while not g.st.is_terminal():
        if len(g.actions) >= MOVE_LIMIT:
            raise g.fail(f"the game did not end in {MOVE_LIMIT} moves")
        if longest is not None and len(g.actions) >= longest:
            raise g.fail(f"the game goes on after {longest} decisions, the declared longest game "
                         f"(`limits: {{actions: {longest}}}` with {players} players)")
        g.apply(rng.choice(g.legal()))
    for p in range(players):
        for line in g.st.visible_log(p):
            if not isinstance(line, str):
                raise g.fail(f"a log line of seat {p} is not text: {line!r}")
    return g


def decl_mark(rs: Ruleset, name) -> str:
    choose = next((c for c in rs.chooses if c.name == name), None)
    mark = getattr(choose, "mark", None)
    return f" ({mark.file}:{mark.line}:{mark.column})" if mark is not None else ""


def coverage_notes(rs: Ruleset, seeds: Games) -> list[str]:
    """A note per decision (``choose``) the games never reached or reached fewer than
    :data:`PER_DECISION` times."""
    games = f"{len(seeds)} game{'s' if len(seeds) != 1 else ''}"
    notes = [f"decision {c.name}{decl_mark(rs, c.name)} never reached in {games}"
             for c in rs.chooses if not seeds.reached.get(c.name)]
    notes += [f"decision {name}{decl_mark(rs, name)} reached only {seeds.reached[name]} times in {games}"
              for name in seeds.short()]
    return notes


def stopped_note(seeds: Games) -> str:
    return f" (stopped by {seeds.stopped})" if seeds.stopped else ""


def games_played(seeds: Games) -> str:
    why = f", stopped by {seeds.stopped}" if seeds.stopped else ""
    return f"{len(seeds)} seed{'s' if len(seeds) != 1 else ''}{why}"
