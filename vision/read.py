"""`read_image`: every tile on a still image of a table, with values, outlines and joins.

The stages, each a small module of its own, run by `vision.pipeline` top to bottom: bring the
image to a bounded scale (`vision.scale`), let the finder say where tiles may lie, face up or face
down (`vision.finder`), let the tile reader decide what each face-up candidate holds and where
(`vision.crops`, `vision.tilenet`), keep one reading per place and find joins (`vision.layout`).
A picture under a strongly coloured light is read again with the cast taken off, and that read
kept when it sees more face-up tiles (`vision.light`); a photo whose tiles show it was taken at a
slant is then read again on their plane (`vision.slant`), and one in which no face-up tile was
seen is read again turned an eighth, for a tile that fills its picture at 45 degrees
(`vision.close_up`).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from vision.calibration import Calibration
from vision.close_up import read_close_up
from vision.errors import VisionError
from vision.geometry import TileFrame, frame_from_corners
from vision.image import checked_bgr
from vision.light import balanced, white_gains
from vision.pipeline import MIN_CONFIDENCE, checked_background, read_checked
from vision.rectify import read_on_table
from vision.slant import read_slanted
from vision.tilenet import MAX_PIPS
from vision.types import SeenTile, TableView, tile_name

__all__ = ["SeenTile", "TableView", "VisionError", "read_image", "tile_name"]


def read_image(image_bgr: np.ndarray, *, max_pip: int = 6, min_confidence: float = MIN_CONFIDENCE,
               tile_length_px: float | None = None, background: np.ndarray | None = None,
               one_set: bool = False, calibration: Calibration | None = None) -> TableView:
    """Read every tile in `image_bgr` (uint8 (H, W, 3) BGR; grey and BGRA are converted).

    `min_confidence` is the calibrated probability below which a reading is left out (0..1; by
    default `vision.pipeline.MIN_CONFIDENCE`, 0.7); a reading the network is not sure is a tile
    at all goes too (`vision.pipeline.Reading.is_tile`).
    `tile_length_px`, when the camera is calibrated, is a tile's long side in this image: a
    face-up reading far from that size (a heap of backs that looks like one big blank tile) is
    dropped, and one back's size comes from it even with no face-up tile in view.
    `background`, with a fixed camera, is its picture of this table before any tile was laid face
    up (the empty table when a hand starts), of `image_bgr`'s size: a face-up reading where the
    picture has not changed since is the table's own pattern or clutter and is dropped
    (`vision.background`).
    `one_set`, when the picture shows tiles of one set (a game's table), says each tile is there at
    most once: of two readings of one tile the likelier is kept, and the other, a misread, goes.
    `calibration`, the fixed camera's (`vision.calibration.Calibration`), has the table read on
    its own plane, where every tile has the layout's length however the camera leans, and only
    the table (`vision.rectify`); it replaces `tile_length_px`. With neither, a photo whose tiles
    show it was taken at a slant (near tiles larger than far ones, every tile squashed one way)
    is read again on the plane they lie on (`vision.slant`), and a picture with no face-up tile
    seen is read again turned an eighth (a close-up of a tile at 45 degrees: `vision.close_up`).
    Any resolution is read at a bounded working scale (`vision.scale`); corners are this image's
    pixels. Raises `VisionError` naming what was wrong for None, a wrong dtype, shape or channel
    count, an empty, tiny or oversized image (or background, or one of another size), a
    `min_confidence` that is no number from 0 to 1, a `tile_length_px` that is no positive
    number, or a calibration that is no `Calibration`, has no invertible homography, is for
    pictures of another size, puts part of the table behind the camera's horizon or comes with
    `tile_length_px`.
    """
    if not isinstance(max_pip, int) or not 1 <= max_pip <= MAX_PIPS:
        raise VisionError(f"max_pip must be an integer from 1 to {MAX_PIPS}, got {max_pip!r}")
    if not (isinstance(min_confidence, numbers.Real) and not isinstance(min_confidence, bool)
            and 0.0 <= min_confidence <= 1.0):
        raise VisionError(f"min_confidence must be a probability from 0 to 1, got {min_confidence!r}")
    if tile_length_px is not None and not (isinstance(tile_length_px, numbers.Real)
                                           and math.isfinite(tile_length_px) and tile_length_px > 0):
        raise VisionError(f"tile_length_px must be a positive number of pixels, got {tile_length_px!r}")
    if calibration is not None:
        if tile_length_px is not None:
            raise VisionError(f"give a calibration or tile_length_px, not both (tile_length_px="
                              f"{tile_length_px!r}): the calibration gives every tile's length")
        return read_on_table(image_bgr, calibration, max_pip=max_pip, min_confidence=min_confidence,
                             background=background, one_set=one_set)
    checked = checked_bgr(image_bgr)
    # Checked once here: a slanted photo's reads on its plane warp the same empty table again.
    empty = None if background is None else checked_background(background, checked.shape)
    view = read_checked(checked, max_pip=max_pip, min_confidence=min_confidence,
                        tile_length_px=tile_length_px, background=empty, one_set=one_set)
    checked, empty, view = read_in_white_light(checked, empty, view, max_pip=max_pip,
                                               min_confidence=min_confidence,
                                               tile_length_px=tile_length_px, one_set=one_set)
    if tile_length_px is not None:  # the caller says every tile is this long: no slant to undo
        return view
    view = read_slanted(checked, view, max_pip=max_pip, min_confidence=min_confidence,
                        background=empty, one_set=one_set)
    return read_close_up(checked, view, max_pip=max_pip, min_confidence=min_confidence,
                         background=empty, one_set=one_set)


def read_in_white_light(image: np.ndarray, empty: np.ndarray | None, view: TableView, *, max_pip: int,
                        min_confidence: float, tile_length_px: float | None,
                        one_set: bool) -> tuple[np.ndarray, np.ndarray | None, TableView]:
    """`image` (checked), its background and its read `view`; or, where its light casts a strong
    colour (`vision.light.white_gains`) and the picture read with the cast taken off (the
    background balanced alike) shows more face-up tiles, those three balanced. Every later read
    (the slant's, the close-up's) reads the picture so chosen."""
    gains = white_gains(image)
    if gains is None:
        return image, empty, view
    white, white_empty = balanced(image, gains), None if empty is None else balanced(empty, gains)
    again = read_checked(white, max_pip=max_pip, min_confidence=min_confidence,
                         tile_length_px=tile_length_px, background=white_empty, one_set=one_set)
    if len(again.tiles) > len(view.tiles):
        return white, white_empty, again
    return image, empty, view


def frame_of(tile: SeenTile) -> TileFrame:
    return frame_from_corners(tile.corners)
