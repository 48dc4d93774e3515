"""The tracker on filmed games, reading pixels with the real reader (`vision.read.read_image`)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.read import read_image
from vision.synth.film import GameFilm, fixed_camera_film
from vision.synth.style import PLAIN_STYLE
from vision.tracker import Tracker
from vision.types import Desync, TilePlaced

SIZE = (1280, 720)


def _film(seed: int, spinner: bool) -> tuple[GameFilm, Tracker, list[int]]:
    film, calibration = fixed_camera_film(
        PLAIN_STYLE, seed, SIZE, spinner=spinner, approach_frames=3, leave_frames=2, rest_frames=5
    )
    reads_on_hand_frames: list[int] = []
    tracker = Tracker(read_image, calibration=calibration, spinner=spinner)
    return film, tracker, reads_on_hand_frames


def _feed(tracker: Tracker, frames: list, reads_on_hand_frames: list[int]) -> list:
    out = []
    for frame in frames:
        before = tracker.reads
        out += tracker.feed(frame.t, frame.image)
        layout = frame.scene.layout
        if any(0 <= h.x <= layout.width_mm and 0 <= h.y <= layout.height_mm for h in frame.scene.hands):
            reads_on_hand_frames.append(tracker.reads - before)
    return out


@pytest.mark.parametrize(
    ("seed", "spinner", "plays"),
    [
        (5, False, [("1-2", None), ("1-6", "left"), ("2-2", "right"), ("4-6", "left")]),
        (8, True, [("3-3", None), ("3-5", "right"), ("1-3", "left"), ("3-6", "up")]),
    ],
)
def test_every_play_found_with_its_end_and_hands_make_no_play(seed: int, spinner: bool, plays: list) -> None:
    film, tracker, hand_reads = _film(seed, spinner)
    rng = np.random.default_rng(seed)
    observed = _feed(tracker, film.new_hand(boneyard=3), hand_reads)
    assert not any(isinstance(o, TilePlaced) for o in observed)
    placed: list[tuple[str, str | None]] = []
    for turn, (tile, end) in enumerate(plays):
        reach = film.nudge(turn % 4) if turn == 2 else film.pass_over(int(rng.integers(4)), linger=2)
        during_hands = _feed(tracker, reach, hand_reads)
        assert not any(isinstance(o, TilePlaced) for o in during_hands), during_hands
        observed = _feed(tracker, film.play(turn % 4, tile, end), hand_reads)
        placed += [(o.tile, o.end) for o in observed if isinstance(o, TilePlaced)]
        assert not any(isinstance(o, Desync) for o in observed), observed
    assert placed == plays
    assert len(hand_reads) > 20 and sum(hand_reads) == 0, "a frame with a hand over the table was read"
    assert tracker.desync is None


def test_two_tiles_laid_between_two_looks_are_both_reported_in_chain_order() -> None:
    film, tracker, hand_reads = _film(5, False)
    film.new_hand(boneyard=0)
    film.play(0, "1-2", None)  # the tracker does not see this one settle
    observed = _feed(tracker, film.play(1, "2-5", "right"), hand_reads)
    assert [(o.tile, o.end) for o in observed if isinstance(o, TilePlaced)] == [
        ("1-2", None),
        ("2-5", "right"),
    ]


def test_the_read_starts_a_quiet_frame_early_and_the_next_quiet_frame_commits_it() -> None:
    seen = {}
    for read_ahead in (True, False):
        film, calibration = fixed_camera_film(PLAIN_STYLE, 5, SIZE, approach_frames=3, leave_frames=2,
                                              rest_frames=6)
        tracker = Tracker(read_image, calibration=calibration, read_ahead=read_ahead)
        for frame in film.new_hand(boneyard=0):
            tracker.feed(frame.t, frame.image)
        committed, read_on = None, []
        for index, frame in enumerate(film.play(0, "1-2", None)):
            reads = tracker.reads
            observed = tracker.feed(frame.t, frame.image)
            if tracker.reads > reads:
                read_on.append(index)
            if any(isinstance(o, TilePlaced) for o in observed):
                committed = index
                break
        seen[read_ahead] = committed, read_on
    # The commit comes on the same frame, after `stable_frames` quiet ones; with the read-ahead
    # the picture was read on the frame before, and the committing frame reads nothing.
    (early, early_reads), (late, late_reads) = seen[True], seen[False]
    assert early is not None and early == late
    assert early_reads == [early - 1] and late_reads == [late]


def test_a_frame_that_moves_throws_the_early_read_away() -> None:
    film, calibration = fixed_camera_film(PLAIN_STYLE, 5, SIZE, approach_frames=3, leave_frames=2,
                                          rest_frames=6)
    tracker = Tracker(read_image, calibration=calibration)
    for frame in film.new_hand(boneyard=0):
        tracker.feed(frame.t, frame.image)
    frames = film.play(0, "1-2", None)
    still = [f for f in frames if not f.scene.hands]
    hand = next(f for f in frames if f.scene.hands)
    reads = tracker.reads
    for frame in still[:tracker.stable_frames]:   # quiet after the first: read one frame early
        assert tracker.feed(frame.t, frame.image) == []
    assert tracker.reads == reads + 1
    # A hand comes back before the commit: the early read is thrown away, nothing is committed,
    # and the play is committed only from a read after the picture is quiet again.
    assert tracker.feed(hand.t, hand.image) == []
    observed = []
    for frame in still[:tracker.stable_frames + 1]:
        observed += tracker.feed(frame.t, frame.image)
    assert [o.tile for o in observed if isinstance(o, TilePlaced)] == ["1-2"]
    assert tracker.reads == reads + 2
