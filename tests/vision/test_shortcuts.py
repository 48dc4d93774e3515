"""The reader's shortcuts give exactly the answers of the long way round: joins looked for only
between tiles near enough to touch, overlap skipped for tiles whose circumcircles are apart, and a
level's network input built plane by plane."""

from __future__ import annotations

import math
from unittest import mock

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import vision.layout as layout
from tests.vision.frames import tile_frame
from vision.finder import GREY, MARGIN, SPREAD, level_input
from vision.geometry import TileFrame
from vision.pipeline import overlap

frames_strategy = st.lists(
    st.builds(tile_frame, st.floats(0, 300), st.floats(0, 300), st.floats(4, 40),
              st.sampled_from([0.0, 90.0, 180.0, 270.0]) | st.floats(0, 360)),
    min_size=0, max_size=12)


def _every_pair(frames: list[TileFrame], tolerance: float) -> list[tuple[int, int]]:
    return [(i, j) for i in range(len(frames)) for j in range(i + 1, len(frames))]


@settings(max_examples=150, deadline=None)
@given(frames_strategy, st.data())
def test_joins_found_among_near_pairs_are_those_of_every_pair(frames: list[TileFrame],
                                                              data: st.DataObject) -> None:
    # Few pip values, so that doubles, and halves matching where a line turns, are common.
    values = data.draw(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)),
                                min_size=len(frames), max_size=len(frames)))
    tolerance = data.draw(st.floats(0.1, 1.5))
    with mock.patch.object(layout, "_near_pairs", _every_pair):
        everywhere = layout.find_joins(frames, values, tolerance=tolerance)
    assert layout.find_joins(frames, values, tolerance=tolerance) == everywhere


def test_tiles_laid_end_to_end_and_against_a_crossed_double_join() -> None:
    first = tile_frame(100, 100, 20, 0)  # long axis along x: its b-half at x = 140
    second = tile_frame(181, 100, 20, 0)  # a-half 1 px past it
    double = tile_frame(241, 100, 20, 90)  # crossed: its long side at x = 221
    far = tile_frame(400, 100, 20, 0)
    joins = layout.find_joins([first, second, double, far], [(1, 2), (3, 4), (4, 4), (5, 6)])
    found = [(j.first, j.second, j.first_half, j.second_half) for j in joins]
    assert found == [(0, 1, "b", "a"), (1, 2, "b", "a")]


def test_a_line_turns_on_matching_halves_and_a_tile_pressed_alongside_does_not_join() -> None:
    last = tile_frame(100, 100, 20, 0)  # its b-half spans x = 100..140, the middle of its side x = 120
    turned = tile_frame(120, 161, 20, 90)  # across it, its a-end against the b-half's side
    assert [(j.first, j.second, j.first_half, j.second_half)
            for j in layout.find_joins([last, turned], [(3, 5), (5, 2)])] == [(0, 1, "b", "a")]
    assert [(j.first, j.second, j.first_half, j.second_half)
            for j in layout.find_joins([turned, last], [(5, 2), (3, 5)])] == [(0, 1, "a", "b")]
    # The same place, halves that differ: two tiles pressed side by side (photo jm-touching-2).
    assert layout.find_joins([last, turned], [(3, 4), (5, 2)]) == []
    # Against the middle of the side, between the halves: no join.
    alongside = tile_frame(100, 161, 20, 90)
    assert layout.find_joins([last, alongside], [(3, 5), (5, 6)]) == []


def _clipped(first: TileFrame, second: TileFrame) -> float:
    area, _ = cv2.intersectConvexConvex(first.corners(), second.corners())
    smaller = 4 * min(first.half_width * first.half_length, second.half_width * second.half_length)
    return float(area) / max(smaller, 1e-6)


@settings(max_examples=300, deadline=None)
@given(st.floats(4, 40), st.floats(0, 360), st.floats(4, 40), st.floats(0, 360), st.floats(0, 1.1),
       st.floats(0, 360))
def test_overlap_skips_the_polygon_clip_only_where_it_finds_nothing(
        first_width: float, first_axis: float, second_width: float, second_axis: float, apart: float,
        bearing: float) -> None:
    # The second tile's centre up to a little past where the two circumcircles touch.
    reach = apart * 5 ** 0.5 * (first_width + second_width)
    first = tile_frame(0, 0, first_width, first_axis)
    second = tile_frame(reach * math.cos(math.radians(bearing)), reach * math.sin(math.radians(bearing)),
                        second_width, second_axis)
    assert overlap(first, second) == _clipped(first, second)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 70), st.integers(1, 70), st.integers(0, 2**32 - 1))
def test_a_level_input_is_the_level_less_grey_over_spread_in_its_grey_margin(height: int, width: int,
                                                                              seed: int) -> None:
    level = np.random.default_rng(seed).integers(0, 256, (height, width, 3), np.uint8)
    x = level_input(level)
    assert x.dtype == np.float32 and x.shape[:2] == (1, 3) and x.shape[2] % 16 == x.shape[3] % 16 == 0
    bottom, right = x.shape[2] - height - MARGIN, x.shape[3] - width - MARGIN
    padded = cv2.copyMakeBorder(level, MARGIN, bottom, MARGIN, right, cv2.BORDER_CONSTANT, value=(GREY,) * 3)
    expected = ((padded.astype(np.float32) - GREY) / SPREAD).transpose(2, 0, 1)[None]
    assert np.array_equal(x, expected)
