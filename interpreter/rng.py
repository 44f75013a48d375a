"""The random generator every chance event draws from: SplitMix64, state = one integer.

Python's ``random`` module is not used for game chance because its state is 625 numbers (slow to
clone for tree search), and its algorithms for ``shuffle``/``randrange`` have changed between
Python versions; one 64-bit integer and our own Fisher-Yates give the same game, byte for byte,
on every Python, and make ``clone()`` and ``to_json()`` trivial.
"""

from __future__ import annotations

__all__ = ["Rng", "MASK", "seed_state", "next_state", "below"]

MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


def seed_state(seed: int | str) -> int:
    """The generator state for a seed (an int or a string)."""
    if isinstance(seed, str):
        h = 1469598103934665603
        for b in seed.encode("utf-8"):
            h = ((h ^ b) * 1099511628211) & MASK
        seed = h
    return (int(seed) * 0xD1B54A32D192ED03 + 0x8CB92BA72F3D8DD7) & MASK


def next_state(s: int) -> tuple[int, int]:
    """Advance state ``s``; return (new state, a uniform 64-bit output)."""
    s = (s + _GAMMA) & MASK
    z = s
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return s, z ^ (z >> 31)


#: The rejection limit for each ``n`` drawn so far (a game draws from a few sizes only).
_LIMITS: dict[int, int] = {}


def below(s: int, n: int) -> tuple[int, int]:
    """A uniform integer in ``[0, n)`` by rejection (no modulo bias); returns (new state, value).

    The SplitMix64 step is written out here rather than called (a draw is on the hot path of
    every shuffle and die); the sequence is exactly :func:`next_state`'s.

    Raises:
        ValueError: ``n`` is not positive, or more than 2**64 (the generator's range).
    """
    limit = _LIMITS.get(n)
    if limit is None:
        if type(n) is not int or n <= 0 or n > 1 << 64:
            raise ValueError(f"cannot draw from {n} choices (1 to 2**64)")
        limit = (1 << 64) - ((1 << 64) % n)
        if len(_LIMITS) < 4096:
            _LIMITS[n] = limit
    while True:
        s = (s + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        z ^= z >> 31
        if z < limit:
            return s, z % n


class Rng:
    """A SplitMix64 generator object, for agents (game chance lives in ``State.rng``)."""

    __slots__ = ("state",)

    def __init__(self, seed: int | str = 0):
        self.state = seed_state(seed)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``."""
        self.state, v = below(self.state, n)
        return v

    def choice(self, seq):
        """A uniformly chosen item of the non-empty sequence ``seq``."""
        return seq[self.below(len(seq))]

    def random(self) -> float:
        """A uniform float in ``[0, 1)``."""
        self.state, z = next_state(self.state)
        return (z >> 11) / float(1 << 53)
