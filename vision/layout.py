"""Which face-up tiles touch end to end, and through which halves.

Two tiles join when an end of one meets an end of the other in line (axes within `IN_LINE`),
when the end of one meets the middle of a long side of a double laid crosswise, or where a line of
play turns: the end of one against the middle of the side of one of the other's halves, at a
right angle, and that half's pips match the end's. The match is what tells a turned line from two
tiles merely pressed side by side, which lie just the same (the shared photos `jm-touching-*`
label those no join): a line of play turns on matching halves. A tile pressed against the middle
of an ordinary tile's side, or near a double's corner, does not join.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.geometry import TileFrame

DOUBLE_REACH = 1.5  # an end meets a crossed double's side within this many times the end-to-end reach
IN_LINE = 0.85  # |cos| of the angle between two tiles' axes from which ends meeting join (about 32 degrees)
CROSSWISE = 0.3  # |cos| of that angle up to which a tile lies across another (within about 17 degrees)


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


def find_joins(frames: list[TileFrame], values: list[tuple[int, int]], *,
               tolerance: float = 0.5) -> list[Join]:
    """Joins among `frames`; `values[i]` is tile i's pips (a-half, b-half): a double may be
    crossed, and a line turns only on matching halves.

    `tolerance` is in half-widths: how far apart the touching points may be. Fitted outlines sit
    a bevel inside the real edges, so tiles pressed end to end show a small gap; on the real
    photos joined ends lie up to 0.47 half-widths apart and the closest unjoined ones 0.56.
    """
    doubles = [a == b for a, b in values]
    joins: list[Join] = []
    for i, j in _near_pairs(frames, tolerance):
        first, second = frames[i], frames[j]
        reach = (first.half_width + second.half_width) / 2 * tolerance
        join = _end_to_end(i, first, j, second, reach)
        if join is None and doubles[j]:
            join = _against_double(i, first, j, second, reach)
        if join is None and doubles[i]:
            join = _swapped(_against_double(j, second, i, first, reach))
        if join is None:
            join = _turned(i, first, j, second, reach, values)
        if join is None:
            join = _swapped(_turned(j, second, i, first, reach, values))
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
    if cos < IN_LINE:
        return None
    return Join(i, j, best[1], best[2])


def _against_double(i: int, tile: TileFrame, j: int, double: TileFrame, reach: float) -> Join | None:
    """Tile i's end against the middle of a long side of double j laid across it."""
    if abs(float(np.dot(tile.along, double.along))) > CROSSWISE:
        return None
    sides = (double.center - double.across * double.half_width,
             double.center + double.across * double.half_width)
    for half, point in _end_points(tile).items():
        if any(np.linalg.norm(point - side) <= reach * DOUBLE_REACH for side in sides):
            return Join(i, j, half, "a")
    return None


def _swapped(join: Join | None) -> Join | None:
    """`join` told from its second tile's side (a join found with the pair's roles exchanged)."""
    return None if join is None else Join(join.second, join.first, join.second_half, join.first_half)


def _pips(values: list[tuple[int, int]], tile: int, half: str) -> int:
    return values[tile][0 if half == "a" else 1]


def _turned(i: int, tile: TileFrame, j: int, other: TileFrame, reach: float,
            values: list[tuple[int, int]]) -> Join | None:
    """Tile i's end against the middle of the side of one of tile j's halves, across it, the two
    halves showing the same pips: where a line of play turns, the next tile's end covers the side
    of the last one's open half."""
    if abs(float(np.dot(tile.along, other.along))) > CROSSWISE:
        return None
    offset = other.along * (other.half_length / 2)  # from the centre to the middle of a half
    sides = {half: [other.center + sign * offset + side * other.across * other.half_width for side in (-1, 1)]
             for half, sign in (("a", -1), ("b", 1))}
    for tile_half, point in _end_points(tile).items():
        for other_half, points in sides.items():
            if (_pips(values, i, tile_half) == _pips(values, j, other_half)
                    and any(np.linalg.norm(point - side) <= reach for side in points)):
                return Join(i, j, tile_half, other_half)
    return None
