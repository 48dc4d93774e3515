"""Players' hands over the table: a palm, fingers and a sleeved arm reaching in from off-frame."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.style import Colour

SKIN_TONES: tuple[Colour, ...] = (
    (0.62, 0.72, 0.88),
    (0.50, 0.62, 0.80),
    (0.38, 0.50, 0.68),
    (0.25, 0.35, 0.50),
    (0.16, 0.22, 0.33),
)
SLEEVES: tuple[Colour, ...] = (
    (0.55, 0.25, 0.10),
    (0.15, 0.15, 0.15),
    (0.85, 0.85, 0.85),
    (0.10, 0.10, 0.55),
    (0.35, 0.55, 0.30),
)


@dataclass(frozen=True)
class Hand:
    """A hand whose palm centre lies at (x, y) mm, fingers pointing along `angle` degrees."""

    x: float
    y: float
    angle: float
    skin: Colour = SKIN_TONES[1]
    sleeve: Colour = SLEEVES[0]
    scale: float = 1.0
    height_mm: float = 60.0  # above the table: sets how far its shadow falls


def _ellipse(mask: np.ndarray, centre: np.ndarray, axes: tuple[float, float], angle: float) -> None:
    cv2.ellipse(
        mask,
        (round(centre[0] * 16), round(centre[1] * 16)),
        (round(axes[0] * 16), round(axes[1] * 16)),
        angle,
        0,
        360,
        255,
        -1,
        cv2.LINE_AA,
        4,
    )


def hand_masks(hand: Hand, to_canvas: np.ndarray, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(skin, sleeve) float masks in a canvas whose pixels are `to_canvas` (2 x 3 affine) of mm."""
    ppm = float(math.hypot(to_canvas[0, 0], to_canvas[1, 0]))
    s = hand.scale * ppm
    a = math.radians(hand.angle)
    fwd, side = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    centre = to_canvas[:, :2] @ np.array([hand.x, hand.y]) + to_canvas[:, 2]
    skin = np.zeros(shape, np.uint8)
    sleeve = np.zeros(shape, np.uint8)
    _ellipse(skin, centre, (46 * s, 40 * s), hand.angle)
    for offset, length in ((-24, 40), (-8, 48), (8, 46), (23, 38)):
        base = centre + fwd * 34 * s + side * offset * s
        _ellipse(
            skin, base + fwd * length * 0.5 * s, (length * 0.62 * s, 8.5 * s), hand.angle + offset * 0.25
        )
    thumb_base = centre + side * 36 * s
    _ellipse(skin, thumb_base + (fwd * 18 + side * 10) * s, (26 * s, 9.5 * s), hand.angle + 50)
    wrist = centre - fwd * 40 * s
    far = centre - fwd * 1500 * s
    for mask, start, width in ((skin, wrist + fwd * 10 * s, 30), (sleeve, wrist - fwd * 25 * s, 42)):
        quad = np.array(
            [
                start + side * width * s,
                start - side * width * s,
                far - side * width * s,
                far + side * width * s,
            ]
        )
        cv2.fillPoly(mask, [np.round(quad * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    skin_f = skin.astype(np.float32) / 255.0
    sleeve_f = sleeve.astype(np.float32) / 255.0
    return np.clip(skin_f - sleeve_f, 0, 1), sleeve_f


def draw_hand(canvas: np.ndarray, hand: Hand, to_canvas: np.ndarray,
              shadow_strength: float) -> tuple[np.ndarray, tuple[slice, slice]]:
    """Draw a hand and its shadow on a float canvas (H, W, 3); returns the hand's coverage mask
    (H, W) and the box (rows, columns) outside which it is 0."""
    shape = canvas.shape[:2]
    skin, sleeve = hand_masks(hand, to_canvas, shape)
    cover: np.ndarray = np.clip(skin + sleeve, 0, 1)
    left, top, width, height = cv2.boundingRect((cover > 0).view(np.uint8))
    if width == 0:
        return cover, (slice(0, 0), slice(0, 0))
    ppm = float(math.hypot(to_canvas[0, 0], to_canvas[1, 0]))
    drop = hand.height_mm * 0.35 * ppm
    sigma = max(1.0, hand.height_mm * 0.15 * ppm)
    reach = int(drop + 3 * sigma) + 2
    # Work only where the hand or its shadow can be.
    y0, y1 = max(0, top - 2), min(shape[0], top + height - 1 + reach)
    x0, x1 = max(0, left - 2), min(shape[1], left + width - 1 + reach)
    roi = canvas[y0:y1, x0:x1]
    c, sk, sl = cover[y0:y1, x0:x1], skin[y0:y1, x0:x1], sleeve[y0:y1, x0:x1]
    shift = np.array([[1, 0, drop * 0.6], [0, 1, drop]], np.float32)
    shadow = cv2.warpAffine(c, shift, (c.shape[1], c.shape[0]))
    shadow = cv2.GaussianBlur(shadow, (0, 0), sigma)
    roi *= (1 - shadow_strength * 0.8 * shadow)[..., None]
    # Rounded limbs: darker towards their outlines.
    inner = cv2.distanceTransform((c > 0.5).astype(np.uint8), cv2.DIST_L2, 3) / ppm
    tone = (0.7 + 0.3 * np.minimum(1.0, inner / 12.0)).astype(np.float32)
    for mask, colour in ((sk, hand.skin), (sl, hand.sleeve)):
        m = mask[..., None]
        roi *= 1 - m
        roi += m * tone[..., None] * np.asarray(colour, np.float32)
    return cover, (slice(top, top + height), slice(left, left + width))
