"""``schemas/ruleset.schema.json``: it accepts every shipped ruleset (and each variant, merged),
and a broken document gets a SchemaError whose message names the problem and whose mark points
at the offending YAML line and column."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from interpreter import available_rulesets, load_ruleset
from interpreter.compile.compiler import find_ruleset, overlay
from interpreter.engine.flow import EFFECTS, SIBLING_KEYS
from interpreter.errors import SchemaError
from interpreter.loader.load import load_yaml, load_yaml_text
from interpreter.loader.schema import schema_path, validate

SCHEMA = json.loads(schema_path().read_text(encoding="utf-8"))

# A small ruleset that compiles; line numbers below refer to it.
BASE = """\
name: Test game
players: {min: 2, max: 4}
zones:
  deck: {visibility: hidden}
  hand:
    per_player: true
    visibility: owner
vars:
  score: {per_player: true, initial: 0}
flow:
  - shuffle: deck
  - move: {from: deck, to: "hand[0]", count: 2}
  - choose:
      options:
        - action: pass
        - action: draw
          do:
            - move: {from: deck, to: "hand[current]"}
components:
  card:
    items: [{rank: 1}, {rank: 2}, {rank: 3}]
    key: rank
    start: deck
"""


def problems(text: str) -> list[SchemaError]:
    return validate(load_yaml_text(text, "broken.yaml"))


def the_problem(text: str) -> SchemaError:
    """The single schema error of ``text`` (a typo must not drown in follow-up errors)."""
    errs = problems(text)
    assert len(errs) == 1, [str(e) for e in errs]
    return errs[0]


def broken(old: str, new: str) -> str:
    assert BASE.count(old) == 1, old
    return BASE.replace(old, new)


# --- the schema itself --------------------------------------------------------------------------


def test_schema_is_valid_draft_2020_12():
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(SCHEMA)


def _undescribed(node, path=""):
    if isinstance(node, dict):
        for key, sub in node.items():
            if key == "properties":
                yield from (f"{path}/properties/{k}" for k, v in sub.items() if "description" not in v)
            if key == "$defs":
                yield from (f"$defs/{k}" for k, v in sub.items() if "description" not in v)
            yield from _undescribed(sub, f"{path}/{key}")
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            yield from _undescribed(sub, f"{path}/{i}")


def test_every_property_and_definition_has_a_description():
    assert list(_undescribed(SCHEMA)) == []


def test_the_schema_knows_every_effect_verb_and_no_other():
    effect = SCHEMA["$defs"]["effect"]
    siblings = {k for keys in SIBLING_KEYS.values() for k in keys}
    assert set(effect["properties"]) == set(EFFECTS) | siblings
    dispatched = {branch["if"]["required"][0] for branch in effect["allOf"] if "required" in branch["if"]}
    assert dispatched == set(EFFECTS)
    # The list an unknown verb's error shows.
    listed = [b["then"]["propertyNames"]["enum"] for b in effect["allOf"] if "propertyNames" in b["if"]]
    assert [set(x) for x in listed] == [set(EFFECTS)]
    for verb in EFFECTS:
        allowed = set(SCHEMA["$defs"][verb]["properties"])
        assert allowed == {verb, *SIBLING_KEYS.get(verb, ())}, verb


# --- what it accepts ----------------------------------------------------------------------------


def test_the_test_document_is_a_real_ruleset(tmp_path):
    path = tmp_path / "ruleset.yaml"
    path.write_text(BASE)
    assert problems(BASE) == []
    assert load_ruleset(path).max_players == 4


@pytest.mark.parametrize("name", available_rulesets())
def test_shipped_ruleset_validates(name):
    doc = load_yaml(find_ruleset(name))
    assert [str(e) for e in validate(doc)] == []
    for vname, spec in (doc.data.get("variants") or {}).items():
        over = {k: v for k, v in spec.items() if k != "description"}
        merged = overlay(doc, over, ("variants", vname))
        assert [str(e) for e in validate(merged)] == [], vname


def test_shipped_rulesets_include_the_worked_examples():
    assert {"beer_flights", "tic_tac_toe"} <= set(available_rulesets())


def test_a_variant_is_a_partial_overlay():
    text = BASE + """\
variants:
  big_table:
    description: more players, a public deck
    players: {min: 5}
    params: {hand_size: 3}
    zones: {deck: {visibility: public}}
    vars: {score: {initial: 10}}
    components: {card: {label: "Card {rank}"}}
    procedures: {turn: {params: [p]}}
"""
    doc = load_yaml_text(text, "variant.yaml")
    assert validate(doc) == []
    over = {k: v for k, v in doc.data["variants"]["big_table"].items() if k != "description"}
    # The merged document is a whole ruleset again: the partial procedure now lacks its `do`.
    merged = [e.message for e in validate(overlay(doc, over, ("variants", "big_table")))]
    assert merged == ["'do' is a required property (at procedures/turn)"]


def test_a_variant_may_change_every_top_level_key():
    # Except `variants` (no variants of variants) and `scenarios` (run from the base document).
    # A variant's `description` describes the variant itself; its `extends` names the variants it builds on.
    assert set(SCHEMA["$defs"]["variant"]["properties"]) - {"extends"} == set(SCHEMA["properties"]) - {"variants", "scenarios"}


def test_extension_keys_are_not_allowed():
    err = the_problem(BASE + "x-notes: anything\n")
    assert "'x-notes' was unexpected" in err.message
    assert (err.mark.line, err.mark.column) == (24, 1)


# --- what it refuses, and where it says so -----------------------------------------------------


def test_unknown_top_level_key():
    err = the_problem(BASE + "sennarios: []\n")
    assert isinstance(err, SchemaError)
    assert "Additional properties are not allowed ('sennarios' was unexpected)" in err.message
    assert (err.mark.file, err.mark.line, err.mark.column) == ("broken.yaml", 24, 1)


def test_misspelt_zone_option():
    err = the_problem(broken("    visibility: owner", "    visiblity: owner"))
    assert "'visiblity' was unexpected" in err.message
    assert "zones/hand/visiblity" in err.message
    assert (err.mark.line, err.mark.column) == (7, 5)


def test_unknown_effect_verb_lists_the_verbs():
    err = the_problem(broken("  - shuffle: deck", "  - shufle: deck"))
    assert err.message.startswith("'shufle' is not one of ['move', 'shuffle', 'set'")
    assert "(at flow/0/shufle)" in err.message
    assert (err.mark.line, err.mark.column) == (11, 5)


def test_unknown_verb_nested_in_an_option():
    err = the_problem(broken('            - move: {from: deck, to: "hand[current]"}', "            - draw: 1"))
    assert "'draw' is not one of" in err.message
    assert "flow/2/choose/options/1/do/0/draw" in err.message
    assert (err.mark.line, err.mark.column) == (18, 15)


def test_move_without_to():
    err = the_problem(broken('{from: deck, to: "hand[0]", count: 2}', "{from: deck, count: 2}"))
    assert err.message == "'to' is a required property (at flow/1/move)"
    assert (err.mark.line, err.mark.column) == (12, 5)


def test_move_without_what_or_from():
    err = the_problem(broken('{from: deck, to: "hand[0]", count: 2}', '{to: "hand[0]", count: 2}'))
    assert err.message == "'from' is a required property (at flow/1/move)"
    assert err.mark.line == 12


def test_misspelt_move_key():
    err = the_problem(broken('count: 2}', 'cuont: 2}'))
    assert "'cuont' was unexpected" in err.message
    assert (err.mark.line, err.mark.column) == (12, 39)


def test_players_min_of_the_wrong_type():
    err = the_problem(broken("{min: 2, max: 4}", "{min: two, max: 4}"))
    assert err.message == "'two' is not of type 'integer' (at players/min)"
    # A mark points at the key whose value is wrong (`min:`), on the offending line.
    assert (err.mark.line, err.mark.column) == (2, 11)


def test_bad_visibility_value():
    err = the_problem(broken("{visibility: hidden}", "{visibility: secret}"))
    assert err.message == ("'secret' is not one of ['public', 'owner', 'hidden', 'owner_contents', 'public_contents'] "
                           "(at zones/deck/visibility)")
    assert (err.mark.line, err.mark.column) == (4, 10)


def test_owner_visibility_needs_a_per_player_zone():
    err = the_problem(broken("    per_player: true\n    visibility: owner", "    visibility: owner"))
    # what is missing, then the schema's own why and fix (issue 47)
    assert err.message == ("'per_player' is a required property (at zones/hand); `visibility: owner` and "
                           "`owner_contents` need `per_player: true`: only a zone that belongs to a seat has an "
                           "owner; add `per_player: true`, or for one shared zone use `hidden` (nobody sees it) or "
                           "`public_contents` (everyone knows its contents, nobody their order).")
    assert (err.mark.line, err.mark.column) == (5, 3)


def test_option_without_action():
    err = the_problem(broken("        - action: pass", "        - label: Pass"))
    assert err.message == "'action' is a required property (at flow/2/choose/options/0)"
    assert (err.mark.line, err.mark.column) == (15, 11)


def test_option_for_without_in():
    err = the_problem(broken("        - action: pass", "        - action: pick\n          for: c"))
    assert err.message == "'in' is a dependency of 'for' (at flow/2/choose/options/0)"
    assert err.mark.line == 15


def test_two_verbs_in_one_effect():
    errs = problems(broken("  - shuffle: deck", "  - shuffle: deck\n    log: shuffled"))
    assert errs and "'log' was unexpected" in errs[0].message
    assert (errs[0].mark.line, errs[0].mark.column) == (12, 5)


def test_then_without_if():
    err = the_problem(broken("  - shuffle: deck", "  - then: [{shuffle: deck}]"))
    assert err.message == "'if' is a dependency of 'then' (at flow/0)"
    assert err.mark.line == 11


def test_misspelt_else_beside_if():
    err = the_problem(broken("  - shuffle: deck", "  - if: len(deck) > 0\n    then: [{shuffle: deck}]\n    esle: []"))
    assert "'esle' was unexpected" in err.message
    assert (err.mark.line, err.mark.column) == (13, 5)


def test_random_needs_exactly_one_of_as_and_set():
    assert the_problem(broken("  - shuffle: deck", "  - random: {from: players}")).message == (
        "'as' is a required property (at flow/0/random)"
    )
    both = the_problem(broken("  - shuffle: deck", "  - random: {from: players, as: p, set: score}"))
    assert "is valid under each of" in both.message and both.mark.line == 11


def test_a_block_must_be_a_list():
    err = the_problem(broken("          do:\n            - move:", "          do:\n              move:"))
    assert "is not of type 'array'" in err.message
    assert "(at flow/2/choose/options/1/do)" in err.message
    assert (err.mark.line, err.mark.column) == (17, 11)


def test_variant_typo_is_caught_in_the_base_document():
    err = the_problem(BASE + "variants:\n  v:\n    description: d\n    zones: {deck: {visiblity: public}}\n")
    assert "'visiblity' was unexpected" in err.message
    assert "variants/v/zones/deck/visiblity" in err.message
    assert (err.mark.line, err.mark.column) == (27, 20)


def test_scenario_steps_are_checked():
    text = BASE + """\
scenarios:
  - name: s
    steps:
      - apply: draw
      - aply: pass
      - play_out: last
"""
    errs = problems(text)
    assert sorted((e.mark.line, e.message) for e in errs) == [
        (28, "'aply' is not one of ['apply', 'legal', 'illegal', 'expect', 'deciding', 'position', 'play_out', 'outcome', 'metrics'] "
             "(at scenarios/0/steps/1/aply)"),
        (29, "'last' is not one of ['first', 'random'] (at scenarios/0/steps/2/play_out)"),
    ]


def test_a_non_text_key_is_an_error_not_a_crash():
    err = the_problem(BASE + "1: one\n")
    assert "(1 was unexpected)" in err.message
    assert err.mark.line == 24
    err = the_problem(broken("  deck: {visibility: hidden}", "  deck: {visibility: hidden}\n  7: {}"))
    assert err.message == "7 is not of type 'string' (at zones/7)"
    assert (err.mark.line, err.mark.column) == (5, 3)
    # Errors under a text key and a number key side by side are still sorted, not a TypeError.
    errs = problems(broken("  deck: {visibility: hidden}", "  deck: {visiblity: hidden}\n  7: {visiblity: x}"))
    assert sorted((e.mark.line, e.message) for e in errs) == [
        (4, "Additional properties are not allowed ('visiblity' was unexpected) (at zones/deck/visiblity)"),
        (5, "7 is not of type 'string' (at zones/7)"),
        (5, "Additional properties are not allowed ('visiblity' was unexpected) (at zones/7/visiblity)"),
    ]


def test_schema_step_kinds_match_the_scenario_runner():
    from interpreter.analysis.scenarios import STEP_KINDS

    schema = json.loads(schema_path().read_text())
    assert tuple(schema["$defs"]["step"]["propertyNames"]["enum"]) == STEP_KINDS


def test_limits_and_variants_have_maximums(tmp_path):
    """`limits:` cannot be raised without end, and a ruleset has at most 100 variants (validate
    compiles each one)."""
    from interpreter import load_ruleset
    from interpreter.errors import TapsterError

    head = "name: T\nplayers: {min: 2, max: 2}\nflow: []\n"
    for extra, words in [
        ("limits: {steps: 1000000000000}\n", "maximum"),
        ("limits: {work: 1000000000000}\n", "maximum"),
        ("limits: {actions: 1000000000000}\n", "maximum"),
        ("variants:\n" + "".join(f"  v{i}: {{}}\n" for i in range(101)), "too many properties"),
    ]:
        path = tmp_path / "ruleset.yaml"
        path.write_text(head + extra)
        with pytest.raises(TapsterError) as info:
            load_ruleset(path)
        assert words in str(info.value), str(info.value)


def test_overlay_and_suggestions_stay_fast_on_huge_rulesets(tmp_path):
    """A variant overriding 10,000 parameters, and 100 misspelt names among 30,000: linear
    overlay and bounded "did you mean" (seconds, where they took minutes)."""
    import time

    from interpreter import load_ruleset
    from interpreter.errors import TapsterError

    params = "".join(f"  p{i}: {i}\n" for i in range(10_000))
    over = "".join(f"      p{i}: {i + 1}\n" for i in range(10_000))
    path = tmp_path / "ruleset.yaml"
    path.write_text("name: T\nplayers: {min: 2, max: 2}\nparams:\n" + params + "flow: []\n"
                    "variants:\n  big:\n    params:\n" + over)
    t0 = time.perf_counter()
    assert load_ruleset(path, "big").params["p9999"] == 10_000
    many = "".join(f"  name{i}: {i}\n" for i in range(30_000))
    typos = "".join(f"  - log: '{{nmae{i}}}'\n" for i in range(100))
    path.write_text("name: T\nplayers: {min: 2, max: 2}\nparams:\n" + many + "flow:\n" + typos)
    with pytest.raises(TapsterError):
        load_ruleset(path)
    assert time.perf_counter() - t0 < 60  # a bound against minutes, not a speed test


# --- checked piece by piece: the same answer as the whole schema ------------------------------


def _whole_and_pieces(data, monkeypatch) -> tuple[bool, bool]:
    from interpreter.loader import schema as schema_mod

    monkeypatch.setenv("TAPSTER_CACHE_DIR", "")  # nothing remembered from other runs
    monkeypatch.setattr(schema_mod, "_VALID", set())
    return Draft202012Validator(SCHEMA).is_valid(data), schema_mod._valid_by_pieces(data)


@pytest.mark.parametrize("name", available_rulesets())
def test_piece_by_piece_agrees_with_the_whole_schema_on_every_ruleset_and_variant(name, monkeypatch):
    doc = load_yaml(find_ruleset(name))
    docs = [doc] + [
        overlay(doc, {k: v for k, v in (over or {}).items() if k not in ("description", "extends")}, ("variants", v))
        for v, over in (doc.data.get("variants") or {}).items()
    ]
    for d in docs:
        assert _whole_and_pieces(d.data, monkeypatch) == (True, True)


@pytest.mark.parametrize("text", [
    BASE.replace("name: Test game\n", ""),                       # a required key missing
    BASE + "sennarios: []\n",                                   # an unknown top-level key
    BASE.replace("visibility: owner", "visibility: secret"),    # a bad value deep inside one piece
    BASE.replace("- shuffle: deck", "- shufle: deck"),          # an unknown verb in the flow
    BASE + "variants: {v: {players: {min: many}}}\n",           # a bad variant
    BASE.replace("players: {min: 2, max: 4}", "players: [2, 4]"),  # a piece of the wrong type
])
def test_piece_by_piece_finds_what_the_whole_schema_finds(text, monkeypatch):
    data = load_yaml_text(text, "broken.yaml").data
    assert _whole_and_pieces(data, monkeypatch) == (False, False)
    assert problems(text), "validate() still reports the errors, from the whole schema"


def test_a_piece_is_remembered_apart_from_whole_documents():
    from interpreter.loader.schema import _digest

    # A document {"name": ...} could otherwise share the digest of the piece `name` found valid.
    assert _digest("Test game", piece="name") != _digest({"name": "Test game"})
    assert _digest("Test game", piece="name") != _digest("Test game")
    assert _digest("Test game", piece="name") != _digest("Test game", piece="description")


def test_overlay_copies_only_the_paths_it_changes():
    doc = load_yaml_text(BASE + "params: {hand_size: 2, other: {a: 1}}\n", "v.yaml")
    before = json.dumps(doc.data, sort_keys=True)
    merged = overlay(doc, {"params": {"other": {"a": 2}}, "zones": {"deck": {"visibility": "public"}}}, None)
    assert merged.data["params"] == {"hand_size": 2, "other": {"a": 2}}
    assert merged.data["zones"]["deck"] == {"visibility": "public"}
    assert json.dumps(doc.data, sort_keys=True) == before, "the base document is unchanged"
    assert merged.data["flow"] is doc.data["flow"], "what the overlay does not touch is shared"
    assert merged.data["zones"]["hand"] is doc.data["zones"]["hand"]
    assert merged.data["params"] is not doc.data["params"] and merged.data["zones"] is not doc.data["zones"]
