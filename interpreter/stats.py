"""The statistics of a balance report: confidence intervals and significance tests, in plain
Python (no SciPy needed; ``tests/test_stats.py`` checks them against SciPy and textbook values).

Rates use the Wilson score interval (good near 0 and 1 and for small samples); a difference of
two rates uses the Newcombe hybrid score interval and the pooled two-proportion z test; a
difference of two means uses Welch's t (unequal variances, Welch–Satterthwaite degrees of
freedom).  Every interval is two-sided at ``level`` (0.95 unless told).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "Running", "Estimate", "z_value", "wilson", "proportion", "mean_interval", "two_proportion",
    "welch", "normal_sf", "student_t_sf",
]


def normal_sf(z: float) -> float:
    """P(Z > z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def z_value(level: float = 0.95) -> float:
    """The two-sided normal quantile for ``level`` (1.959964 for 0.95), by bisection on erfc.

    Raises:
        ValueError: ``level`` is not strictly between 0 and 1.
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"a confidence level is between 0 and 1, not {level}")
    target = (1.0 - level) / 2.0
    lo, hi = 0.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if normal_sf(mid) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def _betacf(a: float, b: float, x: float) -> float:
    # Continued fraction of the incomplete beta function (Lentz's method).
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    ln = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(ln)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def student_t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with ``df`` (> 0, not necessarily whole) degrees of freedom."""
    if math.isinf(df):
        return normal_sf(t)
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return tail if t >= 0 else 1.0 - tail


def _t_quantile(level: float, df: float) -> float:
    """The two-sided Student t quantile for ``level`` and ``df`` (bisection)."""
    target = (1.0 - level) / 2.0
    lo, hi = 0.0, 1e6
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if student_t_sf(mid, df) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


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
    h = _t_quantile(level, r.n - 1) * r.sd / math.sqrt(r.n)
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
    t = d / se
    p = 2 * student_t_sf(abs(t), df)
    h = _t_quantile(level, df) * se
    return Estimate(d, d - h, d + h, level, min(1.0, p), (a.n, b.n))
