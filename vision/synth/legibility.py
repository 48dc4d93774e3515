"""How legible each labelled tile of a rendered frame is, measured on the frame's own pixels.

The renderer draws each face's pips, then lights, shrink-wraps and films the table. Glare on a
wrapped tile, a burnt-out exposure, a hand or a poor webcam's noise can leave pips no eye can
find, while the label still names the tile. To tell a reader's miss from a tile nobody could
read, `pip_contrasts` renders the frame twice more from the same renderer:

- with every face blank, from the same seed: the same light, camera and sensor noise, so the
  difference from the frame is what is left of the pips after filming;
- blank again from another seed (another moment's sensor noise), so the difference between the
  two blank frames is the camera's noise twice over (its standard deviation times sqrt(2)).

A pip's contrast is its signal's mean over its disc, over the noise's standard deviation on its
tile (each per pixel in the channel that differs most, so a coloured pip on a face of another
colour counts); a tile's is its weakest pip's, since a tile with one pip wiped out reads as
another tile.
A tile below `LEGIBLE_CONTRAST` is illegible; a tile with no pip (0-0) has nothing to wipe out.

The label's corners say where each half lies but not which way its face is mirrored; the pips
of 2, 3 and 6 lie on a diagonal, so both ways are measured and the one that finds more of the
pips is kept.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from vision.geometry import frame_from_corners
from vision.synth.pips import pip_positions, pip_radius
from vision.synth.scene import Frame, Renderer, Scene

# A tile whose weakest pip's contrast (mean signal over the noise's standard deviation) is below
# this is illegible. On widened tuning tables 10600-10899 (never the held-out 0-999), 15 of 2,225
# face-up tiles were below 1.0 and the reader, shown each one's true frame, read none of them: to
# the eye they are blank or noise (shrink-wrap under glare burnt out, pips under a webcam's
# grain). Of the 10 between 1.0 and 2.0 it read 6, so 1.0 counts as illegible only tiles nobody
# reads.
LEGIBLE_CONTRAST = 1.0
# The seed offset of the second blank frame (its own sensor noise).
NOISE_SEED_OFFSET = 7919
_SUBPIXEL_BITS = 3  # cv2 drawing's fixed-point shift: discs placed to 1/8 px


def blank_faces(frame: Frame) -> Scene:
    """`frame`'s scene with every tile's face blank (0-0), each where it was."""
    return replace(frame.scene, tiles=tuple(replace(tile, a=0, b=0) for tile in frame.scene.tiles))


def _mean_in_disc(image: np.ndarray, centre: np.ndarray, radius: float) -> float:
    disc = np.zeros(image.shape, np.uint8)
    scale = 1 << _SUBPIXEL_BITS
    cv2.circle(disc, (round(float(centre[0]) * scale), round(float(centre[1]) * scale)),
               max(1, round(radius * scale)), 1, -1, cv2.LINE_8, _SUBPIXEL_BITS)
    values = image[disc > 0]
    return float(values.mean()) if len(values) else 0.0


def tile_contrast(tile: dict[str, Any], signal: np.ndarray, noise: np.ndarray) -> float:
    """The weakest pip's contrast of labelled `tile` (its "corners", "a" and "b"): `signal` is
    float (H, W), the frame less its blank-faced twin; `noise` float (H, W), one blank frame less
    the other. `math.inf` for a tile with no pip."""
    corners = np.asarray(tile["corners"], np.float32)
    frame = frame_from_corners(corners)
    on_tile = np.zeros(noise.shape, np.uint8)
    cv2.fillPoly(on_tile, [np.round(corners).astype(np.int32)], 1)
    noise_sd = float(np.sqrt(np.mean(np.square(noise[on_tile > 0])) / 2)) if on_tile.any() else 0.0
    noise_sd = max(noise_sd, 0.5)  # a camera without noise still quantises to whole levels
    half = frame.half_width  # the pips' positions are in half-widths of a half's centre
    radius = pip_radius(max(int(tile["a"]), int(tile["b"]), 6)) * half
    best: list[float] = []
    for mirror in (1.0, -1.0):
        contrasts = [
            _mean_in_disc(signal, frame.center + frame.along * ((middle + u) * half)
                          + frame.across * (mirror * v * half), radius) / noise_sd
            for value, middle in ((int(tile["a"]), -1.0), (int(tile["b"]), 1.0))
            for u, v in pip_positions(value)
        ]
        if not best or sum(contrasts) > sum(best):
            best = contrasts
    return min(best) if best else math.inf


def pip_contrasts(renderer: Renderer, frame: Frame, seed: int) -> list[float]:
    """The weakest pip's contrast of each of `frame.labels["tiles"]`, in order: `frame` is
    `renderer`'s render of its scene from `seed`."""
    blank = blank_faces(frame)
    twin = renderer.render(blank, seed).image.astype(np.float32)
    other = renderer.render(blank, seed + NOISE_SEED_OFFSET).image.astype(np.float32)
    signal = np.abs(frame.image.astype(np.float32) - twin).max(axis=2)
    noise = np.abs(twin - other).max(axis=2)
    return [tile_contrast(tile, signal, noise) for tile in frame.labels["tiles"]]  # type: ignore[attr-defined]


def illegible(frame: Frame, contrasts: list[float]) -> list[str]:
    """The names of `frame`'s labelled tiles whose contrast is below `LEGIBLE_CONTRAST`."""
    tiles = frame.labels["tiles"]
    return [str(tile["tile"]) for tile, contrast in zip(tiles, contrasts, strict=True)  # type: ignore[call-overload]
            if contrast < LEGIBLE_CONTRAST]
