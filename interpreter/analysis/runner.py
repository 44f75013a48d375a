"""Running many games: batches of games played in this process, in a local process pool or as
Ray tasks, handed back **in game order** whatever finished first (so totals summed as they come
are the same bits whatever the backend and the number of processes).

Only a bounded number of batches is in flight at a time and each is dropped once handed back,
so a run of millions of games holds a few batches in memory, not one record per game.

Ctrl-C (``KeyboardInterrupt``) stops a run at once: the pool's workers (which ignore SIGINT,
so they print nothing) are terminated, Ray tasks cancelled, and the exception goes on to the
caller, which summarises the games handed back so far.
"""

from __future__ import annotations

import csv
import json
import math
import multiprocessing
import os
import queue
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import TapsterError
from .balance import EXPORT_FIELDS, GameRecord, Tally, metrics, play_games
from .simulate import SimSpec, remember_ruleset
from .stats import proportion

__all__ = ["BACKENDS", "run_games", "batch_size", "Exporter", "play_run", "narrow_enough", "auto_rounds", "ray_session",
           "comparison_decided", "skill_check"]

BACKENDS = ("local", "ray")


def batch_size(games: int, jobs: int) -> int:
    """Games per task: about eight tasks per worker, at most 50 games (so progress and Ctrl-C
    stay prompt)."""
    return max(1, min(50, math.ceil(games / (jobs * 8))))


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_games(spec: SimSpec, indices: range, *, jobs: int = 1, backend: str = "local", ray_address: str | None = None,
              ruleset=None, on_batch: Callable[[int], None] | None = None) -> Iterator[GameRecord]:
    """Play games ``indices`` of run ``spec`` and yield their records in index order.

    ``jobs``: worker processes (local; 1 plays in this process) or Ray tasks in flight at once
    (each Ray task one batch); ``backend``: ``local`` or ``ray``; ``ray_address``: the cluster
    for ``ray.init(address=...)`` (else ``RAY_ADDRESS``; with neither, a local Ray is started
    with ``jobs`` CPUs and shut down after); ``ruleset``: the compiled ruleset of ``spec``,
    reused by this process and forked workers; ``on_batch(n)`` is called as each batch of n
    games is handed back.

    Raises:
        TapsterError: an unknown backend, or Ray is not installed (``pip install 'tapster[ray]'``).
        KeyboardInterrupt: Ctrl-C; workers have been stopped.
    """
    if backend not in BACKENDS:
        raise TapsterError(f"no backend {backend!r}; backends: {', '.join(BACKENDS)}")
    if ruleset is not None:
        remember_ruleset(spec, ruleset)
    size = batch_size(len(indices), jobs)
    batches = _Batches(indices, size)
    if backend == "ray":
        yield from _ray(spec, batches, jobs, ray_address, on_batch)
    elif jobs == 1:
        for b in batches:
            records = play_games(spec, b)
            if on_batch:
                on_batch(len(records))
            yield from records
    else:
        yield from _pool(spec, batches, jobs, on_batch)


class _Batches:
    """``indices`` cut into batches of ``size``, made when asked for (nothing per game up front)."""

    def __init__(self, indices: range, size: int):
        self.indices, self.size = indices, size

    def __len__(self) -> int:
        return math.ceil(len(self.indices) / self.size)

    def __getitem__(self, k: int) -> range:
        if not 0 <= k < len(self):
            raise IndexError(k)
        return self.indices[k * self.size:(k + 1) * self.size]


def _in_order(batches: _Batches, window_size: int, submit: Callable[[int], None], next_done: Callable[[], tuple],
              on_batch) -> Iterator[GameRecord]:
    """Keep at most ``window_size`` batches in flight (``submit(k)`` starts batch k), take finished
    ones from ``next_done() -> (k, records)`` and yield records in batch order."""
    window = 0
    submitted = 0
    done: dict[int, list] = {}
    wanted = 0
    while wanted < len(batches):
        while submitted < len(batches) and window < window_size:
            submit(submitted)
            submitted += 1
            window += 1
        k, records = next_done()
        window -= 1
        done[k] = records
        if on_batch:
            on_batch(len(records))
        while wanted in done:
            yield from done.pop(wanted)
            wanted += 1


def _pool(spec: SimSpec, batches: _Batches, jobs: int, on_batch) -> Iterator[GameRecord]:
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    pool = ctx.Pool(processes=jobs, initializer=_ignore_sigint)
    results: queue.Queue = queue.Queue()
    try:
        def submit(k: int) -> None:
            pool.apply_async(play_games, (spec, batches[k]), callback=lambda r, k=k: results.put((k, r, None)),
                             error_callback=lambda e, k=k: results.put((k, None, e)))

        def next_done() -> tuple:
            while True:
                try:
                    k, records, error = results.get(timeout=0.2)
                except queue.Empty:
                    continue
                if error is not None:
                    raise error
                return k, records

        yield from _in_order(batches, jobs * 3, submit, next_done, on_batch)
        pool.close()
    finally:
        pool.terminate()
        pool.join()


@contextmanager
def ray_session(jobs: int, address: str | None = None) -> Iterator[None]:
    """Keep one Ray session for every run inside the ``with`` (a search plays many runs; each
    would otherwise start and stop Ray): started as :func:`run_games` would, shut down at the end.

    Raises:
        TapsterError: Ray is not installed or cannot be started or reached.
    """
    ray, started = _ray_init(jobs, address)
    try:
        yield
    finally:
        if started:
            ray.shutdown()


def _ray_init(jobs: int, address: str | None) -> tuple:
    """Import Ray and start or join it unless it runs already: ``(ray, started)``."""
    try:
        import ray
    except ImportError:
        raise TapsterError("--backend ray needs Ray: pip install 'tapster[ray]'") from None
    address = address or os.environ.get("RAY_ADDRESS") or None
    started = False
    if not ray.is_initialized():
        package = str(Path(__file__).resolve().parents[1])  # the whole interpreter package
        options = {"runtime_env": {"py_modules": [package]}, "log_to_driver": False, "include_dashboard": False,
                   "logging_level": "ERROR"}
        if address is None:
            options["num_cpus"] = jobs
        try:
            ray.init(address=address, **options)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise TapsterError(f"cannot start or reach Ray{' at ' + address if address else ''}: {exc}") from None
        started = True
    return ray, started


def _ray(spec: SimSpec, batches: _Batches, jobs: int, address: str | None, on_batch) -> Iterator[GameRecord]:
    ray, started = _ray_init(jobs, address)
    task = ray.remote(play_games)
    refs: dict = {}
    try:
        def submit(k: int) -> None:
            refs[task.remote(spec, batches[k])] = k

        def next_done() -> tuple:
            while True:
                ready, _ = ray.wait(list(refs), num_returns=1, timeout=0.2)
                if ready:
                    ref = ready[0]
                    return refs.pop(ref), ray.get(ref)

        yield from _in_order(batches, max(2, jobs * 3), submit, next_done, on_batch)
    finally:
        for ref in refs:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


# ---------------------------------------------------------------------------------------------
# Runs: games played, tallied in order, exported, stopped by Ctrl-C or by a precision target


class Exporter:
    """Writes one line per game to ``path``: JSON Lines (``.jsonl``/``.json``) or CSV (``.csv``,
    lists as JSON text) with :data:`interpreter.analysis.balance.EXPORT_FIELDS`, plus ``side`` (which run
    of a comparison or sweep).  Use as a context manager.

    Raises:
        TapsterError: an unknown extension, or the file cannot be written.
    """

    def __init__(self, path: str):
        self.path = path
        ext = Path(path).suffix.lower()
        if ext not in (".jsonl", ".json", ".csv"):
            raise TapsterError(f"--export {path}: write a .jsonl or a .csv file")
        self.csv = ext == ".csv"
        self.file = None
        self.writer = None

    def __enter__(self) -> Exporter:
        try:
            self.file = open(self.path, "w", encoding="utf-8", newline="")  # noqa: SIM115 - closed in __exit__
        except OSError as exc:
            raise TapsterError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        if self.csv:
            self.writer = csv.DictWriter(self.file, fieldnames=("side",) + EXPORT_FIELDS)
            self.writer.writeheader()
        return self

    def write(self, side: str, record: GameRecord) -> None:
        """Write ``record`` of run ``side``."""
        row = {"side": side, **record.row()}
        if self.csv:
            self.writer.writerow({k: json.dumps(v) if isinstance(v, (list, dict)) else v for k, v in row.items()})
        else:
            self.file.write(json.dumps(row) + "\n")

    def __exit__(self, *exc) -> bool:
        self.file.close()
        return False


def play_run(spec: SimSpec, indices: range, tally: Tally, *, jobs: int = 1, backend: str = "local",
             ray_address: str | None = None, ruleset=None, on_batch: Callable[[int], None] | None = None,
             export: Callable[[GameRecord], None] | None = None) -> bool:
    """Play games ``indices`` of ``spec`` into ``tally`` (in game order), calling ``export``
    with each record.  Returns False when Ctrl-C stopped it (the workers are stopped, ``tally``
    holds the games handed back before), True when every game was played.

    Raises:
        TapsterError: as :func:`run_games`.
    """
    games = run_games(spec, indices, jobs=jobs, backend=backend, ray_address=ray_address, ruleset=ruleset,
                      on_batch=on_batch)
    try:
        for r in games:
            tally.add(r)
            if export is not None:
                export(r)
    except KeyboardInterrupt:
        games.close()
        return False
    return True


def narrow_enough(tally: Tally, precision: float) -> bool:
    """True when every seat's win rate and the first-player win rate have a 95% interval of
    half-width at most ``precision`` (a share, 0.02 for ±2 points)."""
    m = metrics(tally)
    rows = m["win_rate"] + ([m["AdvantageP1"]] if m["AdvantageP1"] else [])
    return bool(rows) and all((r["high"] - r["low"]) / 2 <= precision for r in rows)


def comparison_decided(tallies: list[Tally], per_game: list | None, precision: float, rounds: int,
                       alpha: float = 0.05) -> bool:
    """The sequential test of ``compare --games auto``: True when, for every later side against
    the first, every seat's win rate and the first-player advantage differ decidedly, at level
    ``1 - alpha/rounds`` (Bonferroni over the ``rounds`` looks, so each decision is wrong with
    probability at most ``alpha``): the difference's interval excludes 0 (a difference) or lies
    within ``±precision`` (none bigger than that).  ``per_game``: the sides'
    :class:`interpreter.analysis.balance.PerGame` for paired intervals (None: unpaired)."""
    from .balance import compare

    level = 1 - alpha / rounds
    for k in range(1, len(tallies)):
        pairs = None if per_game is None else (per_game[0], per_game[k])
        for row in compare(tallies[0], tallies[k], level, pairs=pairs):
            if not (row["key"].startswith("win_rate_P") or row["key"] == "advantage_p1"):
                continue
            d = row["difference"]
            if not (d["low"] > 0 or d["high"] < 0 or (-precision <= d["low"] and d["high"] <= precision)):
                return False
    return len(tallies) > 1


def auto_rounds(first: int, cap: int) -> Iterator[range]:
    """The rounds of ``--games auto``: ``first`` games, then doubling the total, up to ``cap``
    games in all."""
    done, size = 0, first
    while done < cap:
        size = min(size, cap - done)
        yield range(done, done + size)
        done += size
        size = done


def skill_check(spec: SimSpec, agent: str, games: int, *, jobs: int = 1, backend: str = "local",
                ray_address: str | None = None, ruleset=None) -> dict:
    """How agent ``agent`` does against random play, on the run ``spec`` (its ruleset, seats and
    seed): ``games`` games, split evenly over the seats, the agent at one seat and ``random`` at
    every other (game i of seat k's share seeded as the run's game i).

    Returns ``{"agent", "games", "win_rate", "expected", "verdict", "sentence"}``: ``win_rate``
    the agent's share of the wins in games ended by the rules (Wilson 95% interval, a shared win
    counting 1/k), ``expected`` 1/n (random against random), ``verdict`` ``stronger``,
    ``weaker`` or ``no different`` (the interval above, below or around 1/n).

    Raises:
        TapsterError: as :func:`run_games`, or a game failed.
        KeyboardInterrupt: Ctrl-C.
    """
    n = spec.players
    per_seat = max(1, games // n)
    wins = 0.0
    counted = 0
    for k in range(n):
        agents = ["random"] * n
        agents[k] = agent
        seat = SimSpec(spec.path, spec.variant, spec.params, n, spec.seed, tuple(agents))
        tally = Tally(n)
        for r in run_games(seat, range(per_seat), jobs=jobs, backend=backend, ray_address=ray_address, ruleset=ruleset):
            tally.add(r)
        if tally.errors:
            raise TapsterError(f"skill check of {agent}: {tally.errors} game(s) failed; the first: {tally.first_error}")
        wins += tally.wins[k]
        counted += tally.games - tally.limits
    e = proportion(wins, counted)
    expected = 1 / n
    verdict = "stronger" if e.low > expected else ("weaker" if e.high < expected else "no different")
    words = {"stronger": "stronger than random", "weaker": "weaker than random",
             "no different": "not significantly different from random"}[verdict]
    sentence = (f"{agent} wins {e.value:.1%} ± {100 * e.half_width:.1f} of {counted} games against random "
                f"({per_seat} per seat; random's share {expected:.0%}): {words}")
    return {"agent": agent, "games": counted, "win_rate": e.to_json(), "expected": expected, "verdict": verdict,
            "sentence": sentence}
