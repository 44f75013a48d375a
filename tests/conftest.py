"""Shared fixtures: compiled rulesets are cached for the session (compiling is the slow part)."""

from __future__ import annotations

import functools
import os
import tempfile

import pytest

from interpreter import available_rulesets, load_ruleset


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
