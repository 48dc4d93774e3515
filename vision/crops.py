"""Upright crops of candidate tiles, the tile reader's input, and the geometry it answers in.

A crop is the neighbourhood of a `TileFrame` warped upright: `CROP_WIDTH` x `CROP_HEIGHT` px,
the frame's short axis horizontal, its a-half at the top, the frame itself filling the middle
`1 / CROP_EXTENT` of each side (so a tile a little larger or off-centre is still wholly seen).
`crop_batch` stacks them as the network's input: float32 (N, 3, CROP_HEIGHT, CROP_WIDTH).

The reader's geometry answer is five numbers per crop, in the crop's own frame: the true tile's
centre offset across and along (in the frame's half-widths), the log ratios of its half-width
and half-length to the frame's, and the angle from the frame's `across` to its own (radians, the
axis taken modulo a half turn). `refined` applies them; `geometry_target` computes them from a
known tile, for training.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.geometry import OUTSIDE, TileFrame, turned
from vision.scale import shrink_to

CROP_WIDTH = 32  # px across the tile's short side
CROP_HEIGHT = 64  # px along its long side
CROP_EXTENT = 1.35  # the crop spans this many times the frame's extent each way
AREA_SHRINK = 1.5  # frames shrunk more than this are sampled from averaged pixels (`sampled_crop`)
GEOMETRY_SIZE = 5  # (dx, dy, log half-width ratio, log half-length ratio, angle)


def crop(image: np.ndarray, frame: TileFrame) -> np.ndarray:
    """uint8 (CROP_HEIGHT, CROP_WIDTH, 3) upright crop around `frame` (grey outside the image)."""
    sx = CROP_EXTENT * frame.half_width / (CROP_WIDTH / 2)  # image px per crop px, across
    sy = CROP_EXTENT * frame.half_length / (CROP_HEIGHT / 2)  # ... along
    u, n = frame.across * sx, frame.along * sy
    origin = frame.center - u * (CROP_WIDTH - 1) / 2 - n * (CROP_HEIGHT - 1) / 2
    matrix = np.array([[u[0], n[0], origin[0]], [u[1], n[1], origin[1]]], np.float32)
    out = cv2.warpAffine(
        image,
        matrix,
        (CROP_WIDTH, CROP_HEIGHT),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=OUTSIDE,
    )
    return np.asarray(out, np.uint8)


def crops(
    image: np.ndarray, frames: list[TileFrame], octaves: dict[int, np.ndarray] | None = None
) -> np.ndarray:
    """uint8 (N, CROP_HEIGHT, CROP_WIDTH, 3) crops of `frames` in `image` (`sampled_crop`);
    `octaves` keeps `image` halved between batches of one image."""
    out = np.empty((len(frames), CROP_HEIGHT, CROP_WIDTH, 3), np.uint8)
    octaves = {} if octaves is None else octaves
    for i, frame in enumerate(frames):
        out[i] = sampled_crop(image, frame, octaves)
    return out


def sampled_crop(image: np.ndarray, frame: TileFrame, octaves: dict[int, np.ndarray]) -> np.ndarray:
    """`crop` of `frame`, from its pixels averaged when the frame is much larger than its crop.

    Sampling a frame shrunk more than `AREA_SHRINK` with bilinear weights would skip pixels and
    alias small pips away. Such a frame is cropped from its neighbourhood averaged down to about
    the crop's scale, in steps of a quarter octave: `image` halved whole octaves (`_octave`, kept
    in `octaves`), then the neighbourhood alone shrunk the quarters left (`vision.scale.shrink_to`).
    So each crop depends on its frame and the image only, never on the frames cropped beside it
    (a frame round the whole table does not blur the tiles of its batch), and costs about the
    same whatever the frame's size."""
    shrink = CROP_EXTENT * frame.half_width / (CROP_WIDTH / 2)  # image px per crop px
    if shrink <= AREA_SHRINK:
        return crop(image, frame)
    octave, quarters = divmod(round(4 * math.log2(shrink)), 4)
    source = _octave(image, octave, octaves)
    frame = _scaled(frame, source.shape[1] / image.shape[1], source.shape[0] / image.shape[0])
    if quarters == 0:
        return crop(source, frame)
    # The crop's outline in `source`, with room for its bilinear samples after the shrink.
    outline = _crop_outline(frame)
    margin = 2 * 2 ** (quarters / 4) + 2
    x0, y0 = np.maximum(np.floor(outline.min(axis=0) - margin), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(outline.max(axis=0) + margin), source.shape[1::-1]).astype(int)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return crop(source, frame)  # the crop lies outside the image: grey
    near = source[y0:y1, x0:x1]
    size = (max(1, round((x1 - x0) / 2 ** (quarters / 4))), max(1, round((y1 - y0) / 2 ** (quarters / 4))))
    shrunk = shrink_to(near, size)
    moved = TileFrame(frame.center - np.array([x0, y0], np.float32), frame.across, frame.half_width,
                      frame.half_length)
    return crop(shrunk, _scaled(moved, size[0] / (x1 - x0), size[1] / (y1 - y0)))


def _crop_outline(frame: TileFrame) -> np.ndarray:
    """float32 (4, 2): the corners of the area `crop` samples around `frame`."""
    return TileFrame(frame.center, frame.across, CROP_EXTENT * frame.half_width,
                     CROP_EXTENT * frame.half_length).corners()


def _octave(image: np.ndarray, octave: int, octaves: dict[int, np.ndarray]) -> np.ndarray:
    """`image` halved `octave` times, each a 2x2 average of the last, kept in `octaves`."""
    if octave == 0:
        return image
    if octave not in octaves:
        above = _octave(image, octave - 1, octaves)
        octaves[octave] = cv2.resize(above, (max(1, above.shape[1] // 2), max(1, above.shape[0] // 2)),
                                     interpolation=cv2.INTER_AREA)
    return octaves[octave]


def _scaled(frame: TileFrame, fx: float, fy: float) -> TileFrame:
    """`frame` in an image resized by (fx, fy) (pixel centres kept, as cv2.resize maps them)."""
    center = np.array([(frame.center[0] + 0.5) * fx - 0.5, (frame.center[1] + 0.5) * fy - 0.5], np.float32)
    return TileFrame(center, frame.across, frame.half_width * fx, frame.half_length * fx)


def normalised(batch: np.ndarray) -> np.ndarray:
    """uint8 (N, H, W, 3) crops -> float32 (N, 3, H, W) network input: each crop less its mean
    level, over its contrast, so the reader sees shapes and colours, not the lamp's brightness."""
    x = batch.astype(np.float32)
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    std = x.std(axis=(1, 2, 3), keepdims=True)
    x = (x - mean) / np.maximum(std, 8.0)
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def refined(frame: TileFrame, geometry: np.ndarray) -> TileFrame:
    """`frame` moved and resized by the reader's five-number `geometry` answer."""
    dx, dy, dw, dl, angle = (float(v) for v in geometry)
    w = frame.half_width
    center = frame.center + frame.across * (dx * w) + frame.along * (dy * w)
    return TileFrame(center.astype(np.float32), turned(frame.across, angle), w * math.exp(dw),
                     frame.half_length * math.exp(dl))


def geometry_target(frame: TileFrame, truth: TileFrame) -> tuple[np.ndarray, bool]:
    """The five numbers that take `frame` to `truth`, and whether `truth`'s a-half lies at the
    crop's top (its `along` points the frame's way)."""
    w = frame.half_width
    offset = truth.center - frame.center
    dx = float(offset @ frame.across) / w
    dy = float(offset @ frame.along) / w
    angle = math.atan2(
        float(frame.across[0] * truth.across[1] - frame.across[1] * truth.across[0]),
        float(frame.across @ truth.across),
    )
    flipped = abs(angle) > math.pi / 2
    if flipped:  # the same axis, turned half round: a-half at the bottom
        angle -= math.copysign(math.pi, angle)
    target = np.array(
        [dx, dy, math.log(truth.half_width / w), math.log(truth.half_length / frame.half_length), angle],
        np.float32,
    )
    return target, not flipped
