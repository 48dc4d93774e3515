"""The working scale: every input is shrunk to a bounded image before any stage looks at it.

The reader's stages cost time and memory in proportion to the pixels they see, and nothing in a
photo needs more than a 1080p frame's worth of them: the finder looks at a pyramid of at most
768 px a side, and the tile reader at crops of 32 x 64 px. So the input is first brought to a
coarse image of at most `MAX_WORK_PIXELS`, and no smaller than needed:

- with a calibration, the tile's length in the input (`tile_length_px`) says how far it can shrink
  at once: to `WORK_TILE_LENGTH_PX` a tile, several times what its crop needs;
- without one, only the pixel budget shrinks it.

Every corner found is mapped back to input pixels by the one factor (`coarse_factor`). Frames of
1080p or fewer pixels with tiles shorter than `WORK_TILE_LENGTH_PX` are read at their own pixels.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

MAX_WORK_PIXELS = 1920 * 1080  # the coarse image never holds more pixels than a 1080p frame
WORK_TILE_LENGTH_PX = 240.0    # a calibrated tile longer than this is shrunk to it at once
MIN_WORK_SIDE = 64             # px: however long a (wrong) calibration says a tile is, no smaller
# A shrink's remainder this close to 1 is interpolated, not averaged (see `shrink_to`): the tile
# reader was trained on area-averaged images, and at stronger shrinks bilinear sampling blurs
# differently enough to move its outlines (a close-up's tile by 4 % of its length).
BILINEAR_MIN_RATIO = 0.75


def coarse_factor(shape: tuple[int, ...], tile_length_px: float | None = None) -> float:
    """The factor (0 < f <= 1) that brings an image of `shape` (H, W, ...) to its coarse scale.

    The pixel budget always holds; a calibrated `tile_length_px` may shrink it further."""
    height, width = int(shape[0]), int(shape[1])
    factor = min(1.0, math.sqrt(MAX_WORK_PIXELS / max(1, height * width)))
    if tile_length_px is not None:
        factor = min(factor, WORK_TILE_LENGTH_PX / tile_length_px)
        factor = max(factor, min(1.0, MIN_WORK_SIDE / max(1, min(height, width))))
    return factor


def shrink(image: np.ndarray, factor: float) -> np.ndarray:
    """`image` resized by `factor` (<= 1): round(side * factor) px a side, as
    `cv2.resize(..., fx=factor, fy=factor)` gives (see `shrink_to`)."""
    if factor >= 1.0:
        return image
    height, width = image.shape[:2]
    return shrink_to(image, (max(1, round(width * factor)), max(1, round(height * factor))))


def shrink_to(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """`image` brought down to `size` (width, height; neither larger than the image's own).

    OpenCV averages pixel areas fast only for whole-number ratios: a 12 MP frame to 2 MP costs
    ~58 ms at 0.42 but ~6 ms at 0.5, and a 1080p frame shrunk by 0.78 costs 22 ms against 3 ms
    bilinear, on one core. So the shrink is an area average by the largest whole number that
    fits (on a crop of at most k-1 px that makes the sides divisible), then the remainder:
    bilinear when it shrinks by no more than `BILINEAR_MIN_RATIO` (samples at most 4/3 px apart
    weigh every pixel, so nothing thin is skipped, and the result is within a level or two of
    the area average), else area-averaged."""
    height, width = image.shape[:2]
    target_w, target_h = max(1, int(size[0])), max(1, int(size[1]))
    step = min(width // target_w, height // target_h)
    if step >= 2:
        image = shrunk_by(image, step)
    if (image.shape[1], image.shape[0]) == (target_w, target_h):
        return image
    if min(target_w / image.shape[1], target_h / image.shape[0]) < BILINEAR_MIN_RATIO:
        area: np.ndarray = cv2.resize(image, (target_w, target_h), interpolation=cv2.INTER_AREA)
        return area
    resized: np.ndarray = cv2.resize(image, (target_w, target_h), interpolation=cv2.INTER_LINEAR)
    return resized


def shrunk_by(image: np.ndarray, step: int) -> np.ndarray:
    """`image` area-averaged by the whole number `step` (>= 1), after its last rows and columns
    are cut (fewer than `step`) so that its sides divide: pixel (i, j) is the mean of the input's
    square of `step` px at (i * step, j * step), so its centre lies at (i + 0.5) * step - 0.5."""
    if step <= 1:
        return image
    height, width = image.shape[:2]
    cropped = image[:height - height % step, :width - width % step]
    shrunk: np.ndarray = cv2.resize(cropped, (cropped.shape[1] // step, cropped.shape[0] // step),
                                    interpolation=cv2.INTER_AREA)
    return shrunk
