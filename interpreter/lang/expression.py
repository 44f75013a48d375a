"""The expression language's old home: its code is being split into modules of one concern
each (issue 26); this re-exports it meanwhile."""

from __future__ import annotations

from .evaluator import *  # noqa: F401,F403
from .evaluator import (  # noqa: F401
    _PARSED,
    _TEMPLATE_PART,
    Env,
    Node,
    _Compiler,
    _operand,
    _to_json,
    _trees_path,
    preload_trees,
    save_trees,
    state_reader,
)
