"""Stage 7, whoever answers a decision, never reading what its seat may not see.

- ``core``: the agent protocol, random, first-legal and human agents, and agent specs
  (``random``, ``ismcts:iterations=100``).
- ``search``: greedy, MCTS (UCT) and ISMCTS (information-set MCTS) search agents.
"""
