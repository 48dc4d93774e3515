"""The empty table as a background model: which pixels of a frame changed since the hand started.

With the camera fixed over the table (a club's mounted camera), a frame taken when a hand starts,
before any tile is laid face up, shows everything that is not a played tile: the cloth's pattern,
wood grain, cups, cards, coins, the markers and the boneyard. Given that frame
(`read_image(..., background=...)`), a face-up reading over pixels that have not changed since is
the table's own, however much it looks like a tile (wood grain read as a blank double, a card's
print as pips), and is dropped. A tile laid on the table changes the pixels of its outline, its
edge's shadow and its pips even when its face is the cloth's colour, so the share of changed
pixels asked of a reading is small (`MIN_CHANGED_SHARE`); the table's own texture changes none.

Backs are not judged by it: the boneyard lies on the table when the hand starts.

Shapes: a frame and its background are uint8 (H, W, 3) BGR of one camera at one scale (the
reader's coarse image); `changed` is bool (H, W).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import TileFrame

# Grey levels: a pixel changed when, after both pictures are blurred (`CHANGE_BLUR`) and the
# background is brought to the frame's exposure (`_gains`), a colour channel differs by more.
# Between two moments of an empty widened table filmed by a webcam, the 99th percentile of that
# difference was 9-27 levels, and on the noisiest 1.5 % of the pixels passed 25: such specks can
# keep a false reading there (no worse than reading without a background). Wiping them out (an
# opening of 3 px) took the least-changed right reading from 0.33 of its cells to 0.14, too near
# `MIN_CHANGED_SHARE`, so it is not done.
CHANGE_LEVEL = 25
CHANGE_BLUR = (5, 5)  # px, the Gaussian's kernel (sigma 1.1): sensor noise and a pixel of the camera's shake
GAIN_SAMPLE_STEP = 8  # every this many px each way estimate the exposure's change (a median)
# A reading's frame grown by `FRAME_GROWTH` (so its outline and shadow fall inside) is cut into
# `SHARE_GRID` cells; below this share of cells holding a changed pixel, the reading is the table's
# own. On the widened tuning tables 10000-10299 (never the held-out 0-999) the 2,292 readings
# right had at least 0.33 of their cells changed (the lowest: white tiles on a white sheet, filmed
# by a blurring webcam, only pips and outlines changed), the 3 readings of unchanged wood or
# cloth at most 0.04, and the reader's 11 misreads of tiles that were there 0.39 and more.
MIN_CHANGED_SHARE = 0.1
FRAME_GROWTH = 1.15
SHARE_GRID = (9, 17)  # cells across and along a frame
# The verdict (`vision.types.Verdict.kind`) on a reading dropped for it, drawn by `--debug`.
UNCHANGED = "unchanged table"


def _gains(frame: np.ndarray, background: np.ndarray) -> np.ndarray:
    """float32 (3,): per channel, the frame's median level over the background's, on a sparse
    grid: a camera's automatic exposure and white balance move the whole picture when tiles are
    laid, and the comparison must not see that as change."""
    step = GAIN_SAMPLE_STEP
    ours = np.median(frame[::step, ::step].reshape(-1, 3), axis=0).astype(np.float32)
    theirs = np.median(background[::step, ::step].reshape(-1, 3), axis=0).astype(np.float32)
    return np.asarray(np.clip((ours + 1) / (theirs + 1), 0.5, 2.0), np.float32)


def changed(frame: np.ndarray, background: np.ndarray) -> np.ndarray:
    """bool (H, W): where `frame` differs from `background` (both uint8 (H, W, 3), one camera).

    In OpenCV's uint8 arithmetic throughout: the same sums in float32 numpy took 140 ms on a
    1080p frame, more than a read."""
    blurred = cv2.GaussianBlur(frame, CHANGE_BLUR, 0)
    # Each channel's levels times its gain, rounded and saturated, as a look-up table (a quarter
    # of the time of OpenCV's per-channel multiply).
    table = np.clip(np.rint(np.arange(256, dtype=np.float32)[:, None] * _gains(frame, background)), 0, 255)
    empty = cv2.LUT(cv2.GaussianBlur(background, CHANGE_BLUR, 0), table.astype(np.uint8).reshape(256, 1, 3))
    return differs(blurred, empty, CHANGE_LEVEL)


def differs(a: np.ndarray, b: np.ndarray, level: float) -> np.ndarray:
    """bool (H, W): where `a` and `b` (one shape and dtype, (H, W) or (H, W, C)) differ by more than
    `level` in any channel: a black tile on dark blue felt is as dark as the felt, and only its
    colour tells it apart. In OpenCV's arithmetic, which takes uint8 and int16 alike."""
    difference = cv2.absdiff(a, b)
    planes = cv2.split(difference) if difference.ndim == 3 else (difference,)
    largest = planes[0]
    for plane in planes[1:]:
        largest = cv2.max(largest, plane)
    mask: np.ndarray = largest > level
    return mask


class Changes:
    """What changed in a frame since its background, asked of one tile frame at a time."""

    def __init__(self, frame: np.ndarray, background: np.ndarray) -> None:
        self.mask = changed(frame, background)
        # int32 (H + 1, W + 1): the count of changed pixels above and left of each pixel, so any
        # box's count costs four look-ups.
        self.counts = cv2.integral(self.mask.astype(np.uint8))

    def share(self, frame: TileFrame) -> float:
        """The share of the cells of `frame` (grown by `FRAME_GROWTH`, cut `SHARE_GRID`) holding
        a changed pixel: each cell taken as the upright box of its size at its centre; cells off
        the image count as unchanged."""
        cells_across, cells_along = SHARE_GRID
        across = (np.arange(cells_across) + 0.5) / cells_across * 2 - 1
        along = (np.arange(cells_along) + 0.5) / cells_along * 2 - 1
        half_width, half_length = frame.half_width * FRAME_GROWTH, frame.half_length * FRAME_GROWTH
        centres = (frame.center + (across * half_width)[:, None, None] * frame.across
                   + (along * half_length)[None, :, None] * frame.along).reshape(-1, 2)
        reach = max(half_width / cells_across, half_length / cells_along)
        height, width = self.mask.shape
        x0 = np.clip(np.floor(centres[:, 0] - reach), 0, width).astype(np.int64)
        x1 = np.clip(np.ceil(centres[:, 0] + reach), 0, width).astype(np.int64)
        y0 = np.clip(np.floor(centres[:, 1] - reach), 0, height).astype(np.int64)
        y1 = np.clip(np.ceil(centres[:, 1] + reach), 0, height).astype(np.int64)
        counts = self.counts[y1, x1] - self.counts[y0, x1] - self.counts[y1, x0] + self.counts[y0, x0]
        return int(np.count_nonzero(counts)) / int(counts.size)
