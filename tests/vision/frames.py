"""Tile frames for tests."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from vision.finder import Found
from vision.geometry import TileFrame

Find = Callable[..., list[Found]]


def tile_frame(x: float, y: float, half_width: float, degrees: float) -> TileFrame:
    """A tile twice as long as wide centred at (x, y), its long axis at `degrees` on screen."""
    t = math.radians(degrees)
    along = np.array([math.cos(t), math.sin(t)], np.float32)
    return TileFrame(np.array([x, y], np.float32), np.array([along[1], -along[0]], np.float32),
                     half_width, 2 * half_width)


def framed_across(find: Find, center: tuple[float, float], half_width: float, degrees: float) -> Find:
    """`find` (a finder's `find`) answering as it does, less its candidates on the tile at `center`
    (`half_width`, long axis at `degrees`), plus one candidate 0.3 sure lying across that tile:
    only the reader's turned look (`vision.pipeline.turned_frames`) can read the tile then."""
    tile = tile_frame(*center, half_width, degrees)

    def answer(picture: np.ndarray, **kwargs: object) -> list[Found]:
        kept = [f for f in find(picture, **kwargs)
                if np.linalg.norm(f.frame.center - tile.center) > half_width]
        return [*kept, Found(TileFrame(tile.center, tile.along, half_width, 2 * half_width), True, 0.3)]

    return answer
