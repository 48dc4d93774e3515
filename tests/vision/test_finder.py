"""The finder at reading time: its pyramid, one candidate per tile, and the shipped model."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vision.finder
from tests.vision.conftest import Painted, paint_tile, table
from tests.vision.frames import tile_frame
from vision.finder import (
    ALIGN,
    CLOSER_LENGTH,
    CLOSER_MAX_SIDE,
    CLOSER_REACH,
    CLOSER_STEP,
    LENGTHS,
    MARGIN,
    MAX_ENLARGE,
    SIZE_QUORUM,
    SIZE_SURE,
    SMALL_TILE_LENGTH,
    TOP_SIDE,
    CloserLook,
    Found,
    closer_look,
    level_images,
    levels,
    one_per_tile,
    shipped_finder,
)
from vision.read import read_image


def test_the_pyramid_halves_from_the_top_level_down_to_the_smallest() -> None:
    assert levels((1080, 1920, 3))[0] == pytest.approx(TOP_SIDE / 1920)
    assert levels((100, 150, 3))[0] == pytest.approx(2.0)  # a small photo is enlarged, at most twice
    for shape in [(1080, 1920), (3000, 4000), (120, 90), (60, 120), (16, 16)]:
        scales = levels(shape)
        assert all(b == pytest.approx(a / 2) for a, b in itertools.pairwise(scales))
        # Down to the first level where a tile as long as the picture is one the finder knows.
        assert max(shape) * scales[-1] <= LENGTHS[1]
        assert max(shape) * scales[-1] * 2 > LENGTHS[1] or len(scales) == 1
    # A 1080p frame's pyramid is 768, 384, 192 and 96 px: a tile filling it is found at 96.
    assert [round(1920 * s) for s in levels((1080, 1920))] == [768, 384, 192, 96]


@pytest.mark.parametrize("length", [60, 120])
def test_a_tile_that_fills_a_small_picture_is_read(length: int) -> None:
    # A picture cropped to one tile, as a dataset of single tiles holds them: no table round it,
    # upright and on its side. Before the pyramid went below 64 px a side, a 120-px tile lay
    # beyond the finder's lengths at every level, and most such crops were read as nothing.
    from benchmarks.vision_cropped import Condition, cropped
    from vision.synth.dataset import render_example

    frame = render_example(2)
    for tile in frame.labels["tiles"][:6]:  # type: ignore[index]
        crop, _ = cropped(frame.image, np.array(tile["corners"], np.float32), Condition(length, 0.0, 0.0))
        for turns in (0, 1):
            view = read_image(np.ascontiguousarray(np.rot90(crop, turns)))
            assert [t.tile for t in view.tiles] == [tile["tile"]], (tile["tile"], turns)


@settings(max_examples=40, deadline=None)
@given(st.integers(24, 400), st.integers(24, 400), st.integers(0, 2**32 - 1))
def test_each_level_is_the_image_averaged_down_within_rounding(height: int, width: int, seed: int) -> None:
    # A level halved from the one before it differs from the image averaged down at once only
    # by the roundings on the way: half a grey level a step.
    image = np.random.default_rng(seed).integers(0, 256, (height, width, 3), np.uint8)
    scales = levels(image.shape)
    for step, (scale, (level, factors)) in enumerate(zip(scales, level_images(image, scales), strict=True)):
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        assert (level.shape[1], level.shape[0]) == size
        assert factors == (size[0] / width, size[1] / height)
        direct = cv2.resize(image, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        assert int(np.abs(level.astype(int) - direct.astype(int)).max()) <= step


def test_a_tile_found_at_two_levels_is_one_candidate_and_neighbours_stay() -> None:
    tile = tile_frame(100, 100, 20, 0)
    again = tile_frame(104, 101, 22, 3)  # the same tile from the next level
    neighbour = tile_frame(180, 100, 20, 0)  # laid end to end with it
    seam = tile_frame(140, 100, 20, 0)  # between the two: must hide neither
    found = [Found(again, True, 0.5), Found(tile, True, 0.9), Found(neighbour, True, 0.4),
             Found(seam, True, 0.6), Found(tile, False, 0.3)]
    kept = one_per_tile(found)
    assert [f.score for f in kept] == [0.9, 0.6, 0.4, 0.3]  # the back's heat is its own candidate
    assert one_per_tile([]) == []


def test_a_candidate_across_tiles_laid_side_by_side_hides_neither() -> None:
    # A hand shown at the end of a play, its tiles side by side: a coarser level sees the pair as
    # one wider tile lying across them, likelier than either, at nearly their centres.
    first, second = tile_frame(100, 100, 20, 90), tile_frame(140, 100, 20, 90)
    across_both = tile_frame(120, 100, 27, 0)
    kept = one_per_tile([Found(across_both, True, 0.9), Found(first, True, 0.6), Found(second, True, 0.5)])
    assert [f.score for f in kept] == [0.9, 0.6, 0.5]
    # The same tile seen a little turned at another level is still one candidate.
    turned = tile_frame(103, 101, 22, 75)
    assert [f.score for f in one_per_tile([Found(first, True, 0.6), Found(turned, True, 0.5)])] == [0.6]


def test_the_shipped_finder_finds_each_painted_tile_at_its_place() -> None:
    image = table(1280, 720, colour=(60, 110, 40), seed=1)
    painted = [Painted(1, 3, (300, 250), 0.0, 22), Painted(2, 5, (700, 400), 60.0, 22),
               Painted(6, 6, (1000, 250), 100.0, 22)]
    for tile in painted:
        paint_tile(image, tile)
    found = [f for f in shipped_finder().find(image) if f.face_up and f.score > 0.3]
    for tile in painted:
        centre = np.array(tile.center, np.float32)
        assert any(np.linalg.norm(f.frame.center - centre) < 0.5 * tile.half_width for f in found), tile
    # With a calibration's tile length, one level: the same tiles.
    calibrated = [f for f in shipped_finder().find(image, tile_length_px=88.0) if f.face_up and f.score > 0.3]
    for tile in painted:
        centre = np.array(tile.center, np.float32)
        assert any(np.linalg.norm(f.frame.center - centre) < 0.5 * tile.half_width for f in calibrated), tile


def test_a_blank_image_has_no_tile_and_any_size_is_looked_at() -> None:
    for shape in [(16, 16, 3), (40, 700, 3), (1080, 1920, 3)]:
        assert [f for f in shipped_finder().find(np.full(shape, 128, np.uint8)) if f.score > 0.5] == []


@settings(max_examples=60, deadline=None)
@given(half_width=st.floats(2.0, 80.0), count=st.integers(0, 8),
       side=st.sampled_from([(360, 640), (1080, 1920), (3000, 4000)]),
       corner=st.tuples(st.floats(-100.0, 4100.0), st.floats(-100.0, 3100.0)))
def test_small_tiles_are_looked_at_once_more_closer_round_the_sure_ones_at_a_bounded_size(
        half_width, count, side, corner) -> None:
    top = levels(side)[0]
    sure = [Found(tile_frame(corner[0] + 10 * i, corner[1], half_width, 0), True, SIZE_SURE)
            for i in range(count)]
    unsure = [Found(tile_frame(5, 5, 1.0, 0), True, SIZE_SURE / 2)] * 5  # tiny, but not sure: no vote
    closer = closer_look(sure + unsure, side, top)
    small = 4 * half_width * top < SMALL_TILE_LENGTH
    if count < SIZE_QUORUM or not small:
        assert closer is None
        return
    if closer is None:  # already as large as the bounds allow
        bound = min(MAX_ENLARGE, CLOSER_LENGTH / (4 * half_width), CLOSER_MAX_SIDE / max(side))
        assert bound <= top * CLOSER_STEP
        return
    assert top * CLOSER_STEP < closer.scale <= MAX_ENLARGE
    assert max(side) * closer.scale <= CLOSER_MAX_SIDE + 1e-6
    assert 4 * half_width * closer.scale <= CLOSER_LENGTH + 1e-6
    left, upper, right, lower = closer.window
    assert 0 <= left < right <= side[1] and 0 <= upper < lower <= side[0]  # never empty, within the image
    reach = CLOSER_REACH * 4 * half_width  # every sure centre, and that much round it within the image
    for found in sure:
        x, y = found.frame.center
        if 0 <= x < side[1]:
            assert left <= max(0.0, x - reach) and min(side[1], x + reach) <= right
        if 0 <= y < side[0]:
            assert upper <= max(0.0, y - reach) and min(side[0], y + reach) <= lower


@pytest.mark.parametrize(("half_width", "closer"), [(10.0, True), (40.0, False)])
def test_only_a_picture_of_small_tiles_is_looked_at_once_more_closer(half_width, closer, monkeypatch) -> None:
    image = table(1920, 1080, colour=(60, 110, 40), seed=2)
    painted = [Painted(1, 3, (300, 250), 0.0, half_width), Painted(2, 5, (700, 400), 60.0, half_width),
               Painted(6, 6, (1000, 250), 100.0, half_width), Painted(0, 4, (1300, 600), 30.0, half_width)]
    for tile in painted:
        paint_tile(image, tile)
    finder = shipped_finder()
    sizes: list[tuple[int, int]] = []
    answer = finder.answer
    monkeypatch.setattr(finder, "answer", lambda x: sizes.append(x.shape[2:]) or answer(x))
    looks: list[CloserLook | None] = []
    look = vision.finder.closer_look
    monkeypatch.setattr(vision.finder, "closer_look", lambda *args: looks.append(look(*args)) or looks[-1])
    found = [f for f in finder.find(image) if f.face_up and f.score > 0.3]
    pyramid = len(levels(image.shape))
    assert len(sizes) == pyramid + closer
    if closer:  # one more level, larger than the pyramid's top, over the box round the tiles alone
        assert looks[-1] is not None
        left, upper, right, lower = looks[-1].window
        assert all(left < tile.center[0] < right and upper < tile.center[1] < lower for tile in painted)
        assert right - left < 1920 * 3 // 4 and lower - upper < 1080 * 3 // 4
        assert looks[-1].scale > levels(image.shape)[0]
        for side, (start, end) in zip(sizes[-1], [(upper, lower), (left, right)], strict=True):
            window = (end - start) * looks[-1].scale + 2 * MARGIN  # level px, and its grey margin
            assert window <= side < window + 2 * ALIGN + 1  # its corner on the grid, its side aligned
    for tile in painted:
        centre = np.array(tile.center, np.float32)
        assert any(np.linalg.norm(f.frame.center - centre) < 0.5 * tile.half_width for f in found), tile


def test_the_closer_window_is_answered_as_the_whole_level_would_be() -> None:
    image = table(1920, 1080, colour=(60, 110, 40), seed=3)
    painted = [Painted(1, 3, (500, 400), 20.0, 10.0), Painted(5, 5, (640, 470), 80.0, 10.0),
               Painted(2, 4, (820, 380), 0.0, 10.0), Painted(0, 6, (1500, 900), 45.0, 10.0)]
    for tile in painted:
        paint_tile(image, tile)
    finder = shipped_finder()
    scale = 0.6
    window = CloserLook(scale, (301, 203, 1101, 703))  # round the first three tiles, off the grid
    inside = finder._closer(image, window, 0.2)
    whole = finder._at(image, [scale], 0.2)
    left, upper, right, lower = window.window
    def well_inside(found: Found) -> bool:  # further from the window's edges than the network sees
        x, y = found.frame.center
        return left + 80 < x < right - 80 and upper + 80 < y < lower - 80

    def key(found: Found) -> tuple[bool, int, int]:
        return found.face_up, round(float(found.frame.center[0])), round(float(found.frame.center[1]))

    expected = sorted((f for f in whole if well_inside(f)), key=key)
    got = sorted((f for f in inside if well_inside(f)), key=key)
    assert len(expected) >= 3 and len(got) == len(expected)
    for a, b in zip(got, expected, strict=True):
        assert a.face_up == b.face_up and abs(a.score - b.score) < 1e-3
        assert np.allclose(a.frame.center, b.frame.center, atol=0.05)
        assert abs(a.frame.half_length - b.frame.half_length) < 0.05
    assert not any(f.frame.center[0] > 1200 for f in inside)  # the fourth tile lies outside the window
