"""The runtimes benchmark (`benchmarks.vision_runtimes`), run small: both runtimes time every case,
read the same tiles, and their networks' answers lie within float rounding of each other."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from benchmarks import vision_runtimes as bench
from vision.finder import shipped_finder
from vision.onnx import RUNTIME_VARIABLE, chosen_runtime, onnxruntime_installed
from vision.tilenet import shipped

pytestmark = pytest.mark.skipif(not onnxruntime_installed(),
                                reason="onnxruntime is not installed (pip install -e '.[fast]')")


def test_one_round_times_both_runtimes_and_they_read_alike(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # Recorded, so that the variable the benchmark sets goes again after the test.
    monkeypatch.setenv(RUNTIME_VARIABLE, chosen_runtime())
    out, threads = tmp_path / "runtimes.json", cv2.getNumThreads()
    try:
        assert bench.main(["--rounds", "1", "--repeat", "1", "--json", str(out)]) == 0
    finally:  # the rest of the suite loads the shipped networks anew, under its own runtime
        shipped_finder.cache_clear()
        shipped.cache_clear()
        cv2.setNumThreads(threads)  # the benchmark times one thread
    report = json.loads(out.read_text())
    reads = [title for title in report if title.startswith("read:")]
    assert "read: rendered 1920x1080 table (seed 0)" in reads
    for title in [t for t in report if t != "answers_apart"]:
        case = report[title]
        assert len(case["opencv_ms"]) == len(case["onnxruntime_ms"]) == 1
        assert min(case["opencv_ms"] + case["onnxruntime_ms"]) > 0
        assert case["same_tiles"] is (True if title in reads else None)
    assert set(report["answers_apart"]) == {"finder", "reader"}
    assert max(report["answers_apart"].values()) < 1e-4
    assert "the same tiles" in capsys.readouterr().out
