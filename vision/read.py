"""`read_image`: every tile on a still image of a table, with values, outlines and joins.

The stages, each a small function of its own module: find marks and the divider bars among them
(`vision.marks`), fit a tile around each bar (`vision.detect`), read the pips of each half
(`vision.pips`), keep one reading per place, find joins (`vision.layout`) and count the face-down
tiles left over (`vision.facedown`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vision.errors import VisionError
from vision.geometry import TileFrame

__all__ = ["SeenTile", "TableView", "VisionError", "read_image", "tile_name"]


def tile_name(a: int, b: int) -> str:
    """Canonical tile name, low value first: (5, 2) -> '2-5'."""
    low, high = sorted((int(a), int(b)))
    return f"{low}-{high}"


@dataclass(frozen=True)
class SeenTile:
    """A face-up tile: `tile` is its canonical name, `a` the value of the half at corners[0]-corners[1].

    `corners` is float32 (4, 2) image px, clockwise on screen; `confidence` 0..1.
    """

    tile: str
    a: int
    b: int
    corners: np.ndarray = field(repr=False)
    confidence: float

    @property
    def is_double(self) -> bool:
        return self.a == self.b

    def to_json(self) -> dict[str, Any]:
        return {"tile": self.tile, "a": self.a, "b": self.b,
                "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
                "confidence": round(float(self.confidence), 3)}


@dataclass(frozen=True)
class TableView:
    """What one image shows: face-up tiles, face-down tiles and the joins between face-up tiles."""

    tiles: tuple[SeenTile, ...]
    face_down_corners: tuple[np.ndarray, ...] = ()
    joins: tuple[tuple[str, str], ...] = ()
    join_halves: tuple[tuple[int, str, int, str], ...] = ()  # (tile index, 'a'/'b', index, 'a'/'b')

    @property
    def face_down(self) -> int:
        return len(self.face_down_corners)

    def to_json(self) -> dict[str, Any]:
        """The per-image document of `vision read --json`."""
        return {"tiles": [tile.to_json() for tile in self.tiles], "face_down": self.face_down,
                "joins": [list(pair) for pair in self.joins]}


def read_image(image_bgr: np.ndarray, *, max_pip: int = 6, min_confidence: float = 0.22,
               tile_length_px: float | None = None) -> TableView:
    """Read every tile in `image_bgr` (uint8 (H, W, 3) BGR; grey and BGRA are converted).

    `tile_length_px`, when the camera is calibrated, is a tile's long side in this image: a
    face-up reading far from that size (a heap of backs that looks like one big blank tile) is
    dropped, and one back's size comes from it even with no face-up tile in view.
    Raises `VisionError` for None, wrong dtype or shape, or an empty image.
    """
    from vision.pipeline import read_checked

    if not isinstance(max_pip, int) or max_pip < 1:
        raise VisionError(f"max_pip must be a positive integer, got {max_pip!r}")
    if tile_length_px is not None and not tile_length_px > 0:
        raise VisionError(f"tile_length_px must be a positive number of pixels, got {tile_length_px!r}")
    return read_checked(image_bgr, max_pip=max_pip, min_confidence=min_confidence,
                        tile_length_px=tile_length_px)


def frame_of(tile: SeenTile) -> TileFrame:
    from vision.geometry import frame_from_corners

    return frame_from_corners(tile.corners)
