"""Proposals from geometry alone: every painted tile's divider gives a frame near the tile, and
repeats of one bar are one proposal."""

from __future__ import annotations

import numpy as np

from tests.vision.conftest import Painted, paint_tile, table
from vision.geometry import TileFrame
from vision.proposals import distinct, propose, work_image


def _frame(x: float, y: float, angle_deg: float, half_width: float) -> TileFrame:
    a = np.radians(angle_deg)
    return TileFrame(np.array([x, y], np.float32), np.array([np.cos(a), np.sin(a)], np.float32), half_width,
                     2 * half_width)


def test_repeats_of_one_place_are_one_proposal_and_neighbours_stay() -> None:
    frames = [_frame(100, 100, 0, 20), _frame(102, 101, 3, 21), _frame(100, 100, 90, 20),
              _frame(100, 140, 0, 20), _frame(100, 100, 0, 30)]
    kept = distinct(frames)
    assert len(kept) == 4  # the second repeats the first; a turned, a shifted, a larger frame stay
    assert kept[0].half_width == 30  # larger frames are kept first


def test_every_painted_tile_has_a_proposal_at_its_centre() -> None:
    tiles = [Painted(3, 5, (300.0, 250.0), 20.0, 22.0), Painted(6, 6, (600.0, 300.0), 95.0, 22.0),
             Painted(1, 4, (450.0, 500.0), -40.0, 22.0)]
    image = table()
    for tile in tiles:
        paint_tile(image, tile)
    work = work_image(image)
    frames = propose(work)
    centres = work.to_input(np.array([f.center for f in frames]))
    for tile in tiles:
        assert np.min(np.hypot(*(centres - np.array(tile.center)).T)) < 6.0
