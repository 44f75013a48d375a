"""The browser table in a real browser: Playwright drives headless Chromium (Debian's ``chromium``
package, never a downloaded build) against ``tapster serve`` run as its own process.

A whole game of every shipped ruleset is played through the pages, two seats in two browser
contexts (an agent takes any further seat), the pages updating without reloads; after every move
each page is checked against the truth kept in the server's database: it shows no component
hidden from its seat.  One game is played across a server killed mid-game and restarted.
"""

from __future__ import annotations

import json
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from interpreter.engine.state import State
from tests.conftest import CHROMIUM, compiled, need_chromium, required_in_ci
from tests.web.test_webview import assert_no_leak

if not required_in_ci():  # under CI=true the web parts are required: an ImportError fails there
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    pytest.importorskip("playwright.sync_api")
from playwright import sync_api  # noqa: E402

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parents[2]

#: Every shipped ruleset as played in the browser: (ruleset, variant, players, agents by seat, params).
#: Variants and parameters keep the games short (CI time); seats past the second are agents.
GAMES = [
    ("tic_tac_toe", None, 2, ["human", "human"], {}),
    ("connect_four", None, 2, ["human", "human"], {}),
    ("beer_flights", "five_player", 2, ["human", "human"], {}),
    ("beer_cards", None, 3, ["human", "human", "random"], {"games": 1}),
    ("drink_and_beat", "complex", 2, ["human", "human"], {}),
    ("beer_knight", "speed", 2, ["human", "human"], {}),
    ("belgian_beers_race", "short", 3, ["human", "human", "random"], {}),
    ("little_railways", None, 2, ["human", "human"], {"rounds": 6}),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``tapster serve`` in a child process (from this checkout), on a free port."""

    def __init__(self, db: Path, port: int | None = None):
        self.db = db
        self.port = port or _free_port()
        self.proc = None

    def start(self) -> Server:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "interpreter.cli", "serve", "--port", str(self.port), "--db", str(self.db)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the server stopped: {self.proc.stdout.read()}")
            try:
                urllib.request.urlopen(self.url + "/", timeout=2).read()
                return self
            except OSError:
                time.sleep(0.2)
        raise AssertionError("the server did not start within a minute")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        """Kill the server at once (SIGKILL: no shutdown, no flush)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)
            self.proc.stdout.close()

    def truth(self, table: str, settings: dict) -> tuple[State, int]:
        """The table's whole state and version as the database holds them (read-only)."""
        con = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        try:
            state, version = con.execute("SELECT state, version FROM tables WHERE id = ?", (table,)).fetchone()
        finally:
            con.close()
        rs = _ruleset(settings)
        return State.from_json(rs, json.loads(state)), version


def _ruleset(settings: dict):
    from interpreter.compile.compiler import load_ruleset

    if settings.get("params"):
        return load_ruleset(settings["ruleset"], settings.get("variant"), {"params": settings["params"]})
    return compiled(settings["ruleset"], settings.get("variant"))


@pytest.fixture(scope="module")
def browser():
    need_chromium()  # skips without Chromium (fails under CI=true)
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


def _create_table(page, server: Server, name, variant, players, agents, params, seed) -> tuple[str, dict[int, str]]:
    """Fill the form on / and return (table id, seat -> link)."""
    page.goto(server.url + "/")
    page.select_option("#ruleset", name)
    page.fill("#variant", variant or "")
    page.fill("#players", str(players))
    page.fill("#agents", ",".join(agents))
    page.fill("#seed", str(seed))
    page.fill("#params", "\n".join(f"{k}={json.dumps(v)}" for k, v in params.items()))
    page.click("#create")
    page.wait_for_selector("a.seat-link")
    links = {int(a.get_attribute("data-seat")): a.get_attribute("href") for a in page.query_selector_all("a.seat-link")}
    table = next(iter(links.values())).split("/")[2]
    return table, links


def _version(page) -> int:
    return int(page.get_attribute("main.seat", "data-version"))


def _wait_version(page, version: int) -> None:
    page.wait_for_function("v => parseInt(document.querySelector('main.seat').dataset.version) === v", arg=version,
                           timeout=30_000)


def _check(page, st: State, seat: int) -> None:
    assert_no_leak(page.content(), page.inner_text("body"), st, seat)


def _play(server: Server, pages: dict, table: str, settings: dict, rng: random.Random,
          stop_after: int | None = None) -> tuple[State, int]:
    """Click through the game on the pages (a random legal button of the deciding seat) until it
    ends (or ``stop_after`` clicks); every page is checked after every move."""
    clicks = 0
    while True:
        st, version = server.truth(table, settings)
        for seat, page in pages.items():
            _wait_version(page, version)  # the page follows the table without a reload
            _check(page, st, seat)
        if st.is_terminal() or (stop_after is not None and clicks >= stop_after):
            return st, version
        seat = st.current_players()[0]
        assert seat in pages, "an agent's seat is waiting: the server should have moved for it"
        page = pages[seat]
        buttons = page.locator("#view button.action")
        assert buttons.count() == len(st.legal_actions())
        i = rng.randrange(buttons.count())
        assert buttons.nth(i).get_attribute("data-action") == str(st.legal_actions()[i])
        with page.expect_response(lambda r: r.url.endswith("/act")) as answer:  # the agents have moved when it comes
            buttons.nth(i).click()
        assert answer.value.status == 200, answer.value.text()
        page.wait_for_function("v => parseInt(document.querySelector('main.seat').dataset.version) > v", arg=version,
                               timeout=30_000)
        clicks += 1
        assert clicks < 1000, "the game does not end"


@pytest.mark.parametrize("name,variant,players,agents,params", GAMES, ids=[g[0] for g in GAMES])
def test_a_whole_game_in_the_browser(browser, tmp_path, name, variant, players, agents, params):
    server = Server(tmp_path / "tables.sqlite").start()
    contexts = [browser.new_context() for _ in range(2)]
    try:
        table, links = _create_table(contexts[0].new_page(), server, name, variant, players, agents, params, seed=21)
        assert sorted(links) == [0, 1]
        pages = {}
        for seat, ctx in zip((0, 1), contexts):
            pages[seat] = ctx.new_page()
            pages[seat].goto(server.url + links[seat])
        settings = {"ruleset": name, "variant": variant, "params": params}
        st, _ = _play(server, pages, table, settings, random.Random(name))
        assert st.is_terminal()
        for seat, page in pages.items():
            text = page.inner_text("#view")
            assert "final scores" in text.lower() and "game over" in text.lower()
            assert f"You are P{seat + 1}" in text
        # an illegal action sent from the page's own session is refused with a clear message
        r = pages[0].request.post(server.url + links[0] + "/act", data={"action": "nonsense", "version": 0})
        assert r.status == 409 and "game is over" in r.json()["error"]
    finally:
        for ctx in contexts:
            ctx.close()
        server.kill()


def test_a_game_survives_a_killed_server(browser, tmp_path):
    db = tmp_path / "tables.sqlite"
    server = Server(db).start()
    contexts = [browser.new_context() for _ in range(2)]
    try:
        table, links = _create_table(contexts[0].new_page(), server, "beer_cards", None, 3, ["human", "human", "random"],
                                     {"games": 1}, seed=5)
        pages = {seat: ctx.new_page() for seat, ctx in zip((0, 1), contexts)}
        for seat, page in pages.items():
            page.goto(server.url + links[seat])
        settings = {"ruleset": "beer_cards", "variant": None, "params": {"games": 1}}
        rng = random.Random(8)
        before, version = _play(server, pages, table, settings, rng, stop_after=4)
        assert not before.is_terminal()
        server.kill()
        # a move sent while the server is down is not taken
        assert _version(pages[0]) == version
        server = Server(db, server.port).start()
        after, version2 = server.truth(table, settings)
        assert version2 == version and json.dumps(after.to_json()) == json.dumps(before.to_json())
        # the open pages reconnect by themselves and the game plays on to the end
        st, _ = _play(server, pages, table, settings, rng)
        assert st.is_terminal()
        con = sqlite3.connect(str(db))
        (n,) = con.execute("SELECT COUNT(*) FROM actions WHERE table_id = ?", (table,)).fetchone()
        (v,) = con.execute("SELECT version FROM tables WHERE id = ?", (table,)).fetchone()
        con.close()
        assert n == v  # every action is in the log, committed with its state
    finally:
        for ctx in contexts:
            ctx.close()
        server.kill()


def test_a_wrong_token_in_the_browser_learns_nothing(browser, tmp_path):
    server = Server(tmp_path / "tables.sqlite").start()
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        table, links = _create_table(page, server, "beer_cards", None, 2, ["human", "human"], {"games": 1}, seed=2)
        token = links[0].rsplit("/", 1)[1]
        r = page.goto(server.url + f"/t/{table}/{token[::-1]}")
        assert r.status == 403 and "card" not in page.content().lower()
        r = page.goto(server.url + f"/t/{table}")
        assert r.status == 403
    finally:
        ctx.close()
        server.kill()


def test_a_stale_page_is_refused_with_a_message(browser, tmp_path):
    # The same seat open in two tabs; the second tab hears of no change (its events are cut), so
    # its buttons are those of a position that is gone: its click is refused, the board unchanged.
    server = Server(tmp_path / "tables.sqlite").start()
    ctx = browser.new_context()
    try:
        table, links = _create_table(ctx.new_page(), server, "tic_tac_toe", None, 2, ["human", "human"], {}, seed=1)
        settings = {"ruleset": "tic_tac_toe", "variant": None, "params": {}}
        st, _ = server.truth(table, settings)
        seat = st.current_players()[0]
        fresh, stale = ctx.new_page(), ctx.new_page()
        stale.route("**/events", lambda route: route.abort())
        for page in (fresh, stale):
            page.goto(server.url + links[seat])
        fresh.locator("button.action").nth(4).click()
        _wait_version(fresh, 1)
        stale.locator("button.action").nth(0).click()
        stale.wait_for_selector("#message.error")
        assert "out of date" in stale.inner_text("#message")
        st, version = server.truth(table, settings)
        assert version == 1 and [str(a) for a in st.legal_actions()] == [f"mark({i})" for i in range(9) if i != 4]
        _wait_version(stale, 1)  # the refused page fetched the table as it is
        assert stale.locator("button.action").count() == 0  # and it is the other seat's turn
    finally:
        ctx.close()
        server.kill()


def test_the_creator_seed_note_and_the_delete_link(browser, tmp_path):
    # A practice table (its seed typed on the form) says so on every seat's page; the creator's
    # delete link deletes it, and an open seat page is told.
    server = Server(tmp_path / "tables.sqlite").start()
    ctx = browser.new_context()
    try:
        creator = ctx.new_page()
        table, links = _create_table(creator, server, "tic_tac_toe", None, 2, ["human", "human"], {}, seed=7)
        assert "Seeded by the creator" in creator.inner_text("main")
        seat = ctx.new_page()
        seat.goto(server.url + links[1])
        assert "Seeded by the creator: hidden cards are known to whoever knows the seed." in seat.inner_text("#view")
        creator.click("a.delete-link")
        creator.click("#delete")
        creator.wait_for_selector("text=The table is deleted.")
        seat.wait_for_selector("#message.error")
        assert "deleted" in seat.inner_text("#message") and seat.locator("button.action:enabled").count() == 0
        assert seat.request.get(server.url + links[1] + "/view").status == 403
    finally:
        ctx.close()
        server.kill()


# -- click-to-act (issue 27) ---------------------------------------------------------------------------


def _click_table(page, action_index: int) -> int:
    """Take legal action ``action_index`` by clicking the things on the table that name it (a
    card, then a place), never its button; returns the clicks made."""
    things = page.locator("#view [data-acts]")
    naming = [things.nth(k) for k in range(things.count())
              if str(action_index) in (things.nth(k).get_attribute("data-acts") or "").split()]
    assert naming, f"nothing on the table names action {action_index}"
    # the thing naming fewest actions first (a hand card before a place), then the others it needs
    naming.sort(key=lambda el: (el.get_attribute("data-id") is None, len(el.get_attribute("data-acts").split())))
    clicks = 0
    for el in naming:
        clicks += 1
        try:
            with page.expect_response(lambda r: r.url.endswith("/act"), timeout=3_000) as answer:
                el.click()
        except sync_api.TimeoutError:  # not yet one reading: the next thing narrows it
            continue
        assert answer.value.status == 200, answer.value.text()
        return clicks
    raise AssertionError(f"clicking {clicks} things did not take action {action_index}")


def test_click_to_act_drink_and_beat(browser, tmp_path):
    # Drink & Beat's mats: click a mat in the hand, then a place of the field (places a legal move
    # names are drawn even when empty); a move with one reading happens on the first click
    server = Server(tmp_path / "tables.sqlite").start()
    contexts = [browser.new_context() for _ in range(2)]
    try:
        table, links = _create_table(contexts[0].new_page(), server, "drink_and_beat", None, 2, ["human", "human"], {}, seed=5)
        pages = {seat: ctx.new_page() for seat, ctx in zip((0, 1), contexts)}
        for seat, page in pages.items():
            page.goto(server.url + links[seat])
        settings = {"ruleset": "drink_and_beat", "variant": None, "params": {}}
        rng = random.Random(5)
        by_table = two_step = 0
        for _ in range(10):
            st, version = server.truth(table, settings)
            if st.is_terminal():
                break
            seat = st.current_players()[0]
            page = pages[seat]
            _wait_version(page, version)
            _check(page, st, seat)
            on_table = sorted({int(i) for el in page.locator("#view [data-acts]").all() for i in el.get_attribute("data-acts").split()})
            if not on_table:
                page.locator("#view button.action").first.click()  # the fallback: nothing on the table names an action
            else:
                i = rng.choice(on_table)
                expected = str(st.legal_actions()[i])
                clicks = _click_table(page, i)
                by_table += 1
                two_step += clicks > 1
                page.wait_for_function("v => parseInt(document.querySelector('main.seat').dataset.version) > v", arg=version,
                                       timeout=30_000)
                after, _ = server.truth(table, settings)
                want = st.clone()
                want.apply(st.legal_actions()[i])
                assert want.to_json() == after.to_json(), f"the clicks did not take {expected}"  # the action the clicks named
                continue
            page.wait_for_function("v => parseInt(document.querySelector('main.seat').dataset.version) > v", arg=version,
                                   timeout=30_000)
        assert by_table >= 3 and two_step >= 1, (by_table, two_step)
    finally:
        for ctx in contexts:
            ctx.close()
        server.kill()
