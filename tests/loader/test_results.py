"""Results remembered by content (interpreter/loader/results.py, issue 24's cold start): a
warm `tapster validate` answers from the cache only while the ruleset, every table it reads and
the engine are unchanged, and an entry is data, never code."""

from __future__ import annotations

import json

import pytest

from interpreter.cli import main
from interpreter.errors import LoadError
from interpreter.loader import results
from interpreter.loader.load import load_table, load_yaml, recording

RULESET = """
name: cache probe
players: {min: 2, max: 2}
components:
  card: {table: cards.csv, key: code, start: deck}
zones:
  deck: {visibility: hidden}
flow: []
outcome: {score: "0"}
variants:
  short: {description: shorter}
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TAPSTER_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "ruleset.yaml").write_text(RULESET)
    (folder / "cards.csv").write_text("code,value\na,1\nb,2\n")
    return folder


def _entries(tmp_path):
    return sorted((tmp_path / "cache" / "results").glob("*.json"))


def _validate_counting(monkeypatch, argv):
    """Run `tapster validate argv`; how many rulesets it compiled (0: answered from the cache)."""
    import interpreter.cli.author as author

    compiled = []
    real = author.load_ruleset
    monkeypatch.setattr(author, "load_ruleset", lambda *a, **k: compiled.append(a) or real(*a, **k))
    code = main(["validate", *argv])
    return code, len(compiled)


def test_the_loader_records_every_file_it_reads_or_tries(tmp_path):
    (tmp_path / "t.csv").write_text("id\nx\n")
    (tmp_path / "r.yaml").write_text("a: 1\n")
    with recording() as reads:
        load_yaml(tmp_path / "r.yaml")
        load_table(tmp_path, "t.csv", None)
        with pytest.raises(LoadError, match="not found"):
            load_table(tmp_path, "missing.csv", None)
    assert reads == [str(tmp_path / "r.yaml"), str(tmp_path / "t.csv"), str(tmp_path / "missing.csv")]


def test_a_warm_validate_reads_the_answer_and_any_change_recomputes_it(cache, tmp_path, monkeypatch, capsys):
    path = str(cache)
    assert _validate_counting(monkeypatch, [path]) == (0, 2)  # the base and its variant
    assert capsys.readouterr().out == f"ok: {path}\n"
    assert len(_entries(tmp_path)) == 1
    assert _validate_counting(monkeypatch, [path]) == (0, 0)  # the same answer, nothing compiled
    assert capsys.readouterr().out == f"ok: {path}\n"
    # A table it read changes: the table's new problem is found.
    (cache / "cards.csv").write_text("code,value\na,1\na,2\n")
    code, compiled = _validate_counting(monkeypatch, [path])
    assert (code, compiled) == (1, 2)
    err = capsys.readouterr().err
    assert err == f"{cache / 'cards.csv'}:3:1: two components have the id 'card-a'\n"
    assert _validate_counting(monkeypatch, [path]) == (1, 0)  # and that answer is remembered too
    assert capsys.readouterr().err == err
    # The ruleset changes (a comment only): recomputed.
    (cache / "cards.csv").write_text("code,value\na,1\nb,2\n")
    (cache / "ruleset.yaml").write_text(RULESET + "# a comment\n")
    assert _validate_counting(monkeypatch, [path]) == (0, 2)
    # Other arguments are other keys: --variant, --json.
    assert _validate_counting(monkeypatch, [path, "--variant", "short"])[1] == 2  # the base, then the variant
    assert _validate_counting(monkeypatch, [path, "--variant", "short"])[1] == 0
    capsys.readouterr()
    assert _validate_counting(monkeypatch, [path, "--json"]) == (0, 0)
    assert json.loads(capsys.readouterr().out)["ok"] is True


def test_the_engine_source_is_part_of_the_key(cache, monkeypatch, capsys):
    path = str(cache)
    assert _validate_counting(monkeypatch, [path])[1] == 2
    monkeypatch.setattr(results, "_VERSION", "another engine")
    assert _validate_counting(monkeypatch, [path])[1] == 2


def test_an_entry_is_data_and_a_strange_one_is_a_miss(cache, tmp_path, monkeypatch, capsys):
    path = str(cache)
    main(["validate", path])
    [entry] = _entries(tmp_path)
    data = json.loads(entry.read_text())
    assert set(data) == {"files", "value"} and str(cache / "cards.csv") in data["files"]
    for bad in ('{"files": {}, "value": {"problems": [1], "warnings": [], "notes": []}}',  # not text lines
                '{"files": {}, "value": "__import__(\'os\').system(\'false\')"}',  # code is only text
                "not json at all", '{"files": []}'):
        entry.write_text(bad)
        capsys.readouterr()
        assert _validate_counting(monkeypatch, [path]) == (0, 2)
        assert capsys.readouterr().out == f"ok: {path}\n"


def test_an_empty_cache_dir_switches_the_cache_off(cache, tmp_path, monkeypatch):
    monkeypatch.setenv("TAPSTER_CACHE_DIR", "")
    path = str(cache)
    assert _validate_counting(monkeypatch, [path])[1] == 2
    assert _validate_counting(monkeypatch, [path])[1] == 2
    assert not (tmp_path / "cache").exists()
