"""``tapster serve``: the browser table's server, for now all in :mod:`interpreter.web.tables`.

This module only re-exports the names other code imports from here (the CLI and the tests); the
next commit moves the routes, the request guard and ``serve`` back here and the limits, request
checks and agent pool into :mod:`interpreter.web.guards`.
"""

from __future__ import annotations

from .tables import (
    ACT_SCHEMA,
    CREATE_SCHEMA,
    CREATOR_SEED_NOTE,
    FORBIDDEN,
    MAX_MESSAGE,
    MAX_PARAMS_TEXT,
    MAX_SEED,
    FairPool,
    Limits,
    RequestGuard,
    Table,
    TableServer,
    build_app,
    client_address,
    guarded_protocol,
    parse_json,
    require_web,
    restore_state,
    serve,
)

__all__ = ["TableServer", "Limits", "build_app", "serve", "require_web", "FORBIDDEN", "CREATE_SCHEMA", "ACT_SCHEMA",
           "CREATOR_SEED_NOTE", "restore_state", "client_address", "parse_json", "Table", "FairPool", "RequestGuard",
           "guarded_protocol", "MAX_PARAMS_TEXT", "MAX_MESSAGE", "MAX_SEED"]
