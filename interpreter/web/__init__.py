"""Stage 9, the browser table (``tapster serve``; optional extra ``web``).

- ``store``: where tables are kept (SQLite).
- ``server``: the Starlette application: tables, seats' pages, agents' turns and its limits.
- ``static/``: the table's script and style sheet.
"""
