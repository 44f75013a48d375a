"""The browser table under attack (issue 32): each attack that once broke ``tapster serve`` now
fails cleanly, on 127.0.0.1 only and bounded in count and time.

- Seeds: a served table draws its chance from a secure 256-bit seed and a BLAKE2b counter-mode
  generator (interpreter/engine/rng.py), never shown while the game runs; a creator-chosen seed is said
  on every seat's page.
- Bounded work: agents' effort capped, agents moved in a bounded pool apart from requests, table
  creation limited per client, the compiled-ruleset cache bounded and filled only by valid requests.
- Recovery: a pending agent move resumes on restore and after a failed write; tables expire; the
  creator can delete a table.
- Input: every malformed body gets a short 4xx (schema-checked JSON, bodies capped before they
  are read, JSON content type, Origin), the database is private.
- A real server in its own process: floods of large bodies, parameters and half-open connections
  keep it under 300 MB, and a server killed while an agent thinks finishes the game on restart.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import random
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from interpreter.compile.compiler import load_ruleset
from interpreter.engine import rng
from interpreter.web.store import SQLiteStore

starlette = pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
from starlette.testclient import TestClient  # noqa: E402

from interpreter.web import tables as tables_mod  # noqa: E402  (where TableServer looks up make_agent and load_ruleset)
from interpreter.web.server import CREATOR_SEED_NOTE, FORBIDDEN, Limits, TableServer, build_app, restore_state  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _server(tmp_path, limits: Limits | None = None, name: str | None = None):
    server = TableServer(SQLiteStore(str(tmp_path / "tables.sqlite")), limits=limits)
    return server, TestClient(build_app(server, name))


def _create(client, status=200, **body):
    r = client.post("/api/tables", json=body)
    assert r.status_code == status, r.text
    return r.json()


def _wait(predicate, seconds=10.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


# -- 1. seeds nobody can know or infer -------------------------------------------------------------

def _splitmix(seed: int, count: int) -> list[int]:
    """SplitMix64 as published (Steele, Lea, Flood 2014), from the seed's documented mixing."""
    mask = (1 << 64) - 1
    s = (seed * 0xD1B54A32D192ED03 + 0x8CB92BA72F3D8DD7) & mask
    out = []
    for _ in range(count):
        s = (s + 0x9E3779B97F4A7C15) & mask
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        out.append(z ^ (z >> 31))
    return out


def test_the_secure_generator_has_a_256_bit_secret_and_keyed_blake2b_outputs():
    seed = rng.secure_seed()
    assert re.fullmatch(r"blake2b:[0-9a-f]{64}", seed)  # 256 bits from secrets
    assert rng.secure_seed() != seed
    s = rng.seed_state(seed)
    key = int(seed[8:], 16)
    assert rng.is_secure(s) and rng.is_state(s) and s == rng.SECURE | key << 64  # key 256 bits, counter 64 bits
    assert s.bit_length() == 321 and (s >> 64) & ((1 << 256) - 1) == key
    # output i is keyed BLAKE2b of the counter i: without the key the outputs say nothing of it
    for i in range(3):
        s, out = rng.next_state(s)
        expected = hashlib.blake2b(i.to_bytes(8, "little"), digest_size=8, key=key.to_bytes(32, "little"), person=b"tapster-rng")
        assert out == int.from_bytes(expected.digest(), "little")
    assert s & rng.MASK == 3
    # a draw in [0, n) from either generator is uniform by rejection and advances its own state only
    s2, v = rng.below(s, 6)
    assert 0 <= v < 6 and rng.is_secure(s2) and s2 >> 64 == s >> 64
    # every other seed keeps SplitMix64 and its exact sequence (analysis, search, playouts, tests)
    t = rng.seed_state(7)
    outs = []
    for _ in range(4):
        t, z = rng.next_state(t)
        outs.append(z)
    assert outs == _splitmix(7, 4) and not rng.is_secure(rng.seed_state("blake2b:xyz"))
    assert not rng.is_state(1 << 64) and not rng.is_state(-1)


def test_a_secure_seed_clones_saves_and_replays_exactly():
    rs = load_ruleset("beer_cards")
    seed = rng.secure_seed()
    a, b = rs.new_game(3, seed=seed), rs.new_game(3, seed=seed)
    assert json.dumps(a.to_json()) == json.dumps(b.to_json()) and rng.is_secure(a.rng)
    assert json.dumps(a.to_json()) != json.dumps(rs.new_game(3, seed=rng.secure_seed()).to_json())
    pick = random.Random(1)
    for _ in range(12):
        a.apply(pick.choice(a.legal_actions()))
    c, d = a.clone(), restore_state(rs, json.loads(json.dumps(a.to_json())))
    while not a.is_terminal():
        act = pick.choice(a.legal_actions())
        for st in (a, c, d):
            st.apply(str(act))
    assert json.dumps(a.to_json()) == json.dumps(c.to_json()) == json.dumps(d.to_json())


def _responses_text(client, seats: dict) -> str:
    out = []
    for link in seats.values():
        out += [client.get(link).text, client.get(link + "/view").text, client.get(link + "/log").text]
    return "\n".join(out)


def test_a_served_table_uses_the_secure_generator_and_shows_its_seed_only_when_finished(tmp_path, capsys):
    server, client = _server(tmp_path)
    answer = _create(client, ruleset="tic_tac_toe", agents=["human", "human"])
    table = server.tables[answer["table"]]
    seed = table.record.settings["seed"]
    assert rng.is_secure(table.state.rng) and re.fullmatch(r"blake2b:[0-9a-f]{64}", seed)
    assert not answer["creator_seeded"] and table.record.settings["seeded_by"] == "server"
    secrets_ = [seed[8:], str(table.state.rng), hex(table.state.rng)[2:]]
    seen = [json.dumps(answer), client.get("/").text]
    moves = ["mark(4)", "mark(0)", "mark(8)", "mark(2)", "mark(1)", "mark(6)", "mark(3)", "mark(5)", "mark(7)"]
    for i, move in enumerate(moves):
        if table.state.is_terminal():
            break
        seen.append(_responses_text(client, answer["seats"]))
        r = client.post(answer["seats"][str(i % 2)] + "/act", json={"action": move, "version": i})
        assert r.status_code == 200, r.text
        seen.append(r.text)
    assert not any(s in text for text in seen for s in secrets_)  # nothing while the game ran
    # the finished game's replay shows it, and `tapster replay` replays it exactly
    assert table.state.is_terminal()
    page = client.get(answer["seats"]["0"] + "/view").json()["html"]
    assert seed in page and "replay log" in page
    log = client.get(answer["seats"]["1"] + "/log").json()
    assert log["seed"] == seed and log["actions"] == [a for _, a in table.record.actions]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(log))
    from interpreter.cli import main

    assert main(["replay", str(path)]) == 0


def test_the_replay_log_waits_for_the_end_of_the_game(tmp_path):
    server, client = _server(tmp_path)
    answer = _create(client, ruleset="beer_cards", agents=["human", "human"])
    r = client.get(answer["seats"]["0"] + "/log")
    assert r.status_code == 403 and "once the game is over" in r.json()["error"]
    assert server.tables[answer["table"]].record.settings["seed"] not in r.text


def test_a_creator_chosen_seed_is_said_on_every_seat_page(tmp_path):
    server, client = _server(tmp_path)
    answer = _create(client, ruleset="beer_cards", players=3, agents=["human"], seed=42)
    assert answer["creator_seeded"] and len(answer["seats"]) == 3
    table = server.tables[answer["table"]]
    assert table.record.settings["seed"] == 42 and not rng.is_secure(table.state.rng)
    for link in answer["seats"].values():
        assert CREATOR_SEED_NOTE in client.get(link).text
        assert CREATOR_SEED_NOTE in client.get(link + "/view").json()["html"]
    created = client.post("/tables", data={"ruleset": "beer_cards", "agents": "human,human", "seed": "42"})
    assert created.status_code == 200 and CREATOR_SEED_NOTE in created.text
    # without a seed nobody is told so, and the seed is the server's secret
    plain = _create(client, ruleset="beer_cards", agents=["human", "human"])
    assert all(CREATOR_SEED_NOTE not in client.get(link).text for link in plain["seats"].values())


# -- 2. bounded work per client --------------------------------------------------------------------

def test_agent_effort_is_capped(tmp_path):
    _, client = _server(tmp_path, Limits(max_agent_seconds=2.0, max_agent_iterations=3000))
    for agent, words in [("mcts:seconds=86400", "at most 2 seconds"), ("ismcts:seconds=30", "at most 2 seconds"),
                         ("mcts:iterations=10000000", "at most 3000 iterations"), ("mcts:worlds=5000", "at most 3000 worlds")]:
        r = client.post("/api/tables", json={"ruleset": "tic_tac_toe", "agents": ["human", agent]})
        assert r.status_code == 400 and words in r.json()["error"], (agent, r.text)
    assert _create(client, ruleset="tic_tac_toe", agents=["human", "mcts:iterations=50"])["seats"]


def test_agents_think_in_a_bounded_pool_apart_from_requests(tmp_path, monkeypatch):
    threads = set()

    class Slow:
        def act(self, state, seat):
            threads.add(threading.current_thread())
            time.sleep(0.4)
            return state.legal_actions()[0]

    monkeypatch.setattr(tables_mod, "make_agent", lambda spec, seed: Slow())
    server, client = _server(tmp_path, Limits(agent_workers=1))
    calm = _create(client, ruleset="tic_tac_toe", agents=["human", "human"])
    busy = [server.create("tic_tac_toe", None, None, ["random", "human"], client=f"c{i}")[0] for i in range(6)]
    for table in busy:
        server.schedule_agents(table)
    time.sleep(0.05)
    started = time.monotonic()
    assert client.get(calm["seats"]["0"] + "/view").status_code == 200
    assert client.post(calm["seats"]["0"] + "/act", json={"action": "mark(4)", "version": 0}).json() == {"version": 1}
    assert time.monotonic() - started < 1.0  # not behind six agents' 2.4 s of thinking
    assert _wait(lambda: all(t.version == 1 for t in busy), 10)  # each agent moved, in turn
    assert len(threads) == 1 and threading.current_thread() not in threads  # one worker, not a request's thread


def test_clients_take_turns_in_the_agent_pool(tmp_path, monkeypatch):
    order = []

    class Slow:
        def act(self, state, seat):
            time.sleep(0.15)
            order.append(threading.current_thread())
            return state.legal_actions()[0]

    monkeypatch.setattr(tables_mod, "make_agent", lambda spec, seed: Slow())
    server, _ = _server(tmp_path, Limits(agent_workers=1))
    many = [server.create("tic_tac_toe", None, None, ["random", "human"], client="many")[0] for _ in range(8)]
    one = server.create("tic_tac_toe", None, None, ["random", "human"], client="one")[0]
    for table in many:
        server.schedule_agents(table)
    server.schedule_agents(one)
    assert _wait(lambda: one.version == 1, 5)
    moved_before = sum(t.version for t in many)
    assert moved_before <= 2, moved_before  # not behind all eight of the other client's tables
    assert _wait(lambda: all(t.version == 1 for t in many), 10)
    assert len(set(order)) == 1 and order[0].name == "tapster-agent-0"


def test_table_creation_is_limited_per_client(tmp_path):
    server, client = _server(tmp_path, Limits(tables_per_client=3, creations_per_hour=5))
    made = [_create(client, ruleset="tic_tac_toe", agents=["human", "human"]) for _ in range(3)]
    r = client.post("/api/tables", json={"ruleset": "tic_tac_toe"})
    assert r.status_code == 429 and "3 tables" in r.json()["error"]
    other = TestClient(build_app(server), client=("10.0.0.2", 4000))
    assert other.post("/api/tables", json={"ruleset": "tic_tac_toe"}).status_code == 200  # another client is not refused
    # deleting a table frees its place; the hourly count still holds
    for t in made[:2]:
        assert client.post(t["delete"]).status_code == 200
    assert _create(client, ruleset="tic_tac_toe")["table"] and _create(client, ruleset="tic_tac_toe")["table"]
    assert client.post(made[2]["delete"]).status_code == 200
    r = client.post("/api/tables", json={"ruleset": "tic_tac_toe"})
    assert r.status_code == 429 and "in the last hour" in r.json()["error"]


def test_only_valid_requests_compile_and_the_cache_is_bounded(tmp_path, monkeypatch):
    server, client = _server(tmp_path, Limits(compiled_cache=4, tables_per_client=1000, creations_per_hour=1000))
    compiled = []
    real = tables_mod.load_ruleset
    monkeypatch.setattr(tables_mod, "load_ruleset", lambda *a: compiled.append(a) or real(*a))
    _create(client, ruleset="beer_cards", agents=["human", "human"])
    compiled.clear()
    for i in range(60):  # unknown names, wrong kinds, refused tables: nothing new is compiled
        for body in ({"params": {f"p{i}": i}}, {"params": {"games": f"x{i}"}}, {"params": {"games": i + 1}, "players": 9},
                     {"params": {"games": i + 1}, "agents": ["random", "random"]}):
            r = client.post("/api/tables", json={"ruleset": "beer_cards", **body})
            assert r.status_code == 400, r.text
    assert compiled == []
    for i in range(10):
        _create(client, ruleset="beer_cards", agents=["human", "human"], params={"games": i + 1})
    assert len(compiled) == 10 and len(server._compiled) <= 4


def test_live_tables_hold_few_distinct_parameter_settings(tmp_path):
    server, client = _server(tmp_path, Limits(custom_rulesets=3, tables_per_client=100, creations_per_hour=100))
    for games in (1, 2, 3, 3):
        _create(client, ruleset="beer_cards", agents=["human", "human"], params={"games": games})
    r = client.post("/api/tables", json={"ruleset": "beer_cards", "params": {"games": 4}})
    assert r.status_code == 429 and "3 different parameter settings" in r.json()["error"]
    # the defaults, a variant and a setting already held are still served
    _create(client, ruleset="beer_cards", agents=["human", "human"])
    _create(client, ruleset="beer_cards", agents=["human", "human"], params={"games": 2})
    assert len({id(t.rs) for t in server.tables.values()}) == 4


def test_quotas_count_an_ipv6_client_by_its_64_network():
    from interpreter.web.server import client_address

    assert client_address("2001:db8:1:2:aaaa::1") == client_address("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    assert client_address("2001:db8:1:3::1") != client_address("2001:db8:1:2::1")
    assert client_address("::ffff:10.0.0.1") == client_address("10.0.0.1") == "10.0.0.1"
    assert client_address("testclient") == "testclient"


# -- 3. tables recover and expire ------------------------------------------------------------------

def _play_people(client, server, tid, seats, pick, stop_after=None):
    table = server.tables[tid]
    n = 0
    while not table.state.is_terminal() and (stop_after is None or n < stop_after):
        assert _wait(lambda: table.job is None, 10)
        p = table.state.current_players()[0]
        action = pick.choice([str(a) for a in table.state.legal_actions()])
        r = client.post(seats[str(p)] + "/act", json={"action": action, "version": table.version})
        assert r.status_code == 200, r.text
        n += 1
    return table


def test_a_pending_agent_move_resumes_on_restore(tmp_path, monkeypatch):
    body = dict(ruleset="beer_cards", players=3, agents=["human", "human", "random"], seed=9, params={"games": 1})
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    server, client = _server(tmp_path / "a")
    answer = _create(client, **body)
    table = server.tables[answer["table"]]
    with monkeypatch.context() as m:  # the server dies before its agents move
        m.setattr(TableServer, "schedule_agents", lambda self, table, delay=0.0, wait=True: None)
        pick = random.Random(5)
        while table.state.current_players()[0] != 2:
            p = table.state.current_players()[0]
            client.post(answer["seats"][str(p)] + "/act", json={"action": str(pick.choice(table.state.legal_actions())),
                                                                "version": table.version})
    waiting = table.version
    server.close()
    server2, client2 = _server(tmp_path / "a")
    table2 = server2.tables[answer["table"]]
    assert _wait(lambda: table2.version > waiting and table2.job is None)  # the agent moved on restore
    done = _play_people(client2, server2, answer["table"], answer["seats"], pick)
    # the same game played without a restart
    server3, client3 = _server(tmp_path / "b")
    again = _create(client3, **body)
    same = _play_people(client3, server3, again["table"], again["seats"], random.Random(5))
    assert done.record.actions == same.record.actions


def test_a_failed_write_is_retried_for_an_agent_and_refused_cleanly_for_a_person(tmp_path):
    server, client = _server(tmp_path)
    answer = _create(client, ruleset="tic_tac_toe", agents=["human", "random"], seed=3)
    table = server.tables[answer["table"]]
    real = server.store.record
    calls, failures = [], []

    def flaky(*args):  # the 1st write (the person's) and the 3rd (the agent's) fail
        calls.append(args)
        if len(calls) in (1, 3):
            failures.append(args)
            raise sqlite3.OperationalError("database is locked")
        return real(*args)

    server.store.record = flaky
    r = client.post(answer["seats"]["0"] + "/act", json={"action": "mark(4)", "version": 0})
    assert r.status_code == 503 and "nothing changed" in r.json()["error"] and table.version == 0
    assert "Traceback" not in r.text and "database is locked" not in r.text
    r = client.post(answer["seats"]["0"] + "/act", json={"action": "mark(4)", "version": 0})  # the agent's write fails next
    assert r.status_code == 200 and len(failures) == 2
    assert _wait(lambda: table.version == 2, 10)  # taken again after a pause
    assert [a for _, a in table.record.actions][0] == "mark(4)" and list(table.state.current_players()) == [0]


def test_finished_and_idle_tables_expire_and_the_creator_can_delete(tmp_path):
    server, client = _server(tmp_path, Limits(finished_ttl=60, idle_ttl=600))
    done = _create(client, ruleset="tic_tac_toe", agents=["human", "human"])
    idle = _create(client, ruleset="tic_tac_toe", agents=["human", "human"])
    kept = _create(client, ruleset="tic_tac_toe", agents=["human", "human"])
    for i, move in enumerate(["mark(0)", "mark(3)", "mark(1)", "mark(4)", "mark(2)"]):
        assert client.post(done["seats"][str(i % 2)] + "/act", json={"action": move}).status_code == 200
    assert server.tables[done["table"]].state.is_terminal()
    now = time.time()
    server.tables[kept["table"]].updated = now + 500
    assert server.sweep(now + 100) == 1 and done["table"] not in server.tables
    assert server.sweep(now + 700) == 1 and idle["table"] not in server.tables
    assert client.get(done["seats"]["0"]).text == FORBIDDEN
    # the creator's link asks first, then deletes; a wrong token or a seat's token cannot
    assert "Delete the table" in client.get(kept["delete"]).text
    assert client.post(kept["delete"][:-2] + "xx").status_code == 403
    assert client.post("/d/" + kept["table"] + "/" + kept["seats"]["0"].rsplit("/", 1)[1]).status_code == 403
    assert client.post(kept["delete"]).status_code == 200 and not server.tables
    assert client.get(kept["seats"]["0"] + "/view").text == FORBIDDEN
    assert SQLiteStore(str(tmp_path / "tables.sqlite")).load_all() == []


# -- 4 and 5. resources and input -------------------------------------------------------------------

_MALFORMED = [
    (b'{"ruleset": "tic_tac_toe", "agents": 5}', 400, "agents"),
    (b'{"ruleset": "tic_tac_toe", "variant": ["a"]}', 400, "variant"),
    (b'{"ruleset": "tic_tac_toe", "seed": Infinity}', 400, "Infinity"),
    (b'{"ruleset": "tic_tac_toe", "seed": NaN}', 400, "NaN"),
    (b'{"ruleset": "tic_tac_toe", "players": ' + b"9" * 5000 + b"}", 400, "too long"),
    (b'{"ruleset": "tic_tac_toe", "params": ' + b"[" * 3000 + b"]" * 3000 + b"}", 400, "nested too deeply"),
    (b'{"ruleset": "tic_tac_toe", "params": {"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}", 413, "limited to"),
    (b'{"ruleset": "tic_tac_toe", "players": 2.9}', 400, "players"),
    (b'{"ruleset": "tic_tac_toe", "seed": 1.5}', 400, "seed"),
    (b'{"ruleset": "tic_tac_toe", "seed": -1}', 400, "seed"),
    (b'{"ruleset": "tic_tac_toe", "seed": 18446744073709551616}', 400, "seed"),
    (b'{"ruleset": "tic_tac_toe", "players": true}', 400, "players"),
    (b'{"ruleset": "kuhn_poker", "params": {"ante": -1}}', 400, "at least 1"),
    (b'{"ruleset": "beer_cards", "params": {"games": 2.5}}', 400, "games must be like its default 3"),
    (b'{"ruleset": "beer_cards", "params": {"white_cards": ["a"]}}', 400, "white_cards must be like its default"),
    (b'{"ruleset": "beer_cards", "params": {"games": true}}', 400, "games must be like"),
    (b'{"ruleset": "tic_tac_toe", "variant": "huge"}', 400, "no variant"),
    (b'{"ruleset": "tic_tac_toe", "agents": ["human", "\\ud800"]}', 400, "not Unicode"),
    (b'{"ruleset": "tic_tac_toe", "owner": "me"}', 400, "owner"),
    (b'["tic_tac_toe"]', 400, "JSON object"),
    (b'{"ruleset": "tic_tac_toe"', 400, "not valid JSON"),
    (b'\xff\xfe', 400, "UTF-8"),
]


def _clean(r, status, words):
    text = r.text
    assert r.status_code == status and words in text, (status, words, r.status_code, text[:300])
    assert len(text) < 500 and "Traceback" not in text and str(ROOT) not in text and "/rulesets/" not in text


@pytest.mark.parametrize("body,status,words", _MALFORMED, ids=[w for _, _, w in _MALFORMED])
def test_a_malformed_table_request_gets_a_short_4xx(tmp_path, body, status, words):
    _, client = _server(tmp_path)
    _clean(client.post("/api/tables", content=body, headers={"Content-Type": "application/json"}), status, words)


def test_a_malformed_or_huge_action_gets_a_short_4xx_and_is_not_echoed(tmp_path):
    server, client = _server(tmp_path)
    seat = _create(client, ruleset="tic_tac_toe", agents=["human", "human"])["seats"]["0"]
    json_type = {"Content-Type": "application/json"}
    _clean(client.post(seat + "/act", content=b'{"action": "\\ud800"}', headers=json_type), 400, "not Unicode")
    _clean(client.post(seat + "/act", content=b'{"action": "mark(1)", "version": 1.5}', headers=json_type), 400, "version")
    _clean(client.post(seat + "/act", content=b'{"action": "mark(1)", "extra": 1}', headers=json_type), 400, "extra")
    _clean(client.post(seat + "/act", content=json.dumps({"action": "x" * 20_000_000}).encode(), headers=json_type), 413, "limited")
    _clean(client.post(seat + "/act", json={"action": "m" * 501}), 400, "too long")
    r = client.post(seat + "/act", json={"action": "q" * 499})  # legal length, not a legal action: cut in the answer
    _clean(r, 409, "not a legal action")
    assert "q" * 300 not in r.text
    _clean(client.post(seat + "/act", content=b'{"action": "mark(1)"}', headers={"Content-Type": "text/plain"}), 415, "JSON")
    assert server.tables[seat.split("/")[2]].version == 0


def test_content_type_and_origin_are_checked(tmp_path):
    server, client = _server(tmp_path)
    body = json.dumps({"ruleset": "tic_tac_toe"}).encode()
    _clean(client.post("/api/tables", content=body, headers={"Content-Type": "text/plain"}), 415, "JSON")
    for headers in ({"Origin": "http://evil.example"}, {"Origin": "null"}, {"Sec-Fetch-Site": "cross-site"}):
        r = client.post("/api/tables", content=body, headers={"Content-Type": "application/json", **headers})
        _clean(r, 403, "another site")
        r = client.post("/tables", data={"ruleset": "tic_tac_toe"}, headers=headers)
        _clean(r, 403, "another site")
    assert not server.tables
    same = client.post("/api/tables", content=body, headers={"Content-Type": "application/json", "Origin": "http://testserver"})
    assert same.status_code == 200
    seat = same.json()["seats"]["0"]
    r = client.post(seat + "/act", json={"action": "mark(4)"}, headers={"Origin": "http://evil.example"})
    _clean(r, 403, "another site")
    # another origin the operator allows may post
    allowed = TestClient(build_app(server, origins=("https://tables.example",)))
    assert allowed.post(seat + "/act", json={"action": "mark(4)"}, headers={"Origin": "https://tables.example"}).status_code == 200
    # a Host the server does not answer to (DNS rebinding) is refused when hosts are listed
    hosts = TestClient(build_app(server, allowed_hosts=["127.0.0.1"]), base_url="http://evil.example")
    assert hosts.get("/").status_code == 400


def test_the_database_is_readable_by_its_owner_only(tmp_path):
    server, client = _server(tmp_path)
    _create(client, ruleset="tic_tac_toe", agents=["human", "human"])
    for path in tmp_path.glob("tables.sqlite*"):
        assert path.stat().st_mode & 0o777 == 0o600, path
    old = tmp_path / "old.sqlite"
    old.write_bytes(b"")
    old.chmod(0o644)
    SQLiteStore(str(old)).close()
    assert old.stat().st_mode & 0o777 == 0o600


# -- a real server in its own process ---------------------------------------------------------------

class Served:
    """``tapster serve`` in a child process on a free loopback port."""

    def __init__(self, db: Path, *options: str):
        self.db, self.options = db, options
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]

    def start(self) -> Served:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen([sys.executable, "-m", "interpreter.cli", "serve", "--port", str(self.port), "--db", str(self.db),
                                      *self.options], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        line = self.proc.stdout.readline()
        assert "open http" in line, line + self.proc.stdout.read()
        assert _wait(self._answers, 30), "the server did not answer"
        return self

    def _answers(self) -> bool:
        try:
            return self.request("GET", "/")[0] == 200
        except OSError:
            return False

    def request(self, method, path, body=None, headers=None, source=None, timeout=10):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout, source_address=(source, 0) if source else None)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            return r.status, r.read().decode("utf-8", "replace")
        finally:
            conn.close()

    def post_json(self, path, data, **kw):
        status, text = self.request("POST", path, json.dumps(data).encode(), {"Content-Type": "application/json"}, **kw)
        return status, json.loads(text) if text.startswith("{") else text

    def memory(self) -> tuple[int, int]:
        """(resident, peak resident) in MB."""
        fields = dict(line.split(":", 1) for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines() if ":" in line)
        return int(fields["VmRSS"].split()[0]) // 1024, int(fields["VmHWM"].split()[0]) // 1024

    def stop(self, kill=False) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL if kill else signal.SIGINT)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.stdout.read()


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the server's memory from /proc")
def test_floods_of_bodies_params_and_connections_keep_the_server_small(tmp_path):
    srv = Served(tmp_path / "t.sqlite", "--request-timeout", "2", "--max-connections", "300",
                 "--connections-per-client", "150", "--tables-per-client", "20").start()
    try:
        # a 300 MB body announced: refused from its Content-Length, before it is read
        for _ in range(3):
            conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
            conn.putrequest("POST", "/api/tables")
            conn.putheader("Content-Type", "application/json")
            conn.putheader("Content-Length", str(300 * 1024 * 1024))
            conn.endheaders()
            try:
                conn.send(b"{" + b" " * (1024 * 1024))
            except OSError:
                pass
            r = conn.getresponse()
            assert r.status == 413 and b"limited to" in r.read()
            conn.close()
        # 20 MB sent chunked (no length): cut off after the limit
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        try:
            conn.request("POST", "/api/tables", body=(b"x" * 65536 for _ in range(320)),
                         headers={"Content-Type": "application/json"}, encode_chunked=True)
        except OSError:
            pass
        assert conn.getresponse().status == 413
        conn.close()
        # 300 distinct parameter values: twenty tables (the client's quota), then refused uncompiled
        answers = [srv.post_json("/api/tables", {"ruleset": "beer_cards", "agents": ["human", "human"],
                                                 "params": {"games": 1 + i % 9, "rounds": 1 + i // 9}})[0] for i in range(300)]
        assert answers.count(200) <= 20 and set(answers) <= {200, 400, 429} and 429 in answers
        # 300 half-open connections: the excess closed at once, the rest after the request timeout,
        # while another client (127.0.0.2) is still served
        half = []
        for _ in range(300):
            s = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            half.append(s)
        started = time.monotonic()
        assert srv.request("GET", "/", source="127.0.0.2")[0] == 200
        assert time.monotonic() - started < 3
        closed = 0
        for s in half:
            s.settimeout(max(0.1, 6 - (time.monotonic() - started)))
            try:
                closed += s.recv(16) == b""
            except (ConnectionResetError, TimeoutError):
                closed += 1 if s.fileno() != -1 else 0
            s.close()
        assert closed == 300
        assert srv.request("GET", "/")[0] == 200
        rss, peak = srv.memory()
        print(f"server memory after the floods: {rss} MB resident, {peak} MB at most")
        assert peak < 300, peak
    finally:
        out = srv.stop()
    assert "Traceback" not in out, out


def test_a_restarted_server_finishes_a_game_whose_agent_was_interrupted(tmp_path):
    db = tmp_path / "t.sqlite"
    srv = Served(db, "--max-agent-seconds", "1").start()
    try:
        status, answer = srv.post_json("/api/tables", {"ruleset": "tic_tac_toe", "agents": ["human", "mcts:seconds=0.8"]})
        assert status == 200, answer
        seat = answer["seats"]["0"]
        # the events stream and the pages never carry the seed
        sse = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
        sse.sendall(f"GET {seat}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        time.sleep(0.3)
        stream = sse.recv(65536).decode()
        sse.close()
        assert "data: 0" in stream
        def move():
            try:
                srv.post_json(seat + "/act", {"action": "mark(4)", "version": 0}, timeout=30)
            except OSError:
                pass  # the server is killed while it answers

        mover = threading.Thread(target=move, daemon=True)
        mover.start()
        assert _wait(lambda: _stored(db)[1] == 1, 10)
        time.sleep(0.2)  # the agent is thinking now
        srv.stop(kill=True)
    except BaseException:
        srv.stop(kill=True)
        raise
    settings, version = _stored(db)
    assert version == 1 and settings["seed"][8:] not in stream
    srv = Served(db, "--max-agent-seconds", "1").start()
    try:
        rs = load_ruleset("tic_tac_toe")
        while True:
            assert _wait(lambda: _stored(db)[1] % 2 == 0 or _finished(db, rs), 15), "the agent did not move after the restart"
            if _finished(db, rs):
                break
            st = _state(db, rs)
            status, body = srv.post_json(seat + "/act", {"action": str(st.legal_actions()[0]), "version": _stored(db)[1]}, timeout=30)
            assert status == 200, body
        status, page = srv.request("GET", seat + "/view")
        assert status == 200 and settings["seed"] in page  # shown once the game is over
    finally:
        out = srv.stop()
    assert "Traceback" not in out, out


def _stored(db: Path) -> tuple[dict, int]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        settings, version = con.execute("SELECT settings, version FROM tables").fetchone()
    return json.loads(settings), version


def _state(db: Path, rs):
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        (state,) = con.execute("SELECT state FROM tables").fetchone()
    return restore_state(rs, json.loads(state))


def _finished(db: Path, rs) -> bool:
    return _state(db, rs).is_terminal()


def test_no_server_path_reaches_a_client(tmp_path):
    path = str(ROOT / "rulesets" / "tic_tac_toe" / "ruleset.yaml")
    server = TableServer(SQLiteStore(str(tmp_path / "t.sqlite")), [path])
    client = TestClient(build_app(server, path))
    assert server.rulesets == ["tic_tac_toe"]  # a ruleset given as a path is offered by its name
    texts = [client.get("/").text, client.post("/api/tables", json={"ruleset": path}).text,
             client.post("/api/tables", json={"variant": "huge"}).text, client.post("/tables", data={"variant": "x"}).text]
    answer = _create(client, agents=["human", "human"])
    texts.append(client.get(answer["seats"]["0"]).text)
    assert all(str(ROOT) not in t and "/rulesets/" not in t for t in texts), texts
    assert "ruleset.yaml" not in texts[0] + texts[-1]  # the form and the pages name no file
    assert server.tables[answer["table"]].record.settings["ruleset"] == "tic_tac_toe"


def test_forwarded_addresses_are_believed_only_from_a_trusted_proxy(tmp_path):
    body = json.dumps({"ruleset": "tic_tac_toe"}).encode()

    def create(srv, forwarded, proto="http"):
        return srv.request("POST", "/api/tables", body, {"Content-Type": "application/json", "X-Forwarded-For": forwarded,
                                                         "X-Forwarded-Proto": proto, "Origin": f"{proto}://127.0.0.1:{srv.port}"})[0]

    srv = Served(tmp_path / "a.sqlite", "--tables-per-client", "1", "--trusted-proxy", "127.0.0.1").start()
    try:
        assert [create(srv, "10.0.0.1"), create(srv, "10.0.0.1"), create(srv, "10.0.0.2", "https")] == [200, 429, 200]
    finally:
        srv.stop()
    srv = Served(tmp_path / "b.sqlite", "--tables-per-client", "1").start()
    try:  # without --trusted-proxy the header is anyone's to write: the connection's address counts
        assert [create(srv, "10.0.0.1"), create(srv, "10.0.0.2")] == [200, 429]
    finally:
        srv.stop()
