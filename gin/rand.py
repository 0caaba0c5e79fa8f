"""A portable random stream: xoshiro128** seeded by splitmix32.

The computer players draw every random choice from :class:`Rand`, never from
Python's ``random``, so a decision is a function of (observation, seed) that the
browser's TypeScript players reproduce bit for bit. Everything is 32-bit
unsigned integer arithmetic (``mod 2**32``), written out here so another
language can implement it from this text:

* **Seeding** (splitmix32, ``state = seed``), each step::

      state = (state + 0x9E3779B9) mod 2**32
      z = state
      z = ((z ^ (z >> 16)) * 0x85EBCA6B) mod 2**32
      z = ((z ^ (z >> 13)) * 0xC2B2AE35) mod 2**32
      z = z ^ (z >> 16)                      -> output z

  ``s0, s1, s2, s3`` are four successive outputs.
* **next_u32** (xoshiro128**)::

      result = rotl32((s1 * 5) mod 2**32, 7) * 9 mod 2**32
      t = (s1 << 9) mod 2**32
      s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3; s2 ^= t; s3 = rotl32(s3, 11)
      return result

* **below(n)**, ``1 <= n <= 2**32``: ``limit = 2**32 - (2**32 mod n)``; draw
  ``x = next_u32()`` until ``x < limit``; return ``x mod n``.
* **random()**: ``a = next_u32() >> 5``, ``b = next_u32() >> 6``, return
  ``(a * 67108864 + b) / 9007199254740992`` (53 bits, in [0, 1)).
* **shuffle(list)** in place: for ``i`` from ``len - 1`` down to 1:
  ``j = below(i + 1)``, swap items ``i`` and ``j``.
* **choice(seq)**: ``seq[below(len(seq))]``.
* **derive(seed, w1, w2, ...)**: a seed from a seed and 32-bit words, for a
  stream per decision: ``h = seed``; for each word ``h = mix32(h ^ w)``, where
  ``mix32`` is one splitmix32 step above with ``state = h ^ w`` (add the
  increment, then the three mixing lines).

Known answers (the first three ``next_u32`` outputs):

* seed 0: 0xE308DC58, 0x4392D0E4, 0x03318F97
* seed 1: 0x9190299E, 0xC1017B27, 0xE3AF522F
* seed 0xDEADBEEF: 0x897AD89D, 0x998F30DF, 0x4A8BBA06

and ``derive(0, 1, 2) == 0x965DDA89`` (checked against a C implementation of
the reference algorithms).
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_M32 = 0xFFFFFFFF
_TWO32 = 1 << 32


def mix32(state: int) -> int:
    """One splitmix32 step from ``state``: add the increment, mix, return the output."""
    z = (state + 0x9E3779B9) & _M32
    z = ((z ^ (z >> 16)) * 0x85EBCA6B) & _M32
    z = ((z ^ (z >> 13)) * 0xC2B2AE35) & _M32
    return z ^ (z >> 16)


def derive(seed: int, *words: int) -> int:
    """A 32-bit seed from ``seed`` and 32-bit ``words`` (see the module text)."""
    h = check_seed(seed)
    for word in words:
        h = mix32(h ^ (word & _M32))
    return h


def check_seed(seed: int) -> int:
    """``seed`` if it is an integer in [0, 2**32); ValueError naming it otherwise."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < _TWO32:
        raise ValueError(f"a seed is an integer in [0, 2**32), got {seed!r}")
    return seed


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (32 - k))) & _M32


class Rand:
    """xoshiro128** seeded by splitmix32: identical output in every language."""

    __slots__ = ("_s0", "_s1", "_s2", "_s3")

    def __init__(self, seed: int) -> None:
        state = check_seed(seed)
        outputs = []
        for _ in range(4):
            outputs.append(mix32(state))
            state = (state + 0x9E3779B9) & _M32
        self._s0, self._s1, self._s2, self._s3 = outputs

    def next_u32(self) -> int:
        s0, s1, s2, s3 = self._s0, self._s1, self._s2, self._s3
        result = (_rotl((s1 * 5) & _M32, 7) * 9) & _M32
        t = (s1 << 9) & _M32
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        self._s0, self._s1, self._s2, self._s3 = s0, s1, s2, _rotl(s3, 11)
        return result

    def below(self, n: int) -> int:
        """Uniform in ``[0, n)``, without modulo bias."""
        if not 1 <= n <= _TWO32:
            raise ValueError(f"below(n) needs 1 <= n <= 2**32, got {n}")
        limit = _TWO32 - _TWO32 % n
        while True:
            x = self.next_u32()
            if x < limit:
                return x % n

    def random(self) -> float:
        """Uniform in [0, 1) with 53 random bits."""
        a = self.next_u32() >> 5
        b = self.next_u32() >> 6
        return (a * 67108864 + b) / 9007199254740992

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher–Yates from the end, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: Sequence[T]) -> T:
        if not items:
            raise ValueError("choice from an empty sequence")
        return items[self.below(len(items))]
