"""The cropped-tiles benchmark (`benchmarks.vision_cropped`): where it puts a tile in its crop, and
that a crop's read is counted as it came out."""

from __future__ import annotations

import json
import math

import cv2
import numpy as np
import pytest

from benchmarks import vision_cropped as bench
from tests.vision.conftest import Painted, paint_tile, table


@pytest.mark.parametrize("turn", bench.TURNS)
@pytest.mark.parametrize("margin", [0.0, bench.MARGIN])
def test_a_crop_holds_the_tile_at_its_length_and_turn_inside_its_margin(turn: float, margin: float) -> None:
    image = table(600, 400, seed=1)
    corners = Painted(2, 5, (300, 200), 30.0, 40).corners().astype(np.float32)
    condition = bench.Condition(120, turn, margin)
    crop, placed = bench.cropped(image, corners, condition)
    assert np.linalg.norm(placed[3] - placed[0]) == pytest.approx(120, abs=0.01)  # the length
    assert np.linalg.norm(placed[1] - placed[0]) == pytest.approx(60, abs=0.01)  # the width
    along = placed[3] - placed[0]
    assert math.degrees(math.atan2(along[0], along[1])) % 180 == pytest.approx((-turn) % 180, abs=0.01)
    height, width = crop.shape[:2]
    assert placed.min(axis=0) == pytest.approx([margin * 120] * 2, abs=0.01)
    assert [width, height] == pytest.approx(placed.max(axis=0) + margin * 120, abs=1)


def test_each_crop_is_counted_as_it_was_read(tmp_path, capsys) -> None:
    image = table(700, 500, seed=4)
    tile = Painted(3, 6, (350, 250), 20.0, 45)
    paint_tile(image, tile)
    picture = bench.Picture("painted", image, [("3-6", tile.corners().astype(np.float32))], 6)
    wrong = bench.Picture("painted", image, [("1-1", tile.corners().astype(np.float32))], 6)
    blank = bench.Picture("blank", table(700, 500, seed=5), [("3-6", tile.corners().astype(np.float32))], 6)
    conditions = (bench.Condition(120, 0.0, 0.0), bench.Condition(300, 45.0, bench.MARGIN))
    counts = bench.run([picture, wrong, blank], 3, conditions)
    for condition in conditions:
        assert counts[condition] == {"read": 1, "other": 1, "nothing": 1}
    bench.report(counts, "painted")
    assert "120 px, turned 0 deg, margin 0" in capsys.readouterr().out
    written = bench.to_json(counts)
    assert written[0] == {"length": 120, "turn": 0.0, "margin": 0.0, "read": 1, "nothing": 1, "other": 1}


def test_photos_are_cropped_where_their_read_found_them(tmp_path, capsys) -> None:
    image = table(900, 600, seed=3)
    for tile in (Painted(2, 5, (250, 300), 0, 30), Painted(3, 3, (600, 300), 90, 30)):
        paint_tile(image, tile)
    cv2.imwrite(str(tmp_path / "a.png"), image)
    (tmp_path / "labels.json").write_text(json.dumps({"images": {"a.png": {
        "tiles": [{"tile": "2-5"}, {"tile": "4-4"}]}}}))  # the 3-3 is not labelled: not cropped
    [picture] = list(bench.photo_pictures(tmp_path))
    assert [name for name, _ in picture.tiles] == ["2-5"]
    assert bench.main([str(tmp_path), "--tables", "0", "--json", str(tmp_path / "out.json")]) == 0
    photos = json.loads((tmp_path / "out.json").read_text())["photos"]
    assert len(photos) == len(bench.CONDITIONS)
    assert all(row["read"] + row["nothing"] + row["other"] == 1 for row in photos)


def test_without_labelled_photos_it_says_it_skipped_them(tmp_path, capsys) -> None:
    assert bench.main([str(tmp_path), "--tables", "0"]) == 0
    assert "vision_cropped: photos skipped" in capsys.readouterr().out


def test_widened_tables_give_their_labelled_tiles_and_their_sets_size() -> None:
    [picture] = list(bench.widened_pictures(range(bench.WIDENED_SEED, bench.WIDENED_SEED + 1)))
    from vision.synth.widened import render_widened

    labels = render_widened(bench.WIDENED_SEED).labels
    assert picture.max_pip == labels["max_pip"]
    assert [name for name, _ in picture.tiles] == [t["tile"] for t in labels["tiles"]]
    for (_, corners), labelled in zip(picture.tiles, labels["tiles"], strict=True):
        np.testing.assert_allclose(corners, labelled["corners"], atol=1e-3)
