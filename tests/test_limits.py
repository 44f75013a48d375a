"""One table of limits (interpreter/limits.py): no other module defines a limit of its own, the
schema's maximums for `limits:` and variants are the table's, and the reference's "Limits and
safety" (docs/reference.md) states every value in it."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from interpreter import limits
from interpreter.limits import LIMITS

ROOT = Path(__file__).resolve().parent.parent


def test_no_module_defines_a_limit_of_its_own():
    names = {lim.name for lim in LIMITS} | {"MAX_BYTES", "MAX_NODES", "MAX_DEPTH"}
    # Every module of every subpackage (a bare glob of interpreter/ would see only the roots).
    paths = sorted((ROOT / "interpreter").rglob("*.py"))
    assert len(paths) > 40
    for path in paths:
        if path.relative_to(ROOT / "interpreter").as_posix() == "limits.py":
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    where = path.relative_to(ROOT)
                    assert not (isinstance(t, ast.Name) and t.id in names), f"{where} defines {t.id}: import it from limits"


def test_every_limit_in_the_table_is_its_constant():
    for lim in LIMITS:
        assert getattr(limits, lim.name) == lim.value


def test_the_schema_maximums_are_the_table_s():
    schema = json.loads((ROOT / "schemas" / "ruleset.schema.json").read_text(encoding="utf-8"))
    props = schema["$defs"]["limits"]["properties"] if "limits" in schema.get("$defs", {}) else None
    if props is None:
        props = _find(schema, "steps")
    assert props["steps"]["maximum"] == limits.MAX_STEPS
    assert props["actions"]["maximum"] == limits.MAX_ACTIONS
    assert props["work"]["maximum"] == limits.MAX_WORK
    assert schema["properties"]["variants"]["maxProperties"] == limits.MAX_VARIANTS


def _find(node, key):
    """The first mapping in the schema holding ``key`` with a ``maximum``."""
    if isinstance(node, dict):
        if isinstance(node.get(key), dict) and "maximum" in node[key]:
            return node
        for v in node.values():
            found = _find(v, key)
            if found is not None:
                return found
    elif isinstance(node, list):
        for v in node:
            found = _find(v, key)
            if found is not None:
                return found
    return None


def _shown(value: int) -> list[str]:
    """How the reference may write ``value``."""
    out = [f"{value:,}"]
    if value >= 1024 * 1024 and value % (1024 * 1024) == 0:
        out.append(f"{value // (1024 * 1024)} MiB")
    if value == 2**64 - 1:
        out.append("2^64 - 1")
    return out


def test_the_reference_states_every_limit():
    text = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    section = text[text.index("## Limits and safety"):text.index("## The expression language")]
    missing = [lim.name for lim in LIMITS if not any(s in section for s in _shown(lim.value))]
    assert not missing, f"docs/reference.md's Limits and safety does not state {missing}"


def _schema(name: str) -> dict:
    return json.loads((ROOT / "schemas" / f"{name}.schema.json").read_text(encoding="utf-8"))


def test_every_schema_bound_on_seats_seeds_and_drawings_is_the_table_s():
    ruleset, state, log = _schema("ruleset"), _schema("state"), _schema("log")
    for key in ("min", "max", "default"):
        assert ruleset["$defs"]["players"]["properties"][key]["maximum"] == limits.MAX_PLAYERS
    assert _find(ruleset, "width")["width"]["maximum"] == limits.MAX_CELL_WIDTH
    assert state["properties"]["num_players"]["maximum"] == limits.MAX_PLAYERS
    assert state["properties"]["current"]["maximum"] == limits.MAX_PLAYERS - 1
    assert state["properties"]["turns"]["maxItems"] == limits.MAX_PLAYERS
    assert log["properties"]["players"]["maximum"] == limits.MAX_PLAYERS
    assert log["properties"]["agents"]["maxItems"] == limits.MAX_PLAYERS
    assert log["properties"]["actions"]["maxItems"] == limits.MAX_LOG_ACTIONS
    assert log["properties"]["seed"]["anyOf"][0]["maximum"] == limits.MAX_SEED
