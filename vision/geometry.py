"""A tile's place in the image, and sampling it upright.

A `TileFrame` is the tile's centre, its unit axes and half extents: `across` runs along the divider
bar (the short side), `along` runs from the a-half to the b-half (the long side). `sample` warps the
frame's neighbourhood into an upright patch where the tile's long axis is vertical, a-half on top.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

OUTSIDE = (128, 128, 128)


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

    def to_image(self, x: float, y: float) -> np.ndarray:
        """Image px of a point given in half-widths across and along from the centre."""
        w = self.half_width
        point: np.ndarray = self.center + self.across * (x * w) + self.along * (y * w)
        return point


def frame_from_corners(corners: np.ndarray) -> TileFrame:
    """The frame of a (4, 2) clockwise quadrilateral whose a-half is at corners[0]-corners[1]."""
    corners = np.asarray(corners, np.float32)
    center = corners.mean(axis=0)
    across = (corners[1] - corners[0] + corners[2] - corners[3]) / 2
    along = (corners[3] - corners[0] + corners[2] - corners[1]) / 2
    width = float(np.linalg.norm(across))
    length = float(np.linalg.norm(along))
    return TileFrame(center, (across / max(width, 1e-6)).astype(np.float32), width / 2, length / 2)


def sample(image: np.ndarray, frame: TileFrame, *, pixels_per_half_width: int = 24,
           extent_x: float = 1.5, extent_y: float = 3.0, interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
    """Upright patch around `frame`: columns span +-extent_x and rows +-extent_y half-widths.

    Returns an array of (2 * extent_y * ppw, 2 * extent_x * ppw[, C]) with the frame centre in the
    middle; what falls outside the image is mid-grey, so a tile at the border still shows an edge.
    """
    s = pixels_per_half_width
    cols, rows = round(2 * extent_x * s), round(2 * extent_y * s)
    scale = frame.half_width / s
    u, n = frame.across * scale, frame.along * scale
    origin = frame.center - u * (cols - 1) / 2 - n * (rows - 1) / 2
    matrix = np.array([[u[0], n[0], origin[0]], [u[1], n[1], origin[1]]], np.float32)
    value = OUTSIDE if image.ndim == 3 else 128
    return np.asarray(cv2.warpAffine(image, matrix, (cols, rows), flags=interpolation | cv2.WARP_INVERSE_MAP,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=value))
