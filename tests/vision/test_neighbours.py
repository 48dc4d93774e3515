"""`vision.neighbours.close_pairs` finds every pair a full comparison would (property-based)."""

from __future__ import annotations

import time

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.neighbours import close_pairs

coordinates = st.floats(-500, 500, allow_nan=False, width=32)
point_lists = st.lists(st.tuples(coordinates, coordinates), min_size=0, max_size=60)


def _brute(points: np.ndarray, reach: np.ndarray) -> set[tuple[int, int]]:
    """Pairs i < j with |dx| and |dy| <= reach[i, j]."""
    n = len(points)
    out = set()
    for i in range(n):
        for j in range(i + 1, n):
            if np.all(np.abs(points[i] - points[j]) <= reach[i, j]):
                out.add((i, j))
    return out


def _found(first: np.ndarray, second: np.ndarray) -> list[tuple[int, int]]:
    return list(zip(first.tolist(), second.tolist(), strict=True))


@settings(max_examples=150, deadline=None)
@given(point_lists, st.floats(0, 120, allow_nan=False))
def test_every_pair_within_reach_is_found_once(listed: list[tuple[float, float]], reach: float) -> None:
    points = np.array(listed, np.float64).reshape(-1, 2)
    first, second = close_pairs(points, reach=reach)
    found = _found(first, second)
    assert all(i < j for i, j in found)
    assert len(found) == len(set(found)), "a pair is returned once"
    want = _brute(points, np.full((len(points),) * 2, reach))
    assert set(found) == want


@settings(max_examples=150, deadline=None)
@given(point_lists, st.data())
def test_pairs_of_like_sizes_within_their_reach_are_all_found(listed: list[tuple[float, float]],
                                                              data: st.DataObject) -> None:
    points = np.array(listed, np.float64).reshape(-1, 2)
    sizes = np.array(data.draw(st.lists(st.floats(0.5, 200, allow_nan=False), min_size=len(points),
                                        max_size=len(points))), np.float64)
    ratio = data.draw(st.floats(1.05, 3.0))
    per_size, reach = data.draw(st.floats(0, 2)), data.draw(st.floats(0, 20))
    first, second = close_pairs(points, reach=reach, sizes=sizes, size_ratio=ratio, reach_per_size=per_size)
    found = _found(first, second)
    assert len(found) == len(set(found)) and all(i < j for i, j in found)
    larger = np.maximum(sizes[:, None], sizes[None, :])
    alike = np.maximum(sizes[:, None], sizes[None, :]) / np.minimum(sizes[:, None], sizes[None, :]) <= ratio
    want = {pair for pair in _brute(points, reach + per_size * larger) if alike[pair]}
    assert want <= set(found), "no pair within reach is left out"


def test_ten_thousand_scattered_marks_cost_milliseconds_not_seconds() -> None:
    """Patterned cloth gives tens of thousands of bars: the cost follows the close pairs."""
    rng = np.random.default_rng(0)
    points = rng.uniform(0, 2000, (10_000, 2))
    started = time.process_time()
    first, second = close_pairs(points, reach=5.0)
    spent = time.process_time() - started
    offsets = np.abs(points[first] - points[second])
    assert np.all(offsets <= 5.0) and len(first) > 0
    # A full comparison builds 10^8 pairs (seconds of CPU); the grid compares about 9 cells' worth.
    assert spent < 1.0, spent
