"""The reader on tables painted with OpenCV: rotations, colours, pins, glare, touching tiles, backs."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.conftest import Painted, paint_back, paint_tile, table
from vision.read import read_image

TOLERANCE_PX = 6.0


def _match(view, painted: list[Painted]) -> None:
    seen = sorted(view.tiles, key=lambda t: tuple(t.corners.mean(axis=0)))
    assert len(view.tiles) == len(painted), [t.tile for t in view.tiles]
    for tile in painted:
        centre = tile.corners().mean(axis=0)
        found = min(view.tiles, key=lambda t: np.linalg.norm(t.corners.mean(axis=0) - centre))
        assert found.tile == f"{min(tile.a, tile.b)}-{max(tile.a, tile.b)}", (tile, found)
        assert np.linalg.norm(found.corners.mean(axis=0) - centre) < TOLERANCE_PX
        # a is the half at corners[0]-corners[1]: the painted a-half is at -along.
        a_edge = (found.corners[0] + found.corners[1]) / 2
        painted_a = (tile.corners()[0] + tile.corners()[1]) / 2
        painted_b = (tile.corners()[2] + tile.corners()[3]) / 2
        nearer_a = np.linalg.norm(a_edge - painted_a) < np.linalg.norm(a_edge - painted_b)
        assert (found.a, found.b) == ((tile.a, tile.b) if nearer_a else (tile.b, tile.a))
        size = sorted(np.linalg.norm(np.roll(found.corners, -1, axis=0) - found.corners, axis=1))
        assert abs(size[0] - 2 * tile.half_width) < TOLERANCE_PX
        assert abs(size[-1] - 4 * tile.half_width) < 2 * TOLERANCE_PX
    assert seen  # every painted tile was matched above


@pytest.mark.parametrize("angle", [0, 17, 45, 90, 133, 200, 290])
def test_any_rotation(angle):
    image = table(texture="felt", seed=angle)
    painted = [Painted(2, 5, (250, 250), angle, 40), Painted(1, 6, (620, 420), angle + 60, 40)]
    for tile in painted:
        paint_tile(image, tile)
    _match(read_image(image), painted)


@pytest.mark.parametrize(("table_colour", "texture", "face", "pip"), [
    ((60, 110, 40), "felt", (210, 235, 240), (20, 20, 20)),      # ivory, black pips, green felt
    ((70, 120, 170), "wood", (245, 245, 245), (40, 40, 200)),    # white, red pips, wood
    ((200, 200, 200), "plain", (250, 250, 250), (160, 60, 20)),  # white, blue pips, plain grey
    ((150, 190, 210), "plain", (25, 25, 25), (240, 240, 240)),   # black tile, white pips, beige
])
def test_tile_and_table_colours(table_colour, texture, face, pip):
    image = table(colour=table_colour, texture=texture)
    painted = [Painted(3, 4, (260, 300), 25, 42), Painted(0, 5, (600, 330), -70, 42),
               Painted(6, 6, (430, 560), 0, 42)]
    for tile in painted:
        paint_tile(image, tile, face=face, pip=pip)
    _match(read_image(image), painted)


def test_centre_pin_and_glare_are_not_pips():
    image = table()
    painted = [Painted(2, 5, (250, 250), 10, 42), Painted(0, 4, (600, 300), 100, 42)]
    paint_tile(image, painted[0], pin=(90, 170, 210), glare=True)
    paint_tile(image, painted[1], pin=(190, 190, 190), glare=True)  # a light steel pin
    _match(read_image(image), painted)


def test_tiles_touching_side_by_side():
    image = table()
    w = 40
    painted = [Painted(2, 3, (300, 300), 90, w), Painted(4, 5, (300 + 2 * w + 2, 300), 90, w),
               Painted(1, 6, (300 + 4 * w + 4, 300), 90, w)]
    for tile in painted:
        paint_tile(image, tile, shadow=False)
    _match(read_image(image), painted)


def test_end_to_end_chain_with_crossed_double_has_joins():
    image = table(width=1100)
    w = 36
    first = Painted(2, 5, (200, 350), 0, w)                      # a=2 left, b=5 right
    double = Painted(5, 5, (200 + 2 * w + w + 2, 350), 90, w)    # crossed: long axis vertical
    last = Painted(5, 1, (200 + 2 * w + 2 * w + 2 * w + 4, 350), 0, w)
    loose = Painted(3, 3, (700, 150), 30, w)
    for tile in (first, double, last, loose):
        paint_tile(image, tile, shadow=False)
    view = read_image(image)
    _match(view, [first, double, last, loose])
    assert sorted(tuple(sorted(j)) for j in view.joins) == [("1-5", "5-5"), ("2-5", "5-5")]


@pytest.mark.xfail(strict=True, reason=(
    "two flat painted backs touching side by side make one square with a hairline seam: the "
    "learned finder (issue 14) proposes neither half, so 2 of 4 backs are counted; rendered "
    "boneyards in rows count exactly; see README, Limits today"))
def test_face_down_tiles_are_counted_and_touching_backs_split():
    image = table()
    backs = [((500, 200), 0), ((500 + 82, 200), 0), ((700, 500), 35), ((250, 560), 90)]
    for centre, angle in backs:
        paint_back(image, centre, angle + 90, 40)
    view = read_image(image)
    assert view.tiles == ()
    assert view.face_down == 4
    assert all(c.shape == (4, 2) for c in view.face_down_corners)


def test_mild_blur_and_jpeg_noise():
    image = table(seed=3)
    painted = [Painted(4, 6, (300, 300), 33, 40), Painted(0, 2, (620, 380), 120, 40)]
    for tile in painted:
        paint_tile(image, tile)
    image = cv2.GaussianBlur(image, (0, 0), 1.2)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 60])
    assert ok
    _match(read_image(cv2.imdecode(data, cv2.IMREAD_COLOR)), painted)


def test_empty_table_has_nothing():
    view = read_image(table())
    assert view.tiles == () and view.face_down == 0 and view.joins == ()
