"""Stage 3, the running game: what happens between two decisions.

- ``rng``: the deterministic random generator (and the secure one of served tables).
- ``flow``: the effect verbs (``move``, ``set``, ``if``, ``for_each``, ``choose``...) and the
  runner that executes them until the next decision, as resumable plain-data frames.
- ``flowgen``: the flow's code generator (runs of effects that cannot stop, as Python functions).
- ``chance``: explicit chance points and lazy deals.
- ``state``: one game: zones, properties, variables, legal actions and ``apply``.

Imports only the stages below (``interpreter.lang``, ``interpreter.loader``, the roots).
"""
