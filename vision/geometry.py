"""A tile's place in the image.

A `TileFrame` is the tile's centre, its unit axes and half extents: `across` runs along the divider
bar (the short side), `along` runs from the a-half to the b-half (the long side). `vision.crops`
warps a frame's neighbourhood into the upright crop the tile reader reads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

OUTSIDE = (128, 128, 128)
TILE_ASPECT = 2.0  # a tile's length over its width (every common set)


@dataclass(frozen=True)
class TileFrame:
    center: np.ndarray  # float32 (2,) px
    across: np.ndarray  # float32 (2,) unit vector along the short side (the bar)
    half_width: float   # px, half the short side
    half_length: float  # px, half the long side

    @property
    def along(self) -> np.ndarray:
        """Unit vector from the a-half to the b-half: `across` turned a quarter clockwise on screen."""
        return np.array([-self.across[1], self.across[0]], np.float32)

    def corners(self) -> np.ndarray:
        """(4, 2) float32 image px, clockwise on screen, a-half at corners[0]-corners[1]."""
        c, u, n = self.center, self.across, self.along
        w, h = self.half_width, self.half_length
        return np.array([c - h * n - w * u, c - h * n + w * u, c + h * n + w * u, c + h * n - w * u],
                        np.float32)


def turned(vector: np.ndarray, radians: float) -> np.ndarray:
    """`vector` (2,) turned by `radians` (clockwise on screen, where y runs down), as float32."""
    c, s = math.cos(radians), math.sin(radians)
    return np.array([c * vector[0] - s * vector[1], s * vector[0] + c * vector[1]], np.float32)


def frame_from_corners(corners: np.ndarray) -> TileFrame:
    """The frame of a (4, 2) clockwise quadrilateral whose a-half is at corners[0]-corners[1]."""
    corners = np.asarray(corners, np.float32)
    center = corners.mean(axis=0)
    across = (corners[1] - corners[0] + corners[2] - corners[3]) / 2
    along = (corners[3] - corners[0] + corners[2] - corners[1]) / 2
    width = float(np.linalg.norm(across))
    length = float(np.linalg.norm(along))
    return TileFrame(center, (across / max(width, 1e-6)).astype(np.float32), width / 2, length / 2)


def inside_any(points: np.ndarray, frames: list[TileFrame]) -> np.ndarray:
    """bool (N,): which of (N, 2) `points` lie inside one of `frames`."""
    inside = np.zeros(len(points), bool)
    for frame in frames:
        offset = points - frame.center
        inside |= (np.abs(offset @ frame.across) < frame.half_width) & (
            np.abs(offset @ frame.along) < frame.half_length)
    return inside


def first_of_each_place(frames: list[TileFrame], *, reach: float, size_log: float,
                        axis_radians: float | None = None, groups: np.ndarray | None = None) -> list[int]:
    """The indices of `frames`, in order, less each frame that repeats an earlier one kept: its
    centre within `reach` times the smaller half-width, its half-width within a log ratio of
    `size_log`, its axis within `axis_radians` (any axis when None), and in the same one of
    `groups` (when given)."""
    if len(frames) < 2:
        return list(range(len(frames)))
    centres = np.array([f.center for f in frames], np.float32)
    widths = np.array([f.half_width for f in frames], np.float32)
    distance = np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1))
    same = distance < reach * np.minimum(widths[:, None], widths[None, :])
    same &= np.abs(np.log(widths[:, None] / widths[None, :])) < size_log
    if axis_radians is not None:
        axes = np.array([f.across for f in frames], np.float32)
        same &= np.abs(axes @ axes.T) > np.cos(axis_radians)
    if groups is not None:
        same &= groups[:, None] == groups[None, :]
    kept: list[int] = []
    hidden = np.zeros(len(frames), bool)
    for i in range(len(frames)):
        if not hidden[i]:
            kept.append(i)
            hidden |= same[i]
    return kept
