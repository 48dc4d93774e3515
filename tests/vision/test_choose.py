"""Selection: which of the reader's readings are tiles, one per place (`vision.pipeline.choose`), of
the set's size (`of_the_sets_size`)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.vision.conftest import Painted, paint_tile, table
from tests.vision.frames import tile_frame
from vision.pipeline import (
    FACE_UP_WITH_SURE_PIPS,
    MAX_OVERLAP,
    MIN_FACE_UP,
    OFF_SIZE,
    SET_SIZE_QUORUM,
    SET_SIZE_SPREAD,
    Reading,
    choose,
    of_the_sets_size,
    overlap,
)
from vision.read import read_image

LEAST_FACE_UP, LEAST_PIPS = FACE_UP_WITH_SURE_PIPS


def _reading(face_up: float, pips: float, a: int = 3, b: int = 5) -> Reading:
    return Reading(tile_frame(0, 0, 10, 0), a, b, face_up * pips, face_up)


@pytest.mark.parametrize(("face_up", "pips", "a", "b", "is_tile"), [
    (MIN_FACE_UP, 0.6, 3, 5, True),  # sure of a face: its pips' doubt is min_confidence's to judge
    (MIN_FACE_UP, 0.6, 0, 0, True),
    (LEAST_FACE_UP, LEAST_PIPS, 3, 5, True),  # less sure of the face, sure of its pips
    (LEAST_FACE_UP, LEAST_PIPS, 0, 1, True),
    (LEAST_FACE_UP, LEAST_PIPS, 0, 0, False),  # blank, as a back reads: no pips to be sure of
    (LEAST_FACE_UP, 0.98, 3, 5, False),
    (0.69, 1.0, 3, 5, False),
    (0.3, 1.0, 6, 6, False),
])
def test_a_reading_is_a_tile_when_sure_of_the_face_or_of_the_pips_on_it(
        face_up: float, pips: float, a: int, b: int, is_tile: bool) -> None:
    assert _reading(face_up, pips, a, b).is_tile() is is_tile


readings_strategy = st.lists(
    st.builds(lambda x, y, angle, face_up, pips, a, b: Reading(tile_frame(x, y, 10, angle), a, b,
                                                             face_up * pips, face_up),
              st.integers(0, 60), st.integers(0, 60), st.sampled_from([0, 30, 90]),
              st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.integers(0, 6), st.integers(0, 6)),
    max_size=10,
)


@given(readings_strategy)
def test_the_most_confident_tile_per_place_is_chosen(readings: list[Reading]) -> None:
    chosen = choose(readings, 0.5)
    assert [r.confidence for r in chosen] == sorted((r.confidence for r in chosen), reverse=True)
    for i, reading in enumerate(chosen):
        assert reading.is_tile() and reading.confidence >= 0.5
        assert all(overlap(reading.frame, other.frame) <= MAX_OVERLAP for other in chosen[:i])
    chosen_ids = {id(r) for r in chosen}
    for left in (r for r in readings if id(r) not in chosen_ids):  # each left out for a reason
        assert (left.confidence < 0.5 or not left.is_tile()
                or any(overlap(left.frame, k.frame) > MAX_OVERLAP and k.confidence >= left.confidence
                       for k in chosen))


@given(st.lists(st.floats(8, 60), min_size=0, max_size=12), st.floats(0.05, 3.0))
def test_a_reading_off_the_sets_size_goes_once_there_is_a_median_to_go_by(widths: list[float],
                                                                          odd: float) -> None:
    """Every tile of a set has one size: with at least `SET_SIZE_QUORUM` readings, one whose
    half-width is off their median by more than `SET_SIZE_SPREAD` (a frame round several tiles
    read as one) goes; fewer readings all stay."""
    readings = [Reading(tile_frame(100 * i, 0, w, 0), 3, 5, 0.9) for i, w in enumerate([*widths, odd * 30])]
    kept, off = of_the_sets_size(readings)
    assert sorted(map(id, kept + off)) == sorted(map(id, readings))
    dropped = {id(r) for r in off}
    if len(readings) < SET_SIZE_QUORUM:
        assert not dropped
        return
    median = float(np.median([r.frame.half_width for r in readings]))
    for reading in readings:
        off_median = abs(math.log(reading.frame.half_width / median))
        assert (id(reading) in dropped) == (off_median > SET_SIZE_SPREAD)


def test_a_large_tile_among_a_sets_tiles_is_not_read_and_its_verdict_says_why() -> None:
    image = table(1000, 700, seed=13)
    for tile in (Painted(1, 2, (180, 200), 0.0, 24), Painted(3, 4, (420, 200), 90.0, 24),
                 Painted(5, 6, (180, 520), 30.0, 24)):
        paint_tile(image, tile)
    paint_tile(image, Painted(2, 2, (700, 380), 0.0, 64))  # a jumbo tile: not of this set
    view = read_image(image)
    assert sorted(t.tile for t in view.tiles) == ["1-2", "3-4", "5-6"]
    assert any(v.kind == OFF_SIZE for v in view.candidates)
