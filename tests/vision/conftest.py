"""Shared helpers: where the real photos are, and a small OpenCV painter of tiles on a table."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.photos import require_real_photos

ROOT = Path(__file__).resolve().parents[2]

# Pip positions in a half, in half-widths from the half's centre: (across, along).
LAYOUT = {
    0: [], 1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}


@dataclass(frozen=True)
class Painted:
    a: int
    b: int
    center: tuple[float, float]
    angle_deg: float  # direction of the long axis from the a-half to the b-half
    half_width: float

    def corners(self) -> np.ndarray:
        t = np.deg2rad(self.angle_deg)
        along = np.array([np.cos(t), np.sin(t)])
        across = np.array([-along[1], along[0]])
        c = np.array(self.center)
        w, h = self.half_width, 2 * self.half_width
        return np.array([c - h * along - w * across, c - h * along + w * across,
                         c + h * along + w * across, c + h * along - w * across])


def table(width: int = 900, height: int = 700, colour: tuple[int, int, int] = (60, 110, 40),
          texture: str = "felt", seed: int = 0) -> np.ndarray:
    """A table: felt (noisy), wood (streaks) or plain."""
    rng = np.random.default_rng(seed)
    image = np.empty((height, width, 3), np.float32)
    image[:] = colour
    if texture == "felt":
        image += rng.normal(0, 6, image.shape)
    elif texture == "wood":
        streaks = np.sin(np.linspace(0, 60, height))[:, None] * 18 + rng.normal(0, 4, (height, width))
        image += streaks[..., None]
    return np.clip(image, 0, 255).astype(np.uint8)


def paint_tile(image: np.ndarray, tile: Painted, *, face=(210, 235, 240), pip=(20, 20, 20),
               bar=None, pin=None, glare: bool = False, shadow: bool = True) -> None:
    """Draw a face-up tile: rounded face, divider bar, pips, optional centre pin and glare."""
    t = np.deg2rad(tile.angle_deg)
    along = np.array([np.cos(t), np.sin(t)])
    across = np.array([-along[1], along[0]])
    c = np.array(tile.center, float)
    w = tile.half_width
    corners = tile.corners()
    if shadow:
        cv2.fillPoly(image, [np.round(corners + w * 0.12).astype(np.int32)],
                     tuple(int(v * 0.55) for v in image[int(c[1]), int(c[0])]), cv2.LINE_AA)
    cv2.fillPoly(image, [np.round(corners).astype(np.int32)], face, cv2.LINE_AA)
    cv2.polylines(image, [np.round(corners).astype(np.int32)], True,
                  tuple(int(v * 0.8) for v in face), max(1, int(w * 0.04)), cv2.LINE_AA)
    bar_colour = bar if bar is not None else pip
    p, q = c - across * w * 0.75, c + across * w * 0.75
    cv2.line(image, tuple(np.round(p).astype(int)), tuple(np.round(q).astype(int)), bar_colour,
             max(2, int(w * 0.09)), cv2.LINE_AA)
    for value, sign in ((tile.a, -1), (tile.b, 1)):
        half_centre = c + sign * along * w
        for x, y in LAYOUT[value]:
            at = half_centre + across * x * w * 0.55 + along * y * w * 0.55
            cv2.circle(image, tuple(np.round(at).astype(int)), max(2, int(w * 0.16)), pip, -1, cv2.LINE_AA)
    if pin is not None:
        cv2.circle(image, tuple(np.round(c).astype(int)), max(2, int(w * 0.14)), pin, -1, cv2.LINE_AA)
    if glare:
        at = c - along * w * 0.6 + across * w * 0.2
        overlay = image.copy()
        cv2.ellipse(overlay, tuple(np.round(at).astype(int)), (int(w * 0.5), int(w * 0.25)),
                    tile.angle_deg, 0, 360, (255, 255, 255), -1, cv2.LINE_AA)
        cv2.addWeighted(overlay, 0.8, image, 0.2, 0, dst=image)


def three_in_a_row_and_one(a: int, b: int) -> tuple[np.ndarray, list[Painted]]:
    """A felt table (900x600) with 1-3, 2-5 and 6-6 in a row and tile `a`-`b` below them at 30
    degrees, every tile of half-width 20: the three read alone give the set's size."""
    image = table(900, 600, colour=(60, 110, 40), seed=4)
    painted = [Painted(1, 3, (200, 200), 0.0, 20.0), Painted(2, 5, (450, 200), 0.0, 20.0),
               Painted(6, 6, (700, 200), 0.0, 20.0), Painted(a, b, (450, 420), 30.0, 20.0)]
    for tile in painted:
        paint_tile(image, tile)
    return image, painted


def paint_back(image: np.ndarray, center, angle_deg: float, half_width: float, colour=(40, 40, 160),
               logo=None) -> None:
    """A face-down tile: a rectangle, plain or with a round `logo` (a colour) printed at its centre."""
    tile = Painted(0, 0, center, angle_deg, half_width)
    cv2.fillPoly(image, [np.round(tile.corners()).astype(np.int32)], colour, cv2.LINE_AA)
    if logo is not None:
        at = tuple(np.round(center).astype(int))
        cv2.circle(image, at, int(half_width * 0.6), logo, max(1, int(half_width * 0.08)), cv2.LINE_AA)
        cv2.circle(image, at, int(half_width * 0.35), logo, -1, cv2.LINE_AA)


@pytest.fixture(scope="session")
def real_photos() -> Path:
    """The shared real photos' folder (the test skips, or fails in CI, without it)."""
    return require_real_photos()


@pytest.fixture(scope="session")
def real_labels(real_photos: Path) -> dict:
    return json.loads((real_photos / "labels.json").read_text(encoding="utf-8"))["images"]
