"""The agents' generator object draws exactly the module's sequence: ``Rng`` computes SplitMix64's
outputs ahead in blocks (2, 4 and 8 in Python, then 64 and 512 with numpy) and must give the numbers
:func:`below` and :func:`next_state` give, its ``state`` always theirs (every seeded game and
search depends on it)."""

import copy
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from interpreter.engine import rng as rng_mod
from interpreter.engine.rng import Rng, below, next_state, secure_seed


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


@settings(max_examples=60, deadline=None)
@given(seed=hs.one_of(hs.integers(0, (1 << 64) - 1), hs.text(max_size=8)),
       ops=hs.lists(hs.tuples(hs.sampled_from(["below", "random", "reset", "copy"]), hs.integers(1, 1 << 64)),
                    min_size=1, max_size=120),
       burst=hs.integers(0, 700))
def test_blocks_give_the_module_sequence_across_boundaries_resets_and_copies(seed, ops, burst):
    """Draws, floats, the state read and set between them, copies and pickles, across the
    blocks' boundaries (a burst of up to 700 draws crosses every block: 2, 4 and 8 outputs, 64, 512)."""
    r = Rng(seed)
    s = r.state
    for _ in range(burst):
        s, v = below(s, 6)
        assert r.below(6) == v
    assert r.state == s
    for op, n in ops:
        if op == "below":
            s, v = below(s, n)
            assert r.below(n) == v
        elif op == "random":
            s, z = next_state(s)
            assert r.random() == (z >> 11) / float(1 << 53)
        elif op == "reset":  # setting the state drops the block: the sequence goes on from it
            r.state = r.state
        else:  # a copy shares the block and draws the same; the original is unchanged by it
            twin = copy.copy(r) if n % 2 else pickle.loads(pickle.dumps(r))
            assert twin.state == r.state == s
            t = s
            for _ in range(n % 70):
                t, v = below(t, 9)
                assert twin.below(9) == v
        assert r.state == s
        assert Rng.from_state(s).state == s


def test_a_secure_generator_draws_without_blocks():
    r = Rng(secure_seed())
    s = r.state
    for n in (2, 9, 9, 52):
        s, v = below(s, n)
        assert r.below(n) == v and r.state == s
    s, z = next_state(s)
    assert r.random() == (z >> 11) / float(1 << 53) and r.state == s


@settings(max_examples=60, deadline=None)
@given(seed=hs.integers(0, (1 << 64) - 1), size=hs.integers(0, 200), short=hs.booleans())
def test_a_long_shuffle_drawn_in_numpy_blocks_is_the_python_steps(seed, size, short):
    """``shuffle`` of 24 items or more draws its outputs in numpy blocks: the same swaps and the
    same new state as ``below`` at every step; with blocks cut short (``short``: 3 outputs a
    block) the shuffle goes on into further blocks from the right state."""
    items, expected = list(range(size)), list(range(size))
    s = seed
    for i in range(size - 1, 0, -1):
        s, j = below(s, i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    real = rng_mod._numpy_block
    if short:
        rng_mod._numpy_block = lambda state, k: real(state, 3)
    try:
        assert rng_mod.shuffle(seed, items) == s and items == expected
    finally:
        rng_mod._numpy_block = real
