"""Divider bars found on painted pixels: a pip touching the bar must not tilt the bar."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.marks import envelope_size, find_bars, ink_ratio

PIP = 11.0


def _bar_with_touching_pip(angle_deg: float, side: int) -> tuple[np.ndarray, np.ndarray]:
    """A light face with a dark 40 x 5 px bar at `angle_deg` and a pip touching it near one end,
    where a domino's pip columns meet the divider. Returns the image and the bar's true direction."""
    image = np.full((120, 160, 3), (200, 215, 215), np.uint8)
    centre = np.array([80.0, 60.0])
    theta = np.deg2rad(angle_deg)
    along = np.array([np.cos(theta), np.sin(theta)])
    normal = np.array([-along[1], along[0]])
    length, thick = 40.0, 5.0
    box = [centre + sx * along * length / 2 + sy * normal * thick / 2
           for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    cv2.fillConvexPoly(image, np.round(np.array(box) * 16).astype(np.int32), (20, 20, 20), cv2.LINE_AA, 4)
    pip = centre + along * 0.4 * length + side * normal * (thick / 2 + PIP / 2 - 1)
    cv2.circle(image, tuple(int(v) for v in np.round(pip * 16)), int(PIP / 2 * 16), (20, 20, 20), -1,
               cv2.LINE_AA, 4)
    return image, along


@pytest.mark.parametrize("angle_deg", [0.0, 3.0, 10.0, 30.0, 37.0, 90.0, 135.0])
@pytest.mark.parametrize("side", [-1, 1])
def test_a_touching_pip_does_not_tilt_the_bar(angle_deg, side):
    image, along = _bar_with_touching_pip(angle_deg, side)
    ink = ink_ratio(image, polarity="dark", window=envelope_size(image.shape, PIP))
    bars = find_bars(ink, PIP)
    centre = np.float32([80.0, 60.0])
    off_by = [np.rad2deg(np.arccos(min(1.0, abs(float(bar.direction @ along))))) for bar in bars
              if np.hypot(*(bar.center - centre)) < 2.0]
    # A tile fit that starts more than about two degrees off its bar misses the tile's edges.
    assert off_by and min(off_by) < 1.5, f"bars near the centre are off by {off_by} degrees"


def test_thousands_of_bars_are_straightened_in_blocks():
    """A busy frame holds thousands of bar candidates; OpenCV's remap takes fewer than 2**15 rows."""
    from vision.marks import _straightened

    image, _along = _bar_with_touching_pip(0.0, 1)
    ink = ink_ratio(image, polarity="dark", window=envelope_size(image.shape, PIP))
    bars = [bar for bar in find_bars(ink, PIP, min_elongation=3.0) if bar.length > 35]
    tilted = [bar for bar in bars if abs(float(bar.direction[1])) > 0.05]
    one = _straightened(ink, tilted)
    assert one  # the tilted bar is re-aimed
    many = _straightened(ink, tilted * 2500)
    assert len(many) == 2500 * len(one)
    assert all(np.allclose(bar.direction, one[0].direction) for bar in many[::500])


def _two_collinear_pieces(*, seam: bool, pin: bool) -> np.ndarray:
    """Ink of two 2.6-pip pieces (as their rectangles measure) on one line, 1.4 pips apart: the
    halves of a divider split by a pin, or (with a `seam` crossing the gap) the dividers of two
    tiles lying side by side."""
    pip = 8.0
    ink = np.zeros((200, 300), np.float32)
    cv2.line(ink, (100, 100), (118, 100), 1.0, 2)
    cv2.line(ink, (132, 100), (150, 100), 1.0, 2)
    if seam:
        cv2.line(ink, (125, 40), (125, 160), 0.8, 2)
    if pin:
        cv2.circle(ink, (125, 100), int(pip * 0.4), 0.5, -1)
    return ink


@pytest.mark.parametrize("seam, pin, bridged", [(False, False, True), (False, True, True),
                                                 (True, False, False)])
def test_collinear_pieces_are_bridged_unless_a_seam_crosses_the_gap(seam, pin, bridged):
    """A pin's gap in a divider reached 1.25 pips on small rendered tiles; the dividers of two
    tiles side by side are as close, but the seam between the tiles crosses their gap."""
    bars = find_bars(_two_collinear_pieces(seam=seam, pin=pin), 8.0)
    spanning = [bar for bar in bars if bar.length > 40 and abs(float(bar.direction[0])) > 0.99
                and np.hypot(*(bar.center - np.float32([125, 100]))) < 3]
    assert bool(spanning) is bridged
