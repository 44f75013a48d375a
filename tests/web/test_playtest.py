"""The browser table's playtesting routes in-process (issue 48): take-back (free, refused after
news without agreement, allowed with it, bad input answered 4xx), the spectator link showing
public information only, and the replay viewer's steps (refused before the end)."""

from __future__ import annotations

import json
import random
import time

import pytest

from interpreter.web.store import SQLiteStore
from tests.web.test_webview import assert_no_leak

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
from starlette.testclient import TestClient  # noqa: E402

from interpreter.web.server import TableServer, build_app  # noqa: E402


def _server(tmp_path):
    server = TableServer(SQLiteStore(str(tmp_path / "tables.sqlite")))
    return server, TestClient(build_app(server))


def _create(client, **body) -> dict:
    r = client.post("/api/tables", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def _wait(predicate, seconds=20.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def _table(server, made):
    return server.tables[made["table"]]


def test_a_take_back_against_an_agent_restores_the_table_and_says_who(tmp_path):
    server, client = _server(tmp_path)
    made = _create(client, ruleset="tic_tac_toe", agents=["human", "random"])
    me = made["seats"]["0"]
    table = _table(server, made)
    before = json.dumps(table.state.to_json(), sort_keys=True)
    assert client.post(me + "/act", json={"action": "mark(4)"}).status_code == 200
    assert _wait(lambda: table.record.version == 2)  # the agent answered
    revision = table.version
    r = client.post(me + "/undo", json={})
    assert r.status_code == 200 and r.json()["done"] is True, r.text
    assert json.dumps(table.state.to_json(), sort_keys=True) == before
    assert table.record.version == 0 and table.version > revision  # pages follow a growing revision
    page = client.get(me + "/view").json()
    assert "P1 took back X in row 2, column 2 and 1 move after it" in page["html"]
    assert "takeback-ask" not in page["html"] and "takeback-redo" in page["html"]  # nothing left to take back; redo
    assert table.record.actions == []
    # redo: the same moves again, then nothing to redo
    redone = client.post(me + "/undo", json={"answer": "redo"})
    assert redone.status_code == 200 and redone.json()["done"] is True
    assert table.record.version == 2 and table.record.actions[0] == [0, "mark(4)"]
    assert client.post(me + "/undo", json={"answer": "redo"}).status_code == 409
    assert client.post(me + "/undo", json={}).json()["done"] is True  # taken back again
    assert client.post(me + "/act", json={"action": "mark(0)"}).status_code == 200
    _wait(lambda: table.job is None)
    assert client.post(me + "/undo", json={"answer": "redo"}).status_code == 409  # something else was played
    assert client.post(me + "/undo", json={}).json()["done"] is True
    assert json.dumps(table.state.to_json(), sort_keys=True) == before
    # the take-back is stored: a restarted server holds the table as it is now
    again = TableServer(SQLiteStore(str(tmp_path / "tables.sqlite")))
    assert json.dumps(again.tables[made["table"]].state.to_json(), sort_keys=True) == before
    assert again.tables[made["table"]].version == table.version


def test_a_take_back_answers_bad_input_with_4xx(tmp_path):
    server, client = _server(tmp_path)
    made = _create(client, ruleset="tic_tac_toe", agents=["human", "random"])
    me = made["seats"]["0"]
    assert client.post(me + "/undo", json={}).status_code == 409  # nothing to take back yet
    assert client.post(me + "/undo", json={"answer": "everything"}).status_code == 400
    assert client.post(me + "/undo", json={"answer": "ask", "more": 1}).status_code == 400
    assert client.post(me + "/undo", content=b"ask", headers={"Content-Type": "text/plain"}).status_code == 415
    assert client.post(me + "/undo", json={"answer": "agree"}).status_code == 409  # no request to answer
    assert client.post(made["seats"]["0"][:-3] + "xyz/undo", json={}).status_code == 403


def _beer_flights_after_a_draw(client, server):
    """Two people at Beer Flights; P1 (or whoever starts) draws two cards from the deck."""
    made = _create(client, ruleset="beer_flights", agents=["human", "human"], seed=5)
    table = _table(server, made)
    p = table.state.current_players()[0]
    draw = next(str(a) for a in table.state.legal_actions() if "draw" in str(a).lower())
    assert client.post(made["seats"][str(p)] + "/act", json={"action": draw}).status_code == 200
    return made, table, p


def test_a_take_back_after_a_drawn_card_needs_the_other_persons_agreement(tmp_path):
    server, client = _server(tmp_path)
    made, table, p = _beer_flights_after_a_draw(client, server)
    me, other = made["seats"][str(p)], made["seats"][str(1 - p)]
    moved = json.dumps(table.state.to_json(), sort_keys=True)
    r = client.post(me + "/undo", json={"answer": "ask"})
    assert r.status_code == 200 and r.json()["done"] is False and r.json()["waiting_for"] == [1 - p]
    assert json.dumps(table.state.to_json(), sort_keys=True) == moved  # nothing taken back yet
    asked = client.get(other + "/view").json()["html"]
    assert f"P{p + 1} asks to take back their last move" in asked and "takeback-agree" in asked
    assert f"a card or die P{p + 1} had not seen has been shown since" in asked
    # refused: the request goes, the game stays
    assert client.post(other + "/undo", json={"answer": "refuse"}).json()["refused"] is True
    assert json.dumps(table.state.to_json(), sort_keys=True) == moved
    assert "takeback-agree" not in client.get(other + "/view").json()["html"]
    # asked again and agreed: back to the decision before the draw
    client.post(me + "/undo", json={"answer": "ask"})
    r = client.post(other + "/undo", json={"answer": "agree"})
    assert r.status_code == 200 and r.json()["done"] is True, r.text
    assert table.record.version == 0 and p in table.state.current_players()


def _spectator_text(html: str) -> str:
    import re
    from html import unescape

    return unescape(re.sub(r"<[^>]+>", " ", html))


@pytest.mark.parametrize("name,players", [("beer_cards", 3), ("beer_knight", 2), ("kuhn_poker", 2)])
def test_a_spectator_sees_public_information_only_and_the_seed_only_at_the_end(tmp_path, name, players):
    server, client = _server(tmp_path)
    made = _create(client, ruleset=name, players=players, agents=["human"] + ["random"] * (players - 1))
    assert made["spectate"].startswith("/w/")
    table = _table(server, made)
    me = made["seats"]["0"]
    rng = random.Random(name)
    for _ in range(400):
        _wait(lambda: table.job is None)
        page = client.get(made["spectate"])
        assert page.status_code == 200
        view = client.get(made["spectate"] + "/view").json()
        st = table.state.clone()
        for html in (page.text, view["html"]):
            for p in range(st.num_players):  # nothing any seat may not see
                assert_no_leak(html, _spectator_text(html), st, p)
        if st.is_terminal():
            break
        assert 'class="seed"' not in view["html"] and str(table.record.settings["seed"]) not in view["html"]
        assert "Your turn" not in view["html"] and '<button class="action"' not in view["html"]  # no seat, no moves
        # before the end, the replay viewer gives nothing
        assert client.get(me + "/replay").status_code == 403
        assert client.get(me + "/replay/step?n=0&all=1").status_code == 403
        actions = table.state.legal_actions()
        r = client.post(me + "/act", json={"action": str(rng.choice(actions)), "version": table.version})
        assert r.status_code in (200, 409), r.text
    assert table.state.is_terminal()
    assert str(table.record.settings["seed"]) in client.get(made["spectate"] + "/view").json()["html"]
    assert client.get(made["spectate"][:-4] + "abcd/view").status_code == 403


def test_the_replay_steps_through_a_finished_game(tmp_path):
    server, client = _server(tmp_path)
    made = _create(client, ruleset="tic_tac_toe", agents=["human", "first"])
    me = made["seats"]["0"]
    table = _table(server, made)
    for square in (0, 2, 4, 6):
        if table.state.is_terminal():
            break
        assert client.post(me + "/act", json={"action": f"mark({square})"}).status_code == 200
        _wait(lambda: table.job is None)
    assert table.state.is_terminal()
    assert "/replay" in client.get(me + "/view").json()["html"]
    page = client.get(me + "/replay")
    assert page.status_code == 200 and "replay.js" in page.text
    total = table.record.version
    steps = [client.get(me + f"/replay/step?n={n}").json() for n in range(total + 1)]
    assert [s["step"] for s in steps] == list(range(total + 1)) and steps[0]["total"] == total
    assert steps[0]["html"].count(">X<") == 0 and steps[-1]["html"].count(">X<") >= 3
    assert client.get(me + "/replay/step?n=99999").json()["step"] == total  # clamped
    assert client.get(me + "/replay/step?n=-1").status_code == 400
    assert client.get(me + "/replay/step?n=" + "9" * 50).status_code == 400
    assert client.get(me + "/replay/step?n=2&all=1").status_code == 200


def test_the_replay_viewer_of_a_log_file(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from interpreter.cli import cli
    from interpreter.web import playtest

    log = tmp_path / "game.json"
    assert CliRunner().invoke(cli, ["play", "tic_tac_toe", "--seed", "3", "--log", str(log)]).exit_code == 0
    served = {}
    monkeypatch.setattr(playtest, "serve_log", lambda rs, data, host, port: served.update(rs=rs, data=data, port=port))
    result = CliRunner().invoke(cli, ["replay", str(log), "--serve", "--port", "8765"])
    assert result.exit_code == 0 and "http://127.0.0.1:8765/" in result.output and served["port"] == 8765
    client = TestClient(playtest.log_app(served["rs"], served["data"]))
    total = len(served["data"]["actions"])
    assert "replay.js" in client.get("/").text and f'data-total="{total}"' in client.get("/").text
    first, last = client.get("/step?n=0").json(), client.get(f"/step?n={total}&all=1").json()
    assert first["step"] == 0 and last["step"] == total and "game is over" in last["html"].lower()
    assert client.get("/step?n=x").status_code == 400
