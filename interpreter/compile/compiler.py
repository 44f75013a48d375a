"""The compiler's old home: its code is being split into modules of one concern each (issue 26);
this re-exports it meanwhile."""

from __future__ import annotations

from .declarations import *  # noqa: F401,F403
from .declarations import Ctx, _ruleset_functions, compile_template, flow_comma_hint, one_value  # noqa: F401
