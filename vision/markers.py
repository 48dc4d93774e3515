"""The table's ArUco corner markers: black and white squares that fits would take for black tiles.

`vision.calibration` puts four DICT_4X4_50 markers at the table's corners. Their patterns hold
straight bright and dark strokes next to square blobs, so the reader finds them first (on a
half-size grey image, a few ms per 1080p frame) and ignores every fit centred on one.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.calibration import ARUCO_DICTIONARY
from vision.scale import shrink

_DETECTOR: cv2.aruco.ArucoDetector | None = None


def _detector() -> cv2.aruco.ArucoDetector:
    global _DETECTOR
    if _DETECTOR is None:
        _DETECTOR = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY),
                                            cv2.aruco.DetectorParameters())
    return _DETECTOR


def find_markers(image_bgr: np.ndarray, *, work_side: int = 600) -> list[np.ndarray]:
    """Outlines (float32 (4, 2) image px) of the ArUco markers in `image_bgr`, grown by a quarter
    for their white border."""
    grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    factor = min(1.0, work_side / min(grey.shape))
    if factor < 1.0:
        grey = shrink(grey, factor)
    corners, ids, _ = _detector().detectMarkers(grey)
    if ids is None:
        return []
    out = []
    for quad in corners:
        quad = quad.reshape(4, 2) / factor
        centre = quad.mean(axis=0)
        out.append(((quad - centre) * 1.5 + centre).astype(np.float32))
    return out


def on_marker(point: np.ndarray, markers: list[np.ndarray]) -> bool:
    """True when `point` (x, y) lies inside one of `markers`."""
    at = (float(point[0]), float(point[1]))
    return any(cv2.pointPolygonTest(quad.reshape(-1, 1, 2), at, False) >= 0 for quad in markers)
