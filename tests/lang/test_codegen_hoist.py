"""Links of a listing's condition tested once, before the option's ``for`` loop
(interpreter/lang/codegen.py, ``_invariant_prefix``): the leading links of the ``and`` chain
that read none of the names the loop binds and charge nothing.

What it must keep, against the same listing testing every link at every item
(``codegen.HOIST`` False): the legal actions, the work charged, the errors (a link that fails
fails first either way; with no items it is not evaluated; what is not a list fails as the loop
fails), and the budget's edge; and what it must leave in the loop: a link after one that reads
the loop's names, and a link that charges (a call, written out or not).

The subscripts of a condition that read the same at every item are read once, before the loop
(``codegen._hoisting``, switch ``codegen.READS``), and the loop as written runs when one of them
fails: the same listings, work and errors again."""

from __future__ import annotations

import re

import pytest

from interpreter import load_ruleset
from interpreter.errors import TapsterError
from interpreter.lang import codegen
from interpreter.lang.expression import Env
from tests.lang.test_codegen_inline import _listing_source

RULES = """\
name: Hoist
players: {min: 2, max: 2}
vars: {t: [0, 3], xs: [1, 2, 3, 4], open: [true, false], items: [[0, 1, 2], []]}
functions:
  cost: {params: [p, k], value: "xs[k] + t[p]"}
flow:
  - repeat:
      times: 4
      do:
        - for_each:
            in: "[0, 1]"
            as: p
            do:
              - choose:
                  player: p
                  options:
                    - {action: a, for: k, in: "range(4)", if: "open[p] and t[p] < 6 and xs[k] > 1"}
                    - {action: b, for: k, in: "range(4)", if: "xs[k] > 1 and open[p]"}
                    - {action: c, for: k, in: "items[p]", if: "not open[p] and k >= 0"}
                    - {action: d, for: k, in: "range(4)", if: "t[p] >= 0 and cost(p, k) > 3"}
                    - {action: e, for: k, in: "range(4)", if: "cost(p, 0) > 2 and k < 2"}
                    - {action: f, for: k, in: "[0, 1, 2]", if: "open[p] and k != 1"}
                    - {action: g, for: [k, j], in: "[[0, 1], [1, 1]]", if: "t[p] > 0 and k < j"}
                    - {action: h, for: k, in: "range(3)", if: "len([x for x in xs if x > t[p]]) > 1 and k > 0"}
                    - {action: pass}
              - set: {"t[p]": "t[p] + 1", "open[p]": "not open[p]", "items[p]": "items[1 - p] + [t[p]]"}
"""


def _load(tmp_path, text: str, hoist: bool, reads: bool | None = None, bulk: bool | None = None):
    """The ruleset, links tested before an option's loop when ``hoist``, its invariant reads
    made before the loop when ``reads`` (see ``codegen._hoisting``; by default as ``hoist``:
    the reference tests every link and reads everything at every item), the written-out calls
    charged once for the whole loop when ``bulk`` (``codegen._bulk_charge``; by default as
    ``hoist``)."""
    path = tmp_path / "ruleset.yaml"
    path.write_text(text)
    codegen.HOIST, codegen.READS = hoist, hoist if reads is None else reads
    codegen.BULK = hoist if bulk is None else bulk
    try:
        return load_ruleset(path)
    finally:
        codegen.HOIST = codegen.READS = codegen.BULK = True


def _listings(rs, players: int = 2, seed: int = 0, pick=lambda actions, i: actions[0]) -> list:
    """At every decision of a game: the legal actions and the work one listing charges."""
    st = rs.new_game(players, seed=seed)
    out = []
    i = 0
    while not st.is_terminal() and i < 400:
        choose, loc, actions, _ = st.pending
        env = Env(st, dict(loc))
        env.refill()
        listed = choose.generated(env)
        out.append(([str(a) for a in listed], env.budget - env.left, env.memory - env.mem))
        st.apply(pick(actions, i))
        i += 1
    return out


def _hoisted(rs) -> bool:
    """Whether some listing tests a link before an option's loop."""
    src = _listing_source(rs)
    return "if I and" in src or "hoisted = True" in src or re.search(r"\n( *)if (?!hoisted:)[^\n]*:\n\1    for l_", src) is not None


def _options(rs) -> dict[str, str]:
    return {block.split("\n", 1)[0].strip(): block for block in _listing_source(rs).split("# option ")[1:]}


def test_links_tested_before_the_loop_list_the_same_actions_and_charge_the_same_work(tmp_path):
    hoisted, every = _load(tmp_path, RULES, True), _load(tmp_path, RULES, False)
    fast, slow = _listings(hoisted), _listings(every)
    assert len(fast) == 8
    assert fast == slow
    assert {a[0] for listed, _, _ in fast for a in listed} >= set("abcdefgh")


def test_reads_made_before_the_loop_list_the_same_actions_and_charge_the_same_work(tmp_path):
    """The subscripts of a condition that read the same at every item, read once before the
    loop: the same listings and work as reading them at every item, with or without links
    tested before the loop; a read of the loop's name, a call and a comprehension stay."""
    both, links_only, every = (_load(tmp_path, RULES, True), _load(tmp_path, RULES, True, reads=False),
                               _load(tmp_path, RULES, False))
    assert _listings(both) == _listings(links_only) == _listings(every)
    options = _options(both)
    reads = {name: src.split("if hoisted:", 1)[0] for name, src in options.items()}
    assert "h_1 = V['open'][o_1]" in reads["a"] and "h_2 = V['t'][o_1]" in reads["a"]
    assert "V['xs'][l_k" not in reads["a"] and "if h_1 and (h_2 < 6):" in options["a"]
    assert "V['t'][o_1]" in reads["d"] and "FN." not in reads["d"] and "env" not in reads["d"].split("hoisted = False")[1]
    assert "hoisted" not in options["pass"]
    # a comprehension stays in the loop (its read of t[p] is made before it); so does a charge
    assert "for l_x_" not in reads["h"] and "h_1 = V['t'][o_1]" in reads["h"] and "> h_1)]" in options["h"]
    assert "env.left -= 10" not in reads["e"] and "env.left -= 10" in options["e"].split("if hoisted:", 1)[1]


def test_calls_charged_once_for_the_loop_list_the_same_actions_and_charge_the_same_work(tmp_path):
    """The calls a loop's first link writes out, charged once for every item before the loop:
    the same listings and work as charging them at each item; only where nothing else in the
    loop charges work (a comprehension, a call made, a later link's calls)."""
    bulk, each = _load(tmp_path, RULES, True), _load(tmp_path, RULES, True, bulk=False)
    assert _listings(bulk) == _listings(each) == _listings(_load(tmp_path, RULES, False))
    options = _options(bulk)
    for name in ("d", "e"):  # `cost(...)` written out, first in the loop
        assert re.search(rf"env.left -= {codegen.CALL_COST} \* H_len\((I|PAIRS[0-9]+)\)", options[name])
        assert "else:" in options[name].split("env.left -=", 2)[-1]  # the loop as written when it does not fit
    for name in ("a", "b", "c", "f", "g", "h", "pass"):  # no call written out, or a comprehension in the loop
        assert "* H_len(" not in options[name] and "bulk" not in options[name]
    assert all("* H_len(" not in src for src in _options(each).values())


@pytest.mark.parametrize(("src", "charges"), [
    ("V['x'][l_k_1] > 1", False), ("H_mulm(env, w_1, 2) > 3", False), ("H_grow(w_4, env) <= h_6", False),
    ("H_mattr(env, o, 'slot') == 1", False), ("H_slice(env, o, 1, 2)", False), ("H_str(env, x) != ''", False),
    ("FN.f_cost(env, 1) > 0", True), ("H_it(env, xs)", True), ("H_itm(env, xs)", True), ("env.left > 0", True),
    ("G1(env) > 0", True), ("B3(env, p)", True), ("H_grow(a + b, env)", True), ("H_mulmx(env, 1, 2)", True),
])
def test_only_helpers_that_charge_memory_alone_leave_a_loop_its_bulk_charge(src, charges):
    assert codegen._charges_work(src) is charges


def test_only_a_leading_invariant_link_that_charges_nothing_moves_before_the_loop(tmp_path):
    options = _options(_load(tmp_path, RULES, True, reads=False, bulk=False))
    before = {name: src.split("for ", 1)[0] for name, src in options.items()}
    # both invariant links lead: both before the loop, the item's link in it
    assert "V['open']" in before["a"] and "V['t']" in before["a"] and "V['xs']" not in before["a"]
    # an invariant link after one that reads the loop's name stays in the loop (order of errors)
    assert "if I and" not in options["b"]
    assert "not V['open']" in before["c"]
    # a link that charges (a call written out, a call made, a comprehension) stays in the loop
    assert "V['t']" in before["d"] and "env.left -= 10" not in before["d"]
    assert "if I and" not in options["e"]
    assert "if I and" not in options["h"]
    # constant items: the link before the loop over the kept pairs
    assert before["f"].split("\n", 1)[1].strip().startswith("if V['open']")
    # two names bound
    assert "V['t']" in before["g"]
    assert all("if I and" not in src for src in _options(_load(tmp_path, RULES, False, reads=False)).values())


def test_the_shipped_map_game_lists_the_same_actions_and_work(tmp_path):
    """Belgian Beers Race's moves (``not camping[p]`` and ``breath[p] < 5`` before the loop
    over the roads, the player's time, place and row of the map read once): the same listings
    at every decision of random games."""
    from interpreter.engine.rng import Rng

    results = []
    for hoist in (True, False):
        codegen.HOIST = codegen.READS = codegen.BULK = hoist
        try:
            rs = load_ruleset("belgian_beers_race")
        finally:
            codegen.HOIST = codegen.READS = codegen.BULK = True
        src = "\n".join(src for _, src in rs.sources)
        assert ("env.left -= 10 * H_len(I)" in src) is hoist  # a road's cost charged once for the roads
        assert ("if I and (not V['camping']" in src) is hoist  # in the loop that reads as written
        assert ("if I and (not h_1)" in src) is hoist  # and in the loop that reads what was read before it
        assert (re.search(r"h_[0-9]+ = MAP[0-9]+\[h_[0-9]+\]", src) is not None) is hoist  # a road's row of the map
        rng = Rng(7)
        results.append([_listings(rs, 3, seed, lambda actions, i, rng=rng: rng.choice(actions)) for seed in range(3)])
    assert results[0] == results[1]
    assert sum(len(game) for game in results[0]) > 200


ERRORS = """\
name: Bad
players: {min: 2, max: 2}
vars: {xs: [1, 2], n: 0}
flow:
  - choose:
      options:
        - {action: z, for: k, in: "ITEMS", if: "COND"}
        - {action: pass}
"""


@pytest.mark.parametrize(
    "items, cond, fails",
    [
        ("[]", "xs[5] > 0 and k > 0", False),  # no items: the failing link is never evaluated
        ("[1, 2]", "xs[5] > 0 and k > 0", True),  # the failing link fails first either way
        ("n", "n > 0 and k > 0", True),  # not a list: fails as the loop fails, the link false
        ("n", "n == 0 and k > 0", True),
        ("'ab'", "n == 0 and k != 'a'", False),  # a text's letters
        ("[1, 2]", "n == 0 and xs[k] > 1", True),  # xs[2]: the item's link fails
        # a read made before the loop that fails: the loop as written runs, and fails where it reads it
        ("xs", "k > 0 and xs[5] > 0", True),
        ("xs", "k > 5 and xs[5] > 0", False),  # ... or never reads it
        ("xs[0:0]", "k > 0 and xs[5] > 0", False),  # no items: nothing is read
        ("xs", "k > 0 and xs[n] > 0 and xs[k - 1] >= 0", False),  # xs[n] read once, xs[k - 1] at each item
    ],
)
def test_errors_are_those_of_the_loop_testing_every_link(tmp_path, items, cond, fails):
    text = ERRORS.replace("ITEMS", items).replace("COND", cond)
    results = []
    for hoist in (True, False):
        rs = _load(tmp_path, text, hoist)
        assert _hoisted(rs) is hoist
        try:
            st = rs.new_game(2)
            results.append([str(a) for a in st.legal_actions()])
        except TapsterError as exc:
            results.append(str(exc))
    assert results[0] == results[1]
    assert isinstance(results[0], str) is fails, results[0]


def test_the_work_budget_stops_a_listing_at_the_same_place(tmp_path):
    """A budget of exactly the work a listing charges passes with its links tested before the
    loop or in it, and one less fails in both, with the same error."""
    text = (
        "name: Budget\nplayers: {min: 2, max: 2}\nlimits: {work: LIMIT}\nvars: {xs: [1, 2, 3, 4], on: true}\n"
        "functions:\n  cost: {params: [k], value: \"xs[k % 4]\"}\n"
        "flow:\n  - choose:\n      options:\n"
        "        - {action: z, for: k, in: \"[x for x in range(150)]\", if: \"on and cost(k) > 0\"}\n"
    )
    st = _load(tmp_path, text.replace("LIMIT", "100000"), False).new_game(2)
    choose, loc, _, _ = st.pending
    env = Env(st, dict(loc))
    env.refill()
    choose.generated(env)
    need = env.budget - env.left
    assert need > 150 * codegen.CALL_COST  # the items' list is charged too
    for limit, fails in ((need, False), (need - 1, True)):
        results = []
        for hoist in (True, False):
            rs = _load(tmp_path, text.replace("LIMIT", str(limit)), hoist)
            assert _hoisted(rs) is hoist
            try:
                rs.new_game(2)
                results.append("ok")
            except TapsterError as exc:
                results.append(str(exc))
        assert results[0] == results[1], (limit, results)
        assert (results[0] != "ok") is fails, (limit, results)


@pytest.mark.parametrize(("src", "pure"), [
    ("V['time'][o_1]", True), ("MAP9[V['pos'][o_1]]", True), ("K5[V['day']]", True), ("MAP9[h_1]", True),
    ("Z['hand'][CUR]", True), ("V['a']['x]y']", True), ("V['a'][\"it's\"]", True), ("V['a'][12]", True),
    ("V['x'][l_n_2]", False),  # a name a loop or a comprehension binds
    ("V['a'][o_1 + 1]", False), ("V['a'][-1]", False), ("V['a'][o_1, 2]", False),  # an operator, a tuple
    ("V['a'][f(o_1)]", False), ("V['a'][o_1](env)", False), ("V['a'][o_1].x", False),  # a call, an attribute
    ("V['a'][o_1 if 1 else 2]", False), ("V['a'][ho_1]", False), ("V['a'][K1[o_1]][L1]", False),
    ("V", False), ("o_1", False),  # not a subscript: nothing to read once
    ("V['a'][env.left]", False), ("V['a'][FN.f_x]", False),
])
def test_only_a_pure_subscript_chain_is_read_before_the_loop(src, pure):
    """``invariant_read``: subscripts of the state, constants, the frame's hoisted locals and
    reads already hoisted, string literals of any content left out; anything with a call, an
    operator, an attribute, a budget or a name a loop binds is not."""
    from interpreter.lang.genexpr import invariant_read

    assert invariant_read(src) is pure
