"""Scoring `vision read` against a labelled folder (`labels.json`).

Tiles are matched by the multiset of their values per image (labels carry no corners): a predicted
tile is right when the image's labels still hold an unmatched tile of the same value. Joins are
compared as unordered pairs of tile names, where the labels list them.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision.errors import VisionError


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


def _join_key(join: Any) -> tuple[str, str]:
    tiles = join["tiles"] if isinstance(join, dict) else join
    return tuple(sorted(str(t) for t in tiles))  # type: ignore[return-value]


def score_image(name: str, seen: dict[str, Any], label: dict[str, Any]) -> ImageScore:
    """Compare one image's `to_json()` document with its label."""
    got = Counter(str(t["tile"]) for t in seen.get("tiles", []))
    want = Counter(str(t["tile"]) for t in label.get("tiles", []))
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


def load_labels(folder: str | Path) -> dict[str, dict[str, Any]]:
    path = Path(folder) / "labels.json"
    if not path.is_file():
        raise VisionError(f"{folder}: no labels.json in this folder")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise VisionError(f"{path}: not readable JSON ({error})") from error
    images = document.get("images") if isinstance(document, dict) else None
    if not isinstance(images, dict) or not images:
        raise VisionError(f"{path}: expected an object with a non-empty 'images' object")
    for name, label in images.items():
        if not isinstance(label, dict) or not isinstance(label.get("tiles", []), list):
            raise VisionError(f"{path}: images.{name}: expected an object with a 'tiles' list")
    return images


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
