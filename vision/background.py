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

The empty table also proposes tiles: a region that changed, that no reading or back explains and
that holds one tile or a few is looked at as the tiles of the set's size that fill it
(`unexplained`), whether or not the finder saw anything there.

Shapes: a frame and its background are uint8 (H, W, 3) BGR of one camera at one scale (the
reader's coarse image); `changed` is bool (H, W).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.geometry import TileFrame
from vision.light import balanced
from vision.scale import shrunk_by

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
    empty = balanced(cv2.GaussianBlur(background, CHANGE_BLUR, 0), _gains(frame, background))
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


# Regions that changed and that no reading or back explains are looked at as tiles
# (`unexplained`, `vision.pipeline.changed_readings`): the empty table proposes, from geometry
# alone, what the finder framed badly or missed. Chosen on widened tuning tables 10000-10299
# (never the held-out 0-999), told one set, given each table's empty picture: 2397 -> 2414 tiles
# right, 4 -> 4 false, 274 -> 281 tables exact, CPU per read +6 % at the median. Regions of one
# tile alone, not closed first: 2405; closed by a disc of half the half-width (`GAP_SHARE`): 2410;
# of the whole half-width: 2411.
# A kept reading explains the changed pixels of its frame grown by this (its outline, its edge's
# shadow and the comparison's blur reach past the tile).
EXPLAINED_GROWTH = 1.3
# Regions are sought in the mask shrunk by the whole number that brings the set's half-width
# nearest this many px (a pixel of it changed when most of its pixels did): sought in a 1080p
# mask itself (opened, then its components labelled) they cost 35 ms a read, in the shrunk one
# with outlines (`unexplained`) about 3.
REGION_HALF_WIDTH_PX = 8.0
# A closing by a disc of this share of the set's half-width joins the pieces of one tile whose
# face is, in places, as light as the cloth (a white tile on a white flowered sheet changes
# only where it covers a flower) ...
GAP_SHARE = 0.5
# ... and an opening by a disc of this share (at least 1 px; `SPECK_MIN_PX` without the set's
# size) erases a noisy webcam's specks and the slivers left round explained tiles.
SPECK_SHARE = 0.4
SPECK_MIN_PX = 3
# A region is looked at when its area is within these multiples of one tile's (with the set's
# size known: 4 half-width half-length) and it fills this share of its least rotated box at
# least: a tile or a few tiles fill their box, a hand's or an arm's blob seldom does. A region of
# several tiles (a line of play the finder lost, or a row of doubles) is looked at as the tiles
# that fill its box (`_tiled`).
REGION_AREA = (0.5, 12.0)
REGION_FILL = 0.6
# A region's box at least this share of a tile's length across is also looked at as tiles laid
# across it (a row of doubles, a hand laid out side by side), not only along it.
CROSSWISE_SHARE = 0.75
# At most this many frames are looked at, the fullest regions' first: it bounds the reader's work
# whatever the picture (a camera nudged since the empty table was taken makes every edge of a
# patterned cloth a change: 161 frames on a plaid one moved 4 px, at no more CPU than reading it
# without the background).
REGION_MOST_FRAMES = 200
# With no set's size to go by, a region's box must be about a tile's shape: its long side over its
# short within these, and its long side at least the finder's shortest tile (`vision.finder.LENGTHS`).
REGION_ASPECT = (1.4, 2.8)
REGION_MIN_LENGTH = 16.0


def _regions(mask: np.ndarray, explained: list[TileFrame], size: tuple[float, float] | None
             ) -> tuple[np.ndarray, int]:
    """The changed pixels no frame of `explained` covers, shrunk (`REGION_HALF_WIDTH_PX`), closed
    (`GAP_SHARE`) and opened (`SPECK_SHARE`): uint8 (h, w) 0 or 1, and the whole number it was
    shrunk by."""
    step = max(1, round(size[0] / REGION_HALF_WIDTH_PX)) if size else 1
    regions: np.ndarray = (shrunk_by(mask.astype(np.uint8) * 255, step) > 127).astype(np.uint8)
    for frame in explained:
        # A shrunk pixel's centre lies at (x + 0.5) / step - 0.5 of the mask's (`shrunk_by`).
        grown = TileFrame((frame.center + 0.5) / step - 0.5, frame.across,
                          frame.half_width * EXPLAINED_GROWTH / step,
                          frame.half_length * EXPLAINED_GROWTH / step)
        cv2.fillConvexPoly(regions, np.round(grown.corners()).astype(np.int32), 0)
    if size:
        regions = cv2.morphologyEx(regions, cv2.MORPH_CLOSE, _disc(GAP_SHARE * size[0] / step))
    speck = SPECK_SHARE * size[0] / step if size else SPECK_MIN_PX
    opened: np.ndarray = cv2.morphologyEx(regions, cv2.MORPH_OPEN, _disc(speck))
    return opened, step


def _disc(radius: float) -> np.ndarray:
    """uint8: a disc of `radius` px (at least 1) for OpenCV's morphology."""
    reach = max(1, round(radius))
    disc: np.ndarray = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1))
    return disc


def _tiled(centre: np.ndarray, along: np.ndarray, long_side: float, short_side: float,
           size: tuple[float, float]) -> list[TileFrame]:
    """Frames of the set's `size` (half-width, half-length) filling a box (`centre`, its long
    side along `along`): tiles laid along the box's long side, as a line of play lies, and, where
    the box is at least `CROSSWISE_SHARE` of a tile long across, tiles laid across it, as a row
    of doubles does. A box of one tile holds one frame."""
    half_width, half_length = size
    crosswise = np.array([-along[1], along[0]], np.float32)
    # (each frame's `across`, how many tiles along the box's long side, how many across it)
    layouts = [(crosswise, round(long_side / (2 * half_length)), round(short_side / (2 * half_width)))]
    if short_side >= CROSSWISE_SHARE * 2 * half_length:
        layouts.append((along, round(long_side / (2 * half_width)), round(short_side / (2 * half_length))))
    frames = []
    for across, count_along, count_across in layouts:
        count_along, count_across = max(1, count_along), max(1, count_across)
        for i in range(count_along):
            for j in range(count_across):
                offset = ((i - (count_along - 1) / 2) * long_side / count_along * along
                          + (j - (count_across - 1) / 2) * short_side / count_across * crosswise)
                at = (centre + offset).astype(np.float32)
                frames.append(TileFrame(at, across, half_width, half_length))
    return frames


def unexplained(changes: Changes, explained: list[TileFrame],
                size: tuple[float, float] | None) -> list[TileFrame]:
    """Frames for each region of `changes` that the frames of `explained` do not cover and that
    holds one tile or a few: `size` is the set's (half-width, half-length) in the changes' px,
    or None when unknown. Frames lie along the region's least rotated box: of the set's size and
    filling the box (`_tiled`) when that is known, else one frame, the box, when it has a tile's
    shape. At most `REGION_MOST_FRAMES`, the fullest regions' first.

    A region is the inside of an outer outline (`cv2.findContours`, a twentieth of the time of
    labelling components): a hole in it, a tile's face the colour of the cloth, counts as changed."""
    regions, step = _regions(changes.mask, explained, size)
    outlines, _ = cv2.findContours(regions, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    proposed: list[tuple[float, list[TileFrame]]] = []  # each region's fill and frames
    for outline in outlines:
        # Outlines run through the outer pixels' centres; each shrunk pixel stands for the square
        # of `step` px it averaged, so the region reaches half a pixel past them.
        (cx, cy), (side_a, side_b), degrees = cv2.minAreaRect(outline)
        side_a, side_b = (side_a + 1) * step, (side_b + 1) * step
        long_side, short_side = max(side_a, side_b), min(side_a, side_b)
        area = (cv2.contourArea(outline) + cv2.arcLength(outline, True) / 2 + 1) * step**2
        fill = area / (long_side * short_side)
        if size is None:
            fits = (REGION_ASPECT[0] <= long_side / short_side <= REGION_ASPECT[1]
                         and long_side >= REGION_MIN_LENGTH)
        else:
            fits = REGION_AREA[0] <= area / (4 * size[0] * size[1]) <= REGION_AREA[1]
        if not fits or fill < REGION_FILL:
            continue
        # minAreaRect's angle is that of its first side (side_a); the box's long side lies along.
        radians = math.radians(degrees) + (0.0 if side_a >= side_b else math.pi / 2)
        along = np.array([math.cos(radians), math.sin(radians)], np.float32)
        centre = (np.array([cx, cy], np.float32) + 0.5) * step - 0.5
        if size is None:
            across = np.array([along[1], -along[0]], np.float32)  # `along` is `across` turned a quarter
            proposed.append((fill, [TileFrame(centre, across, short_side / 2, long_side / 2)]))
        else:
            proposed.append((fill, _tiled(centre, along, long_side, short_side, size)))
    frames = [frame for _, region in sorted(proposed, key=lambda p: -p[0]) for frame in region]
    return frames[:REGION_MOST_FRAMES]
