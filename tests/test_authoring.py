"""A designer's own ruleset gets every check ours get (issue 17): templates rendered by
`tapster check`, the newcomer's rulesets under tests/authoring/ written from the README's recipes,
`start:` naming a per-player zone, the schema's modeline from anywhere, the schema saying which
keys take expressions, progress displays and the options' help."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from interpreter import find_ruleset, load_ruleset
from interpreter.check import run_check
from interpreter.cli import main

HERE = Path(__file__).resolve().parent


def _copy(tmp_path: Path, name: str) -> Path:
    dest = tmp_path / name
    shutil.copytree(find_ruleset(name).parent, dest)
    return dest / "ruleset.yaml"


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line)


# -- every template rendered ---------------------------------------------------------------------


def test_a_label_that_fails_only_when_shown_fails_check_with_its_place_and_a_reproduction(tmp_path, capsys):
    # The label is rendered only for people (a decision's labels), never by `apply`.
    path = _copy(tmp_path, "tic_tac_toe")
    _replace(path, 'label: "{marks[current]} in row', 'label: "{marks[current] + 1} in row')
    assert main(["check", str(path), "--games", "1", "--json"]) == 1
    result = next(c for c in json.loads(capsys.readouterr().out)["checks"] if c["name"] == "templates render")
    line = _line_of(path, "label: ")
    assert result["ok"] is False
    assert f"the label '{{marks[current] + 1}} in row" in result["detail"] and f"ruleset.yaml:{line}:" in result["detail"]
    assert "does not render" in result["detail"] and result["seed"] == 1 and result["actions"] == []


def test_an_end_game_reason_that_fails_is_caught_after_the_moves_that_reach_it(tmp_path):
    path = _copy(tmp_path, "tic_tac_toe")
    _replace(path, 'end_game: "{marks[current]} completed a line"', 'end_game: "{marks[current] * 1.5} completed a line"')
    r = run_check(load_ruleset(str(path)), "templates render", seeds=(1,))
    assert not r.ok and "end_game reason" in r.detail and r.seed == 1
    assert len(r.actions) >= 5  # a line needs at least five marks on the board
    st = load_ruleset(str(path)).new_game(r.players, seed=r.seed)
    for a in r.actions[:-1]:
        st.apply(a)
    assert not st.is_terminal()  # the last action is the one that ends the game with the broken reason


def test_templates_no_game_reaches_are_a_pass_with_a_note_naming_each(tmp_path, capsys):
    path = _copy(tmp_path, "tic_tac_toe")
    _replace(path, '- log: "{marks[current]} marks row',
             '- if: num_players > 2\n                          then: [{log: "never shown {1 // 0}"}]\n'
             '                        - log: "{marks[current]} marks row')
    assert main(["check", str(path), "--games", "1"]) == 0
    out = capsys.readouterr().out
    line = _line_of(path, "never shown")
    assert "PASS Tic-tac-toe: templates render: 5 of 6 templates rendered" in out
    assert f"not reached: log line 'never shown {{1 // 0}}' at {path}:{line}:" in out
