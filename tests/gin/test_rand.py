"""The portable random stream: known answers the TypeScript twin checks too.

The expected figures were computed by an independent C implementation of the
reference splitmix32 and xoshiro128** (the algorithms written out in
``gin/rand.py``), not by this module.
"""

import pytest

from gin.rand import Rand, derive


@pytest.mark.parametrize(("seed", "first"), [
    (0, [0xE308DC58, 0x4392D0E4, 0x03318F97]),
    (1, [0x9190299E, 0xC1017B27, 0xE3AF522F]),
    (0xDEADBEEF, [0x897AD89D, 0x998F30DF, 0x4A8BBA06]),
])
def test_first_outputs_match_the_reference(seed: int, first: list[int]) -> None:
    rand = Rand(seed)
    assert [rand.next_u32() for _ in range(3)] == first


def test_below_random_shuffle_and_choice_follow_the_written_algorithm() -> None:
    rand = Rand(7)
    assert [rand.below(10) for _ in range(10)] == [0, 7, 9, 8, 7, 9, 7, 4, 8, 0]
    rand = Rand(7)
    assert (rand.random(), rand.random()) == (0.2338277214186818, 0.44891458133395923)
    items = list(range(10))
    Rand(7).shuffle(items)
    assert items == [3, 9, 6, 5, 4, 7, 2, 1, 8, 0]
    rand = Rand(7)
    assert rand.choice("abcdefg") == "c"  # below(7) == 2
    assert rand.below(2**32) == 2200021487 and rand.below(1) == 0
    assert derive(0, 1, 2) == 0x965DDA89


def test_below_is_in_range_and_unbiased_enough() -> None:
    rand = Rand(123)
    counts = [0] * 3
    for _ in range(30_000):
        counts[rand.below(3)] += 1
    assert all(9_500 < c < 10_500 for c in counts)
    assert all(0 <= Rand(s).random() < 1 for s in range(100))


@pytest.mark.parametrize("seed", [-1, 2**32, 1.5, "1", True])
def test_a_seed_outside_32_bits_is_refused(seed: object) -> None:
    with pytest.raises(ValueError, match="seed"):
        Rand(seed)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        derive(seed)  # type: ignore[arg-type]


def test_below_and_choice_refuse_empty_ranges() -> None:
    with pytest.raises(ValueError):
        Rand(0).below(0)
    with pytest.raises(ValueError):
        Rand(0).below(2**32 + 1)
    with pytest.raises(ValueError):
        Rand(0).choice([])
