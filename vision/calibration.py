"""From image pixels to the table plane, in millimetres.

Four ArUco markers (DICT_4X4_50, ids 0-3) lie at the table's corners: 0 top-left, 1 top-right,
2 bottom-right, 3 bottom-left as the table manager sees the table from seat 0's opposite side.
Their detected corners give the homography image -> table; a saved JSON file replaces them for a
fixed camera. The `TableLayout` says where the markers lie and which zones the table has: the
line of play, the boneyard and each seat's reveal area.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.errors import VisionError
from vision.plane import TILE_LENGTH_MM, TILE_WIDTH_MM, project

ARUCO_DICTIONARY = cv2.aruco.DICT_4X4_50
MARKER_IDS = (0, 1, 2, 3)
CALIBRATION_FORMAT = "domino-calibration"

Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 in mm


class CalibrationError(VisionError):
    """The markers were not found, or a calibration file is not valid."""


def _default_zones() -> dict[str, Rect]:
    return {
        "boneyard": (120.0, 95.0, 420.0, 175.0),
        "play": (110.0, 185.0, 890.0, 600.0),
        "seat0": (150.0, 612.0, 850.0, 695.0),
        "seat1": (902.0, 150.0, 995.0, 600.0),
        "seat2": (450.0, 5.0, 850.0, 90.0),
        "seat3": (5.0, 150.0, 98.0, 600.0),
    }


@dataclass(frozen=True)
class TableLayout:
    """The table's size, where its markers lie and its named zones (all in millimetres)."""

    width_mm: float = 1000.0
    height_mm: float = 700.0
    marker_mm: float = 50.0
    inset_mm: float = 12.0
    tile_length_mm: float = TILE_LENGTH_MM
    tile_width_mm: float = TILE_WIDTH_MM
    zones: Mapping[str, Rect] = field(default_factory=_default_zones)

    def marker_corners(self, marker_id: int) -> np.ndarray:
        """The (4, 2) corners of a marker in ArUco order (its top-left first, clockwise)."""
        m, i = self.marker_mm, self.inset_mm
        x0 = {0: i, 1: self.width_mm - i - m, 2: self.width_mm - i - m, 3: i}[marker_id]
        y0 = {0: i, 1: i, 2: self.height_mm - i - m, 3: self.height_mm - i - m}[marker_id]
        return np.array([[x0, y0], [x0 + m, y0], [x0 + m, y0 + m], [x0, y0 + m]], dtype=np.float64)

    def zone_of(self, point: np.ndarray | tuple[float, float]) -> str | None:
        """The first zone containing a table point (the boneyard wins over the line of play)."""
        x, y = float(point[0]), float(point[1])
        for name, (x0, y0, x1, y1) in self.zones.items():
            if x0 <= x <= x1 and y0 <= y <= y1:
                return name
        return None

    def to_json(self) -> dict[str, object]:
        return {
            "width_mm": self.width_mm,
            "height_mm": self.height_mm,
            "marker_mm": self.marker_mm,
            "inset_mm": self.inset_mm,
            "tile_length_mm": self.tile_length_mm,
            "tile_width_mm": self.tile_width_mm,
            "zones": {k: list(v) for k, v in self.zones.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> TableLayout:
        try:
            zones_in = data.get("zones", _default_zones())
            zones = {str(k): tuple(float(c) for c in v) for k, v in zones_in.items()}  # type: ignore[attr-defined]
            if any(len(r) != 4 for r in zones.values()):
                raise ValueError("a zone needs 4 numbers x0, y0, x1, y1")
            return cls(
                width_mm=float(data.get("width_mm", 1000.0)),  # type: ignore[arg-type]
                height_mm=float(data.get("height_mm", 700.0)),  # type: ignore[arg-type]
                marker_mm=float(data.get("marker_mm", 50.0)),  # type: ignore[arg-type]
                inset_mm=float(data.get("inset_mm", 12.0)),  # type: ignore[arg-type]
                tile_length_mm=float(data.get("tile_length_mm", TILE_LENGTH_MM)),  # type: ignore[arg-type]
                tile_width_mm=float(data.get("tile_width_mm", TILE_WIDTH_MM)),  # type: ignore[arg-type]
                zones=zones,  # type: ignore[arg-type]
            )
        except (TypeError, ValueError, AttributeError) as error:
            raise CalibrationError(f"invalid table layout {dict(data)!r}: {error}") from error


@dataclass(frozen=True)
class Calibration:
    """A homography from image pixels to table millimetres, for one camera pose."""

    image_to_table: np.ndarray
    layout: TableLayout = field(default_factory=TableLayout)
    image_size: tuple[int, int] = (0, 0)  # width, height; (0, 0) when unknown
    markers_found: tuple[int, ...] = ()

    def to_table(self, points: np.ndarray) -> np.ndarray:
        return project(self.image_to_table, points)

    def to_image(self, points: np.ndarray) -> np.ndarray:
        return project(np.linalg.inv(self.image_to_table), points)

    def pixels_per_mm(self) -> float:
        """The image scale at the table's centre."""
        centre = np.array([[self.layout.width_mm / 2, self.layout.height_mm / 2]])
        ends = self.to_image(centre + np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]]))
        return float((np.linalg.norm(ends[1] - ends[0]) + np.linalg.norm(ends[2] - ends[0])) / 20.0)

    def to_json(self) -> dict[str, object]:
        return {
            "format": CALIBRATION_FORMAT,
            "version": 1,
            "image_to_table": np.asarray(self.image_to_table).tolist(),
            "image_size": list(self.image_size),
            "markers_found": list(self.markers_found),
            "layout": self.layout.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object], source: str = "calibration") -> Calibration:
        if data.get("format") != CALIBRATION_FORMAT:
            raise CalibrationError(
                f"{source}: not a {CALIBRATION_FORMAT} document (format {data.get('format')!r})"
            )
        try:
            matrix = np.asarray(data["image_to_table"], dtype=np.float64)
            size = tuple(int(v) for v in data.get("image_size", (0, 0)))  # type: ignore[attr-defined]
        except (KeyError, TypeError, ValueError) as error:
            raise CalibrationError(f"{source}: bad image_to_table or image_size: {error}") from error
        if matrix.shape != (3, 3) or not np.all(np.isfinite(matrix)) or abs(np.linalg.det(matrix)) < 1e-12:
            raise CalibrationError(
                f"{source}: image_to_table must be an invertible 3x3 matrix, got {data['image_to_table']!r}"
            )
        layout = TableLayout.from_json(data.get("layout", {}))  # type: ignore[arg-type]
        found = tuple(int(v) for v in data.get("markers_found", ()))  # type: ignore[attr-defined]
        return cls(matrix, layout, (size[0], size[1]) if len(size) == 2 else (0, 0), found)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        try:
            data = json.loads(Path(path).read_text())
        except OSError as error:
            raise CalibrationError(f"cannot read calibration file {str(path)!r}: {error.strerror}") from error
        except json.JSONDecodeError as error:
            raise CalibrationError(f"calibration file {str(path)!r} is not JSON: {error}") from error
        if not isinstance(data, dict):
            raise CalibrationError(f"calibration file {str(path)!r} must hold a JSON object")
        return cls.from_json(data, source=str(path))


def _detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY), params)


def find_markers(image_bgr: np.ndarray) -> dict[int, np.ndarray]:
    """The table's markers seen in an image: id -> (4, 2) corners in pixels."""
    gray = image_bgr if image_bgr.ndim == 2 else cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = _detector().detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    if ids is not None:
        for marker_corners, marker_id in zip(corners, ids.ravel(), strict=True):
            if int(marker_id) in MARKER_IDS:
                found[int(marker_id)] = marker_corners.reshape(4, 2).astype(np.float64)
    return found


def calibrate_from_markers(
    image_bgr: np.ndarray, layout: TableLayout | None = None, *, minimum_markers: int = 2
) -> Calibration:
    """Calibrate from the corner markers seen in one frame (at least `minimum_markers` of them)."""
    layout = layout or TableLayout()
    found = find_markers(image_bgr)
    if len(found) < max(1, minimum_markers):
        missing = [i for i in MARKER_IDS if i not in found]
        raise CalibrationError(
            f"found {len(found)} of the 4 table markers (missing ids {missing}); need at least "
            f"{minimum_markers}: check that the markers are in view, lit and not covered"
        )
    image_points = np.vstack([found[i] for i in sorted(found)])
    table_points = np.vstack([layout.marker_corners(i) for i in sorted(found)])
    matrix, _ = cv2.findHomography(image_points, table_points, 0)
    if matrix is None:
        raise CalibrationError("the table markers are degenerate (collinear?); cannot calibrate")
    h, w = image_bgr.shape[:2]
    return Calibration(matrix, layout, (w, h), tuple(sorted(found)))


def marker_image(marker_id: int, pixels: int) -> np.ndarray:
    """One marker as a uint8 image of `pixels` x `pixels` (black border included)."""
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)
    return cv2.aruco.generateImageMarker(dictionary, marker_id, pixels)


def markers_sheet(layout: TableLayout | None = None, dpi: int = 300) -> np.ndarray:
    """An A4 page with the four markers at their real size, each labelled with where it goes."""
    layout = layout or TableLayout()
    px_per_mm = dpi / 25.4
    page = np.full((round(297 * px_per_mm), round(210 * px_per_mm)), 255, np.uint8)
    side = round(layout.marker_mm * px_per_mm)
    places = {0: "top-left", 1: "top-right", 2: "bottom-right", 3: "bottom-left"}
    for index, marker_id in enumerate(MARKER_IDS):
        col, row = index % 2, index // 2
        x = round((20 + col * 95) * px_per_mm)
        y = round((30 + row * 120) * px_per_mm)
        page[y : y + side, x : x + side] = marker_image(marker_id, side)
        cv2.putText(
            page,
            f"id {marker_id}: table {places[marker_id]}",
            (x, y + side + round(8 * px_per_mm)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.25 * px_per_mm / 3,
            0,
            max(1, round(px_per_mm / 4)),
            cv2.LINE_AA,
        )
        cv2.rectangle(page, (x - 10, y - 10), (x + side + 10, y + side + 10), 160, 1)
    cv2.putText(
        page,
        f"domino-referee markers, {layout.marker_mm:g} mm, print at 100 %",
        (round(20 * px_per_mm), round(285 * px_per_mm)),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.25 * px_per_mm / 3,
        0,
        1,
        cv2.LINE_AA,
    )
    return page
