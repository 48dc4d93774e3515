"""Face-down tiles: tile-sized plain blocks that differ from the table and carry no divider.

The table's colour is the median of the image border (the table fills a calibrated frame); what
differs from it by more than `threshold` (Lab, lightness weighted 0.3, so shadows count less) and is
not a face-up tile is a block of backs. A block of k tiles pressed together counts k by its area,
and its outline is split into k equal boxes along its long side.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import TileFrame
from vision.marks import channel_min


def table_distance(image: np.ndarray, *, border: int = 4) -> np.ndarray:
    """float32 (H, W): Lab distance of every pixel from the median colour of the image border."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    edge = np.concatenate([lab[:border].reshape(-1, 3), lab[-border:].reshape(-1, 3),
                           lab[:, :border].reshape(-1, 3), lab[:, -border:].reshape(-1, 3)])
    table = np.median(edge, axis=0)
    weights = np.float32([0.3, 1.0, 1.0])
    return np.linalg.norm((lab - table) * weights, axis=2)


def _marked(darkest: np.ndarray, contour: np.ndarray) -> float:
    """Share of a block's pixels much darker than the block's own median (in the darkest channel)."""
    x, y, w, h = cv2.boundingRect(contour)
    inside = np.zeros((h, w), np.uint8)
    cv2.drawContours(inside, [contour - np.int32([x, y])], -1, 1, thickness=cv2.FILLED)
    values = darkest[y:y + h, x:x + w][inside > 0].astype(np.float32)
    if values.size == 0:
        return 0.0
    return float(np.mean(values < 0.6 * np.median(values)))


def find_face_down(image: np.ndarray, face_up: list[TileFrame], *, threshold: float = 25.0,
                   border: int = 4, min_fill: float = 0.75, max_marks: float = 0.03,
                   bevel: float = 1.15, tile_length_px: float | None = None) -> list[np.ndarray]:
    """Corners (float32 (4, 2), clockwise) of each face-down tile in `image` (uint8 BGR).

    `face_up` frames are masked out first. A block with more than `max_marks` of its pixels dark
    marks (pips, a bar, an ArUco pattern) is not a back. The size of one tile comes from the
    face-up tiles (whose fitted outlines sit a bevel inside the edge: `bevel` scales their area),
    or, when there are none, from the smallest plausible block; `tile_length_px` (a calibrated
    camera's tile length here) replaces both.
    """
    mask = (table_distance(image, border=border) > threshold).astype(np.uint8)
    for frame in face_up:
        grown = TileFrame(frame.center, frame.across, frame.half_width * 1.25, frame.half_length * 1.15)
        cv2.fillPoly(mask, [np.round(grown.corners()).astype(np.int32)], 0)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    darkest = channel_min(image)
    blocks = []
    for contour in contours:
        area = float(cv2.contourArea(contour))
        rect = cv2.minAreaRect(contour)
        (w, h) = rect[1]
        if area < 50 or w * h <= 0 or area / (w * h) < min_fill:
            continue
        if _marked(darkest, contour) > max_marks:
            continue  # pips, a divider or a marker's pattern: not a plain back
        blocks.append((area, rect))
    short_side = 0.0
    if tile_length_px is not None:  # a calibrated camera knows a tile's size
        unit = tile_length_px * tile_length_px / 2
        short_side = tile_length_px / 2
    elif face_up:
        unit = bevel * float(np.median([4 * f.half_width * f.half_length for f in face_up]))
        short_side = float(np.median([2 * f.half_width for f in face_up]))
    else:
        singles = [area for area, rect in blocks
                   if 1.6 <= max(rect[1]) / max(min(rect[1]), 1e-6) <= 2.4]
        if not singles:
            return []
        unit = float(min(singles))
        short_side = float(np.sqrt(unit / 2))
    found: list[np.ndarray] = []
    for area, rect in blocks:
        count = round(area / unit)
        # A shadow strip along a row of tiles can have a tile's area but never a tile's width.
        if count < 1 or area < 0.6 * unit or min(rect[1]) < 0.75 * short_side:
            continue
        found.extend(_split(rect, count))
    return found


def _split(rect: tuple, count: int) -> list[np.ndarray]:
    (cx, cy), (w, h), angle = rect
    theta = np.deg2rad(angle)
    ux = np.float32([np.cos(theta), np.sin(theta)])
    uy = np.float32([-np.sin(theta), np.cos(theta)])
    if h > w:  # split along the longer side
        ux, uy, w, h = uy, -ux, h, w
    boxes = []
    for k in range(count):
        centre = np.float32([cx, cy]) + ux * ((k + 0.5) / count - 0.5) * w
        half_u, half_v = ux * (w / count / 2), uy * (h / 2)
        corners = np.float32([centre - half_u - half_v, centre + half_u - half_v,
                              centre + half_u + half_v, centre - half_u + half_v])
        first, second = corners[1] - corners[0], corners[2] - corners[1]
        if first[0] * second[1] - first[1] * second[0] < 0:  # counter-clockwise on screen
            corners = corners[::-1].copy()
        boxes.append(corners)
    return boxes
