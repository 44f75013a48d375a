"""`tapster simulate` counts its games as they come (interpreter/analysis/simulate.py: ``Tally``;
interpreter/cli/__init__.py: ``simulate``): nothing is allocated per game up front, whatever ``--games``,
and the figures are those of :mod:`statistics` over every game, whatever the order of batches."""

from __future__ import annotations

import json
import statistics
import tracemalloc

from interpreter.analysis import simulate as analysis
from interpreter.analysis.simulate import Tally
from interpreter.cli import main


def test_a_huge_games_count_allocates_nothing_per_game(monkeypatch, capsys):
    played = []

    def fake_batch(spec, indices):  # games 0..999 end in a draw; game 1000 fails
        played.append(len(indices))
        return [(i, [1, 2], [], 5) if i < 1000 else (i, None, "boom", 3) for i in indices]

    monkeypatch.setattr(analysis, "play_batch", fake_batch)  # the runner in analysis.py plays the batches
    main(["simulate", "tic_tac_toe", "--games", "10", "--jobs", "1", "--seed", "1", "--json"])  # compiled and cached
    played.clear()
    tracemalloc.start()
    try:
        code = main(["simulate", "tic_tac_toe", "--games", "10000000", "--jobs", "1", "--seed", "1", "--json"])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err
    assert code == 1 and "game 1000 (seed 1:1000) failed after 3 actions: boom" in err
    assert sum(played) <= 1200  # it stopped at the failure, not after ten million games
    assert peak < 2_000_000, peak  # a list per game would be 80 MB before the first game


def test_the_tally_equals_statistics_whatever_the_batch_order():
    rows = [(i, [i % 7, (i * i) % 5 + 0.5], [i % 2] if i % 3 else [0, 1] if i % 5 else [], 10 + i % 4) for i in range(50)]
    tally = Tally(2)
    batches = [rows[i:i + 7] for i in range(0, 50, 7)]
    for b in reversed(batches):
        tally.add_batch(b)
    s = tally.summary(1.0)
    assert tally.waiting == 0 and s["games"] == 50
    for p in range(2):
        xs = [r[1][p] for r in rows]
        assert s["score_mean"][p] == statistics.fmean(xs)
        assert abs(s["score_sd"][p] - statistics.stdev(xs)) < 1e-12
    assert s["length"] == {"mean": statistics.fmean(r[3] for r in rows), "min": 10, "max": 13}
    # a draw: no winner, or every seat won together (a split pot); 4 and 13 of them here
    assert s["draws"] == sum(1 for r in rows if not r[2] or sorted(r[2]) == [0, 1]) == 17
    assert analysis.summarise(list(reversed(rows)), 2, 1.0) == s


def test_non_numeric_scores_have_no_mean():
    tally = Tally(2)
    tally.add((0, ["a", 1], [1], 3))
    tally.add((1, ["b", 2], [1], 4))
    s = tally.summary(1.0)
    assert s["score_mean"] == [None, 1.5] and s["score_sd"][0] is None
    json.dumps(s)
