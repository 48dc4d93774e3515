"""The empty table as background: a face-up reading where nothing changed since is the table's own."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vision.finder
from tests.vision.conftest import Painted, paint_back, paint_tile, table, three_in_a_row_and_one
from tests.vision.frames import tile_frame
from vision.background import (
    MIN_CHANGED_SHARE,
    REGION_AREA,
    REGION_MOST_FRAMES,
    UNCHANGED,
    Changes,
    changed,
    differs,
    unexplained,
)
from vision.debug import draw_view
from vision.errors import VisionError
from vision.geometry import TileFrame
from vision.read import read_image

LEFT_ON_THE_TABLE = Painted(2, 5, (300, 300), 20.0, 30)  # in the background and the frame alike
PLAYED = Painted(1, 3, (650, 420), 75.0, 30)  # laid after the background was taken
BACK = ((250, 560), 0.0, 30)


def _filmed(image: np.ndarray, seed: int, gain: float = 1.0) -> np.ndarray:
    """`image` as a camera gives it at one moment: its own sensor noise, its own exposure."""
    noise = np.random.default_rng(seed).normal(0, 3, image.shape)
    return np.asarray(np.clip(image.astype(np.float32) * gain + noise, 0, 255), np.uint8)


@pytest.fixture(scope="module")
def pictures() -> tuple[np.ndarray, np.ndarray]:
    """(the empty table, the same table once a tile was played), one camera at two moments."""
    cloth = table(900, 700, colour=(70, 105, 140), texture="wood", seed=5)
    paint_tile(cloth, LEFT_ON_THE_TABLE)
    paint_back(cloth, *BACK)
    later = cloth.copy()
    paint_tile(later, PLAYED)
    return _filmed(cloth, 1), _filmed(later, 2, gain=1.12)


def test_only_what_was_laid_since_has_changed(pictures: tuple[np.ndarray, np.ndarray]) -> None:
    empty, frame = pictures
    mask = changed(frame, empty)
    assert mask.mean() < 0.05  # sensor noise and a brighter exposure are no change
    changes = Changes(frame, empty)
    played = tile_frame(*PLAYED.center, PLAYED.half_width, PLAYED.angle_deg)
    left = tile_frame(*LEFT_ON_THE_TABLE.center, LEFT_ON_THE_TABLE.half_width, LEFT_ON_THE_TABLE.angle_deg)
    assert changes.share(played) > 0.5
    assert changes.share(left) < MIN_CHANGED_SHARE
    # A frame reaching off the image counts its cells there as unchanged.
    assert changes.share(tile_frame(0, 0, 30, 0)) == 0.0


def test_a_reading_of_the_unchanged_table_goes_and_backs_stay(
        pictures: tuple[np.ndarray, np.ndarray]) -> None:
    empty, frame = pictures
    plain = read_image(frame)
    assert sorted(t.tile for t in plain.tiles) == ["1-3", "2-5"] and plain.face_down == 1
    given = read_image(frame, background=empty)
    assert [t.tile for t in given.tiles] == ["1-3"]
    assert given.face_down == 1  # the boneyard is on the table when the hand starts
    played = next(t for t in plain.tiles if t.tile == "1-3")
    assert np.array_equal(given.tiles[0].corners, played.corners)
    # The dropped reading is in the verdicts `--debug` draws, with the share of its cells changed.
    unchanged = [v for v in given.candidates if v.kind == UNCHANGED]
    assert len(unchanged) == 1 and unchanged[0].confidence < MIN_CHANGED_SHARE
    assert np.linalg.norm(unchanged[0].corners.mean(axis=0) - LEFT_ON_THE_TABLE.center) < 10
    drawn = draw_view(frame, given)
    x0, y0 = np.floor(unchanged[0].corners.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(unchanged[0].corners.max(axis=0)).astype(int) + 3
    assert np.any(np.all(drawn[y0:y1, x0:x1] == (0, 120, 255), axis=2))  # its outline, in orange


def test_a_textured_table_read_as_a_tile_reads_as_nothing_beside_its_empty_picture() -> None:
    pytest.importorskip("vision.synth.widened", reason="vision.synth is not in this checkout")
    from vision.synth.widened import (
        render_widened,
        render_widened_empty,
        render_widened_empty_of,
        widened_renderer,
    )

    # Tuning frame 10063: planks and a low-resolution webcam, no tile. The reader alone takes a
    # knot in the wood for a blank double; its empty picture shows the knot was always there.
    frame, empty = render_widened(10063), render_widened_empty(10063)
    # The benchmark draws both from one renderer (`widened_renderer`): the same pictures.
    renderer, scene = widened_renderer(10063)
    together = renderer.render(scene, 10063), render_widened_empty_of(renderer, scene, 10063)
    assert np.array_equal(together[0].image, frame.image) and np.array_equal(together[1].image, empty.image)
    assert frame.labels["tiles"] == [] and frame.image.shape == empty.image.shape
    assert not np.array_equal(frame.image, empty.image)  # another moment's sensor noise
    assert read_image(frame.image, background=empty.image).tiles == ()


def test_a_background_of_another_size_or_kind_is_refused(pictures: tuple[np.ndarray, np.ndarray]) -> None:
    empty, frame = pictures
    with pytest.raises(VisionError, match="background is 450x350 px but the image is 900x700"):
        read_image(frame, background=empty[::2, ::2])
    with pytest.raises(VisionError, match="background: expected dtype uint8"):
        read_image(frame, background=empty.astype(np.float32))
    with pytest.raises(VisionError, match="background: expected a numpy array"):
        read_image(frame, background="empty.png")  # type: ignore[arg-type]
    # Grey and BGRA pictures are converted, as for the image.
    assert "1-3" in [t.tile for t in read_image(frame, background=empty[..., 0]).tiles]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([np.uint8, np.int16]), st.sampled_from([(), (3,)]), st.integers(1, 40),
       st.integers(1, 40), st.integers(0, 255), st.integers(0, 2**32 - 1))
def test_differs_is_the_largest_channel_difference_over_the_level(dtype: type, channels: tuple[int, ...],
                                                                  height: int, width: int, level: int,
                                                                  seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, b = (rng.integers(0, 256, (height, width, *channels)).astype(dtype) for _ in range(2))
    difference = np.abs(a.astype(np.int32) - b.astype(np.int32))
    expected = (difference.max(axis=2) if channels else difference) > level
    assert np.array_equal(differs(a, b, level), expected)


def _laid(frames: list, size: tuple[int, int] = (400, 300)) -> Changes:
    """The changes of a dark empty table once light rectangles were laid over `frames`."""
    empty = np.full((size[1], size[0], 3), 40, np.uint8)
    later = empty.copy()
    for frame in frames:
        cv2.fillConvexPoly(later, np.round(frame.corners()).astype(np.int32), (220, 220, 220), cv2.LINE_AA)
    return Changes(later, empty)


def _angle_between(first: np.ndarray, second: np.ndarray) -> float:
    """Degrees between two axes, either way round (0..90)."""
    return math.degrees(math.acos(min(1.0, abs(float(np.dot(first, second))))))


@settings(max_examples=80, deadline=None)
@given(x=st.floats(80, 320), y=st.floats(80, 220), degrees=st.floats(0, 180), half_width=st.floats(8, 30),
       sized=st.booleans())
def test_a_changed_region_of_a_tiles_shape_is_proposed_along_it(x, y, degrees, half_width, sized) -> None:
    laid = tile_frame(x, y, half_width, degrees)
    size = (half_width, 2 * half_width) if sized else None
    [proposed] = unexplained(_laid([laid]), [], size)
    # Within a few px (the regions are sought in a shrunk mask), well within the reader's reach.
    assert np.linalg.norm(proposed.center - laid.center) < 1 + 0.1 * half_width
    assert _angle_between(proposed.across, laid.across) < 4.0
    if sized:  # the set's size, not the region's (which has the blur's rim)
        assert (proposed.half_width, proposed.half_length) == size
    else:
        assert proposed.half_width == pytest.approx(half_width, abs=3)
        assert proposed.half_length == pytest.approx(2 * half_width, abs=3)
    # A reading there explains it; one elsewhere does not.
    assert unexplained(_laid([laid]), [laid], size) == []
    elsewhere = tile_frame((x + 200) % 400, (y + 150) % 300, half_width, degrees)
    assert len(unexplained(_laid([laid]), [elsewhere], size)) == (
        0 if np.linalg.norm(elsewhere.center - laid.center) < 3 * half_width else 1)


def _nearest(frames: list[TileFrame], tile: TileFrame) -> TileFrame:
    return min(frames, key=lambda frame: float(np.linalg.norm(frame.center - tile.center)))


def test_regions_of_a_few_tiles_are_looked_at_as_the_tiles_that_fill_them() -> None:
    size = (15.0, 30.0)
    line = [tile_frame(110 + 60 * i, 80, 15, 0) for i in range(3)]  # end to end, as a line of play
    doubles = [tile_frame(140 + 30 * i, 220, 15, 90) for i in range(3)]  # side by side
    proposed = unexplained(_laid(line + doubles), [], size)
    for tile in line + doubles:
        nearest = _nearest(proposed, tile)
        assert np.linalg.norm(nearest.center - tile.center) < 3
        assert _angle_between(nearest.across, tile.across) < 4
    assert len(proposed) <= 2 * len(line + doubles)  # each box filled along it, and across it
    # A reading explains its own tile: the rest are still looked at, a little off where the
    # reading's grown frame (`EXPLAINED_GROWTH`) took a strip off its neighbour, well within the
    # half of a half-width the reader pulls a frame back from.
    rest = unexplained(_laid(line), line[:1], size)
    assert len(rest) == 2
    assert all(np.linalg.norm(_nearest(rest, t).center - t.center) < 0.6 * 15 for t in line[1:])


def test_regions_not_of_a_tiles_size_or_shape_are_not_proposed() -> None:
    size = (15.0, 30.0)
    across = np.array([0, 1], np.float32)
    # A square of a tile's area, a blob of a third of it, one of twenty tiles' area, an arm's strip.
    square = TileFrame(np.array([100, 100], np.float32), across, math.sqrt(15 * 30), math.sqrt(15 * 30))
    small = tile_frame(300, 80, 15 / math.sqrt(3), 10)
    large = TileFrame(np.array([200, 150], np.float32), across, 15 * math.sqrt(20), 30 * math.sqrt(20))
    strip = TileFrame(np.array([300, 220], np.float32), across, 6.0, 90.0)
    assert unexplained(_laid([square]), [], size) != []  # as large as a tile and as full: the reader decides
    for region in (small, large):
        assert unexplained(_laid([region], size=(600, 400)), [], size) == [], region
    assert REGION_AREA[1] < 20
    # Without the set's size, only a region of a tile's aspect, looked at as one tile.
    assert unexplained(_laid([square]), [], None) == []
    assert unexplained(_laid([strip]), [], None) == []
    line = [tile_frame(110 + 60 * i, 80, 15, 0) for i in range(3)]
    assert unexplained(_laid(line), [], None) == []
    assert len(unexplained(_laid([tile_frame(200, 150, 15, 30)]), [], None)) == 1


def test_a_picture_changed_everywhere_costs_a_bounded_look() -> None:
    # A camera nudged over a patterned cloth: a changed blob of a tile's size every 40 px.
    size = (10.0, 20.0)
    blobs = [tile_frame(x, y, 10, 0) for x in range(30, 1900, 60) for y in range(20, 1060, 40)]
    assert len(blobs) > REGION_MOST_FRAMES
    proposed = unexplained(_laid(blobs, size=(1920, 1080)), [], size)
    assert len(proposed) == REGION_MOST_FRAMES


def test_a_tile_the_finder_missed_is_read_from_the_region_that_changed(monkeypatch) -> None:
    image, painted = three_in_a_row_and_one(2, 4)
    empty = table(900, 600, colour=(60, 110, 40), seed=4)
    for tile in painted[:3]:
        paint_tile(empty, tile)
    image, empty = _filmed(image, 1), _filmed(empty, 2)
    finder = vision.finder.shipped_finder()
    find, missed = finder.find, np.array(painted[-1].center, np.float32)
    reach = 2 * painted[-1].half_width
    monkeypatch.setattr(finder, "find", lambda picture, **kwargs: [
        f for f in find(picture, **kwargs) if np.linalg.norm(f.frame.center - missed) > reach])
    assert "2-4" not in {t.tile for t in read_image(image).tiles}
    # Given the empty table, the three laid before it are the table's own; the one laid since is read.
    [tile] = read_image(image, background=empty).tiles
    assert tile.tile == "2-4"
    assert np.linalg.norm(tile.corners.mean(axis=0) - missed) < 3
