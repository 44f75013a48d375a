"""Stage 3, the running game: what happens between two decisions.

- ``rng``: the deterministic random generator (and the secure one of served tables).
- ``places``: keyed zones (``Keyed``), zone references and assignable places (``set``'s targets, with the value limits).
- ``runner``: blocks of effects, the effect base class, and the runner that executes effects
  until the next decision, over resumable plain-data frames.
- ``changes``: the verbs that change the table (``move``, ``shuffle``, ``set``, ``add``, ``let``).
- ``decisions``: ``choose``, the decision point, and its options.
- ``flow``: the verbs of control, output and chance (``if``, ``for_each``, ``turn``, ``call``,
  ``log``, ``end_game``, ``roll``...) and the table of every verb (``EFFECTS``).
- ``effectgen``: the Python source of decision-free effects (those that cannot stop).
- ``flowgen``: the flow's code generator: every block, decisions included, as one Python
  function resumable where a frame saved it.
- ``chance``: explicit chance points and lazy deals.
- ``saved``: a saved state as JSON data: values encoded and decoded, documents checked.
- ``worlds``: determinised worlds of one position for one seat, prepared once and drawn again
  and again (``State.determinize`` draws one; a search, one every iteration).
- ``state``: one game: zones, properties, variables, legal actions and ``apply``.

Imports only the stages below (``interpreter.lang``, ``interpreter.loader``, the roots).
"""
