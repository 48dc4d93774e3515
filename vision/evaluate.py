"""Scoring `vision read` against a labelled folder (`labels.json`).

Tiles are matched by the multiset of their values per image (labels carry no corners): a predicted
tile is right when the image's labels still hold an unmatched tile of the same value. Joins are
compared as unordered pairs of tile names, where the labels list them.

A labels file may say the set's size (`max_pip`, for the whole file or per image: a double-twelve
set's photos are read as double-twelve whatever the command line says) and each image's SHA-256
(`sha256`): labels kept apart from the photos they describe (photos that are someone else's to
publish, in a clone of their own) are then checked against the very file they were written for.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.errors import VisionError
from vision.image import decode_image, image_file_bytes
from vision.types import tile_name

LABELS_FILE = "labels.json"
MAX_PIP_RANGE = (1, 12)  # the sets the reader reads: double-one to double-twelve


@dataclass(frozen=True)
class ImageScore:
    name: str
    true_positives: int
    predicted: int
    labelled: int
    exact: bool
    face_down_error: int | None
    joins_right: int | None
    joins_labelled: int | None
    joins_predicted: int | None
    extra: dict[str, int]
    missing: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {"precision": _ratio(self.true_positives, self.predicted),
                "recall": _ratio(self.true_positives, self.labelled), "exact": self.exact,
                "tiles_right": self.true_positives, "tiles_seen": self.predicted,
                "tiles_labelled": self.labelled, "face_down_error": self.face_down_error,
                "joins_right": self.joins_right, "joins_labelled": self.joins_labelled,
                "joins_seen": self.joins_predicted, "extra": self.extra, "missing": self.missing}


def _ratio(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 1.0


def labelled_tile(tile: Any) -> str:
    """A labelled tile's name as the reader writes it (`vision.types.tile_name`): "6-1" is "1-6".
    Anything that is not two whole numbers is kept as it is, and matches nothing the reader writes."""
    halves = str(tile).split("-")
    if len(halves) == 2 and all(h.strip().isdecimal() for h in halves):
        return tile_name(int(halves[0]), int(halves[1]))
    return str(tile)


def _join_key(join: Any) -> tuple[str, str]:
    tiles = join["tiles"] if isinstance(join, dict) else join
    return tuple(sorted(labelled_tile(t) for t in tiles))  # type: ignore[return-value]


def score_image(name: str, seen: dict[str, Any], label: dict[str, Any]) -> ImageScore:
    """Compare one image's `to_json()` document with its label."""
    got = Counter(labelled_tile(t["tile"]) for t in seen.get("tiles", []))
    want = Counter(labelled_tile(t["tile"]) for t in label.get("tiles", []))
    right = sum((got & want).values())
    face_down_error = None
    if "face_down" in label:
        face_down_error = int(seen.get("face_down", 0)) - int(label["face_down"])
    joins_right = joins_labelled = joins_predicted = None
    if "joins" in label:
        got_joins = Counter(_join_key(j) for j in seen.get("joins", []))
        want_joins = Counter(_join_key(j) for j in label["joins"])
        joins_right = sum((got_joins & want_joins).values())
        joins_labelled, joins_predicted = sum(want_joins.values()), sum(got_joins.values())
    return ImageScore(name, right, sum(got.values()), sum(want.values()), got == want,
                      face_down_error, joins_right, joins_labelled, joins_predicted,
                      dict(got - want), dict(want - got))


def load_labels(folder: str | Path, labels: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """The labels of the images in `folder`: from `labels` if given, else `folder/labels.json`.
    Each image's label carries the file's `max_pip` unless it gives its own."""
    path = Path(labels) if labels is not None else Path(folder) / LABELS_FILE
    if not path.is_file():
        raise VisionError(f"{path}: no such labels file" if labels is not None
                          else f"{folder}: no {LABELS_FILE} in this folder")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise VisionError(f"{path}: not readable JSON ({error})") from error
    images = document.get("images") if isinstance(document, dict) else None
    if not isinstance(images, dict) or not images:
        raise VisionError(f"{path}: expected an object with a non-empty 'images' object")
    shared_max_pip = _max_pip(document.get("max_pip"), f"{path}: max_pip")
    checked = {}
    for name, label in images.items():
        if not isinstance(label, dict) or not isinstance(label.get("tiles", []), list):
            raise VisionError(f"{path}: images.{name}: expected an object with a 'tiles' list")
        own = _max_pip(label.get("max_pip"), f"{path}: images.{name}.max_pip")
        digest = label.get("sha256")
        if digest is not None and not (isinstance(digest, str) and re.fullmatch("[0-9a-f]{64}", digest)):
            raise VisionError(f"{path}: images.{name}.sha256: expected 64 lowercase hex digits, "
                              f"got {digest!r}")
        max_pip = own if own is not None else shared_max_pip
        checked[name] = label if max_pip is None else {**label, "max_pip": max_pip}
    return checked


def _max_pip(value: Any, where: str) -> int | None:
    low, high = MAX_PIP_RANGE
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise VisionError(f"{where}: expected a whole number from {low} to {high}, got {value!r}")
    return value


def label_max_pip(label: dict[str, Any], default: int) -> int:
    """The set's size for a labelled image: its label's `max_pip`, else `default`."""
    return int(label.get("max_pip", default))


def labelled_image(folder: str | Path, name: str, label: dict[str, Any]) -> np.ndarray:
    """Image `name` of `folder` as uint8 BGR, checked against its label's `sha256` when it has one
    (`VisionError` naming the file and both digests when they differ)."""
    path = Path(folder) / name
    data = image_file_bytes(path)
    want = label.get("sha256")
    if want is not None:
        got = hashlib.sha256(data.tobytes()).hexdigest()
        if got != want:
            raise VisionError(f"{path}: not the labelled file (SHA-256 {got}, the label's {want})")
    return decode_image(data, name=str(path))


def summarise(scores: list[ImageScore]) -> dict[str, Any]:
    right = sum(s.true_positives for s in scores)
    seen = sum(s.predicted for s in scores)
    labelled = sum(s.labelled for s in scores)
    face_down = [abs(s.face_down_error) for s in scores if s.face_down_error is not None]
    joins = [s for s in scores if s.joins_labelled is not None]
    return {
        "images": len(scores),
        "precision": _ratio(right, seen), "recall": _ratio(right, labelled),
        "exact_images": sum(s.exact for s in scores),
        "exact_accuracy": _ratio(sum(s.exact for s in scores), len(scores)),
        "face_down_mean_abs_error": round(sum(face_down) / len(face_down), 3) if face_down else None,
        "joins_precision": _ratio(sum(s.joins_right or 0 for s in joins),
                                  sum(s.joins_predicted or 0 for s in joins)) if joins else None,
        "joins_recall": _ratio(sum(s.joins_right or 0 for s in joins),
                               sum(s.joins_labelled or 0 for s in joins)) if joins else None,
    }
