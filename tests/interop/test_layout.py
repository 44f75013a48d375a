"""The observation tensor laid out from the declarations (issue 46): the same size whatever
``explore``, every visible variable in every tensor, one-hot where the domain is known, only what
the seat may see, printed by ``tapster info --tensor``; factored actions."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from interpreter import available_rulesets
from interpreter.cli import cli, main
from interpreter.engine.rng import Rng
from interpreter.interop.encoding import Encoding, EncodingError, FactoredActions, new_state
from interpreter.interop.layout import LAYOUT_VERSION, TensorLayout

from ..conftest import all_configurations, compiled

SHIPPED = available_rulesets()


@pytest.mark.parametrize(("name", "variant"), all_configurations())
def test_the_tensor_has_one_size_whatever_explore(name, variant):
    rs = compiled(name, variant)
    n = rs.default_players
    few, more = Encoding(rs, n, games=1, seed=0), Encoding(rs, n, games=2, seed=5)
    assert few.tensor_size == more.tensor_size == TensorLayout(few.ruleset, n).size
    assert few.info_tensor_size == more.info_tensor_size
    assert [p[:3] for p in few.layout.parts] == [p[:3] for p in more.layout.parts]


def _walk(enc: Encoding, seed: int, every: int = 1):
    """The states of one random game of ``enc`` (chance drawn from ``seed``), every ``every``-th."""
    st = new_state(enc, seed)
    rng = Rng(seed)
    step = 0
    while True:
        if step % every == 0:
            yield st
        step += 1
        if st.finished:
            return
        if st.is_chance():
            st.apply(st.sample_chance(rng))
            continue
        legal = st.legal_actions()
        st.apply(legal[rng.below(len(legal))])


def test_every_visible_variable_is_in_every_sampled_tensor():
    # 10,000 observations across the shipped rulesets, one seat's each: the slice of every
    # variable and property a seat may see determines its value in that seat's JSON observation
    # (two different values never share a slice: nothing is dropped or cut), and the one-hot
    # parts of the header hold one seat
    sampled = 0
    per_ruleset = 10_000 // len(SHIPPED) + 1
    for name in SHIPPED:
        rs = compiled(name)
        n = rs.default_players
        enc = Encoding.of(rs, n, 1)
        lay = enc.layout
        parts = {p[0]: (p[1], p[1] + p[2]) for p in lay.parts}
        seen: dict[tuple, dict] = {}
        taken, seed = 0, 0
        while taken < per_ruleset:
            for st in _walk(enc, seed, every=2):
                p = taken % n
                obs = st.observation(p)
                t = enc.observation_tensor(st, p)
                assert t[parts["seat"][0] + p] == 1 and t.shape == (enc.tensor_size,)
                for name_, _per, _vis, _start, _enc in lay.var_parts:
                    value = obs["vars"][name_]
                    places = [(f"vars.{name_}[{q}]", value[q]) for q in range(n)] if rs.vars[name_].per_player else [
                        (f"vars.{name_}", value)]
                    for part, v in places:
                        a, b = parts[part]
                        seen.setdefault((name, part), {}).setdefault(t[a:b].tobytes(), set()).add(json.dumps(v, sort_keys=True))
                for cid, props in (obs.get("props") or {}).items():
                    for prop, v in props["d"]:  # a property record, as encode_value writes a dict
                        a, b = parts[f"props.{cid}.{prop}"]
                        seen.setdefault((name, cid), {}).setdefault(t[a:b].tobytes(), set()).add(json.dumps(v, sort_keys=True))
                taken += 1
                if taken >= per_ruleset:
                    break
            seed += 1
        sampled += taken
        hidden = {v for v, d in rs.vars.items() if d.visibility == "hidden"}
        assert {part for (r, part) in seen if r == name and part.startswith("vars.")} >= {
            f"vars.{v}" + ("[0]" if rs.vars[v].per_player else "") for v in rs.vars if v not in hidden}, name
    assert sampled >= 10_000
    clashes = {key: sorted(vals)[:3] for key, by_slice in seen.items() for vals in by_slice.values() if len(vals) > 1}
    assert not clashes, clashes


def test_known_domains_are_one_hot():
    enc = Encoding.of(compiled("tic_tac_toe"), 2, 1)
    parts = {p[0]: p for p in enc.layout.parts}
    _, start, size, what, encoding = parts["vars.board"]
    assert (size, what, encoding) == (18, "list[9] of seat", "9 × one-hot seat")
    st = new_state(enc, 0)
    st.apply(st.legal_actions()[4])  # X in the centre
    t = enc.observation_tensor(st, 1)
    board = t[start:start + size].reshape(9, 2)
    assert board[4].tolist() == [1.0, 0.0] and board.sum() == 1  # cell 4 holds seat 0; empty cells all 0
    assert t[parts["turns"][1]:parts["turns"][1] + 2].tolist() == [1.0, 1.0]  # the turn counters the string carries
    assert t[parts["current"][1] + 1] == 1.0
    for cell in (0, 3, 1, 5):  # X takes the middle row: the outcome is in the tensor
        st.apply(next(a for a in st.legal_actions() if a.args == (cell,)))
    t = enc.observation_tensor(st, 1)

    def part(name):
        return t[parts[name][1]:parts[name][1] + parts[name][2]].tolist()
    assert (part("finished"), part("scores"), part("winners"), part("ranks")) == ([1.0], [1.0, -1.0], [1.0, 0.0], [1.0, 2.0])
    assert part("deciding") == [0.0, 0.0] and part("vars.winner") == [1.0, 0.0]
    kinds = {name: encoding for name, _s, _k, _w, encoding in Encoding.of(compiled("beer_knight"), 2, 1).layout.parts}
    assert kinds["vars.caller"] == "one-hot seat" and kinds["vars.rolled"] == "one-hot [false, true]"
    # a list of any component, laid out as a zone is: its length, then each component's place + 1
    assert kinds["vars.petrified"] == ("length, then per component (barony, card, challenge: 120): its place in the list"
                                       " + 1 (0: absent)")
    belgian = {name: encoding for name, _s, _k, _w, encoding in Encoding.of(compiled("belgian_beers_race"), 3, 1).layout.parts}
    assert belgian["vars.pos[0]"].startswith("one-hot text (")  # a map node, from the map's nodes


@pytest.mark.parametrize(("name", "variant"), all_configurations())
def test_a_seats_tensor_is_the_same_in_every_world_it_cannot_tell_apart(name, variant):
    # secrecy: the worlds a seat cannot tell from the real one (everything it may not see
    # redealt) give it the same observation and information-state tensors; in a game with
    # hidden information some of those worlds do differ from the real one
    rs = compiled(name, variant)
    n = rs.default_players
    enc = Encoding.of(rs, n, 1)
    rng = Rng(f"secrecy:{name}:{variant}")
    factors = FactoredActions(enc)
    checked = differ = seed = masks = 0
    while checked < 12 and seed < 40:
        seed += 1
        for k, st in enumerate(_walk(enc, seed, every=3)):
            if st.is_chance():
                continue
            p = k % n
            world = st.determinize(p, rng)
            assert np.array_equal(enc.observation_tensor(st, p), enc.observation_tensor(world, p)), (name, k, p)
            assert np.array_equal(enc.information_state_tensor(st, p), enc.information_state_tensor(world, p))
            if p in st.current_players():  # its masks, flat and per factor, are the same too
                assert st.legal_actions() == world.legal_actions()
                try:
                    ids = enc.legal_ids(st)
                except EncodingError:  # an action one explored game never met (explore=1): no ids to compare
                    ids = None
                if ids is not None:
                    assert np.array_equal(factors.mask(ids), factors.mask(enc.legal_ids(world)))
                    masks += 1
            differ += json.dumps(st.observation(None)["zones"], sort_keys=True) != json.dumps(world.observation(None)["zones"],
                                                                                              sort_keys=True)
            checked += 1
    assert checked >= 12 and masks
    if not enc.perfect_information and any(z.visibility != "public" for z in rs.zone_list):
        assert differ, f"{name}: no world differed in a hidden zone"


def test_info_prints_the_layout():
    out = CliRunner().invoke(cli, ["info", "tic_tac_toe", "--tensor"])
    assert out.exit_code == 0
    assert f"36 float32 values, layout version {LAYOUT_VERSION}" in out.output
    row = next(line for line in out.output.splitlines() if "vars.board" in line)
    assert [c.strip() for c in row.split("│")[1:7]] == ["16", "18", "vars.board", "list[9] of seat", "9 × one-hot seat", "0 … 1"]
    data = json.loads(CliRunner().invoke(cli, ["info", "beer_knight", "--tensor", "--json"]).output)
    assert data["version"] == LAYOUT_VERSION and data["size"] == Encoding.of(compiled("beer_knight"), 2, 1).tensor_size
    at = 0
    for part in data["parts"]:  # contiguous, in order, every part documented
        assert part["offset"] == at and part["what"] and part["encoding"]
        at += part["size"]
    assert at == data["size"]
    assert {"vars.lastcall[0]", "vars.lastcall[1]", "turns", "phase"} <= {p["name"] for p in data["parts"]}
    low, high = TensorLayout(Encoding.of(compiled("beer_knight"), 2, 1).ruleset, 2).bounds()
    assert data["low"] == [None if x == -np.inf else float(x) for x in low.tolist()] and len(data["high"]) == data["size"]
    parts = {p["name"]: p for p in data["parts"]}
    assert (parts["seat"]["low"], parts["seat"]["high"], parts["turns"]["high"]) == (0, 1, None)
    # a card's Combo slot: `repeat: {times: combos, as: i}` with combos 1 by default, so only ever 0
    assert (parts["props.card-k01.slot"]["low"], parts["props.card-k01.slot"]["high"]) == (0, 0)


def test_factored_actions():
    enc = Encoding.of(compiled("beer_knight"), 2, 1)
    rows = {r["action"]: r for r in enc.action_factors()}
    assert rows["last_call"]["sizes"] == (120, 120)
    i = enc.unfactor("last_call", (3, 7))
    a = enc.actions[i]
    assert a.name == "last_call" and a.args == (rows["last_call"]["values"][0][3], rows["last_call"]["values"][1][7])
    assert enc.factor(i) == ("last_call", (3, 7))
    assert enc.factor(0) is None or enc.factor(0)[0] in rows
    with pytest.raises(EncodingError, match="2 argument indexes within 120 × 120"):
        enc.unfactor("last_call", (3, 120))
    with pytest.raises(EncodingError, match="not a factored action"):
        enc.unfactor("mark", (0,))
    with pytest.raises(EncodingError, match="is not an id from 0"):
        enc.factor(enc.num_distinct_actions)


def test_bad_input_is_a_clear_error(capsys):
    enc = Encoding.of(compiled("tic_tac_toe"), 2, 1)
    st = new_state(enc, 0)
    with pytest.raises(IndexError, match="no seat 2 in a game of 2"):
        enc.observation_tensor(st, 2)
    with pytest.raises(ValueError, match=r"`out` must be a float32 vector of 36 values, not an array of shape \(3,\)"):
        enc.observation_tensor(st, 0, np.zeros(3, np.float32))
    assert main(["info", "no_such_ruleset", "--tensor"]) == 1
    assert "no ruleset 'no_such_ruleset'; available: beer_cards" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["tic_tac_toe", "connect_four", "beer_knight"])
def test_many_rows_at_once_are_the_rows_one_by_one(name):
    # the vector env's path (numpy over every game for the variables whose type allows it)
    rs = compiled(name)
    n = rs.default_players
    enc = Encoding.of(rs, n, 1)
    states = [st.clone() for seed in range(4) for st in _walk(enc, seed, every=4)][:40]
    players = [i % n for i in range(len(states))]
    many = enc.layout.fill_many(states, players, np.zeros((len(states), enc.tensor_size), np.float32))
    assert np.array_equal(many, np.stack([enc.observation_tensor(st, p) for st, p in zip(states, players)]))


TYPES = """\
name: Types
players: {min: 2, max: 2, default: 2}
params: {colours: [red, blue]}
components:
  card:
    items: [{n: 1}, {n: 2}, {n: 3}, {n: 4}]
    start: deck
zones:
  deck: {visibility: hidden}
  hand: {per_player: true, visibility: owner}
  table: {}
vars:
  leader: {initial: null}
  best: {initial: null}
  colour: {initial: red}
  secret: {initial: 0, visibility: hidden}
  tally: {per_player: true, initial: 0, visibility: owner}
  played: {initial: []}
  done: {initial: [false, false]}
  rounds: 0
setup:
  - for_each:
      in: players
      as: p
      do:
        - move: {from: deck, to: "hand[p]", count: 2}
flow:
  - repeat:
      times: 2
      as: r
      do:
        - set: {rounds: r}
        - for_each:
            in: players
            as: p
            do:
              - turn:
                  player: p
                  do:
                    - choose:
                        name: play
                        options:
                          - action: play
                            for: c
                            in: "hand[current]"
                            do:
                              - move: {from: "hand[current]", to: table, what: c}
                              - set: {leader: current, best: c, colour: "colours[r]", "done[current]": "true"}
                              - add: {"tally[current]": 1, secret: 1, played: "[c]"}
outcome:
  score: "tally[p]"
  range: [0, 2]
limits:
  actions: 4
"""


def _inline_layout(tmp_path, name: str, text: str):
    """(ruleset, encoding for 2 seats, parts by name -> (start, size, encoding)) of the ruleset
    ``text`` written to ``tmp_path / name``."""
    from interpreter import load_ruleset

    path = tmp_path / name
    path.write_text(text)
    rs = load_ruleset(path)
    enc = Encoding(rs, 2, games=1)
    parts = {part: (start, size, encoding) for part, start, size, _w, encoding in enc.layout.parts}
    return rs, enc, parts


def test_variables_are_typed_from_what_writes_them(tmp_path):
    from interpreter.interop.layout import describe_type

    rs, enc, parts = _inline_layout(tmp_path, "types.yaml", TYPES)
    types = {name: describe_type(t) for name, t in enc.layout.var_types.items()}
    assert types == {"leader": "seat", "best": "component (card)", "colour": "text (2 values)", "secret": "number",
                     "tally": "number", "played": "list of component (card)", "done": "list[2] of truth value",
                     "rounds": "number"}
    assert "vars.secret" not in parts  # a hidden variable is in nobody's observation
    assert parts["zones.deck"][1] == 1  # a hidden zone: its count only
    # a list of components, as a zone: its length, then each card's place + 1
    assert parts["vars.played"][1:] == (5, "length, then per component (card: 4): its place in the list + 1 (0: absent)")
    st = new_state(enc, 0)
    st.apply(st.legal_actions()[1])  # P1 plays its second card
    card = st.zones["table"][0]

    def part(t, name):
        start, size, _ = parts[name]
        return t[start:start + size].tolist()
    for seat in (0, 1):
        t = enc.observation_tensor(st, seat)
        assert part(t, "vars.leader") == [1.0, 0.0] and part(t, "vars.colour") == [0.0, 1.0]  # (blue, red): red
        best = [0.0] * 4
        best[card.index] = 1.0
        assert part(t, "vars.best") == best and part(t, "vars.played") == [1.0] + best
        assert part(t, "vars.done") == [0.0, 1.0, 1.0, 0.0]  # [true, false] as [false, true] pairs
        assert part(t, "vars.tally[0]") == ([1.0] if seat == 0 else [0.0])  # its owner's only


@pytest.mark.parametrize(("name", "variant"), all_configurations())
def test_sampled_observations_stay_within_the_bounds(name, variant):
    # 2,000 observations of random games, seats in turn: every slot within TensorLayout.bounds()
    rs = compiled(name, variant)
    n = rs.default_players
    enc = Encoding.of(rs, n, 1)
    low, high = enc.layout.bounds()
    assert low.shape == high.shape == (enc.tensor_size,) and low.dtype == high.dtype == np.float32
    assert (low <= 0).all() and (high >= 0).all()  # an unwritten slot (0) is always in
    parts = {p[0]: (p[1], p[1] + p[2], p[4]) for p in enc.layout.parts}
    for part in ("seat", "current", "deciding", "chance", "finished", "winners"):
        a, b, _ = parts[part]
        assert (low[a:b] == 0).all() and (high[a:b] == 1).all()
    for part, (a, b, encoding) in parts.items():  # one-hot parts in [0, 1]; zone slots up to the components
        if encoding.startswith("one-hot") or encoding.startswith("multi-hot"):
            assert (low[a:b] == 0).all() and (high[a:b] == 1).all(), part
    for decl, _path, _owner, start, _b in enc.layout.zone_parts:  # a zone's count: up to the components
        assert high[start + (3 if decl.keyed else 1) * len(rs.components)] == len(rs.components), decl.name
    taken = seed = 0
    while taken < 2000:
        seed += 1
        for st in _walk(enc, seed):
            t = enc.observation_tensor(st, taken % n)
            out = np.flatnonzero((t < low) | (t > high))
            assert not len(out), [(next(p[0] for p in enc.layout.parts if p[1] <= i < p[1] + p[2]), float(t[i]),
                                   float(low[i]), float(high[i])) for i in out[:5]]
            taken += 1
    assert np.array_equal(enc.layout.bounds()[0], low)  # the same for every call (copies)


def test_bounds_follow_the_declarations():
    lay = Encoding.of(compiled("tic_tac_toe"), 2, 1).layout
    low, high = lay.bounds()
    parts = {p[0]: (p[1], p[1] + p[2]) for p in lay.parts}

    def span(name):
        a, b = parts[name]
        return low[a:b].tolist(), high[a:b].tolist()
    assert span("turns") == ([0.0, 0.0], [np.inf, np.inf]) and span("scores") == ([-1.0, -1.0], [1.0, 1.0])
    assert span("ranks") == ([0.0, 0.0], [2.0, 2.0]) and span("vars.board") == ([0.0] * 18, [1.0] * 18)
    knight_layout = Encoding.of(compiled("beer_knight"), 2, 1).layout
    knight = {p["name"]: p for p in knight_layout.describe()}
    low, high = knight_layout.bounds()
    ncomp = len(compiled("beer_knight").components)
    assert knight["zones.Knight_discard"]["high"] == ncomp and knight["vars.combats"]["high"] is None  # a count: no constant bounds it
    # the variables typed *any* before issue 46's last part: one-hot now, or numbers
    one_hot = f"one-hot component (barony, card, challenge: {ncomp})"
    assert knight["vars.contested"]["encoding"] == knight["vars.champion[0]"]["encoding"] == one_hot
    assert knight["vars.paired"]["what"] == "list of (component (barony, card, challenge), number)"
    # a list of (component, 1 or 2) pairs: a place per component and number, bounded by the pairs
    assert knight["vars.paired"]["encoding"] == ("length, then per component (barony, card, challenge: 120) × number (1, 2):"
                                                 " the pair's place in the list + 1 (0: absent)")
    assert (knight["vars.paired"]["size"], knight["vars.paired"]["low"], knight["vars.paired"]["high"]) == (241, 0, None)
    a = knight["vars.paired"]["offset"]
    assert low[a] == 0 and high[a] == np.inf and (high[a + 1:a + 241] == 240).all()  # the length, then the places
    assert knight["vars.petrified"]["size"] == ncomp + 1 and (high[knight["vars.petrified"]["offset"] + 1:][:ncomp] == ncomp).all()
    # a list of enumerated texts too many for one-hot items (120 card ids × 120 > 4,096): as a zone too
    assert knight["vars.lc_used"]["encoding"] == ("length, then per text (barony-b01, barony-b02, barony-b03, barony-b04, ...:"
                                                  " 120): its place in the list + 1 (0: absent)")
    enc = next(e for name, _per, _vis, _start, e in knight_layout.var_parts if name == "lc_used")
    ids = sorted(knight_layout.var_types["lc_used"][1][1])
    out = np.zeros(enc.size, np.float32)
    enc.write(["card-k02", "card-k01", "card-k02", "no such id"], out, 0)  # a repeat: its first place; a stranger: counted
    assert out[0] == 4 and out[1 + ids.index("card-k02")] == 1 and out[1 + ids.index("card-k01")] == 2 and out.sum() == 7
    assert (enc.low == 0).all() and enc.high[0] == np.inf and (enc.high[1:] == 120).all()
    assert knight["props.card-k01.slot"]["encoding"] == "number"


RECORDS = """\
name: Records
players: {min: 2, max: 2, default: 2}
params: {colours: [red, blue]}
components:
  card:
    items: [{n: 1}]
    start: deck
zones:
  deck: {}
vars:
  votes: {initial: {}}
  tally: {initial: {}}
  seen: {initial: {red: false, blue: false}}
  note: {initial: {}, visibility: owner, per_player: true}
flow:
  - repeat:
      times: 2
      as: r
      do:
        - for_each:
            in: players
            as: p
            do:
              - turn:
                  player: p
                  do:
                    - choose:
                        name: vote
                        options:
                          - action: vote
                            for: c
                            in: colours
                            do:
                              - set: {"votes[current]": c, "tally[c]": "r + 1", "seen[c]": true, "note[current]['last']": c}
outcome:
  score: "0"
  range: [0, 0]
limits:
  actions: 4
"""


def test_records_and_dicts_are_laid_out_key_by_key(tmp_path):
    rs, enc, parts = _inline_layout(tmp_path, "records.yaml", RECORDS)
    # keyed by seats, by the texts the parameter gives, by the texts a record literal spells out
    assert parts["vars.votes"][1:] == (6, "per key of seat (2): [present, one-hot text (blue, red)]")
    assert parts["vars.tally"][1:] == (4, "per key of text (blue, red): [present, number]")
    assert parts["vars.seen"][1:] == (6, "per key of text (blue, red): [present, one-hot [false, true]]")
    assert parts["vars.note[0]"][1:] == (3, "per key of text (last): [present, one-hot text (blue, red)]")
    low, high = enc.layout.bounds()
    a, k, _ = parts["vars.votes"]
    assert (low[a:a + k] == 0).all() and (high[a:a + k] == 1).all()

    def part(t, name):
        start, size, _ = parts[name]
        return t[start:start + size].tolist()
    st = new_state(enc, 0)
    blue = next(a for a in st.legal_actions() if a.args == ("blue",))
    st.apply(blue)  # P1 votes blue in round 0
    red = next(a for a in st.legal_actions() if a.args == ("red",))
    st.apply(red)  # P2 votes red
    for seat in (0, 1):
        t = enc.observation_tensor(st, seat)
        assert part(t, "vars.votes") == [1, 1, 0, 1, 0, 1]  # seat 0: blue; seat 1: red
        assert part(t, "vars.tally") == [1, 1, 1, 1]  # blue: 1, red: 1 (r + 1 in round 0)
        assert part(t, "vars.seen") == [1, 0, 1, 1, 0, 1]  # both true
        assert part(t, f"vars.note[{seat}]") == ([1, 1, 0] if seat == 0 else [1, 0, 1])  # its owner's only
        assert part(t, f"vars.note[{1 - seat}]") == [0, 0, 0]
    # every reachable state: the slices determine the values (no two values share a slice)
    seen: dict = {}
    todo = [new_state(enc, 0)]
    while todo:
        s = todo.pop()
        t = enc.observation_tensor(s, 0)
        for name in ("votes", "tally", "seen"):
            seen.setdefault(name, {}).setdefault(bytes(np.asarray(part(t, f"vars.{name}"), np.float32)), set()).add(
                repr(sorted(s.vars[name].items())))  # the dict itself, whatever its keys' order
        for a in s.legal_actions():
            nxt = s.clone()
            nxt.apply(a)
            todo.append(nxt)
    assert all(len(v) == 1 for by in seen.values() for v in by.values())
    assert len(seen["votes"]) > 4


@pytest.mark.parametrize("name", ["beer_knight", "tic_tac_toe", "kuhn_poker"])
def test_factors_round_trip_over_the_legal_actions(name):
    rs = compiled(name)
    enc = Encoding.of(rs, rs.default_players, 1)
    f = FactoredActions(enc)
    checked = 0
    for seed in range(10):
        for st in _walk(enc, seed):
            for i in enc.legal_ids(st):
                factors = f.encode(i)
                assert factors.shape == f.nvec.shape and (factors < f.nvec).all() and f.decode(factors) == i
                checked += 1
    assert checked > 20
    assert all(f.decode(f.encode(i)) == i for i in range(enc.num_distinct_actions))
    with pytest.raises(EncodingError, match="is not an id from 0"):
        f.encode(enc.num_distinct_actions)
    assert f.decode([len(f.heads)] + [0] * f.width) == -1 and f.decode([0]) == (-1 if f.width else 0)


LISTS = """\
name: Lists
players: {min: 2, max: 2, default: 2}
components:
  card:
    items: [{n: 1}, {n: 2}, {n: 3}]
    start: deck
  token:
    items: [{n: 1}]
    start: deck
zones:
  deck: {}
vars:
  picked: {initial: []}
  trail: {initial: []}
  pairs: {initial: []}
  mine: {per_player: true, initial: [], visibility: owner}
flow:
  - repeat:
      times: 2
      do:
        - for_each:
            in: players
            as: p
            do:
              - turn:
                  player: p
                  do:
                    - choose:
                        name: take
                        options:
                          - action: take
                            for: c
                            in: "components('card')"
                            do:
                              - if: c in picked
                                then:
                                  - set: {picked: "[x for x in picked if x != c]"}
                                else:
                                  - set: {picked: "picked + [c]"}
                              - set:
                                  trail: "trail + [c]"
                                  "mine[current]": "mine[current] + [c] if c not in mine[current] else mine[current]"
                                  pairs: >-
                                    pairs + [[c, 2]] if [c, 1] in pairs and [c, 2] not in pairs
                                    else ([g for g in pairs if g[0] != c] if [c, 1] in pairs else pairs + [[c, 1]])
outcome:
  score: "0"
  range: [0, 0]
limits:
  actions: 4
"""


def test_lists_of_components_are_laid_out_as_zones(tmp_path):
    # a list of components whose length the rules change: its length, then per component its
    # place in the list + 1; pairs of a component and a number of a known domain: per component
    # and number; exact for distinct items, of a repeated one the first appearance
    from interpreter.interop.layout import describe_type

    rs, enc, parts = _inline_layout(tmp_path, "lists.yaml", LISTS)
    lay = enc.layout
    types = {name: describe_type(t) for name, t in lay.var_types.items()}
    assert types == {"picked": "list of component (card)", "trail": "list of component (card)",
                     "pairs": "list of (component (card), number)", "mine": "list of component (card)"}
    assert parts["vars.picked"][1:] == (4, "length, then per component (card: 3): its place in the list + 1 (0: absent)")
    assert parts["vars.pairs"][1:] == (7, "length, then per component (card: 3) × number (1, 2): the pair's place in the"
                                          " list + 1 (0: absent)")
    assert parts["vars.mine[0]"][1] == parts["vars.mine[1]"][1] == 4
    low, high = lay.bounds()
    a = parts["vars.pairs"][0]
    assert low[a:a + 7].tolist() == [0] * 7 and high[a:a + 7].tolist() == [np.inf] + [6] * 6
    a = parts["vars.picked"][0]
    assert high[a:a + 4].tolist() == [np.inf, 3, 3, 3]

    def part(t, name):
        start, size, _ = parts[name]
        return t[start:start + size].tolist()

    def take(st, card):
        st.apply(next(x for x in st.legal_actions() if x.args[0] is card))
    st = new_state(enc, 0)
    cards = sorted((c for c in rs.components if c.kind == "card"), key=lambda c: c.index)
    a_, b_, c_ = cards
    assert [c.index for c in cards] == [0, 1, 2]
    take(st, b_)  # P1: B
    take(st, a_)  # P2: A
    take(st, b_)  # P1: B again, out of picked (shrunk), a second pair for B, B twice in the trail
    assert st.vars["picked"] == [a_] and st.vars["trail"] == [b_, a_, b_]
    assert st.vars["pairs"] == [[b_, 1], [a_, 1], [b_, 2]]
    for seat in (0, 1):
        t = enc.observation_tensor(st, seat)
        assert part(t, "vars.picked") == [1, 1, 0, 0]  # one item: A first
        assert part(t, "vars.trail") == [3, 2, 1, 0]  # three items (the true length), B first, A second
        assert part(t, "vars.pairs") == [3, 2, 0, 1, 3, 0, 0]  # (A, 1) 2nd, (B, 1) 1st, (B, 2) 3rd
        assert part(t, f"vars.mine[{seat}]") == ([1, 0, 1, 0] if seat == 0 else [1, 1, 0, 0])
        assert part(t, f"vars.mine[{1 - seat}]") == [0, 0, 0, 0]  # an owner's list: its owner's only
    # every reachable state, both seats: the slices of the lists of distinct items determine
    # them; the trail's slice its length and its distinct cards in order; within the bounds
    seen: dict = {}
    todo, states = [new_state(enc, 0)], 0
    while todo:
        s = todo.pop()
        states += 1
        for seat in (0, 1):
            t = enc.observation_tensor(s, seat)
            assert ((t >= low) & (t <= high)).all()
            trail = s.vars["trail"]
            first = [c.id for i, c in enumerate(trail) if c not in trail[:i]]
            for name, value in (("picked", s.vars["picked"]), ("pairs", s.vars["pairs"]), ("trail", (len(trail), first)),
                                (f"mine[{seat}]", s.vars["mine"][seat])):
                seen.setdefault(name, {}).setdefault(bytes(np.asarray(part(t, f"vars.{name}"), np.float32)), set()).add(
                    repr(value))
        for x in s.legal_actions():
            nxt = s.clone()
            nxt.apply(x)
            todo.append(nxt)
    assert states == 1 + 3 + 9 + 27 + 81
    assert all(len(v) == 1 for by in seen.values() for v in by.values()), {
        k: [sorted(v) for v in by.values() if len(v) > 1][:2] for k, by in seen.items()}
    assert len(seen["pairs"]) > 10 and len(seen["picked"]) > 10
