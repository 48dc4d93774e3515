"""The finder at reading time: its pyramid, one candidate per tile, and the shipped model."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.vision.conftest import Painted, paint_tile, table
from tests.vision.frames import tile_frame
from vision.finder import (
    CLOSER_LENGTH,
    CLOSER_MAX_SIDE,
    CLOSER_STEP,
    MAX_ENLARGE,
    MIN_LEVEL_SIDE,
    SIZE_QUORUM,
    SIZE_SURE,
    SMALL_TILE_LENGTH,
    TOP_SIDE,
    Found,
    closer_scale,
    level_images,
    levels,
    one_per_tile,
    shipped_finder,
)


def test_the_pyramid_halves_from_the_top_level_down_to_the_smallest() -> None:
    assert levels((1080, 1920, 3))[0] == pytest.approx(TOP_SIDE / 1920)
    assert levels((100, 150, 3))[0] == pytest.approx(2.0)  # a small photo is enlarged, at most twice
    for shape in [(1080, 1920), (3000, 4000), (120, 90), (16, 16)]:
        scales = levels(shape)
        assert all(b == pytest.approx(a / 2) for a, b in itertools.pairwise(scales))
        assert max(shape) * scales[-1] >= MIN_LEVEL_SIDE or len(scales) == 1
        assert max(shape) * scales[-1] / 2 < MIN_LEVEL_SIDE


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
       side=st.sampled_from([(360, 640), (1080, 1920), (3000, 4000)]))
def test_small_tiles_are_looked_at_once_more_closer_and_at_a_bounded_size(half_width, count, side) -> None:
    top = levels(side)[0]
    sure = [Found(tile_frame(50 + 10 * i, 50, half_width, 0), True, SIZE_SURE) for i in range(count)]
    unsure = [Found(tile_frame(50, 90, 1.0, 0), True, SIZE_SURE / 2)] * 5  # tiny, but not sure: no vote
    closer = closer_scale(sure + unsure, side, top)
    small = 4 * half_width * top < SMALL_TILE_LENGTH
    if count < SIZE_QUORUM or not small:
        assert closer is None
        return
    if closer is not None:
        assert top * CLOSER_STEP < closer <= MAX_ENLARGE
        assert max(side) * closer <= CLOSER_MAX_SIDE + 1e-6
        assert 4 * half_width * closer <= CLOSER_LENGTH + 1e-6
    else:  # already as large as the bounds allow
        bound = min(MAX_ENLARGE, CLOSER_LENGTH / (4 * half_width), CLOSER_MAX_SIDE / max(side))
        assert bound <= top * CLOSER_STEP


@pytest.mark.parametrize(("half_width", "closer"), [(10.0, True), (40.0, False)])
def test_only_a_picture_of_small_tiles_is_looked_at_once_more_closer(half_width, closer, monkeypatch) -> None:
    image = table(1920, 1080, colour=(60, 110, 40), seed=2)
    painted = [Painted(1, 3, (300, 250), 0.0, half_width), Painted(2, 5, (700, 400), 60.0, half_width),
               Painted(6, 6, (1000, 250), 100.0, half_width), Painted(0, 4, (1300, 600), 30.0, half_width)]
    for tile in painted:
        paint_tile(image, tile)
    finder = shipped_finder()
    widths: list[int] = []
    answer = finder.answer
    monkeypatch.setattr(finder, "answer", lambda x: widths.append(x.shape[3]) or answer(x))
    found = [f for f in finder.find(image) if f.face_up and f.score > 0.3]
    pyramid = len(levels(image.shape))
    assert len(widths) == pyramid + closer
    if closer:  # one more level, larger than the pyramid's top and within its bound
        assert widths[0] < widths[-1] <= CLOSER_MAX_SIDE + 64
    for tile in painted:
        centre = np.array(tile.center, np.float32)
        assert any(np.linalg.norm(f.frame.center - centre) < 0.5 * tile.half_width for f in found), tile
