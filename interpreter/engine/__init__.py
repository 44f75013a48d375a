"""Stage 3, the running game: what happens between two decisions.

- ``rng``: the deterministic random generator (and the secure one of served tables).
- ``places``: zone references and assignable places (``set``'s targets, with the value limits).
- ``flow``: the effect verbs (``move``, ``set``, ``if``, ``for_each``, ``choose``...) and the
  runner that executes them until the next decision, as resumable plain-data frames.
- ``effectgen``: the Python source of decision-free effects (those that cannot stop).
- ``flowgen``: the flow's code generator: every block, decisions included, as one Python
  function resumable where a frame saved it.
- ``chance``: explicit chance points and lazy deals.
- ``saved``: a saved state as JSON data: values encoded and decoded, documents checked.
- ``state``: one game: zones, properties, variables, legal actions and ``apply``.
- ``worlds``: determinised worlds of one position for one seat, prepared once and drawn again
  and again (``State.determinize``'s worlds, for a search's every iteration).

Imports only the stages below (``interpreter.lang``, ``interpreter.loader``, the roots).
"""
