"""Counting face-down tiles: backs with a printed logo count, and tile-less blocks do not."""

from __future__ import annotations

import numpy as np

from tests.vision.conftest import Painted, paint_back, paint_tile, table
from vision.facedown import find_face_down
from vision.read import read_image

HALF_WIDTH = 36


def _centres(boxes: list[np.ndarray]) -> list[tuple[int, int]]:
    return sorted(tuple(int(v) for v in np.round(box.mean(axis=0))) for box in boxes)


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
    assert _centres(list(view.face_down_corners)) == _centres(
        [Painted(0, 0, c, a, HALF_WIDTH).corners() for c, a, _, _ in backs])


def test_a_sleeve_as_plain_as_a_back_is_not_backs():
    image = table(seed=6)
    paint_back(image, (450, 300), 10, HALF_WIDTH)
    # A forearm in a plain sleeve reaching in from the edge: 1.8 tile lengths wide.
    sleeve = np.array([[0, 420], [380, 470], [350, 700], [0, 700]], np.int32)
    import cv2

    cv2.fillPoly(image, [sleeve], (40, 40, 160), cv2.LINE_AA)
    assert read_image(image).face_down == 1


def test_faces_the_reader_missed_are_not_counted_as_backs():
    """Given no face-up tiles, blocks that show a face (a divider, pips off the centre) stay
    uncounted, while a plain back and a back with a logo count."""
    image = table(seed=7)
    ivory = (210, 235, 240)
    paint_tile(image, Painted(0, 0, (200, 200), 0, HALF_WIDTH), face=ivory, shadow=False)   # blank double
    paint_tile(image, Painted(1, 0, (520, 200), 60, HALF_WIDTH), face=ivory, shadow=False)  # one pip
    paint_back(image, (250, 520), 90, HALF_WIDTH, colour=ivory)
    paint_back(image, (620, 500), 20, HALF_WIDTH, colour=ivory, logo=(120, 40, 40))
    found = find_face_down(image, [], tile_length_px=4 * HALF_WIDTH)
    assert _centres(found) == [(250, 520), (620, 500)]


def test_a_one_pixel_speck_on_a_small_back_leaves_it_a_back() -> None:
    """A low-resolution back is a few dozen pixels: one stray pixel is over the marks' share, and
    a mark of one or two pixels has no shape to measure (its spread was NaN: "not a back")."""
    from vision.facedown import is_back

    lab = np.full((40, 40, 3), (60, 128, 128), np.uint8)
    inside = np.ones((40, 40), np.uint8)
    box = np.array([[15, 14], [23, 14], [23, 24], [15, 24]], np.float32)  # 8 x 10 px
    assert is_back(lab, inside, box)
    lab[19, 19] = (200, 128, 128)
    assert is_back(lab, inside, box)
    lab[19, 16:23] = (200, 128, 128)  # a bar across the middle: a divider, not a back
    assert not is_back(lab, inside, box)
