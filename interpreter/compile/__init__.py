"""Stage 5, from document to game: the compiler assembles the stages below into a Ruleset.

- ``lint``: load-time warnings (values that look like null or like expressions).
- ``ruleset``: the compiled ruleset (``new_game``), what every later stage runs.
- ``names``: why a name is unknown where it is out of scope (what it is elsewhere, where).
- ``context``: the compilation context every effect, display line and face compiles against
  (expressions, templates, zone references, places, blocks; the errors found).
- ``declarations``: components, zones, variables and maps.
- ``functions``: the ruleset's own functions and the builtins that read the state.
- ``outcome``: the outcome (score, winners, tiebreaks) and the declared facts.
- ``compiler``: the driver: find and load a ruleset, overlay variants, run the stages above in
  order into a :class:`~interpreter.compile.ruleset.Ruleset` (``load_ruleset``).
- ``facts``: a game's exact facts: utility bounds, the scores' sum, the longest game.

It sits above the engine and the views because it builds their objects (effects, displays).
"""
