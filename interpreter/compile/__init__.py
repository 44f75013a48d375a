"""Stage 5, from document to game: the compiler assembles the stages below into a Ruleset.

- ``lint``: load-time warnings (values that look like null or like expressions).
- ``compiler``: a validated document to a :class:`~interpreter.compile.ruleset.Ruleset`.
- ``ruleset``: the compiled ruleset (``new_game``), what every later stage runs.
- ``facts``: a game's exact facts: utility bounds, the scores' sum, the longest game.

It sits above the engine and the views because it builds their objects (effects, displays).
"""
