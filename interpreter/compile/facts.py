"""A game's exact facts: the utility bounds, the constant sum of the scores and the longest game.

Learning libraries need three facts about a game before they play it: the lowest and highest
score any finished game can give (OpenSpiel's ``min_utility``/``max_utility``, which algorithms
normalise by), whether every outcome's scores add up to one number (zero- or constant-sum), and
the most decisions a game can take (``max_game_length``, which sizes buffers and tensors).  A
sampled fact is wrong by construction for a game whose extreme is rare, so these are never
sampled.  They come from the ruleset, for each seat count:

- **declared**: ``outcome: {range: [lo, hi], sum: S}`` and ``limits: {actions: N}``, numbers or
  expressions over the parameters and ``num_players`` (so a variant or ``--param`` keeps them
  true), written with a comment saying why they are the true extremes;
- **derived** where nothing is declared and the game is small: the whole tree, every chance
  outcome a branch, is enumerated (at most :data:`ENUMERATE_NODES` states) and the facts read
  from its terminal states.

Where neither exists :func:`game_facts` raises :class:`FactsError` saying what to declare.
:func:`outcome_problem` is the check that every played game stays inside the declared facts
(``tapster check`` and the adapters' tests run it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import TapsterError
from .ruleset import GameFacts, Ruleset

__all__ = ["ENUMERATE_NODES", "FactsError", "Facts", "TreeFacts", "enumerate_tree", "game_facts", "outcome_problem"]

#: The most states :func:`game_facts` visits to derive an undeclared fact (a three-card poker has
#: 58; a 3x3 line game's 549,946 are too many to walk each time a game loads: it declares its facts).
ENUMERATE_NODES = 20_000


class FactsError(TapsterError):
    """A fact is neither declared nor derivable (the game's tree is too large to enumerate)."""


@dataclass
class TreeFacts:
    """What the enumerated tree of a game says: ``terminals`` (complete games), ``nodes`` (states
    visited, chance points included), ``lowest``/``highest`` score, ``sums`` (the distinct sums of
    an outcome's scores, rounded to 9 places), ``longest`` (the most decisions on any path) and,
    when asked for, ``infosets`` (per seat, the distinct :meth:`State.information_state` keys at
    the states where that seat decides)."""

    terminals: int = 0
    nodes: int = 0
    lowest: float | None = None
    highest: float | None = None
    sums: set = field(default_factory=set)
    longest: int = 0
    infosets: list[set] | None = None


@dataclass(frozen=True)
class Facts:
    """The facts of a ruleset for one seat count, each with where it comes from: ``range``
    (lowest, highest score), ``sum`` (the scores' constant sum, or None when it varies) and
    ``actions`` (the most decisions a game takes); ``sources`` maps each of ``range``, ``sum``
    and ``actions`` to ``"declared"`` or ``"derived"`` (from the enumerated tree)."""

    range: tuple[float, float]
    sum: float | None
    actions: int
    sources: dict


def enumerate_tree(rs: Ruleset, num_players: int, budget: int | None = ENUMERATE_NODES, infosets: bool = False) -> TreeFacts | None:
    """Walk the whole tree of ``rs`` for ``num_players`` seats, chance as explicit outcomes
    (every outcome a branch), and gather :class:`TreeFacts`; with ``infosets`` also every
    seat's information-state keys (the games are logged for it).  None as soon as more than
    ``budget`` states have been made (no budget: None), so a large game costs about ``budget``
    states before it is given up.

    Raises:
        TapsterError: a ruleset error met in the tree (an outcome without numbers among them).
    """
    rs = rs.with_chance("explicit")
    out = TreeFacts(infosets=[set() for _ in range(num_players)] if infosets else None)
    stack = [(rs.new_game(num_players, seed=0, log=infosets, chance="explicit"), 0)]
    pop, push = stack.pop, stack.append
    made = 1  # states made so far (the budget counts them: a wide chance point makes many at once)
    while stack:
        s, depth = pop()
        out.nodes += 1
        if s.finished:
            out.terminals += 1
            scores = s.outcome().scores
            if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in scores):
                raise TapsterError(f"{rs.name}: the scores must be numbers to have bounds; found {list(scores)!r}")
            lo, hi = min(scores), max(scores)
            out.lowest = lo if out.lowest is None else min(out.lowest, lo)
            out.highest = hi if out.highest is None else max(out.highest, hi)
            out.sums.add(round(sum(scores), 9))
            out.longest = max(out.longest, depth)
            continue
        chance = s.is_chance()
        if infosets and not chance:
            for p in s.current_players():
                out.infosets[p].add(s.information_state(p))
        actions = s.legal_actions()
        made += len(actions)
        if budget is not None and made > budget:
            return None
        last = len(actions) - 1
        for i, a in enumerate(actions):
            child = s if i == last else s.clone()
            child.apply(a)
            push((child, depth if chance else depth + 1))
    return out


def game_facts(rs: Ruleset, num_players: int, budget: int = ENUMERATE_NODES) -> Facts:
    """The facts of ``rs`` for ``num_players`` seats: the declared ones, the others derived by
    enumerating the tree when it has at most ``budget`` states.

    Raises:
        FactsError: a fact is undeclared and the tree is larger than ``budget`` (the message
            says what to declare, and where).
        TapsterError: a ruleset error met while enumerating.
    """
    declared = rs.facts.get(num_players) or GameFacts(None, None, None)
    sources = {}
    rng, total, actions = declared.range, declared.sum, declared.actions
    if rng is not None:
        sources["range"] = "declared"
    if total is not None:
        sources["sum"] = "declared"
    if actions is not None:
        sources["actions"] = "declared"
    if rng is None or actions is None:
        tree = enumerate_tree(rs, num_players, budget)
        if tree is None:
            missing = []
            if rng is None:
                missing.append("`outcome: {range: [lowest, highest]}` (every score any finished game can give lies within it)")
            if actions is None:
                missing.append("`limits: {actions: N}` (the most decisions any game takes)")
            raise FactsError(
                f"{rs.path}: {rs.title} declares no {' and no '.join(missing)}, and its tree is too large to derive "
                f"{'them' if len(missing) > 1 else 'it'} (more than {budget} states with {num_players} players); declare "
                f"{'them' if len(missing) > 1 else 'it'} with a comment saying why they are the true extremes (each may be "
                "an expression over the params and `num_players`); see docs/reference.md, \"Outcome\" and \"Limits and safety\"")
        if rng is None:
            rng, sources["range"] = (tree.lowest, tree.highest), "derived"
            if total is None and len(tree.sums) == 1:
                total, sources["sum"] = next(iter(tree.sums)), "derived"
        if actions is None:
            actions, sources["actions"] = tree.longest, "derived"
    return Facts((rng[0], rng[1]), total, actions, sources)


def outcome_problem(rs: Ruleset, num_players: int, scores, decisions: int) -> str | None:
    """What a finished game of ``decisions`` decisions with ``scores`` breaks of the declared
    facts of ``rs`` (``outcome: {range, sum}``, ``limits: {actions}``), or None."""
    declared = rs.facts.get(num_players)
    if declared is None:
        return None
    if declared.actions is not None and decisions > declared.actions:
        return (f"the game took {decisions} decisions, more than the declared longest game "
                f"(`limits: {{actions: {declared.actions}}}` with {num_players} players)")
    if declared.range is not None:
        lo, hi = declared.range
        for p, x in enumerate(scores):
            if not isinstance(x, (int, float)) or not lo <= x <= hi:
                return (f"seat P{p + 1} scored {x!r}, outside the declared `outcome: {{range: [{lo}, {hi}]}}` "
                        f"with {num_players} players")
    if declared.sum is not None and all(isinstance(x, (int, float)) for x in scores):
        if abs(sum(scores) - declared.sum) > 1e-9:
            return f"the scores {list(scores)} add up to {sum(scores)}, not the declared `outcome: {{sum: {declared.sum}}}`"
    return None
