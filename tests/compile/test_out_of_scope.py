"""A name the ruleset has elsewhere but not where it is used is reported with the reason (issue 31):
"unknown name `x` here: `x` is a `for_each` variable of phase `deal` (file:line:column), not in
scope in a component's `label:` (...)", at the use's own file:line:column — one test per kind of
name (a variable, a zone, a loop variable, a `let` name, an option's name, a function's, a
procedure's and a trigger's parameter, a column of another kind, a map's node key, a name known
only while a game runs), and the plain error (with its suggestions) where the name exists nowhere."""

from __future__ import annotations

import re

import pytest

from interpreter import RulesetError, RulesetErrors, load_ruleset

BASE = """\
name: Scopes
players: {min: 2, max: 2}
params: {rounds: 2}
maps:
  land:
    nodes: {items: [{id: ASH, name: Ashford}, {id: BRY, name: Bryn}]}
    edges: {items: [{source: ASH, target: BRY}]}
components:
  chip:
    items: [{value: 1, town: ASH}, {value: 2, town: BRY}]
    label: "chip {value}"
    start: pool
  token:
    items: [{size: 1}]
    start: pool
zones:
  pool: {visibility: public}
  hand: {per_player: true, visibility: owner}
vars:
  total: {per_player: true, initial: 0}
functions:
  double: {params: [n], value: "n * 2"}
procedures:
  gain:
    params: [who]
    do:
      - add: {"total[who]": 1}
triggers:
  - on: scored
    params: [seat]
    do:
      - add: {"total[seat]": 0}
flow:
  - phase:
      name: deal
      do:
        - for_each:
            in: players
            as: p
            do:
              - let: {bonus: 1}
              - call: {procedure: gain, with: {who: p}}
              - emit: {event: scored, with: {seat: p}}
  - repeat:
      times: rounds
      do:
        - choose:
            name: pick
            player: current
            options:
              - action: take
                for: c
                in: pool
                do:
                  - move: {what: c, from: pool, to: "hand[current]"}
            otherwise:
              - log: nothing left
outcome:
  score: total[p]
"""


def errors_of(tmp_path, text):
    path = tmp_path / "ruleset.yaml"
    path.write_text(text)
    with pytest.raises(RulesetError) as info:
        load_ruleset(path)
    err = info.value
    return err.errors if isinstance(err, RulesetErrors) else [err]


def line_col(text, fragment, name):
    """The file line and column of ``name`` where ``fragment`` (the text up to and with it) ends."""
    line = next(i for i, t in enumerate(text.splitlines(), 1) if fragment in t)
    src = text.splitlines()[line - 1]
    return line, src.index(fragment) + len(fragment) - len(name) + 1


def test_the_base_ruleset_loads(tmp_path):
    path = tmp_path / "ruleset.yaml"
    path.write_text(BASE)
    rs = load_ruleset(path)
    assert rs.by_id["chip-1"].label == "chip 1"


@pytest.mark.parametrize(
    ("old", "new", "fragment", "name", "why", "bound_at", "where"),
    [
        # a variable in a component's label: components are made before any game
        ('label: "chip {value}"', 'label: "chip {value} {total}"', 'label: "chip {value} {total', "total",
         "is a variable", "  total: {per_player", "a component's `label:` (kind `chip`"),
        # a zone in a component's derived field
        ("    start: pool\n  token:", "    derived: {n: len(pool)}\n    start: pool\n  token:", "derived: {n: len(pool", "pool",
         "is a zone", "  pool: {visibility", "a component's `derived:` field `n` (kind `chip`"),
        # a `for_each` variable after its loop, in another phase of the flow
        ("- log: nothing left", "- log: '{p}'", "log: '{p", "p",
         "is a `for_each` variable of phase `deal`", "as: p", "`flow` at this point"),
        # a `let` name outside the loop that binds it
        ("times: rounds", "times: bonus", "times: bonus", "bonus",
         "is a `let` name of phase `deal`", "let: {bonus", "`flow` at this point"),
        # an option's name in the decision's `otherwise`
        ("- log: nothing left", "- log: '{c.value}'", "log: '{c", "c",
         "is a name bound by option `take` of decision `pick` in `flow`", "for: c", "`flow` at this point"),
        # a function's parameter read by another function
        ('double: {params: [n], value: "n * 2"}',
         'double: {params: [n], value: "n * 2"}\n  half: {params: [m], value: "n // 2"}', 'half: {params: [m], value: "n', "n",
         "is a parameter of function `double`", "double: {params: [n]", "the body of function `half`"),
        # a procedure's parameter in the flow that calls it
        ("with: {who: p}", "with: {who: who}", "with: {who: who", "who",
         "is a parameter of procedure `gain`", "params: [who]", "phase `deal` at this point"),
        # a trigger's parameter in a procedure
        ('add: {"total[who]": 1}', 'add: {"total[who]": seat}', '"total[who]": seat', "seat",
         "is a parameter of the trigger on `scored`", "params: [seat]", "procedure `gain`"),
        # a column of another component kind
        ('label: "chip {value}"\n    start: pool\n  token:\n    items: [{size: 1}]',
         'label: "chip {value}"\n    start: pool\n  token:\n    items: [{size: 1}]\n    label: "token {value}"',
         'label: "token {value', "value", "is a field of component kind `chip`",
         "  chip:", "a component's `label:` (kind `token`"),
        # a map's node key written bare
        ('label: "chip {value}"', "label: \"chip {node_attr(land, ASH, 'name')}\"", "node_attr(land, ASH", "ASH",
         "is a node of map `land`", "    nodes:", "a component's `label:`"),
        # a name known only while a game runs, in a component's label
        ('label: "chip {value}"', 'label: "chip {current}"', 'label: "chip {current', "current",
         "is the seat whose turn it is (0-based), known only while a game runs", None, "a component's `label:`"),
        # a zone in `limits: {actions}` (read once per seat count, before any game)
        ("outcome:\n", "limits: {actions: len(pool)}\noutcome:\n", "limits: {actions: len(pool", "pool",
         "is a zone", "  pool: {visibility", "`limits:` (it reads the parameters and `num_players`)"),
        # a zone index that names a loop variable outside its loop
        ('to: "hand[current]"', 'to: "hand[p]"', 'to: "hand[p', "p",
         "is a `for_each` variable of phase `deal`", "as: p", "`flow` at this point"),
    ],
)
def test_a_name_out_of_scope_says_why(tmp_path, old, new, fragment, name, why, bound_at, where):
    assert old in BASE
    text = BASE.replace(old, new, 1)
    errs = errors_of(tmp_path, text)
    hits = [e for e in errs if f"unknown name `{name}` here: `{name}` {why}" in str(e)]
    assert hits, [str(e) for e in errs]
    err = hits[0]
    assert f"not in scope in {where}" in str(err), str(err)
    # where the name is bound, file:line:column (a name a game knows has no line: it is built in)
    if bound_at is not None:
        bound_line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith(bound_at) or bound_at in t)
        found = re.search(r"\(([^()]*ruleset\.yaml):(\d+):(\d+)\)", str(err))
        assert found and int(found.group(2)) == bound_line, str(err)
    # the error stands at the use's own file:line:column (the column of the key holding the
    # expression, as every expression error's: the loader marks keys), with a caret under the name
    line, column = line_col(text, fragment, name)
    assert str(err).startswith(f"{tmp_path / 'ruleset.yaml'}:{line}:{err.mark.column}: in expression `"), str(err)
    assert err.mark.line == line and err.mark.column <= column, (err.mark, line, column)
    source, caret = str(err).splitlines()[-2:]
    assert source[caret.index("^"):].startswith(name), (source, caret)


def test_a_name_that_exists_nowhere_keeps_its_suggestions(tmp_path):
    text = BASE.replace("score: total[p]", "score: totl[p]")
    errs = errors_of(tmp_path, text)
    assert any("unknown name `totl`; did you mean `total`?" in str(e) for e in errs), [str(e) for e in errs]
    assert not any("here:" in str(e) for e in errs)


def test_a_name_bound_in_several_places_says_how_many(tmp_path):
    text = BASE.replace("- log: nothing left", "- for_each: {in: players, as: p, do: [{log: '{p}'}]}\n              - log: '{p}'")
    errs = errors_of(tmp_path, text)
    assert any("unknown name `p` here: `p` is a `for_each` variable of phase `deal`" in str(e)
               and "(and 1 other place(s))" in str(e) for e in errs), [str(e) for e in errs]


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        # a column of another kind: read it from a component
        ('items: [{size: 1}]', 'items: [{size: 1}]\n    label: "token {value}"',
         ["unknown name `value` here: `value` is a field of component kind `chip` (", "; read it from a component: `c.value`"]),
        # a node key written bare: name it as a text
        ('label: "chip {value}"', "label: \"chip {node_attr(land, ASH, 'name')}\"",
         ["unknown name `ASH` here: `ASH` is a node of map `land` (", "; a node is named by its key as a text: `'ASH'`"]),
        # a phase's name written bare: compare it as a text
        ("- log: nothing left", "- log: '{deal}'",
         ["unknown name `deal` here: `deal` is the name of a phase (", "; compare it as a text: `phase == 'deal'`"]),
    ],
)
def test_the_reason_says_how_to_write_it(tmp_path, old, new, words):
    errs = errors_of(tmp_path, BASE.replace(old, new, 1))
    assert any(all(w in str(e) for w in words) for e in errs), [str(e) for e in errs]


def test_a_display_line_s_name_in_another_line_says_why(tmp_path):
    text = BASE.replace("outcome:\n", "display:\n  footer:\n    - {for: s, in: players, text: 'P{s + 1}: {total[s]}'}\n"
                                      "    - 'last: {s}'\noutcome:\n")
    errs = errors_of(tmp_path, text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "'last: {s}'" in t)
    hits = [e for e in errs if "unknown name `s` here: `s` is a name bound by a display line's `for:` (" in str(e)
            and "not in scope in the display at this point" in str(e)]
    assert hits and hits[0].mark.line == line, [str(e) for e in errs]


def test_a_derived_field_read_before_it_is_derived_says_why(tmp_path):
    text = BASE.replace("    start: pool\n  token:", "    derived: {twice: 'later * 2', later: 'value + 1'}\n    start: pool\n  token:", 1)
    errs = errors_of(tmp_path, text)
    words = ["unknown name `later` here: `later` is a `derived:` field of component kind `chip` (",
             "not in scope in a component's `derived:` field `twice` (kind `chip`",
             "a derived field reads its row and the fields derived before it, in order"]
    assert any(all(w in str(e) for w in words) for e in errs), [str(e) for e in errs]
