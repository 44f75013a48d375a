"""Brewhouse (rulesets/brewhouse), the deck-builder of issue 47: a draw pile whose contents its
owner knows but whose order nobody does (``visibility: owner_contents``), and identical cards
that are one action (``merge_identical: true``) — in the observation and the views, in the
search agents' worlds, in the encoding and in the browser's clicks."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

import interpreter.agents.search as search
from interpreter import load_ruleset
from interpreter.agents.core import make_agent
from interpreter.analysis.check import run_check
from interpreter.analysis.check_rules import contents_warnings
from interpreter.engine.rng import Rng
from interpreter.interop.encoding import Encoding
from interpreter.model import Action
from interpreter.views.render import view_observation
from interpreter.views.termview import seat_text
from interpreter.views.webview import seat_html, table_acts

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rs():
    return load_ruleset("brewhouse")


def _at(rs, decision: str, seed: int = 1, skip: int = 0):
    """A random game of ``rs`` at its ``skip``-th later decision named ``decision``."""
    st = rs.new_game(2, seed=seed)
    rng = Rng(seed)
    while True:
        if st.is_chance():
            st.apply(st.sample_chance(rng))
            continue
        if st.pending[0].name == decision:
            if skip == 0:
                return st
            skip -= 1
        st.apply(rng.choice(st.legal_actions()))


def _kinds(cards) -> Counter:
    return Counter(c.look.id for c in cards)


def test_a_draw_pile_shows_its_owner_a_count_per_kind_and_the_others_its_count(rs):
    st = rs.new_game(2, seed=4)
    mine, theirs = st.observation(0)["zones"]["draw_pile"]
    pile = st.zones["draw_pile"][0]
    assert len(pile) == 5 and theirs == {"count": len(st.zones["draw_pile"][1])}
    assert mine["count"] == 5 and dict(map(tuple, mine["contents"])) == dict(_kinds(pile))
    assert set(dict(map(tuple, mine["contents"]))) <= {"card-tip_jar-1", "card-barrel-1"}
    assert mine["ids"] == [c.id for c in sorted(pile, key=lambda c: c.index)]  # which cards, in no order of the pile's
    # the order is no one's: the same observation whatever the order
    pile.reverse()
    assert st.observation(0)["zones"]["draw_pile"][0] == mine
    # the views: a count per kind for the owner, a count for the others
    words = ", ".join(f"{rs.by_id[cid].label}" + (f" ×{k}" if k > 1 else "") for cid, k in mine["contents"])
    assert f"P1 (you): 5 face down, order unknown: {words}" in seat_text(rs, view_observation(st, 0))
    assert "P1: 5 face down\n" in seat_text(rs, view_observation(st, 1))
    html = seat_html(rs, view_observation(st, 0), [])
    assert html.count("contents-pile") == 1 and "order unknown" in html
    assert not any(f'data-id="{c.id}"' in html for c in pile)  # no copy is named, only the kinds
    # a pile of many kinds: its kinds in columns under the seat, within the terminal's width
    for key in ("till", "hop_garden", "taproom", "drain", "brewery", "beer_market"):
        card = next(c for c in st.zones["supply"] if c.fields["key"] == key)
        st.zones["supply"].remove(card)
        pile.append(card)
    lines = seat_text(rs, view_observation(st, 0)).splitlines()
    at = lines.index("  P1 (you): 11 face down, order unknown:")
    assert all(len(t) <= 78 for t in lines) and "Beer Market" in lines[at + 1] + lines[at + 2]


def _worlds_of_ismcts(rs, st, p, monkeypatch) -> list[dict]:
    """The worlds an ISMCTS search for seat ``p`` at ``st`` plays in, as they were drawn (the
    search plays on in them): each seat's draw pile and hand, as lists of ids."""
    drawn = []

    class Recording(search.Worlds):
        def draw(self, rng):
            world = super().draw(rng)
            drawn.append({z: [[c.id for c in part] for part in world.zones[z]] for z in ("draw_pile", "hand")})
            return world

    monkeypatch.setattr(search, "Worlds", Recording)
    make_agent("ismcts:iterations=12:depth=4", f"w{p}").act(st, p)
    assert drawn, "the search drew no world"
    return drawn


def test_ismcts_worlds_keep_a_seats_draw_pile_and_deal_it_no_other_seats_card(rs, monkeypatch):
    reordered = 0
    for seed, skip in ((1, 0), (2, 3), (3, 6)):
        st = _at(rs, "buy", seed, skip)
        for p in range(2):
            real = st.zones["draw_pile"][p]
            others = {c.id for q in range(2) if q != p for z in ("hand", "draw_pile") for c in st.zones[z][q]}
            for world in _worlds_of_ismcts(rs, st, p, monkeypatch):
                pile = world["draw_pile"][p]
                assert sorted(pile) == sorted(c.id for c in real)  # its own cards, every one
                assert not others & set(pile)
                assert world["hand"][p] == [c.id for c in st.zones["hand"][p]]
                reordered += pile != [c.id for c in real]
    assert reordered, "no world reshuffled a draw pile: the test would not see a redeal"


def _hidden_copy(tmp_path: Path) -> Path:
    """Brewhouse with its draw pile declared `hidden`, the way before owner_contents."""
    folder = tmp_path / "brewhouse_hidden"
    shutil.copytree(ROOT / "rulesets" / "brewhouse", folder)
    text = (folder / "ruleset.yaml").read_text(encoding="utf-8")
    assert text.count("    visibility: owner_contents\n") == 1
    (folder / "ruleset.yaml").write_text(text.replace("    visibility: owner_contents\n", "    visibility: hidden\n"),
                                         encoding="utf-8")
    return folder


def test_a_hidden_draw_pile_takes_other_seats_cards_in_worlds_and_check_names_owner_contents(rs, tmp_path, monkeypatch):
    hidden = load_ruleset(_hidden_copy(tmp_path))
    st = _at(hidden, "buy", 2, 3)
    others = {c.id for z in ("hand", "draw_pile") for c in st.zones[z][1]}
    foreign = sum(bool(others & set(w["draw_pile"][0])) for w in _worlds_of_ismcts(hidden, st, 0, monkeypatch))
    assert foreign, "a hidden draw pile gets the other seat's cards in some world (what owner_contents prevents)"
    [warning] = contents_warnings(hidden)
    line = next(i for i, t in enumerate((tmp_path / "brewhouse_hidden" / "ruleset.yaml").read_text().splitlines(), 1)
                if t.strip().startswith("refill_from: discard_pile"))
    assert f"ruleset.yaml:{line}:" in warning and "`visibility: owner_contents`" in warning and "`draw_pile`" in warning
    assert contents_warnings(rs) == []


def test_identical_cards_in_the_supply_are_one_buy_on_the_top_copy(rs):
    st = _at(rs, "buy", 5)
    coins = st.vars["coins"]
    buys = [a for a in st.legal_actions() if a.name == "buy"]
    supply = st.zones["supply"]
    affordable = {c.look for c in supply if c.fields["cost"] <= coins and c.fields["type"] != "Curse"}
    assert [a.args[0].look for a in buys] == sorted(affordable, key=lambda c: c.index)  # one per kind, in table order
    for a in buys:
        assert a.args[0] is [c for c in supply if c.look is a.args[0].look][-1]  # the top copy of its kind
    tip = next(a for a in buys if a.args[0].look.id == "card-tip_jar-1")
    top = tip.args[0]
    decision = st.decision()
    assert decision.labels[decision.actions.index(tip)] == "Buy Tip Jar for 0"
    p = st.current
    st.apply(tip)
    # bought: to the seat's discard pile (or on, in clean-up, to its draw pile and hand)
    assert st.zone_of(top) in {f"{z}[{p}]" for z in ("discard_pile", "draw_pile", "hand")}


def test_one_encoding_id_per_kind_and_an_id_takes_the_legal_copy(rs):
    enc = Encoding.of(rs, 2)
    rs = enc.ruleset  # compiled with chance explicit, as the adapters play it
    kinds = {c.look for c in rs.components}
    rows = {o.name: ids for _, o, how, ids in enc.action_rows}
    assert len(kinds) == 13 and all(len(rows[n]) == 13 for n in ("buy", "gain", "play", "trash"))
    assert enc.num_distinct_actions == 4 * 13 + 3  # and done, keep, pass
    for c in rs.components:
        assert enc.index(Action("buy", (c,))) == enc.index(Action("buy", (c.look,)))
    st = _at(rs, "buy", 5)
    for a in st.legal_actions():
        assert enc.legal_action(st, enc.index(a)) == a
    # the tensor (interop/layout.py): the owner's draw pile as which cards lie there, never where
    # (the observation's "ids"), the other seat's as its count alone
    n = len(rs.components)
    for p in range(2):
        start = next(a for name, a, _ in enc.tensor_layout() if name == f"zones.draw_pile[{p}]")
        pile = st.zones["draw_pile"][p]
        mine, theirs = enc.observation_tensor(st, p), enc.observation_tensor(st, 1 - p)
        assert {c.index: 1.0 for c in pile} == {i: float(mine[start + i]) for i in range(n) if mine[start + i]}
        assert mine[start + n] == theirs[start + n] == len(pile) and not theirs[start:start + n].any()
        assert len(Counter(c.look for c in pile)) < len(pile)  # copies of a kind in it: not counted by kind


def test_a_click_on_any_copy_in_the_supply_takes_its_buy(rs):
    st = _at(rs, "buy", 5)
    p = st.current
    obs = view_observation(st, p)
    acts = table_acts(rs, obs)
    texts = obs["decision"]["actions"]
    for i, text in enumerate(texts):
        if text.startswith("buy("):
            look = rs.by_id[text[4:-1]].look
            copies = [c for c in st.zones["supply"] if c.look is look]
            assert all(i in acts.get(c.id, ()) for c in copies), text
            assert not any(i in acts.get(c.id, ()) for c in st.zones["hand"][p] + st.zones["in_play"][p])


def test_the_secrecy_checks_fail_a_draw_pile_shown_in_order(rs, monkeypatch):
    """`observations hide` and `views hide` cover owner_contents: the owner shown its draw pile's
    order, as ids or as a count per card, fails them, naming the pile."""
    import interpreter.compile.ruleset as declared

    assert run_check(rs, "observations hide", seeds=[1]).ok and run_check(rs, "views hide", seeds=[1]).ok
    real = declared._seen_as
    monkeypatch.setattr(declared, "_seen_as", lambda vis, own: (True, False, False) if vis == "owner_contents" and own
                        else real(vis, own))
    result = run_check(rs, "observations hide", seeds=[1])
    assert not result.ok and "zone draw_pile of seat P1 shows" in result.detail, result.detail
    monkeypatch.undo()
    monkeypatch.setattr(declared, "contents_of", lambda z: [[c.id, 1] for c in z])  # each card in its place
    result = run_check(rs, "views hide", seeds=[1])
    assert not result.ok and "zones.draw_pile" in result.detail, result.detail


def test_analyse_counts_a_card_bought_by_kind(rs):
    """`analyse`'s option statistics: a merged option's actions count under their kind's first
    copy (`buy(card-barrel-1)`, `buy: Barrel`), one row per kind, whichever copy was taken."""
    from interpreter.analysis.balance import Tally, metrics
    from interpreter.analysis.runner import play_run
    from interpreter.analysis.simulate import SimSpec

    spec = SimSpec(str(Path(rs.path).resolve()), None, (), 2, 11, ("random", "random"))
    t = Tally(2)
    assert play_run(spec, range(4), t, jobs=1, ruleset=rs)
    rows = [a for a in metrics(t)["actions"] if a["key"].startswith("buy(")]
    assert rows and len({a["label"] for a in rows}) == len(rows)
    for a in rows:
        card = rs.by_id[a["key"][4:-1]]
        assert card.look is card and a["label"] == f"buy: {card.label}"
