"""The widened held-out benchmark (`benchmarks.vision_accuracy --widened N`): it runs with the real
reader, and its figures add up: every image is in one family of each dimension, and the false tiles
counted are the images' extra tiles. No accuracy is asserted here: the reader is changing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import vision_accuracy as bench

SMALL = (640, 360)
# Cheap to read with today's reader, and between them: a table and a clutter-only frame, cluttered
# and not, a webcam and a camera, double-six and double-twelve.
REAL_SEEDS = (3, 8, 35)


def _one_wrong(frame: Any, background: Any = None) -> dict[str, Any]:
    """A reader that knows the labels, misses the first tile and sees one tile that is not there."""
    return {"tiles": [*frame.labels["tiles"][1:], {"tile": "0-0"}, {"tile": "no-such-tile"}]}


def _adds_up(figures: dict[str, Any], count: int) -> None:
    images = figures["images"]
    assert len(images) == figures["overall"]["images"] == count
    extras = sum(sum(image["extra"].values()) for image in images)
    missing = sum(sum(image["missing"].values()) for image in images)
    assert figures["overall"]["false_tiles"] == extras
    assert figures["overall"]["missed_tiles"] == missing
    assert set(figures["families"]) == set(bench.DIMENSIONS)
    for dimension, values in figures["families"].items():
        assert sum(row["images"] for row in values.values()) == count, dimension
        assert sum(row["false_tiles"] for row in values.values()) == extras, dimension
        assert sum(row["missed_tiles"] for row in values.values()) == missing, dimension
        assert sum(row["exact_images"] for row in values.values()) == figures["overall"]["exact_images"]
        assert {image[dimension] for image in images} == set(values)
    for subset, row in figures["false_tiles"].items():
        members = [i for i in images if bench.FALSE_TILE_SUBSETS[subset](i)]
        assert row["images"] == len(members)
        assert row["false_tiles"] == sum(sum(i["extra"].values()) for i in members)
        assert row["met"] == (row["per_100_images"] <= bench.FALSE_TILES_GOAL)


def test_the_real_reader_scores_widened_frames_and_the_breakdown_adds_up(
        capsys: pytest.CaptureFixture[str]) -> None:
    results = [bench.score_widened_seed(seed, SMALL) for seed in REAL_SEEDS]
    figures = bench.widened_figures(results)
    _adds_up(figures, len(REAL_SEEDS))
    assert figures["families"]["family"].keys() == {"table", "clutter-only"}
    assert figures["families"]["cluttered"].keys() == {"yes", "no"}
    assert figures["families"]["set size"].keys() == {"double-6", "double-12"}
    assert [i["seed"] for i in figures["images"]] == list(REAL_SEEDS)
    bench.widened_report("widened", figures)
    out = capsys.readouterr().out
    assert "false tiles on cluttered surfaces" in out and "by surface:" in out


def test_false_tiles_are_the_extras_and_missed_tiles_the_missing() -> None:
    results = bench.score_widened(4, 0, size=SMALL, reader=_one_wrong)
    assert results is not None
    figures = bench.widened_figures(results)
    _adds_up(figures, 4)
    tiled = [r for r in results if r.score.labelled]
    total = figures["overall"]
    # Each image gains "no-such-tile" and "0-0" unless a 0-0 is labelled and went unmatched.
    assert total["false_tiles"] >= 4 and total["missed_tiles"] <= len(tiled)
    assert total["exact_images"] == 0 and not total["precision_met"]
    textured = [r for r in results if r.families["textured"] == "yes"]
    expected = sum(sum(r.score.extra.values()) for r in textured)
    assert figures["false_tiles"]["textured"]["false_tiles"] == expected
    assert figures["false_tiles"]["textured"]["per_100_images"] == round(100 * expected / len(textured), 2)


def test_jobs_give_the_same_results() -> None:
    one = bench.score_widened(2, 5, jobs=1, size=SMALL, reader=_one_wrong)
    two = bench.score_widened(2, 5, jobs=2, size=SMALL, reader=_one_wrong)
    assert one is not None and two is not None
    assert [(r.seed, r.score, r.families) for r in one] == [(r.seed, r.score, r.families) for r in two]


def test_the_command_writes_every_figure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "widened.json"
    args = ["--no-photos", "--synthetic", "0", "--widened", "1", "--widened-seed", "35",
            "--size", "640x360", "--json", str(out)]
    assert bench.main(args) == 0
    printed = capsys.readouterr().out
    assert "widened 640x360 tables, seeds 35..35 (held out)" in printed
    assert "labelled folder" not in printed and "rendered 640x360" not in printed
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["argv"] == args
    widened = document["widened"]
    assert widened["seeds"] == [35, 35] and widened["size"] == [640, 360]
    assert widened["images"][0]["family"] == "clutter-only"
    assert widened["goals"]["exact_share"] == bench.WIDENED_EXACT_GOAL
    _adds_up(widened, 1)


def test_the_stage_recall_benchmark_follows_each_tile_through_the_reader() -> None:
    """`benchmarks.vision_candidates` on one real widened table: every labelled face-up tile is
    followed through every stage, and the summary counts each tile once per group."""
    from benchmarks import vision_candidates as stages

    result = stages.stage_of_seed(3)
    assert len(result["tiles"]) == 2 and result["candidates"] > 0
    for tile in result["tiles"]:
        assert set(tile["passed"]) == set(stages.STAGES)
        # A tile is read from a frame that settled on it; a candidate that frames it lies in it.
        assert tile["passed"]["read"] <= tile["passed"]["settled"]
        assert tile["passed"]["found"] <= tile["passed"]["near"]
        # A tile is lost for a reason exactly when the read lost it.
        assert (tile["why_lost"] is None) == tile["passed"]["read"]
        assert tile["why_lost"] in (None, *stages.LOSSES)
    summary = stages.summarise([result, result])
    assert summary["all"]["read"]["tiles"] == 4
    assert summary[f"camera={result['camera']}"] == summary["all"]
    legible = [summary.get(f"legible={value}", {}).get("read", {}).get("tiles", 0) for value in (True, False)]
    assert sum(legible) == 4
    lost = stages.lost_by_reason([result, result])
    assert sum(lost.get("all", {}).values()) == 4 - summary["all"]["read"]["passed"]


def test_a_lost_tile_is_lost_for_the_first_reason_that_holds() -> None:
    """Illegible pips before anything the reader did; a tile read as another before what the
    reader says at its true frame; and the framing only when the reader reads it right and sure there."""
    from benchmarks.vision_candidates import why_lost

    def passed(read: bool, at_frame: bool) -> dict[str, bool]:
        return {"near": True, "found": True, "settled": True, "read": read, "at its frame": at_frame}

    cases = [  # (read, at its frame, legible, another tile read there, right at its frame) -> why
        ((True, False, False, True, False), None),
        ((False, True, False, True, True), "illegible"),
        ((False, False, True, True, False), "read as another tile"),
        ((False, False, True, False, False), "misread at its frame"),
        ((False, False, True, False, True), "unsure at its frame"),
        ((False, True, True, False, True), "framing"),
    ]
    for (read, at_frame, legible, other, right), why in cases:
        assert why_lost(passed(read, at_frame), legible, other, right) == why


def _perfect(frame: Any, background: Any = None) -> dict[str, Any]:
    """A reader that knows the labels, legible or not."""
    return {"tiles": list(frame.labels["tiles"])}


def test_legibility_splits_the_labelled_tiles_and_recall_on_the_legible_ones_adds_up(
        capsys: pytest.CaptureFixture[str]) -> None:
    wrong = bench.score_widened(3, 3, size=SMALL, reader=_one_wrong, legibility=True)
    perfect = bench.score_widened(3, 3, size=SMALL, reader=_perfect, legibility=True)
    assert wrong is not None and perfect is not None
    assert [r.illegible for r in wrong] == [r.illegible for r in perfect]
    for results in (wrong, perfect):
        figures = bench.widened_figures(results)
        _adds_up(figures, 3)
        total = figures["overall"]
        assert total["legible_tiles"] + total["illegible_tiles"] == total["tiles_labelled"]
        assert total["legible_tiles_right"] + total["illegible_tiles_read"] == total["tiles_right"]
        named = [list(r.illegible or ()) for r in results]
        assert [image["illegible"] for image in figures["images"]] == named
    assert bench.widened_figures(perfect)["overall"]["legible_recall"] == 1.0
    assert bench.widened_figures(perfect)["overall"]["exact_but_for_illegible_images"] == 3
    total = bench.widened_figures(wrong)["overall"]
    assert total["legible_tiles_right"] < total["legible_tiles"]  # it misses each image's first tile
    bench.widened_report("widened", bench.widened_figures(wrong))
    assert "legible tiles (weakest pip's contrast >=" in capsys.readouterr().out
    unmeasured = bench.score_widened(1, 3, size=SMALL, reader=_perfect)
    assert unmeasured is not None
    assert "legible_recall" not in bench.widened_figures(unmeasured)["overall"]
