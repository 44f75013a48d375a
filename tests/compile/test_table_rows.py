"""Tables (interpreter/compile/declarations.py): a `copies` column gives each row its own number
of components (a CSV table or inline items; the kind's `copies` for a row without one), and
`rows: {KEY: {...}}`, in a variant or the ruleset, changes rows by their key; the bad inputs
are errors at the cell or entry (file:line:col) with what was expected and a fix."""

from __future__ import annotations

import pytest

from interpreter import RulesetError, RulesetErrors, load_ruleset

RULES = """\
name: Piles
players: {min: 2, max: 2}
components:
  card:
    table: cards.csv
    key: name
    start: supply
    label: "{name} ({cost})"
  coin:
    items:
      - {name: copper, value: 1, copies: 3}
      - {name: silver, value: 2}
      - {name: gold, value: 3, copies: 0}
    key: name
    copies: 2
    start: supply
zones:
  supply: {visibility: public}
outcome:
  score: "0"
flow:
  - end_game: done
variants:
  pricey:
    components:
      card:
        rows:
          hop_garden: {cost: 5}
          mash_tun: {copies: 0}
      coin:
        rows:
          gold: {copies: 1, value: 4}
"""

CSV = "name,cost,copies\nhop_garden,4,10\nmash_tun,3,2\nbrew_kettle,6,\n"


def _path(tmp_path, text: str = RULES, csv: str = CSV):
    (tmp_path / "cards.csv").write_text(csv)
    path = tmp_path / "ruleset.yaml"
    path.write_text(text)
    return path


def _ids(rs, kind: str) -> list[str]:
    return [c.id for c in rs.kinds[kind].components]


def test_each_row_makes_its_own_copies(tmp_path):
    rs = load_ruleset(_path(tmp_path))
    cards = _ids(rs, "card")
    assert cards.count("card-brew_kettle") == 1  # an empty cell: the kind's copies (1)
    assert sum(i.startswith("card-hop_garden-") for i in cards) == 10
    assert sum(i.startswith("card-mash_tun-") for i in cards) == 2
    assert len(cards) == 13
    # copy by copy, as without the column: every row's first copy, then the second ones...
    assert cards[:3] == ["card-hop_garden-1", "card-mash_tun-1", "card-brew_kettle"]
    assert "copies" not in rs.by_id["card-hop_garden-1"].fields  # not a field of the cards
    coins = _ids(rs, "coin")
    assert coins == ["coin-copper-1", "coin-silver-1", "coin-copper-2", "coin-silver-2", "coin-copper-3"]
    assert rs.by_id["card-hop_garden-3"].fields["cost"] == 4 and rs.by_id["card-hop_garden-3"].label == "hop_garden (4)"


def test_a_variant_changes_rows_by_key(tmp_path):
    rs = load_ruleset(_path(tmp_path), "pricey")
    cards = _ids(rs, "card")
    assert not any(i.startswith("card-mash_tun") for i in cards)  # copies: 0 leaves it out
    assert {rs.by_id[i].fields["cost"] for i in cards if i.startswith("card-hop_garden")} == {5}
    assert rs.by_id["card-brew_kettle"].fields["cost"] == 6
    assert rs.by_id["coin-gold"].fields["value"] == 4  # one copy: no suffix
    base = load_ruleset(_path(tmp_path))
    assert "coin-gold" not in base.by_id and base.by_id["card-hop_garden-1"].fields["cost"] == 4


def _errors(path, variant=None) -> list:
    with pytest.raises(RulesetError) as info:
        load_ruleset(path, variant)
    err = info.value
    return err.errors if isinstance(err, RulesetErrors) else [err]


def _line_col(text: str, fragment: str) -> tuple[int, int]:
    for i, line in enumerate(text.splitlines(), 1):
        if fragment in line:
            return i, line.index(fragment) + 1
    raise AssertionError(fragment)


@pytest.mark.parametrize(("old", "new", "at", "words"), [
    ("hop_garden: {cost: 5}", "hop_gardn: {cost: 5}", "hop_gardn:",
     ["no row has `name: hop_gardn`", "did you mean `hop_garden`?", "expected the `name` of a row"]),
    ("hop_garden: {cost: 5}", "hop_garden: 5", "hop_garden: 5",  # the schema's check
     ["5 is not of type 'object'", "(at variants/pricey/components/card/rows/hop_garden)"]),
    ("hop_garden: {cost: 5}", "hop_garden: {name: hops}", "name: hops",
     ["cannot change a row's key `name`", "add a row to the table instead"]),
])
def test_bad_row_changes_are_errors_at_the_entry(tmp_path, old, new, at, words):
    text = RULES.replace(old, new)
    errs = _errors(_path(tmp_path, text), "pricey")
    err = errs[0]
    assert (err.mark.line, err.mark.column) == _line_col(text, at), str(err)
    for w in words:
        assert w in str(err), str(err)


def test_rows_need_a_key(tmp_path):
    text = RULES.replace("    key: name\n    copies: 2\n", "    copies: 2\n")
    errs = _errors(_path(tmp_path, text), "pricey")
    messages = [str(e) for e in errs]
    assert any("coin: `rows:` changes rows by their key, and the kind has no `key:`" in m
               and "declare the column that names each row (`key: name`)" in m for m in messages), messages


@pytest.mark.parametrize(("csv", "inline", "found"), [
    ("name,cost,copies\nhop_garden,4,-1\nmash_tun,3,2\nbrew_kettle,6,\n", None, "-1"),
    ("name,cost,copies\nhop_garden,4,many\nmash_tun,3,2\nbrew_kettle,6,\n", None, "many"),
    (CSV, "{name: copper, value: 1, copies: 2.5}", "2.5"),
])
def test_a_bad_copies_cell_is_an_error_at_the_cell(tmp_path, csv, inline, found):
    text = RULES if inline is None else RULES.replace("{name: copper, value: 1, copies: 3}", inline)
    path = _path(tmp_path, text, csv)
    err = _errors(path)[0]
    assert f"a row's `copies` is how many components the row makes, a whole number ≥ 0, found '{found}'" in str(err)
    assert "write e.g. `copies: 3` (0 leaves the row out)" in str(err)
    if inline is None:
        assert err.mark.file.endswith("cards.csv") and err.mark.line == 2, err.mark
    else:
        assert (err.mark.line, err.mark.column) == _line_col(text, "2.5}"), err.mark


def test_the_rows_copies_count_toward_the_component_limit(tmp_path):
    csv = "name,cost,copies\nhop_garden,4,60000\nmash_tun,3,60000\nbrew_kettle,6,\n"
    err = _errors(_path(tmp_path, RULES, csv))[0]
    assert "card: the rows' `copies` add up to 120001, which would make more than 100000 components" in str(err)
