"""What a frameless playout compiler would reach on tic-tac-toe: the ruleset's flow written out
by hand as one loop over the engine's own state, side by side with the engine's playout loop.

    python tools/tic_tac_toe_inlined.py [--seconds 3]

The engine's playout (:func:`interpreter.engine.playout.playout`) runs the flow's block
functions: the ``while`` block calls the ``turn`` body's function, whose ``choose`` lists the
actions through the generated ``legal``, asks the policy and calls the option body's function;
each block function keeps the protocol that lets the flow stop anywhere and resume (its
``pc``, ``loop``, stack base, the step count handed back through the return value), every effect
sets its mark and ``env.loc``, and ``count`` and ``in`` go through the budget helpers.

:func:`playout_inlined` is the same flow as straight-line code, the way a compiler that inlines
every block into its caller would write it for the playout path, over the same
:class:`~interpreter.engine.state.State` and keeping what the engine keeps: the ``history`` and
``record`` of every decision, the turn counters and order, the step budget counted per effect and
the work and memory budgets restarted per move, the log test, the end's reason.  It plays the
same games (``tests/test_tools.py`` compares history, record, variables, turns and reason on
hundreds of seeds).  What it leaves out is what inlining removes: the block calls and their
protocol, the marks and ``env.loc`` writes, the helper calls for ``count`` and ``in`` (their
work charge is written out).

It is a measurement, not a second engine: it shows what the execution model is worth with the
data model unchanged (issue 45's question), on the one game small enough to write by hand.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interpreter import load_ruleset  # noqa: E402
from interpreter.engine.playout import playout  # noqa: E402
from interpreter.engine.rng import Rng  # noqa: E402
from interpreter.model import Action  # noqa: E402

_PAIRS = tuple((c, Action("mark", (c,))) for c in range(9))
_MARKS = ("X", "O")
_DRAW = "the board is full with no line of three (a draw)"


class StepBudgetExceeded(RuntimeError):
    """The step budget ran out (never in tic-tac-toe: a move takes at most five steps)."""


def playout_inlined(st, pick) -> None:
    """Play the new tic-tac-toe game ``st`` (pending at its first decision, as ``new_game``
    leaves it) to its end in place, each decision ``pick(choose, actions, seats) -> index``
    (the engine's policy protocol): the ruleset ``rulesets/tic_tac_toe/ruleset.yaml``'s flow
    written out as one loop.

    Raises:
        StepBudgetExceeded: a move took more steps than the ruleset's step budget.
    """
    V = st.vars
    env = st.env
    board = V["board"]
    step_budget = st.ruleset.step_budget
    choose, _, acts, seats = st.pending
    st.pending = None
    st.stack.clear()  # the loop below holds the flow's place
    turns = st.turns
    first = True
    S = step_budget
    while True:
        if not first:
            # while: winner is none and -1 in board (`in` charged to the work budget)
            env.left -= 9
            if not (V["winner"] is None and -1 in board):
                break
            # turn: player (9 - count(board, -1)) % 2
            S -= 1
            if S < 0:
                raise StepBudgetExceeded("turn")
            env.left -= 9
            p = (9 - board.count(-1)) % 2
            st.current = p
            if not turns[p]:
                st.order += (p,)
            turns[p] += 1
            # choose: mark, for cell in range(9) if board[cell] == -1
            S -= 1
            if S < 0:
                raise StepBudgetExceeded("choose")
            acts = tuple([act for c, act in _PAIRS if board[c] == -1])
            seats = (p,)
        first = False
        a = acts[pick(choose, acts, seats)]
        st.history = (a, st.history)
        st.record = ((seats, a, False), st.record)
        env.left = env.budget
        env.mem = env.memory
        S = step_budget
        cur = st.current
        # set: board[cell] = current; log; if (a line of `cur`)
        S -= 3
        if S < 0:
            raise StepBudgetExceeded("mark")
        board[a.args[0]] = cur
        if st.log is not None:  # pragma: no cover - the benchmark plays without a log
            raise NotImplementedError("the inlined playout keeps no log")
        b = board
        if ((b[0] == cur and b[1] == cur and b[2] == cur) or (b[3] == cur and b[4] == cur and b[5] == cur)
                or (b[6] == cur and b[7] == cur and b[8] == cur) or (b[0] == cur and b[3] == cur and b[6] == cur)
                or (b[1] == cur and b[4] == cur and b[7] == cur) or (b[2] == cur and b[5] == cur and b[8] == cur)
                or (b[0] == cur and b[4] == cur and b[8] == cur) or (b[2] == cur and b[4] == cur and b[6] == cur)):
            S -= 2  # set: winner; end_game
            V["winner"] = cur
            st.finish(_MARKS[cur] + " completed a line")
            return
    st.finish(_DRAW)


def rates(seconds: float) -> dict:
    """Games per CPU second of the engine's playout loop and of :func:`playout_inlined`, each
    the best of three alternating runs of ``seconds / 6``, seeds 0, 1, 2... and one agent
    generator (as ``tools/bench.py`` plays); both include ``new_game``."""
    rs = load_ruleset("tic_tac_toe")
    best = {"engine": 0.0, "inlined": 0.0}
    for _ in range(3):
        for label, run in (("engine", playout), ("inlined", playout_inlined)):
            agent = Rng(1)
            below = agent.below

            def pick(choose, actions, seats, below=below):
                return below(len(actions))

            n = 0
            t0 = time.process_time()
            while (dt := time.process_time() - t0) < seconds / 6:
                for _ in range(100):
                    run(rs.new_game(2, seed=n), pick)
                    n += 1
            best[label] = max(best[label], n / dt)
    return {"engine_games_per_second": round(best["engine"]), "inlined_games_per_second": round(best["inlined"]),
            "ratio": round(best["inlined"] / best["engine"], 2)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="CPU seconds in all (default 3)")
    a = ap.parse_args(argv)
    r = rates(a.seconds)
    print(f"engine playout loop {r['engine_games_per_second']:,} games/s; flow inlined by hand "
          f"{r['inlined_games_per_second']:,} games/s; {r['ratio']}x")


if __name__ == "__main__":
    main()
