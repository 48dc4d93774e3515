"""The values vision hands out: a face-up tile seen in an image (`SeenTile`), what one image
shows (`TableView`), and what the tracker reports of a table over time (the `Observation`s).
Every stage, the tracker and the application share these; they import no stage."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["BoneyardChanged", "Desync", "Observation", "Resynced", "SeenTile", "TableView", "TileMoved",
           "TilePlaced", "TileRemoved", "TilesRevealed", "Verdict", "tile_name"]


def tile_name(a: int, b: int) -> str:
    """Canonical tile name, low value first: (5, 2) -> '2-5'."""
    low, high = sorted((int(a), int(b)))
    return f"{low}-{high}"


@dataclass(frozen=True)
class SeenTile:
    """A face-up tile: `tile` is its canonical name, `a` the value of the half at corners[0]-corners[1].

    `corners` is float32 (4, 2) image px, clockwise on screen; `confidence` 0..1.
    """

    tile: str
    a: int
    b: int
    corners: np.ndarray = field(repr=False)
    confidence: float

    @property
    def is_double(self) -> bool:
        return self.a == self.b

    def to_json(self) -> dict[str, Any]:
        return {"tile": self.tile, "a": self.a, "b": self.b,
                "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
                "confidence": round(float(self.confidence), 3)}


@dataclass(frozen=True)
class Verdict:
    """What the tile reader said of one candidate it looked at: for `--debug` pictures.

    `corners` float32 (4, 2) image px where it last looked, `kind` one of `vision.tilenet.KINDS`,
    `confidence` that kind's calibrated probability; or `kind` "unchanged table"
    (`vision.background.UNCHANGED`), a face-up reading dropped because its place had not changed
    since the background was taken, and `confidence` the share of its cells that had; or `kind`
    "repeat" (`vision.pipeline.REPEAT`), a face-up reading dropped because a likelier one read the
    same tile of a set that holds it once, and `confidence` its own; or `kind` "not the set's
    size" (`vision.pipeline.OFF_SIZE`), a face-up reading dropped because its size is not that of
    the other tiles read, and `confidence` its own."""

    corners: np.ndarray = field(repr=False)
    kind: str
    confidence: float


@dataclass(frozen=True)
class TableView:
    """What one image shows: face-up tiles, face-down tiles and the joins between face-up tiles.

    `candidates` holds the reader's verdict on every candidate it looked at (not in the JSON)."""

    tiles: tuple[SeenTile, ...]
    face_down_corners: tuple[np.ndarray, ...] = ()
    joins: tuple[tuple[str, str], ...] = ()
    join_halves: tuple[tuple[int, str, int, str], ...] = ()  # (tile index, 'a'/'b', index, 'a'/'b')
    candidates: tuple[Verdict, ...] = field(default=(), repr=False, compare=False)

    @property
    def face_down(self) -> int:
        return len(self.face_down_corners)

    def to_json(self) -> dict[str, Any]:
        """The per-image document of `vision read --json`."""
        return {"tiles": [tile.to_json() for tile in self.tiles], "face_down": self.face_down,
                "joins": [list(pair) for pair in self.joins]}


# -- what the tracker reports (see vision.tracker) ---------------------------------------------

@dataclass(frozen=True)
class Observation:
    t: float


@dataclass(frozen=True)
class TilePlaced(Observation):
    tile: str
    end: str | None
    near: int
    far: int
    corners: np.ndarray = field(repr=False, compare=False)


@dataclass(frozen=True)
class TileRemoved(Observation):
    tile: str


@dataclass(frozen=True)
class TileMoved(Observation):
    tile: str
    corners: np.ndarray = field(repr=False, compare=False)


@dataclass(frozen=True)
class BoneyardChanged(Observation):
    count: int


@dataclass(frozen=True)
class TilesRevealed(Observation):
    zone: str
    tiles: tuple[str, ...]


@dataclass(frozen=True)
class Desync(Observation):
    reason: str


@dataclass(frozen=True)
class Resynced(Observation):
    pass
