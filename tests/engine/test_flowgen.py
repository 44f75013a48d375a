"""Whole blocks as generated code (interpreter/engine/flowgen.py): every block that can stand in
a frame runs as one Python function, decisions included, and the game is the same as under the
frame runner with generated runs only (the back end before it): the same decisions, labels,
logs and outcomes, and at every decision the same saved state (the same frames: a block's code
writes exactly the frames the runner saves).  Saved games resume under either back end; budgets,
errors and the half-apply guarantee are unchanged; no ruleset text becomes code."""

from __future__ import annotations

import json

import pytest
import yaml

from interpreter import TapsterError, load_ruleset
from interpreter.engine import flowgen
from interpreter.engine.rng import Rng
from interpreter.engine.state import State
from interpreter.lang import codegen

from ..conftest import all_configurations


def _error_of(st, action: str) -> str | None:
    """Take ``action``: None, or the message of the error it raised (the state then as it was:
    a failed move leaves no trace)."""
    before = json.dumps(st.to_json(), sort_keys=True)
    try:
        st.apply(action)
    except TapsterError as exc:
        assert json.dumps(st.to_json(), sort_keys=True) == before
        return str(exc)
    return None


def _runs_only(source, variant=None):
    """The ruleset with block functions switched off: the frame runner and generated runs."""
    flowgen.BLOCKS = False
    try:
        return load_ruleset(source, variant)
    finally:
        flowgen.BLOCKS = True


def _trajectory(rs, seed: int, players: int | None = None, max_actions: int = 3000) -> list:
    """One random game, with the whole saved state at every decision."""
    st = rs.new_game(players or rs.default_players, seed=seed, log=True)
    agent = Rng(seed)
    out = []
    for _ in range(max_actions):
        out.append(json.dumps(st.to_json(), sort_keys=True))
        if st.is_terminal():
            break
        d = st.decision()
        out.append((d.players, [str(a) for a in d.actions], d.labels, d.prompt))
        st.apply(d.actions[agent.below(len(d.actions))])
    out.append(st.visible_log())
    if st.is_terminal():
        o = st.outcome()
        out.append((o.scores, o.ranking, o.winners, o.reason))
    return out


@pytest.mark.parametrize(("name", "variant"), all_configurations())
def test_block_functions_agree_with_the_frame_runner(name, variant):
    """Random games of every ruleset and variant, the same seeds and agents: identical decisions,
    labels, logs and outcomes, and the identical saved state (frames included) at every decision."""
    before = len(codegen.FALLBACKS)
    fast = load_ruleset(name, variant)
    assert len(codegen.FALLBACKS) == before, codegen.FALLBACKS[before:]
    assert fast.flow.fn is not None and fast.setup.fn is not None  # the block code is what runs
    ref = _runs_only(name, variant)
    assert ref.flow.fn is None
    for seed in range(3):
        for players in sorted({fast.min_players, fast.max_players}):
            assert _trajectory(fast, seed, players) == _trajectory(ref, seed, players), f"{name}:{variant} seed {seed}"


@pytest.mark.parametrize("name", ["beer_knight", "belgian_beers_race", "beer_cards", "little_railways"])
def test_a_saved_game_resumes_the_same_under_either_back_end(name):
    """A game saved at a random decision by the block code, restored into the block code and
    into the frame runner, continues identically (the saved frames mean the same to both)."""
    fast = load_ruleset(name)
    ref = _runs_only(name)
    agent = Rng(7)
    for seed in range(3):
        st = fast.new_game(fast.default_players, seed=seed)
        for _ in range(agent.below(60)):
            if st.is_terminal():
                break
            legal = st.legal_actions()
            st.apply(legal[agent.below(len(legal))])
        data = json.loads(json.dumps(st.to_json()))
        games = [State.from_json(fast, data), State.from_json(ref, data), st.clone()]
        picks = Rng(seed)
        while not games[0].is_terminal():
            legal = [str(a) for a in games[0].legal_actions()]
            i = picks.below(len(legal))
            for g in games:  # (each ruleset has its own component objects: compared as text)
                assert [str(a) for a in g.legal_actions()] == legal
                g.apply(g.legal_actions()[i])
        texts = {json.dumps(g.to_json(), sort_keys=True) for g in games}
        assert len(texts) == 1 and all(g.is_terminal() for g in games)


LOOPS = """\
name: Loops
players: {min: 2, max: 2}
vars: {v: 0, seen: []}
procedures:
  pick:
    params: [k]
    do:
      - let: {twice: "k * 2"}
      - choose:
          options:
            - {action: low, do: [{add: {v: 1}}]}
            - {action: high, if: "twice > 2", do: [{add: {v: "twice"}}]}
flow:
  - repeat:
      times: 2
      as: r
      do:
        - for_each:
            in: "[1, 2, 3]"
            as: k
            do:
              - let: {kk: "k + r"}
              - turn:
                  player: "(k + r) % 2"
                  do:
                    - call: {procedure: pick, with: {k: kk}}
                    - set: {seen: "seen + [kk]"}
        - while:
            cond: "v % 3 != 0"
            do:
              - choose: {options: [{action: bump, do: [{add: {v: 1}}]}]}
  - end_game: done
"""


def test_nested_loops_with_decisions_save_and_resume_at_every_decision(tmp_path):
    """`repeat` > `for_each` > `turn` > `call` > `choose`, and a `while` around a decision: at
    every decision of every path, the saved state of the block code is the frame runner's, and
    a state restored from it plays on the same."""
    path = tmp_path / "ruleset.yaml"
    path.write_text(LOOPS)
    fast, ref = load_ruleset(path), _runs_only(path)

    def walk(a, b, depth):
        assert json.dumps(a.to_json(), sort_keys=True) == json.dumps(b.to_json(), sort_keys=True)
        if a.is_terminal() or depth > 40:
            return
        for action in a.legal_actions()[:2] if depth < 6 else a.legal_actions()[:1]:
            a2, b2 = a.clone(), State.from_json(ref, b.to_json())
            a2.apply(action)
            b2.apply(action)
            walk(a2, b2, depth + 1)

    walk(fast.new_game(2, seed=1), ref.new_game(2, seed=1), 0)
    st = fast.new_game(2)
    while not st.is_terminal():
        st.apply(st.legal_actions()[-1])
    assert st.vars["seen"] == [1, 2, 3, 2, 3, 4] and st.reason == "done"


BUDGET = """\
name: Budget
players: {min: 2, max: 2}
limits: {steps: 60}
vars: {v: 0}
flow:
  - while:
      cond: "true"
      do:
        - choose: {options: [{action: go, do: [{set: {v: 0}}]}, {action: spin, do: [{set: {v: 1}}]}]}
        - if: "v > 0"
          then:
            - while:
                cond: "true"
                do: [{add: {v: 1}}]
"""


def test_the_step_budget_and_half_apply_are_unchanged(tmp_path):
    """A move that never ends inside the block code: the same budget error, naming the same
    effect, as the frame runner; the state is as it was before the move."""
    path = tmp_path / "ruleset.yaml"
    path.write_text(BUDGET)
    errors = []
    for rs in (load_ruleset(path), _runs_only(path)):
        st = rs.new_game(2)
        st.apply("go")
        before = json.dumps(st.to_json(), sort_keys=True)
        with pytest.raises(TapsterError) as info:
            st.apply("spin")
        errors.append(str(info.value))
        assert json.dumps(st.to_json(), sort_keys=True) == before
        st.apply("go")  # the state still plays
    assert errors[0] == errors[1] and "step budget of 60" in errors[0]


ERRORS = """\
name: Errors
players: {min: 2, max: 2}
vars: {v: 0, w: [1, 2]}
flow:
  - repeat:
      times: 3
      as: i
      do:
        - choose: {options: [{action: ok}, {action: seat}, {action: index}, {action: items}]}
        - if: "i > 0"
          then:
            - choose:
                options:
                  - {action: go, do: [{add: {v: 1}}]}
                  - action: fail
                    do:
                      - turn: {player: "v + 7", do: [{choose: {options: [{action: x}]}}]}
"""


@pytest.mark.parametrize("action", ["seat", "index", "items"])
def test_errors_in_block_code_are_the_frame_runners(tmp_path, action):
    """A ruleset error in an effect run by block code gives the frame runner's error, and the
    failed move leaves the state as it was."""
    text = ERRORS.replace("{action: seat}", "{action: seat, do: [{turn: {player: 5, do: [{choose: {options: [{action: x}]}}]}}]}")
    text = text.replace("{action: index}", "{action: index, do: [{set: {v: 'w[9]'}}, {choose: {options: [{action: x}]}}]}")
    text = text.replace("{action: items}", "{action: items, do: [{for_each: {in: 3, as: k, do: [{choose: {options: [{action: x}]}}]}}]}")
    path = tmp_path / "ruleset.yaml"
    path.write_text(text)
    messages = []
    for rs in (load_ruleset(path), _runs_only(path)):
        st = rs.new_game(2)
        for a in ("ok", "ok", "go"):
            st.apply(a)
        before = json.dumps(st.to_json(), sort_keys=True)
        with pytest.raises(TapsterError) as info:
            st.apply(action)
        messages.append(str(info.value))
        assert json.dumps(st.to_json(), sort_keys=True) == before
        st.apply("ok")
        before = json.dumps(st.to_json(), sort_keys=True)
        with pytest.raises(TapsterError) as info:
            st.apply("fail")
        messages.append(str(info.value))
        assert "seat from 0 to 1, got '8'" in str(info.value)
        assert json.dumps(st.to_json(), sort_keys=True) == before
    assert messages[:2] == messages[2:]


# Texts a ruleset could put where block code writes names and texts (see tests/lang/test_codegen.py).
PAYLOADS = [
    "x'); open('CANARY', 'w').write('pwned'); ('",
    'x"); open("CANARY", "w").write("pwned"); ("',
    "a\nopen('CANARY', 'w').write('pwned')\n",
    "a\u2028open('CANARY', 'w')\u2029",
    "''' + open('CANARY', 'w').write('x') + '''",
    "{__import__('os').system('touch CANARY')}",
]


def _payload_ruleset(payload: str) -> str:
    lit = repr(payload)
    braces = payload.replace("{", "{{").replace("}", "}}")
    doc = {
        "name": payload,
        "players": {"min": 2, "max": 2},
        "params": {"k": payload},
        "vars": {"t": "", "u": "", "n": 0},
        "procedures": {"ask": {"params": ["q"], "do": [
            {"choose": {"prompt": braces, "options": [{"action": "say", "for": "s", "in": f"[q, {lit}]", "label": "{s}"}],
                        }},
        ]}},
        "flow": [
            {"phase": {"name": payload, "do": [
                {"for_each": {"in": f"[k, {lit}]", "as": "w", "do": [
                    {"if": f"w == {lit}", "then": [
                        # by a computed name carrying the payload: a Python call of `ask`'s block
                        {"call": {"dynamic": f"'as' + ('k' if w == {lit} else {lit})", "with": {"q": f"w + {lit}"}}},
                        {"set": {"t": f"t + w + {lit}"}},
                        {"add": {"u": lit, "n": f"len({lit})"}},
                        {"log": braces + " {t}"},
                    ]},
                ]}},
            ]}},
            # a loop whose next pass tests its condition inline (false here: the body never runs)
            {"while": {"cond": f"t == {lit} + 'never'", "do": [{"choose": {"options": [{"action": "again"}]}}]}},
            {"end_game": braces},
        ],
        "outcome": {"score": "len(t)", "reason": braces},
    }
    return yaml.safe_dump(doc, allow_unicode=True)


@pytest.mark.parametrize("index", range(len(PAYLOADS)))
def test_no_ruleset_text_becomes_block_code(tmp_path, monkeypatch, index):
    """Payloads in a phase name, loop items, conditions, a procedure's computed name and its
    arguments, prompts, labels, logs and reasons of blocks that hold decisions (so the block code writes them): the game
    plays with every text exactly as written, and the canary never appears."""
    monkeypatch.chdir(tmp_path)
    payload = PAYLOADS[index]
    path = tmp_path / "ruleset.yaml"
    path.write_text(_payload_ruleset(payload), encoding="utf-8")
    rs = load_ruleset(path)
    assert any("def blk_" in src for _, src in rs.sources)  # the blocks are generated code
    assert rs.flow.fn is not None
    sources = "\n".join(src for _, src in rs.sources)
    # written out: the decision, a for_each's next item, a while's condition, a dynamic call
    assert "st.pending = (EFF" in sources and "if loop[0] is H_EACH:" in sources and "if loop[1] is COND" in sources
    assert ".fn(st, env, new, 0, None, S)" in sources
    st = rs.new_game(2, seed=0, log=True)
    for _ in range(2):
        d = st.decision()
        assert st.phase == payload and d.prompt == payload
        assert [a.args for a in d.actions] == [(payload + payload,), (payload,)]
        assert d.labels == (payload + payload, payload)
        st.apply(d.actions[0])
    assert st.is_terminal() and st.outcome().reason == payload
    assert st.vars["t"] == (payload + payload) * 2
    assert st.vars["u"] == payload * 2 and st.vars["n"] == 2 * len(payload)  # `add`: text through the verb, numbers inline
    assert st.visible_log() == [payload + " " + payload + payload, payload + " " + (payload + payload) * 2]
    assert not (tmp_path / "CANARY").exists()
    assert list(tmp_path.iterdir()) == [path]


class _Place:
    text, mark = "x", None


@pytest.mark.parametrize(("value", "error"), [
    ([{"a": "b", "c": None}] * 3, None),
    ([{"a": 1, "b": 2}] * 3333, None),  # 3 + 3333 * 2 items: within the limit
    ([{"a": 1, "b": 2}] * 5000, "more than 10000 items"),  # the list's 5000 and the records' 10000
    ([{"a": "x" * 400_000}] * 3, "more than 1000000 characters"),
    ([{"a": 1}, {"b": [1]}], None),  # a record holding a list: the general path
])
def test_a_list_of_records_is_copied_with_the_general_paths_limits(value, error):
    """`set` of a list of records (the fast copy for records of plain values) stores a copy (new
    records), within the same item and text limits (MAX_VALUE_ITEMS, MAX_VALUE_TEXT), with the
    same errors as the general copy."""
    from interpreter.engine import flow

    if error is None:
        out = flow._copy_stored(value, _Place)
        assert out == value and out is not value and all(a is not b for a, b in zip(out, value))
    else:
        with pytest.raises(TapsterError, match=error):
            flow._copy_stored(value, _Place)


@pytest.mark.parametrize(("value", "error"), [
    (["lc:a", "pair:b"] * 10, None),
    (["x" * 500_000, 1, None, "y" * 500_000], None),  # texts and plain values: 1,000,000 characters
    (["x" * 500_000, 1, "y" * 500_001], "more than 1000000 characters"),
    (["x" * 1_000_001], "more than 1000000 characters"),
])
def test_a_list_of_texts_is_copied_within_the_text_limit(value, error):
    """`set` of a list of texts (and plain values) stores a copy in one step, within the same
    text limit (MAX_VALUE_TEXT) and with the same error as the general copy."""
    from interpreter.engine import flow

    if error is None:
        out = flow._copy_stored(value, _Place)
        assert out == value and out is not value
    else:
        with pytest.raises(TapsterError, match=error):
            flow._copy_stored(value, _Place)


RECURSION = """\
name: Deep
players: {min: 2, max: 2}
vars: {v: 0}
procedures:
  down:
    params: [d]
    do:
      - if: "d < 3000"
        then:
          - call: {procedure: down, with: {d: "d + 1"}}
          - add: {v: 1}
        else:
          - choose: {options: [{action: bottom}]}
flow:
  - call: {procedure: down, with: {d: 0}}
  - choose: {options: [{action: end}]}
"""


def test_a_procedure_that_calls_itself_is_not_bounded_by_pythons_stack(tmp_path):
    """3,000 levels of a procedure calling itself before a decision (more than Python's own
    recursion limit): the block code plays it as the frame runner does, frames included."""
    path = tmp_path / "ruleset.yaml"
    path.write_text(RECURSION)
    games = [rs.new_game(2) for rs in (load_ruleset(path), _runs_only(path))]
    assert len(games[0].stack) > 3000  # a frame a level, as the runner keeps them
    for action in ("bottom", "end"):
        assert json.dumps(games[0].to_json(), sort_keys=True) == json.dumps(games[1].to_json(), sort_keys=True)
        for g in games:
            g.apply(action)
    assert all(g.is_terminal() and g.vars["v"] == 3000 for g in games)


DYNAMIC = """\
name: Dynamic
players: {min: 2, max: 2}
vars: {v: 0, order: []}
procedures:
  ab_add:
    params: [n]
    do: [{add: {v: n}}, {set: {order: "order + ['add']"}}]
  ab_ask:
    params: [n]
    do:
      - choose:
          options:
            - {action: more, do: [{add: {v: n}}]}
            - {action: less, do: [{add: {v: "0 - n"}}]}
      - set: {order: "order + ['ask']"}
  ab_again:
    params: [n]
    do:
      - if: "n < 3000"
        then:
          - call: {dynamic: "'ab_' + 'again'", with: {n: "n + 1"}}
          - add: {v: 1}
        else:
          - choose: {options: [{action: bottom}]}
  helper:
    params: [n]
    do: [{set: {order: "order + ['helper']"}}]
flow:
  - for_each:
      in: "['add', 'ask', 'add', 'ask']"
      as: w
      do:
        - call: {dynamic: "'ab_' + w", with: {n: 2}}
        - set: {order: "order + [w]"}
  - call: {dynamic: "'hel' + 'per'", with: {n: 0}}
  - choose:
      options:
        - {action: deep, do: [{call: {dynamic: "'ab_again'", with: {n: 0}}}]}
        - {action: nowhere, do: [{call: {dynamic: "'ab_' + str(v)", with: {n: 0}}}]}
        - {action: fine}
  - end_game: done
"""


def test_a_dynamic_call_runs_its_procedure_directly_as_the_frame_runner_does(tmp_path, monkeypatch):
    """``call: {dynamic: ...}``: a procedure that cannot come back to the caller is called
    through its block's function (a decision inside it included), one that can (a procedure
    naming itself) is pushed as a frame, so 3,000 levels are bounded by the step budget, not by
    Python's stack; a name that is no procedure fails as the verb fails.  At every decision the
    game and its frames are the frame runner's."""
    from interpreter.engine import flow

    path = tmp_path / "ruleset.yaml"
    path.write_text(DYNAMIC)
    fast, ref = load_ruleset(path), _runs_only(path)
    ran = []
    real = flow.Call.run
    monkeypatch.setattr(flow.Call, "run", lambda self, st, loc: (ran.append(self.mark.line), real(self, st, loc))[1])
    for script in (["more", "less", "fine"], ["less", "more", "deep", "bottom"], ["more", "more", "nowhere"]):
        games = [fast.new_game(2, log=True), ref.new_game(2, log=True)]
        for action in script:
            states = [json.dumps(g.to_json(), sort_keys=True) for g in games]
            assert states[0] == states[1]
            errors = [_error_of(g, action) for g in games]
            assert errors[0] == errors[1]
            if errors[0] is not None:
                assert "no procedure named '" in errors[0] and action == "nowhere"
        assert json.dumps(games[0].to_json(), sort_keys=True) == json.dumps(games[1].to_json(), sort_keys=True)
        if script[-1] == "bottom":
            assert games[0].is_terminal() and games[0].vars["v"] == 2 - 2 + 2 + 2 + 3000
        elif script[-1] == "fine":
            assert games[0].vars["order"] == ["add", "add", "ask", "ask", "add", "add", "ask", "ask", "helper"]
    # Which calls are Python calls: every dynamic call but `ab_again`'s own, whose procedure can
    # come back to it (each of its 3,001 levels a frame, as `len(stack)` shows).
    from interpreter.engine import effectgen

    memo: dict = {}
    simple_of = {b.id: [effectgen.inline_ok(e, memo, set()) for e in b.effects] for b in fast.blocks}
    _, direct = flowgen._recursive_calls(fast.blocks, simple_of)
    procs = fast.procedures  # name -> block
    targets = {eff.mark.line: {n for n, b in procs.items() if b in direct[id(eff)]}
               for b in fast.blocks for eff in b.effects if type(eff) is flow.Call and eff.dynamic is not None}
    assert targets == {21: {"ab_add", "ab_ask"}, 33: {"ab_add", "ab_ask", "ab_again"}, 35: {"helper"},
                       38: {"ab_again"}, 39: {"ab_add", "ab_ask", "ab_again"}}, targets
    ran.clear()
    g = fast.new_game(2)
    for action in ("more", "less", "deep"):
        g.apply(action)
    assert len(g.stack) > 3000 and not ran  # no call went through the verb's own run


KEYED = """\
name: Keyed
players: {min: 2, max: 2}
components:
  pawn: {items: [{n: 1}, {n: 2}], start: box}
zones:
  box: {visibility: public}
  field: {keyed: true, visibility: public}
flow:
  - move: {what: "top(box)", from: box, to: "field[(0, 0)]"}
  - choose:
      options:
        - action: step
          do:
            - move: {what: "top(field[(0, 0)])", from: "field[(0, 0)]", to: "field[(1, 0)]"}
            - choose: {options: [{action: back, do: [{move: {what: "top(field[(1, 0)])", from: "field[(1, 0)]", to: box}}]}]}
        - action: wrong
          do:
            - move: {what: "top(box)", from: "field[(0, 0)]", to: "field[(1, 0)]"}
            - choose: {options: [{action: x}]}
  - end_game: done
"""


def test_keyed_moves_in_block_code_are_the_verbs(tmp_path):
    """A piece moved from one keyed stack to another, inline in block code: the stacks created
    and forgotten as the verb's own run does (the emptied key deleted), and a component that is
    not in the source gives the verb's error."""
    path = tmp_path / "ruleset.yaml"
    path.write_text(KEYED)
    seen = []
    fast = load_ruleset(path)
    assert sum(".settle(env" in src for _, src in fast.sources) == 4  # the four moves, inline
    for rs in (fast, _runs_only(path)):
        st = rs.new_game(2)
        assert list(st.zones["field"]) == [(0, 0)]
        with pytest.raises(TapsterError) as info:
            st.clone().apply("wrong")
        st.apply("step")
        assert list(st.zones["field"]) == [(1, 0)]
        after_step = json.dumps(st.to_json(), sort_keys=True)
        st.apply("back")
        assert not st.zones["field"] and len(st.zones["box"]) == 2 and st.is_terminal()
        seen.append((str(info.value), after_step, json.dumps(st.to_json(), sort_keys=True)))
    assert seen[0] == seen[1] and "is not in `field[(0, 0)]`" in seen[0][0]


ADDS = """\
name: Adds
players: {min: 2, max: 2}
components:
  chip:
    items: [{key: a}]
    start: pool
    props: {power: 1}
zones:
  pool: {}
vars: {n: 0, w: [1, 2, 3], xs: [], t: "a", r: {initial: {k: 1}}}
flow:
  - repeat:
      times: 4
      do:
        - choose:
            options:
              - {action: int, do: [{add: {n: 2}}, {add: {n: "n * 3"}}]}
              - {action: item, do: [{add: {"w[n]": 5, "w[0]": "w[n] + n"}}]}
              - {action: order, do: [{add: {n: 1, "w[n % 3]": 10}}]}
              - {action: list, do: [{add: {xs: "[n, 'b']"}}]}
              - {action: record, do: [{add: {"r['k']": 4}}]}
              - {action: truth, do: [{add: {n: "true"}}]}
              - {action: prop, do: [{add: {"first(pool).power": 2}}]}
              - {action: text, do: [{add: {t: 1}}]}
              - {action: index, do: [{add: {"w[9]": 1}}]}
              - {action: badkey, do: [{add: {"w['x']": 1}}]}
              - {action: none, do: [{add: {n: "none"}}]}
              # 2**4032 doubled: 2**4096 is the largest whole number a game holds, 2**4097 fails
              - {action: doubled, do: [{set: {n: "(2 ** 63) ** 64"}}, {repeat: {times: 64, do: [{add: {n: n}}]}}]}
              - {action: big, do: [{set: {n: "(2 ** 63) ** 64"}}, {repeat: {times: 65, do: [{add: {n: n}}]}}]}
              - {action: bigitem, do: [{set: {"w[0]": "0 - (2 ** 63) ** 64"}}, {repeat: {times: 65, do: [{add: {"w[0]": "w[0]"}}]}}]}
"""


@pytest.mark.parametrize("action", ["int", "item", "order", "list", "record", "truth", "prop", "text", "index", "badkey", "none",
                                    "doubled", "big", "bigitem"])
def test_add_in_generated_code_is_the_verbs(tmp_path, monkeypatch, action):
    """``add`` in generated code (whole numbers added inline, anything else through the verb's
    own pair) gives what the interpreted verb gives: the same state after each of a few moves
    (pair by pair: a later pair reads what an earlier one added), or the same error, and a
    failed move changes nothing; a whole number stays within 4096 bits either way."""
    from interpreter.engine import effectgen, flow

    path = tmp_path / "ruleset.yaml"
    path.write_text(ADDS)
    outcomes = []
    for generated in (True, False):
        if not generated:
            monkeypatch.delitem(effectgen._HANDLERS, flow.Add)
        rs = load_ruleset(path)
        st = rs.new_game(2)
        seen = []
        for _ in range(3):
            error = _error_of(st, action)
            if error is not None:
                seen.append(("error", error))
                break
            seen.append(("state", st.to_json()["vars"], st.to_json().get("props")))
        outcomes.append(seen)
    assert outcomes[0] == outcomes[1]
    if action in ("text", "index", "badkey", "none", "big", "bigitem"):
        assert outcomes[0][0][0] == "error", outcomes[0]
        assert action not in ("big", "bigitem") or "more than 4096 bits" in outcomes[0][0][1]
    else:
        assert outcomes[0][-1][0] == "state"


LITERALS = """\
name: Literals
players: {min: 2, max: 2}
vars: {a: 1, b: 1, c: 1, d: 1, e: 1, k: 0, n: 0, bad: [1]}
flow:
  - repeat:
      times: "1 + 1"
      do:
        - set: {a: "[]", b: "[]", c: "[1, 2]", d: "none", e: 0}
        - add: {k: 1}
  - while:
      cond: "n < 3"
      do:
        - set: {b: "b + [n]", "c[0]": "n", d: "'text'"}
        - add: {n: 1}
  - choose:
      options:
        - {action: ok}
        - action: count
          do: [{repeat: {times: "bad[5]", do: [{add: {k: 1}}]}}]
        - action: cond
          do: [{while: {cond: "bad[5] > 0", do: [{add: {k: 1}}]}}]
  - end_game: done
"""


@pytest.mark.parametrize("action", ["ok", "count", "cond"])
def test_sets_of_literals_and_loop_conditions_inline_are_the_verbs(tmp_path, monkeypatch, action):
    """A ``set`` of literals stores them without a copy test (``[]`` is a new list each time; a
    list written out with items is still tested and copied, so an item set changes one list), and
    ``repeat`` counts and ``while`` conditions are evaluated inline: the same state and the same
    errors as the interpreted verbs."""
    path = tmp_path / "ruleset.yaml"
    path.write_text(LITERALS)
    outcomes = []
    for generated in (True, False):
        if not generated:  # the reference: nothing generated, every verb's own run
            monkeypatch.setattr(codegen, "ENABLED", False)
        st = load_ruleset(path).new_game(2)
        try:
            st.apply(action)
            seen = ("state", st.to_json()["vars"])
        except TapsterError as exc:
            seen = ("error", str(exc))
        outcomes.append(seen)
    assert outcomes[0] == outcomes[1]
    if action == "ok":
        assert outcomes[0][1]["c"] == [2, 2] and outcomes[0][1]["b"] == [0, 1, 2] and outcomes[0][1]["k"] == 2
        assert outcomes[0][1]["d"] == "text" and outcomes[0][1]["a"] == []
    else:
        assert outcomes[0][0] == "error" and "bad[5]" in outcomes[0][1], outcomes[0]


def test_a_literal_set_is_stored_without_a_copy_test(tmp_path):
    """The generated ``set`` of ``[]``, ``none`` and a number tests nothing before it stores;
    any other expression (here ``[1, 2]``) is still copied when it gives a container."""
    path = tmp_path / "ruleset.yaml"
    path.write_text(LITERALS)
    src = "\n".join(text for _, text in load_ruleset(path).sources)
    start = src.index(": set")
    first_set = src[start:src.index(": add", start)]  # the repeat's set, up to the add after it
    assert first_set.count("H_copy(") == 1  # c: [1, 2], a constant list shared by every pass
    assert first_set.count("try:") == 1  # c's evaluation; the literals' cannot fail
    assert "= []\n" in first_set and "= None\n" in first_set


DECISIONS = """\
name: Decisions
players: {min: 2, max: 2}
limits: {work: 3000}
vars: {v: 0, xs: [1, 2, 3], n: 0}
flow:
  - repeat:
      times: 2
      do:
        - choose: {options: [{action: ok}, {action: none_left}, {action: empty}, {action: stuck}, {action: bad}, {action: big},
                             {action: other}, {action: both}, {action: nobody}, {action: wrong}]}
        - add: {v: 1}
"""


@pytest.mark.parametrize("action", ["none_left", "empty", "stuck", "bad", "big", "other", "both", "nobody", "wrong"])
def test_a_decision_written_out_in_block_code_is_the_verbs(tmp_path, action):
    """A decision with a generated listing is written out in block code (``Choose.run`` without
    the call; its ``player:`` evaluated there, a list of seats or a wrong value through
    ``Choose.seats``): no legal action runs ``otherwise`` (or nothing when it is
    empty) or fails without one, a listing that fails gives the checked evaluator's error and one
    over the work budget the decision's error; the same games, states and messages as the verb's
    own run under the frame runner, and a failed move leaves the state as it was."""
    bodies = {
        "none_left": "[{choose: {options: [{action: x, for: k, in: xs, if: 'k > 5'}], otherwise: [{add: {n: 7}}]}}]",
        "empty": "[{choose: {options: [{action: x, for: k, in: xs, if: 'k > 5'}], otherwise: []}}]",
        "stuck": "[{choose: {name: pick, options: [{action: x, for: k, in: xs, if: 'k > 5'}]}}]",
        "bad": "[{choose: {options: [{action: x, for: k, in: xs, if: 'k > v // (v - 1)'}]}}]",
        "big": "[{choose: {name: huge, options: [{action: x, for: k, in: 'range(100000)', if: 'k >= 0'}]}}]",
        # `player:` evaluated in the block code: one seat, a list of seats, none, not a seat
        "other": "[{choose: {player: '1 - current', options: [{action: x, do: [{add: {n: 2}}]}]}}]",
        "both": "[{choose: {player: players, options: [{action: x}]}}, {add: {n: 3}}]",
        "nobody": "[{choose: {player: '[]', options: [{action: x}]}}]",
        "wrong": "[{choose: {player: 'current + 5', options: [{action: x}]}}]",
    }
    text = DECISIONS.replace(f"{{action: {action}}}", f"{{action: {action}, do: {bodies[action]}}}")
    path = tmp_path / "ruleset.yaml"
    path.write_text(text)
    fast, ref = load_ruleset(path), _runs_only(path)
    assert any("st.pending = (EFF" in src for _, src in fast.sources)  # written out
    if action in ("other", "both", "nobody", "wrong"):  # `player:` too
        assert any(".seats(st, " in src for _, src in fast.sources)
    outcomes = []
    for rs in (fast, ref):
        st = rs.new_game(2)
        st.apply("ok")  # v is 1 now: `bad` divides by zero
        error = _error_of(st, action)
        if error is not None:
            outcomes.append(("error", error))
        else:
            outcomes.append(("ok", json.dumps(st.to_json(), sort_keys=True), [str(a) for a in st.legal_actions()]))
    assert outcomes[0] == outcomes[1]
    expected = {"none_left": "ok", "empty": "ok", "stuck": "has no legal action and no `otherwise`",
                "bad": "division by zero", "big": "listing the actions of decision `huge`", "other": "ok",
                "both": "ok", "nobody": "must be a seat from 0 to 1", "wrong": "must be a seat from 0 to 1"}[action]
    assert expected in str(outcomes[0]), outcomes[0]
    if action == "none_left":
        assert '"n": 7' in outcomes[0][1]
    if action in ("other", "both"):  # the decision is pending for the seats `player` names
        states = []
        for rs in (fast, ref):
            st = rs.new_game(2)
            st.apply("ok")
            st.apply(action)
            states.append(st.current_players())
            st.apply("x")
            states.append((st.current_players(), st.vars["n"]))
        assert states[:2] == states[2:] and tuple(states[0]) == ((1,) if action == "other" else (0, 1))


def test_a_loops_next_pass_written_out_is_the_runners_and_a_frames_other_loop_still_runs(tmp_path):
    """A loop's body goes on to its next pass itself (``_next_lines``: a `for_each`'s next item,
    a `repeat`'s next count, a `while`'s condition inline); a frame that holds a loop of another
    kind than its block's (a saved state written by hand) goes through ``_next_pass`` as the
    frame runner does: the same games under both back ends either way."""
    path = tmp_path / "ruleset.yaml"
    path.write_text(LOOPS)
    fast, ref = load_ruleset(path), _runs_only(path)
    sources = "\n".join(src for _, src in fast.sources)
    assert "if loop[0] is H_EACH:" in sources and "if loop[0] is H_TIMES:" in sources and "if loop[1] is COND" in sources
    saved = fast.new_game(2, seed=1).to_json()
    # the for_each body's frame made to count 0, 1, 2, 3 as a `repeat` would, binding k
    forged = json.loads(json.dumps(saved).replace('{"t": ["each", {"t": [1, 2, 3]}, 0, "k"]}', '{"t": ["times", 4, 0, "k"]}'))
    assert forged != saved
    for data in (saved, forged):
        a, b = State.from_json(fast, data), State.from_json(ref, data)
        while not a.is_terminal():
            assert json.dumps(a.to_json(), sort_keys=True) == json.dumps(b.to_json(), sort_keys=True)
            action = a.legal_actions()[-1]
            a.apply(action)
            b.apply(action)
        assert json.dumps(a.to_json(), sort_keys=True) == json.dumps(b.to_json(), sort_keys=True)
        if data is forged:
            assert a.vars["seen"][:4] == [1, 1, 2, 3]  # k = 1 (the frame's own), then 1, 2, 3 from the count


@pytest.mark.parametrize("seat", ["2", "-1", "true", "'0'", "none"])
def test_a_turn_of_no_seat_fails_in_every_back_end(tmp_path, seat):
    """`turn` tests its seat written out (a whole number from 0 to the seats less one; `true` is
    not a seat): in a decision-free run, in block code and in the frame runner, the same error
    naming the `turn`, and the move leaves the state as it was."""
    text = ("name: Seats\nplayers: {min: 2, max: 2}\nvars: {v: 0}\nflow:\n"
            "  - choose: {options: [{action: free, do: [{turn: {player: \"SEAT\", do: [{add: {v: 1}}]}}]},\n"
            "                       {action: held, do: [{turn: {player: \"SEAT\", do: [{choose: {options: [{action: x}]}}]}}]}]}\n"
            "  - end_game: done\n").replace("SEAT", seat)
    path = tmp_path / "ruleset.yaml"
    path.write_text(text)
    messages = []
    for rs in (load_ruleset(path), _runs_only(path)):
        for action in ("free", "held"):
            st = rs.new_game(2)
            before = json.dumps(st.to_json(), sort_keys=True)
            with pytest.raises(TapsterError) as info:
                st.apply(action)
            messages.append(str(info.value))
            assert json.dumps(st.to_json(), sort_keys=True) == before
    assert messages[:2] == messages[2:], messages  # (free, held) in block code, then in the frame runner
    assert all("`turn` needs a seat from 0 to 1, got" in m for m in messages)
    assert "ruleset.yaml:5:" in messages[0] and "ruleset.yaml:6:" in messages[1]


DEEP = """\
name: Deep
players: {min: 2, max: 2}
vars: {v: 0, trail: []}
procedures:
  inner:
    params: [k]
    do:
      - if: "k > 0"
        then:
          - choose:
              options:
                - {action: a, do: [{add: {v: 1}}]}
                - {action: b, do: [{add: {v: 2}}]}
          - set: {trail: "trail + [k]"}
          - if: "v > 9"
            then: [{end_game: "past nine"}]
      - set: {trail: "trail + [0]"}
  middle:
    params: [k]
    do:
      - call: {procedure: inner, with: {k: k}}
      - choose:
          options:
            - {action: c, do: [{call: {procedure: inner, with: {k: "k - 1"}}}, {set: {trail: "trail + [9]"}}]}
            - {action: d, do: [{add: {v: 0}}]}
      - set: {trail: "trail + [k]"}
flow:
  - while:
      cond: "true"
      do:
        - turn:
            player: "len(trail) % 2"
            do:
              - phase:
                  name: main
                  do:
                    - call: {procedure: middle, with: {k: 2}}
                    - set: {trail: "trail + [5]"}
"""


def test_nested_blocks_written_out_save_the_frames_their_functions_save(tmp_path, monkeypatch):
    """A nested block that runs once is written out where it is entered (a turn's body in the
    while's, a phase's in that, a procedure's in the call, an option body holding a decision in
    the choose), up to MAX_INLINE_DEPTH deep, the rest called: at every decision of every path
    the saved state (frames included) is the one the block functions called one by one save and
    the frame runner saves, a decision taken in place (a playout) gives the same game, and a
    game ending inside a written-out block ends the same."""
    path = tmp_path / "ruleset.yaml"
    path.write_text(DEEP)
    monkeypatch.setattr(codegen, "SINK", None)
    inlined = load_ruleset(path)
    assert any("the nested block written out" in src for _, src in inlined.sources)
    monkeypatch.setattr(flowgen, "INLINE", False)
    called = load_ruleset(path)
    assert not any("the nested block written out" in src for _, src in called.sources)
    monkeypatch.setattr(flowgen, "INLINE", True)
    ref = _runs_only(path)
    ends = set()

    def walk(games, depth):
        texts = {json.dumps(g.to_json(), sort_keys=True) for g in games}
        assert len(texts) == 1, depth
        if games[0].is_terminal():
            ends.add((games[0].reason, tuple(games[0].vars["trail"])))
            return
        for i in range(len(games[0].legal_actions())) if depth < 7 else (depth % 2,):
            nxt = [State.from_json(g.ruleset, g.to_json()) for g in games]
            for g in nxt:
                g.apply(g.legal_actions()[i])
            walk(nxt, depth + 1)

    walk([inlined.new_game(2, seed=3), called.new_game(2, seed=3), ref.new_game(2, seed=3)], 0)
    assert ends and {reason for reason, _ in ends} == {"past nine"}
    from interpreter.engine.playout import playout

    for seed in range(20):  # decisions taken in place, inside the written-out blocks
        games = [rs.new_game(2, seed=seed) for rs in (inlined, called)]
        for g in games:
            pick = Rng(seed)
            playout(g, lambda choose, actions, seats, pick=pick: pick.below(len(actions)))
        assert json.dumps(games[0].to_json(), sort_keys=True) == json.dumps(games[1].to_json(), sort_keys=True)
        assert games[0].is_terminal() and games[0].reason == "past nine"
