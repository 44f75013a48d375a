"""The designer's own questions (issue 49): declared metrics (`metrics:`) in analyse, compare,
tune and scenarios, checked against a brute-force replay of the same seeded games; turn
positions in compare; how the games ended and the cap warning; tune's choice, its refusal of
capped games and identical games; the agents' skill check and the two-strength ladder; units
and the wording of comparisons; bad metric input at file:line:col."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from interpreter import load_ruleset
from interpreter.agents.core import make_agent
from interpreter.analysis.balance import ladder_notes
from interpreter.analysis.simulate import agent_seed, game_seed
from interpreter.analysis.tune import TARGET_METRICS
from interpreter.cli import main
from interpreter.cli.analyse import speed
from interpreter.compile.outcome import RESERVED_METRIC_NAMES

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    return code, captured.out, captured.err


def _json(capsys, *argv: str) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def _replay(ruleset: str, games: int, seed: int, params: dict | None = None, players: int = 2) -> list[dict]:
    """The brute force: games 0..games-1 of a run seeded ``seed`` replayed by hand (random agents
    seeded as the runner seeds them), each game's Trash hops per seat read from the zones (not
    through the metric's expression), its winners and its turn order."""
    rs = load_ruleset(ruleset, None, {"params": params} if params else None)
    out = []
    for i in range(games):
        gs = game_seed(seed, i)
        agents = [make_agent("random", agent_seed(gs, p)) for p in range(players)]
        st = rs.new_game(players, seed=gs)
        while not st.finished:
            p = st.current_players()[0]
            st.apply(agents[p].act(st, p))
        o = st.outcome()
        out.append({"trash": [sum(c.fields["hops"] for c in st.zones["trash"][p]) for p in range(players)],
                    "discard": len(st.zones["discard"]), "winners": list(o.winners), "order": list(st.order)})
    return out


def _t_interval(xs) -> tuple[float, float, float]:
    x = np.asarray(xs, dtype=float)
    lo, hi = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    return float(x.mean()), float(lo), float(hi)


# -- declared metrics -------------------------------------------------------------------------------


def test_beer_flights_declares_metrics_that_change_no_game():
    rs = load_ruleset("beer_flights")
    assert [(m.name, m.per_player) for m in rs.metrics] == [("trashed_hops", True), ("discard_left", False)]
    assert set(RESERVED_METRIC_NAMES) >= set(TARGET_METRICS)   # no declared metric shadows a target
    # The metric reads the finished game as the brute force does.
    games = _replay("beer_flights", 3, 11)
    for i, g in enumerate(games):
        st = rs.new_game(2, seed=game_seed(11, i))
        agents = [make_agent("random", agent_seed(game_seed(11, i), p)) for p in range(2)]
        while not st.finished:
            p = st.current_players()[0]
            st.apply(agents[p].act(st, p))
        assert rs.metric_values(st) == {"trashed_hops": [float(x) for x in g["trash"]], "discard_left": g["discard"]}


def test_analyse_reports_the_declared_metric_as_the_brute_force_computes_it(capsys):
    games, seed = 30, 3
    data = _json(capsys, "analyse", "beer_flights", "--games", str(games), "--seed", str(seed), "--jobs", "1")
    declared = {d["name"]: d for d in data["analyses"][0]["metrics"]["declared"]}
    brute = _replay("beer_flights", games, seed)
    per_game = [sum(g["trash"]) / 2 for g in brute]
    mean, lo, hi = _t_interval(per_game)
    m = declared["trashed_hops"]
    assert m["per_player"] and "Trash" in m["description"]
    assert m["mean"]["value"] == pytest.approx(mean) and (m["mean"]["low"], m["mean"]["high"]) == pytest.approx((lo, hi))
    for p in range(2):
        assert m["per_seat"][p]["value"] == pytest.approx(np.mean([g["trash"][p] for g in brute]))
    winners = [np.mean([g["trash"][w] for w in g["winners"]]) for g in brute if 0 < len(g["winners"]) < 2]
    assert m["winner"]["value"] == pytest.approx(np.mean(winners))
    assert declared["discard_left"]["mean"]["value"] == pytest.approx(np.mean([g["discard"] for g in brute]))
    code, out, _ = run(capsys, "analyse", "beer_flights", "--games", "10", "--seed", "3", "--jobs", "1")
    assert code == 0 and "Declared metrics" in out and "trashed_hops" in out


def test_compare_pairs_the_declared_metric_game_by_game(capsys):
    games, seed = 30, 4
    data = _json(capsys, "compare", "beer_flights", "base", "turns=6", "--games", str(games), "--seed", str(seed), "--jobs", "1")
    rows = {r["key"]: r for r in data["comparisons"][0]["rows"]}
    row = rows["metric:trashed_hops"]
    a = [sum(g["trash"]) / 2 for g in _replay("beer_flights", games, seed)]
    b = [sum(g["trash"]) / 2 for g in _replay("beer_flights", games, seed, {"turns": 6})]
    ref = stats.ttest_rel(b, a)
    ci = ref.confidence_interval(0.95)
    assert row["test"] == "paired t" and row["pairs"] == games
    assert row["difference"]["value"] == pytest.approx(np.mean(np.subtract(b, a)))
    assert (row["difference"]["low"], row["difference"]["high"]) == pytest.approx((ci.low, ci.high))
    assert row["difference"]["p"] == pytest.approx(ref.pvalue)
    # Fewer turns, fewer cards trashed: the sentence says so by its sign and significance.
    assert ref.pvalue < 0.05 and row["sentence"].startswith("trashed_hops (Hops in the player's Trash") and " drops " in row["sentence"]


def test_tune_targets_the_declared_metric(capsys):
    games, seed = 20, 5
    brute = {t: np.mean([sum(g["trash"]) / 2 for g in _replay("beer_flights", games, seed, {"turns": t})]) for t in (4, 5, 6)}
    assert brute[4] < brute[5] < brute[6]
    limit = (brute[4] + brute[5]) / 2
    result = _json(capsys, "tune", "beer_flights", "--param", "turns=4..6", "--target", f"trashed_hops<={limit}",
                   "--games", str(games), "--seed", str(seed), "--jobs", "1", "--confirm", "0", "--no-prune")
    by_turns = {t["params"]["turns"]: t for t in result["trials"]}
    assert sorted(by_turns) == [4, 5, 6]
    for turns, t in by_turns.items():
        e = t["targets"]["trashed_hops"]
        assert e["value"] == pytest.approx(brute[turns])
        assert t["meets"] == (e["low"] <= limit)
    assert result["best"]["params"]["turns"] in {t for t, tr in by_turns.items() if tr["meets"]}
    code, _, err = run(capsys, "tune", "beer_flights", "--param", "turns=4..6", "--target", "hops_trashed<=3", "--games", "5")
    assert code == 1 and "no metric 'hops_trashed'" in err and "trashed_hops" in err


def test_a_scenario_checks_a_declared_metric(tmp_path):
    from interpreter.analysis.scenarios import run_scenarios

    text = (ROOT / "rulesets" / "beer_flights" / "ruleset.yaml").read_text(encoding="utf-8")
    assert "- metrics: {trashed_hops: [2, 2], discard_left: 2}" in text
    assert all(r.ok for r in run_scenarios("beer_flights", "tie_goes_to_the_highest_rank"))
    folder = tmp_path / "beer_flights"
    folder.mkdir()
    (folder / "cards.csv").write_text((ROOT / "rulesets" / "beer_flights" / "cards.csv").read_text(encoding="utf-8"))
    (folder / "ruleset.yaml").write_text(text.replace("- metrics: {trashed_hops: [2, 2], discard_left: 2}",
                                                      "- metrics: {trashed_hops: [2, 3]}"), encoding="utf-8")
    (result,) = run_scenarios(folder / "ruleset.yaml", "tie_goes_to_the_highest_rank")
    assert not result.ok and "metric trashed_hops is [2, 2], expected [2, 3]" in result.message
    assert "ruleset.yaml:" in result.message


def _tic_tac_toe(tmp_path: Path, extra: str = "", actions: int = 9) -> Path:
    text = (ROOT / "rulesets" / "tic_tac_toe" / "ruleset.yaml").read_text(encoding="utf-8").split("\nscenarios:")[0]
    text = text.replace("  actions: 9\n", f"  actions: {actions}\n")
    assert f"  actions: {actions}\n" in text
    path = tmp_path / "ruleset.yaml"
    path.write_text(text + extra, encoding="utf-8")
    return path


def test_bad_metric_input_is_an_error_at_its_place(tmp_path, capsys):
    path = _tic_tac_toe(tmp_path, "\nmetrics:\n  duration:\n    value: 1\n    description: x\n"
                                  "  named:\n    value: \"'abc'\"\n    description: y\n"
                                  "  unknown:\n    value: nonsense + 1\n    description: z\n")
    first = path.read_text().splitlines().index("metrics:") + 1   # the line of `metrics:`
    code, _, err = run(capsys, "analyse", str(path), "--games", "2")
    assert code == 1
    assert f"ruleset.yaml:{first + 1}:3: metrics: `duration` is the name of a built-in metric" in err
    assert f"ruleset.yaml:{first + 5}:13: metrics: named: `value` gives a text" in err
    assert f"ruleset.yaml:{first + 8}:12: in expression `nonsense + 1`: unknown name `nonsense`" in err
    path = _tic_tac_toe(tmp_path, "\nmetrics:\n  nodesc:\n    value: 1\n")
    code, _, err = run(capsys, "analyse", str(path), "--games", "2")
    assert code == 1 and "'description' is a required property (at metrics/nodesc)" in err
    path = _tic_tac_toe(tmp_path, "\nmetrics:\n  board_left:\n    value: board\n    description: the board\n")
    line = path.read_text().splitlines().index("    value: board") + 1
    code, _, err = run(capsys, "analyse", str(path), "--games", "2", "--jobs", "1")
    assert code == 1 and f"ruleset.yaml:{line}:12: metric `board_left` gave a list" in err


# -- turn positions ---------------------------------------------------------------------------------


def test_compare_of_belgian_beers_race_reports_position_differences(capsys, tmp_path):
    games, seed = 8, 2
    export = tmp_path / "games.jsonl"
    data = _json(capsys, "compare", "belgian_beers_race", "base", "cheese_vp=5", "--games", str(games), "--seed", str(seed),
                 "--jobs", "1", "--export", str(export), "--skill-games", "0")
    rows = {r["key"]: r for r in data["comparisons"][0]["rows"]}
    lines = [json.loads(x) for x in export.read_text().splitlines()]
    sides = {s: [r for r in lines if r["side"] == s] for s in ("base", "cheese_vp=5")}

    def share(r, k):
        return (1 / len(r["winners"])) if r["turn_order"][k] in r["winners"] else 0.0

    for k in range(3):
        a = [share(r, k) for r in sides["base"]]
        b = [share(r, k) for r in sides["cheese_vp=5"]]
        row = rows[f"win_rate_pos{k + 1}"]
        assert row["metric"] == f"win rate of who moved #{k + 1}" and row["pairs"] == games
        assert row["difference"]["value"] == pytest.approx(np.mean(np.subtract(b, a)))
        sa = [r["scores"][r["turn_order"][k]] for r in sides["base"]]
        sb = [r["scores"][r["turn_order"][k]] for r in sides["cheese_vp=5"]]
        row = rows[f"score_pos{k + 1}"]
        assert row["a"]["value"] == pytest.approx(np.mean(sa)) and row["b"]["value"] == pytest.approx(np.mean(sb))
        assert row["difference"]["value"] == pytest.approx(np.mean(np.subtract(sb, sa)))
    code, out, _ = run(capsys, "compare", "belgian_beers_race", "base", "cheese_vp=5", "--games", "4", "--seed", "2",
                       "--jobs", "1", "--skill-games", "0")
    assert code == 0 and "win rate of who moved #3" in out and "mean score of who moved #1" in out


def test_position_spread_is_reported_and_targeted(capsys):
    data = _json(capsys, "analyse", "beer_flights", "--games", "30", "--seed", "1", "--jobs", "1")
    m = data["analyses"][0]["metrics"]
    rates = [e["value"] for e in m["win_rate_by_position"]]
    spread = m["position_spread"]
    assert spread["value"] == pytest.approx(max(rates) - min(rates))
    assert spread["low"] <= spread["value"] <= spread["high"]
    result = _json(capsys, "tune", "beer_flights", "--param", "turns=9..10", "--target", "position_spread<=0.2", "--games", "30",
                   "--seed", "1", "--jobs", "1", "--confirm", "0")
    by_turns = {t["params"]["turns"]: t for t in result["trials"]}
    assert by_turns[10]["targets"]["position_spread"] == spread


# -- how games ended, the cap -----------------------------------------------------------------------


def test_every_report_lists_end_reasons_and_warns_first_when_the_cap_ends_most_games(capsys, tmp_path):
    # Tic-tac-toe stopped after 4 moves: no random game can end by the rules (a line needs 5).
    capped = _tic_tac_toe(tmp_path, "", actions=4)
    code, out, _ = run(capsys, "analyse", str(capped), "--games", "12", "--seed", "1", "--jobs", "1")
    first = " ".join(" ".join(out.split("\n")[0:3]).split())
    assert code == 0 and first.startswith(
        "WARNING: 100% of the games (12 of 12) ended by a cap (the action limit or the rules' declared caps)")
    assert "with agents random, random" in first
    assert "limits: {actions: 4} reached (the cap)" in out
    data = _json(capsys, "analyse", "tic_tac_toe", "--games", "20", "--seed", "1", "--jobs", "1")
    m = data["analyses"][0]["metrics"]
    assert not m["capped"]["majority"]
    assert sum(r["games"] for r in m["end_reasons"]) == 20
    assert {r["reason"] for r in m["end_reasons"]} <= {"X completed a line", "O completed a line",
                                                       "the board is full with no line of three (a draw)"}
    code, out, _ = run(capsys, "analyse", "tic_tac_toe", "--games", "20", "--seed", "1", "--jobs", "1")
    assert "WARNING" not in out and "How the games ended" in out


def _round_capped(tmp_path: Path) -> Path:
    """Tic-tac-toe whose rules stop it after four marks (a cap the designer wrote into the flow,
    declared in `limits: {caps}`): no game can end by a line, every one ends by the cap."""
    path = _tic_tac_toe(tmp_path)
    text = path.read_text(encoding="utf-8")
    for old, new in (("cond: winner is none and -1 in board", "cond: winner is none and count(board, -1) > 5"),
                     ("  - end_game: the board is full with no line of three (a draw)", "  - end_game: the round cap is reached"),
                     ("  actions: 9\n", "  actions: 9\n  caps: [the round cap]\n")):
        assert old in text
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_cap_declared_in_the_rules_counts_as_a_cap(capsys, tmp_path):
    """`limits: {caps}`: games whose end reason starts with a declared cap are capped games: the
    report warns first and flags the reason, tune refuses to call a setting best on them; the
    same games without the declaration are ordinary draws."""
    path = _round_capped(tmp_path)
    code, out, _ = run(capsys, "analyse", str(path), "--games", "12", "--seed", "1", "--jobs", "1")
    first = " ".join(" ".join(out.split("\n")[0:3]).split())
    assert code == 0 and first.startswith("WARNING: 100% of the games (12 of 12) ended by a cap")
    data = _json(capsys, "analyse", str(path), "--games", "12", "--seed", "1", "--jobs", "1")
    m = data["analyses"][0]["metrics"]
    assert m["capped"] == {"games": 12, "share": 1.0, "majority": True}
    assert m["end_reasons"] == [{"reason": "the round cap is reached", "games": 12, "share": 1.0, "cap": True}]
    # the same ruleset without the declaration: the same games, no cap
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "ruleset.yaml").write_text(path.read_text(encoding="utf-8").replace("  caps: [the round cap]\n", ""),
                                        encoding="utf-8")
    m = _json(capsys, "analyse", str(plain / "ruleset.yaml"), "--games", "12", "--seed", "1", "--jobs", "1")["analyses"][0]["metrics"]
    assert m["capped"]["games"] == 0 and m["end_reasons"][0]["cap"] is False
    text = path.read_text(encoding="utf-8").replace("params:\n", "params:\n  spare: 1\n", 1)
    path.write_text(text, encoding="utf-8")
    result = _json(capsys, "tune", str(path), "--param", "spare=0..1", "--target", "duration<=10", "--games", "6",
                   "--seed", "1", "--jobs", "1", "--confirm", "0")
    assert result["best"] is None and len(result["refused"]) == 2


def test_a_cap_must_be_a_list_of_texts(tmp_path):
    path = _tic_tac_toe(tmp_path, "", actions=9)
    path.write_text(path.read_text(encoding="utf-8").replace("  actions: 9\n", "  actions: 9\n  caps: the round cap\n"),
                    encoding="utf-8")
    from interpreter.errors import TapsterError
    with pytest.raises(TapsterError) as err:
        load_ruleset(str(path))
    assert "ruleset.yaml:" in str(err.value) and "caps" in str(err.value)


def test_tune_refuses_a_best_setting_on_capped_games_unless_asked(capsys, tmp_path):
    capped = tmp_path / "capped"
    capped.mkdir()
    path = _tic_tac_toe(capped, "", actions=4)
    text = path.read_text().replace("params:\n", "params:\n  spare: 1\n", 1)
    path.write_text(text)
    argv = ["tune", str(path), "--param", "spare=0..2", "--target", "duration<=10", "--games", "10", "--seed", "1",
            "--jobs", "1", "--confirm", "0"]
    result = _json(capsys, *argv)
    assert result["best"] is None and len(result["refused"]) == 3
    assert all(r["capped"]["share"] == 1.0 for r in result["refused"])
    assert [r["params"] for r in result["refused"]] == [{"spare": 0}, {"spare": 1}, {"spare": 2}]
    code, out, _ = run(capsys, *argv)
    assert code == 0 and out.lstrip().startswith("agents: P1 random, P2 random")
    assert "WARNING: most games of 3 setting(s) ended by a cap (the action limit or the rules' declared caps)" in " ".join(out.split())
    assert "nothing to recommend" in out
    allowed = _json(capsys, *argv, "--allow-capped")
    assert allowed["best"] is not None and allowed["refused"] == []
    # `spare` changes nothing: every setting played the same games, and the report says so.
    assert allowed["identical"] == [[{"spare": 0}, {"spare": 1}, {"spare": 2}]]
    code, out, _ = run(capsys, *argv, "--allow-capped")
    assert "identical games: spare=0; spare=1; spare=2 played the same games" in " ".join(out.split())


def test_compare_games_auto_gives_no_verdict_on_capped_games(capsys, tmp_path):
    path = _tic_tac_toe(tmp_path, "", actions=4)
    data = _json(capsys, "compare", str(path), "base", "base", "--games", "auto", "--max-games", "400", "--seed", "1",
                 "--jobs", "1", "--skill-games", "0")
    assert data["verdict_withheld"] and any("no verdict" in w for w in data["warnings"])
    assert data["sides"][0]["metrics"]["games"] == 200   # stopped after the first round: more would not decide
    data = _json(capsys, "compare", str(path), "base", "base", "--games", "auto", "--max-games", "400", "--seed", "1",
                 "--jobs", "1", "--skill-games", "0", "--allow-capped")
    assert not data["verdict_withheld"]


# -- agents: the skill check and the ladder ---------------------------------------------------------


def test_drink_and_beat_names_its_agents_with_a_skill_check_and_a_ladder(capsys, tmp_path):
    seed, skill_games = 7, 10
    data = _json(capsys, "analyse", "drink_and_beat", "--agents", "random", "--agents", "greedy", "--games", "16",
                 "--seed", str(seed), "--jobs", "1", "--skill-games", str(skill_games))
    assert [a["agents"] for a in data["analyses"]] == [["random", "random"], ["greedy", "greedy"]]
    assert data["analyses"][0]["skill"] == []
    (skill,) = data["analyses"][1]["skill"]
    # The skill check by hand: greedy at each seat against random, the same seed, 5 games a seat.
    p1 = _json(capsys, "analyse", "drink_and_beat", "--agents", "greedy,random", "--games", "5", "--seed", str(seed),
               "--jobs", "1", "--skill-games", "0")["analyses"][0]["metrics"]
    p2 = _json(capsys, "analyse", "drink_and_beat", "--agents", "random,greedy", "--games", "5", "--seed", str(seed),
               "--jobs", "1", "--skill-games", "0")["analyses"][0]["metrics"]
    counted = (p1["games"] - p1["limits_hit"]) + (p2["games"] - p2["limits_hit"])
    wins = p1["win_rate"][0]["value"] * (p1["games"] - p1["limits_hit"]) + p2["win_rate"][1]["value"] * (
        p2["games"] - p2["limits_hit"])
    assert skill["games"] == counted and skill["win_rate"]["value"] == pytest.approx(wins / counted)
    assert skill["verdict"] == ("stronger" if skill["win_rate"]["low"] > 0.5 else
                                "weaker" if skill["win_rate"]["high"] < 0.5 else "no different")
    # The ladder's notes follow from each strength's first-player interval.
    ladder = data["ladder"]
    runs = [[(a["side"], a["metrics"])] for a in data["analyses"]]
    assert ladder["strengths"] == ["random", "greedy"] and ladder["notes"] == ladder_notes(["random", "greedy"], runs)

    def says(m):
        adv = m["advantage_p1"]
        return "favoured" if adv["low"] > 0 else "disfavoured" if adv["high"] < 0 else "none"

    differ = says(runs[0][0][1]) != says(runs[1][0][1])
    assert differ == any("does not hold under both" in n for n in ladder["notes"])
    code, out, _ = run(capsys, "analyse", "drink_and_beat", "--ladder", "--games", "8", "--seed", str(seed), "--jobs", "1",
                       "--skill-games", "4", "--report", str(tmp_path))
    text = " ".join(out.split())
    assert code == 0 and "Headline metrics under each agent strength" in text
    assert "skill check against random play in this run: greedy wins" in text
    page = (tmp_path / "index.html").read_text()
    assert "Headline metrics under each agent strength" in page and "skill check against random play" in page
    assert "agents: P1 random, P2 random" in page and "agents: P1 greedy, P2 greedy" in page


def test_ladder_notes_say_when_a_conclusion_flips():
    def m(low, high, value=0.0):
        return {"advantage_p1": {"value": value, "low": low, "high": high}}

    notes = ladder_notes(["greedy", "mcts"], [[("base", m(0.05, 0.16, 0.105))], [("base", m(-0.14, 0.05, -0.046))]])
    assert notes == ["base: the first-player conclusion does not hold under both agent strengths: first player favoured "
                     "with greedy; no significant first-player advantage with mcts"]
    same = ladder_notes(["a", "b"], [[("base", m(0.01, 0.2))], [("base", m(0.02, 0.3))]])
    assert same == ["the first-player conclusions hold under every agent strength: a, b"]
    best = ladder_notes(["a", "b"], [[("x=1", m(-0.1, 0.1, 0.01)), ("x=2", m(-0.1, 0.1, 0.05))],
                                     [("x=1", m(-0.1, 0.1, 0.09)), ("x=2", m(-0.1, 0.1, 0.02))]])
    assert best == ["the best setting (smallest first-player advantage) does not hold under both agent strengths: "
                    "x=1 with a; x=2 with b"]


# -- units and words --------------------------------------------------------------------------------


def test_slow_runs_read_in_seconds_per_game():
    assert speed(120, 1.0, "game") == "120 games/s"
    assert speed(4, 10.0, "game") == "2.5 s per game"
    assert speed(6, 2.0, "playout") == "3 playouts/s"
    assert speed(3, 7.5, "playout") == "2.5 s per playout"
    assert speed(0, 1.0, "game") == "n/a"


def test_comparisons_are_worded_by_sign_and_significance():
    from interpreter.analysis.balance import sentence
    from interpreter.analysis.stats import Estimate

    a, b = Estimate(0.444, 0.40, 0.49), Estimate(0.447, 0.40, 0.49)
    flat = sentence("Decisiveness", "mean", a, b, Estimate(-0.002, -0.05, 0.046, p=0.9), "paired t")
    assert flat == "Decisiveness: no significant change (0.444 ± 0.045 to 0.447 ± 0.045; paired t, p = 0.9)"
    down = sentence("Drama", "mean", Estimate(0.5, 0.45, 0.55), Estimate(0.3, 0.25, 0.35),
                    Estimate(-0.2, -0.27, -0.13, p=0.0001), "paired t")
    assert down.startswith("Drama drops from 0.5") and down.endswith("significant (paired t, p < 0.001)")
    odd = sentence("Drama", "mean", a, b, Estimate(-0.02, -0.03, -0.01, p=0.001), "paired t")
    assert " drops " in odd and "over the games both sides measured the difference is -0.02" in odd


def test_tune_names_its_agents_with_their_skill_check_and_how_the_best_setting_ended(capsys):
    argv = ["tune", "beer_flights", "--param", "turns=3..4", "--target", "duration<=20", "--games", "6", "--seed", "2",
            "--jobs", "1", "--confirm", "0", "--agents", "greedy", "--skill-games", "4"]
    result = _json(capsys, *argv)
    (skill,) = result["skill"]
    assert skill["agent"] == "greedy" and skill["games"] == 4
    code, out, _ = run(capsys, *argv)
    text = " ".join(out.split())
    assert code == 0 and text.startswith("agents: P1 greedy, P2 greedy; skill check against random play in this run: greedy")
    assert "how the best setting's games ended: every player has had their turns 100%" in text
