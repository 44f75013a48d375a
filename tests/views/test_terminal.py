"""The terminal table (interpreter/views/terminal.py, HumanAgent, `tapster play` and `tapster replay --seat`):
hot-seat play, stable action numbers, `?`, turn headers, replay as a seat saw it, and each
seat's account showing only what that seat may see."""

from __future__ import annotations

import io
import json
import random
import re

import pytest
from click.testing import CliRunner
from rich.console import Console

from interpreter.agents.core import HumanAgent, QuitGame
from interpreter.cli import cli
from interpreter.engine.state import Keyed
from interpreter.model import Component, Decision
from interpreter.views.terminal import HotSeat, ReplayViewer, numbered, option_names, rules_summary
from interpreter.views.termview import face_text
from tests.conftest import compiled

CLEAR = "<<CLEAR>>"


def _flat(z):
    """The components of a zone's contents (nested lists or a Keyed dict of stacks)."""
    if isinstance(z, Keyed) or isinstance(z, dict):
        for stack in z.values():
            yield from _flat(stack)
    elif isinstance(z, list):
        for x in z:
            yield from _flat(x) if isinstance(x, (list, dict)) else [x]
    elif isinstance(z, Component):
        yield z


def _hidden_from(st, seat: int) -> set:
    """The components in places ``seat`` may not look into: hidden zones, others' owner zones."""
    out = set()
    for decl in st.ruleset.zones.values():
        z = st.zones[decl.name]
        if decl.visibility == "hidden":
            out.update(_flat(z))
        elif decl.visibility == "owner" and decl.per_player:
            for p, sub in enumerate(z):
                if p != seat:
                    out.update(_flat(sub))
    return out


def _seen_ids(st, seat: int) -> set[str]:
    text = json.dumps(st.observation(seat))
    return {c.id for c in st.ruleset.components if f'"{c.id}"' in text}


def _words(text: str) -> str:
    return " ".join(text.split())


class Table:
    """Two or more humans at one recorded terminal: every print, clear and question in order."""

    def __init__(self, answers):
        self.buf = io.StringIO()
        self.console = Console(file=self.buf, width=200, highlight=False, color_system=None)
        self.answers = iter(answers)
        self.prompts: list[str] = []

    def clear(self):
        self.buf.write(CLEAR + "\n")

    def read(self, prompt):
        self.buf.write(f"<<READ {prompt}>>\n")
        self.prompts.append(prompt)
        answer = next(self.answers)
        if answer == "LOWEST":  # the lowest option number the prompt offers (gaps after taken options)
            answer = re.search(r"\((\d+)", prompt).group(1)
        return answer


# -- 1. hot-seat ------------------------------------------------------------------------------------


def test_hot_seat_clears_and_asks_before_showing_the_next_seat():
    rs = compiled("beer_cards")
    st = rs.new_game(2, seed=4, log=True)
    table = Table(["", "LOWEST"] * 200)
    seat = HotSeat(table.console, clear=table.clear)
    humans = [HumanAgent(console=table.console, read=table.read, hot_seat=seat) for _ in range(2)]
    seen = [_seen_ids(st, 0), _seen_ids(st, 1)]
    hidden = [_hidden_from(st, 0), _hidden_from(st, 1)]
    for _ in range(12):
        p = st.current_players()[0]
        st.apply(humans[p].act(st, p))
        for q in (0, 1):
            seen[q] |= _seen_ids(st, q)
            hidden[q] |= _hidden_from(st, q)
    out = table.buf.getvalue()
    # The screen is passed: each "Pass the screen" question comes right after a clear (the
    # previous seat's view is gone), with nothing printed between them, then another clear.
    passes = [m.start() for m in re.finditer(r"<<READ Pass the screen to P\d", out)]
    assert len(passes) >= 3, out[:2000]
    for at in passes:
        assert out[:at].endswith(CLEAR + "\n")
        assert out[at:].split("\n", 2)[1] == CLEAR
    # Each stretch between two clears belongs to one seat: it shows that seat's view only, and
    # no component that seat never saw.
    shown_to = []
    for chunk in out.split(CLEAR + "\n"):
        views = set(re.findall(r"what (P\d) sees", chunk))
        assert len(views) <= 1, chunk
        if views:
            me = int(views.pop()[1]) - 1
            shown_to.append(me)
            assert re.search(r"<<READ P\d, your choice", chunk) and f"<<READ P{me + 1}, your choice" in chunk
            labels = {c.label for c in rs.components if c.id in seen[me]}
            for c in hidden[me]:
                if c.id not in seen[me] and c.label not in labels:
                    assert c.label not in chunk, f"P{me + 1}'s screen shows {c.label}"
    assert set(shown_to) == {0, 1}


def test_hot_seat_take_is_a_no_op_for_the_seat_on_screen_and_quits_cleanly():
    table = Table(["", "quit"])
    seat = HotSeat(table.console, clear=table.clear)
    seat.take(0, table.read)
    seat.take(0, table.read)  # the same seat keeps the screen: no clear, no question
    assert table.prompts == ["Pass the screen to P1, then press Enter (or quit): "]
    with pytest.raises(QuitGame):
        seat.take(1, table.read)
    assert table.buf.getvalue().count(CLEAR) == 3  # around P1's pass, before P2's
    seat.release()  # nobody holds the screen: nothing to clear
    assert table.buf.getvalue().count(CLEAR) == 3
    table.answers = iter([""])
    seat.take(1, table.read)
    seat.release()  # the end of the game: P2's view goes
    assert table.buf.getvalue().endswith(CLEAR + "\n") and table.buf.getvalue().count(CLEAR) == 6


def test_hot_seat_clears_a_real_terminal(monkeypatch):
    monkeypatch.setenv("TERM", "xterm")
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=80)
    HotSeat(console).take(1, lambda prompt: "")
    assert "\x1b[2J" in buf.getvalue()


def _lowest_shown(monkeypatch):
    """People who answer every decision with the lowest option number the prompt offers (an
    option keeps its number within a decision, so `1` goes once its square is taken) and
    press Enter at every other question."""

    def answer(console, prompt="", **kwargs):
        console.file.write(prompt)
        m = re.search(r"your choice \((\d+)", prompt)
        return m.group(1) if m else ""

    monkeypatch.setattr(Console, "input", answer)


def test_hot_seat_from_the_command_line_and_none_for_one_human(monkeypatch):
    _lowest_shown(monkeypatch)
    runner = CliRunner()
    two = runner.invoke(cli, ["play", "tic_tac_toe", "--agents", "human,human", "--seed", "1"])
    assert two.exit_code == 0, two.output
    assert "Pass the screen to P1" in two.output and "Pass the screen to P2" in two.output
    first_p2_view = two.output.index("what P2 sees")
    assert two.output.rindex("Pass the screen to P2", 0, first_p2_view) < first_p2_view
    # a seat's consecutive decisions (draw, keep, place) show each new line once
    flights = runner.invoke(cli, ["play", "beer_flights", "--agents", "human,human", "--seed", "2"])
    assert flights.exit_code == 0, flights.output
    for stretch in flights.output.split("Pass the screen to ")[1:]:
        texts = [re.sub(r"^.*\(or quit\): |^P\d, your choice \(.*?\): ", "", line) for line in stretch.splitlines()]
        lines = [t for t in texts if re.match(r"P\d (draws|takes|discards|starts|sees|puts)", t)]
        assert len(lines) == len(set(lines)), stretch
    one = runner.invoke(cli, ["play", "tic_tac_toe", "--agents", "human,random", "--seed", "1"])
    assert one.exit_code == 0, one.output
    assert "Pass the screen" not in one.output


# -- 2. stable action numbers -----------------------------------------------------------------------


class _Reordered:
    """A state whose pending decision lists its actions in another order (as the engine may)."""

    def __init__(self, st, order):
        self._st, self._order = st, order

    def decision(self):
        d = self._st.decision()
        pairs = [list(zip(d.actions, d.labels, strict=True))[i] for i in self._order]
        return Decision(d.players, tuple(a for a, _ in pairs), tuple(lbl for _, lbl in pairs), d.prompt, d.name)

    def __getattr__(self, name):
        return getattr(self._st, name)


def _a_decision_with_choices(name, n=3, seed=2):
    rs = compiled(name)
    st = rs.new_game(rs.min_players if rs.min_players > 1 else 2, seed=seed, log=True)
    rng = random.Random(seed)
    while len(st.legal_actions()) < n:
        st.apply(rng.choice(st.legal_actions()))
    return st


@pytest.mark.parametrize("name", ["beer_cards", "drink_and_beat", "tic_tac_toe"])
def test_the_same_options_in_another_order_get_the_same_numbers(name):
    st = _a_decision_with_choices(name)
    k = len(st.legal_actions())
    shown = []
    for order in (list(range(k)), list(reversed(range(k))), random.Random(7).sample(range(k), k)):
        state = _Reordered(st, order)
        table = Table([])
        HumanAgent(console=table.console).show(state, st.current_players()[0])
        shown.append(re.findall(r"^\s+\d+\. .*$", table.buf.getvalue(), re.M))
        d = state.decision()
        assert HumanAgent.parse_answer(d, "2", option_names(st)) == numbered(st.decision(), option_names(st))[1][1]
    assert shown[0] == shown[1] == shown[2] and len(shown[0]) == k


def test_numbers_follow_the_options_order_then_the_arguments():
    rs = compiled("tic_tac_toe")
    st = rs.new_game(2, seed=0)
    d = st.decision()
    assert [str(a) for _, a, _ in numbered(d, option_names(st))] == [f"mark({i})" for i in range(9)]
    # natural order of texts: card-2 before card-10
    fake = Decision((0,), tuple(reversed(d.actions)), tuple(reversed(d.labels)))
    assert numbered(fake) == numbered(d)


# -- 3. ? shows the rules --------------------------------------------------------------------------


def test_question_mark_shows_the_description_and_a_rules_summary_then_the_table():
    rs = compiled("beer_cards")
    st = rs.new_game(3, seed=1, log=True)
    table = Table(["?", "1"])
    p = st.current_players()[0]
    HumanAgent(console=table.console, read=table.read).act(st, p)
    out = _words(table.buf.getvalue())
    assert _words(rs.description) in out
    assert "Phases: preparation, round, showdown" in out
    assert "play: put a card face down" in out and "showdown play:" in out
    assert "The game ends: P… wins the match" in out
    assert out.count(f"what P{p + 1} sees") == 2  # the table, then again after the summary
    assert out.index("Phases:") < out.rindex(f"what P{p + 1} sees")


def test_rules_summary_of_every_shipped_ruleset():
    for name in ("beer_flights", "drink_and_beat", "beer_knight", "belgian_beers_race", "kuhn_poker", "connect_four"):
        rs = compiled(name)
        lines = rules_summary(rs)
        assert lines[0] == rs.title and "Decisions:" in lines
        assert any(line.startswith("The game ends: ") or line.startswith("How it ends and scores: ") for line in lines)
        assert not any("{" in line for line in lines if not line.startswith("Score"))


def test_question_mark_gives_the_rulesets_words_for_scoring_else_the_expression():
    words = rules_summary(compiled("belgian_beers_race"))
    assert words[-1].startswith("How it ends and scores: The race ends after the last day.")
    assert not any(line.startswith("Score: ") for line in words)  # not `vp[p] + final_extra(p)`
    plain = rules_summary(compiled("tic_tac_toe"))  # no outcome.description: the expression
    assert plain[-1].startswith("Score: 0 if winner is none else")


def test_look_lists_and_shows_every_card_the_seat_sees_beyond_the_options():
    rs = compiled("beer_knight")
    st = rs.new_game(2, seed=3, log=True)
    p = st.current_players()[0]
    table = Table(["look", "look 999", "1"])
    agent = HumanAgent(console=table.console, read=table.read)
    cards = agent.visible_cards(st, p)
    hidden = _hidden_from(st, p) - {c for c in rs.components if c.id in _seen_ids(st, p)}
    assert cards and not {f.title for _, f in cards} & {c.label for c in hidden}
    last = max(n for n, _, _ in agent.listed(st, p))
    assert cards[0][0] == last + 1  # numbered after the options
    table.answers = iter(["look", f"look {cards[-1][0]}", "1"])
    agent.act(st, p)
    out = table.buf.getvalue()
    listing, shown = out.split("<<READ")[1], out.split("<<READ")[2]  # after `look`, after `look N`
    assert f"{cards[-1][0]:>3}. {cards[-1][1].short}" in listing
    assert all(line in shown for line in face_text(cards[-1][1]))


# -- 4. turn headers ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [2, 3, 5])
def test_beer_cards_headers_count_the_round(seed):
    result = CliRunner().invoke(cli, ["play", "beer_cards", "--players", "4", "--seed", str(seed)])
    assert result.exit_code == 0, result.output
    current_round, headers = None, 0
    for line in result.output.splitlines():
        m = re.match(r"Game \d, round (\d):", line)
        if m:
            current_round = int(m.group(1))
        h = re.search(r"─ (.*?) ─", line)
        if h:
            headers += 1
            assert re.fullmatch(r"Round [1-4] · P[1-4]'s turn", h.group(1)), line
            assert int(h.group(1).split()[1]) == current_round, line
    assert headers >= 40


def test_without_rounds_headers_count_the_seats_own_turns():
    result = CliRunner().invoke(cli, ["play", "beer_flights", "--players", "3", "--seed", "1"])
    counts: dict[str, list[int]] = {}
    for seat, k in re.findall(r"(P\d)'s turn (\d+)", result.output):
        counts.setdefault(seat, []).append(int(k))
    assert set(counts) == {"P1", "P2", "P3"}
    for ks in counts.values():
        assert ks == list(range(1, len(ks) + 1))


# -- 5. replay as a seat saw it ------------------------------------------------------------------------


def _played(tmp_path, name, variant, players, seed):
    log = tmp_path / f"{name}.json"
    argv = ["play", name, "--players", str(players), "--seed", str(seed), "--log", str(log), "--json"]
    if variant:
        argv += ["--variant", variant]
    result = CliRunner().invoke(cli, argv)
    assert result.exit_code == 0, result.output
    return log, json.loads(log.read_text())


def _leaks(rs, data, output, seat):
    """(step, label) for every component hidden from ``seat`` at a step, never seen by it up to
    then (in its observations or the log lines it may read), whose label the replay's text of
    that step shows."""
    chunks = re.split(r"─+ step \d+ of \d+", output)
    st = rs.new_game(data["players"], seed=data["seed"], log=True)
    seen = _seen_ids(st, seat)
    found = []
    for i, chunk in enumerate(chunks):
        if i:
            st.apply(data["actions"][i - 1])
            seen |= _seen_ids(st, seat)
        text = _words(chunk)
        told = _words(" ".join(st.visible_log(seat)))
        shown = {c.label for c in rs.components if c.id in seen or c.label in told}
        for c in _hidden_from(st, seat):
            if c.id not in seen and c.label not in shown and len(c.label) >= 4:
                if re.search(re.escape(c.label) + r"(?![\w])", text):
                    found.append((i, c.label))
    assert len(chunks) == len(data["actions"]) + 1
    return found


@pytest.mark.parametrize("name,variant,players,seed", [("beer_cards", None, 3, 3), ("drink_and_beat", "complex", 2, 5)])
def test_replay_as_a_seat_never_shows_what_it_could_not_see(tmp_path, name, variant, players, seed):
    log, data = _played(tmp_path, name, variant, players, seed)
    rs = compiled(name, variant)
    runner = CliRunner(env={"COLUMNS": "300"})
    mine = runner.invoke(cli, ["replay", str(log), "--seat", "1", "--no-pause"])
    assert mine.exit_code == 0, mine.output
    assert "OK:" in mine.output and "what P1 sees" in mine.output and "what P2 sees" not in mine.output
    assert _leaks(rs, data, mine.output, 0) == []
    # the check has teeth: the observer's account shows what P1 could not see
    everything = runner.invoke(cli, ["replay", str(log), "--all", "--no-pause"])
    assert everything.exit_code == 0, everything.output
    assert _leaks(rs, data, everything.output, 0) != []


def test_replay_shows_a_seats_own_actions_and_only_the_log_of_others(tmp_path):
    log, data = _played(tmp_path, "beer_cards", None, 3, 3)
    out = CliRunner(env={"COLUMNS": "300"}).invoke(cli, ["replay", str(log), "--seat", "2", "--no-pause"]).output
    assert "you (P2) chose:" in out
    assert "you (P1) chose" not in out and "P1 chose" not in out and "P3 chose" not in out
    assert "P1 puts a card face down" in out  # what the log shows of another seat's action
    observer = CliRunner(env={"COLUMNS": "300"}).invoke(cli, ["replay", str(log), "--all", "--no-pause"]).output
    assert "P1 chose:" in observer and "P3 chose:" in observer


def test_replay_pauses_between_steps_and_q_stops(tmp_path):
    log, data = _played(tmp_path, "tic_tac_toe", None, 2, 1)
    rs = compiled("tic_tac_toe")
    st = rs.new_game(2, seed=data["seed"], log=True)
    answers = iter(["", "", "q"])
    buf = io.StringIO()
    viewer = ReplayViewer(st, 0, Console(file=buf, width=120), lambda prompt: next(answers))
    viewer.start(len(data["actions"]))
    for i, text in enumerate(data["actions"]):
        if viewer.stopped:
            break
        viewer.step(i, text)
    assert viewer.stopped and "step 2 of" in buf.getvalue() and "step 3 of" not in buf.getvalue()
    # without a terminal on stdin every step is printed and the log is still verified
    result = CliRunner().invoke(cli, ["replay", str(log), "--seat", "1"])
    assert result.exit_code == 0 and f"step {len(data['actions'])} of" in result.output and "OK:" in result.output


def test_replay_options_are_checked(tmp_path):
    log, _ = _played(tmp_path, "tic_tac_toe", None, 2, 1)
    runner = CliRunner()
    assert runner.invoke(cli, ["replay", str(log), "--seat", "3", "--no-pause"]).exit_code == 1
    assert runner.invoke(cli, ["replay", str(log), "--seat", "1", "--all"]).exit_code == 2
    plain = runner.invoke(cli, ["replay", str(log)])
    assert plain.exit_code == 0 and plain.output.startswith("OK:")  # verification stays the default


# -- 6. the account ------------------------------------------------------------------------------------


def _game_log(rs, data):
    st = rs.new_game(data["players"], seed=data["seed"], log=True)
    for a in data["actions"]:
        st.apply(a)
    return st.log


@pytest.mark.parametrize("agents", ["human,random,random", "human,human,random"])
def test_a_humans_account_shows_only_lines_they_may_see(tmp_path, agents, monkeypatch):
    _lowest_shown(monkeypatch)
    log = tmp_path / "game.json"
    result = CliRunner(env={"COLUMNS": "300"}).invoke(
        cli, ["play", "beer_cards", "--players", "3", "--agents", agents, "--seed", "6", "--log", str(log)])
    assert result.exit_code == 0, result.output
    data = json.loads(log.read_text())
    humans = [p for p, a in enumerate(agents.split(",")) if a == "human"]
    out = _words(result.output)
    lines = _game_log(compiled("beer_cards"), data)
    private_to_others = [t for to, t in lines if to is not None and not set(to) & set(humans)]
    assert private_to_others, "the game has lines for the agents' eyes only"
    for text in private_to_others:
        assert _words(text) not in out
    for to, text in lines:
        if to is not None and set(to) <= set(humans):
            assert _words(text) in out  # each human's own lines are shown to them


def test_agents_only_keep_the_omniscient_account(tmp_path):
    log = tmp_path / "game.json"
    result = CliRunner(env={"COLUMNS": "300"}).invoke(
        cli, ["play", "beer_cards", "--players", "3", "--seed", "6", "--log", str(log)])
    assert result.exit_code == 0, result.output
    out = _words(result.output)
    lines = _game_log(compiled("beer_cards"), json.loads(log.read_text()))
    assert any(to is not None for to, _ in lines)
    for _, text in lines:
        assert _words(text) in out


# -- a turn on one screen (issue 27) -----------------------------------------------------------------


def test_a_turn_draws_what_changed_and_table_draws_everything():
    rs = compiled("beer_knight")
    st = rs.new_game(2, seed=3, log=True)
    table = Table(["1", "table", "1"])
    human = HumanAgent(console=table.console, read=table.read)
    rng = random.Random(3)
    turns = 0
    while turns < 2:
        p = st.current_players()[0]
        if p == 0:
            st.apply(human.act(st, 0))
            turns += 1
        else:
            st.apply(rng.choice(st.legal_actions()))
    out = table.buf.getvalue()
    first, second = out.split("<<READ ")[0], out.split("<<READ ")[1]
    # empty sections are never drawn: no empty discard pile, no empty Combo row
    assert "Knight discard" not in first and ": empty" not in out and "Centre of the table" not in first
    assert "Knight deck: 18 face down" in first and "(unchanged" not in first
    # the next turn: what changed, one line naming the rest; `table` draws them again
    unchanged = [ln for ln in second.splitlines() if ln.startswith("(unchanged: ")]
    assert len(unchanged) == 1 and "Knight deck" in unchanged[0] and "Knight deck: " not in second
    after = out.split("<<READ ")[2]
    assert "Knight deck: " in after and "(unchanged" not in after


def test_many_options_without_cards_are_listed_in_columns():
    rs = compiled("tic_tac_toe")
    st = rs.new_game(2, seed=0)
    table = Table([])
    HumanAgent(console=table.console).show(st, 0)
    options = [ln for ln in table.buf.getvalue().splitlines() if re.match(r"^\s+\d+\. ", ln)]
    assert len(options) == 9  # up to COLUMNS_FROM options: one a line
    rs = compiled("belgian_beers_race")
    st = rs.new_game(3, seed=2)
    rng = random.Random(2)
    while len(st.legal_actions()) <= 12:
        st.apply(rng.choice(st.legal_actions()))
    p = st.current_players()[0]
    table = Table([])
    HumanAgent(console=table.console).show(st, p)
    text = table.buf.getvalue()
    k = len(st.legal_actions())
    numbers = [int(n) for n in re.findall(r"(?:^|\s)(\d+)\. ", text.split(st.decision().prompt or "\n")[-1])]
    assert sorted(numbers) == list(range(1, k + 1))  # every option, once
    assert len([ln for ln in text.splitlines() if re.match(r"^\s+\d+\. ", ln)]) < k  # on fewer lines
