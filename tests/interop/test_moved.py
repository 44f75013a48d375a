"""Upgrade hygiene (issue 46): the adapters' old import paths work for one release, with a
DeprecationWarning naming the new one."""

from __future__ import annotations

import importlib
import sys

import pytest


@pytest.mark.parametrize(("old", "new", "name"), [
    ("interpreter.openspiel", "interpreter.interop.openspiel", "load_game"),
    ("interpreter.pettingzoo", "interpreter.interop.pettingzoo", "env"),
])
def test_the_old_module_names_warn_and_give_the_moved_modules(monkeypatch, old, new, name):
    pytest.importorskip(new)
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert callable(getattr(module, name))
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning):
        exec(f"from {old} import {name}", {})


def test_an_unknown_module_is_still_not_found():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("interpreter.no_such_module")
