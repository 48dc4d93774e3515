"""A picture under a strongly coloured light, read again with the cast taken off.

A bulb's warm light leaves a white tile's blue channel at half its red, a window's cool light the
other way round; a webcam in a club's evening light is dim as well as warm. The networks learnt
tiles under the renderer's lights, which seldom tint that much: on the shared real photos made
that warm (`benchmarks.vision_degraded`, "640 px, warm bulb light" and the dim, warm webcam)
they missed tiles they read under white light.

The brightest things on a domino table are mostly the tiles' faces (or a dark set's pips) and
white card or cloth: near white, whatever the light. So each channel's `WHITE_PERCENTILE` is
taken as what white looks like in the picture, and the channels are scaled so that white is grey
again (`white_gains`), by at most `MAX_GAIN`. But a picture may hold nothing white: red backs
on green felt, a new hand's boneyard, look like white under a warm light to this measure, and
scaling them so lost the backs. So the picture as it is is always read first, and where its light
casts a strong colour (one channel's white `MIN_CAST` times below the brightest's) it is read
again balanced, and that read kept only when it sees more face-up tiles (`read_in_white_light`,
in `vision.read`). Taking the cast off every picture at once instead read 7 tiles fewer on
widened tuning tables 10000-10299 (2390 against 2397 right): the renderer's lights are part of
what the networks know.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

WHITE_PERCENTILE = 99.0  # of each channel's values: what white looks like under the picture's light
# A channel whose white is this many times dimmer than the brightest channel's is a coloured
# light's doing (a bulb's warm light: about 1.8 for blue). Below it the picture is read as it is.
MIN_CAST = 1.5
MAX_GAIN = 2.0  # no channel is brightened more than this: beyond, it is noise that would be scaled up
# Pixels the percentile is taken from, evenly spread: every 4th each way of a 1080p frame, and as
# many of a larger picture. Enough for its brightest percent, at about a millisecond.
SAMPLES = 130_000


def white_gains(image: np.ndarray) -> np.ndarray | None:
    """Each channel's gain (float32 (3,), B, G, R) that brings the white of `image` (uint8 (H, W,
    3)) back to grey, or None when its light casts no colour of at least `MIN_CAST`."""
    step = max(1, round(math.sqrt(image.shape[0] * image.shape[1] / SAMPLES)))
    sample = image[::step, ::step].reshape(-1, 3)
    whites = np.empty(3, np.float32)
    for channel in range(3):
        # The percentile from the channel's histogram: a count per grey level, no sort.
        counts = np.cumsum(np.bincount(sample[:, channel], minlength=256))
        whites[channel] = max(1, int(np.searchsorted(counts, counts[-1] * WHITE_PERCENTILE / 100)))
    gains = whites.max() / whites
    if float(gains.max()) < MIN_CAST:
        return None
    return np.asarray(np.minimum(gains, MAX_GAIN), np.float32)


def balanced(image: np.ndarray, gains: np.ndarray | None) -> np.ndarray:
    """`image` (uint8 (H, W, 3)) with each channel scaled by `gains`, clipped to uint8 (one look-up
    per pixel); `image` itself when `gains` is None."""
    if gains is None:
        return image
    levels = np.arange(256, dtype=np.float32)[:, None] * np.asarray(gains, np.float32)[None, :]
    table = np.clip(np.rint(levels), 0, 255).astype(np.uint8).reshape(1, 256, 3)
    return np.asarray(cv2.LUT(image, table), np.uint8)
