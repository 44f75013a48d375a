"""A human's turn fits one terminal screen (issue 27): at most SCREEN_LINES lines from one of
their decisions to the next in every shipped game, through `tapster play` with answers piped in
and through the play loop with random answers; `table` still draws everything and `log` the
whole account; the parts of interpreter/views/screen.py on their own."""

from __future__ import annotations

import io
import random
import re

import pytest
from click.testing import CliRunner
from rich.console import Console

from interpreter.agents.core import HumanAgent, make_agent
from interpreter.cli import cli
from interpreter.views.screen import SCREEN_LINES, Account, compose, fold_account, option_lines
from interpreter.views.terminal import Narrator
from tests.conftest import compiled

GAMES = ["beer_cards", "beer_flights", "beer_knight", "belgian_beers_race", "drink_and_beat", "little_railways"]
PROMPT = re.compile(r"P\d+, your choice \(([\d, -]+),")


def _shown(span: str) -> list[int]:
    """The option numbers a prompt offers (``1-3, 5``: an option keeps its number within a decision)."""
    out = []
    for part in span.split(", "):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out
WIDTH = 80


def _screens(output: str) -> list[int]:
    """The lines on the terminal from one decision's prompt to the next, the next prompt's line
    included (piped input is not echoed, so the first line after a prompt starts on its line)."""
    starts = [m.start() for m in PROMPT.finditer(output)]
    return [output.count("\n", a, b) + 1 for a, b in zip(starts, starts[1:])]


@pytest.mark.parametrize("name", GAMES)
def test_tapster_play_piped_keeps_every_turn_on_one_screen(name, monkeypatch):
    def lowest(console, prompt="", **kwargs):  # piped answers: the lowest number offered
        console.file.write(prompt)
        return str(_shown(PROMPT.search(prompt).group(1))[0])

    monkeypatch.setattr(Console, "input", lowest)
    result = CliRunner(env={"COLUMNS": str(WIDTH)}).invoke(
        cli, ["play", name, "--seed", "1", "--agents", "human,random"])
    assert result.exit_code == 0, result.output
    screens = _screens(result.output)
    assert len(screens) >= 5, "the human decided a few times"
    assert max(screens) <= SCREEN_LINES, f"{max(screens)} lines between two decisions"
    assert "Game over" in result.output


class _Piped:
    """A terminal at WIDTH characters whose reader answers a random legal number."""

    def __init__(self, seed: int):
        self.buf = io.StringIO()
        self.console = Console(file=self.buf, width=WIDTH, highlight=False, color_system=None, force_terminal=False)
        self.rng = random.Random(seed)

    def read(self, prompt: str) -> str:
        self.buf.write(prompt)
        m = PROMPT.search(prompt)
        return str(self.rng.choice(_shown(m.group(1)))) if m else ""


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed", [2, 3])
def test_random_answers_keep_every_turn_on_one_screen(name, seed):
    rs = compiled(name)
    n = rs.min_players if rs.min_players > 2 else 2
    st = rs.new_game(n, seed=seed, log=True)
    term = _Piped(seed)
    agents = [HumanAgent(console=term.console, read=term.read)] + [make_agent("random", seed + p) for p in range(1, n)]
    narrate = Narrator(st, term.console, agents, [0])
    while not st.is_terminal():
        narrate()
        p = st.current_players()[0]
        st.apply(agents[p].act(st, p))
    narrate()
    screens = _screens(term.buf.getvalue())
    assert len(screens) >= 3
    assert max(screens) <= SCREEN_LINES, f"{max(screens)} lines between two decisions"
    # the account after the last decision is printed at the end of the game
    last = [t for to, t in st.log if to is None][-1]
    assert " ".join(last.split()) in " ".join(term.buf.getvalue().split()[-400:])


def test_table_draws_every_section_and_log_the_whole_account():
    rs = compiled("belgian_beers_race")
    st = rs.new_game(3, seed=1, log=True)
    answers = iter(["1", "1", "table", "log", "1"])
    term = _Piped(0)
    term.read = lambda prompt: (term.buf.write(prompt + "<<READ>>\n"), next(answers))[1]
    agents = [HumanAgent(console=term.console, read=term.read)] + [make_agent("random", p) for p in (1, 2)]
    narrate = Narrator(st, term.console, agents, [0])
    decided = 0
    while decided < 3:
        narrate()
        p = st.current_players()[0]
        st.apply(agents[p].act(st, p))
        decided += p == 0
    parts = term.buf.getvalue().split("<<READ>>")
    third, table, log = parts[2], parts[3], parts[4]
    assert "not drawn for room" in third
    drawn = [ln for ln in table.splitlines() if ln.endswith(":") and not ln.startswith(" ")]
    assert "Map belgium:" in drawn and "Time (TU):" in drawn and "(unchanged" not in table
    assert any(title not in third.splitlines() for title in drawn)  # what was left out, `table` draws
    told = agents[0]._told[0]
    assert told and all(a.text in " ".join(log.split()) or a.turn for a in told)


def test_the_account_folds_repeats_then_turn_headers_then_keeps_its_last_lines():
    items = [Account("── P2's turn 1 ──", True), Account("P2 puts a card face down"), Account("P2 puts a card face down"),
             Account("── P3's turn 1 ──", True)] + [Account(f"P3 line {i}") for i in range(40)]
    folded = fold_account(items)
    assert folded[1] == Account("P2 puts a card face down (×2)") and len(folded) == len(items) - 1
    assert not any(a.turn for a in fold_account(items, drop_turns=True))
    screen = compose(["== head =="], [("Hand", ["Hand: a, b"])], None, [], items, ["Pick one"],
                     lambda faces: ["   1. a", "   2. b"], [], lambda t: 1 + len(t) // WIDTH, budget=20)
    texts = [t for t, _ in screen.lines]
    # one line for the note naming what is left out leaves the account 12 of the 19 lines
    assert len(texts) <= 19 and texts[0] == "(… 29 earlier lines: `log` shows them all)"
    assert texts[1:13] == [f"P3 line {i}" for i in range(28, 40)] and "Hand: a, b" in texts
    assert texts[-3:] == ["Pick one", "   1. a", "   2. b"]


def test_sections_that_do_not_fit_are_named_and_a_needed_section_comes_first():
    blocks = [("Map", [f"map row {i}" for i in range(30)]), ("Hand", ["Hand: Sir Saison (Knight 6)"]), ("Dice", ["Dice: 3"])]
    before = {"Dice": ["Dice: 3"]}
    screen = compose(["== head =="], blocks, before, ["Sir Saison (Knight 6)"], [], ["Choose"],
                     lambda faces: ["   1. Play Sir Saison"], [], lambda t: 1, budget=20)
    texts = [t for t, _ in screen.lines]
    assert screen.shown == ["Hand"] and len(texts) <= 19
    assert "(unchanged: Dice; not drawn for room: Map; `table` shows everything)" in texts
    # a tall section with blank rows is drawn without them when that makes it fit
    blocks = [("Map", ["Map:"] + ["   "] * 25 + ["  · A"])]
    screen = compose([], blocks, None, [], [], [], lambda faces: [], [], lambda t: 1, budget=20)
    assert screen.shown == ["Map"] and [t for t, _ in screen.lines] == ["Map:", "  · A"]


def test_many_options_are_grouped_by_their_shared_words():
    class A:
        name = "move"

        def __str__(self):
            return "move"

    towns = ["Aalst", "Brugge", "Gent", "Leuven", "Mons", "Namur", "Ieper", "Lier"]
    labels = [f"Cycle to {t} ({i % 3 + 1} TU)" for i, t in enumerate(towns)] + [f"Hitchhike to {t} (1 TU, 1 dice)" for t in towns]
    listed = [(i + 1, A(), lab) for i, lab in enumerate(labels)]
    lines = option_lines(listed, lambda a: [], 60)
    assert lines[0] == "  Cycle to:"  # "(1 TU)" and "(2 TU)" share "TU)", not a balanced suffix
    assert "1. Aalst (1 TU)   2. Brugge (2 TU)" in lines[1]
    heads = [ln for ln in lines if not ln.startswith("    ")]
    assert heads == ["  Cycle to:", "  Hitchhike to … (1 TU, 1 dice):"]
    assert "9. Aalst   10. Brugge" in "\n".join(lines)
    numbers = [int(n) for n in re.findall(r"(\d+)\. ", "\n".join(lines))]
    assert numbers == list(range(1, 17)) and all(len(ln) <= 60 for ln in lines) and len(lines) < 16
