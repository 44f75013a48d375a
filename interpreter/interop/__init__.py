"""Stage 7, a ruleset behind standard APIs: numbers for learning libraries.

- ``domains``: the values an option's ``in:`` can give, read from the expression.
- ``encoding``: fixed action and chance index spaces, observation and information-state tensors.
- ``openspiel``: every ruleset as an OpenSpiel game (optional extra ``openspiel``).
- ``pettingzoo``: every ruleset as a PettingZoo AEC environment (optional extra ``pettingzoo``).
- ``gymnasium``: every ruleset as a single-agent Gymnasium environment and a vector environment
  (optional extra ``gymnasium``); the other seats are agents (``interpreter.agents``, below).
"""
