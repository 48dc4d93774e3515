"""A calibrated camera's picture read on the table's plane (`vision.rectify`)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.vision.conftest import Painted, paint_tile, table
from vision.calibration import Calibration, TableLayout
from vision.errors import VisionError
from vision.image import MIN_SIDE
from vision.plane import polygon_area, project
from vision.read import read_image
from vision.rectify import MAX_RECTIFIED_SIDE, cropped, rectify
from vision.types import SeenTile

TABLE_MM = (900, 700)  # the painted table, 1 px a millimetre seen from above
SIZE = (1280, 720)  # the camera's picture
TILES = [Painted(2, 5, (150, 110), 0.0, 15), Painted(1, 3, (450, 90), 90.0, 15),
         Painted(4, 6, (750, 120), 30.0, 15), Painted(0, 6, (450, 350), 0.0, 15),
         Painted(3, 3, (140, 600), 90.0, 15), Painted(2, 4, (760, 610), 180.0, 15)]
LAYOUT = TableLayout(width_mm=TABLE_MM[0], height_mm=TABLE_MM[1], tile_length_mm=60.0, tile_width_mm=30.0)


def oblique_camera(far_over_near: float) -> np.ndarray:
    """table mm -> picture px: a camera leaning over the table's near edge, the far edge
    `far_over_near` as wide as the near one."""
    width, height = SIZE
    near = width * 0.9
    far = near * far_over_near
    picture = np.array([[(width - far) / 2, height * 0.06], [(width + far) / 2, height * 0.06],
                        [(width + near) / 2, height * 0.96], [(width - near) / 2, height * 0.96]], np.float32)
    corners = np.array([[0, 0], [TABLE_MM[0], 0], [TABLE_MM[0], TABLE_MM[1]], [0, TABLE_MM[1]]], np.float32)
    return cv2.getPerspectiveTransform(corners, picture).astype(np.float64)


def filmed(far_over_near: float) -> tuple[np.ndarray, Calibration]:
    top_down = table(*TABLE_MM, seed=7)
    for tile in TILES:
        paint_tile(top_down, tile)
    table_to_image = oblique_camera(far_over_near)
    picture = cv2.warpPerspective(top_down, table_to_image, SIZE, flags=cv2.INTER_AREA,
                                  borderMode=cv2.BORDER_CONSTANT, borderValue=(90, 90, 90))
    return picture, Calibration(np.linalg.inv(table_to_image), LAYOUT, SIZE)


def on_table(calibration: Calibration, corners: np.ndarray) -> np.ndarray:
    return project(calibration.image_to_table, corners)


def assert_seen_where_painted(seen: SeenTile, calibration: Calibration) -> None:
    """`seen`'s corners are the picture's px, clockwise on screen, and on the table they lie on
    the painted tile of its values, with the half of value `seen.a` between corners 0 and 1."""
    painted = next(t for t in TILES if {t.a, t.b} == {seen.a, seen.b})
    assert polygon_area(np.asarray(seen.corners, np.float64)) > 0
    corners = on_table(calibration, seen.corners)
    centre = corners.mean(axis=0)
    assert np.linalg.norm(centre - painted.center) < 4
    if painted.a != painted.b:
        along = np.array([np.cos(np.deg2rad(painted.angle_deg)), np.sin(np.deg2rad(painted.angle_deg))])
        a_half = np.asarray(painted.center) + (-1 if seen.a == painted.a else 1) * along * painted.half_width
        assert np.linalg.norm((corners[:2].mean(axis=0) + centre) / 2 - a_half) < 6


def test_a_leaning_camera_is_read_on_the_table_where_every_tile_has_one_size() -> None:
    picture, calibration = filmed(0.45)  # a tile at the back is under half as long as at the front
    view = read_image(picture, calibration=calibration)
    assert sorted(t.tile for t in view.tiles) == sorted(f"{min(t.a, t.b)}-{max(t.a, t.b)}" for t in TILES)
    for seen in view.tiles:
        assert_seen_where_painted(seen, calibration)
    # one tile length for the whole picture (its centre's) fits only part of it
    length = float(np.linalg.norm(np.diff(project(np.linalg.inv(calibration.image_to_table),
                                                  np.array([[420.0, 350.0], [480.0, 350.0]])), axis=0)))
    assert len(read_image(picture, tile_length_px=length).tiles) < len(TILES)


def test_a_mirrored_camera_keeps_corners_clockwise() -> None:
    picture, calibration = filmed(0.6)
    mirror = np.array([[-1.0, 0.0, SIZE[0] - 1], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    mirrored = Calibration(calibration.image_to_table @ mirror, LAYOUT, SIZE)
    view = read_image(np.ascontiguousarray(picture[:, ::-1]), calibration=mirrored)
    assert len(view.tiles) == len(TILES)
    for seen in view.tiles:
        assert_seen_where_painted(seen, mirrored)


def test_the_empty_table_as_background_works_rectified() -> None:
    picture, calibration = filmed(0.6)
    assert read_image(picture, calibration=calibration, background=picture).tiles == ()


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 1200), st.integers(0, 650), st.integers(16, 400), st.integers(16, 300),
       st.floats(0, 1), st.floats(0, 1))
def test_a_part_of_the_picture_sees_the_table_as_the_whole_does(
        x0: int, y0: int, width: int, height: int, u: float, v: float) -> None:
    _, calibration = filmed(0.5)
    part = cropped(calibration, x0, y0, width, height)
    assert part.image_size == (width, height)
    point = np.array([[u * width, v * height]])
    whole = on_table(calibration, point + np.array([x0, y0]))
    np.testing.assert_allclose(on_table(part, point), whole, atol=1e-6)


def test_a_picture_of_none_of_the_table_shows_no_tile() -> None:
    picture, calibration = filmed(0.6)
    elsewhere = Calibration(calibration.image_to_table @ np.array([[1.0, 0, 5000], [0, 1, 0], [0, 0, 1]]),
                            LAYOUT, SIZE)
    assert rectify(picture, elsewhere) is None
    assert read_image(picture, calibration=elsewhere).tiles == ()


def test_the_rectified_picture_is_bounded_whatever_the_calibration_says() -> None:
    picture, calibration = filmed(0.6)
    tiny_tiles = TableLayout(width_mm=TABLE_MM[0], height_mm=TABLE_MM[1], tile_length_mm=0.5,
                             tile_width_mm=0.25)
    # a table a kilometre long and a millimetre wide, each picture px 1 m by 1/720 mm of it
    thin = TableLayout(width_mm=1e6, height_mm=1.0)
    stretched = np.diag([1000.0, 1 / SIZE[1], 1.0])
    for matrix, layout in ((calibration.image_to_table, LAYOUT), (calibration.image_to_table, tiny_tiles),
                           (stretched, thin)):
        rectified = rectify(picture, Calibration(matrix, layout, SIZE))
        assert rectified is not None
        height, width = rectified.image.shape[:2]
        assert width * height <= 1920 * 1080 * 1.01 or min(width, height) == MIN_SIDE
        assert max(width, height) <= MAX_RECTIFIED_SIDE + 1
        assert rectified.tile_length_px <= 240.0 + 1e-6


def test_a_calibration_that_puts_the_table_behind_the_camera_is_refused() -> None:
    # the table's far part (beyond x = 500 mm) lies behind the camera, and the picture holds the
    # horizon (at x = 140 px), so no part of it bounds the table
    table_to_image = np.array([[1.0, 0.0, 640.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]) @ np.array(
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [-0.002, 0.0, 1.0]])
    behind = Calibration(np.linalg.inv(table_to_image), LAYOUT, SIZE)
    with pytest.raises(VisionError, match="horizon"):
        read_image(np.zeros((SIZE[1], SIZE[0], 3), np.uint8), calibration=behind)


@pytest.mark.parametrize(("options", "named"), [
    ({"calibration": "table.json"}, "Calibration"),
    ({"calibration": Calibration(np.zeros((3, 3)), LAYOUT, SIZE)}, "invertible"),
    ({"calibration": Calibration(np.eye(3), LAYOUT, (640, 480))}, "640x480"),
    ({"calibration": Calibration(np.eye(3), LAYOUT, SIZE), "tile_length_px": 40.0}, "not both"),
])
def test_a_calibration_that_cannot_be_used_is_refused_by_name(options: dict, named: str) -> None:
    with pytest.raises(VisionError, match=named):
        read_image(np.zeros((SIZE[1], SIZE[0], 3), np.uint8), **options)
