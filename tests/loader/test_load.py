"""Loading is safe: no code from YAML, bombs and absurd input refused with a clear place."""

from __future__ import annotations

from pathlib import Path

import pytest

from interpreter.errors import LoadError, Mark
from interpreter.loader.load import MAX_BYTES, MAX_DEPTH, load_table, load_yaml, load_yaml_text


def test_marks_are_kept_for_every_node():
    doc = load_yaml_text("a:\n  b: [1, 2]\n  c: {d: x}\n", "f.yaml")
    assert doc.data == {"a": {"b": [1, 2], "c": {"d": "x"}}}
    assert doc.mark(("a", "b")) == Mark("f.yaml", 2, 3)
    assert doc.mark(("a", "b", 1)) == Mark("f.yaml", 2, 10)
    assert doc.mark(("a", "c", "d")) == Mark("f.yaml", 3, 7)
    # A path below a scalar falls back to its nearest ancestor.
    assert doc.mark(("a", "c", "d", 0)) == Mark("f.yaml", 3, 7)


def test_syntax_error_has_a_place():
    with pytest.raises(LoadError) as info:
        load_yaml_text("a: [1, 2\nb: 3\n", "f.yaml")
    assert info.value.mark.file == "f.yaml"
    assert info.value.mark.line == 2
    assert "YAML syntax error" in str(info.value)


def test_duplicate_keys_are_refused():
    with pytest.raises(LoadError) as info:
        load_yaml_text("zones:\n  deck: {}\n  deck: {}\n", "f.yaml")
    assert info.value.mark == Mark("f.yaml", 3, 3)
    assert "duplicate key 'deck' (first at line 2)" in str(info.value)


def test_python_tags_never_construct_objects():
    for text in ["!!python/object/apply:os.system ['echo hi']", "a: !!python/name:os.system", "a: !custom 1"]:
        with pytest.raises(LoadError):
            load_yaml_text(text, "f.yaml")


def test_billion_laughs_is_refused_quickly():
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 10):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    with pytest.raises(LoadError) as info:
        load_yaml_text("\n".join(lines), "bomb.yaml")
    assert "alias bomb" in str(info.value)


def test_recursive_alias_is_refused():
    with pytest.raises(LoadError) as info:
        load_yaml_text("a: &x [1, *x]\n", "f.yaml")
    assert "recursive alias" in str(info.value)


def test_absurd_nesting_is_refused():
    deep = "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5)
    with pytest.raises(LoadError) as info:
        load_yaml_text(deep, "f.yaml")
    assert "nesting deeper" in str(info.value)
    very_deep = "[" * 5000 + "]" * 5000
    with pytest.raises(LoadError):
        load_yaml_text(very_deep, "f.yaml")


def test_oversized_file_is_refused(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("a: " + "x" * (MAX_BYTES + 10))
    with pytest.raises(LoadError) as info:
        load_yaml(big)
    assert "limit" in str(info.value)


def test_merge_keys_are_refused():
    with pytest.raises(LoadError) as info:
        load_yaml_text("base: &b {x: 1}\nother:\n  <<: *b\n", "f.yaml")
    assert "merge keys" in str(info.value)


def test_csv_table(tmp_path):
    (tmp_path / "t.csv").write_text("# a comment\nrank,type,hops\n1,Pilsner,2\n\n2,Stout,\n")
    rows, marks = load_table(tmp_path, "t.csv", Mark("r.yaml", 1, 1))
    assert rows == [{"rank": 1, "type": "Pilsner", "hops": 2}, {"rank": 2, "type": "Stout", "hops": None}]
    assert [m.line for m in marks] == [3, 5]


def test_csv_ragged_row_has_its_line(tmp_path):
    (tmp_path / "t.csv").write_text("rank,type\n1,Pilsner\n2\n")
    with pytest.raises(LoadError) as info:
        load_table(tmp_path, "t.csv", Mark("r.yaml", 1, 1))
    assert info.value.mark.line == 3
    assert "expected 2 cells" in str(info.value)


def test_table_path_must_stay_inside_the_ruleset(tmp_path):
    with pytest.raises(LoadError):
        load_table(tmp_path, "../etc/passwd", Mark("r.yaml", 1, 1))
    with pytest.raises(LoadError):
        load_table(tmp_path, "/etc/passwd", Mark("r.yaml", 1, 1))
    with pytest.raises(LoadError) as info:
        load_table(tmp_path, "missing.csv", Mark("r.yaml", 5, 3))
    assert info.value.mark == Mark("r.yaml", 5, 3)


def test_yaml_table(tmp_path):
    (tmp_path / "t.yaml").write_text("- {name: a, power: 1}\n- {name: b, power: 2}\n")
    rows, marks = load_table(tmp_path, "t.yaml", Mark("r.yaml", 1, 1))
    assert rows[1] == {"name": "b", "power": 2}
    assert marks[1].line == 2


def test_plain_on_and_yes_keys_stay_text():
    # YAML 1.1 would read these keys as booleans; a trigger's `on:` must stay `on`.
    doc = load_yaml_text("- on: card_revealed\n  yes: 1\n  null: 2\n", "f.yaml")
    assert doc.data == [{"on": "card_revealed", "yes": 1, "null": 2}]


@pytest.mark.parametrize("absolute", [False, True])
def test_a_table_linked_outside_the_ruleset_is_refused_unread(tmp_path, absolute):
    """A table that is a symbolic link to a file outside the ruleset's folder is refused, and no
    byte of the outside file appears in the error (relative and absolute links)."""
    from interpreter import load_ruleset
    from interpreter.errors import TapsterError

    secret = tmp_path / "secret.csv"
    secret.write_text("id,word\n1,TOP-SECRET-TEXT\n")
    folder = tmp_path / "game"
    folder.mkdir()
    link = folder / "cards.csv"
    link.symlink_to(secret if absolute else Path("..") / "secret.csv")
    (folder / "ruleset.yaml").write_text(
        "name: T\nplayers: {min: 2, max: 2}\ncomponents:\n  card: {table: cards.csv}\nflow: []\n"
    )
    with pytest.raises(TapsterError) as info:
        load_ruleset(folder)
    assert "outside the ruleset's folder" in str(info.value)
    assert "TOP-SECRET" not in str(info.value) and str(secret) not in str(info.value)


@pytest.mark.parametrize(
    "text",
    [
        "vars: {v: 0}\nflow:\n  - set: {v: \"" + "9" * 4301 + " + 1\"}\n",
        "params: {n: " + "9" * 5000 + "}\nflow: []\n",
        "params: {n: 0b" + "1" * 20000 + "}\nflow: []\n",
        "params: {n: " + "9" * 1250 + "}\nflow: []\n",
    ],
)
def test_numbers_beyond_the_limit_are_refused_at_load(tmp_path, text):
    """A huge integer in an expression or in the YAML is a load error naming the limit (not a
    traceback from Python's int-to-text limit later, in `info`, JSON or a log)."""
    from interpreter import load_ruleset
    from interpreter.errors import TapsterError

    (tmp_path / "ruleset.yaml").write_text("name: T\nplayers: {min: 2, max: 2}\n" + text)
    with pytest.raises(TapsterError) as info:
        load_ruleset(tmp_path)
    assert "limit" in str(info.value)
    assert "ruleset.yaml:" in str(info.value)


def test_aliases_that_expand_past_the_size_limit_are_refused():
    """A long text repeated through aliases (issue 25): refused at the alias that crosses
    MAX_YAML_EXPANDED characters, before anything is compiled; the same text once loads."""
    from interpreter.limits import MAX_YAML_EXPANDED

    text = "x" * 100_000
    once = f"a: &t '{text}'\n"
    assert load_yaml_text(once, "f.yaml").data["a"] == text
    many = once + "b: [" + ", ".join(["*t"] * (MAX_YAML_EXPANDED // len(text) + 1)) + "]\n"
    with pytest.raises(LoadError) as info:
        load_yaml_text(many, "f.yaml")
    assert f"more than {MAX_YAML_EXPANDED:,} characters" in str(info.value)
    assert str(info.value).startswith("f.yaml:1:")  # the aliased text's own place


def test_a_template_repeated_by_aliases_is_compiled_once(tmp_path, monkeypatch):
    """Its cost counts once per distinct text (issue 25): 32 aliases, one compilation."""
    from interpreter import load_ruleset
    from interpreter.compile import context

    calls = []
    original = context.compile_template
    monkeypatch.setattr(context, "compile_template", lambda *a, **k: calls.append(a[0]) or original(*a, **k))
    template = "{1}" * 1000
    logs = "\n".join("  - *long" if i else f"  - &long {{log: '{template}'}}" for i in range(32))
    (tmp_path / "ruleset.yaml").write_text(f"name: T\nplayers: {{min: 2, max: 2}}\nsetup:\n{logs}\nflow: []\n")
    rs = load_ruleset(tmp_path / "ruleset.yaml")
    assert calls.count(template) == 1
    st = rs.new_game(2)
    assert st.is_terminal()


def _interned(text: str) -> bool:
    import sys

    return sys.intern(text) is text


def test_short_texts_are_interned_so_that_names_are_found_by_identity(tmp_path):
    """Keys and short texts of YAML and CSV come back interned (a dict then finds a name read at
    every step by one pointer test); long texts do not (a ruleset's prose); values are equal
    either way."""
    long = "x" * 65
    doc = load_yaml_text(f"zz_name_{id(tmp_path)}: {{on: zz_value_{id(tmp_path)}, k: {long}}}\n", "f.yaml")
    (key, inner), = doc.data.items()
    assert _interned(key) and all(_interned(k) for k in inner)  # `on:` kept as text, interned too
    assert _interned(inner["on"]) and not _interned(inner["k"]) and inner["k"] == long
    table = tmp_path / "t.csv"
    table.write_text(f"zz_col_{id(tmp_path)},n\nzz_cell_{id(tmp_path)},3\n")
    rows, _ = load_table(tmp_path, "t.csv", Mark("f.yaml", 1, 1))
    assert all(_interned(k) for k in rows[0]) and _interned(rows[0][f"zz_col_{id(tmp_path)}"]) and rows[0]["n"] == 3


def test_a_loaded_games_names_are_interned():
    """What the generated code reads by name every step: the variables, the zones, the
    components' fields and the map's attributes."""
    from interpreter import load_ruleset

    rs = load_ruleset("belgian_beers_race")
    st = rs.new_game(3)
    assert all(_interned(k) for k in st.vars) and all(_interned(k) for k in st.zones)
    assert all(_interned(k) for c in rs.components for k in c.fields)
    graph = next(iter(rs.maps.values())).graph
    assert all(_interned(k) for _, _, d in graph.edges(data=True) for k in d)
