"""Stage 9, the browser table (``tapster serve``; optional extra ``web``).

- ``store``: where tables are kept (SQLite).
- ``tables``: the Starlette application: tables, seats' pages, agents' turns and its limits.
- ``server``: ``tapster serve``'s entry point (the names the CLI and tests import).
- ``static/``: the table's script and style sheet.
"""
