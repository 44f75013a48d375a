"""Shared fixtures: compiled rulesets are cached for the session (compiling is the slow part)."""

from __future__ import annotations

import functools
import os
import random
import shutil
import tempfile
from pathlib import Path

import pytest

from interpreter import available_rulesets, find_ruleset, load_ruleset


@functools.cache
def compiled(name: str, variant: str | None = None):
    """The compiled ruleset ``name`` (with ``variant``), compiled once per test session."""
    return load_ruleset(name, variant)


def all_configurations() -> list[tuple[str, str | None]]:
    """(ruleset, variant) for every shipped ruleset and each of its variants."""
    out = []
    for name in available_rulesets():
        rs = compiled(name)
        out.append((name, None))
        out.extend((name, v) for v in rs.variants)
    return out


@pytest.fixture
def ruleset_factory():
    return compiled


# Remembered validations and the parser cache go to a folder of this test session, not the
# user's ~/.cache (subprocesses the tests start inherit it).
os.environ.setdefault("TAPSTER_CACHE_DIR", tempfile.mkdtemp(prefix="tapster-test-cache-"))


#: Where Playwright finds Debian's Chromium (``TAPSTER_CHROMIUM`` overrides it).
CHROMIUM = os.environ.get("TAPSTER_CHROMIUM", "/usr/bin/chromium")


def required_in_ci() -> bool:
    """True under CI (``CI=true``, which ``.ci/run`` sets): there a missing optional part fails."""
    return os.environ.get("CI", "").lower() == "true"


def need_chromium() -> str:
    """Chromium's path and Playwright's sync API importable, or else skip the calling test with
    the reason (shown in pytest's summary with ``-rs``, the test command of the README and docs/getting-started.md); under CI
    (:func:`required_in_ci`) fail instead, since there the browser is required.
    Returns the path of the Chromium executable."""
    problem = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        problem = "Playwright is not installed: pip install -e '.[web]'"
    if problem is None and not Path(CHROMIUM).exists():
        problem = f"no Chromium at {CHROMIUM}: apt-get install -y chromium (or set TAPSTER_CHROMIUM)"
    if problem is not None:
        if required_in_ci():
            pytest.fail(problem + " (required under CI=true)")
        pytest.skip(problem)
    return CHROMIUM


def copy_ruleset(tmp_path: Path, name: str) -> Path:
    """A copy of shipped ruleset ``name``'s folder under ``tmp_path``; returns its ruleset.yaml."""
    dest = tmp_path / name
    shutil.copytree(find_ruleset(name).parent, dest)
    return dest / "ruleset.yaml"


def replace_once(path: Path, old: str, new: str) -> None:
    """Replace the first ``old`` in the file at ``path`` with ``new`` (``old`` must be there)."""
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def coins_swapped():
    """Drink & Beat's complex rules, once P2 holds a Boozy Troll coin taken "without showing it
    to the enemy": ``(ruleset, state, other, coin)`` where ``other`` is ``state`` with P2's coin
    exchanged for one still face down in the Cellar, and ``coin`` the one P2 really holds.  Two
    positions P1 cannot tell apart and P2 can."""
    rs = compiled("drink_and_beat", "complex")
    rng = random.Random(1)
    st = rs.new_game(2, seed=5, log=True)
    while not (st.zones["coin_hand"][1] and st.zones["coin_cellar"]):
        st.apply(rng.choice(st.legal_actions()))
    other = st.clone()
    mine, spare = other.zones["coin_hand"][1][0], other.zones["coin_cellar"][0]
    other.zones["coin_hand"][1][0], other.zones["coin_cellar"][0] = spare, mine
    return rs, st, other, mine


#: The documentation site's pages (``mkdocs.yml``: ``docs_dir: docs``), which hold what the README
#: used to: the guides, the reference and how it works.
DOCS = Path(__file__).resolve().parent.parent / "docs"


def docs_page(name: str) -> str:
    """The Markdown text of ``docs/<name>.md`` (``name`` such as ``"reference"``)."""
    return (DOCS / f"{name}.md").read_text(encoding="utf-8")
