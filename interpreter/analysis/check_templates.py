"""The check that every template renders, in words: ``templates render`` (see :mod:`.check`).

Random games render every decision's prompt and the label of every legal action, every ``log``
line and ``end_game`` reason they reach, through a recorder that wraps the ruleset's templates
while the games run; a template that raises, or shows a player a raw snake_case table cell
(:func:`raw_cells`), fails the check with the seed and actions that reach it.

Imports: :mod:`.check_games` (the games played) and the engine's random generator.
"""

from __future__ import annotations

import re

from ..compile.ruleset import Ruleset
from ..engine.rng import Rng
from .check_games import MOVE_LIMIT, CheckFailure, Game, Games, player_counts

#: ``templates render`` plays up to this many times as many games again (on the next seeds)
#: while a template written in the ruleset has not rendered.
EXTRA_GAMES = 4


_TEMPLATE_KINDS = {"prompt": "prompt", "label": "label", "text": "log line", "reason": "end_game reason"}


def _template_sites(rs: Ruleset) -> list[tuple[object, str]]:
    """(holder, attribute) of every template the flow renders: each decision's ``prompt``, each
    option's ``label``, each ``log`` effect's ``text``, each ``end_game`` effect's ``reason``."""
    sites: list[tuple[object, str]] = []
    for choose in rs.chooses:
        sites.append((choose, "prompt"))
        sites += [(o, "label") for o in choose.options]
    for block in rs.blocks:
        for eff in block.effects:
            eff = getattr(eff, "inner", eff)  # an explicit-chance wrapper holds the effect
            verb = getattr(eff, "verb", None)
            if verb == "log":
                sites.append((eff, "text"))
            elif verb == "end_game":
                sites.append((eff, "reason"))
    return sites


#: A snake_case word: two or more lower-case words joined by ``_`` (``from_discard``).
_SNAKE = re.compile(r"(?<![A-Za-z0-9_])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![A-Za-z0-9_])")


def raw_cells(rs: Ruleset) -> dict[str, tuple[str, str]]:
    """The snake_case words of the components' tables (text cells such as ``from_discard``):
    ``{word: (an id of a component holding it, the field)}``.  A player never reads one of these
    raw: a template that shows one fails ``templates render``."""
    out: dict[str, tuple[str, str]] = {}
    for c in rs.components:
        for name, value in c.fields.items():
            if name in ("id", "kind") or not isinstance(value, str):
                continue
            if _SNAKE.fullmatch(value) and value not in out:
                out[value] = (c.id, name)
    return out


class _TemplateRecorder:
    """While entered, every flow template of ``rs`` is replaced by a wrapper that records that it
    rendered (``rendered``: site indexes) or the first one that failed (``failed``: index and
    exception); leaving restores the ruleset's own functions."""

    def __init__(self, rs: Ruleset):
        info = {id(t[0]): t[1:] for t in getattr(rs, "templates", ())}
        self.sites = []
        for holder, attr in _template_sites(rs):
            fn = getattr(holder, attr)
            mark, text, written = info.get(id(fn), (getattr(holder, "mark", None), "?", True))
            self.sites.append((holder, attr, fn, mark, text, written))
        self.rendered: set[int] = set()
        self.failed: tuple[int, Exception] | None = None
        self.cells = raw_cells(rs)
        #: site index -> (the raw word, the text it rendered, (component id, field), (seed, players, actions)):
        #: the first time each showed one
        self.raw: dict[int, tuple] = {}
        self.where: tuple = (None, None, [])  # the game being played: seed, players, its actions so far

    def _wrap(self, i: int, fn):
        rendered = self.rendered
        cells = self.cells
        raw = self.raw

        def template(env):
            try:
                out = fn(env)
            except Exception as exc:
                if self.failed is None:
                    self.failed = (i, exc)
                raise
            rendered.add(i)
            if cells and i not in raw and "_" in out:
                for word in _SNAKE.findall(out):
                    if word in cells:
                        seed, players, actions = self.where
                        raw[i] = (word, out, cells[word], (seed, players, list(actions)))
                        break
            return out

        return template

    def __enter__(self) -> _TemplateRecorder:
        for i, (holder, attr, fn, *_rest) in enumerate(self.sites):
            setattr(holder, attr, self._wrap(i, fn))
        return self

    def __exit__(self, *exc) -> None:
        for holder, attr, fn, *_rest in self.sites:
            setattr(holder, attr, fn)

    def describe(self, i: int) -> str:
        _, attr, _, mark, text, _ = self.sites[i]
        shown = text if len(text) <= 60 else text[:57] + "..."
        where = f" at {mark.file}:{mark.line}:{mark.column}" if mark is not None else ""
        return f"{_TEMPLATE_KINDS[attr]} {shown!r}{where}"

    def failure(self, exc: Exception, seed: int, players: int, actions: list[str]) -> CheckFailure:
        """The failure to report for ``exc``, naming the template that raised when one did."""
        if self.failed is not None:
            i, err = self.failed
            return CheckFailure(f"the {self.describe(i)} does not render: {type(err).__name__}: {err}", seed, players, actions)
        if isinstance(exc, CheckFailure):
            return exc
        return CheckFailure(f"{type(exc).__name__}: {exc}", seed, players, actions)


def check_templates(rs: Ruleset, seeds) -> tuple[str, list[str]]:
    """Random games (logs on; each player count, each seed, then up to :data:`EXTRA_GAMES` times
    as many on the next seeds while a written template has not rendered) render every
    decision's prompt and the label of every legal action at every decision, every ``log``
    line and ``end_game`` reason they reach.  Returns the detail and a note per template written in the ruleset that
    no game reached.  Raises :class:`CheckFailure` naming the template (file:line:col and its
    text) that raised, with the seed and actions that reach it."""
    recorder = _TemplateRecorder(rs)
    if not recorder.sites:
        return "no template (nothing to check)", []
    written = [i for i, site in enumerate(recorder.sites) if site[5]]
    games = 0

    def play(seed: int, plan) -> None:
        nonlocal games
        for players in player_counts(rs):
            games += 1
            actions: list[str] = []
            try:
                g = Game(rs, players, seed, plan)
                actions = g.actions
                recorder.where = (seed, players, actions)
                rng = Rng(seed * 7 + 3)
                while not g.st.is_terminal():
                    if len(g.actions) >= MOVE_LIMIT:
                        raise g.fail(f"the game did not end in {MOVE_LIMIT} moves")
                    g.st.decision()  # the prompt and every label
                    g.apply(rng.choice(g.legal()))
            except Exception as exc:  # noqa: BLE001 - a template's error is the failure reported
                raise recorder.failure(exc, seed, players, actions) from None

    with recorder:
        for seed in seeds:
            play(seed, seeds)
        # While a written template is unrendered, up to EXTRA_GAMES times as many games on the next
        # seeds (by default within twice the check's share of the budget).
        first = seeds.next_seed() if isinstance(seeds, Games) else max(seeds) + 1
        budget = 2 * seeds.seconds if isinstance(seeds, Games) and seeds.fixed is None else None
        for seed in range(first, first + EXTRA_GAMES * len(seeds)):
            if all(i in recorder.rendered for i in written):
                break
            if budget is not None and seeds.elapsed() >= budget:
                break
            play(seed, None)
    if recorder.raw:
        i, (word, text, (cid, field), (seed, players, actions)) = min(recorder.raw.items())
        more = len(recorder.raw) - 1
        raise CheckFailure(f"the {recorder.describe(i)} shows `{word}`, a raw table cell (the `{field}` of {cid}), to players: "
                           f"{text!r}; say it in words (a card's ability belongs on its face: display.faces and "
                           f"display.abilities)" + (f"; {more} more template(s) do the same" if more else ""),
                           seed, players, list(actions))
    missed = [recorder.describe(i) for i in written if i not in recorder.rendered]
    detail = (f"{len(written) - len(missed)} of {len(written)} templates rendered (prompts, labels, log lines, "
              f"end_game reasons) in {games} games")
    if missed:
        detail += f"; {len(missed)} never reached (see the notes)"
    return detail, [f"not reached: {m}" for m in missed]
