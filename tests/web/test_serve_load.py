"""The browser table under load (issue 44): the six breaks of the second red team, each now
failing cleanly, on loopback only and bounded in count and time.

1. An agent's move ends by ``--max-agent-seconds`` whatever its iterations (the search's deadline).
2. Event streams are a budget of their own (per client, in all, a lifetime), half-open and idle
   connections are bounded per client (an IPv6 client by its /64) and give way to new clients.
3. Refusals are cheap: parameters' YAML is checked as it is read, player counts before compiling,
   refused configurations remembered, and a client's refusals charged against its CPU budget.
4. The table cap has a share per network (IPv4 /24, IPv6 /48) and says so.
5. The database and its -wal, -shm and -journal files are set to mode 600 on start.
6. Stored tables are re-checked at start: agents lowered to today's limits (the page says so), and
   a table with an old 64-bit seed says on every seat's page that its hidden cards are not
   protected by a secure seed.
"""

from __future__ import annotations

import asyncio
import json
import select
import socket
import sqlite3
import threading
import time

import pytest

from interpreter.compile.compiler import load_ruleset
from interpreter.web.store import SQLiteStore, TableRecord

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
from starlette.testclient import TestClient  # noqa: E402

from interpreter.agents import search  # noqa: E402
from interpreter.web import tables as tables_mod  # noqa: E402
from interpreter.web.guards import StreamBudget, lower_agent, parse_params_text, token_hash  # noqa: E402
from interpreter.web.server import Limits, TableServer, build_app, guarded_protocol  # noqa: E402
from interpreter.web.tables import WEAK_SEED_NOTE, TooMany  # noqa: E402

from ..agents.test_search_deadline import _Clock  # noqa: E402
from .test_serve_security import Served, _wait  # noqa: E402


def _server(tmp_path, limits: Limits | None = None):
    server = TableServer(SQLiteStore(str(tmp_path / "tables.sqlite")), limits=limits)
    return server, TestClient(build_app(server))


# -- 1. an agent's move is bounded in time -----------------------------------------------------------

def test_a_served_agent_with_5000_iterations_moves_within_the_deadline(tmp_path, monkeypatch):
    """The server gives its agent the deadline and the agent keeps it.  The search reads a clock
    that moves 13 ms an iteration (``_Clock``), so the cut is exact on a loaded machine; the
    commit is timed on the real clock, loosely (5,000 iterations would take minutes)."""
    limit = 0.5
    moves = []
    clock = _Clock()
    real_iterate, real_make = search._Search._iterate, tables_mod.make_agent

    def timed_iterate(self, *args, **kw):
        try:
            return real_iterate(self, *args, **kw)
        finally:
            clock.now += 0.013

    def make(spec, seed):
        agent = real_make(spec, seed)
        act = agent.act

        def timed_act(state, player):
            started = clock.now
            try:
                return act(state, player)
            finally:
                moves.append((clock.now - started, agent.last_iterations, agent.cut))

        agent.act = timed_act
        return agent

    monkeypatch.setattr(search, "time", clock)
    monkeypatch.setattr(search._Search, "_iterate", timed_iterate)
    monkeypatch.setattr(tables_mod, "make_agent", make)
    server, _ = _server(tmp_path, Limits(max_agent_seconds=limit))
    table, _ = server.create("belgian_beers_race", None, 3, ["human", "ismcts:iterations=5000"], seed=1, client="10.0.0.1")
    assert table.state.current_players() == (1,)  # the agent moves first
    started = time.monotonic()
    server.schedule_agents(table)
    assert _wait(lambda: table.version >= 1, 30)
    took, iterations, cut = moves[0]
    # checked between iterations: the 39th ends at 507 ms, the first past the deadline
    assert cut and iterations == 39 and took == pytest.approx(0.507)
    assert time.monotonic() - started < 30  # committed once the move is made
    server.close()


# -- 2. long-lived and half-open connections -----------------------------------------------------------

class _Transport(asyncio.Transport):
    """A connection's transport as uvicorn's protocol sees it (no socket)."""

    def __init__(self, peer):
        super().__init__()
        self.peer, self.closed = peer, False

    def get_extra_info(self, name, default=None):
        return {"peername": self.peer, "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def is_closing(self):
        return self.closed

    def close(self):
        self.closed = True

    def write(self, data):
        pass


def _connections(**kw):
    """A factory of guarded connections sharing one server state, and the open ones."""
    import uvicorn
    from uvicorn.server import ServerState

    async def app(scope, receive, send):  # never called: no request is sent
        raise AssertionError

    loop = asyncio.new_event_loop()
    config = uvicorn.Config(app, log_level="warning")
    state = ServerState()
    protocol = guarded_protocol(**kw)

    def connect(address, busy=False):
        conn = protocol(config, state, {}, _loop=loop)
        conn.connection_made(_Transport((address, 40000 + len(state.connections))))
        if busy:  # in a request (or an event stream): not waiting
            conn.cycle = type("Cycle", (), {"response_complete": False, "more_body": False, "response_started": True})()
        return conn

    return connect, loop


def test_the_connection_guard_counts_ipv6_by_64_and_bounds_waiting_connections():
    connect, loop = _connections(max_connections=100, request_timeout=10, per_client=3)
    try:
        same = [connect(f"2001:db8:1:2::{i}") for i in range(1, 5)]  # one /64, four addresses
        assert [c.transport.closed for c in same] == [False, False, False, True]
        assert not connect("2001:db8:1:3::1").transport.closed  # the next /64 is another client
    finally:
        loop.close()
    # a client that reconnects keeps at most idle_per_client waiting connections: its oldest go
    connect, loop = _connections(max_connections=100, request_timeout=10, per_client=50, idle_per_client=2)
    try:
        slow = [connect("10.0.0.1") for _ in range(6)]
        assert [c.transport.closed for c in slow] == [True, True, True, True, False, False]
        streams = [connect("10.0.0.1", busy=True) for _ in range(3)]
        assert not any(c.transport.closed for c in streams)
        assert not connect("10.0.0.1").transport.closed and slow[4].transport.closed and not any(c.transport.closed for c in streams)
    finally:
        loop.close()
    # a full server: a newcomer closes the oldest waiting connection of the client with the most
    connect, loop = _connections(max_connections=6, request_timeout=10, per_client=50)
    try:
        a = [connect("10.0.0.1") for _ in range(3)]
        b = [connect("10.0.0.2", busy=True) for _ in range(2)] + [connect("10.0.0.2")]
        newcomer = connect("10.0.0.3")
        assert not newcomer.transport.closed and a[0].transport.closed and not any(c.transport.closed for c in a[1:] + b)
        newcomer.cycle = b[0].cycle
        c = connect("10.0.0.4")
        assert not c.transport.closed and a[1].transport.closed
        for conn in a[2:] + b[2:] + [c]:
            conn.cycle = b[0].cycle
        late = connect("10.0.0.5")  # every slot in a request: the newcomer is refused, nobody cut
        assert late.transport.closed and not any(x.transport.closed for x in a[2:] + b + [newcomer, c])
    finally:
        loop.close()


def test_event_streams_are_a_budget_of_their_own():
    assert Limits().stream_cap == 100 and Limits(max_streams=500).stream_cap == 150  # never the last quarter
    assert Limits(max_connections=3, max_streams=3).stream_cap == 2
    budget = StreamBudget(total=3, per_client=2)
    assert budget.open("a") is None and budget.open("a") is None
    assert "2 live updates" in budget.open("a")
    assert budget.open("b") is None and "3 live updates" in budget.open("c")
    budget.close("a")
    assert budget.open("c") is None and budget.count() == 3 and budget.count("a") == 1


def test_an_event_stream_ends_after_its_lifetime_and_is_capped_per_client(tmp_path):
    server, client = _server(tmp_path, Limits(stream_seconds=1.0, streams_per_client=1))
    answer = client.post("/api/tables", json={"ruleset": "tic_tac_toe", "agents": ["human", "human"]}).json()
    link = answer["seats"]["0"] + "/events"
    held = {}

    def hold():
        started = time.monotonic()
        held["response"] = client.get(link)
        held["took"] = time.monotonic() - started

    holder = threading.Thread(target=hold)
    holder.start()
    assert _wait(lambda: client.app.state.streams.count() == 1, 5)
    second = client.get(answer["seats"]["1"] + "/events")  # the same client: its one stream is open
    assert second.status_code == 429 and "live updates open" in second.json()["error"]
    holder.join(10)
    assert held["response"].status_code == 200 and "data: 0" in held["response"].text
    assert "deleted" not in held["response"].text and 0.9 <= held["took"] < 5  # its lifetime, then the page reconnects
    assert client.app.state.streams.count() == 0
    open_then = None
    with client.stream("GET", link) as r:  # a page closed while its stream is open gives its place back
        assert r.status_code == 200
        for line in r.iter_lines():
            if line.startswith("data: 0"):
                open_then = client.app.state.streams.count()
                break
    assert open_then == 1 and _wait(lambda: client.app.state.streams.count() == 0, 5)
    server.close()


def test_a_fifth_client_is_served_while_four_hold_their_streams_and_half_open_connections(tmp_path):
    # the default limits (200 connections, 64 a client, 16 streams a client, 8 waiting a client), but
    # no half-open connection timed out while the test runs
    srv = Served(tmp_path / "t.sqlite", "--request-timeout", "30").start()
    held = []
    try:
        status, answer = srv.post_json("/api/tables", {"ruleset": "tic_tac_toe", "agents": ["human", "human"]})
        assert status == 200, answer
        seat = answer["seats"]["0"]
        for k in range(2, 6):  # four client addresses, each at its cap of streams, and more half-open ones
            source = f"127.0.0.{k}"
            answers = []
            for _ in range(18):
                s = socket.create_connection(("127.0.0.1", srv.port), timeout=5, source_address=(source, 0))
                s.sendall(f"GET {answer['seats']['1']}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
                answers.append(s.recv(4096).decode("latin-1").split("\r\n", 1)[0])
                held.append(s)
            assert answers.count("HTTP/1.1 200 OK") == 16 and answers.count("HTTP/1.1 429 Too Many Requests") == 2, answers
            slow = []
            for _ in range(20):
                s = socket.create_connection(("127.0.0.1", srv.port), timeout=5, source_address=(source, 0))
                s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
                slow.append(s)
            held += slow
            closed = 0
            for s in slow[:12]:  # all but the newest 8 (--idle-per-client) closed by the server at once
                s.settimeout(3)
                try:
                    closed += s.recv(16) == b""
                except ConnectionResetError:
                    closed += 1
                except TimeoutError:
                    pass
            assert closed == 12 and select.select(slow[12:], [], [], 0.2)[0] == [], closed  # the newest 8 still open
        started = time.monotonic()
        status, page = srv.request("GET", seat, source="127.0.0.6")
        assert status == 200 and "tic" in page.lower()
        status, moved = srv.post_json(seat + "/act", {"action": "mark(4)", "version": 0}, source="127.0.0.6")
        assert status == 200 and moved == {"version": 1}
        assert time.monotonic() - started < 1.0
    finally:
        for s in held:
            s.close()
        out = srv.stop()
    assert "Traceback" not in out, out


# -- 3. refusals are cheap, and counted ------------------------------------------------------------

def _bomb(i: int) -> str:
    levels = ["&a0 [" + ",".join(["x"] * 9) + "]"] + [f"&a{n} [" + ",".join([f"*a{n - 1}"] * 9) + "]" for n in range(1, 9)]
    return f"p{i}=[" + ",".join(levels) + "]"


def test_parameters_yaml_is_checked_as_it_is_read():
    for text, words in [(_bomb(0), "anchors and aliases"), ("a=&x 1", "anchors and aliases"), ("a={b: 1}", "not a mapping"),
                        ("a=[[1]]", "not a list of lists")]:
        with pytest.raises(Exception, match=words):
            parse_params_text(text)
    with pytest.raises(Exception, match="a list of at most 64 items"):
        parse_params_text("a=[" + ",".join(["1"] * 1900) + "]")
    with pytest.raises(Exception, match="at most 32"):
        parse_params_text("\n".join(f"p{i}={i}" for i in range(33)))
    assert len(parse_params_text("\n".join(f"p{i}=[" + ",".join(["1"] * 64) + "]" for i in range(20)))) == 20
    assert parse_params_text("turns=5\nnames=[a, b]") == {"turns": 5, "names": ["a", "b"]}


def _cpu_of(requests) -> float:
    started = time.process_time()
    for r in requests:
        r()
    return time.process_time() - started


def test_refused_requests_cost_at_most_a_tenth_of_a_second_of_cpu_each(tmp_path, monkeypatch):
    server, client = _server(tmp_path, Limits(creations_per_hour=1000, tables_per_client=1000))
    for name in ("beer_knight",):  # the base ruleset, compiled once for every table
        assert client.post("/api/tables", json={"ruleset": name, "agents": ["human", "human"]}).status_code == 200
    compiled = []
    real = tables_mod.load_ruleset
    monkeypatch.setattr(tables_mod, "load_ruleset", lambda *a: compiled.append(a) or real(*a))
    answers = []

    def post(path, **kw):
        def go():
            r = client.post(path, **kw)
            answers.append((r.status_code, r.text))
        return go

    # an alias bomb in the parameters' text (the form's field, here through the API), refused as it is read
    cpu = _cpu_of([post("/api/tables", json={"ruleset": "beer_knight", "params": _bomb(i)}) for i in range(50)])
    assert all(s == 400 and "anchors and aliases" in t for s, t in answers), answers[:2]
    assert cpu / 50 <= 0.1 and compiled == [], cpu
    # distinct variants with a wrong player count: refused from the declarations, nothing compiled
    answers.clear()
    names = list(server.ruleset({"ruleset": "beer_knight"}).variants)
    combos = [f"{a},{b}" for a in names for b in names if a != b and "tag_teams" not in (a, b)]
    assert len(combos) >= 50
    cpu = _cpu_of([post("/api/tables", json={"ruleset": "beer_knight", "variant": combos[i], "players": 3}) for i in range(50)])
    assert compiled == [] and all(s == 400 and "2 to 2 players, not 3" in t for s, t in answers), answers[:2]
    assert cpu / 50 <= 0.1, cpu
    # a parameter whose setup runs over the step budget: compiled and tried until the client's
    # refusals used their CPU, then refused before any work
    answers.clear()
    cpu = _cpu_of([post("/api/tables", json={"ruleset": "beer_knight", "agents": ["human", "human"], "params": {"deal": 100_000 + i}})
                   for i in range(50)])
    statuses = [s for s, _ in answers]
    assert statuses[0] == 400 and "step budget" in answers[0][1] and 429 in statuses and set(statuses) == {400, 429}
    assert "refused requests used this server's CPU" in answers[-1][1]
    assert len(compiled) == statuses.count(400) < 50 and cpu / 50 <= 0.1, (cpu, statuses.count(400))
    # another client is not refused for it
    other = TestClient(build_app(server), client=("10.9.9.9", 1))
    assert other.post("/api/tables", json={"ruleset": "beer_knight", "agents": ["human", "human"]}).status_code == 200
    server.close()


def test_a_refused_configuration_is_answered_again_without_the_work_and_counts_in_the_quota(tmp_path, monkeypatch):
    server, client = _server(tmp_path, Limits(creations_per_hour=5))
    compiled = []
    real = tables_mod.load_ruleset
    monkeypatch.setattr(tables_mod, "load_ruleset", lambda *a: compiled.append(a) or real(*a))
    body = {"ruleset": "kuhn_poker", "agents": ["human", "human"], "params": {"ante": 5000}}
    first = client.post("/api/tables", json=body)
    assert first.status_code == 400 and compiled
    compiled.clear()
    for _ in range(3):
        again = client.post("/api/tables", json=body)
        assert again.status_code == 400 and again.json() == first.json()
    assert compiled == []  # remembered, not compiled again
    bomb = client.post("/api/tables", json={"ruleset": "kuhn_poker", "params": _bomb(1)})  # parameters that cannot be read
    assert bomb.status_code == 400 and "anchors and aliases" in bomb.text
    r = client.post("/api/tables", json={"ruleset": "kuhn_poker", "agents": ["human", "human"]})
    assert r.status_code == 429 and "in the last hour" in r.json()["error"]  # five refusals used the hour's five
    server.close()


# -- 4. the table cap has a share per network --------------------------------------------------------

def test_the_table_cap_has_a_share_per_network_and_says_so(tmp_path):
    server, _ = _server(tmp_path, Limits(tables_per_network=2, tables_per_client=5, max_tables=7))
    for group in (["10.1.2.1", "10.1.2.2", "10.1.2.3"], ["2001:db8:5:1::1", "2001:db8:5:2::1", "2001:db8:5:ffff::9"]):
        for address in group[:2]:
            server.create("tic_tac_toe", None, None, ["human"], client=address)
        with pytest.raises(TooMany, match=r"your network holds 2 tables here already .*IPv4 /24 or IPv6 /48"):
            server.create("tic_tac_toe", None, None, ["human"], client=group[2])
    server.create("tic_tac_toe", None, None, ["human"], client="10.1.3.1")  # the next /24
    server.create("tic_tac_toe", None, None, ["human"], client="2001:db8:6::1")  # the next /48
    server.create("tic_tac_toe", None, None, ["human"], client="10.1.4.1")
    client = TestClient(build_app(server), client=("10.1.5.1", 1))
    r = client.post("/api/tables", json={"ruleset": "tic_tac_toe"})
    assert r.status_code == 429 and "holds 7 tables already" in r.json()["error"] and "one network may hold 2" in r.json()["error"]
    server.close()


# -- 5. the database's files are private ------------------------------------------------------------

def test_the_wal_shm_and_journal_files_of_an_older_server_are_made_private(tmp_path):
    db = tmp_path / "old.sqlite"
    older = sqlite3.connect(db)  # an older server left its WAL behind, readable by all
    older.execute("PRAGMA journal_mode=WAL")
    older.execute("CREATE TABLE t (x)")
    older.execute("INSERT INTO t VALUES ('a hidden hand')")
    older.commit()
    (tmp_path / "old.sqlite-journal").write_bytes(b"")
    files = [db, tmp_path / "old.sqlite-wal", tmp_path / "old.sqlite-shm", tmp_path / "old.sqlite-journal"]
    for path in files:
        assert path.exists(), path
        path.chmod(0o644)
    store = SQLiteStore(str(db))
    try:
        for path in files:
            assert path.stat().st_mode & 0o777 == 0o600, path
    finally:
        store.close()
        older.close()


# -- 6. stored tables are checked again at start ------------------------------------------------------

def test_stored_tables_are_brought_within_todays_limits_and_old_seeds_are_said(tmp_path):
    path = str(tmp_path / "tables.sqlite")
    store = SQLiteStore(path)
    rs = load_ruleset("beer_cards")
    tokens = {0: "seat-zero-token", 1: "seat-one-token"}
    agents = ["human", "human", "mcts:iterations=1000000:depth=1000000:seconds=86400"]
    st = rs.new_game(3, seed=123456789, log=True)
    settings = {"ruleset": "beer_cards", "variant": None, "params": {}, "players": 3, "agents": agents, "seed": 123456789}
    store.create(TableRecord("old", settings, [token_hash(tokens[0]), token_hash(tokens[1]), None], st.to_json()))
    store.close()
    server, client = _server(tmp_path, Limits(max_agent_iterations=200, max_agent_seconds=1.0))
    table = server.tables["old"]
    lowered = table.record.settings["agents"][2]
    assert lowered == "mcts:iterations=200:depth=10000:seconds=1"
    assert json.loads(sqlite3.connect(path).execute("SELECT settings FROM tables").fetchone()[0])["agents"][2] == lowered
    for token in tokens.values():
        for text in (client.get(f"/t/old/{token}").text, client.get(f"/t/old/{token}/view").json()["html"]):
            assert WEAK_SEED_NOTE in text and "its agents think less now" in text and "P3 mcts:iterations=1000000" in text
    fresh = client.post("/api/tables", json={"ruleset": "beer_cards", "agents": ["human", "human"]}).json()
    page = client.get(fresh["seats"]["0"]).text
    assert WEAK_SEED_NOTE not in page and "think less" not in page
    server.close()
    # a table within the limits is left as it was
    assert lower_agent("mcts:iterations=50", Limits()) == "mcts:iterations=50"
    assert lower_agent("ismcts", Limits(max_agent_iterations=100)) == "ismcts:iterations=100"
    assert lower_agent("random", Limits()) == "random"
