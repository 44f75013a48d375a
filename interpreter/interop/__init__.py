"""Stage 6, a ruleset behind standard APIs: numbers for learning libraries.

- ``domains``: the values an option's ``in:`` can give, read from the expression.
- ``encoding``: fixed action and chance index spaces, observation and information-state tensors.
- ``openspiel``: every ruleset as an OpenSpiel game (optional extra ``openspiel``).
- ``pettingzoo``: every ruleset as a PettingZoo AEC environment (optional extra ``pettingzoo``).
"""
