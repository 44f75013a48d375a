"""The documentation (README.md and the site in docs/) is true and complete: the reference names
every builtin, effect verb, command and option; the README's two commands are the ones CI runs;
the examples in the README and the pages run as printed; the map of the packages in "How it
works" is the tree; the site builds strictly."""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter.compile.compiler import _ruleset_functions
from interpreter.engine.flow import EFFECTS
from interpreter.lang.builtins import BUILTINS

from .conftest import DOCS, copy_ruleset, docs_page, required_in_ci

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PACKAGE = ROOT / "interpreter"


class _FakeRuleset:
    kinds: dict = {}
    by_id: dict = {}


def _blocks(text: str, lang: str) -> list[str]:
    """The fenced ``lang`` code blocks of a Markdown text, in order."""
    return re.findall(rf"^```{lang}\n(.*?)^```", text, re.S | re.M)


def _section(text: str, heading: str) -> str:
    """The text under ``heading`` (a whole heading line, ``## Title``) up to the next heading of
    the same or a higher level."""
    level = len(heading.split(" ", 1)[0])
    body = text.split(f"\n{heading}\n", 1)[1]
    out, fenced = [], False
    for line in body.splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(rf"#{{1,{level}}} ", line):  # a comment in a code block is no heading
            break
        out.append(line)
    return "".join(out)


# -- the reference is complete -----------------------------------------------------------------------


def test_every_builtin_is_in_the_reference():
    names = set(BUILTINS) | set(_ruleset_functions(_FakeRuleset()))
    reference = docs_page("reference")
    missing = [n for n in sorted(names) if f"`{n}(" not in reference]
    assert not missing, f"docs/reference.md lacks builtins: {missing}"


def test_every_effect_verb_is_in_the_reference():
    effects = _section(docs_page("reference"), "### Effects")
    missing = [v for v in EFFECTS if f"| `{v}` |" not in effects]
    assert not missing, f"docs/reference.md's Effects lacks effect verbs: {missing}"


def test_every_command_and_option_is_in_the_cli_reference():
    import click

    from interpreter.cli import cli

    section = _section(docs_page("reference"), "## CLI reference")
    rows = {line.split("`tapster ", 1)[1].split()[0].rstrip("`"): line for line in section.splitlines() if line.startswith("| `tapster ")}
    ctx = click.Context(cli)
    commands = {name: cli.get_command(ctx, name) for name in cli.list_commands(ctx)}  # the group loads them lazily
    assert set(rows) == set(commands), f"commands {sorted(set(commands) ^ set(rows))} differ between the CLI and the reference"
    for name, command in commands.items():
        row = rows[name]
        if "[same options]" in row:  # compare: analyse's options, and its own
            row += rows["analyse"]
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                longs = [o for o in param.opts if o.startswith("--")]
                assert any(o in row for o in longs), f"the reference's `tapster {name}` row lacks {longs[0]}"
    assert "`tapster --version`" in section


def test_the_reference_indexes_every_top_level_key_of_the_schema():
    import json

    schema = json.loads((ROOT / "schemas" / "ruleset.schema.json").read_text(encoding="utf-8"))
    keys = _section(docs_page("reference"), "## Ruleset keys")
    overview = _blocks(keys, "yaml")[0]
    missing = [k for k in schema["properties"] if not re.search(rf"^{k}:", overview, re.M) or f"`{k}`" not in keys]
    assert not missing, f"docs/reference.md's Ruleset keys lacks {missing}"


def test_every_key_of_the_ruleset_schema_is_documented():
    # Every property name anywhere in the schema appears in the reference or the authoring guide,
    # as code (`key:`, `key`) or as a YAML key in an example.
    import json

    schema = json.loads((ROOT / "schemas" / "ruleset.schema.json").read_text(encoding="utf-8"))
    names: set[str] = set()

    def walk(node):
        if isinstance(node, dict):
            names.update(node.get("properties", {}))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    assert len(names) > 100
    docs = docs_page("reference") + docs_page("authoring")
    missing = sorted(n for n in names if not re.search(rf"(`{re.escape(n)}[`:(\[]|\b{re.escape(n)}:)", docs))
    assert not missing, f"schema keys documented nowhere in docs/reference.md or docs/authoring.md: {missing}"


# -- the README -------------------------------------------------------------------------------------


def test_the_two_commands_in_the_readme_and_the_getting_started_page():
    install = "python3 -m pip install . && tapster play beer_flights --players 3 --agents human,random"
    test = "python3 -m pip install -e '.[test,web,openspiel,pettingzoo,gymnasium,ray,tune]' && python3 -m pytest"
    for name, text in (("README.md", README), ("docs/getting-started.md", docs_page("getting-started"))):
        commands = _blocks(text, "sh")
        assert install in commands[0] and test in commands[1], name
    # CI installs exactly what the test command does, runs it, and builds the site strictly
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install --quiet -e '.[test,web,openspiel,pettingzoo,gymnasium,ray,tune]'\n" in ci
    assert "pip install --quiet -e '.[docs]'\n" in ci and "mkdocs build --strict" in ci
    assert "\npython3 -m pytest\n" in ci


def test_the_readme_is_short_and_links_to_every_page():
    assert len(README.splitlines()) < 300
    links = set(re.findall(r"\]\((docs/[^)#]*)", README))
    pages = {f"docs/{p.name}" for p in DOCS.glob("*.md")}
    assert pages <= links, f"the README does not link to {sorted(pages - links)}"
    assert all((ROOT / link).exists() for link in links), links


def test_the_readme_validate_example_is_what_validate_prints(tmp_path, capsys):
    from interpreter.cli import main

    shown = README.split("$ tapster validate my_game\n", 1)[1].split("\n", 1)[0]
    path = copy_ruleset(tmp_path, "tic_tac_toe")
    folder = path.parent.rename(tmp_path / "my_game")
    text = (folder / "ruleset.yaml").read_text(encoding="utf-8")
    assert text.count("if: board[cell] == -1") == 1
    (folder / "ruleset.yaml").write_text(text.replace("if: board[cell] == -1", "if: bord[cell] == -1"), encoding="utf-8")
    assert main(["validate", str(folder)]) == 1
    err = capsys.readouterr().err
    assert shown.replace("my_game/", f"{folder}/", 1) in err.splitlines(), (shown, err)


# -- the examples run as printed ---------------------------------------------------------------------


def test_the_readme_commands_parse(tmp_path, monkeypatch):
    # Every `tapster ...` command in the README's shell blocks names a command and options that
    # exist, with values of the right kinds (parsed by the command's own parser, not run).
    import shlex

    from interpreter.cli import cli

    monkeypatch.chdir(tmp_path)
    commands = []
    for block in _blocks(README, "sh"):
        for line in block.splitlines():
            for part in line.split("#", 1)[0].split("&&"):
                words = shlex.split(part)
                if words and words[0] == "tapster":
                    commands.append(words[1:])
    assert len(commands) >= 5, commands
    import click

    for words in commands:
        # the group's own look-up: a command's module registers it when it is first asked for
        command = cli.get_command(click.Context(cli), words[0])
        assert command is not None, words
        command.make_context(words[0], list(words[1:]), resilient_parsing=False)



def _run(code: str, where: str) -> None:
    exec(compile(code, where, "exec"), {})


def test_the_python_api_examples_run(capsys):
    (readme_example,) = _blocks(README, "python")
    _run(readme_example, "README.md (The Python API)")
    out = capsys.readouterr().out
    assert "Action(name='mark', args=(0,))" in out and "Outcome(scores=" in out
    api = _blocks(_section(docs_page("research"), "## The Python API"), "python")
    assert len(api) == 1
    _run(api[0], "docs/research.md (The Python API)")
    assert "Outcome(scores=" in capsys.readouterr().out


def test_the_openspiel_and_pettingzoo_example_runs():
    pytest.importorskip("pyspiel")
    pytest.importorskip("pettingzoo")
    section = _section(docs_page("research"), "## OpenSpiel and PettingZoo")
    blocks = _blocks(section, "python")
    assert len(blocks) == 2  # the adapters, and rl_environment's observation type
    for code in blocks:
        _run(code, "docs/research.md (OpenSpiel and PettingZoo)")


def test_the_gymnasium_examples_run(capsys):
    pytest.importorskip("gymnasium")
    blocks = _blocks(_section(docs_page("research"), "## Gymnasium and vectorised environments"), "python")
    assert len(blocks) == 2
    for code in blocks:
        _run(code, "docs/research.md (Gymnasium)")
    out = capsys.readouterr().out
    assert "return " in out and "(8, 36) games won:" in out


# -- the map of the packages is the tree ----------------------------------------------------------------


def _tree_modules() -> set[str]:
    """Every module of ``interpreter/`` as a repository path: each ``.py`` and ``.lark`` file, but
    not a package's ``__init__.py`` that holds only its docstring (it names its modules, nothing
    more)."""
    out = set()
    for path in PACKAGE.rglob("*"):
        if path.suffix not in (".py", ".lark") or "__pycache__" in path.parts:
            continue
        if path.name == "__init__.py" and path.parent != PACKAGE:
            body = ast.parse(path.read_text(encoding="utf-8")).body
            if all(isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) for n in body):
                continue
        out.add(path.relative_to(ROOT).as_posix())
    return out


def test_the_package_map_names_every_module_in_the_tree_and_nothing_else():
    section = _section(docs_page("how-it-works"), "## The map of the packages")
    entries = re.findall(r"^- `(interpreter/[^`]+)` — \S", section, re.M)
    assert len(entries) == len(set(entries)), "a module is mapped twice"
    named = set(entries)
    gone = sorted(p for p in named if not (ROOT / p).exists())
    assert not gone, f"the package map (docs/how-it-works.md) names paths that do not exist: {gone}"
    unmapped = sorted(_tree_modules() - named)
    assert not unmapped, f"modules missing from the package map in docs/how-it-works.md (one line each, in its stage): {unmapped}"
    # every subpackage has its heading, and the folders named are the tree's
    packages = {p.parent.relative_to(ROOT).as_posix() for p in PACKAGE.glob("*/__init__.py")}
    assert all(f"(`{p}/`" in section for p in packages), packages
    assert all((ROOT / p).is_dir() for p in named if p.endswith("/"))


def test_the_package_map_reads_as_the_layout_tests_stages():
    # The stages in the map come in the order tests/test_layout.py checks the imports in.
    from .test_layout import STAGES

    section = _section(docs_page("how-it-works"), "## The map of the packages")
    order = [pkg for pkg, _ in STAGES if pkg]
    positions = [section.index(f"(`interpreter/{pkg}/`") for pkg in order]
    assert positions == sorted(positions), order
    # and inside each stage, its modules bottom to top, as STAGES lists them
    for pkg, modules in STAGES:
        if modules:
            prefix = f"interpreter/{pkg}/" if pkg else "interpreter/"
            at = [section.find(f"- `{prefix}{m}.py`") for m in modules]
            assert -1 not in at and at == sorted(at), f"the map's {prefix} does not list {modules} in this order"


# -- the site ----------------------------------------------------------------------------------------------


def test_every_page_is_in_the_nav_and_the_nav_names_only_pages():
    import yaml

    class _Loader(yaml.SafeLoader):
        pass

    # mkdocs.yml names the Mermaid fence's formatter with a python/name tag: read it as text
    _Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: suffix)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)  # noqa: S506 (a SafeLoader)
    assert config["docs_dir"] == "docs" and config["strict"] is True
    nav = [next(iter(item.values())) for item in config["nav"]]
    assert sorted(nav) == sorted(p.name for p in DOCS.glob("*.md"))


def test_the_site_builds_strictly(tmp_path):
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        if required_in_ci():
            pytest.fail("mkdocs is not installed: pip install -e '.[docs]' (required under CI=true)")
        pytest.skip("mkdocs is not installed: pip install -e '.[docs]'")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "site" / "how-it-works" / "index.html").exists()
