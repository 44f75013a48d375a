"""Stage 9, the browser table (``tapster serve``; optional extra ``web``).

- ``store``: where tables are kept (SQLite).
- ``guards``: what each client may ask (limits), request bodies checked as data, the fair agent pool.
- ``tables``: the live tables: create, restore, expire, delete, take an action, agents' turns.
- ``server``: the Starlette application: routes, seats' pages, the request guard, ``serve``.
- ``static/``: the table's script and style sheet.
"""
