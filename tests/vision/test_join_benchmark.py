"""benchmarks.training_join, small: both ways join the same rows, and each reports its peak."""

from __future__ import annotations

import json
import sys

import pytest

from benchmarks.training_join import ROWS, main

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux only)")


def test_both_ways_join_the_same_rows_and_report_their_peaks(tmp_path, capsys) -> None:
    out = tmp_path / "join.json"
    assert main(["--tables", "24", "--jobs", "2", "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    streamed, held = figures["as they come"], figures["held, then joined"]
    assert streamed["rows"] == held["rows"]
    assert 24 * ROWS[0] <= streamed["rows"] < 24 * ROWS[1]
    assert streamed["joined_bytes"] == held["joined_bytes"]
    for got in (streamed, held):
        assert got["peak_resident"] >= got["resident_before"] > 0
    assert "x the bytes joined" in capsys.readouterr().out
