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


def find_joins(frames: list[TileFrame], doubles: list[bool], *, tolerance: float = 0.7,
               image: np.ndarray | None = None, table_share: float = 0.28) -> list[Join]:
    """Joins among `frames`; `doubles[i]` says tile i is a double (may be crossed).

    `tolerance` is in half-widths: how far apart the touching points may be. With `image`
    (uint8 BGR), a pair whose gap shows the table (more than `table_share` of the pixels between
    the two ends differ in hue from the meeting faces by over 10 Lab units) is not joined:
    fitted outlines sit a bevel inside the real edges, so distance alone cannot tell a seam from
    a narrow gap.
    """
    joins: list[Join] = []
    for i, first in enumerate(frames):
        for j in range(i + 1, len(frames)):
            second = frames[j]
            scale = (first.half_width + second.half_width) / 2
            join = _end_to_end(i, first, j, second, scale * tolerance)
            if join is None and doubles[j]:
                join = _against_double(i, first, j, second, scale * tolerance)
            if join is None and doubles[i]:
                crossed = _against_double(j, second, i, first, scale * tolerance)
                if crossed is not None:
                    join = Join(i, j, crossed.second_half, crossed.first_half)
            if join is not None and image is not None and _gap_shows_table(
                    image, frames[join.first], join.first_half, frames[join.second], join.second_half,
                    table_share):
                join = None
            if join is not None:
                joins.append(join)
    return joins


def _gap_shows_table(image: np.ndarray, first: TileFrame, first_half: str, second: TileFrame,
                     second_half: str, share: float) -> bool:
    import cv2

    p = _end_points(first)[first_half]
    q = _end_points(second)[second_half]
    width = (first.half_width + second.half_width) / 2
    middle = (p + q) / 2
    direction = first.along if first_half == "b" else -first.along
    across = np.float32([-direction[1], direction[0]])
    half_long = max(float(np.linalg.norm(q - p)) / 2, 0.0) + 0.35 * width
    half_wide = 0.5 * width
    corners = np.float32([middle - direction * half_long - across * half_wide,
                          middle + direction * half_long - across * half_wide,
                          middle + direction * half_long + across * half_wide,
                          middle - direction * half_long + across * half_wide])
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(corners).astype(np.int32)], 1)
    x, y, w, h = cv2.boundingRect(np.round(corners).astype(np.int32))
    pad = int(2.5 * width)
    x, y, w, h = max(x - pad, 0), max(y - pad, 0), w + 2 * pad, h + 2 * pad
    window = image[y:y + h, x:x + w]
    inside = mask[y:y + h, x:x + w].astype(bool)
    if not inside.any():
        return False
    lab = cv2.cvtColor(window, cv2.COLOR_BGR2LAB).astype(np.float32)
    # The faces' hue, from the two halves that meet; a seam is a darker shade of it, the table not.
    faces = []
    for frame, half in ((first, first_half), (second, second_half)):
        spot = frame.center + frame.along * frame.half_length * (0.5 if half == "b" else -0.5)
        r = max(2, int(0.3 * frame.half_width))
        sx, sy = int(spot[0]) - x, int(spot[1]) - y
        if sy - r >= 0 and sy + r < lab.shape[0] and sx - r >= 0 and sx + r < lab.shape[1]:
            faces.append(np.median(lab[sy - r:sy + r, sx - r:sx + r].reshape(-1, 3), axis=0))
    face = np.mean(faces, axis=0) if faces else np.median(lab[inside], axis=0)
    hue_gap = np.linalg.norm(lab[inside][:, 1:] - face[1:], axis=1)
    return float(np.mean(hue_gap > 10)) > share


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
        if any(np.linalg.norm(point - side) <= reach * 1.5 for side in sides):
            return Join(i, j, half, "a")
    return None
