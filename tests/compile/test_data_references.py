"""Checked data references (interpreter/compile/references.py): a table cell or a parameter that
a `call: {dynamic: ...}` turns into a procedure name is checked when the ruleset loads (so
`tapster validate` refuses it), at the cell's or parameter's file:line:col, with the call's
place, the nearest procedure and the fix; names known only in play stay unchecked."""

from __future__ import annotations

import pytest

from interpreter import RulesetError, RulesetErrors, TapsterError, load_ruleset

from ..conftest import copy_ruleset

RULES = """\
name: Refs
players: {min: 2, max: 2}
params:
  mode: first
  extra: [first, second]
components:
  card:
    items:
      - {name: a, effect: first, power: 1}
      - {name: b, effect: second, power: none}
      - {name: c, effect: "", power: 2}
    start: deck
zones:
  deck: {visibility: public}
vars: {n: 0}
procedures:
  sp_first: {do: [{add: {n: 1}}]}
  sp_second: {do: [{add: {n: 10}}]}
flow:
  - for_each:
      in: "[c for c in deck if c.effect != '']"
      as: c
      do:
        - call: {dynamic: "'sp_' + c.effect"}
  - call: {dynamic: "'sp_' + mode"}
  - call: {dynamic: "'sp_' + extra[n % 2]"}
  - end_game: done
outcome:
  score: n
"""


def _path(tmp_path, text: str, table: str | None = None):
    path = tmp_path / "ruleset.yaml"
    path.write_text(text)
    if table is not None:
        (tmp_path / "cards.csv").write_text(table)
    return path


def _errors(path) -> list:
    with pytest.raises(RulesetError) as info:
        load_ruleset(path)
    err = info.value
    return err.errors if isinstance(err, RulesetErrors) else [err]


def _at(text: str, fragment: str, nth: int = 0) -> tuple[int, int]:
    """(line, column) of ``fragment``'s first character in ``text`` (its ``nth`` occurrence)."""
    seen = 0
    for i, line in enumerate(text.splitlines(), 1):
        if fragment in line:
            if seen == nth:
                return i, line.index(fragment) + 1
            seen += 1
    raise AssertionError(fragment)


def test_good_references_load_and_play(tmp_path):
    """Empty texts and values that are not texts (`power`) are left out; every name made is a procedure."""
    st = load_ruleset(_path(tmp_path, RULES)).new_game(2)
    assert st.is_terminal() and st.vars["n"] == 1 + 10 + 1 + 1  # a, b; mode; extra[0]


def test_a_table_cell_that_names_no_procedure_is_a_load_error(tmp_path):
    text = RULES.replace("effect: second", "effect: secnod")
    errs = _errors(_path(tmp_path, text))
    assert len(errs) == 1
    err = errs[0]
    line, col = _at(text, "secnod")
    assert (err.mark.line, err.mark.column) == (line, col)
    call_line, call_col = _at(text, "'sp_' + c.effect")
    for w in ["the table cell `effect: secnod` of `card-2`", "makes the procedure name `sp_secnod`",
              f"`call: {{dynamic: 'sp_' + c.effect}}` ({tmp_path / 'ruleset.yaml'}:{call_line}:{call_col})",
              "did you mean `sp_second`?", "fix the value, or add the procedure `sp_secnod`"]:
        assert w in str(err), str(err)


def test_a_parameter_and_a_parameter_item_are_checked(tmp_path):
    text = RULES.replace("  mode: first", "  mode: frist").replace("extra: [first, second]", "extra: [first, scond]")
    errs = _errors(_path(tmp_path, text))
    messages = [str(e) for e in errs]
    assert len(errs) == 2, messages
    mode, extra = errs
    assert (mode.mark.line, mode.mark.column) == _at(text, "frist")
    assert "the parameter `mode: frist` makes the procedure name `sp_frist`" in str(mode)
    assert "did you mean `sp_first`?" in str(mode)
    assert (extra.mark.line, extra.mark.column) == _at(text, "scond")
    assert "the parameter `extra`'s item `scond` makes the procedure name `sp_scond`" in str(extra)
    assert "did you mean `sp_second`?" in str(extra)


def test_a_csv_table_row_is_named(tmp_path):
    text = RULES.replace("""    items:
      - {name: a, effect: first, power: 1}
      - {name: b, effect: second, power: none}
      - {name: c, effect: "", power: 2}
""", "    table: cards.csv\n")
    errs = _errors(_path(tmp_path, text, "name,effect,power\na,first,1\nb,sceond,\nc,,2\n"))
    assert len(errs) == 1
    err = errs[0]
    assert err.mark.file.endswith("cards.csv") and err.mark.line == 3, (err.mark, str(err))
    assert "`effect: sceond` of `card-2`" in str(err) and "did you mean `sp_second`?" in str(err)


def test_a_name_known_only_in_play_is_not_checked_and_fails_in_play(tmp_path):
    text = RULES.replace("""  - call: {dynamic: "'sp_' + mode"}""", """  - set: {n: 0}
  - call: {dynamic: "'sp_' + ['first', 'x'][n]"}
  - call: {dynamic: "'sp_' + str(n)"}""")
    rs = load_ruleset(_path(tmp_path, text))  # loads: `str(n)` is known only in play
    with pytest.raises(TapsterError) as info:
        rs.new_game(2)
    assert "no procedure named 'sp_1'" in str(info.value)  # n: 1 after sp_first


def test_a_typo_in_a_shipped_rulesets_ability_cell_is_caught(tmp_path):
    """beer_knight names its abilities by table data (`'ab_' + c.hmb`, cards.csv): a typo in one
    cell is refused at load, at that cell's row."""
    import csv

    path = copy_ruleset(tmp_path, "beer_knight")
    table = path.parent / "cards.csv"
    lines = table.read_text().splitlines(keepends=True)
    header_at = next(i for i, ln in enumerate(lines) if not ln.startswith("#"))
    header = next(csv.reader([lines[header_at]]))
    col = header.index("hmb")
    for i in range(header_at + 1, len(lines)):
        row = next(csv.reader([lines[i]]))
        if len(row) > col and row[col]:
            break
    good = row[col]
    row[col] = good + "x"
    lines[i] = ",".join(row) + "\n"
    table.write_text("".join(lines))
    errs = [e for e in _errors(path) if "makes the procedure name" in str(e)]  # (its display check also objects)
    assert len(errs) == 1, [str(e) for e in errs]
    assert errs[0].mark.file.endswith("cards.csv") and errs[0].mark.line == i + 1, errs[0].mark
    assert f"`hmb: {good}x`" in str(errs[0]) and f"makes the procedure name `ab_{good}x`" in str(errs[0])
    assert f"did you mean `ab_{good}`" in str(errs[0])


def test_a_kind_whose_cells_name_no_procedure_is_not_called(tmp_path):
    """`'sp_' + c.effect` where coins carry an `effect` too (none a procedure): the coins are
    taken as never called, and a typo among the cards' cells is still caught."""
    coins = """\
  coin:
    items: [{name: copper, effect: shiny}, {name: silver, effect: shinier}]
    start: deck
"""
    text = RULES.replace("zones:\n", coins + "zones:\n").replace(
        "in: \"[c for c in deck if c.effect != '']\"", "in: \"[c for c in deck if c.kind == 'card' and c.effect != '']\"")
    rs = load_ruleset(_path(tmp_path, text))
    assert rs.new_game(2).vars["n"] == 13
    bad = text.replace("effect: second", "effect: secnod")
    errs = _errors(_path(tmp_path, bad))
    assert [e.mark.line for e in errs] == [_at(bad, "secnod")[0]], [str(e) for e in errs]
