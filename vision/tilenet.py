"""The tile reader: a small convolutional network that reads one upright crop of a candidate tile.

For each crop (`vision.crops`) it answers what the crop holds (`KINDS`: not a tile, a face-down
tile, a face-up tile), the pips of the half at its top and at its bottom (0..`MAX_PIPS`, so
double-nine and double-twelve sets too), and where the tile really lies (the five geometry
numbers of `vision.crops.refined`). Its probabilities are calibrated: the logits are divided by
the temperature fitted on held-out crops (`manifest.json`), so a 0.9 is right nine times in ten.

The network is trained by `vision.train` on rendered tables only and shipped as ONNX in
`vision/models/`; OpenCV's `cv2.dnn` runs it, so reading needs nothing beyond OpenCV and NumPy,
on a PC or a Raspberry Pi (ONNX Runtime, when installed, runs it faster: `vision.onnx`). Shapes:
input float32 (N, 3, CROP_HEIGHT, CROP_WIDTH) as `vision.crops.normalised` makes it; outputs
`kind` (N, 3), `top` and `bottom` (N, MAX_PIPS + 1) logits, `geometry` (N, 5).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from vision.crops import CROP_HEIGHT, CROP_WIDTH, GEOMETRY_SIZE, normalised
from vision.errors import VisionError
from vision.onnx import Network

KINDS = ("not a tile", "face-down", "face-up")
NOT_A_TILE, BACK, FACE_UP = range(3)
MAX_PIPS = 12
OUTPUTS = ("kind", "top", "bottom", "geometry")
MODEL_DIR = Path(__file__).resolve().parent / "models"
MODEL_FILE = "tilenet.onnx"
MANIFEST_FILE = "manifest.json"
# The views of a crop `TileNet.read_mirrored` reads: steps along its rows and its columns (-1:
# reversed). Upright, turned half round, mirrored across (its halves stay), mirrored along (they swap).
MIRRORS = ((1, 1), (-1, -1), (1, -1), (-1, 1))
BATCH = 256  # crops per forward pass: bounds the memory a frame full of candidates can take


@dataclass(frozen=True)
class Readings:
    """The network's calibrated answers for N crops."""

    kind: np.ndarray  # float32 (N, 3) probabilities over KINDS
    top: np.ndarray  # float32 (N, MAX_PIPS + 1) probabilities of the top half's pips
    bottom: np.ndarray  # float32 (N, MAX_PIPS + 1) ... of the bottom half's
    geometry: np.ndarray  # float32 (N, 5)

    def __len__(self) -> int:
        return len(self.kind)

    def rows(self, index: np.ndarray) -> Readings:
        """The readings of the crops `index` picks (a boolean mask or positions)."""
        return Readings(self.kind[index], self.top[index], self.bottom[index], self.geometry[index])

    @staticmethod
    def joined(parts: list[Readings]) -> Readings:
        """`parts`' readings one after another (at least one part)."""
        fields = ("kind", "top", "bottom", "geometry")
        return Readings(*(np.concatenate([getattr(p, f) for p in parts]) for f in fields))


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    z = logits.astype(np.float64) / temperature
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    probabilities: np.ndarray = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    return probabilities


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class TileNet:
    """The shipped (or any exported) reader, loaded once per process."""

    def __init__(self, model_dir: Path = MODEL_DIR) -> None:
        model, manifest = model_dir / MODEL_FILE, model_dir / MANIFEST_FILE
        try:
            self.manifest: dict[str, Any] = json.loads(manifest.read_text())
        except (OSError, ValueError) as error:
            raise VisionError(f"cannot load the tile reader from {model_dir}: {error}") from error
        self.net = Network(model, "tile reader", OUTPUTS)
        shape = self.manifest.get("input")
        if shape != [3, CROP_HEIGHT, CROP_WIDTH]:
            raise VisionError(
                f"{manifest}: the model reads crops of {shape}, this code makes "
                f"{[3, CROP_HEIGHT, CROP_WIDTH]}: retrain it (make model)"
            )
        self.temperature = float(self.manifest["temperature"])

    def read(self, batch: np.ndarray) -> Readings:
        """Readings of uint8 (N, CROP_HEIGHT, CROP_WIDTH, 3) crops."""
        parts = [self._forward(normalised(batch[i : i + BATCH])) for i in range(0, len(batch), BATCH)]
        if not parts:
            empty = np.zeros((0, MAX_PIPS + 1), np.float32)
            return Readings(
                np.zeros((0, 3), np.float32), empty, empty, np.zeros((0, GEOMETRY_SIZE), np.float32)
            )
        kind, top, bottom, geometry = (np.concatenate([p[i] for p in parts]) for i in range(4))
        t = self.temperature
        return Readings(softmax(kind, t), softmax(top, t), softmax(bottom, t), geometry.astype(np.float32))

    def read_mirrored(self, batch: np.ndarray, upright: Readings | None = None) -> Readings:
        """Readings of uint8 (N, CROP_HEIGHT, CROP_WIDTH, 3) crops, each read as it is, turned half
        round, and mirrored across and along (`MIRRORS`), and the four answers agreed: each
        probability the geometric mean of the four, normalised. A tile reads the same in every
        view (its halves swap places when turned or mirrored along), a misread seldom does. The
        geometry is the upright view's. `upright`: the crops' own readings, when the caller has
        them already (the upright view is then not read again)."""
        views = [upright if upright is not None and (rows, columns) == (1, 1)
                 else self.read(np.ascontiguousarray(batch[:, ::rows, ::columns]))
                 for rows, columns in MIRRORS]

        def agreed(probabilities: list[np.ndarray]) -> np.ndarray:
            log = np.mean([np.log(np.maximum(p, 1e-12)) for p in probabilities], axis=0)
            return softmax(log)

        halves = [(v.bottom, v.top) if rows < 0 else (v.top, v.bottom)
                  for v, (rows, _) in zip(views, MIRRORS, strict=True)]
        return Readings(agreed([v.kind for v in views]), agreed([top for top, _ in halves]),
                        agreed([bottom for _, bottom in halves]), views[0].geometry)

    def _forward(self, x: np.ndarray) -> list[np.ndarray]:
        out = self.net.run(x)
        return [np.asarray(o).reshape(len(x), -1) for o in out]


@cache
def shipped() -> TileNet:
    """The model in `vision/models`, loaded on first use."""
    return TileNet()
