"""Where tiles lie, before any is read: a small fully convolutional network over the whole image.

The finder (`vision/models/tilefinder.onnx`, trained by `vision.train.finder` on rendered tables
only) answers for every `STRIDE` x `STRIDE` cell of its input the probability that the centre of
a face-up tile lies there and that of a face-down one, and, for the tile centred there, where
exactly its centre is, its half-width, its length over its width and its axis. It needs no pip,
divider or table colour: it was shown tiles of every set on every kind of table, beside cards,
dice, print and patterned cloth, and learned what a tile looks like.

It was trained on tiles `LENGTHS` px long, so it looks at the image in a pyramid of halvings
(`levels`): from `TOP_SIDE` px on the longer side (a small photo enlarged up to `MAX_ENLARGE`)
down to a level where even a tile filling the picture is within those lengths, each level
answering for the tiles of its lengths; a tile found at two
levels is kept once (`one_per_tile`). When the sure candidates are short at the top level
(`SMALL_TILE_LENGTH`), the part of the image round them is looked at once more, closer
(`closer_look`). With a calibration the tile's length is known and one level is enough: the one
where a tile is `CALIBRATED_LEVEL_LENGTH` px long. Recall comes first: every cell at least
`FOUND_MIN` sure and surer than its eight neighbours is a candidate, and the tile reader
(`vision.tilenet`) decides.

Shapes: a level is float32 (1, 3, H, W), H and W multiples of `ALIGN`, the image (less 128, over
64) inside a grey margin of `MARGIN` px; its outputs are `heat` (1, 2, H / STRIDE, W / STRIDE)
logits of a face-up and a face-down centre, and `geometry` (1, 6, H / STRIDE, W / STRIDE): the
centre's offset from the cell's centre (x, y, in cells), log half-width (in cells), log
length over width, cos and sin of twice the axis's angle. `Found.frame` is in the input's px.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.geometry import TileFrame, first_of_each_place
from vision.onnx import Network

FINDER_FILE = "tilefinder.onnx"
MODEL_DIR = Path(__file__).resolve().parent / "models"
OUTPUTS = ("heat", "geometry")
FACE_UP_CENTRE, FACE_DOWN_CENTRE = range(2)  # the heat's channels
HEAT_CHANNELS = 2
GEOMETRY_CHANNELS = 6
STRIDE = 4  # input px per output cell
ALIGN = 16  # the network halves its input four times: a level's sides are multiples of this
MARGIN = 16  # px of grey (128) around a level: a tile cut by the image's border keeps an edge
GREY = 128.0
SPREAD = 64.0  # a level's input is (pixel - GREY) / SPREAD
LENGTHS = (16.0, 100.0)  # tile lengths (level px) the finder was trained to answer for
TOP_SIDE = 768  # the pyramid's largest level: this many px on the image's longer side ...
MAX_ENLARGE = 2.0  # ... a small image enlarged by at most this; halved from there (`levels`)
# px: with a calibration, the one level where a tile is this long. At 40 (the middle of `LENGTHS`
# on a log scale) the gaps of a boneyard laid in tidy rows were a pixel wide and two backs merged;
# 48 and 56 counted every row of a filmed hand's draws (`tests/vision/synth/test_tracker_table.py`).
CALIBRATED_LEVEL_LENGTH = 48.0
FOUND_MIN = 0.1  # a cell this sure of a centre, and surer than its neighbours, is a candidate
# The finder frames fewer tiles shorter than this at the pyramid's top level (widened tuning
# tables 10600-10899: 92 % of a camera's tiles 22-29 px long there, 97-99 % of longer ones).
# When the median length of the candidates at least `SIZE_SURE` sure is shorter (and at least
# `SIZE_QUORUM` of them give a median), the image is looked at once more at a scale where that
# median is `CLOSER_LENGTH` px long, the image's longer side at most `CLOSER_MAX_SIDE` px there:
# only pictures of small tiles pay for the larger level.
SMALL_TILE_LENGTH = 32.0
CLOSER_LENGTH = 40.0
CLOSER_MAX_SIDE = 1152
SIZE_SURE = 0.5
SIZE_QUORUM = 3
CLOSER_STEP = 1.1  # a closer level within this ratio of the top one would see what it saw
# The closer level covers only the box round the sure candidates' centres, this many of their
# median lengths wider each way (within the image): a tile the top level missed lies among the
# tiles it found or beside them (a neighbour end to end is one length from a centre; 1.5 leaves
# half a length of gap). On widened tuning tables 10000-11199, told one set, the 306 pictures
# that looked closer were read in a median 0.132-0.154 s instead of 0.179-0.189, with 2560 of
# their tiles right against 2562 (a reach of 1.0 was a little cheaper and lost a tile lying just
# beyond its box).
CLOSER_REACH = 1.5
SAME_TILE_REACH = 1.2  # candidates with centres this many half-widths apart ...
SAME_TILE_SIZE = 1.65  # ... and half-widths within this ratio ...
# ... and axes within this many radians frame one tile (`one_per_tile`). Halfway between one
# axis and a right angle: a coarser level sees tiles laid side by side (a hand shown at the end)
# as one tile across them, and that candidate must not hide theirs.
SAME_TILE_AXIS = math.pi / 4
MAX_FOUND = 1000  # candidates kept per image at most, likeliest first: bounds the reader's work


@dataclass(frozen=True)
class Found:
    """A candidate tile: where it may lie (input px), which heat found it, how sure it is."""

    frame: TileFrame
    face_up: bool
    score: float


def levels(shape: tuple[int, ...]) -> list[float]:
    """The pyramid's scale factors for an image of `shape` (H, W, ...), largest first.

    Halved until the longer side is at most the longest tile the finder was trained on
    (`LENGTHS`): a tile that fills the picture (a close-up, a picture cropped to one tile) is then
    one it was trained on at the last level. Halving only while a level kept 64 px a side, a
    picture cropped to one tile 60 or 120 px long was last seen with the tile 120 px long, beyond
    them: 2 and 7 of 30 rendered tiles so cropped were read, against 30 and 30 now
    (`benchmarks.vision_cropped`). A picture of 384 px or more keeps its pyramid (a 1080p frame's
    is 768, 384, 192 and 96 px). Halving once more, to half the longest length, read more real
    tiles filling their picture at 45 degrees (48-53 of 63 crops, against 40-50), but gave every
    1080p frame a 48-px level whose few huge candidates cost 7 ms (4 %) of a read.
    """
    longer = max(int(shape[0]), int(shape[1]))
    scale = min(MAX_ENLARGE, TOP_SIDE / longer)
    out = [scale]
    while longer * scale > LENGTHS[1]:
        scale /= 2
        out.append(scale)
    return out


def level_images(image: np.ndarray, scales: list[float]) -> Iterator[tuple[np.ndarray, tuple[float, float]]]:
    """Each level of `scales` (largest first): `image` resized (round(side * scale) px a side,
    averaged down or bilinearly enlarged, as the finder was trained), and the factors (x, y)
    that take input px to level px.

    A level exactly half the size of the level before it (not an enlarged one) is averaged down
    from that level, not from the image: the pixels it averages are the same, and halving a
    small level costs a fraction of averaging the whole image (a 1080p frame's three lower
    levels: 6 ms against 0.3). It differs from averaging the image at once only by rounding,
    half a grey level a step (OpenCV rounds exact halves up: 0.12 of a level brighter on average).
    """
    height, width = image.shape[:2]
    above: np.ndarray | None = None
    for scale in scales:
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        if scale >= 1:
            level = cv2.resize(image, size, interpolation=cv2.INTER_LINEAR)
        elif above is not None and above.shape[:2] == (2 * size[1], 2 * size[0]):
            level = cv2.resize(above, size, interpolation=cv2.INTER_AREA)
        else:
            level = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        above = level if scale <= 1 else None  # an enlarged level holds no more than the image
        yield level, (size[0] / width, size[1] / height)


def level_input(level: np.ndarray) -> np.ndarray:
    """A level (`level_images`) in its grey margin, its sides rounded up to `ALIGN`, as the
    network's input."""
    height, width = level.shape[:2]
    def aligned(side: int) -> int:
        return math.ceil((side + 2 * MARGIN) / ALIGN) * ALIGN

    return network_input(level, (aligned(height), aligned(width)), MARGIN)


def network_input(image: np.ndarray, size: tuple[int, int] | None = None, offset: int = 0) -> np.ndarray:
    """uint8 (h, w, 3) -> float32 (1, 3, H, W): (pixel - `GREY`) / `SPREAD`, as the network reads,
    with the image's top left corner at (`offset`, `offset`) of a grey (H, W) `size` (its own by
    default). Grey reads as 0, so the margin is the zeros the array starts as; each channel is
    split out and scaled straight into its plane (a quarter of the time of converting, padding
    and transposing the whole array)."""
    height, width = image.shape[:2]
    size = size or (height, width)
    x = np.zeros((1, 3, *size), np.float32)
    for channel, plane in enumerate(cv2.split(image)):
        inner = x[0, channel, offset:offset + height, offset:offset + width]
        np.multiply(plane, np.float32(1 / SPREAD), out=inner, casting="unsafe")
        inner -= np.float32(GREY / SPREAD)
    return x


def centre_peaks(probability: np.ndarray, threshold: float) -> np.ndarray:
    """bool (h, w): the cells of one heat (h, w) at least `threshold` sure and surer than their
    eight neighbours (ties kept)."""
    return (probability >= threshold) & (probability >= cv2.dilate(probability, np.ones((3, 3))))


def decode(heat: np.ndarray, geometry: np.ndarray, factors: tuple[float, float],
           threshold: float = FOUND_MIN, offset: tuple[int, int] = (0, 0)) -> list[Found]:
    """The candidates of one level: float32 heat (2, h, w) probabilities and geometry (6, h, w)
    of the part of the level whose top left corner is level px `offset` (x, y)."""
    out: list[Found] = []
    for channel in (FACE_UP_CENTRE, FACE_DOWN_CENTRE):
        probability = heat[channel]
        ys, xs = np.nonzero(centre_peaks(probability, threshold))
        dx, dy, log_width, log_aspect, cos2, sin2 = geometry[:, ys, xs]
        half_width = np.exp(log_width) * STRIDE
        half_length = half_width * np.exp(log_aspect)
        fits = (2 * half_length >= LENGTHS[0]) & (2 * half_length <= LENGTHS[1])
        centre_x = ((xs + 0.5 + dx) * STRIDE - MARGIN + offset[0]) / factors[0]
        centre_y = ((ys + 0.5 + dy) * STRIDE - MARGIN + offset[1]) / factors[1]
        angle = np.arctan2(sin2, cos2) / 2  # of the long axis
        for i in np.nonzero(fits)[0].tolist():
            across = np.array([math.sin(angle[i]), -math.cos(angle[i])], np.float32)
            frame = TileFrame(np.array([centre_x[i], centre_y[i]], np.float32), across,
                              float(half_width[i] / factors[0]), float(half_length[i] / factors[0]))
            out.append(Found(frame, channel == FACE_UP_CENTRE, float(probability[ys[i], xs[i]])))
    return out


def one_per_tile(found: list[Found]) -> list[Found]:
    """The likeliest of the candidates of one heat that frame one tile (a tile found at two
    levels): centres within `SAME_TILE_REACH` of the smaller half-width, half-widths within
    `SAME_TILE_SIZE` of each other and axes within `SAME_TILE_AXIS`. At most `MAX_FOUND`,
    likeliest first.

    Not by overlap: a candidate on the seam between two tiles laid end to end overlaps both
    by half, and must not hide either."""
    found = sorted(found, key=lambda f: -f.score)[:MAX_FOUND]
    kept = first_of_each_place([f.frame for f in found], reach=SAME_TILE_REACH,
                               size_log=math.log(SAME_TILE_SIZE),
                               axis_radians=SAME_TILE_AXIS, groups=np.array([f.face_up for f in found]))
    return [found[i] for i in kept]


class TileFinder:
    """The shipped (or any exported) finder, loaded once per process."""

    def __init__(self, model_dir: Path = MODEL_DIR) -> None:
        self.net = Network(model_dir / FINDER_FILE, "tile finder", OUTPUTS, per_shape=True)

    def answer(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The heat (2, h, w) as probabilities and the geometry (6, h, w) of one network input
        (`network_input`)."""
        heat, geometry = self.net.run(x)
        probability = 1.0 / (1.0 + np.exp(-np.asarray(heat, np.float32)[0]))
        return probability.astype(np.float32), np.asarray(geometry, np.float32)[0]

    def find(self, image: np.ndarray, *, tile_length_px: float | None = None,
             threshold: float = FOUND_MIN) -> list[Found]:
        """Every candidate tile in uint8 (H, W, 3) BGR `image`, likeliest first (see the module)."""
        if tile_length_px is not None:
            scales = [min(MAX_ENLARGE, CALIBRATED_LEVEL_LENGTH / tile_length_px)]
        else:
            scales = levels(image.shape)
        found = self._at(image, scales, threshold)
        if tile_length_px is None and (closer := closer_look(found, image.shape, scales[0])) is not None:
            found += self._closer(image, closer, threshold)
        return one_per_tile(found)

    def _at(self, image: np.ndarray, scales: list[float], threshold: float) -> list[Found]:
        found: list[Found] = []
        for level, factors in level_images(image, scales):
            heat, geometry = self.answer(level_input(level))
            found += decode(heat, geometry, factors, threshold)
        return found

    def _closer(self, image: np.ndarray, closer: CloserLook, threshold: float) -> list[Found]:
        """The candidates of the closer level's window. The whole image is resized (a few ms)
        and the window cut from the level with its corner on the network's grid (`ALIGN`), so
        that inside it the network answers as it would for the whole level."""
        level, factors = next(level_images(image, [closer.scale]))
        left, upper, right, lower = closer.window
        x0, y0 = int(left * factors[0]) // ALIGN * ALIGN, int(upper * factors[1]) // ALIGN * ALIGN
        x1, y1 = math.ceil(right * factors[0]), math.ceil(lower * factors[1])
        heat, geometry = self.answer(level_input(level[y0:y1, x0:x1]))
        return decode(heat, geometry, factors, threshold, (x0, y0))


@dataclass(frozen=True)
class CloserLook:
    """One more level of the finder: the input's `window` (left, upper, right, lower px; right and
    lower excluded) at `scale`."""

    scale: float
    window: tuple[int, int, int, int]


def closer_look(found: list[Found], shape: tuple[int, ...], top: float) -> CloserLook | None:
    """One more level when the sure candidates' median tile is shorter than `SMALL_TILE_LENGTH`
    at the `top` level, over the box round their centres (`CLOSER_REACH`), else None."""
    sure = [f.frame for f in found if f.score >= SIZE_SURE]
    if len(sure) < SIZE_QUORUM:
        return None
    length = float(np.median([2 * frame.half_length for frame in sure]))
    if length * top >= SMALL_TILE_LENGTH:
        return None
    height, width = int(shape[0]), int(shape[1])
    scale = min(MAX_ENLARGE, CLOSER_LENGTH / length, CLOSER_MAX_SIDE / max(height, width))
    if scale <= top * CLOSER_STEP:
        return None
    centres = np.array([frame.center for frame in sure], np.float64)
    low = np.floor(centres.min(axis=0) - CLOSER_REACH * length)
    high = np.ceil(centres.max(axis=0) + CLOSER_REACH * length)
    left, upper = int(np.clip(low[0], 0, width - 1)), int(np.clip(low[1], 0, height - 1))
    right, lower = int(np.clip(high[0], left + 1, width)), int(np.clip(high[1], upper + 1, height))
    return CloserLook(scale, (left, upper, right, lower))


@cache
def shipped_finder() -> TileFinder:
    """The finder in `vision/models`, loaded on first use."""
    return TileFinder()
