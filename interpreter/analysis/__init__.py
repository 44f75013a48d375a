"""Stage 8, many games and what they show.

- ``simulate``: batches of games between agents, their summary, and perft.
- ``scenarios``: a ruleset's own tests (``tapster test``).
- ``check``: generic invariants of any ruleset (``tapster check``): the games they play
  (``check_games``), the checks by family (``check_rules``: the game runs by its rules;
  ``check_secrecy``: hidden information stays hidden; ``check_templates``: templates render),
  and the driver (``check``).
- ``stats``: intervals and tests; ``balance``: the balance report's measurements and comparisons.
- ``runner``: games in this process, a process pool or Ray tasks, handed back in game order.
- ``tune``: the search over parameters (``tapster tune``); ``report``: the HTML report and plots.
"""
