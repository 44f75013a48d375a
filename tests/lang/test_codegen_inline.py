"""Ruleset functions written out in a listing's conditions (interpreter/lang/codegen.py,
``_test``; ``ExpressionForms._inline``): a call that a condition certainly makes, with constant
or local arguments, becomes its body in place, its work charged before the link of the
``and`` chain that makes it.

What it must keep, against the same listing with every call made (``codegen.INLINE``
False): the legal actions, the work charged by each listing (to the item: every call charges
``CALL_COST`` where it happens), and the errors; and what it must not write out: a call made
only on one side of ``or``, in a conditional's branch, in a comprehension, or with an argument
that is not a constant or a local."""

from __future__ import annotations

import pytest

from interpreter import load_ruleset
from interpreter.errors import TapsterError
from interpreter.lang import codegen
from interpreter.lang.expression import Env

RULES = """\
name: Inline
players: {min: 2, max: 2}
params: {level: 2}
vars: {t: [0, 3], xs: [1, 2, 3, 4]}
functions:
  cost: {params: [p, k, mode], value: "xs[k] * (2 if mode == 'fast' and t[p] >= level else 1)"}
  big: {params: [p], value: "t[p] + cost(p, 0, 'slow')"}
  flag: {params: [p], value: "t[p] > 1"}
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
                    - {action: a, for: k, in: "range(3)", if: "cost(p, k, 'fast') > 2"}
                    - {action: b, for: k, in: "range(3)", if: "flag(p) and t[p] + cost(p, k, 'slow') <= 5"}
                    - {action: c, for: k, in: "range(3)", if: "flag(p) or cost(p, k, 'fast') > 1"}
                    - {action: d, if: "big(p) > 3 and not flag(p)"}
                    - {action: e, for: k, in: "range(3)", if: "(cost(p, k, 'x') if k > 0 else 0) < 3"}
                    - {action: f, for: k, in: "range(3)", if: "any(cost(p, j, 'fast') > 4 for j in range(k))"}
                    - {action: g, for: k, in: "range(3)", if: "0 < cost(p, k, 'fast') < cost(p, 0, 'fast') + 3"}
                    - {action: h, for: k, in: "[0, 1]", if: "cost(p, k, 'fast') >= 1"}
                    - {action: i, for: k, in: "range(3)", if: "cost(p, k + 1, 'fast') > 0"}
                    - {action: j, for: k, in: "range(3)", if: "flag(p) and 2 * cost(p, k, 'fast') + big(p) > 6"}
              - set: {"t[p]": "t[p] + 1"}
"""


def _load(tmp_path, text: str, inline: bool, reads: bool = True):
    """The ruleset, calls written out in listings when ``inline``; ``reads`` False: no read
    made before an option's loop (``codegen.READS``), so each option's loop is written once."""
    path = tmp_path / "ruleset.yaml"
    path.write_text(text)
    codegen.INLINE, codegen.READS = inline, reads
    try:
        return load_ruleset(path)
    finally:
        codegen.INLINE = codegen.READS = True


def _listings(rs) -> list:
    """At every decision of a game taking each first action: the legal actions and the work
    one listing charges."""
    st = rs.new_game(2)
    out = []
    while not st.is_terminal():
        choose, loc, actions, _ = st.pending
        env = Env(st, dict(loc))
        env.refill()
        listed = choose.generated(env)
        out.append(([str(a) for a in listed], env.budget - env.left, [str(a) for a in actions]))
        st.apply(actions[0])
    return out


def _listing_source(rs) -> str:
    return "\n".join(src for _, src in rs.sources if "def legal(" in src)


def test_written_out_calls_list_the_same_actions_and_charge_the_same_work(tmp_path):
    inlined, called = _load(tmp_path, RULES, True), _load(tmp_path, RULES, False)
    assert codegen.FALLBACKS == [] or all("Inline" not in place for place, _ in codegen.FALLBACKS)
    fast, slow = _listings(inlined), _listings(called)
    assert len(fast) == 8
    assert fast == slow
    assert all(work > 0 for _, work, _ in fast)


def test_only_certain_calls_with_plain_arguments_are_written_out(tmp_path):
    src = _listing_source(_load(tmp_path, RULES, True, reads=False))
    options = {block.split("\n", 1)[0].strip(): block for block in src.split("# option ")[1:]}
    # written out: the body's read of xs, the mode folded away (`'fast' == 'fast'`), the charge
    for name in ("a", "b", "g", "h", "j"):
        assert "env.left -= 10" in options[name], (name, options[name])
        assert ".get(" not in options[name]
    assert "FN.f_cost" not in options["a"] and "V['xs']" in options["a"]
    assert "'fast'" not in options["a"]  # the constant argument folded into the body
    assert "FN.f_cost" not in options["b"] and "FN.f_flag" not in options["b"]
    # `0 < cost(p, k) < cost(p, 0) + 3`: the first comparison's operands are certain, the
    # third only when the first comparison holds
    assert options["g"].count("FN.f_cost") == 1 and "FN.f_cost(env, o_1, 0, 'fast')" in options["g"]
    # left a call (it charges itself): on one side of `or`, in a branch, in a comprehension,
    # an argument that is not a constant or a local; and a call inside a written-out body
    assert "FN.f_cost" in options["c"] and "FN.f_flag" not in options["c"]
    assert "FN.f_cost" in options["e"]
    assert "FN.f_cost" in options["f"]
    assert "FN.f_cost" in options["i"]
    assert "FN.f_cost" in options["d"]  # big's own call of cost
    # `big(p) > 3 and not flag(p)`: each link of the chain is its own test, charged where it runs
    assert "FN.f_big" not in options["d"] and "FN.f_flag" not in options["d"]
    assert options["d"].count("env.left -= 10") == 2
    assert "\x00" not in src


def test_no_call_is_written_out_when_switched_off(tmp_path):
    src = _listing_source(_load(tmp_path, RULES, False))
    assert "env.left -= 10" not in src


@pytest.mark.parametrize("cond", ["bad(k) > 0", "t[0] >= 0 and bad(k) > 0", "t[0] >= 0 and 1 + bad(k) * 2 > 0"])
def test_an_error_in_a_written_out_body_is_the_calls_error(tmp_path, cond):
    """A body that fails where it is written out gives the error the call gives (the checked
    listing runs, as for any failure of generated code)."""
    text = (
        "name: Bad\nplayers: {min: 2, max: 2}\nvars: {t: [0, 3], xs: [1, 2]}\n"
        "functions:\n  bad: {params: [k], value: \"xs[k + 5]\"}\n"
        f"flow:\n  - choose:\n      options:\n        - {{action: z, for: k, in: \"range(2)\", if: \"{cond}\"}}\n"
    )
    messages = []
    for inline in (True, False):
        rs = _load(tmp_path, text, inline)
        assert ("env.left -= 10" in _listing_source(rs)) is inline
        with pytest.raises(TapsterError) as info:
            rs.new_game(2)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert "index" in messages[0]


def test_the_work_budget_stops_a_listing_at_the_same_item(tmp_path):
    """A budget of exactly the work a listing charges passes with its calls written out or
    made, and one less fails in both, with the same error."""
    text = (
        "name: Budget\nplayers: {min: 2, max: 2}\nlimits: {work: LIMIT}\nvars: {xs: [1, 2, 3, 4]}\n"
        "functions:\n  cost: {params: [k], value: \"xs[k % 4]\"}\n"
        "flow:\n  - choose:\n      options:\n"
        "        - {action: z, for: k, in: \"range(150)\", if: \"k >= 0 and cost(k) > 0\"}\n"
    )
    st = _load(tmp_path, text.replace("LIMIT", "100000"), False).new_game(2)
    choose, loc, _, _ = st.pending
    env = Env(st, dict(loc))
    env.refill()
    choose.generated(env)
    need = env.budget - env.left
    assert need == 150 * codegen.CALL_COST  # a constant range costs nothing to walk
    for limit, fails in ((need, False), (need - 1, True)):
        results = []
        for inline in (True, False):
            rs = _load(tmp_path, text.replace("LIMIT", str(limit)), inline)
            assert ("env.left -= 10" in _listing_source(rs)) is inline
            try:
                rs.new_game(2)
                results.append("ok")
            except TapsterError as exc:
                results.append(str(exc))
        assert results[0] == results[1], (limit, results)
        assert (results[0] != "ok") is fails, (limit, results)


def test_kept_actions_are_the_actions_built(tmp_path):
    """A listing keeps the actions of a one-name option by value (a text, a whole number or a
    component) and reuses them: every listing gives actions equal to new ones, with the same
    types (``1``, ``true`` and ``1.0`` stay three actions; a list stays unkept)."""
    from interpreter.model import Action

    text = (
        "name: Kept\nplayers: {min: 2, max: 2}\nvars: {vals: [1, true, 1.0, 'a', 1, [2]], n: 0}\n"
        "flow:\n  - repeat:\n      times: 3\n      do:\n"
        "        - choose: {options: [{action: pick, for: v, in: vals}]}\n"
        "        - set: {n: \"n + 1\"}\n"
    )
    rs = _load(tmp_path, text, True)
    assert "H_act(" in _listing_source(rs)
    st = rs.new_game(2)
    seen = []
    while not st.is_terminal():
        actions = st.legal_actions()
        assert actions == tuple(Action("pick", (v,)) for v in [1, True, 1.0, "a", 1, [2]])
        assert [type(a.args[0]) for a in actions] == [int, bool, float, str, int, list]
        seen.append(actions)
        st.apply(actions[1])
    assert seen[1][0] is seen[2][0] and seen[1][3] is seen[2][3]  # kept: the same tuple again
    assert seen[1][1] is not seen[2][1]  # a bool is never looked up (1 == True)
    assert [str(a) for a in seen[2]] == [str(Action("pick", (v,))) for v in [1, True, 1.0, "a", 1, [2]]]
