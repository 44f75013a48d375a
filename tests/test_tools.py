"""The hand-written baselines of tools/bench.py (tools/*_plain.py): seeded random playouts end with
a legal winner, the same seed replays the same game, and a few rules from the rulebooks hold.
They are the speed limit the interpreter is measured against, so they must play the real game."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import beer_flights_plain as bf  # noqa: E402
import beer_knight_plain as bk  # noqa: E402
import belgian_beers_race_plain as bbr  # noqa: E402
import tic_tac_toe_plain as ttt  # noqa: E402


# ------------------------------------------------------------------------------ tic-tac-toe
def test_tic_tac_toe_playouts_end_legally():
    rng = random.Random(7)
    for _ in range(300):
        winner, decisions = ttt.playout(rng)
        # X (seat 0) marks on odd decisions: a win comes with X's 3rd-5th or O's 3rd-4th mark
        assert winner in (0, 1, None)
        if winner is None:
            assert decisions == 9
        else:
            assert 5 <= decisions <= 9 and decisions % 2 == (1 if winner == 0 else 0)


def test_tic_tac_toe_same_seed_same_games_and_known_odds():
    a = [ttt.playout(random.Random(s)) for s in range(50)]
    assert a == [ttt.playout(random.Random(s)) for s in range(50)]
    rng = random.Random(1)
    results = [ttt.playout(rng)[0] for _ in range(4000)]
    # random play: X wins about 58.5%, O 28.8%, draws 12.7%
    assert 0.55 < results.count(0) / 4000 < 0.62
    assert 0.25 < results.count(1) / 4000 < 0.33
    assert ttt.perft() == 255168


def test_tic_tac_toe_as_written_plays_the_same_game():
    """The rules-as-written baseline (tools/bench.py's second row) plays tic-tac-toe: the
    same ends as the hand-written one and the same odds under random play."""
    rng = random.Random(7)
    results = []
    for _ in range(4000):
        winner, decisions = ttt.playout_as_written(rng)
        assert winner in (0, 1, None)
        if winner is None:
            assert decisions == 9
        else:
            assert 5 <= decisions <= 9 and decisions % 2 == (1 if winner == 0 else 0)
        results.append(winner)
    assert 0.55 < results.count(0) / 4000 < 0.62
    assert 0.25 < results.count(1) / 4000 < 0.33


# ------------------------------------------------------------------------------ Beer Flights
@pytest.mark.parametrize("players", [2, 4])
def test_beer_flights_playouts_end_legally(players):
    deck = bf.load_deck()
    rng = random.Random(players)
    for _ in range(40):
        winners, scores, decisions = bf.playout(deck, players, rng)
        assert winners and all(scores[w] == max(scores) for w in winners)
        # 10 cards each, 1-3 Hops each: in flights they count, in the Trash they count against
        assert all(-30 <= s <= 30 for s in scores)
        # a turn is take-or-draw, keep (after a draw) and place: 2 or 3 decisions
        assert 2 * 10 * players < decisions <= 3 * 10 * players


def test_beer_flights_same_seed_same_game():
    deck = bf.load_deck()
    assert [bf.playout(deck, 3, random.Random(s)) for s in range(20)] == \
        [bf.playout(deck, 3, random.Random(s)) for s in range(20)]


def test_beer_flights_never_repeats_a_beer_type_in_a_flight():
    # p.3 rule 1: with a deck of one beer type, only the first card of each flight stays out of
    # the Trash: with 1 Hop a card, each player scores 2 * (flights started) - 10
    ranks, _, _ = bf.load_deck()
    one_type = (ranks, tuple(1 for _ in range(len(ranks) + 1)), tuple(1 for _ in range(len(ranks) + 1)))
    rng = random.Random(3)
    seen = set()
    for _ in range(60):
        _, scores, _ = bf.playout(one_type, 2, rng)
        seen.update(scores)
    assert seen <= {-10, -8, -6} and -6 in seen


# ------------------------------------------------------------------------------ Beer Knight
def _bk_game(seed: int):
    data = bk.load()
    events: list = []
    result = bk.playout(data, random.Random(seed), trace=events.append)
    return data, events, result


@pytest.mark.parametrize("seed", range(12))
def test_beer_knight_playouts_follow_the_rules(seed):
    data, events, (winners, halla, decisions) = _bk_game(seed)
    cards = len(data["type"])
    deals = [e for e in events if "deal" in e]
    combats = [e for e in events if "combat" in e]
    assert deals and combats
    for e in deals:
        # DEAL: three Knights, three Mounts and three Weapons to each player
        for h in e["hands"]:
            assert sorted(data["type"][c] for c in h) == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    for e in combats:
        # every card is in exactly one place
        everywhere = [c for z in e["zones"] for c in z]
        assert sorted(everywhere) == list(range(cards))
        for p in (0, 1):
            # Figure 2B: 13 + Battle Bonus + dice (+ Last Call); NO NEGATIVE BONUS
            assert e["totals"][p] == 13 + e["start_mod"][p] + e["bonus"][p] + e["dice"][p] + e["lastcall"][p]
            assert e["bonus"][p] >= 0
            assert 0 <= e["lastcall"][p] <= 12
    # Game Win: the first player with two Knights in Beerhalla
    assert winners and halla[winners[0]] == 2 and halla[1 - winners[0]] < 2
    assert decisions >= 6 * len(combats)  # at least the three Combo cards of each player


def test_beer_knight_battle_bonus_floor_is_on_the_total():
    # "NO NEGATIVE BONUS": penalties (a malus, a Monster, a petrified Knight) beyond the Card Powers
    # and Pairings leave the Battle Bonus at zero; the floor is on the total (issue 29)
    data = bk.load()
    floored = []
    for seed in range(120):
        events: list = []
        bk.playout(data, random.Random(seed), trace=events.append)
        for e in events:
            if "combat" in e:
                for p in (0, 1):
                    assert e["bonus"][p] == max(0, e["raw_bonus"][p])
                    if e["raw_bonus"][p] < 0:
                        floored.append(seed)
    assert floored  # some random games do go below zero


def test_beer_knight_same_seed_same_game():
    data = bk.load()
    a = [bk.playout(data, random.Random(s)) for s in range(15)]
    assert a == [bk.playout(data, random.Random(s)) for s in range(15)]
    assert len({r[2] for r in a}) > 1  # and different seeds give different games


def test_beer_knight_card_data_as_loaded():
    data = bk.load()
    assert len(data["type"]) == 72 and [len(t) for t in data["by_type"]] == [24, 24, 24]
    assert len(data["challenges"]) == 36 and len(data["monsters"]) == 12
    duchess = 0  # k01, The Red Duchess: pairs by name with The Red Horse (m01, row 3)
    assert data["pair_kind"][duchess] == 1 and data["pair_with"][duchess] == 3
    assert data["lc"][duchess] == bk.STEAL_TO_COMBO and data["lc_arg"][duchess] == 2  # a Weapon


# ------------------------------------------------------------------------------ Belgian Beers Race
@pytest.mark.parametrize("players", [2, 3, 4])
def test_belgian_beers_race_playouts_follow_the_rules(players):
    data = bbr.load()
    rng = random.Random(players)
    for _ in range(8):
        events: list = []
        winners, scores, decisions = bbr.playout(data, rng, players, trace=events.append)
        days = [e for e in events if "day" in e]
        final = events[-1]
        assert [e["day"] for e in days] == [0, 1, 2] and final.get("final")
        previous = [0] * players
        for e in days:
            # every disc reaches the day's last space; daily scoring = bottles/Coasters + 2 a beer tasted
            assert e["time"] == [bbr.DAYS[e["day"]]] * players
            assert [v - w for v, w in zip(e["vp"], previous)] == [c + 2 * t for c, t in zip(e["collected"], e["tasted"])]
            previous = e["vp"]
            assert all(0 <= b <= bbr.ASLEEP for b in e["breath"])
            assert all(0 <= n <= bbr.BACKPACK for n in e["beers"]) and all(0 <= c <= bbr.CHEESE_MAX for c in e["cheese"])
            assert all(t <= 20 for t in e["tasted"])   # R16: the track stops at 40 points, 2 a beer
        assert winners and all(scores[w] == max(scores) for w in winners)
        assert scores == final["scores"] and decisions > 0


def test_belgian_beers_race_same_seed_same_game():
    data = bbr.load()
    a = [bbr.playout(data, random.Random(s)) for s in range(6)]
    assert a == [bbr.playout(data, random.Random(s)) for s in range(6)]


def test_belgian_beers_race_data_and_scoring_examples():
    data = bbr.load()
    assert data["ids"][0] == "GP" and len(data["ids"]) == 41
    assert len(data["bottles"]) == 40 and len(data["bag"]) == 85 and len(data["objectives"]) == 72
    # Final scoring: "Marc visited 33 breweries; he scores 49 points. Cedric has visited 12, he scores 10"
    assert bbr.visited_vp(33) == 49 and bbr.visited_vp(12) == 10 and bbr.visited_vp(9) == 0
    # End of the game: a Brussels brewery is one movement action from the Grand-Place
    assert data["home"][data["ids"].index("B1")] == 1
    # the moves that fit in the time left are a prefix of the neighbours sorted by time
    gp = 0
    for left in range(6):
        assert data["fit_bike"][gp][left] == sum(1 for _, t in data["by_bike"][gp] if t <= left)


def test_belgian_beers_race_nobody_starts_with_cheese():
    # Set up 14: the Cheese token starts at the bottom of the strap, so on a board where no
    # brewery sells cheese nobody ever holds one
    data = dict(bbr.load())
    data["cheese"] = tuple(False for _ in data["cheese"])
    rng = random.Random(11)
    for _ in range(10):
        events: list = []
        bbr.playout(data, rng, 3, trace=events.append)
        assert all(c == 0 for e in events if "day" in e for c in e["cheese"])


# ------------------------------------------------------------------------------ every script runs (smoke tests)
# Each script in tools/ is run once as the documentation runs it, with small arguments, from a folder
# that is not the repository's (no script may depend on where it is started from): a change of
# an API a tool uses fails here, not when someone next measures.
TOOLS = Path(__file__).resolve().parent.parent / "tools"


def _run_tool(tmp_path: Path, script: str, *args: str, status: int = 0, timeout: float = 120) -> str:
    """Run ``tools/<script>`` with ``args`` in ``tmp_path``; assert its exit status; its stdout."""
    import subprocess

    proc = subprocess.run([sys.executable, str(TOOLS / script), *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == status, f"{script} {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout + proc.stderr


def test_tools_every_script_has_a_smoke_test():
    tested = {"tic_tac_toe_plain.py", "beer_flights_plain.py", "beer_knight_plain.py", "belgian_beers_race_plain.py",
              "bbr_map.py", "beer_knight_cards.py", "beer_knight_seeds.py", "bench.py", "bench_agents.py", "bench_balance.py",
              "bench_cfr.py", "bench_openspiel.py", "bench_load_game.py", "bench_gymnasium.py", "bench_pettingzoo.py",
              "game_digest.py", "paired_gain.py", "table_screenshot.py", "opcount.py",
              "tic_tac_toe_inlined.py"}
    assert {p.name for p in TOOLS.glob("*.py")} == tested


@pytest.mark.parametrize("script, lines", [("tic_tac_toe_plain.py", 1), ("beer_flights_plain.py", 2), ("beer_knight_plain.py", 1),
                                           ("belgian_beers_race_plain.py", 1)])
def test_tools_plain_baselines_time_a_few_games(tmp_path, script, lines):
    out = _run_tool(tmp_path, script, "--games", "3")
    assert out.count("playouts/s") == lines


def test_tools_bbr_map_writes_the_shipped_map(tmp_path):
    # the shipped CSVs are this script's output (the map is a reconstruction): it reproduces them
    _run_tool(tmp_path, "bbr_map.py", "--out", str(tmp_path))
    shipped = TOOLS.parent / "rulesets" / "belgian_beers_race"
    for name in ("breweries.csv", "roads.csv", "coasters.csv", "bottles.csv"):
        assert (tmp_path / name).read_text() == (shipped / name).read_text(), name


def test_tools_beer_knight_cards_writes_the_first_draft(tmp_path):
    import csv

    out = _run_tool(tmp_path, "beer_knight_cards.py", "--out", "draft.csv")
    assert out.split() == ["72", "24", "24", "24"]

    def rows(path):
        with open(path, newline="") as f:
            return [(r["key"], r["name"], r["type"]) for r in csv.DictReader(line for line in f if not line.startswith("#"))]

    # the shipped list was edited by hand since (more columns), but keeps the draft's cards
    assert rows(tmp_path / "draft.csv") == rows(TOOLS.parent / "rulesets" / "beer_knight" / "cards.csv")


def test_tools_beer_knight_seeds_finds_a_seed(tmp_path):
    # Figure 2B rolls no dice: the first seed passes; a name the ruleset lacks is an error
    assert _run_tool(tmp_path, "beer_knight_seeds.py", "figure_2b_card_powers_8_pairs_5_total_26", "2").split() == ["0"]
    assert "no scenario named" in _run_tool(tmp_path, "beer_knight_seeds.py", "no_such_scenario", "2", status=2)


def test_tools_bench_quick(tmp_path):
    out = _run_tool(tmp_path, "bench.py", "--quick", "--games", "1", "--json")
    import json

    rows = json.loads(out[out.index("{"):])["side_by_side"]
    assert [r["game"] for r in rows][:3] == ["tic-tac-toe", "tic-tac-toe, rules as written", "Beer Flights, 2 players"]
    for r in rows:  # both paths, each against the same hand-written baseline
        for side in (r["tapster"], r["tapster_api"]):
            assert side["games_per_s"] > 0 and side["decisions_per_s"] > 0
        assert r["tapster_api"]["ratio_decisions"] > 0


def test_tools_opcount_counts_the_same_in_every_run(tmp_path):
    """tools/opcount.py counts bytecodes of seeded games: two runs give the same counts, on
    the playout loop and through the API alike, and its decisions are the games' own."""
    import json

    from interpreter import load_ruleset

    first = json.loads(_run_tool(tmp_path, "opcount.py", "tic_tac_toe", "--games", "4", "--json"))
    assert first == json.loads(_run_tool(tmp_path, "opcount.py", "tic_tac_toe", "--games", "4", "--json"))
    rs = load_ruleset("tic_tac_toe")
    from interpreter.engine.rng import Rng

    agent, decisions = Rng(1), 0
    for seed in range(4):
        st = rs.new_game(2, seed=seed)
        while not st.finished:
            legal = st.legal_actions()
            st.apply(legal[agent.below(len(legal))])
            decisions += 1
    assert first["decisions"] == decisions and first["bytecodes_per_decision"] > 100
    assert {f["file"] for f in first["by_function"]} >= {"generated"}
    api = json.loads(_run_tool(tmp_path, "opcount.py", "tic_tac_toe", "--games", "4", "--api", "--json"))
    assert api["decisions"] == decisions and api["bytecodes_per_decision"] > first["bytecodes_per_decision"]


def test_tools_bench_agents(tmp_path):
    out = _run_tool(tmp_path, "bench_agents.py", "--games", "1", "--iterations", "3")
    assert out.count("ms CPU per decision") == 8


def test_tools_bench_balance(tmp_path):
    out = _run_tool(tmp_path, "bench_balance.py", "--games", "4", "--rulesets", "tic_tac_toe", "--no-ray")
    assert "tic_tac_toe" in out and "Ray" not in out


def test_tools_game_digest_checks_stored_digests(tmp_path):
    import json

    # the digest of the same games is stored, checked equal, and a changed digest is named
    args = ("belgian_beers_race", "--games", "2", "--variant", "short")
    _run_tool(tmp_path, "game_digest.py", *args, "--write", "d.json")
    stored = json.loads((tmp_path / "d.json").read_text())
    assert set(stored["digests"]) == {"short"} and set(stored["digests"]["short"]) == {"2", "3", "4"}
    assert "same digests for 3" in _run_tool(tmp_path, "game_digest.py", *args, "--check", "d.json")
    stored["digests"]["short"]["3"] = "0" * 64
    (tmp_path / "d.json").write_text(json.dumps(stored))
    assert "DIFFERENT: short 3p" in _run_tool(tmp_path, "game_digest.py", *args, "--check", "d.json", status=1)
    # explicit chance hashes the chance points too: other digests, never checked against sample mode's
    _run_tool(tmp_path, "game_digest.py", *args, "--chance", "explicit", "--write", "e.json")
    explicit = json.loads((tmp_path / "e.json").read_text())
    assert explicit["chance"] == "explicit" and explicit["digests"]["short"]["2"] != stored["digests"]["short"]["2"]
    assert "with sample chance" in _run_tool(tmp_path, "game_digest.py", *args, "--chance", "explicit", "--check", "d.json", status=1)


def test_tools_paired_gain(tmp_path):
    import json

    out = _run_tool(tmp_path, "paired_gain.py", "tic_tac_toe", "base", "base", "--games", "6", "--json")
    result = json.loads(out)
    assert result["games"] == 6 and result["rows"]


@pytest.mark.parametrize("script, args", [("bench_cfr.py", ("--iterations", "2", "--repeat", "1")),
                                          ("bench_openspiel.py", ("--seconds", "0.1", "--iterations", "1,2"))])
def test_tools_openspiel_benchmarks(tmp_path, script, args):
    import json

    pytest.importorskip("pyspiel")
    out = _run_tool(tmp_path, script, *args)
    assert json.loads(out)


def test_tools_bench_load_game(tmp_path):
    import json

    pytest.importorskip("pyspiel")
    out = json.loads(_run_tool(tmp_path, "bench_load_game.py", "kuhn_poker", "--repeat", "1"))
    assert set(out) == {"kuhn_poker"} and set(out["kuhn_poker"]) == {"load_ruleset", "load_game_cold", "load_game_warm"}


def test_tools_bench_gymnasium(tmp_path):
    import json

    pytest.importorskip("gymnasium")
    out = json.loads(_run_tool(tmp_path, "bench_gymnasium.py", "--seconds", "0.3", "--num-envs", "8"))
    assert out["vector"]["num_envs"] == 8 and out["vector"]["steps_per_second"] > 0 and out["single_steps_per_second"] > 0


def test_tools_bench_pettingzoo(tmp_path):
    import json

    pytest.importorskip("pettingzoo")
    out = json.loads(_run_tool(tmp_path, "bench_pettingzoo.py", "--seconds", "0.2", "--rulesets", "tic_tac_toe"))
    assert out["tapster"]["tic_tac_toe"] > 0 and "pettingzoo" in out


@pytest.mark.parametrize("ruleset, variant", [("drink_and_beat", "complex"), ("beer_knight", None), ("belgian_beers_race", None)])
def test_tools_table_screenshot(tmp_path, ruleset, variant):
    # issue 27: it asked for two seats and the variant "complex" of every ruleset (KeyError: 'seats'
    # for Beer Knight and Belgian Beers Race); now the seats come from the ruleset, the variant from --variant
    from tests.conftest import need_chromium

    pytest.importorskip("uvicorn")
    need_chromium()
    out = tmp_path / "table.png"
    _run_tool(tmp_path, "table_screenshot.py", str(out), "--ruleset", ruleset, *(["--variant", variant] if variant else []),
              "--moves", "2", timeout=240)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_tools_table_screenshot_says_why_a_table_is_refused(tmp_path):
    pytest.importorskip("uvicorn")
    pytest.importorskip("playwright.sync_api")  # the script imports it first
    out = _run_tool(tmp_path, "table_screenshot.py", str(tmp_path / "x.png"), "--ruleset", "belgian_beers_race", "--variant", "complex",
                    status=1, timeout=240)
    assert "no variant 'complex'" in out and not (tmp_path / "x.png").exists()


def test_tools_tic_tac_toe_inlined_plays_the_engines_games(tmp_path):
    """The flow written out by hand (the frameless compiler's measure) takes the same actions,
    leaves the same variables, turns, order, history, record and reason as the engine's playout
    loop, seed for seed (both drawing from one agent generator each, seeded alike)."""
    sys.path.insert(0, str(TOOLS))
    try:
        import tic_tac_toe_inlined as inl
    finally:
        sys.path.remove(str(TOOLS))
    from interpreter import load_ruleset
    from interpreter.engine.playout import playout
    from interpreter.engine.rng import Rng

    rs = load_ruleset("tic_tac_toe")
    reasons = set()
    for seed in range(300):
        a, b = rs.new_game(2, seed=seed), rs.new_game(2, seed=seed)
        ra, rb = Rng(seed), Rng(seed)
        playout(a, lambda c, acts, s, ra=ra: ra.below(len(acts)))
        inl.playout_inlined(b, lambda c, acts, s, rb=rb: rb.below(len(acts)))
        assert (a.vars, a.turns, a.order, a.history, a.record, a.reason, a.finished) == \
               (b.vars, b.turns, b.order, b.history, b.record, b.reason, b.finished), seed
        assert b.outcome() == a.outcome() and b.pending is None and not b.stack
        reasons.add(a.reason)
    assert reasons == {"X completed a line", "O completed a line", inl._DRAW}  # every ending reached
    out = _run_tool(tmp_path, "tic_tac_toe_inlined.py", "--seconds", "0.3")
    assert "games/s" in out and "inlined by hand" in out
