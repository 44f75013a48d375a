"""The random generator every chance event draws from: SplitMix64, state = one integer; and a
secure counter-mode generator over BLAKE2b for tables served to people (``tapster serve``).

Python's ``random`` module is not used for game chance because its state is 625 numbers (slow to
clone for tree search), and its algorithms for ``shuffle``/``randrange`` have changed between
Python versions; one 64-bit integer and our own Fisher-Yates give the same game, byte for byte,
on every Python, and make ``clone()`` and ``to_json()`` trivial.

SplitMix64 is fast but predictable: 64 bits of state and an invertible output mixer, so the dice
and cards a seat sees constrain the state, and a small seed can be searched.  Analysis, search,
playouts and every seed given as a number keep it, with exactly the sequences they always had.
A served table instead draws its seed from :mod:`secrets` (:func:`secure_seed`, 256 bits,
written ``blake2b:<64 hex digits>``); :func:`seed_state` turns such a seed into the state of a
counter-mode generator: output ``i`` is the first 8 bytes of keyed BLAKE2b of the counter ``i``
with the 256-bit key, so outputs reveal nothing of the key (BLAKE2b is a pseudo-random function
under its key) and knowing the public engine does not help.  Its state is still one Python
integer, ``SECURE | key << 64 | counter`` (321 bits), so ``State.clone()``, ``to_json()`` and a
replay are exact with no change to the engine: :func:`below` and :func:`next_state` take either
kind of state.
"""

from __future__ import annotations

import hashlib
import re
import secrets

__all__ = ["Rng", "MASK", "SECURE", "SECURE_PREFIX", "seed_state", "next_state", "below", "dice", "secure_seed", "is_secure", "is_state"]

MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15

#: The marker bit of a secure generator's state (above its 256-bit key and 64-bit counter).
SECURE = 1 << 320
#: How a secure seed is written: this prefix, then 64 lower-case hex digits (256 bits).
SECURE_PREFIX = "blake2b:"
_SECURE_SEED = re.compile(r"blake2b:[0-9a-f]{64}\Z")
_KEY_MASK = (1 << 256) - 1
_PERSON = b"tapster-rng"


def secure_seed() -> str:
    """A new secure seed: ``blake2b:`` and 256 bits from :mod:`secrets` as 64 hex digits."""
    return SECURE_PREFIX + secrets.token_hex(32)


def is_secure(s: int) -> bool:
    """Whether generator state ``s`` is a secure (BLAKE2b counter-mode) generator's."""
    return s > MASK


def is_state(s: object) -> bool:
    """Whether ``s`` is a valid generator state of either kind (an int: 64 bits, or
    :data:`SECURE` with a 256-bit key and a 64-bit counter)."""
    return type(s) is int and (0 <= s <= MASK or s >> 320 == 1)


def _secure_next(s: int) -> tuple[int, int]:
    """The secure generator's step: (new state, keyed BLAKE2b of the counter as 64 bits)."""
    counter = s & MASK
    key = ((s >> 64) & _KEY_MASK).to_bytes(32, "little")
    out = hashlib.blake2b(counter.to_bytes(8, "little"), digest_size=8, key=key, person=_PERSON).digest()
    return (s & ~MASK) | ((counter + 1) & MASK), int.from_bytes(out, "little")


def seed_state(seed: int | str) -> int:
    """The generator state for a seed (an int or a string).

    A string written as :func:`secure_seed` writes them (``blake2b:`` and 64 hex digits) gives
    the secure generator keyed with those 256 bits (counter 0); any other seed gives SplitMix64
    as it always has.
    """
    if isinstance(seed, str):
        if seed.startswith(SECURE_PREFIX) and _SECURE_SEED.match(seed):
            return SECURE | int(seed[len(SECURE_PREFIX):], 16) << 64
        seed = _fnv(seed.encode("utf-8"), _FNV_OFFSET)
    return _from_seed(int(seed))


def _from_seed(seed: int) -> int:
    """The SplitMix64 state of the whole-number seed ``seed``."""
    return (seed * 0xD1B54A32D192ED03 + 0x8CB92BA72F3D8DD7) & MASK


_FNV_OFFSET = 1469598103934665603


def _fnv(data: bytes, h: int) -> int:
    """FNV-1a over ``data``, going on from the hash ``h`` of what came before it."""
    for b in data:
        h = ((h ^ b) * 1099511628211) & MASK
    return h


def seed_states(prefix: str, suffixes) -> list[int]:
    """``[seed_state(prefix + s) for s in suffixes]``, the prefix hashed once (a simulation's
    agent seeds share their game's seed as a prefix).  A prefix that could start a secure seed
    is hashed in full for each, as :func:`seed_state` does."""
    if SECURE_PREFIX.startswith(prefix[: len(SECURE_PREFIX)]):
        return [seed_state(prefix + s) for s in suffixes]
    h = _fnv(prefix.encode("utf-8"), _FNV_OFFSET)
    return [_from_seed(_fnv(s.encode("utf-8"), h)) for s in suffixes]


def next_state(s: int) -> tuple[int, int]:
    """Advance state ``s``; return (new state, a uniform 64-bit output)."""
    if s > MASK:
        return _secure_next(s)
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
    every shuffle and die); the sequence is exactly :func:`next_state`'s.  A secure state
    (more than 64 bits) draws its outputs from :func:`next_state` instead, the same way.

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
    if s > 0xFFFFFFFFFFFFFFFF:
        while True:
            s, z = _secure_next(s)
            if z < limit:
                return s, z % n
    while True:
        s = (s + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        z ^= z >> 31
        if z < limit:
            return s, z % n


def shuffle(s: int, items: list) -> int:
    """Shuffle ``items`` in place by Fisher-Yates from the last place down, each swap drawn as
    :func:`below` draws it from generator state ``s``; returns the new state.  The same numbers
    and the same order as a loop of ``below`` calls, with SplitMix64's step written out (a
    shuffle is most of a deck's setup and of a world's redeal).  A secure state (more than 64
    bits) goes through ``below`` itself."""
    if s > 0xFFFFFFFFFFFFFFFF:
        for i in range(len(items) - 1, 0, -1):
            s, j = below(s, i + 1)
            items[i], items[j] = items[j], items[i]
        return s
    if len(items) >= _NUMPY_SHUFFLE:
        return _shuffle_block(s, items)
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        limit = 0x10000000000000000 - 0x10000000000000000 % n  # rejection: no modulo bias
        while True:
            s = (s + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
            z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
            z ^= z >> 31
            if z < limit:
                j = z % n
                break
        items[i], items[j] = items[j], items[i]
    return s


def dice(s: int, n: int, sides: int) -> tuple[int, list]:
    """``n`` dice of ``sides`` sides (values 1..sides) drawn as ``n`` calls of :func:`below` would
    draw them, the same sequence, in one call (a roll is on the hot path of dice games); returns
    (new state, the values).

    Raises:
        ValueError: ``sides`` is not positive, or more than 2**64.
    """
    limit = _LIMITS.get(sides)
    if limit is None or s > 0xFFFFFFFFFFFFFFFF:
        out = []
        for _ in range(n):
            s, v = below(s, sides)
            out.append(v + 1)
        return s, out
    out = [0] * n
    for i in range(n):
        while True:
            s = (s + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
            z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
            z ^= z >> 31
            if z < limit:
                out[i] = z % sides + 1
                break
    return s, out


class Rng:
    """A generator object (SplitMix64, or the secure one for a ``blake2b:`` seed), for agents (game
    chance lives in ``State.rng``).

    ``state`` is the generator's state (an int, as :func:`seed_state` gives it), read and set
    like an attribute.  A SplitMix64 generator computes its outputs ahead, in blocks (2, 4 and 8
    in Python, for a generator that draws a few times only, as a simulation's agents in a short
    game; then 64, then 512 at a time with numpy's unsigned 64-bit arithmetic, which wraps as
    SplitMix64's masks do): an agent draws at every decision of a random playout, and a
    draw is then a list read instead of three 64-bit products in Python ints (0.84 us a draw
    before, on this machine).  The outputs are SplitMix64's, in its order: output ``k`` of a
    block is the mix of the state advanced ``k + 1`` times, so ``state`` is always the state
    after the draws made (the block's start advanced once per output used), and setting it
    drops the block.  ``tests/engine/test_rng.py`` compares every method with the module's
    functions across block boundaries, states read and set between draws, and secure seeds."""

    __slots__ = ("_s", "_buf", "_i", "_size")

    def __init__(self, seed: int | str = 0):
        self.state = seed_state(seed)

    @property
    def state(self) -> int:
        """The state after the draws made (an int, as :func:`seed_state` gives it)."""
        i = self._i
        return (self._s + i * _GAMMA) & MASK if i else self._s

    @state.setter
    def state(self, value: int) -> None:
        self._s = value
        self._buf = _NO_BLOCK
        self._i = 0
        self._size = 2

    @classmethod
    def from_state(cls, state: int) -> Rng:
        """A generator whose state is ``state`` (as :func:`seed_state` or another generator's
        ``state`` gives it)."""
        rng = cls.__new__(cls)
        rng.state = state
        return rng

    def _block(self) -> list:
        """The next block of outputs, from the state after the draws made (its size growing
        from 2 to :data:`_LAST_BLOCK`, numpy's from beyond :data:`_FIRST_BLOCK`: a generator
        used for a few draws computes few ahead)."""
        s = self.state
        k = self._size
        if k <= _FIRST_BLOCK:
            out = []
            t = s
            for _ in range(k):
                t = (t + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
                z = ((t ^ (t >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
                out.append(z ^ (z >> 31))
        else:
            out = _numpy_block(s, k)
        self._s, self._buf, self._i = s, out, 0
        self._size = k * 2 if k < _FIRST_BLOCK else min(k * 8, _LAST_BLOCK)
        return out

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``: the module's :func:`below`, the same sequence (the
        outputs read from the block for the sizes drawn before)."""
        limit = _LIMITS.get(n)
        if limit is None or self._s > 0xFFFFFFFFFFFFFFFF:
            self.state, v = below(self.state, n)
            return v
        buf = self._buf
        i = self._i
        while True:
            if i == len(buf):
                buf = self._block()
                i = 0
            z = buf[i]
            i += 1
            if z < limit:
                self._i = i
                return z % n

    def random(self) -> float:
        """A uniform float in ``[0, 1)``."""
        if self._s > 0xFFFFFFFFFFFFFFFF:
            self.state, z = next_state(self.state)
        else:
            buf = self._buf
            if self._i == len(buf):
                buf = self._block()
            z = buf[self._i]
            self._i += 1
        return (z >> 11) / float(1 << 53)

    def choice(self, seq):
        """A uniformly chosen item of the non-empty sequence ``seq``."""
        return seq[self.below(len(seq))]


_NO_BLOCK: list = []
#: Most outputs a generator computes ahead in Python (blocks of 2, 4, 8), and at most (numpy).
_FIRST_BLOCK = 8
_LAST_BLOCK = 512
_np = None
_STEPS: dict = {}


def _numpy_block(s: int, k: int) -> list:
    """SplitMix64's next ``k`` outputs from state ``s`` (a 64-bit one), as Python ints: the
    states ``s + (j + 1) * gamma`` and their mixes computed in numpy's ``uint64``, whose
    arithmetic wraps modulo 2**64 as SplitMix64's masks do."""
    global _np
    if _np is None:
        import numpy

        _np = numpy
    np = _np
    u = np.uint64
    steps = _STEPS.get(k)
    if steps is None:  # (array arithmetic wraps silently: only numpy's scalar arithmetic warns)
        steps = _STEPS[k] = np.arange(1, k + 1, dtype=u) * u(_GAMMA)
    t = steps + u(s)
    z = (t ^ (t >> u(30))) * u(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> u(27))) * u(0x94D049BB133111EB)
    z ^= z >> u(31)
    return z.tolist()


#: Fewest items a shuffle draws for with numpy (:func:`_shuffle_block`): below it, the Python
#: step is as fast as numpy's fixed cost.
_NUMPY_SHUFFLE = 24
_SHUFFLE_LIMITS: list[int] = [0]


def _shuffle_block(s: int, items: list) -> int:
    """:func:`shuffle` of a 64-bit state with the outputs computed in one numpy block
    (:func:`_numpy_block`; the state's next ``len(items) - 1`` outputs and a few more for the
    rare rejection, another block should they run out): the same swaps and the same new state
    as the Python step gives (output ``k`` of the block is the mix of ``s`` advanced ``k + 1``
    times)."""
    m = len(items)
    limits = _SHUFFLE_LIMITS
    while len(limits) <= m:  # rejection limits by size, made once
        n = len(limits)
        limits.append(0x10000000000000000 - 0x10000000000000000 % n)
    outs = _numpy_block(s, m + 7)
    used = 0
    for i in range(m - 1, 0, -1):
        n = i + 1
        limit = limits[n]
        while True:
            if used == len(outs):
                outs = outs + _numpy_block((s + used * _GAMMA) & MASK, 64)
            z = outs[used]
            used += 1
            if z < limit:
                j = z % n
                break
        items[i], items[j] = items[j], items[i]
    return (s + used * _GAMMA) & MASK
