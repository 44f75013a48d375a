"""The statistics of a balance report.  The distributions and tests come from SciPy
(``scipy.stats``); this module keeps only Tapster's choices: which interval and which test a
report uses for a rate, a mean, a difference of two independent samples and a difference of
paired (shared-seed) samples, and the running sums a run is tallied into.

- A rate: the Wilson score interval (good near 0 and 1 and for small samples; the successes may
  be fractional, a shared win counting 1/k).
- A difference of two independent rates: Newcombe's hybrid score interval (method 10) and the
  pooled two-proportion z test.
- A difference of two independent means: Welch's t (unequal variances, Welch–Satterthwaite
  degrees of freedom).
- A paired difference (game i of both sides seeded ``(SEED, i)``): the Student t interval of the
  per-seed differences; the test is McNemar's exact test (the binomial test on the discordant
  pairs) when every value is 0 or 1, else the paired t test.

Every interval is two-sided at ``level`` (0.95 unless told).  ``tests/analysis/test_stats.py`` checks them
against Newcombe's published intervals, a t table and SciPy's own tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


def _scipy():
    """``scipy.stats``, imported when a statistic is first computed (not when the balance report
    is imported: a command starts sooner, and a Ctrl-C while games play never lands inside
    SciPy's import)."""
    from scipy import stats

    return stats

__all__ = [
    "Running", "Estimate", "z_value", "wilson", "proportion", "mean_interval", "two_proportion",
    "welch", "normal_sf", "student_t_sf", "t_quantile", "Paired", "paired", "PAIRED_TESTS",
]


def normal_sf(z: float) -> float:
    """P(Z > z) for a standard normal Z (``scipy.stats.norm.sf``)."""
    return float(_scipy().norm.sf(z))


def z_value(level: float = 0.95) -> float:
    """The two-sided normal quantile for ``level`` (1.959964 for 0.95; ``scipy.stats.norm.ppf``).

    Raises:
        ValueError: ``level`` is not strictly between 0 and 1.
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"a confidence level is between 0 and 1, not {level}")
    return float(_scipy().norm.ppf(0.5 + level / 2.0))


def student_t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with ``df`` (> 0, not necessarily whole) degrees of freedom
    (``scipy.stats.t.sf``; the normal's when ``df`` is infinite)."""
    if math.isinf(df):
        return normal_sf(t)
    return float(_scipy().t.sf(t, df))


def t_quantile(level: float, df: float) -> float:
    """The two-sided Student t quantile for ``level`` and ``df`` (``scipy.stats.t.ppf``).

    Raises:
        ValueError: ``level`` is not strictly between 0 and 1.
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"a confidence level is between 0 and 1, not {level}")
    return float(_scipy().t.ppf(0.5 + level / 2.0, df))


@dataclass(frozen=True)
class Estimate:
    """A number with its two-sided interval: ``value`` in [``low``, ``high``] at ``level``;
    ``p`` is the p-value of the test that the true value (a difference) is zero, when one was
    made; ``n`` the sample size(s) behind it."""

    value: float
    low: float
    high: float
    level: float = 0.95
    p: float | None = None
    n: int | tuple = 0

    @property
    def half_width(self) -> float:
        """Half the interval's width (the ``± h`` a reader sees)."""
        return (self.high - self.low) / 2.0

    def significant(self, alpha: float | None = None) -> bool:
        """True when the test's p-value is below ``alpha`` (default 1 - level)."""
        alpha = 1.0 - self.level if alpha is None else alpha
        return self.p is not None and self.p < alpha

    def to_json(self) -> dict:
        """``{"value", "low", "high", "level", "p", "n"}``."""
        return {"value": self.value, "low": self.low, "high": self.high, "level": self.level, "p": self.p,
                "n": list(self.n) if isinstance(self.n, tuple) else self.n}


def wilson(successes: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a rate ``successes / n`` (successes may be fractional: a
    shared win counts 1/k).  ``(0, 1)`` when ``n`` is 0."""
    if n <= 0:
        return 0.0, 1.0
    z = z_value(level)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0)) / denom
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    return (0.0 if successes <= 0 else low), (1.0 if successes >= n else high)


def proportion(successes: float, n: int, level: float = 0.95) -> Estimate:
    """A rate with its Wilson interval."""
    lo, hi = wilson(successes, n, level)
    return Estimate(successes / n if n else 0.0, lo, hi, level, None, n)


def two_proportion(x1: float, n1: int, x2: float, n2: int, level: float = 0.95) -> Estimate:
    """The difference ``x2/n2 - x1/n1`` of two independent rates: Newcombe's hybrid score
    interval (method 10) and the two-sided p-value of the pooled two-proportion z test."""
    if not n1 or not n2:
        return Estimate(0.0, -1.0, 1.0, level, None, (n1, n2))
    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = wilson(x1, n1, level)
    l2, u2 = wilson(x2, n2, level)
    d = p2 - p1
    low = d - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
    high = d + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    pooled = (x1 + x2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    p = 1.0 if se == 0 else 2 * normal_sf(abs(d) / se)
    return Estimate(d, low, high, level, min(1.0, p), (n1, n2))


@dataclass
class Running:
    """A running count, mean and variance (sums of values and squares, merged exactly in the
    order they are added, so the same values in the same order give the same bits)."""

    n: int = 0
    total: float = 0.0
    squares: float = 0.0

    def add(self, x: float) -> None:
        """Count ``x``."""
        self.n += 1
        self.total += x
        self.squares += x * x

    def merge(self, other: Running) -> None:
        """Add ``other``'s values."""
        self.n += other.n
        self.total += other.total
        self.squares += other.squares

    @property
    def mean(self) -> float:
        """The mean (0 with no values)."""
        return self.total / self.n if self.n else 0.0

    @property
    def variance(self) -> float:
        """The sample variance (n - 1 in the denominator; 0 below two values)."""
        if self.n < 2:
            return 0.0
        return max(0.0, (self.squares - self.total * self.total / self.n) / (self.n - 1))

    @property
    def sd(self) -> float:
        """The sample standard deviation."""
        return math.sqrt(self.variance)

    def to_json(self) -> dict:
        """``{"n", "total", "squares"}``."""
        return {"n": self.n, "total": self.total, "squares": self.squares}


def mean_interval(r: Running, level: float = 0.95) -> Estimate:
    """The mean of ``r`` with its Student t interval."""
    if r.n < 2:
        return Estimate(r.mean, r.mean, r.mean, level, None, r.n)
    h = t_quantile(level, r.n - 1) * r.sd / math.sqrt(r.n)
    return Estimate(r.mean, r.mean - h, r.mean + h, level, None, r.n)


def welch(a: Running, b: Running, level: float = 0.95) -> Estimate:
    """The difference ``mean(b) - mean(a)`` of two independent samples: Welch's t interval with
    Welch–Satterthwaite degrees of freedom and its two-sided p-value (1 when both samples have no
    spread and the same mean, 0 when they have no spread and differ)."""
    d = b.mean - a.mean
    if a.n < 2 or b.n < 2:
        return Estimate(d, -math.inf, math.inf, level, None, (a.n, b.n))
    va, vb = a.variance / a.n, b.variance / b.n
    se2 = va + vb
    if se2 == 0:
        return Estimate(d, d, d, level, 1.0 if d == 0 else 0.0, (a.n, b.n))
    se = math.sqrt(se2)
    df = se2 * se2 / ((va * va / (a.n - 1) if va else 0.0) + (vb * vb / (b.n - 1) if vb else 0.0))
    test = _scipy().ttest_ind_from_stats(b.mean, b.sd, b.n, a.mean, a.sd, a.n, equal_var=False)
    h = t_quantile(level, df) * se
    return Estimate(d, d - h, d + h, level, min(1.0, float(test.pvalue)), (a.n, b.n))


#: The tests :func:`paired` may use, by the name a report prints.
PAIRED_TESTS = ("McNemar exact", "paired t")


@dataclass(frozen=True)
class Paired:
    """A paired difference: ``estimate`` (the mean of the per-seed differences ``y - x`` with its
    Student t interval and the test's p-value, ``n`` the pairs) and ``test``, the test used (one
    of :data:`PAIRED_TESTS`)."""

    estimate: Estimate
    test: str


def paired(xs, ys, level: float = 0.95, rate: bool = True) -> Paired:
    """The difference ``y - x`` of two samples paired by seed: ``xs[i]`` and ``ys[i]`` are game
    i's values on each side (NaN or None where game i has no value, e.g. no winner for Drama;
    such pairs are left out).  The interval is the Student t interval of the per-seed
    differences (SciPy's ``ttest_rel`` interval); the test is McNemar's exact test
    (``binomtest`` on the discordant pairs, two-sided) for a ``rate`` whose every value is 0 or 1,
    else the paired t test (``ttest_rel``).  With fewer than two pairs there is no test (``p`` None).

    Raises:
        ValueError: ``xs`` and ``ys`` differ in length.
    """
    import numpy as np

    x = np.asarray(xs, dtype=float)
    y = np.asarray(ys, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {x.size} and {y.size}")
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    n = int(x.size)
    binary = rate and bool(np.all((x == 0) | (x == 1)) and np.all((y == 0) | (y == 1)))
    test = PAIRED_TESTS[0] if binary else PAIRED_TESTS[1]
    d = y - x
    mean = float(d.mean()) if n else 0.0
    if n < 2:
        return Paired(Estimate(mean, -math.inf, math.inf, level, None, n), test)
    if float(d.std()) == 0.0:
        low = high = mean
        p = 1.0 if mean == 0 else 0.0
    else:
        ref = _scipy().ttest_rel(y, x)
        ci = ref.confidence_interval(level)
        low, high, p = float(ci.low), float(ci.high), float(ref.pvalue)
    if binary:
        up, down = int(np.sum(d > 0)), int(np.sum(d < 0))
        p = 1.0 if up + down == 0 else float(_scipy().binomtest(up, up + down, 0.5).pvalue)
    return Paired(Estimate(mean, low, high, level, min(1.0, p), n), test)
