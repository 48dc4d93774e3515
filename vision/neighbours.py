"""Pairs of nearby marks without comparing every mark with every other.

A plain table gives a few hundred bars and frames; patterned cloth, a cutting mat or a webcam's
noise give tens of thousands, and comparing each with each (N² pairs) then costs seconds to tens
of seconds a read. `close_pairs` buckets the points into a grid of cells as wide as the reach, so
only points in neighbouring cells are compared: the cost grows with the pairs actually close, not
with N². Callers apply their exact tests to the candidates it returns.
"""

from __future__ import annotations

import math

import numpy as np


def close_pairs(
    points: np.ndarray,
    *,
    reach: float,
    sizes: np.ndarray | None = None,
    size_ratio: float | None = None,
    reach_per_size: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (first < second, int64 arrays) of float (N, 2) `points` that may be close.

    Without `sizes`: every pair whose x and y each differ by at most `reach`. With float (N,)
    positive `sizes` and `size_ratio` (> 1): every pair whose sizes are within `size_ratio` of
    each other and whose x and y each differ by at most `reach + reach_per_size * ` the larger
    size. Pairs beyond that may be returned too (a superset); none within it is left out."""
    points = np.asarray(points, np.float64).reshape(-1, 2)
    count = len(points)
    if count < 2:
        return _none()
    if sizes is None or size_ratio is None:
        return _grid_pairs(points, reach)
    sizes = np.asarray(sizes, np.float64).reshape(-1)
    # Sizes within `size_ratio` of each other lie in the same band of log(size) or in
    # neighbouring ones: each band is paired with itself and with the one above.
    band = np.floor(np.log(np.maximum(sizes, 1e-9)) / math.log(size_ratio)).astype(np.int64)
    firsts, seconds = [], []
    for low in np.unique(band).tolist():
        members = np.flatnonzero((band == low) | (band == low + 1))
        if members.size < 2:
            continue
        radius = reach + reach_per_size * float(sizes[members].max())
        i, j = _grid_pairs(points[members], radius)
        i, j = members[i], members[j]
        mine = (band[i] == low) | (band[j] == low)  # pairs wholly in the band above are its own
        firsts.append(i[mine])
        seconds.append(j[mine])
    if not firsts:
        return _none()
    return np.concatenate(firsts), np.concatenate(seconds)


def _none() -> tuple[np.ndarray, np.ndarray]:
    return np.empty(0, np.int64), np.empty(0, np.int64)


def _grid_pairs(points: np.ndarray, reach: float) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (i < j) of `points` whose x and y each differ by at most `reach`."""
    count = len(points)
    if count < 2 or reach < 0:
        return _none()
    if not math.isfinite(reach):
        i, j = np.triu_indices(count, 1)
        return i.astype(np.int64), j.astype(np.int64)
    cell = max(reach, 1e-6)
    cells = np.floor(points / cell).astype(np.int64)
    cells -= cells.min(axis=0)
    stride = int(cells[:, 0].max()) + 3
    key = (cells[:, 1] + 1) * stride + (cells[:, 0] + 1)
    order = np.argsort(key, kind="stable")
    sorted_keys = key[order]
    firsts, seconds = [], []
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            target = key + dy * stride + dx
            low = np.searchsorted(sorted_keys, target, "left")
            counts = np.searchsorted(sorted_keys, target, "right") - low
            total = int(counts.sum())
            if not total:
                continue
            i = np.repeat(np.arange(count), counts)
            step = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
            j = order[np.repeat(low, counts) + step]
            keep = i < j
            firsts.append(i[keep])
            seconds.append(j[keep])
    if not firsts:
        return _none()
    i, j = np.concatenate(firsts), np.concatenate(seconds)
    near = np.all(np.abs(points[i] - points[j]) <= reach, axis=1)
    return i[near], j[near]
