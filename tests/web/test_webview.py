"""The browser table without a browser: a seat's HTML against observation leaks, the SQLite table
store, and the server's tokens, refusals and restart (Starlette's test client)."""

from __future__ import annotations

import json
import random
import re
import sqlite3
from html import escape, unescape

import pytest

from interpreter.engine.state import State
from interpreter.views.faces import face_of
from interpreter.views.render import view_observation
from interpreter.views.webview import seat_html
from interpreter.web.store import SQLiteStore, StaleTableError, TableRecord
from tests.conftest import coins_swapped, compiled

starlette = pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from interpreter.web.server import FORBIDDEN, TableServer, build_app  # noqa: E402

#: Every shipped ruleset, with a variant that keeps a game short (and shows its hidden parts).
GAMES = [
    ("tic_tac_toe", None), ("connect_four", None), ("beer_flights", "five_player"), ("beer_cards", None),
    ("drink_and_beat", "complex"), ("beer_knight", "speed"), ("belgian_beers_race", "short"), ("brewers_yard", None), ("brewhouse", None),
]


# -- what a seat may not see ------------------------------------------------------------------------

def _refs(value, out: set) -> None:
    """Component ids named anywhere in observation data (zones hold ids; values hold {"c": id})."""
    if isinstance(value, dict):
        if "c" in value and isinstance(value["c"], str):
            out.add(value["c"])
        for v in value.values():
            _refs(v, out)
    elif isinstance(value, list):
        for v in value:
            _refs(v, out)


def visible_ids(st: State, p: int) -> set[str]:
    """The components seat ``p`` may see now, from its observation."""
    rs = st.ruleset
    obs = st.observation(p)
    out: set = set()
    for z in obs["zones"].values():
        _collect_zone(z, out)
    _refs(obs["vars"], out)
    out.update(obs.get("props", {}))
    return {i for i in out if i in rs.by_id}


def _collect_zone(z, out: set) -> None:
    if isinstance(z, str):
        out.add(z)
    elif isinstance(z, list):
        for x in z:
            _collect_zone(x, out)


def hidden_from(st: State, p: int) -> list:
    """The components in a zone of the full state that seat ``p`` may not see (the other seats'
    hidden hands, the decks)."""
    seen = visible_ids(st, p)
    out = []
    for c in st.ruleset.components:
        if c.id not in seen and st.zone_of(c) is not None:
            out.append(c)
    return out


def known_looks(st: State, p: int) -> set[str]:
    """The kinds of card seat ``p`` knows lie in a zone whose order it does not know
    (``owner_contents``, ``public_contents``): the ids of their looks, from its observation."""
    out: set = set()

    def walk(z) -> None:
        if isinstance(z, dict):
            out.update(cid for cid, _ in z.get("contents", ()))
        elif isinstance(z, list):
            for x in z:
                walk(x)

    for z in st.observation(p)["zones"].values():
        walk(z)
    return out


def allowed_text(st: State, p: int) -> str:
    """Every text seat ``p`` may read: the labels of what it sees (and of the kinds it knows lie
    in a pile whose order it does not know), its account, its decision."""
    rs = st.ruleset
    obs = st.observation(p)
    looks = known_looks(st, p)
    parts = [rs.by_id[i].label for i in visible_ids(st, p) | looks] + st.visible_log(p)
    parts += [face_of(rs, i).short for i in looks if face_of(rs, i)]
    # what is printed on the cards p sees (their faces name other cards: "Pairing: Helles Hare")
    parts += [line for i in visible_ids(st, p) if face_of(rs, i) for line in (face_of(rs, i).title, face_of(rs, i).short,
                                                                                 *face_of(rs, i).lines)]
    parts += (obs.get("decision") or {}).get("labels", [])
    return "\n".join(parts)


def assert_no_leak(html: str, text: str, st: State, p: int) -> None:
    """``html``/``text`` (a page of seat ``p``) name no component hidden from ``p``: no id, no
    card, and no label that p could not have read elsewhere."""
    allowed = allowed_text(st, p)
    seen = visible_ids(st, p)
    for cid in re.findall(r'data-id="([^"]+)"', html):
        assert unescape(cid) in seen, f"P{p + 1}'s page shows the card {cid}, hidden from P{p + 1}"
    for c in hidden_from(st, p):
        assert f'"{c.id}"' not in html, f"P{p + 1}'s page names {c.id}, hidden from P{p + 1}"
        if c.label not in allowed and len(c.label) >= 4:
            assert c.label not in text, f"P{p + 1}'s page shows {c.label!r} ({c.id}), hidden from P{p + 1}"
        face = face_of(st.ruleset, c.id)  # a hidden card's face is never drawn (issue 27)
        if face is not None and face.short not in allowed:
            assert face.short not in text, f"P{p + 1}'s page shows the face of {c.id}, hidden from P{p + 1}"


def _text_of(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", " ", html))


@pytest.mark.parametrize("name,variant", GAMES)
def test_a_spectators_view_shows_what_every_seat_may_see_only(name, variant):
    """The spectator's page (issue 48) of every game at every step: no card hidden from any seat,
    no decision, only the public lines of the account; the whole state never."""
    from interpreter.views.spectator import public_log, public_observation

    rs = compiled(name, variant)
    rng = random.Random(5)
    st = rs.new_game(rs.min_players, seed=13, log=True)
    for _ in range(400):
        obs = public_observation(st)
        assert obs["player"] is None and "decision" not in obs
        html = seat_html(rs, obs, public_log(st))
        for p in range(st.num_players):
            assert_no_leak(html, _text_of(html), st, p)
        for line in {t for to, t in st.log if to is not None} - set(public_log(st)):  # lines for some seats only
            assert f"<li>{escape(line)}</li>" not in html
        if st.is_terminal():
            break
        st.apply(rng.choice(st.legal_actions()))
    assert st.is_terminal()


@pytest.mark.parametrize("name,variant", GAMES)
def test_seat_views_show_only_the_observation(name, variant):
    rs = compiled(name, variant)
    rng = random.Random(7)
    st = rs.new_game(rs.min_players, seed=11, log=True)
    hidden_somewhere = 0
    steps = 0
    while True:
        for p in range(st.num_players):
            html = seat_html(rs, view_observation(st, p), st.visible_log(p))
            assert_no_leak(html, _text_of(html), st, p)
            hidden_somewhere += len(hidden_from(st, p))
        if st.is_terminal() or steps > 400:
            break
        st.apply(rng.choice(st.legal_actions()))
        steps += 1
    assert st.is_terminal()
    final = seat_html(rs, view_observation(st, 0), st.visible_log(0))
    assert "Final scores" in final and "Game over" in final
    if name not in ("tic_tac_toe", "connect_four"):
        assert hidden_somewhere > 0, "the game hides nothing: the test would prove nothing"


def test_the_page_is_a_function_of_the_observation():
    # Drink & Beat's complex rules: the Boozy Troll coin is taken "without showing it to the enemy".
    # Two positions that differ only in P2's coin draw the same page for P1, and different ones for P2.
    rs, st, other, mine = coins_swapped()

    def page(state, p):
        return seat_html(rs, view_observation(state, p), state.visible_log(p))

    assert view_observation(st, 0) == view_observation(other, 0)
    assert page(st, 0) == page(other, 0)
    assert page(st, 1) != page(other, 1)
    assert mine.label in _text_of(page(st, 1))
    assert mine.label not in _text_of(page(st, 0))


def test_views_draw_grids_maps_tracks_and_hidden_piles():
    rs = compiled("belgian_beers_race", "short")
    st = rs.new_game(2, seed=3, log=True)
    html = seat_html(rs, view_observation(st, 0), st.visible_log(0))
    assert "<svg" in html and html.count('class="node"') == rs.maps["belgium"].graph.number_of_nodes()
    # the display's table: the Breathalyzer track from 0 to sleep_level, the decks face down
    assert 'class="track" data-var="breath"' in html and "hidden-pile" in html
    assert len(re.findall(r'class="space(?: on)?"', re.findall(r'data-var="breath".*?</section>', html)[0])) == 2 * 9
    ttt = compiled("tic_tac_toe")
    st = ttt.new_game(2, seed=0)
    st.apply("mark(4)")
    html = seat_html(ttt, view_observation(st, 1), st.visible_log(1))
    # the display's board of places: cell i at (i % 3, i // 3)
    assert html.count('class="cell"') == 9
    assert re.search(r'data-place="1,1"><div class="cell-line"><span class="part">X<', html)
    c4 = compiled("connect_four")
    st = c4.new_game(2, seed=0)
    st.apply("drop(2)")
    html = seat_html(c4, view_observation(st, 1), [])
    # column 3 (x = 2), bottom row (y = rows - 1 = 5): the discs lie at the bottom
    cells = re.findall(r'data-place="(\d),(\d)"><div class="cell-line"><span class="part">([^<]*)<', html)
    assert len(cells) == 42 and ("2", "5", "Red") in cells and sum(t == "Red" for _, _, t in cells) == 1


def test_ties_share_a_place():
    rs = compiled("tic_tac_toe")
    st = rs.new_game(2, seed=0)
    for a in ["mark(0)", "mark(1)", "mark(2)", "mark(4)", "mark(3)", "mark(5)", "mark(7)", "mark(6)", "mark(8)"]:
        st.apply(a)
    html = seat_html(rs, view_observation(st, 0), [])
    assert html.count('<td class="place">1 (shared)</td>') == 2


def test_labels_are_escaped():
    rs = compiled("tic_tac_toe")
    st = rs.new_game(2, seed=0, log=True)
    html = seat_html(rs, st.observation(0), ["<script>alert(1)</script>"])
    assert "<script>" not in html and "&lt;script&gt;" in html


# -- the store ------------------------------------------------------------------------------------

def test_store_commits_each_action_with_its_state(tmp_path):
    db = tmp_path / "t.sqlite"
    store = SQLiteStore(str(db))
    store.create(TableRecord("a", {"ruleset": "x"}, [None], {"n": 0}))
    store.record("a", 0, 0, "go", {"n": 1})
    with pytest.raises(StaleTableError):
        store.record("a", 0, 0, "again", {"n": 99})  # based on an old version: nothing written
    [rec] = SQLiteStore(str(db)).load_all()
    assert (rec.version, rec.state, rec.actions) == (1, {"n": 1}, [[0, "go"]])
    assert sqlite3.connect(str(db)).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


# -- the server -------------------------------------------------------------------------------------

def _server(tmp_path, name="tic_tac_toe"):
    server = TableServer(SQLiteStore(str(tmp_path / "tables.sqlite")))
    return server, TestClient(build_app(server, name))


def _create(client, **body):
    r = client.post("/api/tables", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def test_tokens_guard_every_seat(tmp_path):
    server, client = _server(tmp_path)
    t = _create(client, ruleset="beer_cards", players=2, agents=["human", "human"], seed=4)
    p1, p2 = t["seats"]["0"], t["seats"]["1"]
    tid = t["table"]
    token1 = p1.rsplit("/", 1)[1]
    assert len(token1) >= 43  # 256 bits
    wrong = [f"/t/{tid}/{token1[:-1]}x", f"/t/{tid}/", f"/t/{tid}", f"/t/nosuchtable/{token1}", f"/t/{tid}/{token1.upper()}"]
    for base in wrong:
        for suffix in ("", "/view", "/events"):
            r = client.get(base + suffix)
            assert r.status_code == 403 and r.text == FORBIDDEN, (base + suffix, r.status_code)
        r = client.post(base + "/act", json={"action": "stop", "version": 0})
        assert r.status_code == 403 and r.text == FORBIDDEN
    # P2's link shows P2's hand and none of P1's hidden cards (which P1's link shows)
    st = server.tables[tid].state
    v1, v2 = client.get(p1 + "/view").json()["html"], client.get(p2 + "/view").json()["html"]
    for c in st.zones["black_hand"][0]:
        assert c.id in v1 and c.id not in v2
    # one seat cannot act for another: the deciding seat's action sent with the other's token is refused
    seat = st.current_players()[0]
    other = t["seats"][str(1 - seat)]
    action = str(st.legal_actions()[0])
    r = client.post(other + "/act", json={"action": action, "version": 0})
    assert r.status_code == 409 and "not your turn" in r.json()["error"]
    assert server.tables[tid].version == 0
    # the tokens themselves are not stored, only their hashes
    raw = (tmp_path / "tables.sqlite").read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("*-wal"))
    assert token1.encode() not in raw


def test_illegal_and_stale_actions_change_nothing(tmp_path):
    server, client = _server(tmp_path)
    t = _create(client, ruleset="tic_tac_toe", agents=["human", "human"], seed=1)
    p1, p2 = t["seats"]["0"], t["seats"]["1"]
    table = server.tables[t["table"]]
    before = json.dumps(table.state.to_json())
    r = client.post(p1 + "/act", json={"action": "mark(9)", "version": 0})
    assert r.status_code == 409 and "not a legal action" in r.json()["error"]
    r = client.post(p1 + "/act", json={"action": "mark(4)", "version": 3})
    assert r.status_code == 409 and "out of date" in r.json()["error"]
    r = client.post(p1 + "/act", json="mark(4)")
    assert r.status_code == 400
    assert json.dumps(table.state.to_json()) == before and table.version == 0
    assert client.post(p1 + "/act", json={"action": "mark(4)", "version": 0}).json() == {"version": 1}
    # a second click on the same (now stale) view is refused
    r = client.post(p1 + "/act", json={"action": "mark(0)", "version": 0})
    assert r.status_code == 409
    assert client.post(p2 + "/act", json={"action": "mark(4)", "version": 1}).status_code == 409  # taken
    assert client.post(p2 + "/act", json={"action": "mark(0)", "version": 1}).status_code == 200
    assert [a for _, a in table.record.actions] == ["mark(4)", "mark(0)"]


def test_bad_tables_are_refused_clearly(tmp_path):
    _, client = _server(tmp_path)
    for body, words in [
        ({"ruleset": "chess"}, "not offered"),
        ({"ruleset": "tic_tac_toe", "variant": "huge"}, "variant"),
        ({"ruleset": "tic_tac_toe", "players": 5}, "players"),
        ({"ruleset": "tic_tac_toe", "agents": ["random", "random"]}, "person"),
        ({"ruleset": "tic_tac_toe", "agents": ["human", "genius"]}, "agent"),
        ({"ruleset": "tic_tac_toe", "params": {"nope": 1}}, "parameter"),
    ]:
        r = client.post("/api/tables", json=body)
        assert r.status_code == 400 and words in r.json()["error"], (body, r.text)
    r = client.post("/tables", data={"ruleset": "tic_tac_toe", "players": "many"})
    assert r.status_code == 400 and "whole numbers" in r.text


def test_tables_survive_a_restart_and_agents_play_on_the_same(tmp_path):
    # Beer Cards for three: two people and an agent.  One server is dropped in the middle of the
    # game and a new one restores the table from the database; the game goes on exactly as a
    # game played without a restart (agents are seeded per decision).
    def play(client, server, seats, rng, stop_after=None):
        n = 0
        table = next(iter(server.tables.values()))
        while not table.state.is_terminal() and (stop_after is None or n < stop_after):
            p = table.state.current_players()[0]
            action = rng.choice([str(a) for a in table.state.legal_actions()])
            r = client.post(seats[str(p)] + "/act", json={"action": action, "version": table.version})
            assert r.status_code == 200, r.text
            n += 1
        return table

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    server, client = _server(tmp_path / "a")
    body = dict(ruleset="beer_cards", players=3, agents=["human", "human", "random"], seed=9, params={"games": 1})
    seats = _create(client, **body)["seats"]
    rng = random.Random(3)
    half = play(client, server, seats, rng, stop_after=6)
    saved = json.dumps(half.state.to_json())
    server.store.close()
    server2 = TableServer(SQLiteStore(str(tmp_path / "a" / "tables.sqlite")))
    client2 = TestClient(build_app(server2))
    restored = next(iter(server2.tables.values()))
    assert json.dumps(restored.state.to_json()) == saved and restored.version == half.version
    done = play(client2, server2, seats, rng)
    assert done.state.is_terminal()
    # the same game without a restart
    server3, client3 = _server(tmp_path / "b")
    seats3 = _create(client3, **body)["seats"]
    again = play(client3, server3, seats3, random.Random(3))
    assert again.record.actions == done.record.actions
    assert json.dumps(again.state.to_json()) == json.dumps(done.state.to_json())


def test_a_port_in_use_is_a_clear_error(tmp_path):
    import socket
    import subprocess
    import sys

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "interpreter.cli", "serve", "--port", str(port), "--db", str(tmp_path / "t.sqlite")],
                           capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and f"port {port} on 127.0.0.1 is in use" in r.stderr and "Traceback" not in r.stderr


# -- click-to-act (issue 27) ---------------------------------------------------------------------------


@pytest.mark.parametrize("name,variant", [("drink_and_beat", None), ("beer_knight", None), ("beer_flights", None),
                                          ("belgian_beers_race", "short"), ("little_railways", None),
                                          ("drink_and_beat", "complex")])
def test_table_things_carry_the_actions_naming_them(name, variant):
    from interpreter.views.webview import _args, table_acts

    rs = compiled(name, variant)
    rng = random.Random(3)
    st = rs.new_game(rs.min_players, seed=3, log=True)
    routes = {c.id for gm in rs.maps.values() for _, _, c in gm.graph.edges(data="component") if c is not None}
    attached = 0
    for _ in range(60):
        if st.is_terminal():
            break
        p = st.current_players()[0]
        obs = view_observation(st, p)
        html = seat_html(rs, obs, [])
        texts = [str(a) for a in st.legal_actions()]
        seen = visible_ids(st, p)
        # option -> the items carrying it; (option, item) -> the argument its actions must have there
        attached_to: dict[str, set[str]] = {}
        arg_at: dict[tuple[str, str], str] = {}
        for item in obs["display"].get("table") or []:
            for opt in item.get("acts") or ():
                if isinstance(opt, dict):
                    arg_at[(opt["option"], item["name"])] = opt["arg"]
                    opt = opt["option"]
                attached_to.setdefault(opt, set()).add(item["name"])
        sided = set((obs["display"].get("board") or {}).get("side_acts") or ())
        for thing, idx in table_acts(rs, obs).items():
            if thing.startswith(("zone:", "var:", "side:")):
                # a pile, a group, a track or counter, or a side of the board the display attaches these options to
                for i in idx:
                    opt = texts[i].split("(")[0]
                    if thing.startswith("side:"):
                        assert opt in sided and texts[i].startswith(f"{opt}({thing[5:]}"), (thing, texts[i])
                    elif thing.startswith("var:"):
                        assert thing[4:] in attached_to.get(opt, ()), (thing, texts[i])
                        assert arg_at.get((opt, thing[4:]), None) in (None, *_args(texts[i])), (thing, texts[i])
                    else:
                        _, zone, *group = thing.split(":")
                        assert zone in attached_to.get(opt, ()), (thing, texts[i])
                        assert arg_at.get((opt, zone), None) in (None, *_args(texts[i])), (thing, texts[i])
                        assert not group or texts[i].startswith(f"{opt}({group[0]}"), (thing, texts[i])
                continue
            # only things the seat sees (a card's id, a place, a map's node or route: the map is public),
            # and only actions naming them
            node = thing[5:] if thing.startswith("node:") else None
            assert (thing in seen or re.fullmatch(r"-?\d+,-?\d+", thing) or thing in routes
                    or any(node in gm.graph for gm in rs.maps.values()))
            for i in idx:
                named = ((node or thing) in re.split(r"[(),\s]+", texts[i])
                         or f"({thing.replace(',', ', ')})" in texts[i])
                assert named, (thing, texts[i])
        # what the page attaches: a card (data-id) or a place (data-place) with the actions naming it
        acts = table_acts(rs, obs)
        for kind, thing, attr in re.findall(r'data-(id|place|node|route)="([^"]+)"[^>]*?data-acts="([^"]+)"', html):
            got = [int(i) for i in attr.split()]
            if kind == "place":  # a board's place: the actions naming it, and those naming a component the seat sees there
                board_zone = obs["zones"].get((obs["display"].get("board") or {}).get("zone") or "") or []
                there: set = set()
                for k, ids in board_zone:
                    if k.get("t") == [int(v) for v in thing.split(",")]:
                        _collect_zone(ids, there)
                expect = set(acts.get(thing, ())) | {i for t in there for i in acts.get(t, ())}
                assert set(got) == expect and set(acts.get(thing, ())) <= set(got), (thing, got, expect)
            else:
                assert got == acts[("node:" if kind == "node" else "") + unescape(thing)]
            attached += 1
        # every control on the table is one of the seat's own options, by its label's words
        labels = obs["decision"]["labels"] if obs.get("decision") else []
        for attr, text in re.findall(r'<span class="control actionable" tabindex="0" data-acts="([^"]+)">([^<]*)</span>', html):
            words = [w for w in unescape(text).split() if w != "…"]
            assert all(all(w in labels[int(i)] for w in words) for i in attr.split()), (text, attr)
        for other in range(st.num_players):  # another seat's page attaches nothing
            if other != p:
                assert "data-acts" not in seat_html(rs, view_observation(st, other), [])
        st.apply(rng.choice(st.legal_actions()))
    assert attached > 10
