"""Tile frames for tests."""

from __future__ import annotations

import math

import numpy as np

from vision.geometry import TileFrame


def tile_frame(x: float, y: float, half_width: float, degrees: float) -> TileFrame:
    """A tile twice as long as wide centred at (x, y), its long axis at `degrees` on screen."""
    t = math.radians(degrees)
    along = np.array([math.cos(t), math.sin(t)], np.float32)
    return TileFrame(np.array([x, y], np.float32), np.array([along[1], -along[0]], np.float32),
                     half_width, 2 * half_width)
