"""Rows of training data joined: the same rows as `np.concatenate`, each part let go once copied
(so `make model` holds its crops once, not twice), and parts that cannot be joined named."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vision.train.arrays import Rows


@dataclass
class Samples(Rows):
    pixels: np.ndarray  # uint8 (N, 2, 3)
    label: np.ndarray  # int8 (N,)


def _samples(count: int, first: int) -> Samples:
    values = np.arange(first, first + count * 6).reshape(count, 2, 3)
    return Samples((values % 251).astype(np.uint8), (values[:, 0, 0] % 127).astype(np.int8))


@given(st.lists(st.integers(0, 5), min_size=1, max_size=8), st.integers(1, 10))
def test_joined_rows_are_the_parts_rows_in_order(counts: list[int], expected_parts: int) -> None:
    """Whether the reserved rows are too many or (growing them) too few."""
    parts = [_samples(count, 100 * number) for number, count in enumerate(counts)]
    joined = Samples.concatenate(iter(parts), expected_parts=expected_parts)
    assert len(joined) == sum(counts)
    for name in ("pixels", "label"):
        expected = np.concatenate([getattr(part, name) for part in parts])
        assert getattr(joined, name).dtype == expected.dtype
        np.testing.assert_array_equal(getattr(joined, name), expected)


def test_each_part_is_let_go_before_the_next_is_made() -> None:
    events: list[str] = []

    @dataclass
    class Watched(Samples):
        def __post_init__(self) -> None:
            events.append(f"made {len(self)}")

        def __del__(self) -> None:
            events.append(f"freed {len(self)}")

    def parts() -> Iterator[Watched]:
        for count in (2, 3, 4):
            part = _samples(count, count)
            yield Watched(part.pixels, part.label)

    joined = Watched.concatenate(parts(), expected_parts=3)
    # Had the parts been kept until all had come, they would be freed after the next were made.
    assert events == ["made 2", "freed 2", "made 3", "freed 3", "made 4", "freed 4", "made 9"]
    assert len(joined) == 9


def test_dtypes_are_promoted_as_numpy_promotes_them() -> None:
    small, wide = _samples(2, 0), _samples(3, 50)
    wide = Samples(wide.pixels.astype(np.int32), wide.label)
    joined = Samples.concatenate([small, wide])
    assert joined.pixels.dtype == np.int32
    np.testing.assert_array_equal(joined.pixels, np.concatenate([small.pixels, wide.pixels]))


def test_parts_that_cannot_be_joined_are_named() -> None:
    with pytest.raises(ValueError, match="no parts"):
        Samples.concatenate([])
    narrow = Samples(np.zeros((2, 2, 2), np.uint8), np.zeros(2, np.int8))
    with pytest.raises(ValueError, match=r"field 'pixels'.*\(2, 2\).*\(2, 3\)"):
        Samples.concatenate([_samples(2, 0), narrow])
    uneven = Samples(np.zeros((3, 2, 3), np.uint8), np.zeros(2, np.int8))
    with pytest.raises(ValueError, match=r"part 1: fields \['label'\]"):
        Samples.concatenate([_samples(2, 0), uneven])
