"""The line of play as the renderer lays it: tiles stay in the play zone and never lie on each
other, however the arms turn, until the table has no room left (then it says so)."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from vision.synth.film import small_table
from vision.synth.layout import LayoutError, LineOfPlay
from vision.synth.random_scenes import full_set


def _overlap(first: np.ndarray, second: np.ndarray) -> float:
    area, _ = cv2.intersectConvexConvex(first.astype(np.float32), second.astype(np.float32))
    return float(area)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), spinner=st.booleans())
@example(seed=3300451783, spinner=True)  # a tile 0.6 mm into a crosswise double once got through
def test_a_long_line_stays_in_its_zone_and_its_tiles_never_overlap(seed: int, spinner: bool) -> None:
    rng = np.random.default_rng(seed)
    zone = small_table().zones["play"]
    line = LineOfPlay(zone, spinner=spinner)
    pool = full_set()
    rng.shuffle(pool)
    line.lead(*pool.pop())
    while True:
        options = [(i, end) for i, tile in enumerate(pool) for end, o in line.ends.items() if o.value in tile]
        if not options:
            break
        i, end = options[int(rng.integers(len(options)))]
        try:
            line.play(*pool[i], end)
        except LayoutError as error:
            assert "no room" in str(error)
            break
        pool.pop(i)
    x0, y0, x1, y1 = zone
    for k, tile in enumerate(line.tiles):
        corners = tile.corners()
        assert corners[:, 0].min() >= x0 - 1e-6 and corners[:, 0].max() <= x1 + 1e-6
        assert corners[:, 1].min() >= y0 - 1e-6 and corners[:, 1].max() <= y1 + 1e-6
        for other in line.tiles[:k]:
            assert _overlap(corners, other.corners()) < 2.0, (tile, other)
    assert len(line.tiles) >= 8  # a 510 x 164 mm zone holds a real hand's line
