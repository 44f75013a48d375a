"""Stage 4, what people see: every view of seat p is built from what p may see.

- ``publicity``: the static check of what a display's text may reveal.
- ``faces``: card faces, a component's fixed fields and abilities in words.
- ``render``: displays (header, footer, board, table, map) compiled and drawn.
- ``view``: a seat's view, built from its observation.
- ``termview``, ``terminal``: the terminal table and its seat views.
- ``webview``: a seat's HTML for the browser table.
"""
