"""The working scale: an input of any resolution is read on a bounded image, and what is found is
mapped back to the input's pixels."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vision.finder as finder
import vision.pipeline as pipeline
from tests.vision.conftest import Painted, paint_back, paint_tile, table
from vision.errors import VisionError
from vision.read import read_image
from vision.scale import MAX_WORK_PIXELS, WORK_TILE_LENGTH_PX, coarse_factor, shrink

GROW = 2.4  # 1920x1080 -> 4608x2592, 11.9 megapixels


def _hd_table() -> np.ndarray:
    image = table(1920, 1080, colour=(70, 100, 50), seed=3)
    for k, (a, b) in enumerate([(1, 3), (2, 5), (6, 6), (0, 4), (3, 5)]):
        paint_tile(image, Painted(a, b, (300 + 330 * k, 420 + 90 * (k % 2)), 25.0 * k, 34))
    paint_back(image, (900, 850), 90, 34)
    return image


@pytest.fixture(scope="module")
def hd_and_big() -> tuple[np.ndarray, np.ndarray]:
    hd = _hd_table()
    return hd, cv2.resize(hd, None, fx=GROW, fy=GROW, interpolation=cv2.INTER_CUBIC)


def _by_tile(view: Any) -> dict[str, np.ndarray]:
    return {t.tile: t.corners for t in view.tiles}


def test_a_12_megapixel_photo_reads_as_its_1080p_frame_in_its_own_pixels(hd_and_big) -> None:
    hd, big = hd_and_big
    small, large = read_image(hd), read_image(big)
    assert sorted(_by_tile(small)) == ["0-4", "1-3", "2-5", "3-5", "6-6"]
    assert sorted(_by_tile(large)) == sorted(_by_tile(small))
    assert large.face_down == small.face_down == 1
    for name, corners in _by_tile(large).items():
        # Same outline, in the big image's pixels: within 3 px of the 1080p frame's (7 px there).
        assert np.abs(corners / GROW - _by_tile(small)[name]).max() < 3.0, name
    back = large.face_down_corners[0] / GROW
    assert np.abs(back.mean(axis=0) - (900, 850)).max() < 6


def test_every_stage_sees_at_most_the_working_image(hd_and_big, monkeypatch) -> None:
    _, big = hd_and_big
    seen: list[tuple[str, int]] = []

    def spy(name: str, stage: Any) -> Any:
        def wrapped(image: np.ndarray, *args: Any, **kwargs: Any) -> Any:
            seen.append((name, image.shape[0] * image.shape[1]))
            return stage(image, *args, **kwargs)
        return wrapped

    monkeypatch.setattr(finder, "level_images", spy("level_images", finder.level_images))
    monkeypatch.setattr(pipeline, "crops", spy("crops", pipeline.crops))
    assert len(read_image(big).tiles) == 5
    assert {name for name, _ in seen} == {"level_images", "crops"}
    assert max(pixels for _, pixels in seen) <= MAX_WORK_PIXELS


def test_a_calibrated_tile_length_shrinks_a_close_up_and_reads_the_same() -> None:
    close_up = table(1920, 1080, colour=(70, 100, 50), seed=4)
    for k, (a, b) in enumerate([(1, 3), (2, 5), (4, 6)]):
        paint_tile(close_up, Painted(a, b, (400 + 560 * k, 540), 90.0 + 20 * k, 80))
    tile_length = 4 * 80.0  # px: a close-up, longer than the working tile
    assert coarse_factor(close_up.shape, tile_length) == pytest.approx(WORK_TILE_LENGTH_PX / tile_length)
    calibrated, plain = read_image(close_up, tile_length_px=tile_length), read_image(close_up)
    assert sorted(_by_tile(calibrated)) == sorted(_by_tile(plain)) == ["1-3", "2-5", "4-6"]
    # Both put each tile where it was painted, its centre within 2 % of its length and its sides
    # within 3 % (the reader's own size error: 0.03 in log width and length on its validation crops,
    # `vision/models/manifest.json`): the calibrated one reads a shrunk image at one finder level,
    # the other the whole pyramid, so they differ by a few px.
    for view in (calibrated, plain):
        for name, corners in _by_tile(view).items():
            k = ["1-3", "2-5", "4-6"].index(name)
            assert np.linalg.norm(corners.mean(axis=0) - (400 + 560 * k, 540)) < 0.02 * tile_length, name
            sides = sorted(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1))
            assert np.allclose(sides, [160, 160, 320, 320], atol=0.03 * tile_length), (name, sides)


def test_frames_up_to_1080p_with_ordinary_tiles_are_not_touched() -> None:
    assert coarse_factor((1080, 1920, 3)) == 1.0
    assert coarse_factor((1080, 1920, 3), tile_length_px=130.0) == 1.0
    assert coarse_factor((3000, 4000, 3)) == pytest.approx((MAX_WORK_PIXELS / 12e6) ** 0.5)
    image = np.zeros((40, 50, 3), np.uint8)
    assert shrink(image, 1.0) is image
    # A calibration claiming tiles longer than the frame never shrinks it to nothing.
    assert coarse_factor((1080, 1920, 3), tile_length_px=1e9) == pytest.approx(64 / 1080)


@pytest.mark.parametrize("length", [1e9, float("inf"), float("nan"), -3.0, 0.0, "87"])
def test_any_tile_length_reads_or_is_refused_by_name(length) -> None:
    image = np.full((1080, 1920, 3), 90, np.uint8)
    try:
        view = read_image(image, tile_length_px=length)
    except VisionError as error:
        assert "tile_length_px" in str(error)
    else:
        assert view.tiles == ()


@settings(max_examples=30, deadline=None)
@given(height=st.integers(20, 900), width=st.integers(20, 900), factor=st.floats(0.05, 0.99))
def test_shrink_gives_the_size_resize_would_and_keeps_the_colour(height, width, factor) -> None:
    rng = np.random.default_rng(height * 1000 + width)
    image = rng.integers(0, 256, (height, width, 3), np.uint8)
    out = shrink(image, factor)
    assert out.shape == (max(1, round(height * factor)), max(1, round(width * factor)), 3)
    # Area averaging keeps the mean colour (a crop of at most k-1 rows/columns aside).
    assert np.abs(out.reshape(-1, 3).mean(axis=0) - image.reshape(-1, 3).mean(axis=0)).max() < 12
