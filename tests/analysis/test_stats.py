"""The balance report's statistics against published values (Newcombe 1998, Statistics in
Medicine 17:857-872; a Student t table) and against SciPy, and the paired tests against SciPy and exact binomial values."""

from __future__ import annotations

import pytest

from interpreter.analysis.stats import Running, mean_interval, paired, student_t_sf, two_proportion, welch, wilson, z_value


def _running(xs) -> Running:
    r = Running()
    for x in xs:
        r.add(x)
    return r


def test_z_value_is_the_normal_quantile():
    assert z_value(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert z_value(0.99) == pytest.approx(2.575829, abs=1e-6)


def test_wilson_interval_matches_newcombe():
    # Newcombe 1998, table I: 81/263 -> 0.2553 to 0.3662; 15/148 -> 0.0624 to 0.1605.
    lo, hi = wilson(81, 263)
    assert (round(lo, 4), round(hi, 4)) == (0.2553, 0.3662)
    lo, hi = wilson(15, 148)
    assert (round(lo, 4), round(hi, 4)) == (0.0624, 0.1605)
    # 0/10 and 10/10 keep their exact end: 0 to 0.2775, 0.7225 to 1.
    assert wilson(0, 10)[0] == 0.0 and round(wilson(0, 10)[1], 4) == 0.2775
    assert wilson(10, 10)[1] == 1.0 and round(wilson(10, 10)[0], 4) == 0.7225


def test_difference_of_proportions_matches_newcombe_method_10():
    # Newcombe 1998, table II, example (a): 56/70 - 48/80 = 0.2000, hybrid score 0.0524 to 0.3339.
    d = two_proportion(48, 80, 56, 70)
    assert round(d.value, 4) == 0.2
    assert (round(d.low, 4), round(d.high, 4)) == (0.0524, 0.3339)
    assert d.significant()
    same = two_proportion(30, 100, 30, 100)
    assert same.value == 0 and same.p == pytest.approx(1.0) and not same.significant()


def test_student_t_tail_matches_the_table():
    # t table: two-sided 5% at 10 degrees of freedom is 2.228; 1% at 5 is 4.032.
    assert 2 * student_t_sf(2.228, 10) == pytest.approx(0.05, abs=2e-4)
    assert 2 * student_t_sf(4.032, 5) == pytest.approx(0.01, abs=2e-4)
    assert student_t_sf(0.0, 3) == pytest.approx(0.5)


def test_mean_interval_and_welch_against_scipy():
    stats = pytest.importorskip("scipy.stats")
    a = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4]
    b = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4, 30.1]
    d = welch(_running(a), _running(b))
    ref = stats.ttest_ind(b, a, equal_var=False)
    assert d.p == pytest.approx(ref.pvalue, rel=1e-9)
    ci = ref.confidence_interval(0.95)
    assert (d.low, d.high) == (pytest.approx(ci.low, rel=1e-6), pytest.approx(ci.high, rel=1e-6))
    m = mean_interval(_running(a))
    lo, hi = stats.t.interval(0.95, len(a) - 1, loc=sum(a) / len(a), scale=stats.sem(a))
    assert (m.low, m.high) == (pytest.approx(lo, rel=1e-9), pytest.approx(hi, rel=1e-9))


def test_welch_without_spread():
    assert welch(_running([3, 3, 3]), _running([3, 3])).p == 1.0
    assert welch(_running([3, 3, 3]), _running([4, 4])).p == 0.0


def test_paired_means_use_the_paired_t_test_and_its_interval():
    stats = pytest.importorskip("scipy.stats")
    x = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6]
    y = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2]
    r = paired(x, y)
    ref = stats.ttest_rel(y, x)
    assert r.test == "paired t"
    assert r.estimate.p == pytest.approx(ref.pvalue, rel=1e-12)
    # The interval is the t interval of the per-seed differences, computed here by hand.
    d = [b - a for a, b in zip(x, y)]
    m = mean_interval(_running(d))
    assert (r.estimate.low, r.estimate.high) == (pytest.approx(m.low, rel=1e-9), pytest.approx(m.high, rel=1e-9))
    assert r.estimate.n == 10


def test_paired_rates_use_mcnemars_exact_test_and_skip_missing_pairs():
    # 7 discordant pairs, 1 one way and 6 the other: two-sided exact p = 2 * (1 + 7) / 2**7 = 0.125.
    x = [1, 0, 0, 0, 0, 0, 0] + [1] * 5 + [0] * 5 + [float("nan"), 1]
    y = [0, 1, 1, 1, 1, 1, 1] + [1] * 5 + [0] * 5 + [1, None]
    r = paired(x, y)
    assert r.test == "McNemar exact"
    assert r.estimate.n == 17
    assert r.estimate.value == pytest.approx(5 / 17)
    assert r.estimate.p == pytest.approx(0.125, abs=1e-12)
    assert r.estimate.low < 5 / 17 < r.estimate.high
    # No discordant pair: nothing changed, p = 1; a fractional value (a shared win) makes it a t test.
    same = paired([1, 0, 1], [1, 0, 1])
    assert same.estimate.p == 1.0 and same.estimate.half_width == 0
    assert paired([0.5, 0, 1], [1, 0, 1]).test == "paired t"
    assert paired([1, 0, 1], [1, 1, 1], rate=False).test == "paired t"


def test_paired_needs_two_pairs_and_equal_lengths():
    assert paired([1.0], [2.0]).estimate.p is None
    with pytest.raises(ValueError):
        paired([1, 2], [1])
