"""Which face-up tiles touch end to end, and through which halves.

Two tiles join when an end of one meets an end of the other (in line, or at a right angle as
in a turned line of play), or when the end of one meets the middle of a long side of a double laid
crosswise. A tile pressed against the side of an ordinary tile, or near a double's corner, does
not join.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.geometry import TileFrame

DOUBLE_REACH = 1.5  # an end meets a crossed double's side within this many times the end-to-end reach


@dataclass(frozen=True)
class Join:
    """Tiles `first` and `second` (indices into the view's tiles) touch at halves 'a' or 'b'."""

    first: int
    second: int
    first_half: str
    second_half: str


def _end_points(frame: TileFrame) -> dict[str, np.ndarray]:
    return {"a": frame.center - frame.along * frame.half_length,
            "b": frame.center + frame.along * frame.half_length}


def find_joins(frames: list[TileFrame], doubles: list[bool], *, tolerance: float = 0.5) -> list[Join]:
    """Joins among `frames`; `doubles[i]` says tile i is a double (may be crossed).

    `tolerance` is in half-widths: how far apart the touching points may be. Fitted outlines sit
    a bevel inside the real edges, so tiles pressed end to end show a small gap; on the real
    photos joined ends lie up to 0.47 half-widths apart and the closest unjoined ones 0.56.
    """
    joins: list[Join] = []
    for i, j in _near_pairs(frames, tolerance):
        first, second = frames[i], frames[j]
        reach = (first.half_width + second.half_width) / 2 * tolerance
        join = _end_to_end(i, first, j, second, reach)
        if join is None and doubles[j]:
            join = _against_double(i, first, j, second, reach)
        if join is None and doubles[i]:
            crossed = _against_double(j, second, i, first, reach)
            if crossed is not None:
                join = Join(i, j, crossed.second_half, crossed.first_half)
        if join is not None:
            joins.append(join)
    return joins


def _near_pairs(frames: list[TileFrame], tolerance: float) -> list[tuple[int, int]]:
    """The pairs (i < j) of `frames` whose centres are near enough for any join: each tile's
    farthest point from its centre along an axis, plus the widest reach (a double's side,
    `DOUBLE_REACH`). Most pairs of a table are farther apart, and skipping them keeps a read
    with many tiles from spending its time here."""
    if len(frames) < 2:
        return []
    centres = np.array([f.center for f in frames], np.float32)
    halves = np.array([f.half_length for f in frames], np.float32)
    widths = np.array([f.half_width for f in frames], np.float32)
    extent = np.maximum(halves, widths)
    reach = DOUBLE_REACH * tolerance * (widths[:, None] + widths[None, :]) / 2
    distance = np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1))
    near = np.triu(distance <= extent[:, None] + extent[None, :] + reach, k=1)
    rows, columns = np.nonzero(near)
    return list(zip(rows.tolist(), columns.tolist(), strict=True))


def _end_to_end(i: int, first: TileFrame, j: int, second: TileFrame, reach: float) -> Join | None:
    best: tuple[float, str, str] | None = None
    for half_i, point_i in _end_points(first).items():
        for half_j, point_j in _end_points(second).items():
            gap = float(np.linalg.norm(point_i - point_j))
            if gap <= reach and (best is None or gap < best[0]):
                best = (gap, half_i, half_j)
    if best is None:
        return None
    cos = abs(float(np.dot(first.along, second.along)))
    if cos < 0.85:
        return None
    return Join(i, j, best[1], best[2])


def _against_double(i: int, tile: TileFrame, j: int, double: TileFrame, reach: float) -> Join | None:
    """Tile i's end against the middle of a long side of double j laid across it."""
    if abs(float(np.dot(tile.along, double.along))) > 0.3:
        return None
    sides = (double.center - double.across * double.half_width,
             double.center + double.across * double.half_width)
    for half, point in _end_points(tile).items():
        if any(np.linalg.norm(point - side) <= reach * DOUBLE_REACH for side in sides):
            return Join(i, j, half, "a")
    return None
