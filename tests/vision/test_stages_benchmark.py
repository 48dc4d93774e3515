"""The stages benchmark (`benchmarks.vision_stages`) times the stages `read_checked` runs, so they
must read what `read_image` reads: a stage added to the read and not to the benchmark fails here."""

from __future__ import annotations

import numpy as np
import pytest

import vision.finder
from benchmarks import vision_stages as bench
from tests.vision.conftest import Painted, paint_tile, table
from tests.vision.frames import tile_frame
from vision.finder import Found
from vision.geometry import TileFrame
from vision.read import read_image
from vision.types import tile_name


def test_the_stages_read_what_read_image_reads_the_turned_look_included(
        monkeypatch: pytest.MonkeyPatch) -> None:
    image = table(900, 600, colour=(60, 110, 40), seed=4)
    painted = [Painted(1, 3, (200, 200), 0.0, 20.0), Painted(2, 5, (450, 200), 0.0, 20.0),
               Painted(6, 6, (700, 200), 0.0, 20.0), Painted(0, 4, (450, 420), 30.0, 20.0)]
    for tile in painted:
        paint_tile(image, tile)
    finder = vision.finder.shipped_finder()
    find = finder.find

    def across_the_last_tile(picture: np.ndarray, **kwargs: object) -> list[Found]:
        """The shipped finder's answer, less the last tile's candidates, plus one frame across it:
        only the turned look reads that tile (`test_turned_look`)."""
        last = np.array(painted[-1].center, np.float32)
        kept = [f for f in find(picture, **kwargs)  # type: ignore[arg-type]
                if np.linalg.norm(f.frame.center - last) > painted[-1].half_width]
        along = tile_frame(*painted[-1].center, 20.0, 30.0)
        return [*kept, Found(TileFrame(along.center, along.along, 20.0, 40.0), True, 0.3)]

    monkeypatch.setattr(finder, "find", across_the_last_tile)
    times, chosen = bench.stage_times(image, 1)
    assert set(times) == set(bench.STAGES)
    assert all(ms >= 0 for ms in times.values())
    staged = sorted(tile_name(r.top, r.bottom) for r in chosen)
    assert staged == sorted(t.tile for t in read_image(image).tiles) == ["0-4", "1-3", "2-5", "6-6"]
