"""`tapster check`: the generic invariants of interpreter/check.py run on any ruleset anywhere,
PASS/FAIL per check, a failure reproduced by its seed and actions; `tapster test` runs scenarios
with logs on and names the ruleset; `tapster --version`."""

from __future__ import annotations

import json
from pathlib import Path

from interpreter import State, find_ruleset
from interpreter.check import CHECKS, run_check, run_checks
from interpreter.cli import main

from .conftest import compiled, copy_ruleset, replace_once


def test_a_sound_ruleset_passes_every_check_as_json(capsys):
    assert main(["check", "tic_tac_toe", "--games", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is True
    assert [c["name"] for c in data["checks"]] == [name for name, _ in CHECKS]
    assert all(c["ok"] for c in data["checks"])


def test_a_public_face_down_zone_fails_the_secret_decision_check_with_a_reproduction(tmp_path, capsys):
    # Beer Cards' face-down cards made public: everyone sees which card a player put down.
    path = copy_ruleset(tmp_path, "beer_cards")
    text = path.read_text(encoding="utf-8")
    at = text.index("  face_down:")
    end = text.index("visibility: owner", at)
    path.write_text(text[:end] + "visibility: public" + text[end + len("visibility: owner"):], encoding="utf-8")
    assert main(["check", str(path), "--games", "1"]) == 1
    out = capsys.readouterr().out
    assert "FAIL Beer Cards: secret decisions: secret decision play: seat P" in out
    assert "reproduce: seed 1, 4 players, actions:" in out
    assert "PASS Beer Cards: observations hide" in out


def test_a_runtime_error_in_a_log_template_fails_check_and_test(tmp_path, capsys, monkeypatch):
    path = copy_ruleset(tmp_path, "tic_tac_toe")
    replace_once(path, "{marks[current]} marks row", "{1 // (cell - cell)} marks row")
    assert main(["check", str(path), "--games", "1", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    games_end = data["checks"][0]
    assert games_end["ok"] is False and "division by zero" in games_end["detail"]
    assert games_end["seed"] == 1 and len(games_end["actions"]) == 1  # the first move logs
    # tapster test runs scenarios with logs on; `tapster test .` names the ruleset on each line.
    monkeypatch.chdir(path.parent)
    assert main(["test", "."]) == 1
    out = capsys.readouterr().out
    assert "FAIL tic_tac_toe: a_row_wins" in out and "division by zero" in out


def test_a_label_that_fails_is_reproduced_by_every_check_it_fails(tmp_path, capsys):
    path = copy_ruleset(tmp_path, "tic_tac_toe")
    replace_once(path, 'label: "{marks[current]} in row', 'label: "{1 // (cell - cell)} in row')
    assert main(["check", str(path), "--games", "1", "--json"]) == 1
    failed = [c for c in json.loads(capsys.readouterr().out)["checks"] if not c["ok"]]
    assert {c["name"] for c in failed} >= {"legal actions apply", "observations hide", "views hide", "templates render"}
    for c in failed:
        assert "division by zero" in c["detail"] and c["seed"] == 1, c


def test_an_observation_that_leaks_is_caught(monkeypatch):
    rs = compiled("kuhn_poker")
    assert run_check(rs, "observations hide").ok
    honest = State.observation

    def leaky(self, seat):
        obs = honest(self, seat)
        obs["zones"] = {name: json.loads(json.dumps(self.zones[name], default=lambda c: c.id)) for name in obs["zones"]}
        return obs

    monkeypatch.setattr(State, "observation", leaky)
    r = run_check(rs, "observations hide")
    assert not r.ok and "shows" in r.detail and r.seed == 1


def test_a_display_line_that_reads_a_hidden_card_is_named_and_a_leak_through_it_is_caught(tmp_path):
    path = copy_ruleset(tmp_path, "kuhn_poker")
    replace_once(path, "  footer:\n", "  footer:\n    - \"P2 holds {hand[1]}\"\n")
    from interpreter import load_ruleset

    rs = load_ruleset(str(path))
    r = run_check(rs, "views hide")
    # the line reads an owner zone: only observers see it, so no seat's view leaks, and the note names it
    assert r.ok and any("display.footer[0]" in n and "zone" in n for n in r.notes), r.notes
    rs.display.footer[0].why = None  # as if the static check had let it through
    r = run_check(rs, "views hide")
    assert not r.ok and "differs in a world P1 cannot tell" in r.detail and r.seed in (1, 2, 3) and r.actions == []


def test_a_nondeterministic_game_fails_same_seed(monkeypatch):
    rs = compiled("tic_tac_toe")
    from interpreter import check

    calls = iter(range(1, 10_000))
    real = check.Rng
    monkeypatch.setattr(check, "Rng", lambda seed: real(seed + next(calls)))  # a new agent seed each game
    r = run_check(rs, "same seed, same game")
    assert not r.ok and "played differently" in r.detail


def test_every_check_runs_on_a_ruleset_outside_rulesets(tmp_path):
    path = copy_ruleset(tmp_path, "kuhn_poker")
    from interpreter import load_ruleset

    results = run_checks(load_ruleset(str(path)), seeds=(1,))
    assert [r.name for r in results] == [name for name, _ in CHECKS]
    assert all(r.ok for r in results), [r for r in results if not r.ok]


def test_check_all_variants_and_usage_errors(capsys):
    assert main(["check", "beer_flights", "-n", "1", "--all-variants", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    variants = {c["variant"] for c in data["checks"]}
    assert None in variants and len(variants) == 1 + len(compiled("beer_flights").variants)
    assert main(["check", "beer_flights", "--variant", "x", "--all-variants"]) == 2
    assert main(["check", "tic_tac_toe", "--games", "0"]) == 2


def test_version(capsys):
    from importlib.metadata import version

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"tapster {version('tapster')}"


def test_json_on_info_validate_test_perft(capsys):
    assert main(["info", "kuhn_poker", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["players"] == {"min": 2, "max": 2, "default": 2} and set(info["zones"]) == set(compiled("kuhn_poker").zones)
    assert main(["validate", "kuhn_poker", "--json"]) == 0
    clean = {"file": "kuhn_poker", "problems": [], "warnings": [], "notes": [], "ok": True}
    assert json.loads(capsys.readouterr().out) == {"ok": True, "files": [clean]}
    assert main(["validate", "no/such/ruleset.yaml", "--json"]) == 1
    bad = json.loads(capsys.readouterr().out)
    assert bad["ok"] is False and bad["files"][0]["problems"]
    assert main(["test", "kuhn_poker", "--json"]) == 0
    tested = json.loads(capsys.readouterr().out)
    assert tested["failed"] == 0 and tested["passed"] == len(compiled("kuhn_poker").scenarios)
    # Tic-tac-toe's tree, 3 plies deep: 9 * 8 * 7 leaves, 1 + 9 + 72 + 504 nodes.
    assert main(["perft", "tic_tac_toe", "-d", "3", "--json"]) == 0
    counted = json.loads(capsys.readouterr().out)
    assert (counted["leaves"], counted["nodes"]) == (504, 586)
    # Kuhn poker with chance enumerated: 30 complete games (OpenSpiel's count).
    assert main(["perft", "kuhn_poker", "--chance", "enumerate", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["leaves"] == 30


def test_yaml_errors_say_what_usually_causes_them(tmp_path):
    from interpreter import TapsterError, load_ruleset
    from interpreter.load import load_yaml_text

    def message(text):
        try:
            load_yaml_text(text)
        except TapsterError as exc:
            return str(exc)
        raise AssertionError("loaded")

    assert "check the indentation" in message("a:\n  b: 1\n c: 2\n")
    assert "check the indentation" in message("a:\n  - 1\n  x: 2\n")
    assert "quote an expression" in message("a: [f(x, 2\n")
    assert 'quote the value, e.g. `log: "Score: {x}"`' in message("log: Score: 3\n")
    assert "not tabs" in message("a:\n\tb: 1\n")
    # An unquoted comma inside a flow mapping splits an expression into an unexpected key.
    path = copy_ruleset(tmp_path, "tic_tac_toe")
    replace_once(path, '- log: "{marks[current]} marks row',
             '- {if: winner == -1, or true, then: []}\n                        - log: "{marks[current]} marks row')
    try:
        load_ruleset(str(path))
    except TapsterError as exc:
        text = str(exc)
    else:
        raise AssertionError("loaded")
    assert "'or true' was unexpected" in text and "quote this expression" in text


def _with_declared_turns(tmp_path) -> Path:
    path = copy_ruleset(tmp_path, "beer_flights")
    replace_once(path, "  turns: 10 ", "  turns: {value: 10, min: 1, max: 20, kind: integer} ")
    replace_once(path, "    params: {flights: 1, turns: 5}\n",
             "    params: {flights: 1, turns: 5}\n  short:\n    description: three turns\n    params: {turns: 3}\n"
             "  short_five:\n    description: the five-player variant, shorter\n    extends: five_player\n"
             "    params: {turns: 4}\n")
    return path


def test_declared_parameters_refuse_values_out_of_range(tmp_path, capsys):
    from interpreter import load_ruleset

    path = _with_declared_turns(tmp_path)
    rs = load_ruleset(str(path))
    assert rs.params["turns"] == 10  # the declaration's value is what expressions read
    assert main(["simulate", str(path), "-n", "2", "--param", "turns=-1"]) == 1
    err = capsys.readouterr().err
    assert "parameter turns is -1; it must be at least 1" in err and "ruleset.yaml:" in err
    assert main(["info", str(path), "--param", "turns=21", "--json"]) == 1
    assert "it must be at most 20" in capsys.readouterr().err
    assert main(["info", str(path), "--param", "turns=two", "--json"]) == 1
    assert "it must be a whole number" in capsys.readouterr().err
    assert main(["info", str(path), "--param", "turns=7", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["params"]["turns"] == 7


def test_variants_compose_in_order_and_extend(tmp_path, capsys):
    from interpreter import load_ruleset

    path = _with_declared_turns(tmp_path)
    both = load_ruleset(str(path), "five_player,short")
    assert (both.params["flights"], both.params["turns"], both.default_players) == (1, 3, 5)
    reverse = load_ruleset(str(path), "short,five_player")
    assert reverse.params["turns"] == 5  # the later overlay wins
    extended = load_ruleset(str(path), "short_five")
    assert (extended.params["flights"], extended.params["turns"], extended.default_players) == (1, 4, 5)
    # A repeated --variant is the same as a,b.
    assert main(["info", str(path), "--variant", "five_player", "--variant", "short", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["params"]["turns"], data["players"]["default"]) == (3, 5)
    assert main(["info", str(path), "--variant", "five_player,nope"]) == 1
    assert "no variant 'nope'" in capsys.readouterr().err


def test_validate_warns_about_none_text_and_expressions_where_a_value_goes(tmp_path, capsys):
    path = copy_ruleset(tmp_path, "tic_tac_toe")
    text = path.read_text(encoding="utf-8")
    assert "\nvars:\n" in text
    path.write_text(text.replace("\nvars:\n", '\nvars:\n  spare: {initial: none}\n  cells: {initial: "[-1] * 42"}\n'
                                 '  flag: "true"\n  colour: red\n', 1), encoding="utf-8")
    assert main(["validate", str(path)]) == 0  # warnings alone do not fail
    err = capsys.readouterr().err
    assert "warning: vars: spare: initial: the text 'none', not nothing: YAML's null is `null`" in err
    assert "warning: vars: cells: initial: the text '[-1] * 42' (9 characters), not its value" in err
    assert "warning: vars: flag: the text 'true', not a boolean" in err
    assert "colour" not in err  # a plain word is a fine text value
    assert f"{path}:" in err.split("spare")[0].splitlines()[-1]  # file:line:col of the value
    assert main(["validate", str(path), "--strict"]) == 1
    assert main(["validate", str(path), "--strict", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is False and len(data["files"][0]["warnings"]) == 3 and data["files"][0]["problems"] == []


def test_shipped_rulesets_have_no_warnings():
    from interpreter import available_rulesets
    from interpreter.lint import warnings
    from interpreter.load import load_yaml

    for name in available_rulesets():
        assert warnings(load_yaml(find_ruleset(name))) == [], name


def test_shell_completion_as_the_readme_documents(monkeypatch, capsys):
    import pytest

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert 'eval "$(_TAPSTER_COMPLETE=bash_source tapster)"' in readme
    monkeypatch.setenv("_TAPSTER_COMPLETE", "bash_complete")
    monkeypatch.setenv("COMP_WORDS", "tapster ch")
    monkeypatch.setenv("COMP_CWORD", "1")
    with pytest.raises(SystemExit):
        main([])
    assert "plain,check" in capsys.readouterr().out.split()


def test_validate_notes_the_display_parts_only_observers_see(tmp_path, capsys):
    path = copy_ruleset(tmp_path, "kuhn_poker")
    replace_once(path, "  footer:\n", "  footer:\n    - \"P2 holds {hand[1]}\"\n")
    assert main(["validate", str(path)]) == 0
    err = capsys.readouterr().err
    assert f"{path}:" in err and "note: display.footer[0] is shown only to observers" in err and "`hand`" in err
    assert main(["validate", "--strict", str(path)]) == 0  # a note, never a failure
