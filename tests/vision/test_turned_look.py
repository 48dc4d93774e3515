"""The second look at candidates turned a quarter and an eighth either way
(`vision.pipeline.turned_frames`): the finder's axis is now and then across the tile or well off
it, and the reader sees no tile in such a frame."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import vision.finder
from tests.vision.conftest import three_in_a_row_and_one
from tests.vision.frames import framed_across, tile_frame
from vision.finder import Found
from vision.pipeline import SET_SIZE_QUORUM, TURNED_DEGREES, TURNED_LOOK_MIN, Reading, turned_frames
from vision.read import read_image

READ = [Reading(tile_frame(100 + 60 * i, 100, 10.0 + i, 0), 1, i, 0.99) for i in range(SET_SIZE_QUORUM)]


@given(x=st.floats(0, 400), y=st.floats(0, 300), degrees=st.floats(0, 180), half_width=st.floats(3, 40),
       score=st.floats(0, 1), readings=st.integers(0, SET_SIZE_QUORUM))
def test_an_unexplained_sure_candidate_is_looked_at_turned_at_the_sets_size(
        x, y, degrees, half_width, score, readings) -> None:
    candidate = Found(tile_frame(x, y, half_width, degrees), True, score)
    turned = turned_frames([candidate], READ[:readings])
    def covers(reading: Reading) -> bool:
        offset = candidate.frame.center - reading.frame.center
        return (abs(float(np.dot(offset, reading.frame.across))) < reading.frame.half_width
                and abs(float(np.dot(offset, reading.frame.along))) < reading.frame.half_length)

    covered = any(covers(r) for r in READ[:readings])
    if readings < SET_SIZE_QUORUM or score < TURNED_LOOK_MIN or covered:
        assert turned == []
        return
    assert len(turned) == len(TURNED_DEGREES)
    for frame, turn in zip(turned, TURNED_DEGREES, strict=True):
        assert np.allclose(frame.center, candidate.frame.center)
        first, turned_to = candidate.frame.across, frame.across
        cross = float(first[0] * turned_to[1] - first[1] * turned_to[0])
        angle = math.degrees(math.atan2(cross, float(np.dot(first, turned_to))))
        assert angle == pytest.approx(turn, abs=1e-3)
        assert frame.half_width == 11.0 and frame.half_length == 22.0  # the readings' median size
    assert TURNED_DEGREES[0] == 90.0  # a quarter turn first: the finder's frame across the tile


@pytest.mark.parametrize(("a", "b", "read"), [(0, 4, True), (0, 0, False)])
def test_a_tile_the_finder_frames_across_is_read_from_its_turned_frame_unless_blank(
        a: int, b: int, read: bool, monkeypatch) -> None:
    image, painted = three_in_a_row_and_one(a, b)
    finder = vision.finder.shipped_finder()
    find = finder.find
    # The shipped finder's answer, less the last tile's candidates, plus one frame across it.
    monkeypatch.setattr(finder, "find", framed_across(find, painted[-1].center, 20.0, 30.0))
    seen = {tile.tile for tile in read_image(image).tiles}
    assert seen == {"1-3", "2-5", "6-6"} | ({f"{a}-{b}"} if read else set())
    monkeypatch.setattr("vision.pipeline.TURNED_LOOK_MIN", math.inf)  # no second look: the tile is lost
    assert {tile.tile for tile in read_image(image).tiles} == {"1-3", "2-5", "6-6"}
    # A blank is lost only to the turned look: framed along, it is read.
    monkeypatch.setattr(finder, "find", find)
    assert f"{a}-{b}" in {tile.tile for tile in read_image(image).tiles}


def test_a_tile_the_finder_frames_an_eighth_turn_off_is_read_from_a_frame_turned_back(monkeypatch) -> None:
    image, painted = three_in_a_row_and_one(4, 5)
    finder = vision.finder.shipped_finder()
    # The finder's one candidate on the last tile lies along 75 degrees: 45 off the tile's 30.
    monkeypatch.setattr(finder, "find", framed_across(finder.find, painted[-1].center, 20.0, 30.0 - 45.0))
    assert {tile.tile for tile in read_image(image).tiles} == {"1-3", "2-5", "6-6", "4-5"}
    monkeypatch.setattr("vision.pipeline.TURNED_DEGREES", (90.0,))  # the quarter turn alone: lost
    assert {tile.tile for tile in read_image(image).tiles} == {"1-3", "2-5", "6-6"}
