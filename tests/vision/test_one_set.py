"""One set holds each tile once: told so, the reader keeps the likelier of two readings of a tile."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from tests.vision.conftest import Painted, paint_tile, table
from tests.vision.frames import tile_frame
from vision.debug import draw_view
from vision.pipeline import REPEAT, Reading, one_of_each
from vision.read import read_image

readings_strategy = st.lists(
    st.builds(lambda a, b, confidence: Reading(tile_frame(0, 0, 10, 0), a, b, confidence),
              st.integers(0, 6), st.integers(0, 6), st.floats(0.5, 1.0)),
    max_size=12,
).map(lambda rs: sorted(rs, key=lambda r: -r.confidence))


def _tile(reading: Reading) -> tuple[int, int]:
    return min(reading.top, reading.bottom), max(reading.top, reading.bottom)


@given(readings_strategy)
def test_the_first_reading_of_each_tile_is_kept_and_the_rest_are_repeats(readings: list[Reading]) -> None:
    kept, repeats = one_of_each(readings)
    assert len({_tile(r) for r in kept}) == len(kept)  # each tile once, either way round
    assert {_tile(r) for r in kept} == {_tile(r) for r in readings}
    assert sorted(map(id, kept + repeats)) == sorted(map(id, readings))  # nothing lost or made
    kept_ids = {id(r) for r in kept}
    assert [id(r) for r in kept] == [id(r) for r in readings if id(r) in kept_ids]  # likeliest first still
    for repeat in repeats:  # a likelier reading of its tile was kept
        assert any(_tile(k) == _tile(repeat) and k.confidence >= repeat.confidence for k in kept)


def test_a_tile_read_twice_is_kept_once_when_the_picture_shows_one_set() -> None:
    image = table(900, 700, seed=3)
    paint_tile(image, Painted(2, 5, (250, 300), 20.0, 30))
    paint_tile(image, Painted(5, 2, (620, 380), 100.0, 30))  # the same tile, the other way round
    paint_tile(image, Painted(1, 3, (450, 560), 0.0, 30))
    anything = read_image(image)
    assert sorted(t.tile for t in anything.tiles) == ["1-3", "2-5", "2-5"]
    one_set = read_image(image, one_set=True)
    assert sorted(t.tile for t in one_set.tiles) == ["1-3", "2-5"]
    likelier = max((t for t in anything.tiles if t.tile == "2-5"), key=lambda t: t.confidence)
    kept = next(t for t in one_set.tiles if t.tile == "2-5")
    np.testing.assert_array_equal(kept.corners, likelier.corners)
    repeats = [v for v in one_set.candidates if v.kind == REPEAT]
    assert len(repeats) == 1
    other = next(t for t in anything.tiles if t.tile == "2-5" and t is not likelier)
    assert np.linalg.norm(repeats[0].corners.mean(axis=0) - other.corners.mean(axis=0)) < 1
    drawn = draw_view(image, one_set)
    x0, y0 = np.floor(repeats[0].corners.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(repeats[0].corners.max(axis=0)).astype(int) + 3
    assert np.any(np.all(drawn[y0:y1, x0:x1] == (0, 0, 230), axis=2))  # its outline, in red
