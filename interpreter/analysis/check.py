"""``tapster check``'s old home: its code is being split into modules of one concern each
(issue 26); this re-exports it meanwhile."""

from __future__ import annotations

from .check_games import *  # noqa: F401,F403
from .check_games import _short_draw_notes, raw_cells  # noqa: F401
