"""Counting face-down tiles: backs with a printed logo count, and tile-less blocks do not."""

from __future__ import annotations

import numpy as np

from tests.vision.conftest import Painted, paint_back, paint_tile, table
from vision.read import read_image

HALF_WIDTH = 36


def _at(boxes: tuple[np.ndarray, ...], centres: list[tuple[float, float]]) -> bool:
    """Whether there is one box per centre, each within a fifth of the backs' half-width of it."""
    found = [box.mean(axis=0) for box in boxes]
    return len(found) == len(centres) and all(
        any(np.hypot(*(f - np.array(c))) < 0.2 * HALF_WIDTH for f in found) for c in centres)


def test_backs_with_a_printed_logo_are_counted():
    image = table(seed=5)
    backs = [((220, 200), 0, (40, 40, 160), (200, 220, 240)),    # dark red back, light logo
             ((520, 220), 35, (210, 235, 240), (120, 40, 40)),   # ivory back, dark blue logo
             ((330, 520), 90, (210, 235, 240), (30, 30, 170)),
             ((700, 480), 120, (40, 40, 160), (200, 220, 240))]
    for centre, angle, colour, logo in backs:
        paint_back(image, centre, angle, HALF_WIDTH, colour=colour, logo=logo)
    view = read_image(image)
    assert view.tiles == ()
    assert _at(view.face_down_corners, [centre for centre, _, _, _ in backs])


def test_a_sleeve_as_plain_as_a_back_is_not_backs():
    image = table(seed=6)
    paint_back(image, (450, 300), 10, HALF_WIDTH)
    # A forearm in a plain sleeve reaching in from the edge: 1.8 tile lengths wide.
    sleeve = np.array([[0, 420], [380, 470], [350, 700], [0, 700]], np.int32)
    import cv2

    cv2.fillPoly(image, [sleeve], (40, 40, 160), cv2.LINE_AA)
    assert read_image(image).face_down == 1


def test_faces_are_tiles_and_not_backs_beside_plain_and_printed_backs():
    """A blank double and a face with one pip (faces as plain as a back but for a divider and a
    pip) are read as tiles, not counted as backs; a plain back and a back with a logo count."""
    image = table(seed=7)
    ivory = (210, 235, 240)
    paint_tile(image, Painted(0, 0, (200, 200), 0, HALF_WIDTH), face=ivory, shadow=False)   # blank double
    paint_tile(image, Painted(1, 0, (520, 200), 60, HALF_WIDTH), face=ivory, shadow=False)  # one pip
    paint_back(image, (250, 520), 90, HALF_WIDTH, colour=ivory)
    paint_back(image, (620, 500), 20, HALF_WIDTH, colour=ivory, logo=(120, 40, 40))
    view = read_image(image)
    assert sorted(t.tile for t in view.tiles) == ["0-0", "0-1"]
    assert _at(view.face_down_corners, [(250, 520), (620, 500)])
