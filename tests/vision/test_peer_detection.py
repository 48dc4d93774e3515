"""The peer benchmark's own logic: how the peer's stones become tiles, and how its runs are read.

The peer itself (a GPL Qt program with 2021 pins) is not installed for the tests; a stand-in
interpreter that prints what the real driver prints checks the process plumbing.
"""

from __future__ import annotations

import ast
import json
import stat
from pathlib import Path

import pytest

from benchmarks import peer_detection as bench
from vision.evaluate import score_image


def stone(left: int | None, right: int | None, *links: int) -> dict[str, object]:
    return {"left": left, "right": right, "edges": [[0, 0]] * 4,
            "links": [{"index": i, "valid": True} for i in links]}


def test_stones_with_no_half_read_are_not_reported_and_names_are_canonical() -> None:
    result = {"stones": [stone(5, 2), stone(None, None), stone(6, 6)]}
    view = bench.peer_view(result, blank_for_unread=False)
    assert [t["tile"] for t in view["tiles"]] == ["2-5", "6-6"]


def test_an_unread_half_never_matches_strictly_but_reads_as_blank_generously() -> None:
    result = {"stones": [stone(None, 3)]}
    label = {"tiles": [{"tile": "0-3"}]}
    strict = bench.peer_view(result, blank_for_unread=False)
    generous = bench.peer_view(result, blank_for_unread=True)
    assert [t["tile"] for t in strict["tiles"]] == ["3-?"]
    assert score_image("x", strict, label).true_positives == 0
    assert score_image("x", generous, label).exact


def test_joins_are_counted_once_and_only_between_reported_stones() -> None:
    result = {"stones": [stone(1, 2, 1, 2), stone(2, 4, 0), stone(None, None, 0)]}
    view = bench.peer_view(result, blank_for_unread=False)
    assert view["joins"] == [["1-2", "2-4"]]


def test_pip_sum_counts_read_halves_only() -> None:
    assert bench.pip_sum({"tiles": [{"tile": "3-?"}, {"tile": "2-5"}]}) == 10


def test_tile_finding_scores_counts_without_values() -> None:
    labels = {"a": {"tiles": [{"tile": "1-1"}] * 4}, "b": {"tiles": [{"tile": "0-0"}]}}
    scores = bench.count_scores({"a": 3, "b": 3}, labels)
    assert scores == {"precision": round(4 / 6, 4), "recall": 0.8, "exact_images": 0}


def test_without_a_peer_the_benchmark_says_so_and_passes(capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PEER_DETECTION_CHECKOUT", raising=False)
    assert bench.main([]) == 0
    assert "skipped" in capsys.readouterr().out


def fake_interpreter(folder: Path, body: str) -> str:
    script = folder / "fake-python"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def test_run_peer_reads_the_drivers_line_and_records_failures(tmp_path: Path) -> None:
    answer = json.dumps({"stones": [stone(6, 5)], "eyes": 11, "import_cpu_s": 0.3,
                         "photo_cpu_s": 0.05, "photo_wall_s": 0.05})
    good = fake_interpreter(tmp_path, f"echo 'Qt noise'\necho '{answer}'")
    side, raw = bench.run_peer(tmp_path, ["one.png"], tmp_path, good)
    assert raw["one.png"]["stones"][0]["left"] == 6
    assert side.inprocess_cpu_s == [0.05] and len(side.process_cpu_s) == 1 and not side.errors

    broken = tmp_path / "broken"
    broken.mkdir()
    bad = fake_interpreter(broken, "echo 'ModuleNotFoundError: No module named PySide6' >&2\nexit 1")
    side, raw = bench.run_peer(tmp_path, ["one.png"], tmp_path, bad)
    assert raw["one.png"] == {"stones": []}
    assert side.errors["one.png"] == "exit status 1: ModuleNotFoundError: No module named PySide6"


def test_the_driver_imports_nothing_of_this_project() -> None:
    # It runs in the peer's interpreter, where neither package exists.
    tree = ast.parse(bench.DRIVER.read_text(encoding="utf-8"))
    modules = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names}
    modules |= {str(node.module).split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not modules & {"vision", "referee", "firmware_bridge", "benchmarks", "tests"}
