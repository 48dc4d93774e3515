"""The stages benchmark (`benchmarks.vision_stages`) times the stages `read_checked` runs, so they
must read what `read_image` reads: a stage added to the read and not to the benchmark fails here."""

from __future__ import annotations

import pytest

import vision.finder
from benchmarks import vision_stages as bench
from tests.vision.conftest import three_in_a_row_and_one
from tests.vision.frames import framed_across
from vision.read import read_image
from vision.types import tile_name


def test_the_stages_read_what_read_image_reads_the_turned_look_included(
        monkeypatch: pytest.MonkeyPatch) -> None:
    image, painted = three_in_a_row_and_one(0, 4)
    finder = vision.finder.shipped_finder()
    # Only the turned look reads the last tile (`test_turned_look`).
    monkeypatch.setattr(finder, "find", framed_across(finder.find, painted[-1].center, 20.0, 30.0))
    times, chosen = bench.stage_times(image, 1)
    assert set(times) == set(bench.STAGES)
    assert all(ms >= 0 for ms in times.values())
    staged = sorted(tile_name(r.top, r.bottom) for r in chosen)
    assert staged == sorted(t.tile for t in read_image(image).tiles) == ["0-4", "1-3", "2-5", "6-6"]
