"""The balance report's measurements: one record per game played (:func:`play_games`), the
running totals of a run (:class:`Tally`, merged in game order so the numbers do not depend on
how many processes played), the metrics read from them (:func:`metrics`) and the comparison of
two runs (:func:`compare`), as independent samples or, where the sides share seeds, as pairs
(:class:`PerGame` keeps each game's values for that).

Metric names follow Ludii's (Browne et al., *Ludii metrics*) where they match:

- **Balance**: 1 - (highest - lowest per-seat win rate).  1 is perfectly balanced.
- **AdvantageP1**: the win rate of the seat that *moved first* (``State.order[0]``, whoever the
  ruleset picked), beside each turn position's; *first-player advantage* is it minus 1/n.
- **Drawishness**: the share of draws (:func:`interpreter.analysis.simulate.is_draw`: no winner, or won
  by every seat together, as a split pot), the one definition ``simulate`` counts too.
- **Duration**: game length in turns (and in decisions), as a distribution.
- **Decisiveness**: how far into the game (turn / turns, 0..1) the eventual winner took the lead
  for good on the score trace; small means the game was decided early.
- **LeadChange**: changes of the leader from one turn to the next, per turn (and per game).
- **Drama**: the share of turns in which the eventual winner was not in the lead.
- **BranchingFactor**: the mean number of legal actions at a decision.
- **DecisionMoves**: the share of decisions with more than one legal action.

The score trace is every seat's score (the ruleset's ``outcome.score``) each time a turn
begins (at each decision in a ruleset without ``turn``), and at the end;
a seat leads when its score is the highest (ties lead together; the leader changes when the
set of leaders does).  Wins: a shared win counts 1/k to each of its k
winners.

Where the score is undefined mid-game (a score that reads a card not yet dealt) or not a number,
a game has no score trace: the metrics read from it (LeadChange, lead changes per game, Drama,
Decisiveness, the winner's lead by decile) come from the games that have one and are None when
none has, and ``score_trace`` in :func:`metrics` says in how many games it was unavailable and
why; win rates and every other metric are computed from all the games.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from dataclasses import dataclass, field

from ..agents.core import RandomAgent, make_agent
from ..engine.playout import playout
from ..errors import TapsterError
from ..model import Component
from .simulate import DRAW_NOTE, SimSpec, _ruleset_for, agent_seed, game_seed, is_draw
from .stats import Estimate, Running, mean_interval, paired, proportion, two_proportion, welch

__all__ = ["GameRecord", "play_games", "Tally", "metrics", "compare", "METRICS", "TRACE_METRICS", "sentence", "trace_note",
           "EXPORT_FIELDS", "PerGame", "PAIRED_MAX_GAMES", "TESTS", "declared_info", "end_reasons", "capped",
           "position_spread", "declared", "conclusion", "ladder_notes", "CAPPED_MAJORITY"]


@dataclass
class GameRecord:
    """One game of a run, as exported (``--export``) and as tallied.

    ``index``/``seed``: the game's place in the run and its seed (``SEED:index``); ``agents``:
    the agent spec per seat; ``scores``: final score per seat (None when not a number);
    ``winners``: seats (empty: no winner); ``decisions``: actions taken; ``turns``: turns
    begun (all seats); ``order``: seats in the order of their first turn (``State.order``), or
    of their first decision in a ruleset without ``turn``; ``reason``: why the
    game ended; ``limit``: the game was stopped by ``limits: {actions: N}`` (then it has no
    winner); ``trace``: the score trace (per turn, scores per seat), ``branching``: legal actions
    summed over decisions, ``choices``: decisions with more than one legal action; ``used``: per
    seat, how many times each action name and each ``action(component)`` was taken;
    ``error``: the text of a ruleset error that stopped the game (else None); ``trace_error``:
    why the game has no score trace (the score undefined or not a number mid-game), else None;
    ``metrics``: the ruleset's declared metrics at the end (name -> a number, or one number per
    seat for a ``per_player`` metric; empty for a game stopped by the limit or failed);
    ``rule_cap``: the game ended by a cap written into the rules (its reason starts with one of
    the ruleset's ``limits: {caps}`` texts): it has an outcome, but the report counts it capped.
    """

    index: int
    seed: str
    agents: tuple
    scores: tuple = ()
    winners: tuple = ()
    decisions: int = 0
    turns: int = 0
    order: tuple = ()
    reason: str = ""
    limit: bool = False
    trace: list = field(default_factory=list)
    branching: int = 0
    choices: int = 0
    used: list = field(default_factory=list)
    labels: dict = field(default_factory=dict)
    error: str | None = None
    trace_error: str | None = None
    metrics: dict = field(default_factory=dict)
    rule_cap: bool = False

    def row(self) -> dict:
        """The exported fields (see :data:`EXPORT_FIELDS`) as JSON data."""
        return {"index": self.index, "seed": self.seed, "agents": list(self.agents), "seats": len(self.agents),
                "scores": list(self.scores), "winners": list(self.winners), "decisions": self.decisions,
                "turns": self.turns, "turn_order": list(self.order), "reason": self.reason, "limit_hit": self.limit,
                "rule_cap": self.rule_cap, "error": self.error, "metrics": self.metrics}


#: The per-game fields written by ``--export`` (JSONL objects, CSV columns).
EXPORT_FIELDS = ("index", "seed", "agents", "seats", "scores", "winners", "decisions", "turns", "turn_order",
                 "reason", "limit_hit", "rule_cap", "error", "metrics")


def _number(x) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


def play_games(spec: SimSpec, indices: range) -> list[GameRecord]:
    """Play games ``indices`` of the run ``spec`` (game i seeded ``SEED:i``, seat p's agent
    ``SEED:i:agent:p``) and record each.  A ruleset error is recorded (``error``), not raised:
    an exception would lose its mark crossing processes."""
    rs = _ruleset_for(spec)
    limit = rs.action_limit
    out = []
    for i in indices:
        out.append(_play_game(spec, rs, limit, i))
    return out


def _play_game(spec: SimSpec, rs, limit: int, i: int) -> GameRecord:
    """Game ``i`` of the run ``spec`` (ruleset ``rs``, stopped after ``limit`` actions), played
    and recorded (see :func:`play_games`).  With every seat a random agent the decisions are
    taken inside the generated code (:func:`interpreter.engine.playout.playout`), each drawn as
    :class:`~interpreter.agents.core.RandomAgent` draws it, with the same bookkeeping at every
    decision: the same record as the agents' loop of ``act`` and ``apply``."""
    gs = game_seed(spec.seed, i)
    rec = GameRecord(i, gs, spec.agents, used=[Counter() for _ in spec.agents])
    try:
        agents = [make_agent(name, agent_seed(gs, p)) for p, name in enumerate(spec.agents)]
        st = rs.new_game(spec.players, seed=gs)
        merging = {o.name for c in rs.chooses for o in c.options if o.merge}
        trace = _Trace()
        deciders: list[int] = []

        def before(p: int, legal: tuple) -> bool:
            """The bookkeeping before seat ``p`` decides among ``legal`` (the score trace at a
            new turn, who decided, the branching); False when the action limit is reached
            (the game is then stopped there)."""
            if rec.decisions >= limit:
                rec.limit = True
                rec.reason = f"limits: {{actions: {limit}}} reached"
                return False
            t = sum(st.turns)
            if trace.numeric and (t != trace.last_turns or not t):
                trace.last_turns = t
                row, rec.trace_error = _trace_row(st, spec.players, rec.decisions, t)
                trace.numeric = row is not None
                if trace.numeric:
                    (rec.trace if t else trace.untimed).append(row)
            if p not in deciders:
                deciders.append(p)
            rec.branching += len(legal)
            rec.choices += len(legal) > 1
            return True

        def after(p: int, a) -> None:
            """Count seat ``p``'s action ``a``."""
            rec.decisions += 1
            used = rec.used[p]
            used[a.name] += 1
            merged = a.name in merging
            for arg in a.args:
                if isinstance(arg, Component):
                    if merged:  # identical copies are one action: counted as the look's first copy
                        arg = arg.look
                    key = f"{a.name}({arg.id})"
                    used[key] += 1
                    rec.labels.setdefault(key, f"{a.name}: {arg.label}")

        if all(type(a) is RandomAgent for a in agents):
            # every seat random: the decisions are taken inside the generated code
            # (interpreter.engine.playout), each drawn as RandomAgent.act draws it
            rngs = [a.rng for a in agents]

            def pick(choose, actions, seats):
                p = seats[0]
                if not before(p, actions):
                    return None
                k = rngs[p].below(len(actions))
                after(p, actions[k])
                return k

            playout(st, pick)
        while not st.finished and not rec.limit:
            p = st.current_players()[0]
            if not before(p, st.legal_actions()):
                break
            a = agents[p].act(st, p)
            st.apply(a)
            after(p, a)
        numeric, untimed = trace.numeric, trace.untimed
        rec.turns = sum(st.turns)
        rec.order = tuple(st.order)
        if not rec.turns:  # no `turn` in the ruleset: who decided first, and a trace per decision
            rec.order = tuple(deciders)
            rec.trace = untimed
        if not rec.limit:
            o = st.outcome()
            rec.scores = tuple(_number(s) for s in o.scores)
            rec.winners = tuple(o.winners)
            rec.reason = o.reason
            rec.rule_cap = bool(rs.cap_reasons) and o.reason.startswith(rs.cap_reasons)
            rec.metrics = rs.metric_values(st)
            if numeric and None not in rec.scores:
                rec.trace.append(rec.scores)
            else:
                rec.trace = []
                if rec.trace_error is None:
                    rec.trace_error = "a final score is not a number"
        else:
            rec.trace = []
    except TapsterError as exc:
        rec.error = str(exc)
    rec.used = [dict(c) for c in rec.used]
    return rec


class _Trace:
    """The score trace's state while a game is played: whether every score so far was a number
    (``numeric``), the turns begun at the last row (``last_turns``), and the rows made while no
    turn had begun (``untimed``: a ruleset without turns gets a row per decision)."""

    __slots__ = ("numeric", "last_turns", "untimed")

    def __init__(self) -> None:
        self.numeric = True
        self.last_turns = -1
        self.untimed: list = []


def _trace_row(st, players: int, decisions: int, turns: int) -> tuple[tuple | None, str | None]:
    """Every seat's score now, as a row of the score trace, or (None, why it is unavailable):
    a score that raises mid-game (it reads a card not yet dealt) or is not a number."""
    where = f"after {decisions} decision{'s' if decisions != 1 else ''}" + (f" (turn {turns})" if turns else "")
    row = []
    for p in range(players):
        try:
            x = st.score(p)
        except TapsterError as exc:
            return None, f"the score of P{p + 1} is undefined mid-game, {where}: {exc}"
        if _number(x) is None:
            return None, f"the score of P{p + 1} is not a number mid-game, {where}: {x!r}"
        row.append(_number(x))
    return tuple(row), None


def _leaders(row: tuple) -> frozenset:
    best = max(row)
    return frozenset(p for p, s in enumerate(row) if s == best)


def declared_info(rs) -> dict:
    """The declared metrics of compiled ruleset ``rs`` as a :class:`Tally` reports them: name ->
    ``{"description", "per_player"}``, in the order written."""
    return {m.name: {"description": m.description, "per_player": m.per_player} for m in getattr(rs, "metrics", ())}


@dataclass
class Tally:
    """The running totals of a run over ``players`` seats; add games in index order with
    :meth:`add` (the sums are then the same bits whatever the number of processes).  ``info``:
    the ruleset's declared metrics (:func:`declared_info`), so that :func:`metrics` can describe
    them; their values come from the records."""

    players: int
    info: dict = field(default_factory=dict)
    games: int = 0
    errors: int = 0
    first_error: str | None = None
    limits: int = 0
    wins: list = field(default_factory=list)          # per seat (shares)
    by_position: list = field(default_factory=list)   # per turn position (shares)
    position_games: int = 0                           # games whose order covers every seat
    draws: int = 0
    decisions: Counter = field(default_factory=Counter)
    turns: Counter = field(default_factory=Counter)
    scores: list = field(default_factory=list)        # per seat: Running
    score_hist: list = field(default_factory=list)    # per seat: Counter of final scores
    margins: Counter = field(default_factory=Counter)
    margin: Running = field(default_factory=Running)
    lead_changes: Running = field(default_factory=Running)
    lead_change_rate: Running = field(default_factory=Running)
    drama: Running = field(default_factory=Running)
    decisiveness: Running = field(default_factory=Running)
    lead_curve: list = field(default_factory=lambda: [[0, 0] for _ in range(10)])  # decile: [winner leads, turns]
    traced: int = 0                                   # games with a score trace
    untraced: int = 0                                 # games without one (the score undefined mid-game)
    trace_reason: str | None = None                   # why, in the first such game
    duration: Running = field(default_factory=Running)
    length: Running = field(default_factory=Running)
    branching: int = 0
    choices: int = 0
    decided: int = 0
    seat_games: list = field(default_factory=lambda: [0, 0])   # seats that won / lost (decided games)
    used_won: Counter = field(default_factory=Counter)          # key -> winner seats that used it
    used_lost: Counter = field(default_factory=Counter)
    uses: Counter = field(default_factory=Counter)
    labels: dict = field(default_factory=dict)
    reasons: Counter = field(default_factory=Counter)           # end reason -> games (the cap's included)
    rule_caps: int = 0                                          # games ended by a cap in the rules (limits: {caps})
    cap_texts: set = field(default_factory=set)                 # the end reasons of those games
    score_by_position: list = field(default_factory=list)       # per turn position: Running of final scores
    declared: dict = field(default_factory=dict)                # declared metric -> Running (per game; seats' mean)
    declared_seats: dict = field(default_factory=dict)          # per_player metric -> [Running per seat]
    declared_winner: dict = field(default_factory=dict)         # per_player metric -> Running (winners' mean)

    def __post_init__(self):
        n = self.players
        self.wins = self.wins or [0.0] * n
        self.by_position = self.by_position or [0.0] * n
        self.score_by_position = self.score_by_position or [Running() for _ in range(n)]
        self.scores = self.scores or [Running() for _ in range(n)]
        self.score_hist = self.score_hist or [Counter() for _ in range(n)]

    def add(self, r: GameRecord) -> None:
        """Count game ``r``."""
        if r.error is not None:
            self.errors += 1
            self.first_error = self.first_error or f"game {r.index} (seed {r.seed}): {r.error}"
            return
        self.games += 1
        self.decisions[r.decisions] += 1
        self.turns[r.turns] += 1
        self.duration.add(r.turns)
        self.length.add(r.decisions)
        self.branching += r.branching
        self.choices += r.choices
        for k, v in r.labels.items():
            self.labels.setdefault(k, v)
        for p in range(self.players):
            for k, v in r.used[p].items():
                self.uses[k] += v
        self.reasons[r.reason] += 1
        if r.rule_cap:
            self.rule_caps += 1
            self.cap_texts.add(r.reason)
        if r.limit:
            self.limits += 1
            return
        winners = r.winners
        self._declared(r)
        if sorted(r.order) == list(range(self.players)):
            for pos, seat in enumerate(r.order):
                if seat < len(r.scores) and r.scores[seat] is not None:
                    self.score_by_position[pos].add(r.scores[seat])
        if is_draw(winners, self.players):
            self.draws += 1
        if winners:
            share = 1 / len(winners)
            for w in winners:
                self.wins[w] += share
            if sorted(r.order) == list(range(self.players)):
                self.position_games += 1
                for pos, seat in enumerate(r.order):
                    if seat in winners:
                        self.by_position[pos] += share
        elif sorted(r.order) == list(range(self.players)):
            self.position_games += 1
        for p, s in enumerate(r.scores):
            if s is not None:
                self.scores[p].add(s)
                self.score_hist[p][s] += 1
        if len(r.scores) > 1 and None not in r.scores:
            top = sorted(r.scores, reverse=True)
            m = top[0] - top[1]
            self.margin.add(m)
            self.margins[m] += 1
        if winners and len(winners) < self.players:
            self.decided += 1
            for p in range(self.players):
                won = p in winners
                self.seat_games[0 if won else 1] += 1
                bucket = self.used_won if won else self.used_lost
                for k in r.used[p]:
                    bucket[k] += 1
        self._trace(r)

    def _declared(self, r: GameRecord) -> None:
        for name, v in r.metrics.items():
            if isinstance(v, list):
                seats = self.declared_seats.setdefault(name, [Running() for _ in range(self.players)])
                for p, x in enumerate(v):
                    seats[p].add(x)
                self.declared.setdefault(name, Running()).add(sum(v) / len(v))
                if r.winners and len(r.winners) < self.players:
                    self.declared_winner.setdefault(name, Running()).add(sum(v[w] for w in r.winners) / len(r.winners))
            else:
                self.declared.setdefault(name, Running()).add(v)

    def _trace(self, r: GameRecord) -> None:
        if r.trace_error is not None:
            self.untraced += 1
            self.trace_reason = self.trace_reason or f"game {r.index} (seed {r.seed}): {r.trace_error}"
            return
        self.traced += 1
        trace = r.trace
        if len(trace) < 2:
            return
        leaders = [_leaders(row) for row in trace]
        changes = sum(1 for a, b in zip(leaders, leaders[1:]) if a != b)
        self.lead_changes.add(changes)
        self.lead_change_rate.add(changes / (len(trace) - 1))
        if is_draw(r.winners, self.players):
            return
        w = set(r.winners)
        behind = [not (w & ls) for ls in leaders]
        self.drama.add(sum(behind[:-1]) / (len(trace) - 1))
        last_behind = max((i for i, b in enumerate(behind) if b), default=-1)
        self.decisiveness.add((last_behind + 1) / (len(trace) - 1) if last_behind < len(trace) - 1 else 1.0)
        for i, b in enumerate(behind):
            d = min(9, int(10 * i / len(trace)))
            self.lead_curve[d][0] += not b
            self.lead_curve[d][1] += 1


def _quantile(hist: Counter, q: float):
    total = sum(hist.values())
    if not total:
        return None
    k, acc = q * (total - 1), 0
    for v in sorted(hist):
        acc += hist[v]
        if acc > k:
            return v
    return max(hist)


def _dist(hist: Counter, r: Running) -> dict:
    return {"mean": mean_interval(r).to_json(), "sd": r.sd, "min": min(hist) if hist else None,
            "median": _quantile(hist, 0.5), "p10": _quantile(hist, 0.1), "p90": _quantile(hist, 0.9),
            "max": max(hist) if hist else None, "histogram": sorted(hist.items())}


#: The metrics a comparison and a sweep report, as (key, words, kind): ``rate`` metrics are
#: compared by the two-proportion test, ``mean`` metrics by Welch's t.
METRICS = [
    ("advantage_p1", "first-player advantage", "rate"),
    ("drawishness", "Drawishness (draw rate; a draw: no winner, or every seat won)", "rate"),
    ("duration", "Duration (turns)", "mean"),
    ("length", "decisions per game", "mean"),
    ("margin", "winning margin", "mean"),
    ("lead_change", "LeadChange (per turn)", "mean"),
    ("drama", "Drama", "mean"),
    ("decisiveness", "Decisiveness", "mean"),
]


def metrics(t: Tally, level: float = 0.95) -> dict:
    """Every metric of tally ``t`` as JSON data (intervals as :meth:`Estimate.to_json`)."""
    n, g = t.players, t.games
    counted = g - t.limits
    seats = [proportion(w, counted, level).to_json() for w in t.wins]
    pos = [proportion(w, t.position_games, level).to_json() for w in t.by_position]
    rates = [w / counted for w in t.wins] if counted else [0.0] * n
    p1 = proportion(t.by_position[0], t.position_games, level) if t.position_games else None
    adv = None
    if p1 is not None:
        adv = Estimate(p1.value - 1 / n, p1.low - 1 / n, p1.high - 1 / n, level, None, p1.n).to_json()
    table = []
    won, lost = t.seat_games
    for key in sorted(t.uses, key=lambda k: (-t.uses[k], k)):
        d = two_proportion(t.used_lost[key], lost, t.used_won[key], won, level)
        table.append({
            "key": key, "label": t.labels.get(key, key), "uses_per_game": t.uses[key] / g if g else 0.0,
            "in_winners": proportion(t.used_won[key], won, level).to_json() if won else None,
            "in_losers": proportion(t.used_lost[key], lost, level).to_json() if lost else None,
            "difference": d.to_json(),
        })
    decisions = sum(k * v for k, v in t.decisions.items())
    return {
        "end_reasons": end_reasons(t), "capped": capped(t),
        "score_by_position": [mean_interval(r, level).to_json() for r in t.score_by_position],
        "position_spread": position_spread(t, level),
        "declared": declared(t, level),
        "games": g, "errors": t.errors, "first_error": t.first_error, "limits_hit": t.limits,
        "win_rate": seats,
        "win_rate_by_position": pos, "position_games": t.position_games,
        "Balance": 1 - (max(rates) - min(rates)) if counted else None,
        "AdvantageP1": p1.to_json() if p1 else None,
        "advantage_p1": adv,
        "Drawishness": proportion(t.draws, counted, level).to_json() if counted else None,
        "draws": t.draws,
        "draw": DRAW_NOTE,
        "score_trace": _trace_status(t),
        "Duration": _dist(t.turns, t.duration),
        "decisions": _dist(t.decisions, t.length),
        "scores": [{"mean": mean_interval(r, level).to_json(), "sd": r.sd, "histogram": sorted(h.items())}
                   for r, h in zip(t.scores, t.score_hist)],
        "margin": _dist(t.margins, t.margin) if t.margin.n else None,
        "LeadChange": mean_interval(t.lead_change_rate, level).to_json() if t.lead_change_rate.n else None,
        "lead_changes_per_game": mean_interval(t.lead_changes, level).to_json() if t.lead_changes.n else None,
        "Drama": mean_interval(t.drama, level).to_json() if t.drama.n else None,
        "Decisiveness": mean_interval(t.decisiveness, level).to_json() if t.decisiveness.n else None,
        "winner_leads_by_decile": [a / b if b else None for a, b in t.lead_curve],
        "BranchingFactor": t.branching / decisions if decisions else None,
        "DecisionMoves": t.choices / decisions if decisions else None,
        "actions": table,
    }


#: A game "ended by a cap" when the action limit (``limits: {actions}``) stopped it, or a cap written
#: into the rules ended it (its end reason starts with one of ``limits: {caps}``); a report
#: warns when more than this share of its games did.
CAPPED_MAJORITY = 0.5


def end_reasons(t: Tally) -> list[dict]:
    """How the games of ``t`` ended: ``[{"reason", "games", "share", "cap"}]``, most frequent
    first (``reason``: the ruleset's ``end_game`` text, or its ``outcome: {reason}``, or the
    action limit's; ``cap``: the action limit, or a cap in the rules (``limits: {caps}``), stopped
    those games)."""
    total = sum(t.reasons.values())
    cap_texts = set(t.cap_texts)
    if t.limits:
        cap_texts |= {r for r in t.reasons if r.startswith("limits: {actions:")}
    return [{"reason": r, "games": k, "share": k / total, "cap": r in cap_texts}
            for r, k in sorted(t.reasons.items(), key=lambda rk: (-rk[1], rk[0]))]


def capped(t: Tally) -> dict:
    """``{"games", "share", "majority"}``: the games of ``t`` stopped by the action limit or by a
    cap written into the rules (``limits: {caps}``), their share of the games played (failed
    ones left out) and whether it is above :data:`CAPPED_MAJORITY` (the report then warns, and
    tune and ``compare --games auto`` call no setting best unless asked to)."""
    games = t.limits + t.rule_caps
    share = games / t.games if t.games else 0.0
    return {"games": games, "share": share, "majority": share > CAPPED_MAJORITY}


def position_spread(t: Tally, level: float = 0.95) -> dict | None:
    """The spread of win rates across turn positions (the highest minus the lowest) with a
    conservative interval: every position's Wilson interval at level ``1 - (1 - level)/n``
    (Bonferroni over the n positions, so all hold together with probability at least
    ``level``), the spread's interval then ``[max(0, max low - min high), max high - min low]``.
    None without a game whose order covers every seat."""
    if not t.position_games:
        return None
    n = t.players
    each = [proportion(w, t.position_games, 1 - (1 - level) / n) for w in t.by_position]
    values = [e.value for e in each]
    low = max(0.0, max(e.low for e in each) - min(e.high for e in each))
    high = max(e.high for e in each) - min(e.low for e in each)
    return Estimate(max(values) - min(values), low, high, level, None, t.position_games).to_json()


def declared(t: Tally, level: float = 0.95) -> list[dict]:
    """The declared metrics of ``t``: ``[{"name", "description", "per_player", "mean", "per_seat",
    "winner"}]`` in the order the ruleset writes them (``mean``: the interval of the per-game
    value, a ``per_player`` metric's seats averaged; ``per_seat``: each seat's, or None;
    ``winner``: the winners' value in games someone won and someone lost, or None), from the
    games that ended by the rules (not by the limit)."""
    names = list(t.info) + [k for k in t.declared if k not in t.info]
    out = []
    for name in names:
        info = t.info.get(name, {})
        per_player = info.get("per_player", name in t.declared_seats)
        r = t.declared.get(name, Running())
        seats = t.declared_seats.get(name)
        w = t.declared_winner.get(name)
        out.append({"name": name, "description": info.get("description", ""), "per_player": per_player,
                    "mean": mean_interval(r, level).to_json() if r.n else None,
                    "per_seat": [mean_interval(s, level).to_json() for s in seats] if seats else None,
                    "winner": mean_interval(w, level).to_json() if w is not None and w.n else None})
    return out


#: The metrics read from the score trace (unavailable where the score is undefined mid-game).
TRACE_METRICS = ("LeadChange", "lead_changes_per_game", "Drama", "Decisiveness", "winner_leads_by_decile",
                 "lead_change", "drama", "decisiveness")


def _trace_status(t: Tally) -> dict:
    """``{"games", "unavailable", "reason", "metrics"}``: the games with a score trace, those
    without one, why (the first such game's error, with its seed), and the metrics read from
    the trace."""
    return {"games": t.traced, "unavailable": t.untraced, "reason": t.trace_reason,
            "metrics": ["LeadChange", "lead_changes_per_game", "Drama", "Decisiveness", "winner_leads_by_decile"]}


def trace_note(m: dict) -> str | None:
    """A sentence on the score trace of metrics ``m`` when some games had none, else None:
    ``"score trace unavailable in 200 of 200 games (LeadChange, Drama, Decisiveness: n/a): game 0
    (seed 1:0): the score of P1 is undefined mid-game, after 0 decisions: ..."``."""
    st = m.get("score_trace") or {}
    if not st.get("unavailable"):
        return None
    total = st["games"] + st["unavailable"]
    which = "n/a" if not st["games"] else f"from the other {st['games']} games"
    return (f"score trace unavailable in {st['unavailable']} of {total} games (LeadChange, lead changes, Drama, "
            f"Decisiveness: {which}): {st['reason']}")


def _sample(t: Tally, key: str) -> tuple[str, object]:
    """The sample behind metric ``key`` of ``t``: ("rate", (successes, n)) or ("mean", Running)."""
    if key == "advantage_p1":
        return "rate", (t.by_position[0], t.position_games)
    if key == "drawishness":
        return "rate", (t.draws, t.games - t.limits)
    if key.startswith("win_rate_pos"):
        return "rate", (t.by_position[int(key[12:]) - 1], t.position_games)
    if key.startswith("score_pos"):
        return "mean", t.score_by_position[int(key[9:]) - 1]
    if key.startswith("metric:"):
        return "mean", t.declared.get(key[7:], Running())
    return "mean", {"duration": t.duration, "length": t.length, "margin": t.margin, "lead_change": t.lead_change_rate,
                    "drama": t.drama, "decisiveness": t.decisiveness}[key]


#: Games per side whose values :class:`PerGame` keeps for a paired comparison (8 bytes per metric
#: and game: about 200 MB at this count for two seats); later games are compared unpaired only.
PAIRED_MAX_GAMES = 2_000_000

#: The test a comparison row names, by (kind, paired): paired rates fall back to the paired t
#: when a value is fractional (a shared win).
TESTS = {("rate", False): "two-proportion z", ("mean", False): "Welch t", ("rate", True): "McNemar exact",
         ("mean", True): "paired t"}


def _keys(players: int, names: tuple = ()) -> list[str]:
    return ([f"win_rate_P{p + 1}" for p in range(players)] + [f"win_rate_pos{k + 1}" for k in range(players)]
            + [f"score_pos{k + 1}" for k in range(players)] + [key for key, _, _ in METRICS]
            + [f"metric:{n}" for n in names])


class PerGame:
    """Each game's value of every compared metric (``win_rate_P1``.. and :data:`METRICS`), in
    game order, for a paired comparison: a side's game i is paired with the other side's game i
    (both seeded ``(SEED, i)``).  A value is the one game's contribution as :class:`Tally` counts
    it (a win share, 1 for a draw, the turns...), NaN where the game has none (a failed game, a
    game without a winner for Drama).  Feed it records in game order with :meth:`add`; it keeps
    the first :data:`PAIRED_MAX_GAMES` games (``array('d')``: 8 bytes per metric and game).
    ``names``: the declared metrics to keep (``metric:NAME`` keys), and ``win_rate_posK`` and
    ``score_posK`` each turn position's win share and final score."""

    def __init__(self, players: int, names: tuple = ()):
        self.players = players
        self.keys = _keys(players, tuple(names))
        self.values = {k: array("d") for k in self.keys}
        self.games = 0

    def add(self, r: GameRecord) -> None:
        """Record game ``r`` (the next in game order)."""
        if self.games >= PAIRED_MAX_GAMES:
            return
        self.games += 1
        one = Tally(self.players)
        one.add(r)
        for key in self.keys:
            self.values[key].append(_one_value(one, key))


def _one_value(t: Tally, key: str) -> float:
    """The value of metric ``key`` in the one-game tally ``t`` (NaN when the game has none)."""
    if key.startswith("win_rate_P"):
        sample = "rate", (t.wins[int(key[10:]) - 1], t.games - t.limits)
    else:
        sample = _sample(t, key)
    kind, x = sample
    if kind == "rate":
        successes, n = x
        return float(successes) if n == 1 else math.nan
    return x.total if x.n == 1 else math.nan


def _position_rows(a: Tally, b: Tally, level: float, pairs) -> list[dict]:
    """The rows of :func:`compare` by turn position: each position's win rate (``win_rate_posK``)
    and mean final score (``score_posK``); none unless both sides have games whose turn order
    covers every seat."""
    rows = []
    if not (a.position_games and b.position_games):
        return rows
    for k in range(a.players):
        key = f"win_rate_pos{k + 1}"
        rows.append(_row(key, f"win rate of who moved #{k + 1}", "rate", _sample(a, key)[1], _sample(b, key)[1], level,
                         pairs=pairs))
    for k in range(a.players):
        key = f"score_pos{k + 1}"
        x, y = _sample(a, key)[1], _sample(b, key)[1]
        if x.n and y.n:
            rows.append(_row(key, f"mean score of who moved #{k + 1}", "mean", x, y, level, pairs=pairs))
    return rows


def compare(a: Tally, b: Tally, level: float = 0.95, pairs: tuple[PerGame, PerGame] | None = None) -> list[dict]:
    """Each of :data:`METRICS` (and each seat's win rate) of ``a`` and ``b`` side by side: both
    values with intervals, the difference ``b - a`` with its interval and p-value and a plain
    sentence.  Unpaired (``pairs`` None): the two-proportion z test for rates, Welch's t for
    means.  Paired (``pairs``: the sides' :class:`PerGame`, games sharing seeds): the interval of
    the per-seed differences over the games both sides played, McNemar's exact test for rates,
    the paired t for means (see :func:`interpreter.analysis.stats.paired`).  Each row names its ``test``
    and ``pairs`` (the pairs compared, or None).  A metric of the score trace that a side has no
    trace for (its score undefined mid-game) is marked ``available: False``, not significant,
    its sentence saying why."""
    rows = []
    for p in range(a.players):
        x = (a.wins[p], a.games - a.limits)
        y = (b.wins[p], b.games - b.limits)
        rows.append(_row(f"win_rate_P{p + 1}", f"P{p + 1} win rate", "rate", x, y, level, pairs=pairs))
    rows += _position_rows(a, b, level, pairs)
    for key, words, _ in METRICS:
        kind, x = _sample(a, key)
        _, y = _sample(b, key)
        row = _row(key, words, kind, x, y, level, shift=1 / a.players if key == "advantage_p1" else 0.0, pairs=pairs)
        if key in TRACE_METRICS:
            missing = [t for t, sample in ((a, x), (b, y)) if t.untraced and not sample.n]
            if missing:
                row.update(available=False, significant=False,
                           sentence=f"{words}: unavailable, no score trace ({missing[0].trace_reason})")
        rows.append(row)
    names = list(a.info) + [k for k in (*a.declared, *b.declared) if k not in a.info]
    for name in dict.fromkeys(names):
        key = f"metric:{name}"
        x, y = _sample(a, key)[1], _sample(b, key)[1]
        if pairs is not None and not (key in pairs[0].values and key in pairs[1].values):
            continue  # a metric one side does not declare (a variant's own) has no pairs
        desc = (a.info.get(name) or b.info.get(name) or {}).get("description")
        rows.append(_row(key, f"{name}" + (f" ({desc})" if desc else ""), "mean", x, y, level, pairs=pairs))
    return rows


def _row(key, words, kind, x, y, level, shift=0.0, pairs=None) -> dict:
    if kind == "rate":
        ea, eb = proportion(*x, level), proportion(*y, level)
    else:
        ea, eb = mean_interval(x, level), mean_interval(y, level)
    count = None
    if pairs is not None:
        pa, pb = pairs
        count = min(pa.games, pb.games)
        result = paired(pa.values[key][:count], pb.values[key][:count], level, rate=kind == "rate")
        d, test = result.estimate, result.test
    elif kind == "rate":
        d, test = two_proportion(*x, *y, level), TESTS[kind, False]
    else:
        d, test = welch(x, y, level), TESTS[kind, False]
    if shift:
        ea = Estimate(ea.value - shift, ea.low - shift, ea.high - shift, level, None, ea.n)
        eb = Estimate(eb.value - shift, eb.low - shift, eb.high - shift, level, None, eb.n)
    row = {"key": key, "metric": words, "kind": kind, "a": ea.to_json(), "b": eb.to_json(), "difference": d.to_json(),
           "significant": d.significant(), "test": test, "pairs": count}
    row["sentence"] = sentence(words, kind, ea, eb, d, test)
    return row


def _fmt(kind: str, e: Estimate) -> str:
    if kind == "rate":
        return f"{e.value:.1%} ± {100 * e.half_width:.1f}"
    return f"{e.value:.3g} ± {e.half_width:.2g}"


def sentence(words: str, kind: str, a: Estimate, b: Estimate, d: Estimate, test: str | None = None) -> str:
    """One plain sentence worded by the difference's sign and significance: ``"first-player
    advantage drops from 8.1% ± 2.0 to 1.2% ± 2.1: significant (McNemar exact, p = 0.001)"``,
    ``"Drama: no significant change (0.321 ± 0.0084 to 0.326 ± 0.0089; paired t, p = 0.46)"``,
    or ``"...: too few games to test"``.  ``d`` is the difference b - a (paired: the mean of the
    per-seed differences, over the games both sides measured; when its sign differs from that of
    the two sides' means the sentence says so)."""
    both = f"{_fmt(kind, a)} to {_fmt(kind, b)}"
    if d.p is None:
        return f"{words}: {both}: too few games to test"
    shown = "p < 0.001" if d.p < 0.001 else f"p = {d.p:.2g}"
    how = f"{test + ', ' if test else ''}{shown}"
    if not d.significant() or d.value == 0:
        return f"{words}: no significant change ({both}; {how})"
    verb = "rises" if d.value > 0 else "drops"
    out = f"{words} {verb} from {both}: significant ({how})"
    if (b.value - a.value) * d.value < 0:
        shift = f"{d.value:+.1%}" if kind == "rate" else f"{d.value:+.3g}"
        out += f"; over the games both sides measured the difference is {shift}"
    return out


def conclusion(m: dict) -> str:
    """The first-player conclusion metrics ``m`` support: ``"first player favoured"`` or
    ``"first player disfavoured"`` when the first-player advantage's 95% interval lies above or
    below 0, else ``"no significant first-player advantage"``."""
    adv = m.get("advantage_p1")
    if adv is None:
        return "no significant first-player advantage"
    if adv["low"] > 0:
        return "first player favoured"
    if adv["high"] < 0:
        return "first player disfavoured"
    return "no significant first-player advantage"


def ladder_notes(strengths: list[str], runs: list[list[tuple[str, dict]]]) -> list[str]:
    """What does and does not hold under every agent strength of a ladder: ``strengths`` names
    each strength (its agents), ``runs[k]`` is strength k's ``[(side, metrics)]`` (one side, or one
    per swept value, in the same order for every strength).  A line per side whose first-player
    conclusion (:func:`conclusion`) differs between strengths, and, with several sides, a line
    when the best side (the smallest absolute first-player advantage) differs; else one line
    saying the conclusions hold under every strength."""
    notes = []
    for k, (side, _) in enumerate(runs[0]):
        said = [conclusion(run[k][1]) for run in runs]
        if len(set(said)) > 1:
            shown = "; ".join(f"{c} with {s}" for c, s in zip(said, strengths))
            notes.append(f"{side}: the first-player conclusion does not hold under both agent strengths: {shown}")
    if len(runs[0]) > 1:
        def best(run):
            scored = [(abs(m["advantage_p1"]["value"]), side) for side, m in run if m.get("advantage_p1")]
            return min(scored)[1] if scored else None

        bests = [best(run) for run in runs]
        if len(set(bests)) > 1:
            notes.append("the best setting (smallest first-player advantage) does not hold under both agent strengths: "
                         + "; ".join(f"{b} with {s}" for b, s in zip(bests, strengths)))
    if not notes:
        notes.append("the first-player conclusions" + (" and the best setting" if len(runs[0]) > 1 else "")
                     + " hold under every agent strength: " + ", ".join(strengths))
    return notes
