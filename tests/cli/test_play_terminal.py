"""`tapster play` in a real pseudo-terminal of a given height (issue 48): take-back and redo
against an agent, save then --resume finishing the same game, and one-option decisions taken
for the player.  Each test starts the command under pexpect, answers as a person would and
reads the screen."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parents[2]
PROMPT = re.compile(r"P1, your choice \((.*?)\): ")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def spawn(args: list[str], rows: int, cwd: Path, cols: int = 100):
    """``tapster ARGS`` in a pseudo-terminal of ``rows`` x ``cols``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm", COLUMNS=str(cols), LINES=str(rows))
    env.pop("NO_COLOR", None)
    return pexpect.spawn(sys.executable, ["-m", "interpreter.cli", *args], cwd=str(cwd), env=env,
                         dimensions=(rows, cols), encoding="utf-8", timeout=60)


def screen(child) -> str:
    """What was printed up to the last prompt, without colour codes."""
    return ANSI.sub("", child.before).replace("\r", "")


def board(text: str) -> str:
    """The last tic-tac-toe board drawn in ``text``."""
    rows = re.findall(r"^\d \|.*\|$", text, re.M)
    assert len(rows) >= 3, text
    return "\n".join(rows[-3:])


def lowest(text: str) -> str:
    """The lowest option number shown in the last list of options of ``text``."""
    numbers = [int(n) for n in re.findall(r"^\s+(\d+)\. ", text.split("what P1 sees")[-1], re.M)]
    assert numbers, text
    return str(min(numbers))


def play_lowest(child, saves_after: int | None = None, save_to: str = "") -> None:
    """Answer every decision with its lowest number until the game ends (or, after
    ``saves_after`` decisions, save to ``save_to`` and quit)."""
    done = 0
    text = ""
    while True:
        k = child.expect([PROMPT, pexpect.EOF])
        if k == 1:
            return
        text += screen(child)
        if saves_after is not None and done == saves_after:
            child.sendline(f"save {save_to}")
            child.expect("game saved to")
            child.expect(PROMPT)
            child.sendline("quit")
            child.expect(pexpect.EOF)
            return
        child.sendline(lowest(text))
        done += 1


def test_undo_against_an_agent_restores_the_board_and_redo_takes_it_again(tmp_path):
    child = spawn(["play", "tic_tac_toe", "--agents", "human,random", "--seed", "3"], 30, tmp_path)
    child.expect(PROMPT)
    empty = board(screen(child))
    assert "X" not in empty and "O" not in empty
    child.sendline("5")  # the centre
    child.expect(PROMPT)
    played = board(screen(child))
    assert "X" in played and "O" in played  # the agent answered
    child.sendline("undo")
    child.expect(PROMPT)
    text = screen(child)
    assert "P1 took back: X in row 2, column 2 (and 1 move after it)" in text
    assert board(text) == empty
    child.sendline("redo")
    child.expect(PROMPT)
    assert board(screen(child)) == played
    child.sendline("undo")
    child.expect(PROMPT)
    child.sendline("undo")  # nothing left to take back
    child.expect(PROMPT)
    assert "nothing to take back" in screen(child)
    child.sendline("1")
    child.expect(PROMPT)
    child.sendline("redo")  # another move was played: the take-back cannot be redone
    child.expect(PROMPT)
    assert "nothing to redo" in screen(child)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    saved = list(tmp_path.glob("tapster-tic_tac_toe-*.json"))
    assert len(saved) == 1  # quit saved the game to a file it named
    data = json.loads(saved[0].read_text())
    assert data["actions"][0] == "mark(0)" and len(data["actions"]) == 2
    assert [t["undone"] for t in data["takebacks"] if "undone" in t] == [["mark(4)", data["takebacks"][0]["undone"][1]]] * 2


def test_save_then_resume_finishes_the_same_game_as_an_uninterrupted_run(tmp_path):
    whole = spawn(["play", "tic_tac_toe", "--agents", "human,random", "--seed", "11", "--log", "whole.json"], 30, tmp_path)
    play_lowest(whole)
    part = spawn(["play", "tic_tac_toe", "--agents", "human,random", "--seed", "11"], 30, tmp_path)
    play_lowest(part, saves_after=2, save_to="game.json")
    saved = json.loads((tmp_path / "game.json").read_text())
    assert len(saved["actions"]) == 4 and saved["state"]
    rest = spawn(["play", "--resume", "game.json", "--log", "resumed.json"], 30, tmp_path)
    rest.expect("resumed from game.json after 4 actions")
    play_lowest(rest)
    one, two = (json.loads((tmp_path / f).read_text()) for f in ("whole.json", "resumed.json"))
    assert two["actions"] == one["actions"] and two["outcome"] == one["outcome"]
    assert two["actions"][:4] == saved["actions"]


def _forced_game(tmp_path, *extra: str) -> tuple[int, str]:
    """P1 types the squares 0, 2, 4, 7 as action texts against `first`: its fifth move has one
    square left.  Returns how often P1 was asked and the whole output."""
    child = spawn(["play", "tic_tac_toe", "--agents", "human,first", "--seed", "1", *extra], 30, tmp_path)
    asked, text = 0, ""
    for answer in ("mark(0)", "mark(2)", "mark(4)", "mark(7)", "mark(8)", None):
        k = child.expect([PROMPT, pexpect.EOF])
        text += screen(child)
        if k == 1:
            return asked, text
        asked += 1
        child.sendline(answer)
    raise AssertionError(f"asked more than five times: {text}")


def test_a_decision_with_one_option_is_taken_and_said_unless_asked_always(tmp_path):
    asked, text = _forced_game(tmp_path)
    assert asked == 4
    assert "P1: one choice only, taken for you: X in row 3, column 3" in " ".join(text.split())
    assert "X completed a line" in text
    asked, text = _forced_game(tmp_path, "--ask-always")
    assert asked == 5 and "one choice only" not in text
    assert "X completed a line" in text


def test_undo_after_a_drawn_card_is_refused_and_says_why_unless_practice(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from interpreter.cli import cli

    monkeypatch.chdir(tmp_path)
    args = ["play", "beer_flights", "--agents", "human,random", "--seed", "2"]
    refused = CliRunner().invoke(cli, args, input="2\nundo\nquit\n")  # 2: draw two cards from the deck
    text = " ".join(refused.output.split())
    assert "cannot take back `Draw two cards from the deck`: a card or die you had not seen has been shown since" in text
    assert "--practice" in text and "took back" not in text
    practice = CliRunner().invoke(cli, [*args, "--practice"], input="2\nundo\nquit\n")
    assert "P1 took back: Draw two cards from the deck after news" in " ".join(practice.output.split())
    # a take-back with nothing new shown is free: taking a known card from the discard pile
    free = CliRunner().invoke(cli, args, input="1\nundo\nquit\n")
    assert "P1 took back: Take IPA 35 (2 hops) from the discard pile" in " ".join(free.output.split())


# -- a screen that fits the terminal ------------------------------------------------------------------

CHOICE = re.compile(r"P1, your choice \(([\d, -]+), look N")


def _numbers(span: str) -> list[int]:
    out = []
    for part in span.split(", "):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out


@pytest.mark.parametrize("rows", [30, 60])
@pytest.mark.parametrize("name", ["beer_knight", "belgian_beers_race"])
def test_the_pinned_parts_are_on_the_terminal_at_every_decision(tmp_path, name, rows):
    """At every decision of P1's first turns, the last ROWS lines of the terminal (what it shows
    when asked) hold the table's header, the board (Belgian Beers Race's map and its pieces),
    P1's own resources (their hand; the `yours:` line) and the whole question."""
    child = spawn(["play", name, "--agents", "human,random", "--seed", "4", "--players", "2"], rows, tmp_path)
    pictures = 0
    for _ in range(6):
        child.expect(CHOICE)
        numbers = _numbers(child.match.group(1))
        printed = screen(child).split("\n")
        visible = printed[-(rows - 1):]
        text = "\n".join(visible)
        assert all(len(line) <= 100 for line in visible)
        assert "== " in text and "what P1 sees (your turn)" in text, text
        for n in numbers:  # every option of the decision
            assert re.search(rf"(^|\s){n}\. \S", text, re.M), (n, text)
        if name == "belgian_beers_race":
            assert "Map belgium:" in text and re.search(r"^  [A-Z] .*: .*P1", text, re.M), text
            assert "yours: " in text or "Time (TU):" in text, text
            pictures += any(re.fullmatch(r"[ ·A-Z*]*·[ ·A-Z*]*", line) for line in visible)
        else:
            assert "Hidden Hand" in text, text
        assert re.search(r"(Combat|Challenges|day of)", text), text  # the display's header line
        child.sendline(str(numbers[0]))
    child.terminate(force=True)
    if name == "belgian_beers_race" and rows == 60:  # the map's picture is drawn where there is room for it
        assert pictures == 6


def test_resume_refuses_what_is_not_a_saved_game_or_does_not_replay(tmp_path, monkeypatch, capsys):
    from click.testing import CliRunner

    from interpreter.cli import cli, main

    def refused(*argv: str) -> str:
        assert main(list(argv)) != 0
        return " ".join(capsys.readouterr().err.split())

    monkeypatch.chdir(tmp_path)
    saving = CliRunner().invoke(cli, ["play", "tic_tac_toe", "--agents", "human,first", "--seed", "2"],
                                input="mark(4)\nsave game.json\nquit\n")
    assert "game saved to game.json" in saving.output and "game abandoned after 2 actions" in saving.output
    data = json.loads((tmp_path / "game.json").read_text())
    assert data["format"] == "tapster-save/1" and data["actions"] == ["mark(4)", "mark(0)"]
    assert not Path(data["path"]).is_absolute()  # as a log's: relative to the file, never a path from elsewhere
    assert "--resume continues a saved game as it was" in refused("play", "tic_tac_toe", "--resume", "game.json")
    (tmp_path / "log.json").write_text(json.dumps({"format": "tapster-log/1"}))
    assert "not a saved game" in refused("play", "--resume", "log.json")
    (tmp_path / "bad.json").write_text(json.dumps(dict(data, actions=["mark(4)", "mark(4)"])))
    assert "the saved actions do not replay" in refused("play", "--resume", "bad.json")
    (tmp_path / "other.json").write_text(json.dumps(dict(data, actions=["mark(4)", "mark(1)"])))
    assert "do not lead to the saved state" in refused("play", "--resume", "other.json")
    (tmp_path / "none.json").write_text("[1, 2")
    assert "not a saved game" in refused("play", "--resume", "none.json")
