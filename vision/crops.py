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

from vision.geometry import OUTSIDE, TileFrame
from vision.scale import shrink_to

CROP_WIDTH = 32  # px across the tile's short side
CROP_HEIGHT = 64  # px along its long side
CROP_EXTENT = 1.35  # the crop spans this many times the frame's extent each way
AREA_SHRINK = 1.5  # frames shrunk more than this are sampled from an area-averaged image
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
    image: np.ndarray, frames: list[TileFrame], shrunk: dict[int, np.ndarray] | None = None
) -> np.ndarray:
    """uint8 (N, CROP_HEIGHT, CROP_WIDTH, 3) crops of `frames` in `image`.

    Sampling a frame much larger than its crop with bilinear weights would skip pixels and alias
    small pips away, so when the frames' median shrink exceeds `AREA_SHRINK` the image is first
    averaged down (`vision.scale.shrink_to`, once for the whole batch) to about the crops' scale, in
    steps of a quarter octave. `shrunk` keeps those images between batches of one image."""
    out = np.empty((len(frames), CROP_HEIGHT, CROP_WIDTH, 3), np.uint8)
    if not frames:
        return out
    shrink = float(np.median([CROP_EXTENT * f.half_width / (CROP_WIDTH / 2) for f in frames]))
    if shrink > AREA_SHRINK:
        step = round(4 * math.log2(shrink))
        shrink = 2.0 ** (step / 4)
        height, width = image.shape[:2]
        size = (max(1, round(width / shrink)), max(1, round(height / shrink)))
        if shrunk is not None and step in shrunk:
            image = shrunk[step]
        else:
            image = shrink_to(image, size)
            if shrunk is not None:
                shrunk[step] = image
        fx, fy = size[0] / width, size[1] / height
        frames = [_scaled(f, fx, fy) for f in frames]
    for i, frame in enumerate(frames):
        out[i] = crop(image, frame)
    return out


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
    c, s = math.cos(angle), math.sin(angle)
    across = np.array(
        [c * frame.across[0] - s * frame.across[1], s * frame.across[0] + c * frame.across[1]], np.float32
    )
    return TileFrame(center.astype(np.float32), across, w * math.exp(dw), frame.half_length * math.exp(dl))


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
