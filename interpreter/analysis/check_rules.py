"""The checks that a game runs by its rules: ``games end``, ``score at every step``, ``legal
actions apply``, ``clone and JSON round trip`` and ``same seed, same game`` (see
:mod:`.check` for what each asserts).  Each takes a Ruleset and a plan of seeds and returns its
detail line (and notes), or raises :class:`~interpreter.analysis.check_games.CheckFailure`.

Imports: :mod:`.check_games` (the games played), the game's facts (``interpreter.compile.facts``:
the whole tree, the declared bounds), the engine (state, flow's short-draw record), the action
encoding (``interpreter.interop.encoding``: ids not derived from an option's ``in:``).
"""

from __future__ import annotations

import json

from ..compile.facts import FactsError, enumerate_tree, game_facts, outcome_problem
from ..compile.ruleset import Ruleset
from ..engine import flow as flow_engine
from ..engine.places import SeatZoneRef
from ..engine.rng import Rng
from ..engine.state import State
from ..errors import IllegalActionError
from ..interop.encoding import has_chance, static_actions
from ..model import sees_contents
from .check_games import (
    MOVE_LIMIT,
    CheckFailure,
    Game,
    Games,
    coverage_notes,
    games_played,
    player_counts,
    random_game,
    stopped_note,
)

#: ``games end`` compares the declared facts with the whole tree when it has at most this many
#: states (a three-card poker's 58; a larger tree is left to the played games, to keep the check quick).
TREE_STATES = 2_000

#: ``games end`` says a game looks constant-sum only when at least this many games with a seat
#: count (or the whole tree) add up to the same number: one or two games prove nothing.
SUM_GAMES = 10


def check_games_end(rs: Ruleset, seeds: Games) -> tuple[str, list[str]]:
    """Random games end with an outcome: a score and a place for every seat, winners among the
    seats, a reason, inside the declared facts (:func:`interpreter.compile.facts.outcome_problem`).
    Returns the detail and the notes: each decision the games never reached (or reached fewer
    than :data:`PER_DECISION` times), each action whose ids are not derived from its ``in:``.
    Raises :class:`CheckFailure`."""
    games = 0
    sums: dict[int, list] = {}  # players -> the sums of the scores of the games played (or the tree's)
    extremes: dict[int, tuple] = {}  # players -> (lowest score, highest score, most decisions) played
    flow_engine.SHORT_DRAWS.clear()
    for seed in seeds:
        for players in player_counts(rs):
            g = random_game(rs, players, seed, seed * 7, seeds)
            out = g.st.outcome()
            if len(out.scores) != players:
                raise g.fail(f"the outcome has {len(out.scores)} scores for {players} seats")
            if sorted(out.ranking) != list(range(players)):
                raise g.fail(f"the ranking {out.ranking} is not a place for each of {players} seats")
            if not set(out.winners) <= set(range(players)):
                raise g.fail(f"winners {out.winners} are not seats")
            if not out.reason:
                raise g.fail("the outcome gives no reason")
            problem = outcome_problem(rs, players, out.scores, len(g.actions))
            if problem is not None:
                raise g.fail(problem)
            total = round(sum(out.scores), 9) if all(type(x) in (int, float) for x in out.scores) else None
            sums.setdefault(players, []).append(total)
            if total is not None:
                lo, hi, longest = extremes.get(players, (min(out.scores), max(out.scores), 0))
                extremes[players] = (min(lo, *out.scores), max(hi, *out.scores), max(longest, len(g.actions)))
            games += 1
    reached = ", ".join(f"{k} {v}" for k, v in sorted(seeds.reached.items(), key=lambda kv: str(kv[0])))
    exact = []
    for players in player_counts(rs):
        tree = enumerate_tree(rs, players, budget=TREE_STATES)
        if tree is None:
            continue
        problem = _facts_against_tree(rs, players, tree)
        if problem is not None:
            raise CheckFailure(problem, players=players)
        exact.append(str(players))
        sums[players] = ["tree", *tree.sums]
    tail = f"; the declared facts are the enumerated tree's with {', '.join(exact)} players" if exact else ""
    return (f"{games} random games ended with an outcome ({games_played(seeds)}; decisions reached: {reached or 'none'}){tail}",
            coverage_notes(rs, seeds) + _encoding_warnings(rs) + contents_warnings(rs) + adapter_warnings(rs, sums, extremes)
            + short_draw_notes(games))


#: ``games end`` notes a declared longest game (``limits: {actions: N}``) at least this many times
#: the longest game played, and at least :data:`LOOSE_MARGIN` decisions longer: a cap, not the
#: true longest game, which sizes what the adapters allocate.
LOOSE_FACTOR = 4
LOOSE_MARGIN = 100


def adapter_warnings(rs: Ruleset, sums: dict[int, list], extremes: dict[int, tuple] | None = None) -> list[str]:
    """Warnings about how the OpenSpiel and PettingZoo adapters will take ``rs``, per seat count:
    that they will refuse it (its utility bounds or longest game neither declared nor derivable:
    the :class:`~interpreter.compile.facts.FactsError` they raise), or that they will load it as
    general-sum although ``outcome: {sum}`` is undeclared and every game of ``sums[players]``
    added up to the same number: the sums of the scores of the games played (None for a score
    that is not a number), at least :data:`SUM_GAMES` of them, or ``["tree", *sums]``, every sum
    of the whole enumerated tree.  (OpenSpiel's ``exploitability`` refuses a general-sum game.)
    ``extremes`` (seat count -> the lowest and highest score and the most decisions of the
    games played) adds to a refusal the declaration to write, with the least the games played
    allow, and gives a note for a declared longest game that is only a loose cap: at least
    :data:`LOOSE_FACTOR` times (and :data:`LOOSE_MARGIN` decisions more than) the longest game
    played, since the adapters size OpenSpiel's ``max_game_length`` and information-state
    tensor by it.
    Returns the warnings as note lines (empty when there is nothing to say)."""
    out = []
    played = rs.with_chance("explicit") if has_chance(rs) else rs  # as the adapters play it
    for players in player_counts(rs):
        lo, hi, longest = (extremes or {}).get(players, (None, None, None))
        try:
            facts = game_facts(played, players)
        except FactsError as e:
            declared = rs.facts.get(players)
            add = []
            if lo is not None and (declared is None or declared.range is None):
                add.append(f"`range: [{lo:g}, {hi:g}]` under `outcome:` (or wider)")
            if longest is not None and (declared is None or declared.actions is None):
                add.append(f"`actions: {longest}` under `limits:` (or more)")
            fix = (f"; the games played with {players} players scored from {lo:g} to {hi:g} and took at most {longest} "
                   f"decisions, so the least to declare is {' and '.join(add)}: write the true extremes"
                   if add else "")
            out.append(f"warning: the OpenSpiel and PettingZoo adapters will refuse this ruleset with {players} players: {e}{fix}")
            continue
        cap = facts.actions
        if (facts.sources.get("actions") == "declared" and longest and cap >= LOOSE_FACTOR * longest
                and cap - longest >= LOOSE_MARGIN):
            out.append(
                f"note: `limits: {{actions: {cap}}}` with {players} players is {cap // longest} times the longest game played "
                f"({longest} decisions): the OpenSpiel and PettingZoo adapters take it as the longest game (OpenSpiel's "
                f"max_game_length; its information-state tensor keeps {players + 1} numbers a decision, {cap * (players + 1):,} "
                f"for these); if no game can take more than N decisions, declare `limits: {{actions: N}}` (an expression over the "
                f"params and `num_players` keeps it true under a variant), with a comment saying why no game is longer")
        seen = sums.get(players, [])
        tree = bool(seen) and seen[0] == "tree"
        totals = set(seen[1:] if tree else seen)
        if facts.sum is None and len(totals) == 1 and None not in totals and (tree or len(seen) >= SUM_GAMES):
            total = next(iter(totals))
            what = "the whole enumerated tree's outcomes" if tree else f"the scores of every game played ({len(seen)})"
            out.append(f"warning: with {players} players {what} add up to {total:g}, but `outcome: {{sum: ...}}` is undeclared: "
                       f"the OpenSpiel and PettingZoo adapters load it as general-sum (OpenSpiel's exploitability refuses it); "
                       f"declare `sum: {total:g}` under `outcome:` if every game does")
    return out


def short_draw_notes(games: int) -> list[str]:
    """A note per ``move`` declared ``on_empty: short`` that drew from an empty zone in these
    games (the declared choice reached: worth a look), with how often."""
    notes = [f"move at {mark} drew short (on_empty: short) {n} time(s) in {games} games"
             for mark, n in sorted(flow_engine.SHORT_DRAWS.items(), key=lambda kv: str(kv[0]))]
    flow_engine.SHORT_DRAWS.clear()
    return notes


def check_score(rs: Ruleset, seeds: Games) -> str:
    """At every step of random games (before each decision, and at the end) the ruleset's score
    (``outcome.score``) is defined for every seat: greedy agents, searches cut at their depth and
    the score trace of ``tapster analyse`` read it mid-game.  Raises :class:`CheckFailure` with
    the step (the actions before it), the seat and the error."""
    steps = 0
    mark = getattr(rs.score_expr, "mark", None)
    where = f" at {mark.file}:{mark.line}:{mark.column}" if mark is not None else ""
    for seed in seeds:
        g = Game(rs, rs.default_players, seed, seeds)
        rng = Rng(seed * 3 + 1)
        while len(g.actions) < MOVE_LIMIT:
            st = g.st
            for p in range(st.num_players):
                try:
                    st.score(p)
                except Exception as exc:  # noqa: BLE001 - the error is the failure reported
                    k = len(g.actions)
                    when = "at the end of the game" if st.is_terminal() else \
                        f"before the game ends (step {k + 1}, after {k} action{'s' if k != 1 else ''})"
                    raise g.fail(f"the score (outcome.score{where}) of seat P{p + 1} is undefined {when}: "
                                 f"{type(exc).__name__}: {exc}. Greedy agents, searches cut at their depth and "
                                 "`tapster analyse`'s score trace read the score mid-game: make it defined at every "
                                 "step (e.g. `... if len(board) else 0` where it reads a card not yet dealt)") from None
            steps += 1
            if st.is_terminal():
                break
            g.apply(rng.choice(g.legal()))
    return f"{steps} steps scored for every seat ({games_played(seeds)})"


def _encoding_warnings(rs: Ruleset) -> list[str]:
    """A warning per option whose action ids cannot be derived from its ``in:`` (the encoding
    widens the values playouts show, which creates ids no listing may produce)."""
    out = []
    for _choose, o, derived in static_actions(rs, rs.default_players):
        if derived is None:
            out.append(f"warning: action `{o.name}` ({o.mark}): its ids are not derived from its `in:`, which reads values "
                       "not known without playing (a variable, a `let`, an attribute); the OpenSpiel and PettingZoo encoding "
                       "widens the values seen in playouts, creating ids no listing may produce")
    return out


def contents_warnings(rs: Ruleset) -> list[str]:
    """A warning per per-player ``hidden`` zone refilled from a zone its owner sees (its own
    seat's discard pile, a public pile): the deck-builder's draw pile, whose owner knows which
    cards are in it (it saw every one go to the discard pile) but not their order.  Declared
    ``hidden``, the search agents' worlds deal other seats' hidden cards into it; the fix names
    ``visibility: owner_contents``.  Returns the warnings as note lines."""
    out = []
    for z in rs.zone_list:
        ref = z.refill_from
        src = getattr(ref, "decl", None)
        if not z.per_player or z.visibility != "hidden" or src is None:
            continue
        if sees_contents(src.visibility, isinstance(ref, SeatZoneRef)):
            mark = getattr(ref, "mark", None)
            where = f" ({mark})" if mark is not None else ""
            out.append(f"warning: zone `{z.name}`{where}: a per-player `hidden` zone refilled from `{ref.text}`, which its "
                       f"owner sees, so its owner knows which components are in it, only not their order; declared "
                       f"`hidden`, the search agents' worlds deal other seats' hidden components into it: declare "
                       f"`visibility: owner_contents` (its owner knows the contents, nobody the order)")
    return out


def _facts_against_tree(rs: Ruleset, players: int, tree) -> str | None:
    """What the declared facts of ``rs`` get wrong against the whole tree (enumerated): a bound
    or a longest game that is not the true one, a sum that varies."""
    declared = rs.facts.get(players)
    if declared is None:
        return None
    if declared.range is not None and tuple(declared.range) != (tree.lowest, tree.highest):
        return (f"`outcome: {{range: [{declared.range[0]}, {declared.range[1]}]}}` with {players} players is not the true extremes: "
                f"the whole tree's scores run from {tree.lowest} to {tree.highest}")
    if declared.sum is not None and tree.sums != {round(declared.sum, 9)}:
        return f"`outcome: {{sum: {declared.sum}}}` with {players} players: the whole tree's outcomes add up to {sorted(tree.sums)}"
    if declared.actions is not None and declared.actions != tree.longest:
        return (f"`limits: {{actions: {declared.actions}}}` with {players} players is not the longest game: "
                f"the whole tree's longest takes {tree.longest} decisions")
    return None


def check_same_seed(rs: Ruleset, seeds) -> str:
    """The same seed and agent seed give the same game, byte for byte.  Raises :class:`CheckFailure`."""
    for seed in seeds:
        a = random_game(rs, rs.default_players, seed, seed + 4, seeds)
        b = random_game(rs, rs.default_players, seed, seed + 4)
        if a.actions != b.actions:
            k = next((i for i, (x, y) in enumerate(zip(a.actions, b.actions)) if x != y), min(len(a.actions), len(b.actions)))
            raise CheckFailure(f"the same seed played differently from move {k + 1}", seed, rs.default_players, a.actions[:k + 1])
        if json.dumps(a.st.to_json(), sort_keys=True) != json.dumps(b.st.to_json(), sort_keys=True):
            raise a.fail("the same seed and actions ended in different states")
    return f"{len(seeds)} seeds replayed identically{stopped_note(seeds)}"


def check_round_trip(rs: Ruleset, seeds) -> str:
    """Every 5th move, a clone and a JSON round trip continue identically to the original for
    8 moves, and playing them leaves the original unchanged.  Raises :class:`CheckFailure`."""
    branches = 0
    for seed in seeds:
        g = Game(rs, rs.default_players, seed, seeds)
        rng = Rng(seed + 1)
        step = 0
        while not g.st.is_terminal() and step < MOVE_LIMIT:
            if step % 5 == 0:
                st = g.st
                before = st.to_json()
                live, copy = st.clone(), st.clone()
                saved = State.from_json(rs, json.loads(json.dumps(before)))
                if saved.to_json() != before:
                    raise g.fail("State.from_json(state.to_json()) differs from the state")
                branch_rng = Rng(step)
                line: list[str] = []
                for _ in range(8):
                    if live.is_terminal():
                        break
                    a = branch_rng.choice(live.legal_actions())
                    line.append(str(a))
                    live.apply(a)
                    copy.apply(a)
                    saved.apply(str(a))
                    if not copy.to_json() == live.to_json() == saved.to_json():
                        raise CheckFailure("a clone or JSON copy continued differently under the same actions",
                                           seed, g.players, g.actions + line)
                if st.to_json() != before:
                    raise CheckFailure("playing a clone changed the original", seed, g.players, g.actions + line)
                branches += 1
            g.apply(rng.choice(g.legal()))
            step += 1
    return f"{branches} branches continued identically"


def check_legal_actions(rs: Ruleset, seeds, per_game: int = 40) -> str:
    """Every listed legal action (up to 12 per decision) applies to a copy; an unlisted action
    is refused with :class:`IllegalActionError` listing the legal ones, and the state is
    unchanged.  Raises :class:`CheckFailure`."""
    tried = 0
    for seed in seeds:
        g = Game(rs, rs.default_players, seed, seeds)
        rng = Rng(seed)
        moves = 0
        while not g.st.is_terminal() and moves < per_game:
            legal = g.legal()
            for a in legal[:12]:
                probe = g.st.clone()
                try:
                    probe.apply(a)
                except Exception as exc:  # noqa: BLE001 - any error is the failure reported
                    raise CheckFailure(f"the listed action {a} does not apply: {type(exc).__name__}: {exc}",
                                       seed, g.players, g.actions + [str(a)]) from None
                tried += 1
            before = g.st.to_json()
            try:
                g.st.apply("no_such_action(42)")
            except IllegalActionError as exc:
                if set(exc.legal) != set(legal):
                    raise g.fail("the refusal of an unlisted action lists other legal actions") from None
            except Exception as exc:  # noqa: BLE001 - a label that fails to render while refusing, say
                raise g.fail(f"refusing an unlisted action raised {type(exc).__name__}: {exc}") from None
            else:
                raise g.fail("the unlisted action no_such_action(42) was accepted")
            if g.st.to_json() != before:
                raise g.fail("a refused action changed the state")
            g.apply(rng.choice(legal))
            moves += 1
    return f"{tried} listed actions applied, unlisted ones refused"
