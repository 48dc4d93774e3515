"""Tile faces and backs drawn once per style and scale, anti-aliased by supersampling.

A sprite is the tile seen from straight above with its long axis horizontal and the a-half on
the left: `colour` (H, W, 3) float32 BGR and `alpha` (H, W) float32, H = width_mm * scale.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.plane import TILE_LENGTH_MM, TILE_WIDTH_MM
from vision.synth.pips import pip_positions, pip_radius
from vision.synth.style import Colour, Style

SUPERSAMPLE = 4
_SHIFT = 4  # fixed-point bits for sub-pixel OpenCV drawing


@dataclass(frozen=True)
class Sprite:
    colour: np.ndarray
    alpha: np.ndarray


def _fixed(value: float) -> int:
    return round(value * (1 << _SHIFT))


def _rounded_rect_mask(height: int, width: int, radius: float) -> np.ndarray:
    mask = np.zeros((height, width), np.uint8)
    r = max(1.0, radius)
    cv2.rectangle(
        mask, (_fixed(r), 0), (_fixed(width - 1 - r), _fixed(height - 1)), 255, -1, cv2.LINE_AA, _SHIFT
    )
    cv2.rectangle(
        mask, (0, _fixed(r)), (_fixed(width - 1), _fixed(height - 1 - r)), 255, -1, cv2.LINE_AA, _SHIFT
    )
    for cx, cy in ((r, r), (width - 1 - r, r), (r, height - 1 - r), (width - 1 - r, height - 1 - r)):
        cv2.circle(mask, (_fixed(cx), _fixed(cy)), _fixed(r), 255, -1, cv2.LINE_AA, _SHIFT)
    return mask.astype(np.float32) / 255.0


def _disk(
    canvas: np.ndarray, centre: tuple[float, float], radius: float, colour: Colour, weight: float = 1.0
) -> None:
    """Blend a filled anti-aliased disk into a float canvas.

    Only the disk's box (two pixels to spare for the anti-aliasing) is touched: outside it the
    blend changes nothing, and a sprite has dozens of disks. OpenCV draws in fixed point, so the
    disk drawn in the box at a whole-pixel shift has the very same pixels."""
    height, width = canvas.shape[:2]
    reach = radius + 2
    x0, y0 = max(0, math.floor(centre[0] - reach)), max(0, math.floor(centre[1] - reach))
    x1, y1 = min(width, math.ceil(centre[0] + reach) + 1), min(height, math.ceil(centre[1] + reach) + 1)
    if x0 >= x1 or y0 >= y1:
        return
    box = canvas[y0:y1, x0:x1]
    mask = np.zeros(box.shape[:2], np.uint8)
    shifted = (_fixed(centre[0]) - (x0 << _SHIFT), _fixed(centre[1]) - (y0 << _SHIFT))
    cv2.circle(mask, shifted, _fixed(radius), 255, -1, cv2.LINE_AA, _SHIFT)
    a = (mask.astype(np.float32) / 255.0 * weight)[..., None]
    box *= 1 - a
    box += a * np.asarray(colour, np.float32)


def _body(style: Style, body: Colour, scale: float) -> tuple[np.ndarray, np.ndarray, float]:
    ss = scale * SUPERSAMPLE
    height, width = round(TILE_WIDTH_MM * ss), round(TILE_LENGTH_MM * ss)
    alpha = _rounded_rect_mask(height, width, style.corner_radius_mm * ss)
    # A bevel: faces darken towards their rounded edges.
    inside = cv2.distanceTransform((alpha > 0.5).astype(np.uint8), cv2.DIST_L2, 3) / ss
    shade = 1.0 - 0.22 * np.exp(-inside / 0.9)
    colour = np.empty((height, width, 3), np.float32)
    colour[:] = np.asarray(body, np.float32)
    colour *= shade[..., None].astype(np.float32)
    return colour, alpha, ss


def _finish(colour: np.ndarray, alpha: np.ndarray, scale: float) -> Sprite:
    size = (round(TILE_LENGTH_MM * scale), round(TILE_WIDTH_MM * scale))
    small = cv2.resize(colour * alpha[..., None], size, interpolation=cv2.INTER_AREA)
    small_alpha = cv2.resize(alpha, size, interpolation=cv2.INTER_AREA)
    # Colour is kept premultiplied-free: divide out alpha where the edge is partly covered.
    safe = np.maximum(small_alpha, 1e-3)[..., None]
    return Sprite(np.clip(small / safe, 0, 1).astype(np.float32), small_alpha.astype(np.float32))


def _pip(
    canvas: np.ndarray, centre: tuple[float, float], radius: float, colour: Colour, body: Colour
) -> None:
    """An engraved pip: a dark rim where the hole's wall is in shadow, a lit crescent opposite."""
    lum = float(np.mean(body))
    rim = tuple(c * 0.55 for c in colour) if float(np.mean(colour)) > 0.3 else tuple(c * 0.5 for c in colour)
    _disk(canvas, centre, radius * 1.06, rim)  # type: ignore[arg-type]
    _disk(canvas, centre, radius * 0.9, colour)
    light = radius * 0.25
    glint = tuple(min(1.0, c + 0.25 + 0.15 * lum) for c in colour)
    _disk(canvas, (centre[0] + light, centre[1] + light), radius * 0.45, glint, weight=0.35)  # type: ignore[arg-type]


@lru_cache(maxsize=256)
def face_sprite(style: Style, a: int, b: int, scale: float) -> Sprite:
    """The face of tile a-b with the a-half on the left, `scale` pixels per millimetre."""
    body = style.body_colour
    colour, alpha, ss = _body(style, body, scale)
    half = TILE_WIDTH_MM / 2 * ss
    mid_x, mid_y = TILE_LENGTH_MM / 2 * ss, TILE_WIDTH_MM / 2 * ss
    dark_body = float(np.mean(body)) < 0.4
    divider: Colour = (0.75, 0.75, 0.75) if dark_body else tuple(c * 0.12 for c in body)  # type: ignore[assignment]
    if style.divider_colour is not None:
        divider = style.divider_colour
    line = np.zeros(colour.shape[:2], np.uint8)
    cv2.line(
        line,
        (_fixed(mid_x), _fixed(mid_y - 0.78 * half)),
        (_fixed(mid_x), _fixed(mid_y + 0.78 * half)),
        255,
        max(1, round(1.5 * ss)),
        cv2.LINE_AA,
        _SHIFT,
    )
    la = (line.astype(np.float32) / 255.0)[..., None]
    colour[:] = colour * (1 - la) + la * np.asarray(divider, np.float32)
    if style.pin is not None:
        metal: Colour = (0.25, 0.62, 0.80) if style.pin == "brass" else (0.72, 0.72, 0.70)
        _disk(colour, (mid_x, mid_y), 1.5 * ss, tuple(c * 0.6 for c in metal))  # type: ignore[arg-type]
        _disk(colour, (mid_x, mid_y), 1.2 * ss, metal)
        _disk(colour, (mid_x - 0.35 * ss, mid_y - 0.35 * ss), 0.5 * ss, (0.95, 0.97, 0.97), weight=0.7)
    max_value = max(a, b, 6)
    radius = pip_radius(max_value) * half
    for value, cx in ((a, mid_x - half), (b, mid_x + half)):
        for u, v in pip_positions(value):
            _pip(colour, (cx + u * half, mid_y + v * half), radius, style.pip_colour(value), body)
    return _finish(colour, alpha, scale)


@lru_cache(maxsize=32)
def back_sprite(style: Style, scale: float) -> Sprite:
    """A face-down tile: the back, plain or with a printed logo."""
    colour, alpha, ss = _body(style, style.back_colour, scale)
    if style.back_logo:
        mid = (TILE_LENGTH_MM / 2 * ss, TILE_WIDTH_MM / 2 * ss)
        ink: Colour = (0.2, 0.55, 0.8) if float(np.mean(style.back_colour)) < 0.5 else (0.15, 0.15, 0.5)
        ring = np.zeros(colour.shape[:2], np.uint8)
        cv2.circle(
            ring,
            (_fixed(mid[0]), _fixed(mid[1])),
            _fixed(7 * ss),
            255,
            max(1, round(0.8 * ss)),
            cv2.LINE_AA,
            _SHIFT,
        )
        star = np.array(
            [
                [mid[0] + r * np.cos(t), mid[1] + r * np.sin(t)]
                for i, t in enumerate(np.linspace(-np.pi / 2, 1.5 * np.pi, 10, endpoint=False))
                for r in [(5.5 if i % 2 == 0 else 2.3) * ss]
            ]
        )
        cv2.fillPoly(ring, [np.round(star * (1 << _SHIFT)).astype(np.int32)], 255, cv2.LINE_AA, _SHIFT)
        ra = (ring.astype(np.float32) / 255.0 * 0.85)[..., None]
        colour[:] = colour * (1 - ra) + ra * np.asarray(ink, np.float32)
    return _finish(colour, alpha, scale)
