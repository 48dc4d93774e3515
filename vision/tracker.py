"""Turn a stream of frames into table observations, committing only what stays put.

The tracker commits a frame only once the picture has been quiet (no motion between frames) for
`stable_frames` frames and differs from the last committed picture; a moving hand is never read
at all. With `read_ahead` (the default) the read itself starts a frame early, and the next quiet
frame commits it. With `incremental` (the default) only the part of the frame that changed is
read, grown by about a tile's length on every side, and the rest of the table is taken from what
was committed: a play costs a read of a few tiles' area, not of the whole table.

A change is committed only when every changed pixel is explained by tiles that appeared,
left or moved: a hand resting over the table, its shadow, or a lamp flicker leave changes no tile
explains, so they never become a play. Observations:

- `TilePlaced(tile, end, near, far, corners)`: a face-up tile entered the line of play; `end` is the
  open end it joins (left/right/up/down, from geometry: which end tile it touches and which half
  touches it), None for the lead or a tile touching no open end. For the lead, `near`/`far` are
  its left/right values.
- `TileRemoved(tile)`, `TileMoved(tile, corners)`, `BoneyardChanged(count)`,
  `TilesRevealed(zone, tiles)` (face-up tiles laid in a seat's zone), and `Desync(reason)` /
  `Resynced()` when the table contradicts, then again matches, what was committed.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import cv2
import numpy as np

from vision.background import differs
from vision.calibration import Calibration, CalibrationError, TableLayout, calibrate_from_markers
from vision.plane import project
from vision.rectify import cropped
from vision.types import (
    BoneyardChanged,
    Desync,
    Observation,
    Resynced,
    TableView,
    TileMoved,
    TilePlaced,
    TileRemoved,
    TilesRevealed,
)

ANALYSIS_WIDTH = 320  # pixels: motion and change are judged on a small copy of the frame
# A partial read's crop reaches this many tile lengths past its core: only tiles centred in the
# core are taken from it, and such a tile reaches half a length past the core, the reader's crop
# of it 0.68 (`vision.crops.CROP_EXTENT` of a half-length).
PART_PAD = 0.75


class SeenTileLike(Protocol):
    tile: str
    a: int
    b: int
    corners: np.ndarray


class TableViewLike(Protocol):
    tiles: Sequence[Any]
    face_down: int


# Called as reader(frame, calibration=...): `vision.read.read_image` or one like it; the
# calibration is the camera's (of the frame, or of the part of it read: `vision.rectify.cropped`)
# when there is one, else None. With it the reader reads the table rectified (`vision.rectify`).
Reader = Callable[..., TableView]


@dataclass(frozen=True, eq=False)
class _SeenInPart:
    """A face-up tile of a view put together from a partial read and the committed table."""

    tile: str
    a: int
    b: int
    corners: np.ndarray


@dataclass(frozen=True, eq=False)
class _ComposedView:
    tiles: tuple[_SeenInPart, ...]
    face_down_corners: tuple[np.ndarray, ...]

    @property
    def face_down(self) -> int:
        return len(self.face_down_corners)


@dataclass(eq=False)  # identity: its arrays have no truth value
class _Tile:
    name: str
    a: int
    b: int
    image_corners: np.ndarray
    corners: np.ndarray  # tracker coordinates: table mm when calibrated, else image px
    zone: str | None
    in_line: bool = False

    @property
    def centre(self) -> np.ndarray:
        centre: np.ndarray = self.corners.mean(axis=0)
        return centre

    def halves(self) -> tuple[np.ndarray, np.ndarray]:
        c, centre = self.corners, self.corners.mean(axis=0)
        return ((c[0] + c[1]) / 2 + centre) / 2, ((c[2] + c[3]) / 2 + centre) / 2

    def long_axis(self) -> np.ndarray:
        h_a, h_b = self.halves()
        axis: np.ndarray = (h_b - h_a) / max(1e-9, float(np.linalg.norm(h_b - h_a)))
        return axis


@dataclass(eq=False)  # identity: its arrays have no truth value
class _End:
    value: int
    centre: np.ndarray
    direction: np.ndarray
    reach: float
    side: float
    tile: str


def _quad(corners: Any) -> np.ndarray:
    return np.asarray(corners, np.float64).reshape(4, 2)


def _cw(d: np.ndarray) -> np.ndarray:
    return np.array([-d[1], d[0]])


class Tracker:
    """Feed it `(t, frame)`; it returns the observations each frame completes."""

    def __init__(
        self,
        reader: Reader,
        *,
        calibration: Calibration | None = None,
        layout: TableLayout | None = None,
        stable_frames: int = 3,
        spinner: bool = False,
        motion_threshold: float = 0.002,
        unexplained_threshold: float = 0.003,
        nudge_tolerance: float = 0.4,
        reads_per_change: int = 3,
        incremental: bool = True,
        full_read_share: float = 0.5,
        read_ahead: bool = True,
    ) -> None:
        self.reader = reader
        self.calibration = calibration
        self.layout = calibration.layout if calibration else (layout or TableLayout())
        self.stable_frames, self.spinner = stable_frames, spinner
        self.motion_threshold, self.unexplained_threshold = motion_threshold, unexplained_threshold
        self.nudge_tolerance = nudge_tolerance
        self.reads_per_change = reads_per_change
        self.incremental, self.full_read_share = incremental, full_read_share
        self.read_ahead = read_ahead
        self.partial_reads = 0
        self._face_down_corners: list[np.ndarray] | None = None  # committed backs, image px
        self._new_boneyard = False
        self.tiles: list[_Tile] = []
        self.face_down = 0
        self.ends: dict[str, _End] = {}
        self.spinner_tile: str | None = None
        self.desync: str | None = None
        self.reads = 0
        self.rejected = 0
        self._previous: np.ndarray | None = None
        self._reference: np.ndarray | None = None
        self._last_read: np.ndarray | None = None
        self._quiet = 0
        self._tries = 0
        self._ahead: tuple[np.ndarray, np.ndarray, Any] | None = None  # (frame, small, view) read early

    # -- geometry --------------------------------------------------------------------------------

    @property
    def width(self) -> float:
        """A tile's short side in tracker coordinates."""
        if self.calibration is not None:
            return self.layout.tile_width_mm
        sides = [np.linalg.norm(t.corners[1] - t.corners[0]) for t in self.tiles]
        return float(np.median(sides)) if sides else 30.0

    def _to_tracker(self, corners: np.ndarray) -> np.ndarray:
        pts = np.asarray(corners, np.float64).reshape(4, 2)
        return self.calibration.to_table(pts) if self.calibration is not None else pts

    def _zone(self, point: np.ndarray) -> str | None:
        return self.layout.zone_of(point) if self.calibration is not None else "play"

    # -- frames ----------------------------------------------------------------------------------

    @staticmethod
    def _small(frame: np.ndarray) -> np.ndarray:
        h, w = frame.shape[:2]
        small = cv2.resize(
            frame, (ANALYSIS_WIDTH, max(1, round(h * ANALYSIS_WIDTH / w))), interpolation=cv2.INTER_AREA
        )
        return np.asarray(cv2.GaussianBlur(small, (3, 3), 0), np.int16)

    def feed(self, t: float, frame: np.ndarray) -> list[Observation]:
        if frame is None or frame.size == 0:
            return []
        if self.calibration is None:
            with contextlib.suppress(CalibrationError):  # no markers in view: stay in pixels
                self.calibration = calibrate_from_markers(frame, self.layout)
        small = self._small(frame)
        moving = (
            self._previous is None
            or float(np.mean(differs(small, self._previous, 18))) > self.motion_threshold
        )
        self._previous = small
        self._quiet = 0 if moving else self._quiet + 1
        # Read ahead: the picture is read one quiet frame early and committed on the next frame
        # if that one is quiet too, so the read's time overlaps the camera's last frame interval
        # instead of following it. (A frame that moves throws the early read away.)
        early = 1 if self.read_ahead and self.stable_frames >= 2 else 0
        ahead, self._ahead = self._ahead, None
        if self._quiet < self.stable_frames - early:
            return []
        if ahead is not None and self._quiet >= self.stable_frames:
            frame_read, small_read, view = ahead
            return self._consider(t, frame_read, small_read, view)
        if self._reference is not None and float(np.mean(differs(small, self._reference, 30))) < 0.0005:
            if self.desync is not None:  # the table is back as committed
                self.desync = None
                self._last_read = None
                return [Resynced(t)]
            return []  # the table looks as committed
        if self._last_read is not None and float(np.mean(differs(small, self._last_read, 18))) < 0.0005:
            if self._tries >= self.reads_per_change:
                return []  # read this picture enough times and could not explain it
            self._tries += 1
        else:
            self._tries = 1
        self._last_read = small
        self.reads += 1
        view = self._read(frame, small)
        if self._quiet < self.stable_frames:
            self._ahead = (frame, small, view)
            return []
        return self._consider(t, frame, small, view)

    def _read(self, frame: np.ndarray, small: np.ndarray) -> Any:
        """The reader's view of `frame`: of the changed part only when that is enough."""
        region = self._changed_region(frame, small) if self.incremental else None
        if region is None:
            return self.reader(frame, calibration=self.calibration)
        (x0, y0, x1, y1), (cx0, cy0, cx1, cy1) = region
        calibration = None
        if self.calibration is not None:
            calibration = cropped(self.calibration, x0, y0, x1 - x0, y1 - y0)
        part = self.reader(np.ascontiguousarray(frame[y0:y1, x0:x1]), calibration=calibration)
        self.partial_reads += 1
        offset = np.array([x0, y0], np.float64)

        def in_core(corners: np.ndarray) -> bool:
            x, y = _quad(corners).mean(axis=0)
            return bool(cx0 <= x < cx1 and cy0 <= y < cy1)

        tiles: list[Any] = [
            _SeenInPart(str(t.tile), int(t.a), int(t.b), _quad(t.corners) + offset) for t in part.tiles
        ]
        tiles = [t for t in tiles if in_core(t.corners)]
        tiles += [
            _SeenInPart(old.name, old.a, old.b, old.image_corners)
            for old in self.tiles
            if not in_core(old.image_corners)
        ]
        backs = [_quad(c) + offset for c in getattr(part, "face_down_corners", ())]
        backs = [c for c in backs if in_core(c)]
        assert self._face_down_corners is not None  # _changed_region checked it
        backs += [c for c in self._face_down_corners if not in_core(c)]
        return _ComposedView(tuple(tiles), tuple(backs))

    def _changed_region(
        self, frame: np.ndarray, small: np.ndarray
    ) -> tuple[tuple[int, int, int, int], tuple[int, int, int, int]] | None:
        """(crop, core) boxes in image px, x0 y0 x1 y1: the core holds every pixel changed since
        the last commit and half a tile around it, the crop adds `PART_PAD` so tiles centred in
        the core are read whole. None when a whole read is needed: nothing committed yet, backs
        not known, a change over much of the frame, or a change in the boneyard (always, uncalibrated:
        then the boneyard's place is unknown)."""
        if self._reference is None or self._face_down_corners is None:
            return None
        changed = differs(small, self._reference, 30).astype(np.uint8)
        points = cv2.findNonZero(changed)
        if points is None:
            return None
        h, w = frame.shape[:2]
        scale = w / small.shape[1]
        x, y, bw, bh = cv2.boundingRect(points)
        tile_px = self._tile_length_px()
        grow = 0.5 * tile_px + 2 * scale
        core = (max(0, int(x * scale - grow)), max(0, int(y * scale - grow)),
                min(w, int((x + bw) * scale + grow)), min(h, int((y + bh) * scale + grow)))
        pad = PART_PAD * tile_px
        crop = (max(0, int(core[0] - pad)), max(0, int(core[1] - pad)),
                min(w, int(core[2] + pad)), min(h, int(core[3] + pad)))
        if (crop[2] - crop[0]) * (crop[3] - crop[1]) > self.full_read_share * w * h:
            return None
        if self._boneyard_changed(changed, 1 / scale):
            return None  # backs are counted against the whole table's colour, not a crop's
        return crop, core

    # -- comparing a view with what was committed ------------------------------------------------

    def _seen(self, view: Any) -> list[_Tile]:
        seen = []
        for tile in view.tiles:
            corners = np.asarray(tile.corners, np.float64).reshape(4, 2)
            mapped = self._to_tracker(corners)
            seen.append(
                _Tile(
                    str(tile.tile), int(tile.a), int(tile.b), corners, mapped, self._zone(mapped.mean(axis=0))
                )
            )
        return seen

    def _consider(self, t: float, frame: np.ndarray, small: np.ndarray, view: Any) -> list[Observation]:
        seen = self._seen(view)
        tol = self.nudge_tolerance * self.width
        unmatched = list(range(len(seen)))
        present: list[tuple[_Tile, _Tile]] = []
        removed: list[_Tile] = []
        for old in self.tiles:
            candidates = [i for i in unmatched if seen[i].name == old.name]
            if not candidates:
                removed.append(old)
                continue
            best = min(candidates, key=lambda i: float(np.linalg.norm(seen[i].centre - old.centre)))
            unmatched.remove(best)
            present.append((old, seen[best]))
        # Nobody plays into the boneyard: a face-up reading there is backs misread (two backs end
        # to end look like a blank double), never a play.
        added = [seen[i] for i in unmatched if seen[i].zone != "boneyard"]
        moved = [(old, new) for old, new in present if np.linalg.norm(new.centre - old.centre) > tol]
        face_down = int(view.face_down)
        if self._reference is not None:
            # The reader's claims must agree with the pixels: a tile whose place did not change
            # since the last commit is still there (a missed read), and a "new" tile where nothing
            # changed is a misread, never a play.
            changed = differs(small, self._reference, 30)
            scale = small.shape[1] / frame.shape[1]
            removed = [tile for tile in removed if self._region_changed(changed, tile.image_corners * scale)]
            added = [tile for tile in added if self._region_changed(changed, tile.image_corners * scale)]
            moved = [
                (old, new)
                for old, new in moved
                if self._region_changed(changed, old.image_corners * scale)
                or self._region_changed(changed, new.image_corners * scale)
            ]
            if face_down != self.face_down and not self._boneyard_changed(changed, scale):
                face_down = self.face_down
        if not self._explained(small, frame.shape, added, removed, [n for _, n in moved], face_down):
            self.rejected += 1
            return []
        committed_names = {tile.name for tile in self.tiles}
        duplicates = [tile for tile in added if tile.name in committed_names]
        contradictory = (
            bool(duplicates) or any(old.in_line for old in removed) or any(old.in_line for old, _ in moved)
        )
        if contradictory and self._tries < self.reads_per_change:
            self.rejected += 1  # most often a misread: read the next quiet frame before believing it
            return []
        out: list[Observation] = []
        for old in removed:
            if old.in_line:
                out.extend(self._contradiction(t, f"tile {old.name} left the line of play"))
                continue
            self.tiles.remove(old)
            out.append(TileRemoved(t, old.name))
        for old, new in moved:
            out.append(TileMoved(t, old.name, new.image_corners))
            if old.in_line:
                out.extend(self._contradiction(t, f"tile {old.name} moved in the line of play"))
            else:
                old.corners, old.image_corners, old.zone = new.corners, new.image_corners, new.zone
        for old, new in present:
            if (old, new) not in moved and not old.in_line:
                old.corners, old.image_corners = new.corners, new.image_corners  # a nudge: follow it
        for tile in duplicates:
            out.extend(self._contradiction(t, f"tile {tile.name} seen twice on the table"))
        fresh = [tile for tile in added if tile.name not in committed_names]
        reveals: dict[str, list[str]] = {}
        line_new = []
        for tile in fresh:
            if tile.zone is not None and tile.zone.startswith("seat"):
                reveals.setdefault(tile.zone, []).append(tile.name)
                self.tiles.append(tile)
            else:
                line_new.append(tile)
        out.extend(self._place(t, line_new))
        for zone, names in sorted(reveals.items()):
            out.append(TilesRevealed(t, zone, tuple(sorted(names))))
        if face_down != self.face_down or self._new_boneyard:
            # A new hand's boneyard is news even when it holds as many tiles as the last one did.
            self.face_down, self._new_boneyard = face_down, False
            out.append(BoneyardChanged(t, face_down))
        if not any(isinstance(o, Desync) for o in out) and self.desync is None:
            self._reference = small  # while desynced the reference stays what was committed
            backs = [_quad(c) for c in getattr(view, "face_down_corners", ())]
            # The backs' places are known only when the view's count is the one committed.
            self._face_down_corners = backs if len(backs) == self.face_down else None
        return out

    def _contradiction(self, t: float, reason: str) -> list[Observation]:
        first = self.desync is None
        self.desync = reason
        return [Desync(t, reason)] if first else []

    def _explained(
        self,
        small: np.ndarray,
        shape: tuple[int, ...],
        added: list[_Tile],
        removed: list[_Tile],
        moved: list[_Tile],
        face_down: int,
    ) -> bool:
        """Whether every pixel that changed since the last commit lies on a tile that changed."""
        if self._reference is None:
            return True
        changed = differs(small, self._reference, 30).astype(np.uint8)
        scale = small.shape[1] / shape[1]
        mask = np.zeros_like(changed)
        grow = max(2, round(0.25 * self.width * (self._px_per_unit() * scale)))
        for tile in [*added, *removed, *moved]:
            cv2.fillPoly(mask, [np.round(tile.image_corners * scale).astype(np.int32)], 1)
        boneyard_news = face_down != self.face_down or self._new_boneyard
        quad = self._boneyard_quad()
        if boneyard_news and quad is not None:
            cv2.fillPoly(mask, [np.round(quad * scale).astype(np.int32)], 1)
        mask = np.asarray(cv2.dilate(mask, np.ones((2 * grow + 1, 2 * grow + 1), np.uint8)), np.uint8)
        unexplained = changed & (1 - mask)
        return float(np.mean(unexplained)) <= self.unexplained_threshold

    @staticmethod
    def _region_changed(changed: np.ndarray, corners: np.ndarray, share: float = 0.12) -> bool:
        mask = np.zeros(changed.shape, np.uint8)
        cv2.fillPoly(mask, [np.round(corners).astype(np.int32)], 1)
        area = int(mask.sum())
        return area > 0 and float((changed & (mask > 0)).sum()) / area > share

    def _boneyard_changed(self, changed: np.ndarray, scale: float) -> bool:
        quad = self._boneyard_quad()
        if quad is None:
            return True
        return self._region_changed(changed, quad * scale, share=0.005)

    def _boneyard_quad(self) -> np.ndarray | None:
        """The boneyard zone's corners in image px; None when uncalibrated or the layout has none."""
        if self.calibration is None or "boneyard" not in self.layout.zones:
            return None
        x0, y0, x1, y1 = self.layout.zones["boneyard"]
        quad: np.ndarray = self.calibration.to_image(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
        return quad

    def _tile_length_px(self) -> float:
        return 2 * self.width * self._px_per_unit()

    def _px_per_unit(self) -> float:
        return self.calibration.pixels_per_mm() if self.calibration is not None else 1.0

    # -- the line of play ------------------------------------------------------------------------

    def _place(self, t: float, new_tiles: list[_Tile]) -> list[Observation]:
        out: list[Observation] = []
        pending = list(new_tiles)
        w = self.width
        while pending:
            if not any(tile.in_line for tile in self.tiles):
                lead = min(pending, key=lambda tile: float(np.linalg.norm(tile.centre - self._play_centre())))
                pending.remove(lead)
                out.append(self._lead(t, lead))
                continue
            best: tuple[float, _Tile, str, int, np.ndarray] | None = None
            for tile in pending:
                for name, end in self.ends.items():
                    # An arm turns a corner only at its own end tile: beside the lead or the spinner
                    # (which several arms share) a turned position is another arm's straight one.
                    shared = sum(1 for other in self.ends.values() if other.tile == end.tile) > 1
                    ways = [(end.direction, end.reach, 0.0)]
                    if not shared:
                        ways += [
                            (_cw(end.direction), end.side, 0.05 * w),
                            (-_cw(end.direction), end.side, 0.05 * w),
                        ]
                    for half_index, half in enumerate(tile.halves()):
                        for direction, offset, penalty in ways:
                            expected = end.centre + direction * (offset + w / 2)
                            distance = float(np.linalg.norm(expected - half)) + penalty
                            if best is None or distance < best[0]:
                                best = (distance, tile, name, half_index, direction)
            assert best is not None
            distance, tile, name, half_index, direction = best
            if distance > 0.6 * w:
                for loose in pending:  # touching no open end: the referee decides what it is
                    loose.in_line = True
                    self.tiles.append(loose)
                    out.append(TilePlaced(t, loose.name, None, loose.a, loose.b, loose.image_corners))
                break
            pending.remove(tile)
            near, far = (tile.a, tile.b) if half_index == 0 else (tile.b, tile.a)
            tile.in_line = True
            self.tiles.append(tile)
            self._extend(name, tile, near, far, direction)
            out.append(TilePlaced(t, tile.name, name, near, far, tile.image_corners))
        return out

    def _play_centre(self) -> np.ndarray:
        if self.calibration is not None and "play" in self.layout.zones:
            x0, y0, x1, y1 = self.layout.zones["play"]
            return np.array([(x0 + x1) / 2, (y0 + y1) / 2])
        return np.zeros(2)

    def _up_down(self, tile: _Tile) -> None:
        axis = tile.long_axis()
        up = axis if (axis[1] < 0 or (abs(axis[1]) < 1e-6 and axis[0] < 0)) else -axis
        length = float(np.linalg.norm(tile.corners[2] - tile.corners[1]))
        for name, d in (("up", up), ("down", -up)):
            self.ends[name] = _End(tile.a, tile.centre, d, length / 2, self.width / 2, tile.name)
        self.spinner_tile = tile.name

    def _lead(self, t: float, tile: _Tile) -> TilePlaced:
        tile.in_line = True
        self.tiles.append(tile)
        w = self.width
        h_a, h_b = tile.halves()
        if tile.a == tile.b:
            left_dir = -_cw(tile.long_axis())
            left_dir = left_dir if left_dir[0] <= 0 else -left_dir
            for name, d in (("left", left_dir), ("right", -left_dir)):
                self.ends[name] = _End(
                    tile.a, tile.centre, d, w / 2, float(np.linalg.norm(h_b - h_a)), tile.name
                )
            if self.spinner:
                self._up_down(tile)
            return TilePlaced(t, tile.name, None, tile.a, tile.b, tile.image_corners)
        (left_v, left_c), (right_v, right_c) = sorted(((tile.a, h_a), (tile.b, h_b)), key=lambda p: p[1][0])
        axis = (right_c - left_c) / float(np.linalg.norm(right_c - left_c))
        self.ends["left"] = _End(left_v, left_c, -axis, w / 2, w / 2, tile.name)
        self.ends["right"] = _End(right_v, right_c, axis, w / 2, w / 2, tile.name)
        return TilePlaced(t, tile.name, None, left_v, right_v, tile.image_corners)

    def _extend(self, name: str, tile: _Tile, near: int, far: int, direction: np.ndarray) -> None:
        w = self.width
        h_a, h_b = tile.halves()
        crosswise = tile.a == tile.b and abs(float(np.dot(tile.long_axis(), direction))) < math.cos(
            math.radians(45)
        )
        if crosswise:
            self.ends[name] = _End(
                far, tile.centre, direction, w / 2, float(np.linalg.norm(h_b - h_a)), tile.name
            )
            if self.spinner and self.spinner_tile is None:
                self._up_down(tile)
            return
        if tile.a == tile.b:  # a double laid lengthwise: its far half is the one away from the end
            near_c, far_c = sorted((h_a, h_b), key=lambda h: float(np.dot(h, direction)))
        elif near == tile.a:
            near_c, far_c = h_a, h_b
        else:
            near_c, far_c = h_b, h_a
        d = (far_c - near_c) / float(np.linalg.norm(far_c - near_c))
        self.ends[name] = _End(far, far_c, d, w / 2, w / 2, tile.name)

    def resync(self) -> None:
        """Accept the table as it is now: forget the contradiction, re-read on the next quiet frames."""
        self.desync = None
        self._reference = None
        self._face_down_corners = None
        self._last_read = None
        self._ahead = None
        self.tiles = [tile for tile in self.tiles if not tile.in_line]
        self.ends.clear()

    def new_hand(self) -> None:
        """The hand is over: the line of play will be cleared, which is no contradiction."""
        for tile in self.tiles:
            tile.in_line = False
        self._new_boneyard = True
        self.ends.clear()
        self.spinner_tile = None
        self.desync = None
        self._ahead = None


def project_points(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    return project(homography, points)
