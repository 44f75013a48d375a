"""The agents' generator object draws exactly the module's sequence: ``Rng.below`` writes
SplitMix64's step out for sizes drawn before, and must give the numbers :func:`below` gives
(every seeded game and search depends on it)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from interpreter.engine import rng as rng_mod
from interpreter.engine.rng import Rng, below, secure_seed


@settings(max_examples=200, deadline=None)
@given(seed=hs.integers(0, (1 << 64) - 1), sizes=hs.lists(hs.integers(1, 1 << 64), min_size=1, max_size=40))
def test_rng_below_is_the_module_sequence(seed, sizes):
    r = Rng(seed)
    s = r.state
    for n in sizes + sizes:  # the second pass draws sizes already seen (the written-out step)
        s, v = below(s, n)
        assert r.below(n) == v
        assert r.state == s


def test_rng_below_secure_state_and_new_sizes():
    r = Rng(secure_seed())
    s = r.state
    for n in (7, 7, 3, 1000, 7):
        s, v = below(s, n)
        assert r.below(n) == v and r.state == s
    rng_mod._LIMITS.pop(12345677, None)
    r, s = Rng(5), Rng(5).state
    for _ in range(3):  # first draw of a size fills the cache, later ones take the inline step
        s, v = below(s, 12345677)
        assert r.below(12345677) == v and r.state == s


def test_rng_below_rejects_bad_sizes():
    for bad in (0, -1, (1 << 64) + 1):
        with pytest.raises(ValueError):
            Rng(1).below(bad)
