"""What finds the tiles a patterned cloth or a coloured face hides: each channel's ink, the pip
size's other guesses, the scales read when too few tiles are, and the bar on "is it a tile"."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision import pipeline
from vision.geometry import TileFrame
from vision.marks import envelope_size, ink_ratio, pip_diameters
from vision.proposals import PIP_PER_HALF_WIDTH, SHIFTS_ALONG, at_pip

GREEN_FACE = (56, 158, 90)  # BGR: a green set's face, its red channel low
WHITE = (240, 240, 240)


def test_a_white_divider_on_a_green_face_stands_out_in_one_channel() -> None:
    image = np.full((200, 300, 3), GREEN_FACE, np.uint8)
    cv2.line(image, (80, 100), (220, 100), WHITE, 3)
    window = envelope_size(image.shape, 8.0)
    largest = ink_ratio(image, polarity="bright", window=window)
    each = ink_ratio(image, polarity="bright", window=window, per_channel=True)
    assert largest[100, 150] < 0.35  # the max-channel (green) is high on the face too
    assert each[100, 150] > 0.7  # red: 56 on the face, 240 on the line
    assert each[20, 20] == 0.0  # the plain face is no ink in any channel


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), polarity=st.sampled_from(["dark", "bright"]),
       window=st.integers(9, 61))
def test_each_channels_ink_is_at_least_the_extreme_channels(seed: int, polarity: str, window: int) -> None:
    """Closing and opening are monotone, and so are the blur and the resizes: a channel's envelope
    is never below the min-channel's (nor above the max-channel's), so the channel a pixel's
    extreme comes from stands out at least as much (up to whole-level rounding)."""
    rng = np.random.default_rng(seed)
    image = cv2.GaussianBlur(rng.integers(0, 256, (90, 170, 3), dtype=np.uint8), (0, 0), 1.5)
    image = cv2.resize(image, (340, 180), interpolation=cv2.INTER_NEAREST)
    extreme = ink_ratio(image, polarity=polarity, window=window | 1)
    each = ink_ratio(image, polarity=polarity, window=window | 1, per_channel=True)
    assert each.shape == extreme.shape and each.dtype == np.float32
    assert float((extreme - each).max()) <= 2.5 / 255


def _dots(image: np.ndarray, diameter: int, count: int, rng: np.random.Generator, ink: int) -> None:
    height, width = image.shape[:2]
    for _ in range(count):
        x, y = int(rng.integers(diameter, width - diameter)), int(rng.integers(diameter, height - diameter))
        cv2.circle(image, (x, y), diameter // 2, (ink, ink, ink), -1, cv2.LINE_AA)


def test_the_pips_are_a_second_guess_where_a_pattern_outvotes_them() -> None:
    """Many large round cells (a print's dots) and one tile's worth of pips: the cells win the
    vote, and the pips' size is the next guess."""
    rng = np.random.default_rng(7)
    image = np.full((720, 1280, 3), 225, np.uint8)
    cells = np.zeros_like(image)
    _dots(cells, 40, 60, rng, 255)
    image[cells[..., 0] > 128] = 90
    face = image[300:420, 600:700]
    face[:] = 235
    for x, y in ((620, 320), (650, 320), (680, 320), (620, 350), (650, 350), (680, 350),
                 (620, 390), (680, 390)):
        cv2.circle(image, (x, y), 5, (20, 20, 20), -1, cv2.LINE_AA)
    guesses = pip_diameters(image)
    assert 30 < guesses[0] < 50
    assert any(7 < guess < 14 for guess in guesses[1:])
    assert len(guesses) <= 3


def test_a_plain_table_of_pips_has_one_guess() -> None:
    rng = np.random.default_rng(3)
    image = np.full((720, 1280, 3), 225, np.uint8)
    _dots(image, 10, 80, rng, 20)
    assert len(pip_diameters(image)) == 1


def _reading(confidence: float, face_up: float = 1.0, x: float = 100.0,
             half_width: float = 20.0) -> pipeline.Reading:
    frame = TileFrame(np.array([x, 100.0], np.float32), np.array([1.0, 0.0], np.float32),
                      half_width, 2 * half_width)
    return pipeline.Reading(frame, 1, 2, confidence, face_up)


def test_a_reading_unsure_it_is_a_tile_goes_and_hides_nothing() -> None:
    unsure = _reading(0.95, face_up=pipeline.MIN_FACE_UP - 0.01)
    sure_but_pale = _reading(0.6, x=105.0)  # the pips in doubt, the tile not: stays
    assert pipeline.choose([unsure, sure_but_pale], 0.5) == [sure_but_pale]


@pytest.mark.parametrize(("first_votes", "expect_more"), [(0, True), (1, True), (pipeline.SURE_VOTES, False)])
def test_too_few_tiles_read_means_other_scales_are_read(monkeypatch: Any, first_votes: int,
                                                        expect_more: bool) -> None:
    """With fewer than `SURE_VOTES` confident tiles, the pip size's other guesses and twice and
    half the estimate are read too, until one reads `SURE_VOTES`; the most confident tiles win."""
    coarse = np.full((400, 600, 3), 200, np.uint8)
    work = at_pip(coarse, 1.0, (), 20.0, (5.0,))
    tried: list[float] = []

    def fake_read_at(net: Any, at: Any, *, max_pip: int, min_confidence: float) -> Any:
        pip = round(at.pip / at.scale, 3)
        tried.append(pip)
        # Tiles whose size agrees with the pips they were read at (so no implied scale is tried).
        half_width = at.pip / PIP_PER_HALF_WIDTH
        votes = first_votes if not tried[:-1] else (5 if pip == 5.0 else 0)
        return at, [_reading(1.0, x=100.0 + 200 * i, half_width=half_width) for i in range(votes)], []

    monkeypatch.setattr(pipeline, "_read_at", fake_read_at)
    best_work, chosen, _ = pipeline.at_the_sets_scale(None, work, max_pip=6, min_confidence=0.5)  # type: ignore[arg-type]
    if expect_more:
        assert tried == [20.0, 5.0]  # the other guess read five: settled, no more tries
        assert round(best_work.pip / best_work.scale, 3) == 5.0 and len(chosen) == 5
    else:
        assert tried == [20.0] and len(chosen) == pipeline.SURE_VOTES


def test_pip_rows_far_from_the_sets_size_are_redrawn_at_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two trusted readings set the size; a gated proposal a third of it, off the read tiles, is
    looked at again at that size along and across, bar centred and in either half; one on a
    read tile, and every proposal when the readings are doubtful, are not."""
    looked: list[list[TileFrame]] = []

    def gated(net: Any, work: Any, frames: list[TileFrame]) -> tuple[np.ndarray, np.ndarray, list[Any]]:
        looked.append(frames)
        return np.zeros((len(frames), 64, 32, 3), np.uint8), np.zeros(len(frames), bool), []

    monkeypatch.setattr(pipeline, "gated", gated)
    right, up = np.array([1, 0], np.float32), np.array([0, 1], np.float32)
    tile = pipeline.Reading(TileFrame(np.array([100, 100], np.float32), right, 24.0, 48.0), 3, 4, 0.95, 0.999)
    other = pipeline.Reading(TileFrame(np.array([300, 100], np.float32), right, 24, 48), 1, 2, 0.95, 0.999)
    row = TileFrame(np.array([600, 400], np.float32), up, 8.0, 16.0)
    own_row = TileFrame(np.array([100, 110], np.float32), up, 8.0, 16.0)
    readings, _ = pipeline.proposals_at_the_sets_size(None, None, [row, own_row], [tile, other], 6)  # type: ignore[arg-type]
    assert readings == [] and len(looked) == 1
    frames = looked[0]
    assert len(frames) == 2 * len(SHIFTS_ALONG)
    assert all(f.half_width == 24.0 and f.half_length == 48.0 for f in frames)
    assert {round(abs(float(f.across @ up))) for f in frames} == {0, 1}
    assert all(np.linalg.norm(f.center - row.center) <= 24.0 + 1e-3 for f in frames)
    doubtful = [pipeline.Reading(r.frame, r.top, r.bottom, r.confidence, 0.9) for r in (tile, other)]
    assert pipeline.proposals_at_the_sets_size(None, None, [row], doubtful, 6) == ([], [])  # type: ignore[arg-type]
    assert len(looked) == 1
