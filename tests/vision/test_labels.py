"""Labels for `vision eval` and the accuracy benchmarks: the set's size, kept apart from the photos
(checked by SHA-256), and tile names in either order."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import cv2
import pytest

import vision.read
from referee.app.cli import main
from tests.vision.conftest import Painted, paint_tile, table
from vision.errors import VisionError
from vision.evaluate import label_max_pip, labelled_image, load_labels, score_image


def _photo(folder: Path) -> Path:
    image = table(600, 400)
    paint_tile(image, Painted(1, 6, (300, 200), 10, 40))
    path = folder / "one.png"
    cv2.imwrite(str(path), image)
    return path


def test_labels_kept_apart_from_the_photos_are_checked_against_the_very_file(tmp_path, capsys):
    photos, elsewhere = tmp_path / "clone", tmp_path / "ours"
    photos.mkdir(), elsewhere.mkdir()
    photo = _photo(photos)
    labels = elsewhere / "theirs.json"
    labels.write_text(json.dumps({"images": {"one.png": {
        "sha256": hashlib.sha256(photo.read_bytes()).hexdigest(), "tiles": [{"tile": "6-1"}]}}}))
    assert main(["vision", "eval", str(photos), "--labels", str(labels), "--json"]) == 0
    total = json.loads(capsys.readouterr().out)["total"]
    assert total["precision"] == total["recall"] == 1.0 and total["exact_images"] == 1
    # The same name, other pixels: the labels are not about this file.
    cv2.imwrite(str(photo), table(600, 400))
    assert main(["vision", "eval", str(photos), "--labels", str(labels)]) == 1
    err = capsys.readouterr().err
    assert "one.png: not the labelled file" in err and "SHA-256" in err
    assert main(["vision", "eval", str(photos), "--labels", str(elsewhere / "none.json")]) == 1
    assert "none.json: no such labels file" in capsys.readouterr().err


def test_the_labels_say_the_sets_size_whatever_the_command_line_says(tmp_path, capsys, monkeypatch):
    _photo(tmp_path)
    cv2.imwrite(str(tmp_path / "two.png"), table(600, 400, seed=1))
    (tmp_path / "labels.json").write_text(json.dumps({"max_pip": 9, "images": {
        "one.png": {"tiles": [{"tile": "1-6"}]}, "two.png": {"max_pip": 12, "tiles": []}}}))
    told: list[int] = []
    real_read = vision.read.read_image

    def read(image, **kwargs):
        told.append(kwargs["max_pip"])
        return real_read(image, **kwargs)

    monkeypatch.setattr(vision.read, "read_image", read)
    assert main(["vision", "eval", str(tmp_path), "--max-pip", "6"]) == 0
    assert sorted(told) == [9, 12]
    labels = load_labels(tmp_path)
    assert label_max_pip(labels["one.png"], 6) == 9 and label_max_pip(labels["two.png"], 6) == 12
    (tmp_path / "labels.json").write_text(json.dumps({"images": {"one.png": {"tiles": []}}}))
    assert label_max_pip(load_labels(tmp_path)["one.png"], 6) == 6


@pytest.mark.parametrize(("where", "value", "named"), [
    ("file", 0, "max_pip"), ("file", 13, "max_pip"), ("image", "6", "images.one.png.max_pip"),
    ("image", True, "images.one.png.max_pip"), ("image", 6.5, "images.one.png.max_pip"),
])
def test_a_set_size_the_reader_cannot_read_is_named(tmp_path, where, value, named):
    label: dict = {"tiles": []}
    document: dict = {"images": {"one.png": label}}
    (document if where == "file" else label)["max_pip"] = value
    (tmp_path / "labels.json").write_text(json.dumps(document))
    with pytest.raises(VisionError, match=rf"labels.json: {named}: expected a whole number from 1 to 12, "
                                          rf"got {value!r}"):
        load_labels(tmp_path)


@pytest.mark.parametrize("digest", ["ABC", "F" * 64, 12, ""])
def test_a_digest_that_is_no_sha256_is_named(tmp_path, digest):
    document = {"images": {"one.png": {"sha256": digest, "tiles": []}}}
    (tmp_path / "labels.json").write_text(json.dumps(document))
    with pytest.raises(VisionError, match=r"images.one.png.sha256: expected 64 lowercase hex digits"):
        load_labels(tmp_path)


def test_a_labelled_photo_that_is_missing_or_empty_is_named(tmp_path):
    with pytest.raises(VisionError, match=r"gone\.png: no such image file"):
        labelled_image(tmp_path, "gone.png", {"tiles": []})
    (tmp_path / "empty.png").write_bytes(b"")
    with pytest.raises(VisionError, match=r"empty\.png: empty file"):
        labelled_image(tmp_path, "empty.png", {"tiles": []})


def test_labelled_tiles_and_joins_match_in_either_order():
    seen = {"tiles": [{"tile": "1-6"}, {"tile": "6-6"}], "joins": [["6-6", "1-6"]]}
    label = {"tiles": [{"tile": "6-1"}, {"tile": "6-6"}], "joins": [["6-1", "6-6"]]}
    score = score_image("x", seen, label)
    assert score.exact and score.true_positives == 2 and score.joins_right == 1
    odd = score_image("x", seen, {"tiles": [{"tile": "one-six"}, {"tile": "6-6"}]})
    assert odd.true_positives == 1 and odd.missing == {"one-six": 1}


PUBLISHED = sorted((Path(__file__).resolve().parents[2] / "benchmarks" / "photos").glob("*.json"))


@pytest.mark.parametrize("labels", PUBLISHED, ids=lambda path: path.name)
def test_the_labels_kept_for_published_photos_load_and_name_real_tiles(tmp_path, labels):
    """Each file in benchmarks/photos loads as `vision eval --labels` reads it, pins every photo by
    its SHA-256 and names its source, and every tile it names is one of its set's."""
    images = load_labels(tmp_path, labels)
    assert images
    source = json.loads(labels.read_text(encoding="utf-8"))["source"]
    assert source["repository"].startswith("https://github.com/") and len(source["commit"]) == 40
    for label in images.values():
        assert len(label["sha256"]) == 64
        for tile in label["tiles"]:
            halves = [int(half) for half in tile["tile"].split("-")]
            assert len(halves) == 2 and all(0 <= half <= label_max_pip(label, 6) for half in halves), tile
