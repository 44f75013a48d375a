"""Stage 1, reading a ruleset: nothing here runs a game.

- ``load``: safe YAML (no tags, no code, bounded expansion) and CSV tables, with file:line:column.
- ``schema``: the JSON Schema checks of a ruleset document and of a saved state.
- ``params``: parameter declarations (kind, range) and the composition of variants.
- ``maps``: map graphs built from node and edge tables (networkx at load, frozen dicts at play).

Imports only ``interpreter.errors``/``limits``/``model`` and each other.
"""
