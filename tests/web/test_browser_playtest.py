"""Playtesting in a real browser (issue 48), Playwright with Debian's Chromium against ``tapster
serve`` in its own process (the setup of tests/web/test_browser.py): a take-back of a placement,
a take-back after a drawn card refused without the other person's agreement and allowed with it,
a spectator page and the replay viewer before the end that show no hidden card, and the replay
stepping back and forth through a finished game."""

from __future__ import annotations

import random

from tests.web.test_browser import Server, _create_table, _wait_version, browser  # noqa: F401  (the fixture)
from tests.web.test_webview import assert_no_leak


def _board(page) -> str:
    return page.inner_text("#view .board")


def _revision(page) -> int:
    return int(page.get_attribute("main.seat", "data-version"))


def _wait_revision_above(page, revision: int) -> None:
    page.wait_for_function("v => parseInt(document.querySelector('main.seat').dataset.version) > v", arg=revision,
                           timeout=30_000)


def test_a_person_takes_back_a_placement_and_the_board_is_as_before(browser, tmp_path):  # noqa: F811
    server = Server(tmp_path / "tables.sqlite").start()
    ctx = browser.new_context()
    try:
        _, links = _create_table(ctx.new_page(), server, "tic_tac_toe", None, 2, ["human", "random"], {}, seed=3)
        page = ctx.new_page()
        page.goto(server.url + links[0])
        before = _board(page)
        assert page.locator("button.takeback-ask").count() == 0  # nothing to take back yet
        with page.expect_response(lambda r: r.url.endswith("/act")):
            page.locator('button.action[data-action="mark(4)"]').click()
        _wait_version(page, 2)  # the agent answered
        placed = _board(page)
        assert placed != before and "X" in placed and "O" in placed
        revision = _revision(page)
        with page.expect_response(lambda r: r.url.endswith("/undo")) as answer:
            page.click("button.takeback-ask")
        assert answer.value.status == 200 and answer.value.json()["done"] is True
        _wait_revision_above(page, revision)
        assert _board(page) == before
        assert "P1 took back X in row 2, column 2 and 1 move after it" in page.inner_text("#view")
        assert page.locator('button.action[data-action="mark(4)"]').count() == 1  # the square is free again
        revision = _revision(page)
        page.click("button.takeback-redo")  # taken again: the same moves, the agent's included
        _wait_revision_above(page, revision)
        assert _board(page) == placed and page.locator("button.takeback-redo").count() == 0
    finally:
        ctx.close()
        server.kill()


def test_a_take_back_after_a_drawn_card_needs_the_other_persons_agreement(browser, tmp_path):  # noqa: F811
    server = Server(tmp_path / "tables.sqlite").start()
    contexts = [browser.new_context() for _ in range(2)]
    try:
        _, links = _create_table(contexts[0].new_page(), server, "beer_flights", None, 2, ["human", "human"], {}, seed=5)
        pages = {seat: ctx.new_page() for seat, ctx in zip((0, 1), contexts)}
        for seat, page in pages.items():
            page.goto(server.url + links[seat])
        me = next(s for s, p in pages.items() if p.locator("button.action").count())
        other = pages[1 - me]
        mine = pages[me]
        before = _board(mine)
        draw = mine.locator("button.action", has_text="Draw")
        with mine.expect_response(lambda r: r.url.endswith("/act")):
            draw.first.click()
        _wait_version(mine, 1)
        drawn = _board(mine)
        # asked: nothing happens until the other person answers; they are asked on their page
        revision = _revision(mine)
        with mine.expect_response(lambda r: r.url.endswith("/undo")) as answer:
            mine.click("button.takeback-ask")
        assert answer.value.json()["done"] is False
        other.wait_for_selector("button.takeback-agree", timeout=30_000)
        assert f"a card or die P{me + 1} had not seen has been shown since" in other.inner_text("#view")
        assert _board(mine) == drawn
        # refused: the drawn card stays
        revision = _revision(other)
        other.click("button.takeback-refuse")
        _wait_revision_above(other, revision)
        assert other.locator("button.takeback-agree").count() == 0
        mine.wait_for_selector("button.takeback-ask", timeout=30_000)
        assert _board(mine) == drawn
        # asked again and agreed: the table is as before the draw
        mine.click("button.takeback-ask")
        other.wait_for_selector("button.takeback-agree", timeout=30_000)
        revision = _revision(mine)
        other.click("button.takeback-agree")
        _wait_revision_above(mine, revision)
        mine.wait_for_function("t => !document.querySelector('#view').innerText.includes(t)", arg="takeback-request")
        assert _board(mine) == before
        assert mine.locator("button.action", has_text="Draw").count() == 1
    finally:
        for ctx in contexts:
            ctx.close()
        server.kill()


def test_a_spectator_and_the_replay_viewer_before_the_end_show_no_hidden_card(browser, tmp_path):  # noqa: F811
    server = Server(tmp_path / "tables.sqlite").start()
    ctx, watcher_ctx = browser.new_context(), browser.new_context()
    try:
        creator = ctx.new_page()
        table, links = _create_table(creator, server, "beer_knight", "speed", 2, ["human", "random"], {}, seed=9)
        spectate = creator.get_attribute("a.spectate-link", "href")
        assert spectate.startswith("/w/")
        page, watcher = ctx.new_page(), watcher_ctx.new_page()
        page.goto(server.url + links[0])
        watcher.goto(server.url + spectate)
        settings = {"ruleset": "beer_knight", "variant": "speed", "params": {}}
        rng = random.Random(4)
        for _ in range(60):
            st, version = server.truth(table, settings)
            _wait_version(page, version)
            _wait_version(watcher, version)  # the spectator page follows the table live
            html, text = watcher.content(), watcher.inner_text("body")
            for p in range(st.num_players):
                assert_no_leak(html, text, st, p)
            assert "You are watching" in text and watcher.locator("button.action").count() == 0
            if st.is_terminal():
                break
            assert "seed" not in text.lower()
            replay = ctx.new_page()
            r = replay.goto(server.url + links[0] + "/replay")
            assert r.status == 403
            assert_no_leak(replay.content(), replay.inner_text("body"), st, 0)
            replay.close()
            buttons = page.locator("#view button.action")
            i = rng.randrange(buttons.count())
            with page.expect_response(lambda r: r.url.endswith("/act")):
                buttons.nth(i).click()
            page.wait_for_function("v => parseInt(document.querySelector('main.seat').dataset.version) > v", arg=version,
                                   timeout=30_000)
    finally:
        ctx.close()
        watcher_ctx.close()
        server.kill()


def test_the_replay_steps_back_and_forth_through_a_finished_game(browser, tmp_path):  # noqa: F811
    server = Server(tmp_path / "tables.sqlite").start()
    ctx = browser.new_context()
    try:
        _, links = _create_table(ctx.new_page(), server, "tic_tac_toe", None, 2, ["human", "first"], {}, seed=1)
        page = ctx.new_page()
        page.goto(server.url + links[0])
        for k, square in enumerate((0, 2, 4, 6)):  # against `first`, X completes 2-4-6 at the 7th action
            with page.expect_response(lambda r: r.url.endswith("/act")):
                page.locator(f'button.action[data-action="mark({square})"]').click()
            _wait_version(page, min(2 * k + 2, 7))
        page.wait_for_selector("a.replay-link")
        page.click("a.replay-link")
        page.wait_for_selector("main.replay-viewer[data-step='0']")
        start = page.inner_text("#view .board")
        assert "X" not in start and "O" not in start
        marks = []
        for step in range(1, 8):
            page.click("button.replay-forward")
            page.wait_for_selector(f"main.replay-viewer[data-step='{step}']")
            marks.append(page.inner_text("#view .board"))
        assert marks[-1].count("X") == 4 and marks[-1].count("O") == 3
        assert "game is over" in page.inner_text("#view").lower()
        assert [m.count("X") + m.count("O") for m in marks] == list(range(1, 8))
        page.click("button.replay-back")
        page.wait_for_selector("main.replay-viewer[data-step='6']")
        assert page.inner_text("#view .board") == marks[5]
        page.click("button.replay-first")
        page.wait_for_selector("main.replay-viewer[data-step='0']")
        page.fill("input.replay-step", "3")
        page.dispatch_event("input.replay-step", "change")
        page.wait_for_selector("main.replay-viewer[data-step='3']")
        assert page.inner_text("#view .board") == marks[2]
        page.click("button.replay-last")
        page.wait_for_selector("main.replay-viewer[data-step='7']")
        assert page.inner_text("#view .board") == marks[6]
    finally:
        ctx.close()
        server.kill()
