"""The training harvest's frames: what the reader is shown in training is what it is shown reading."""

from __future__ import annotations

import numpy as np

from vision.geometry import TileFrame
from vision.proposals import SHIFTS_ALONG
from vision.tilenet import BACK, FACE_UP, NOT_A_TILE
from vision.train.harvest import REDRAWN_ELSEWHERE, REDRAWN_PER_TILE, Truth, at_the_sets_size, label

RIGHT, UP = np.array([1, 0], np.float32), np.array([0, 1], np.float32)


def _frame(x: float, y: float, half_width: float, axis: np.ndarray = RIGHT) -> TileFrame:
    return TileFrame(np.array([x, y], np.float32), axis, half_width, 2 * half_width)


def test_proposals_off_the_sets_size_are_redrawn_at_it_a_few_per_tile_and_elsewhere() -> None:
    tiles = [
        Truth(_frame(100, 100, 24), FACE_UP, 3, 4),
        Truth(_frame(300, 100, 24), FACE_UP, 1, 2),
        Truth(_frame(500, 100, 24), BACK, -1, -1),
    ]
    rows_on_first = [_frame(100, 80 + 10 * i, 8, UP) for i in range(5)]  # its pip rows
    divider_of_second = _frame(300, 100, 25)  # the set's size already: not redrawn
    on_the_back = _frame(500, 100, 8)  # on no face-up tile, but not elsewhere either
    elsewhere = [_frame(40 * i, 600, 60) for i in range(3 * REDRAWN_ELSEWHERE)]  # print, clutter
    proposals = [*rows_on_first, divider_of_second, on_the_back, *elsewhere]
    frames = at_the_sets_size(proposals, tiles, np.random.default_rng(0))
    per_proposal = 2 * len(SHIFTS_ALONG)
    assert len(frames) == (REDRAWN_PER_TILE + REDRAWN_ELSEWHERE) * per_proposal
    assert all(f.half_width == 24.0 and f.half_length == 48.0 for f in frames)
    centers = np.array([f.center for f in frames])
    assert (centers[:, 1] < 200).sum() == REDRAWN_PER_TILE * per_proposal  # the first tile's rows
    assert not np.any(np.hypot(centers[:, 0] - 500, centers[:, 1] - 100) < 30)  # nothing off the back
    # One of each row's redrawn frames is centred on its tile, and teaches a tile there.
    assert sum(label(f, tiles)[0] == FACE_UP for f in frames) >= REDRAWN_PER_TILE
    assert all(label(f, tiles)[0] == NOT_A_TILE for f in frames if f.center[1] > 500)


def test_a_table_without_face_up_tiles_redraws_nothing() -> None:
    tiles = [Truth(_frame(500, 100, 24), BACK, -1, -1)]
    assert at_the_sets_size([_frame(40, 600, 60)], tiles, np.random.default_rng(0)) == []
    assert at_the_sets_size([], [], np.random.default_rng(0)) == []
