"""A picture with no face-up tile read is read again turned an eighth (`vision.close_up`): a real
tile that fills its picture at 45 degrees, which the finder frames badly, is then read."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.vision_cropped import Condition, cropped, photo_pictures
from tests.vision.conftest import Painted, paint_back, paint_tile, table
from vision.close_up import confirmed, read_close_up
from vision.geometry import frame_from_corners
from vision.image import checked_bgr
from vision.read import read_image
from vision.types import SeenTile, TableView

NOTHING_READ = TableView(tiles=())


@settings(max_examples=6, deadline=None)
@given(angle=st.floats(0, 180), seed=st.integers(0, 2**16))
def test_the_turned_read_gives_a_tile_filling_its_picture_with_its_corners_in_the_picture(
        angle: float, seed: int) -> None:
    """Whatever its angle, a close-up's tile comes back from the turned read where it lies in the
    picture (not in the turned one's pixels), its `a` half's edge first and its corners wound as a
    first read winds them."""
    image = table(260, 260, seed=seed)
    painted = Painted(2, 5, (130, 130), angle, 44)
    paint_tile(image, painted)
    view = read_close_up(checked_bgr(image), NOTHING_READ, max_pip=6, min_confidence=0.7)
    [tile] = view.tiles
    assert tile.tile == "2-5"
    frame, truth = frame_from_corners(tile.corners), frame_from_corners(painted.corners())
    assert np.linalg.norm(frame.center - truth.center) < 0.25 * truth.half_width
    assert frame.half_length == pytest.approx(truth.half_length, rel=0.2)
    assert abs(float(np.dot(frame.along, truth.along))) > math.cos(math.radians(10))
    # The edge of the half its `a` names: the painted 2's end, or the 5's when read the other way.
    a_edge = painted.corners()[:2] if tile.a == painted.a else painted.corners()[2:]
    assert np.linalg.norm(tile.corners[:2].mean(axis=0) - a_edge.mean(axis=0)) < 0.5 * truth.half_width
    assert _winding(tile.corners) == _winding(read_image(image).tiles[0].corners)  # as a first read's


def _winding(corners: np.ndarray) -> bool:
    (ax, ay), (bx, by) = corners[1] - corners[0], corners[2] - corners[1]
    return bool(ax * by - ay * bx > 0)


def test_only_tiles_the_reader_reads_again_where_they_lie_are_confirmed() -> None:
    """What the small turned picture shows is checked against the picture itself: a tile named
    as the reader reads it there stays; one named otherwise, or laid over bare cloth, goes."""
    image = table(500, 300, seed=5)
    painted = Painted(3, 6, (150, 150), 45, 28)
    paint_tile(image, painted)
    bare = Painted(3, 6, (380, 150), 45, 28).corners().astype(np.float32)
    claims = (SeenTile("3-6", 3, 6, painted.corners().astype(np.float32), 0.9),
              SeenTile("1-1", 1, 1, painted.corners().astype(np.float32), 0.9),
              SeenTile("3-6", 3, 6, bare, 0.9))
    assert confirmed(checked_bgr(image), claims, max_pip=6, min_confidence=0.7) == claims[:1]


def test_a_picture_with_a_face_up_tile_read_is_not_read_again() -> None:
    image = table(400, 300, seed=2)
    paint_tile(image, Painted(1, 3, (200, 150), 45, 30))
    view = read_image(image)
    assert [t.tile for t in view.tiles] == ["1-3"]
    assert read_close_up(checked_bgr(image), view, max_pip=6, min_confidence=0.7) is view


def test_a_picture_of_backs_or_of_nothing_keeps_its_first_read() -> None:
    """The turned read sees no face-up tile here either, so the first read, backs and all, stays."""
    backs = table(500, 400, seed=3)
    for x in (150, 330):
        paint_back(backs, (x, 200), 100, 30)
    for image in (backs, table(500, 400, seed=4)):
        first = read_image(image)
        assert first.tiles == ()
        assert read_close_up(checked_bgr(image), first, max_pip=6, min_confidence=0.7) is first
    assert read_image(backs).face_down == 2


def test_real_tiles_cut_to_fill_their_picture_at_45_degrees_are_read(real_photos: Path) -> None:
    """Before the turned read, 40-50 of the 63 shared photos' tiles so cut were read at each length
    (`benchmarks.vision_cropped`); of these two photos' 7 tiles cut 120 px long, 2."""
    wanted = {"jm-2.jpeg", "jm-7.jpeg"}
    pictures = [p for p in photo_pictures(real_photos) if p.name in wanted]
    assert {p.name for p in pictures} == wanted
    tiles = 0
    for picture in pictures:
        for name, corners in picture.tiles:
            crop, _ = cropped(picture.image, corners, Condition(120, 45.0, 0.0))
            assert [t.tile for t in read_image(crop, max_pip=picture.max_pip).tiles] == [name]
            tiles += 1
    assert tiles == 7
