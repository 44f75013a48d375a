"""``tapster tune``: search a ruleset's parameters for the values that meet balance targets.

A *space* is a parameter and its range (``turns=6..14`` whole numbers, ``rate=0.5..1.5`` reals,
``draft=true,false`` choices); a *target* is a metric of the balance report and what it should be
(``first_player_advantage=0``, ``duration=20..30``, ``drawishness<=0.05``).  Optuna's TPE sampler
(integer, real and categorical spaces; multi-objective with more than one target) proposes
settings; each *trial* plays its games through the same runner as ``analyse`` (game i seeded
``(SEED, i)`` on every trial, so trials share seeds and differ only by their settings) and is
scored by each target's *distance*: how far the metric's estimate lies outside the target (0
inside it).

- A setting **meets** a target when the metric's 95% interval reaches the target (the target is
  not rejected at the 5% level).
- **Pruning** (one target): a trial plays in doubling rounds (``first`` games, then doubling
  up to its games); after each round, Optuna's median pruner may stop
  a trial whose distance is worse than the median of earlier trials at that round, but only
  once the trial's interval at the sequential test's level (below) excludes the target (a
  setting that may still meet it is not dropped on noise).
- **``--games auto``** plays a trial in the same doubling rounds (``first`` games, then doubling up to
  ``max_games``: K rounds) and stops it at the first round where the target is decided: every
  target's interval at level ``1 - alpha/K`` lies inside the target (met), or one lies outside
  it (missed), or every 95% interval is within ``precision`` (as close as it will get).
  Bonferroni over the K looks keeps the chance of deciding wrongly about a target at most
  ``alpha`` (5%) per trial.
- Trials share seeds, so the best setting is compared with the **runner-up** as pairs of games
  (:func:`interpreter.analysis.balance.compare` with pairs: McNemar's exact test or the paired t on the
  per-seed differences), over the games both played: is the best really better?
- The best setting is played again on **fresh seeds** (games ``offset..offset+n`` of the same
  seed, indices no trial played) to confirm it.

Everything depends only on the seed: the same seed gives the same trials and the same answer
(not with ``seconds``, which stops on the clock).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import TapsterError
from .balance import PerGame, Tally, compare, metrics

__all__ = ["Space", "Target", "parse_space", "parse_target", "TARGET_METRICS", "TuneSettings", "Tuner", "estimate_of",
           "sequential_rounds", "CHOICE_RULES", "is_share", "metric_words"]

#: Target metric names -> (key in :func:`interpreter.analysis.balance.metrics`, words, is a share).
TARGET_METRICS = {
    "first_player_advantage": ("advantage_p1", "first-player advantage", True),
    "advantage_p1": ("AdvantageP1", "AdvantageP1 (win rate of who moved first)", True),
    "drawishness": ("Drawishness", "Drawishness", True),
    "duration": ("Duration", "Duration (turns)", False),
    "decisions": ("decisions", "decisions per game", False),
    "margin": ("margin", "winning margin", False),
    "lead_change": ("LeadChange", "LeadChange (per turn)", False),
    "drama": ("Drama", "Drama", False),
    "decisiveness": ("Decisiveness", "Decisiveness", False),
    "position_spread": ("position_spread", "spread of win rates across turn positions (highest - lowest)", True),
}

#: The rules :class:`Tuner` may choose by among the settings that meet every target (``--choose``).
CHOICE_RULES = {
    "nearest": "the setting nearest the ruleset's current value, then the one nearest the middle of the range that "
               "meets the targets",
    "middle": "the setting nearest the middle of the range that meets the targets",
    "closest": "the setting whose estimates lie closest to the targets",
}


def estimate_of(m: dict, name: str) -> dict | None:
    """Target metric ``name``'s estimate (``{"value", "low", "high", ...}``) in metrics ``m``
    (a distribution's mean; a declared metric's per-game mean), or None when the games gave none."""
    if name not in TARGET_METRICS:
        for d in m.get("declared") or ():
            if d["name"] == name:
                return d["mean"]
        return None
    e = m.get(TARGET_METRICS[name][0])
    if isinstance(e, dict) and isinstance(e.get("mean"), dict):
        e = e["mean"]
    return e


def is_share(name: str) -> bool:
    """Whether target metric ``name`` is a share (0..1; a declared metric is not)."""
    return name in TARGET_METRICS and TARGET_METRICS[name][2]


def metric_words(name: str, declared: dict | None = None) -> str:
    """The words a report prints for target metric ``name`` (a declared metric: its name and
    description from ``declared``, name -> ``{"description"}``)."""
    if name in TARGET_METRICS:
        return TARGET_METRICS[name][1]
    desc = ((declared or {}).get(name) or {}).get("description")
    return f"{name} ({desc})" if desc else name


def _number(text: str, what: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        x = float(text)
    except ValueError:
        raise TapsterError(f"{what}: {text!r} is not a number") from None
    if not math.isfinite(x):
        raise TapsterError(f"{what}: {text!r} is not a finite number")
    return x


def _bounded(x: int | float, what: str) -> int | float:
    if abs(x) >= 2**63:
        raise TapsterError(f"{what}: {x} is beyond ±2**63")
    return x


@dataclass(frozen=True)
class Space:
    """A parameter to search: ``kind`` ``int`` or ``real`` (from ``low`` to ``high``, both
    included) or ``choice`` (one of ``choices``)."""

    name: str
    kind: str
    low: float | int | None = None
    high: float | int | None = None
    choices: tuple = ()

    def values(self) -> list | None:
        """Every value of a finite space (ints, choices), else None."""
        if self.kind == "int":
            return list(range(self.low, self.high + 1))
        if self.kind == "choice":
            return list(self.choices)
        return None

    def ends(self) -> list:
        """The values to check against the ruleset's declaration: both ends, or every choice."""
        return list(self.choices) if self.kind == "choice" else [self.low, self.high]

    def to_json(self) -> dict:
        """``{"name", "kind", "low", "high", "choices"}``."""
        return {"name": self.name, "kind": self.kind, "low": self.low, "high": self.high, "choices": list(self.choices)}


def parse_space(text: str, read_value: Callable[[str, str], object] | None = None) -> Space:
    """``NAME=LO..HI`` (whole numbers: ``int``; else ``real``) or ``NAME=A,B,...`` (choices, each
    read by ``read_value(name, text)``, plain YAML by default).

    Raises:
        TapsterError: not of either form, an empty range (LO above HI), fewer than two choices.
    """
    name, sep, rest = text.partition("=")
    name = name.strip()
    if not sep or not name or not rest.strip():
        raise TapsterError(f"--param {text!r}: write NAME=LO..HI (turns=6..14) or NAME=A,B,... (draft=true,false)")
    if ".." in rest:
        lo_text, _, hi_text = rest.partition("..")
        lo = _bounded(_number(lo_text.strip(), f"--param {name}"), f"--param {name}")
        hi = _bounded(_number(hi_text.strip(), f"--param {name}"), f"--param {name}")
        if lo > hi:
            raise TapsterError(f"--param {name}={rest}: the range is empty ({lo} is above {hi})")
        kind = "int" if isinstance(lo, int) and isinstance(hi, int) else "real"
        return Space(name, kind, lo if kind == "int" else float(lo), hi if kind == "int" else float(hi))
    if read_value is None:
        import yaml

        def read_value(n, t):
            return yaml.safe_load(t)
    choices = tuple(read_value(name, part.strip()) for part in rest.split(","))
    if len(set(map(repr, choices))) < 2:
        raise TapsterError(f"--param {name}={rest}: give a range LO..HI or at least two choices A,B")
    for c in choices:
        if not (c is None or isinstance(c, (bool, int, float, str))):
            raise TapsterError(f"--param {name}: a choice is a number, text, true or false, not {c!r}")
    return Space(name, "choice", choices=choices)


@dataclass(frozen=True)
class Target:
    """What metric ``metric`` (a name of :data:`TARGET_METRICS`) should be: within
    [``low``, ``high``] (``low == high`` for ``metric=value``; ``-inf``/``inf`` for ``<=``/``>=``)."""

    metric: str
    low: float
    high: float
    text: str

    def distance(self, e: dict | None) -> float:
        """How far the estimate's value lies outside the target (0 inside; inf without an estimate)."""
        if e is None:
            return math.inf
        v = e["value"]
        return max(self.low - v, v - self.high, 0.0)

    def meets(self, e: dict | None) -> bool:
        """The interval [low, high] of ``e`` reaches the target (not rejected at its level)."""
        return e is not None and e["low"] <= self.high and e["high"] >= self.low

    def decided(self, e: dict | None) -> str | None:
        """``"met"`` when the interval of ``e`` lies inside the target, ``"missed"`` when outside
        it, else None."""
        if e is None:
            return None
        if e["high"] < self.low or e["low"] > self.high:
            return "missed"
        if self.low <= e["low"] and e["high"] <= self.high:
            return "met"
        return None

    def to_json(self) -> dict:
        """``{"metric", "low", "high", "text"}`` (infinite ends as None)."""
        return {"metric": self.metric, "low": None if math.isinf(self.low) else self.low,
                "high": None if math.isinf(self.high) else self.high, "text": self.text}


def parse_target(text: str, declared: tuple | list | dict = ()) -> Target:
    """``METRIC=V``, ``METRIC=LO..HI``, ``METRIC<=X`` or ``METRIC>=X`` (metrics: the keys of
    :data:`TARGET_METRICS` and the names in ``declared``, the ruleset's declared metrics; shares
    as fractions: ``drawishness<=0.05``).

    Raises:
        TapsterError: an unknown metric (the known ones listed), a bad number, an empty range.
    """
    for op in ("<=", ">=", "="):
        name, sep, rest = text.partition(op)
        if sep:
            break
    else:
        raise TapsterError(f"--target {text!r}: write METRIC=V, METRIC=LO..HI, METRIC<=X or METRIC>=X")
    name = name.strip()
    if name not in TARGET_METRICS and name not in declared:
        known = ", ".join([*TARGET_METRICS, *declared])
        raise TapsterError(f"--target {text!r}: no metric {name!r}; metrics: {known}")
    what = f"--target {name}"
    if op == "<=":
        return Target(name, -math.inf, float(_number(rest.strip(), what)), text)
    if op == ">=":
        return Target(name, float(_number(rest.strip(), what)), math.inf, text)
    if ".." in rest:
        lo_text, _, hi_text = rest.partition("..")
        lo, hi = float(_number(lo_text.strip(), what)), float(_number(hi_text.strip(), what))
        if lo > hi:
            raise TapsterError(f"{what}={rest}: the range is empty ({lo} is above {hi})")
        return Target(name, lo, hi, text)
    v = float(_number(rest.strip(), what))
    return Target(name, v, v, text)


def sequential_rounds(first: int, cap: int) -> list[range]:
    """The rounds of a trial: ``first`` games, then doubling the total, up to ``cap`` in all."""
    from .runner import auto_rounds

    return list(auto_rounds(first, cap))


@dataclass
class TuneSettings:
    """How to search.  ``games``: games per trial (None: ``--games auto``, up to ``max_games``);
    ``budget``: games over all trials (None: no limit); ``seconds``: wall-clock limit (None: no
    limit; not deterministic); ``trials``: most distinct settings tried; ``confirm``: games of the
    confirmation run (0: none); ``prune``: Optuna's median pruner (one target only); ``alpha``:
    the sequential test's error rate; ``precision``: with auto, the half-width that is enough;
    ``choose``: the rule (:data:`CHOICE_RULES`) that picks among settings meeting every target;
    ``allow_capped``: rank settings whose games mostly ended by the action limit too (by
    default none of them is called best)."""

    seed: int
    games: int | None = 400
    max_games: int = 4000
    precision: float = 0.02
    budget: int | None = None
    seconds: float | None = None
    trials: int = 30
    confirm: int | None = None
    prune: bool = True
    alpha: float = 0.05
    first: int = 100
    choose: str = "nearest"
    allow_capped: bool = False


@dataclass
class Trial:
    """One setting tried: its ``params``, the ``games`` played, ``state`` (``complete``,
    ``pruned`` or ``interrupted``), the ``decision`` of the sequential test (``met``,
    ``missed``, ``precise`` or None), the ``distances`` per target and the metrics."""

    number: int
    params: dict
    games: int = 0
    state: str = "complete"
    decision: str | None = None
    distances: list = field(default_factory=list)
    metrics: dict = field(default_factory=dict)
    fingerprint: str = ""

    def capped(self) -> bool:
        """Most of its games ended by the action limit, not by the rules."""
        return bool((self.metrics.get("capped") or {}).get("majority"))

    def meets(self, targets: list[Target]) -> bool:
        """Every target is met (its 95% interval reaches it)."""
        return all(t.meets(estimate_of(self.metrics, t.metric)) for t in targets)

    def to_json(self, targets: list[Target]) -> dict:
        """The trial as JSON data, with each target metric's interval."""
        return {"number": self.number, "params": self.params, "games": self.games, "state": self.state,
                "decision": self.decision, "distances": [None if math.isinf(d) else d for d in self.distances],
                "meets": self.meets(targets), "capped": self.metrics.get("capped"),
                "targets": {t.metric: estimate_of(self.metrics, t.metric) for t in targets}}


def _scale(t: Target) -> float:
    """The unit target ``t``'s distances are measured in when targets are weighed together: 1 for
    a share (a distance of 0.1 is 10 points), the target's size for a count (at least 1: 2 turns
    off a target of 20 weigh 0.1)."""
    if is_share(t.metric):
        return 1.0
    ends = [abs(x) for x in (t.low, t.high) if math.isfinite(x)]
    return max([1.0, *ends])


#: play(params, indices, tally, export) -> False when Ctrl-C stopped it; export(record) is called
#: with each game's record in game order.
Play = Callable[..., bool]

#: Target metric -> the row key of :func:`interpreter.analysis.balance.compare` (AdvantageP1 and the
#: first-player advantage differ by a constant: the same difference).
_COMPARED = {"first_player_advantage": "advantage_p1", "advantage_p1": "advantage_p1", "drawishness": "drawishness",
             "duration": "duration", "decisions": "length", "margin": "margin", "lead_change": "lead_change",
             "drama": "drama", "decisiveness": "decisiveness"}


def _compared(metric: str) -> str | None:
    """The :func:`interpreter.analysis.balance.compare` row of target ``metric`` (None: no paired row,
    as for ``position_spread``)."""
    if metric in _COMPARED:
        return _COMPARED[metric]
    return None if metric in TARGET_METRICS else f"metric:{metric}"


class Tuner:
    """The search.  ``play(params, indices, tally, export)`` plays games ``indices`` of the
    setting ``params`` (the base parameters overridden) into ``tally``, calls ``export(record)``
    with each game's record, and returns False when Ctrl-C stopped it; ``players`` is the
    number of seats; ``on_trial(trial)`` is told each finished trial; ``info``: the ruleset's
    declared metrics (:func:`interpreter.analysis.balance.declared_info`); ``base``: the ruleset's
    current value of each searched parameter (for the ``nearest`` choice rule).  :meth:`run`
    returns the result (see :meth:`result`).

    Raises:
        TapsterError: no space or no target, an unknown choice rule; Optuna is not installed
            (``pip install 'tapster[tune]'``).
    """

    def __init__(self, spaces: list[Space], targets: list[Target], play: Play, players: int, settings: TuneSettings,
                 on_trial: Callable[[Trial], None] | None = None, info: dict | None = None, base: dict | None = None):
        if settings.choose not in CHOICE_RULES:
            raise TapsterError(f"--choose {settings.choose!r}: rules: {', '.join(CHOICE_RULES)}")
        self.info = dict(info or {})
        self.base = dict(base or {})
        if not spaces:
            raise TapsterError("tune needs at least one --param NAME=LO..HI or NAME=A,B")
        if not targets:
            raise TapsterError("tune needs at least one --target (e.g. first_player_advantage=0)")
        try:
            import optuna
        except ImportError:
            raise TapsterError("tune needs Optuna: pip install 'tapster[tune]'") from None
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.optuna = optuna
        self.spaces, self.targets, self.play, self.players, self.s = spaces, targets, play, players, settings
        self.on_trial = on_trial
        self.trials: list[Trial] = []
        self.cache: dict = {}
        self.played = 0
        self.interrupted = False
        self.stopped_by = None
        self.confirmation: dict | None = None
        self.samples: dict = {}  # trial number -> (Tally, PerGame) of the two best trials and the one playing
        cap = settings.max_games if settings.games is None else settings.games
        self.rounds = sequential_rounds(min(settings.first, cap), cap)
        self.look_level = 1 - settings.alpha / len(self.rounds)

    # -- one trial ------------------------------------------------------------------------------

    def _decide(self, tally: Tally) -> str | None:
        m = metrics(tally, self.look_level)
        decisions = [t.decided(estimate_of(m, t.metric)) for t in self.targets]
        if "missed" in decisions:
            return "missed"
        if all(d == "met" for d in decisions):
            return "met"
        m95 = metrics(tally)
        widths = [estimate_of(m95, t.metric) for t in self.targets]
        if all(e is not None and (e["high"] - e["low"]) / 2 <= self._precision(t) for e, t in zip(widths, self.targets)):
            return "precise"
        return None

    def _precision(self, t: Target) -> float:
        # A share's precision is --precision; a count's (turns, margin) is relative to the target.
        return self.s.precision * _scale(t)

    def _trial(self, number: int, params: dict, otrial) -> Trial:
        trial = Trial(number, params)
        tally = Tally(self.players, info=self.info)
        per_game = PerGame(self.players, tuple(self.info))
        self.samples[number] = (tally, per_game)
        digest = hashlib.sha256()

        def record(r) -> None:
            per_game.add(r)
            digest.update(repr((r.index, r.scores, r.winners, r.decisions, r.turns, r.reason, r.error,
                                sorted(r.metrics.items()))).encode())

        for step, indices in enumerate(self.rounds):
            if self.s.budget is not None:
                left = self.s.budget - self.played
                if left <= 0:
                    break
                indices = indices[:left]
            done = self.play(params, indices, tally, record)
            self.played += len(indices) if done else tally.games + tally.errors - trial.games
            trial.games = tally.games + tally.errors
            if not done:
                trial.state = "interrupted"
                self.interrupted = True
                break
            m = metrics(tally)
            trial.metrics = m
            trial.distances = [t.distance(estimate_of(m, t.metric)) for t in self.targets]
            if self.s.games is None:
                trial.decision = self._decide(tally)
                if trial.decision:
                    break
            if otrial is not None and len(self.targets) == 1 and step < len(self.rounds) - 1:
                otrial.report(trial.distances[0], step)
                t = self.targets[0]
                if otrial.should_prune() and t.decided(estimate_of(metrics(tally, self.look_level), t.metric)) == "missed":
                    trial.state = "pruned"
                    break
            if self._out_of_time():
                break
        if not trial.metrics:
            trial.metrics = metrics(tally)
            trial.distances = [t.distance(estimate_of(trial.metrics, t.metric)) for t in self.targets]
        trial.fingerprint = digest.hexdigest()
        return trial

    def _out_of_time(self) -> bool:
        return self.s.seconds is not None and time.perf_counter() - self.start >= self.s.seconds

    # -- the search -----------------------------------------------------------------------------

    def _suggest(self, otrial) -> dict:
        out = {}
        for sp in self.spaces:
            if sp.kind == "int":
                out[sp.name] = otrial.suggest_int(sp.name, sp.low, sp.high)
            elif sp.kind == "real":
                out[sp.name] = otrial.suggest_float(sp.name, sp.low, sp.high)
            else:
                out[sp.name] = otrial.suggest_categorical(sp.name, list(sp.choices))
        return out

    def _space_size(self) -> float:
        size = 1
        for sp in self.spaces:
            v = sp.values()
            if v is None:
                return math.inf
            size *= len(v)
        return size

    def run(self) -> dict:
        """Search until ``trials`` settings are tried, the budget (games or seconds) is spent,
        every setting of a finite space is tried, or Ctrl-C; confirm the best; return
        :meth:`result`."""
        optuna = self.optuna
        self.start = time.perf_counter()
        sampler = optuna.samplers.TPESampler(seed=self.s.seed % (2**32), n_startup_trials=min(10, max(2, self.s.trials // 3)))
        single = len(self.targets) == 1
        pruner = optuna.pruners.MedianPruner(n_startup_trials=3) if self.s.prune and single else optuna.pruners.NopPruner()
        study = optuna.create_study(directions=["minimize"] * len(self.targets), sampler=sampler, pruner=pruner)
        size = self._space_size()
        asks = 0
        try:
            while len(self.trials) < min(self.s.trials, size) and asks < 20 * self.s.trials:
                if self.s.budget is not None and self.played >= self.s.budget:
                    self.stopped_by = "budget"
                    break
                if self._out_of_time():
                    self.stopped_by = "seconds"
                    break
                otrial = study.ask()
                asks += 1
                params = self._suggest(otrial)
                key = tuple(repr(params[sp.name]) for sp in self.spaces)
                if key in self.cache:  # the same setting plays the same games: tell what it gave
                    self._tell(study, otrial, self.cache[key])
                    continue
                trial = self._trial(len(self.trials), params, otrial if single else None)
                if trial.state == "interrupted":
                    study.tell(otrial, state=optuna.trial.TrialState.FAIL)
                    self.trials.append(trial)
                    break
                self.cache[key] = trial
                self.trials.append(trial)
                self._keep_samples()
                self._tell(study, otrial, trial)
                if self.on_trial:
                    self.on_trial(trial)
            else:
                self.stopped_by = "trials" if len(self.trials) < size else "space"
        except KeyboardInterrupt:
            self.interrupted = True
        best = self.best()
        if best is not None and not self.interrupted and self.s.confirm != 0:
            self._confirm(best)
        self.seconds = time.perf_counter() - self.start
        return self.result()

    def _tell(self, study, otrial, trial: Trial) -> None:
        if trial.state == "pruned":
            study.tell(otrial, state=self.optuna.trial.TrialState.PRUNED)
        else:
            study.tell(otrial, [d if math.isfinite(d) else 1e9 for d in trial.distances])

    def _confirm(self, best: Trial) -> None:
        n = self.s.confirm if self.s.confirm is not None else max(best.games, self.rounds[0].stop)
        offset = self.rounds[-1].stop
        tally = Tally(self.players, info=self.info)
        try:
            done = self.play(best.params, range(offset, offset + n), tally)
        except KeyboardInterrupt:
            done = False
        self.played += tally.games + tally.errors
        if not done:
            self.interrupted = True
        m = metrics(tally)
        self.confirmation = {"params": best.params, "games": tally.games + tally.errors, "indices": [offset, offset + n],
                             "metrics": m, "targets": {t.metric: estimate_of(m, t.metric) for t in self.targets},
                             "meets": all(t.meets(estimate_of(m, t.metric)) for t in self.targets)}

    # -- the answer -----------------------------------------------------------------------------

    def front(self) -> list[Trial]:
        """The trials no other trial beats on every target (the Pareto front of the distances),
        in trial order; pruned trials left out."""
        done = [t for t in self.trials if t.state == "complete"]
        return [t for t in done if not any(all(o <= s for o, s in zip(u.distances, t.distances)) and u.distances != t.distances
                                           for u in done)]

    def ranked(self) -> list[Trial]:
        """The finished (not pruned) trials, best first: those meeting every target first, ordered
        among themselves by the choice rule (``settings.choose``, :data:`CHOICE_RULES`), then the
        rest by the smallest largest distance (each target's in its unit: a share's in shares, a
        count's relative to the target), then the smallest total, then the earliest.  Trials
        whose games mostly ended by the action limit are left out unless
        ``settings.allow_capped``."""
        done = [t for t in self.trials if t.state == "complete" and (self.s.allow_capped or not t.capped())]
        key = self._rank_key()
        meeting = sorted((t for t in done if t.meets(self.targets)), key=self._choice_key(done))
        rest = sorted((t for t in done if not t.meets(self.targets)), key=key)
        return meeting + rest

    def refused(self) -> list[Trial]:
        """The finished trials left out of the ranking because most of their games ended by the
        action limit (none with ``settings.allow_capped``)."""
        if self.s.allow_capped:
            return []
        return sorted((t for t in self.trials if t.state == "complete" and t.capped()), key=lambda t: self._position(t.params))

    def best(self) -> Trial | None:
        """The recommended trial: the first of :meth:`ranked` (None before any trial finished, or
        when every finished trial was refused as capped)."""
        ranked = self.ranked()
        return ranked[0] if ranked else None

    def _position(self, params: dict) -> list[float]:
        """A setting as numbers, one per space, each scaled to its range (a choice: its index)."""
        out = []
        for sp in self.spaces:
            v = params[sp.name]
            if sp.kind == "choice":
                out.append(float([repr(c) for c in sp.choices].index(repr(v))))
            else:
                width = (sp.high - sp.low) or 1
                out.append((v - sp.low) / width)
        return out

    def meeting_range(self) -> dict:
        """Per searched parameter, the lowest and highest value among the settings meeting every
        target (``{name: [low, high]}``; a choice: the values in the space's order)."""
        meeting = [t for t in self.trials if t.state == "complete" and t.meets(self.targets)]
        out = {}
        for sp in self.spaces:
            vals = [t.params[sp.name] for t in meeting]
            if not vals:
                continue
            if sp.kind == "choice":
                order = [repr(c) for c in sp.choices]
                out[sp.name] = [v for v in sp.choices if repr(v) in {repr(x) for x in vals}]
                out[sp.name].sort(key=lambda v: order.index(repr(v)))
            else:
                out[sp.name] = [min(vals), max(vals)]
        return out

    def _choice_key(self, pool: list[Trial]):
        rank = self._rank_key()
        rule = self.s.choose
        meeting = [t for t in pool if t.meets(self.targets)]
        positions = [self._position(t.params) for t in meeting]
        middle = [(min(c) + max(c)) / 2 for c in zip(*positions)] if positions else []
        base = None
        if all(sp.name in self.base for sp in self.spaces):
            try:
                base = self._position(self.base)
            except (ValueError, TypeError):
                base = None

        def dist(x: list[float], y: list[float] | None) -> float:
            return 0.0 if y is None else sum(abs(a - b) for a, b in zip(x, y))

        def key(t: Trial) -> tuple:
            pos = self._position(t.params)
            if rule == "closest":
                return rank(t)
            if rule == "middle":
                return (round(dist(pos, middle), 12), rank(t))
            return (round(dist(pos, base), 12), round(dist(pos, middle), 12), rank(t))

        return key

    def identical(self) -> list[list[dict]]:
        """Groups of finished trials (two or more) whose games were identical, game by game (the
        same scores, winners, lengths, end reasons and declared metrics): their settings, in
        the order of the searched values."""
        groups: dict = {}
        for t in self.trials:
            if t.state == "complete" and t.fingerprint:
                groups.setdefault((t.fingerprint, t.games), []).append(t)
        return [[g.params for g in sorted(group, key=lambda g: self._position(g.params))]
                for group in groups.values() if len(group) > 1]

    def _keep_samples(self) -> None:
        # Only the two best trials' games are compared; which two meet the targets best depends on
        # the range that meets them (the choice rule), so every meeting trial's games are kept,
        # and the two best of the others: drop the rest (memory stays bounded by the trials).
        ranked = self.ranked()
        keep = {t.number for t in ranked[:2]} | {t.number for t in ranked if t.meets(self.targets)}
        for number in [n for n in self.samples if n not in keep]:
            del self.samples[number]

    def runner_up(self) -> dict | None:
        """The best trial against the next best (by the same order), as pairs of games sharing
        seeds: ``{"params", "rows"}`` with a :func:`interpreter.analysis.balance.compare` row (difference
        runner-up - best, its interval, the paired test) per target metric; None with one trial."""
        ranked = self.ranked()
        if len(ranked) < 2:
            return None
        best, second = ranked[:2]
        if best.number not in self.samples or second.number not in self.samples:
            return None
        (ta, pa), (tb, pb) = self.samples[best.number], self.samples[second.number]
        rows = {r["key"]: r for r in compare(ta, tb, pairs=(pa, pb))}
        return {"params": second.params, "number": second.number,
                "rows": {t.metric: rows[_compared(t.metric)] for t in self.targets if _compared(t.metric) in rows}}

    def _rank_key(self):
        def key(t: Trial) -> tuple:
            scaled = [d / _scale(g) for d, g in zip(t.distances, self.targets)]
            return (not t.meets(self.targets), max(scaled), sum(scaled), t.number)

        return key

    def result(self) -> dict:
        """``{"spaces", "targets", "trials", "best", "meets", "front", "conflict", "meeting",
        "meeting_range", "choice", "refused", "allow_capped", "identical", "declared", "runner_up",
        "confirmation", "games_played", "seconds", "stopped_by", "interrupted", "sequential"}`` (JSON
        data): ``meets`` whether the best meets every target; ``conflict`` whether the front has
        more than one setting (the targets pull apart); ``meeting``: every trial meeting every
        target (with its intervals); ``choice``: the rule that chose among them; ``refused``: the
        trials left out because most of their games hit the action limit; ``identical``: groups
        of settings that played identical games; ``sequential``: the rounds and the level of
        each look."""
        best = self.best()
        front = self.front()
        return {
            "spaces": [s.to_json() for s in self.spaces], "targets": [t.to_json() for t in self.targets],
            "trials": [t.to_json(self.targets) for t in self.trials],
            "best": None if best is None else {**best.to_json(self.targets), "metrics": best.metrics},
            "meets": bool(best and best.meets(self.targets)),
            "front": [t.to_json(self.targets) for t in front] if len(self.targets) > 1 else [],
            "conflict": len(self.targets) > 1 and len(front) > 1,
            "meeting": [t.to_json(self.targets) for t in self.trials
                        if t.state == "complete" and t.meets(self.targets) and (self.s.allow_capped or not t.capped())],
            "meeting_range": self.meeting_range(),
            "choice": {"rule": self.s.choose, "words": CHOICE_RULES[self.s.choose], "base": self.base},
            "refused": [{"params": t.params, "capped": t.metrics.get("capped")} for t in self.refused()],
            "allow_capped": self.s.allow_capped,
            "identical": self.identical(), "declared": self.info,
            "runner_up": self.runner_up(), "confirmation": self.confirmation, "games_played": self.played,
            "seconds": getattr(self, "seconds", None),
            "stopped_by": self.stopped_by, "interrupted": self.interrupted,
            "sequential": {"auto": self.s.games is None, "rounds": [r.stop for r in self.rounds],
                           "look_level": self.look_level, "alpha": self.s.alpha},
        }
