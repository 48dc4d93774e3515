"""`vision read`, `vision eval` and the errors for frames that cannot be read."""

from __future__ import annotations

import json
import subprocess
import sys

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.app.cli import main
from tests.vision.conftest import ROOT, Painted, paint_tile, table
from vision.errors import VisionError
from vision.image import load_image
from vision.read import read_image


@pytest.mark.parametrize(("bad", "says"), [
    (None, "None"), (np.zeros((50, 50, 3), np.float32), "float32"),
    (np.zeros((50, 50, 2), np.uint8), "(50, 50, 2)"), (np.zeros((0, 0, 3), np.uint8), "empty"),
    (np.zeros((5, 5, 3), np.uint8), "too small"), ("photo.jpg", "str"),
])
def test_unreadable_frames_raise_vision_error(bad, says):
    with pytest.raises(VisionError) as info:
        read_image(bad)
    assert says in str(info.value)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("bad", [1.5, -0.1, float("nan"), "0.7", True, None])
def test_a_min_confidence_that_is_no_probability_is_a_clear_error(bad):
    image = table(texture="plain")
    with pytest.raises(VisionError, match=r"min_confidence must be a probability from 0 to 1, got "):
        read_image(image, min_confidence=bad)


@pytest.fixture(scope="module")
def three_tiles():
    image = table(seed=3)
    for painted in (Painted(2, 5, (250, 250), 30, 40), Painted(6, 6, (600, 300), 100, 40),
                    Painted(0, 4, (420, 520), 10, 40)):
        paint_tile(image, painted)
    read_from_nothing = {t.tile for t in read_image(image, min_confidence=0.0).tiles}
    assert read_from_nothing == {"2-5", "6-6", "0-4"}
    return image, read_from_nothing


@settings(max_examples=15, deadline=None)
@given(least=st.floats(0.0, 1.0))
def test_no_tile_read_is_less_sure_than_the_least_confidence_kept(three_tiles, least):
    image, read_from_nothing = three_tiles
    view = read_image(image, min_confidence=least)
    assert all(tile.confidence >= least for tile in view.tiles)
    assert {t.tile for t in view.tiles} <= read_from_nothing


def test_read_and_eval_take_the_least_confidence_kept(tmp_path, capsys):
    image = table(seed=2)
    paint_tile(image, Painted(2, 5, (300, 300), 30, 40))
    cv2.imwrite(str(tmp_path / "one.png"), image)
    (tmp_path / "labels.json").write_text(json.dumps({"images": {"one.png": {"tiles": [{"tile": "2-5"}]}}}))
    assert main(["vision", "read", str(tmp_path / "one.png"), "--json", "--min-confidence", "0"]) == 0
    [tile] = json.loads(capsys.readouterr().out)["images"]["one.png"]["tiles"]
    assert tile["tile"] == "2-5" and 0.0 <= tile["confidence"] <= 1.0
    assert main(["vision", "eval", str(tmp_path), "--min-confidence", "0.0"]) == 0
    assert "recall 1.000" in capsys.readouterr().out
    assert main(["vision", "eval", str(tmp_path), "--min-confidence", "1.5"]) == 1
    assert "min_confidence must be a probability from 0 to 1, got 1.5" in capsys.readouterr().err


def test_corrupt_and_missing_files(tmp_path):
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8 not really a jpeg")
    with pytest.raises(VisionError, match=r"broken\.jpg: not a readable image"):
        load_image(broken)
    with pytest.raises(VisionError, match="no such image file"):
        load_image(tmp_path / "absent.png")


def test_grey_images_are_accepted():
    image = table(texture="plain", colour=(90, 90, 90))
    paint_tile(image, Painted(1, 3, (300, 300), 40, 40))
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    assert [t.tile for t in read_image(grey).tiles] == ["1-3"]


def test_read_json_document(capsys, real_photos):
    assert main(["vision", "read", str(real_photos / "jm-7.jpeg"), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    image = document["images"]["jm-7.jpeg"]
    assert set(image) == {"tiles", "face_down", "joins"}
    assert sorted(t["tile"] for t in image["tiles"]) == ["0-0", "0-3", "4-6"]
    for tile in image["tiles"]:
        assert len(tile["corners"]) == 4
        assert tile["tile"] == "-".join(map(str, sorted((tile["a"], tile["b"]))))
    assert [sorted(j) for j in image["joins"]] == [["0-0", "0-3"]]


def test_read_debug_image(tmp_path, capsys, real_photos):
    out = tmp_path / "seen.png"
    assert main(["vision", "read", str(real_photos / "jm-4.jpeg"), "--debug", str(out)]) == 0
    assert "jm-4.jpeg: 4 face-up" in capsys.readouterr().out
    drawn, original = cv2.imread(str(out)), cv2.imread(str(real_photos / "jm-4.jpeg"))
    assert drawn.shape == original.shape and np.any(drawn != original)


def test_read_unreadable_file_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad.png"
    bad.write_text("hello")
    assert main(["vision", "read", str(bad)]) == 1
    assert "bad.png: not a readable image" in capsys.readouterr().err


def test_eval_on_a_labelled_folder(tmp_path, capsys):
    image = table()
    paint_tile(image, Painted(2, 4, (250, 250), 20, 40))
    paint_tile(image, Painted(5, 6, (600, 400), 95, 40))
    cv2.imwrite(str(tmp_path / "a.png"), image)
    labels = {"images": {"a.png": {"tiles": [{"tile": "2-4"}, {"tile": "5-6"}, {"tile": "0-0"}],
                                   "face_down": 0}}}
    (tmp_path / "labels.json").write_text(json.dumps(labels))
    assert main(["vision", "eval", str(tmp_path), "--json"]) == 0
    total = json.loads(capsys.readouterr().out)["total"]
    assert total["precision"] == 1.0 and total["recall"] == pytest.approx(2 / 3, abs=1e-3)
    assert total["exact_images"] == 0 and total["face_down_mean_abs_error"] == 0
    assert main(["vision", "eval", str(tmp_path)]) == 0
    assert "recall 0.667" in capsys.readouterr().out


def test_eval_without_labels_is_a_clear_error(tmp_path, capsys):
    assert main(["vision", "eval", str(tmp_path)]) == 1
    assert "no labels.json" in capsys.readouterr().err


def test_help_does_not_load_opencv():
    code = ("import sys; from referee.app.cli import build_parser; build_parser(); "
            "print('cv2' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                            check=True, env={"PYTHONPATH": str(ROOT)})
    assert result.stdout.strip() == "False"


def test_read_with_the_empty_table_as_background(tmp_path, capsys):
    empty = table(seed=4)
    paint_tile(empty, Painted(3, 3, (250, 250), 20, 40))  # on the table before the background was taken
    later = empty.copy()
    paint_tile(later, Painted(5, 6, (600, 400), 95, 40))
    cv2.imwrite(str(tmp_path / "empty.png"), empty)
    cv2.imwrite(str(tmp_path / "later.png"), later)
    later_png, empty_png, small_png = (str(tmp_path / n) for n in ("later.png", "empty.png", "small.png"))
    assert main(["vision", "read", later_png]) == 0
    assert "later.png: 2 face-up" in capsys.readouterr().out
    assert main(["vision", "read", later_png, "--background", empty_png]) == 0
    assert "later.png: 1 face-up [5-6]" in capsys.readouterr().out
    cv2.imwrite(str(tmp_path / "small.png"), empty[::2, ::2])
    assert main(["vision", "read", later_png, "--background", small_png]) == 1
    assert "the background is 450x350 px but the image is 900x700" in capsys.readouterr().err


def test_read_with_the_cameras_calibration(tmp_path, capsys):
    from tests.vision.test_rectify import filmed

    picture, calibration = filmed(0.45)
    cv2.imwrite(str(tmp_path / "leaning.png"), picture)
    calibration.save(tmp_path / "calibration.json")
    leaning = str(tmp_path / "leaning.png")
    assert main(["vision", "read", leaning, "--calibration", str(tmp_path / "calibration.json")]) == 0
    assert "leaning.png: 6 face-up [" in capsys.readouterr().out
    (tmp_path / "broken.json").write_text("{")
    assert main(["vision", "read", leaning, "--calibration", str(tmp_path / "broken.json")]) == 1
    assert "broken.json" in capsys.readouterr().err


def test_read_and_eval_told_the_picture_shows_one_set(tmp_path, capsys):
    image = table(seed=6)
    paint_tile(image, Painted(1, 4, (250, 250), 20, 40))
    paint_tile(image, Painted(4, 1, (600, 420), 95, 40))  # one set has one 1-4: a misread
    cv2.imwrite(str(tmp_path / "twice.png"), image)
    (tmp_path / "labels.json").write_text(json.dumps({"images": {"twice.png": {"tiles": [{"tile": "1-4"}]}}}))
    assert main(["vision", "read", str(tmp_path / "twice.png")]) == 0
    assert "twice.png: 2 face-up [1-4 1-4]" in capsys.readouterr().out
    assert main(["vision", "read", str(tmp_path / "twice.png"), "--one-set"]) == 0
    assert "twice.png: 1 face-up [1-4]" in capsys.readouterr().out
    assert main(["vision", "eval", str(tmp_path), "--json", "--one-set"]) == 0
    assert json.loads(capsys.readouterr().out)["total"]["precision"] == 1.0
