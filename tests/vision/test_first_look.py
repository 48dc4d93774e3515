"""The reader's first look at every candidate, from either of the finder's heats; and crops that
depend on their own frame alone."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vision.finder
from tests.vision.conftest import Painted, paint_back, paint_tile, table
from tests.vision.frames import tile_frame
from vision.crops import AREA_SHRINK, CROP_EXTENT, CROP_WIDTH, crop, crops
from vision.finder import Found
from vision.read import read_image

HALF_WIDTH = 30


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.floats(4, 120), st.lists(st.floats(4, 400), max_size=6))
def test_a_crop_depends_on_its_own_frame_alone(seed: int, half_width: float, others: list[float]) -> None:
    """A tile's crop is the same cropped alone or in a batch with frames round a card, a hand or
    the whole table, first or last, and whatever was cropped from the image before it."""
    rng = np.random.default_rng(seed)
    image = rng.integers(0, 256, (300, 400, 3), np.uint8)
    tile = tile_frame(200, 150, half_width, float(rng.uniform(0, 180)))
    big = [tile_frame(float(rng.uniform(0, 400)), float(rng.uniform(0, 300)), w, float(rng.uniform(0, 180)))
           for w in others]
    alone = crops(image, [tile])[0]
    kept: dict[int, np.ndarray] = {}
    crops(image, big, kept)  # halvings of the image made for other frames first
    np.testing.assert_array_equal(crops(image, [*big, tile], kept)[-1], alone)
    np.testing.assert_array_equal(crops(image, [tile, *big])[0], alone)


def test_a_large_frame_is_cropped_from_its_averaged_pixels() -> None:
    """One-pixel stripes under a frame eight times larger than its crop average to grey, where
    sampling the image itself would pick stripes at random: a small pip is not aliased away."""
    image = np.zeros((1200, 1200, 3), np.uint8)
    image[:, ::2] = 255
    shrink = 8.0
    assert shrink > AREA_SHRINK
    frame = tile_frame(600, 600, shrink * CROP_WIDTH / 2 / CROP_EXTENT, 0)
    averaged = crops(image, [frame])[0].astype(np.float32)
    sampled = crop(image, frame).astype(np.float32)
    assert abs(averaged.mean() - 127.5) < 4 and averaged.std() < 8
    assert abs(sampled.mean() - 127.5) > 40 or sampled.std() > 40


def test_the_finders_heat_is_a_hint_the_reader_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each candidate is read whichever heat found it: with every candidate's heat swapped (face-up
    tiles proposed as backs and backs as face-up tiles) the table reads the same."""
    image = table(seed=12)
    paint_tile(image, Painted(2, 6, (250, 250), 0.0, HALF_WIDTH))
    paint_tile(image, Painted(1, 4, (600, 420), 70.0, HALF_WIDTH))
    paint_back(image, (300, 520), 90, HALF_WIDTH, colour=(210, 235, 240))
    honest = read_image(image)
    assert sorted(t.tile for t in honest.tiles) == ["1-4", "2-6"] and honest.face_down == 1

    find = vision.finder.TileFinder.find

    def swapped(self: vision.finder.TileFinder, *args: object, **kwargs: object) -> list[Found]:
        return [dataclasses.replace(f, face_up=not f.face_up) for f in find(self, *args, **kwargs)]

    monkeypatch.setattr(vision.finder.TileFinder, "find", swapped)
    fooled = read_image(image)
    assert sorted(t.tile for t in fooled.tiles) == ["1-4", "2-6"]
    assert fooled.face_down == 1
