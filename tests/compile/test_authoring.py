"""A designer's own ruleset gets every check ours get (issue 17): templates rendered by
`tapster check`, the newcomer's rulesets under tests/authoring/ written from the authoring guide's recipes (docs/),
`start:` naming a per-player zone, the schema's modeline from anywhere, the schema saying which
keys take expressions, progress displays and the options' help."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from interpreter import load_ruleset
from interpreter.analysis.check import run_check
from interpreter.cli import main

from ..conftest import DOCS, copy_ruleset, docs_page, replace_once

HERE = Path(__file__).resolve().parents[1]  # tests/


def _line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line)


# -- every template rendered ---------------------------------------------------------------------


def test_a_label_that_fails_only_when_shown_fails_check_with_its_place_and_a_reproduction(tmp_path, capsys):
    # The label is rendered only for people (a decision's labels), never by `apply`.
    path = copy_ruleset(tmp_path, "tic_tac_toe")
    replace_once(path, 'label: "{marks[current]} in row', 'label: "{marks[current] + 1} in row')
    assert main(["check", str(path), "--games", "1", "--json"]) == 1
    result = next(c for c in json.loads(capsys.readouterr().out)["checks"] if c["name"] == "templates render")
    line = _line_of(path, "label: ")
    assert result["ok"] is False
    assert "the label '{marks[current] + 1} in row" in result["detail"] and f"ruleset.yaml:{line}:" in result["detail"]
    assert "does not render" in result["detail"] and result["seed"] == 1 and result["actions"] == []


def test_an_end_game_reason_that_fails_is_caught_after_the_moves_that_reach_it(tmp_path):
    path = copy_ruleset(tmp_path, "tic_tac_toe")
    replace_once(path, 'end_game: "{marks[current]} completed a line"', 'end_game: "{marks[current] * 1.5} completed a line"')
    r = run_check(load_ruleset(str(path)), "templates render", seeds=(1,))
    assert not r.ok and "end_game reason" in r.detail and r.seed == 1
    assert len(r.actions) >= 5  # a line needs at least five marks on the board
    st = load_ruleset(str(path)).new_game(r.players, seed=r.seed)
    for a in r.actions[:-1]:
        st.apply(a)
    assert not st.is_terminal()  # the last action is the one that ends the game with the broken reason


def test_templates_no_game_reaches_are_a_pass_with_a_note_naming_each(tmp_path, capsys):
    path = copy_ruleset(tmp_path, "tic_tac_toe")
    replace_once(path, '- log: "{marks[current]} marks row',
             '- if: num_players > 2\n                          then: [{log: "never shown {1 // 0}"}]\n'
             '                        - log: "{marks[current]} marks row')
    assert main(["check", str(path), "--games", "1"]) == 0
    out = capsys.readouterr().out
    line = _line_of(path, "never shown")
    assert "PASS Tic-tac-toe: templates render: 5 of 6 templates rendered" in out
    assert f"not reached: log line 'never shown {{1 // 0}}' at {path}:{line}:" in out


# -- the newcomer's rulesets ---------------------------------------------------------------------

FIXTURES = sorted(p.parent for p in (HERE / "authoring").glob("*/ruleset.yaml"))


def test_the_three_newcomer_rulesets_are_kept():
    assert {p.name for p in FIXTURES} >= {"four_in_a_row", "high_card", "goofspiel"}


def test_each_newcomer_ruleset_validates_strictly_passes_its_scenarios_and_every_check(capsys):
    for folder in FIXTURES:
        assert main(["validate", "--strict", str(folder)]) == 0, capsys.readouterr().err
        assert capsys.readouterr().out.startswith("ok: ")
        assert main(["test", str(folder), "--json"]) == 0, capsys.readouterr().out
        assert json.loads(capsys.readouterr().out)["passed"] >= 2
        assert main(["check", str(folder), "--json"]) == 0, capsys.readouterr().out
        checks = json.loads(capsys.readouterr().out)["checks"]
        assert all(c["ok"] for c in checks), (folder.name, checks)
        # no note but (issue 46) that the adapters refuse a ruleset declaring no `range` and no
        # length whose tree is too large to derive them: four_in_a_row and goofspiel declare neither
        notes = [n for c in checks for n in c["notes"]]
        refused = folder.name in ("four_in_a_row", "goofspiel")
        assert all("OpenSpiel and PettingZoo adapters will refuse" in n for n in notes) and bool(notes) == refused, (folder.name, notes)


def test_the_sealed_bid_recipe_is_checked_and_the_card_leaving_a_public_hand_is_caught(tmp_path):
    # The authoring guide's recipe: the bid is recorded in an owner variable, nothing moves until all have
    # chosen.  The secret decisions were reached (two actions of one option compared).
    folder = HERE / "authoring" / "goofspiel"
    r = run_check(load_ruleset(str(folder)), "secret decisions")
    assert r.ok and "secret decisions revealed nothing" in r.detail
    # The recipe the guide used to give: the card moves from the (public) hand into an owner
    # zone at once.  Everyone sees which card left the hand.
    path = tmp_path / "goofspiel" / "ruleset.yaml"
    shutil.copytree(folder, path.parent)
    replace_once(path, "  prize: {visibility: public", "  bids: {per_player: true, visibility: owner}\n  prize: {visibility: public")
    move = '\n                        - move: {what: c, from: "hand[p]", to: "bids[p]"}'
    replace_once(path, '- set: {"bid[p]": c}', '- set: {"bid[p]": c}' + move)
    replace_once(path, 'from: "hand[p]", to: discard', 'from: "bids[p]", to: discard')
    leaky = run_check(load_ruleset(str(path)), "secret decisions")
    assert not leaky.ok and "secret decision bid: seat P" in leaky.detail and "can tell bid(card-" in leaky.detail


def test_the_guide_sealed_bid_recipe_is_the_fixture_and_its_leak_message_is_real(tmp_path):
    section = docs_page("authoring").split("**Simultaneous moves**", 1)[1]
    recipe = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    fixture = {line.split(" #")[0].strip() for line in (HERE / "authoring" / "goofspiel" / "ruleset.yaml").read_text().splitlines()}
    for line in recipe.splitlines():
        code = line.split(" #")[0].strip()
        assert not code or code in fixture, f"docs/authoring.md line not in tests/authoring/goofspiel: {line!r}"
    assert "Prove it with `tapster check RULESET`" in section
    quoted = section.split("(`FAIL Goofspiel: secret decisions: ", 1)[1].split("`)", 1)[0].replace("\n", " ")
    path = tmp_path / "goofspiel" / "ruleset.yaml"
    shutil.copytree(HERE / "authoring" / "goofspiel", path.parent)
    replace_once(path, '- set: {"bid[p]": c}', '- set: {"bid[p]": c}\n                        - log: "P{p + 1} bids {c}"')
    leaky = run_check(load_ruleset(str(path)), "secret decisions")
    assert not leaky.ok and leaky.detail == quoted


# -- start: a per-player zone ----------------------------------------------------------------------

_DEALT = """name: Dealt
players: {min: 2, max: 2}
components:
  card:
    items: [{n: 1}, {n: 2}, {n: 3}, {n: 4}, {n: 5}, {n: 6}, {n: 7}, {n: 8}, {n: 9}, {n: 10}]
    start: START
zones:
  deck: {visibility: hidden}
  hand: {per_player: true, visibility: owner}
flow:
  - choose: {options: [{action: go}]}
"""


def test_start_naming_a_per_player_zone_says_how_to_deal_in_setup(tmp_path, capsys):
    path = tmp_path / "ruleset.yaml"
    for start in ('"hand[0]"', "hand"):
        path.write_text(_DEALT.replace("START", start), encoding="utf-8")
        assert main(["validate", str(path)]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"{path}:6:5: `start: {start.strip(chr(34))}`: `start` puts every `card` in one shared zone, "
                              "and `hand` is per player; start them in a shared zone (`start: deck`) and deal them in `setup`")
        assert "does not match" not in err and len(err.strip().splitlines()) == 1
    # The advice, followed, deals five cards to each hand.
    advice = err.split("`setup`: `", 1)[1].rsplit("`", 1)[0]
    path.write_text(_DEALT.replace("START", "deck").replace("flow:", f"setup:\n  {advice}\nflow:"), encoding="utf-8")
    st = load_ruleset(str(path)).new_game(2)
    assert [len(h) for h in st.zones["hand"]] == [5, 5]
    path.write_text(_DEALT.replace("START", "dek"), encoding="utf-8")
    assert main(["validate", str(path)]) == 1
    assert "`start: dek` names no zone; did you mean deck?" in capsys.readouterr().err


# -- the schema's modeline from anywhere ------------------------------------------------------------


def test_the_schema_command_prints_a_modeline_that_resolves_from_anywhere(tmp_path, capsys):
    from interpreter.loader.schema import schema_path

    assert main(["schema"]) == 0
    printed = Path(capsys.readouterr().out.strip())
    assert printed.is_absolute() and printed == schema_path().resolve()
    assert json.loads(printed.read_text(encoding="utf-8"))["title"]
    assert main(["schema", "--modeline"]) == 0
    assert capsys.readouterr().out == f"# yaml-language-server: $schema={printed}\n"
    # Relative to a ruleset anywhere: the path, read from the ruleset's folder, is the schema.
    ruleset = tmp_path / "deep" / "my_game" / "ruleset.yaml"
    assert main(["schema", "--modeline", "--relative-to", str(ruleset)]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("# yaml-language-server: $schema=../")
    assert (ruleset.parent / line.split("$schema=", 1)[1]).resolve() == printed
    # docs/getting-started.md tells a newcomer to start with it, and shows the line it prints.
    guide = docs_page("getting-started")
    assert "tapster schema --modeline" in guide and "# yaml-language-server: $schema=" in guide


# -- the command line: composed variants in validate, help texts, progress ------------------------------


def test_validate_composes_variants_like_the_other_commands(tmp_path, capsys):
    path = copy_ruleset(tmp_path, "beer_flights")
    # `six` alone asks for six players of a game for at most four; on top of five_player it is fine.
    replace_once(path, "  five_player:\n", "  six:\n    description: six at the table\n    players: {default: 6}\n  five_player:\n")
    assert main(["validate", str(path), "--variant", "six"]) == 1
    assert "1 <= min <= default <= max" in capsys.readouterr().err
    assert main(["validate", str(path), "--variant", "five_player,six"]) == 0
    assert main(["validate", str(path), "-v", "five_player", "-v", "six", "--json"]) == 0
    capsys.readouterr()
    assert main(["validate", str(path), "-v", "five_player", "-v", "nope"]) == 1
    assert "no variant 'nope' (variants: six, five_player)" in capsys.readouterr().err


def _help(command: str, capsys) -> str:
    assert main([command, "--help"]) == 0
    return " ".join(capsys.readouterr().out.split())


def test_help_says_what_each_option_does_and_offers_no_person_where_none_plays(capsys):
    validate = _help("validate", capsys)
    assert "-v, --variant V Check only variant V, not the base ruleset and every variant" in validate
    assert "Play" not in validate and "Use a variant" not in validate
    for command in ("simulate", "analyse", "compare"):
        text = _help(command, capsys)
        agents = text.split("--agents A,B,...", 1)[1].split(" -", 1)[0]
        assert "ismcts" in agents and "human" not in agents, (command, agents)
        assert main([command, "tic_tac_toe", *(["base", "base"] if command == "compare" else []), "-n", "2", "-a", "random,human"]) == 2
        assert f"{command} plays without people" in capsys.readouterr().err
    assert "human" in _help("play", capsys).split("--agents A,B,...", 1)[1].split(" -", 1)[0]


def test_long_commands_show_progress_on_a_terminal_only_and_never_with_json(monkeypatch, capsys):
    import io

    from rich.console import Console

    import interpreter.cli.common as cli  # where the commands find their consoles

    terminal = io.StringIO()
    monkeypatch.setattr(cli, "_stderr", lambda: Console(file=terminal, force_terminal=True, width=120))
    runs = {
        ("perft", "tic_tac_toe", "-d", "2"): "perft tic_tac_toe: subtrees",
        ("check", "tic_tac_toe", "-n", "1"): "check Tic-tac-toe: templates render",
        ("test", "tic_tac_toe", "kuhn_poker"): "test kuhn_poker",
        ("validate", "tic_tac_toe", "kuhn_poker"): "validate kuhn_poker",
    }
    for argv, bar in runs.items():
        terminal.seek(0)
        terminal.truncate()
        assert main(list(argv)) == 0
        drawn = terminal.getvalue()
        assert bar in drawn and "━" in drawn, argv
        assert "━" not in capsys.readouterr().out  # the results on stdout stay plain
        terminal.seek(0)
        terminal.truncate()
        assert main([*argv, "--json"]) == 0
        assert "━" not in terminal.getvalue(), argv
        json.loads(capsys.readouterr().out)
    # Not a terminal (a pipe, CI): no bar, the same results.
    piped = io.StringIO()
    monkeypatch.setattr(cli, "_stderr", lambda: Console(file=piped, width=120))
    for argv in runs:
        assert main(list(argv)) == 0
    assert "━" not in piped.getvalue() and "ok: kuhn_poker" in capsys.readouterr().out


# -- which keys take expressions -----------------------------------------------------------------------

_REF_SENTENCES = {
    "expression": "Takes an expression", "template": "Takes a template", "zone_ref": "Takes a zone",
    "local_name": "Takes a name", "block": "Takes a list of effects", "action_text": "Takes an action's text",
}
_SCALARS = {"string", "integer", "number", "boolean", "null"}


def _schema_keys(node, path=()):
    """(path, schema) of every key a ruleset may write, outside `$defs/display` and
    `$defs/var_fields` (described elsewhere) and the conditions of `if`/`then` constraints."""
    if not isinstance(node, dict) or path[:2] in (("$defs", "display"), ("$defs", "var_fields")):
        return
    for name, sub in (node.get("properties") or {}).items():
        yield (*path, name), sub
        yield from _schema_keys(sub, (*path, name))
    if isinstance(node.get("additionalProperties"), dict):
        yield (*path, "*"), node["additionalProperties"]
        yield from _schema_keys(node["additionalProperties"], (*path, "*"))
    for k in ("then", "else", "items"):
        if isinstance(node.get(k), dict) and not (k == "then" and path[:2] in (("$defs", "zone"), ("$defs", "var"))):
            yield from _schema_keys(node[k], path)
    for name, sub in (node.get("$defs") or {}).items():
        yield from _schema_keys(sub, ("$defs", name))


def test_every_schema_key_says_whether_it_takes_an_expression_a_template_or_a_value():
    schema = json.loads((HERE.parent / "schemas" / "ruleset.schema.json").read_text(encoding="utf-8"))
    checked = 0
    for path, sub in _schema_keys(schema):
        text = sub.get("description")
        if text is None or path[-1] == "display":
            continue
        checked += 1
        assert "Takes " in text, (path, text)
        ref = sub.get("$ref", "").rsplit("/", 1)[-1]
        types = sub.get("type") if isinstance(sub.get("type"), list) else [sub.get("type")]
        if ref in _REF_SENTENCES:
            assert _REF_SENTENCES[ref] in text, (path, text)
        elif not ref and None not in types and set(types) <= _SCALARS:
            assert any(f"Takes a {what}" in text for what in ("value", "whole number", "name", "place")), (path, text)
    assert checked > 150


def test_the_reference_table_lists_every_key_that_takes_an_expression_a_template_or_a_zone():
    schema = json.loads((HERE.parent / "schemas" / "ruleset.schema.json").read_text(encoding="utf-8"))
    section = docs_page("reference").split("### Values and expressions", 1)[1].split("\n### ", 1)[0]
    rows = {line.split("**", 2)[1]: line for line in section.splitlines() if line.startswith("| a") and "**" in line}
    for path, sub in _schema_keys(schema):
        text, name = sub.get("description") or "", path[-1]
        if name == "*":
            continue
        for kind, sentence in (("expression", "Takes an expression"), ("template", "Takes a template"), ("zone", "Takes a zone")):
            if sentence in text:
                assert f"`{name}:`" in rows[kind], f"docs/reference.md's table lacks `{name}:` ({kind}; schema {'/'.join(path)})"
    assert "`initial:`" in rows["value"] and "`params:`" in rows["value"]


def test_the_docs_yaml_loads_and_no_expression_in_it_is_split_by_yaml():
    # An unquoted `, ` inside a flow list or mapping splits an expression in two (issue 17): every
    # text in the YAML examples of the README and the documentation's pages has balanced brackets.
    import re

    import yaml

    pages = [HERE.parent / "README.md", *sorted(DOCS.glob("*.md"))]
    blocks = [(page.name, block) for page in pages for block in re.findall(r"```yaml\n(.*?)```", page.read_text(encoding="utf-8"), re.S)]
    assert len(blocks) > 10

    def texts(x):
        if isinstance(x, str):
            yield x
        elif isinstance(x, list):
            for v in x:
                yield from texts(v)
        elif isinstance(x, dict):
            for k, v in x.items():
                yield from texts(k)
                yield from texts(v)

    def balanced(s):
        stack = []
        for ch in s:
            if ch in "([{":
                stack.append(ch)
            elif ch in ")]}" and (not stack or "([{"[")]}".index(ch)] != stack.pop()):
                return False
        return not stack

    for page, block in blocks:
        for text in texts(yaml.safe_load(block)):
            assert balanced(text), f"{page}: YAML splits an expression: {text!r}"


def test_perft_progress_counts_subtrees_even_below_a_single_first_move():
    # Beer Flights' first decision has one action: the bar counts subtrees further down, and the
    # counts are perft's own.
    from interpreter.analysis.simulate import perft
    from interpreter.cli import _perft_subtrees

    flights, ttt = load_ruleset("beer_flights"), load_ruleset("tic_tac_toe")
    assert len(flights.new_game(2, seed=0).legal_actions()) == 1
    for rs, depth, at_least in ((flights, 2, 2), (flights, 4, 8), (ttt, 4, 16), (ttt, 0, 1)):
        subtrees, nodes = _perft_subtrees(rs.new_game(2, seed=0), depth)
        assert len(subtrees) >= at_least  # a tree smaller than 16 leaves is cut down to its leaves
        counted = [perft(s, d) for s, d in subtrees]
        whole = perft(rs.new_game(2, seed=0), depth)
        assert (sum(c[0] for c in counted), nodes + sum(c[1] for c in counted)) == whole
