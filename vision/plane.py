"""Tile geometry on the table plane, in millimetres.

A placed tile has a centre (x, y) on the table (x right, y towards the camera's bottom edge) and
an angle in degrees that turns its long axis from +x towards +y. In the tile's own frame u runs
along the long axis from the a-half (u < 0) to the b-half, v across it. Corners follow the labels'
convention: clockwise on screen, the a-half's short edge between corners[0] and corners[1].
"""

from __future__ import annotations

import math

import numpy as np

TILE_LENGTH_MM = 48.0
TILE_WIDTH_MM = 24.0

# Corners in the tile's frame, in units of (length/2, width/2).
_UNIT_CORNERS = np.array([[-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [1.0, 1.0]])


def rotation(angle_deg: float) -> np.ndarray:
    a = math.radians(angle_deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def tile_corners(
    centre: tuple[float, float],
    angle_deg: float,
    length: float = TILE_LENGTH_MM,
    width: float = TILE_WIDTH_MM,
) -> np.ndarray:
    """The (4, 2) corners of a tile on the table, clockwise, a-half edge first."""
    local = _UNIT_CORNERS * np.array([length / 2, width / 2])
    corners: np.ndarray = local @ rotation(angle_deg).T + np.asarray(centre, dtype=float)
    return corners


def half_centres(
    centre: tuple[float, float], angle_deg: float, length: float = TILE_LENGTH_MM
) -> tuple[np.ndarray, np.ndarray]:
    """Centres of the a-half and the b-half."""
    axis = rotation(angle_deg)[:, 0]
    c = np.asarray(centre, dtype=float)
    return c - axis * length / 4, c + axis * length / 4


def project(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply a 3 x 3 homography to (N, 2) points."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    ones = np.ones((len(pts), 1))
    mapped = np.hstack([pts, ones]) @ np.asarray(homography, dtype=np.float64).T
    return mapped[:, :2] / mapped[:, 2:3]


def polygon_area(points: np.ndarray) -> float:
    """Signed shoelace area; positive for clockwise order in image (y-down) coordinates."""
    x, y = points[:, 0], points[:, 1]
    return float(0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y)))
