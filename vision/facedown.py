"""Face-down tiles: tile-sized blocks that differ from the table and show a back, not a face.

The table's colour is the median of the image border (the table fills a calibrated frame); what
differs from it by more than `threshold` (Lab, lightness weighted 0.3, so shadows count less) and is
not a face-up tile is a candidate block. A block of k tiles pressed together counts k by its area,
and its outline is split into k equal boxes along its long side. A box is a back when it is plain,
or when all its marks form one round emblem at its centre (the logo many sets print on the back):
pips lie off the centre and a divider is a long thin line.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.geometry import TileFrame

LAB_WEIGHTS = np.array([0.3, 1.0, 1.0], np.float32)


def table_distance(lab: np.ndarray, *, border: int = 4) -> np.ndarray:
    """float32 (H, W): distance of every pixel of `lab` (an image in Lab, uint8 as
    `cv2.cvtColor` gives it or float) from the median colour of the image border, lightness
    weighted 0.3.

    On uint8 Lab each channel's weighted squared difference is looked up in a table of 256 (the
    same float32 arithmetic, so the same values as computing it per pixel, at a tenth of the time)."""
    edge = np.concatenate([lab[:border].reshape(-1, 3), lab[-border:].reshape(-1, 3),
                           lab[:, :border].reshape(-1, 3), lab[:, -border:].reshape(-1, 3)])
    table = np.median(edge.astype(np.float32), axis=0)
    if lab.dtype != np.uint8:
        distance: np.ndarray = np.linalg.norm((lab - table) * LAB_WEIGHTS, axis=2)
        return distance
    levels = np.arange(256, dtype=np.float32)[:, None]
    squares = ((levels - table) * LAB_WEIGHTS) ** 2  # (256, 3): what norm sums, per channel level
    terms = [cv2.LUT(channel, np.ascontiguousarray(squares[:, c]))
             for c, channel in enumerate(cv2.split(lab))]
    # In numpy's order: (L + a) + b.
    return np.asarray(cv2.sqrt(cv2.add(cv2.add(terms[0], terms[1]), terms[2])), np.float32)


def is_back(lab: np.ndarray, inside: np.ndarray, box: np.ndarray, *, max_marks: float = 0.01,
            mark_distance: float = 20.0, emblem_radius: float = 0.4,
            max_elongation: float = 2.5, rim: float = 0.8) -> bool:
    """Whether the tile-sized `box` (corners, float32 (4, 2)) shows a back.

    `inside` (uint8 (H, W)) marks the block's pixels. Marks are pixels more than `mark_distance`
    (Lab) from the box's median colour: a plain back has almost none, and a back with a
    logo has them all within `emblem_radius` of the box's short side from its centre, spread as
    evenly one way as the other (a divider's bar is as central but `max_elongation` times longer
    than wide). The rim is left out: a bevel shades it."""
    centre = box.mean(axis=0)
    box = centre + (box - centre) * np.float32(rim)
    x, y, w, h = cv2.boundingRect(np.round(box).astype(np.int32))
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + w, lab.shape[1]), min(y + h, lab.shape[0])
    if x1 <= x0 or y1 <= y0:
        return False
    region = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(region, [np.round(box - np.array([x0, y0], np.float32)).astype(np.int32)], 1)
    region &= inside[y0:y1, x0:x1]
    values = lab[y0:y1, x0:x1][region > 0].astype(np.float32)
    if values.shape[0] < 20:
        return False
    far = np.linalg.norm(values - np.median(values, axis=0), axis=1) > mark_distance
    if np.mean(far) <= max_marks:
        return True
    ys, xs = np.nonzero(region)
    points = np.stack([xs[far], ys[far]], axis=1).astype(np.float32) + np.array([x0, y0], np.float32)
    short_side = min(float(np.linalg.norm(box[1] - box[0])), float(np.linalg.norm(box[2] - box[1])))
    if np.quantile(np.hypot(*(points - centre).T), 0.98) > emblem_radius / rim * short_side:
        return False
    if len(points) < 3:  # a pixel or two has no shape: a speck on a small back, not a bar
        return True
    spread = np.linalg.eigvalsh(np.cov(points.T))
    return bool(spread[1] <= max_elongation ** 2 * max(float(spread[0]), 1e-6))


def find_face_down(image: np.ndarray, face_up: list[TileFrame], *,
                   markers: Sequence[np.ndarray] = (), threshold: float = 25.0,
                   border: int = 4, min_fill: float = 0.75, max_marks: float = 0.01,
                   bevel: float = 1.15, widest: float = 1.3,
                   tile_length_px: float | None = None) -> list[np.ndarray]:
    """Corners (float32 (4, 2), clockwise) of each face-down tile in `image` (uint8 BGR).

    `face_up` frames and `markers` (outlines in image px) are masked out first. The size of one
    tile comes from the face-up tiles (whose fitted outlines sit a bevel inside the edge: `bevel`
    scales their area), or, when there are none, from the smallest plausible block;
    `tile_length_px` (a calibrated camera's tile length here) replaces both. A block wider than
    `widest` tile lengths is never backs: tiles are pushed together in rows, and a sleeve or a
    cup is as wide as a tile's length or more.
    """
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)  # uint8: `table_distance` looks its values up
    mask = (table_distance(lab, border=border) > threshold).astype(np.uint8)
    for frame in face_up:
        grown = TileFrame(frame.center, frame.across, frame.half_width * 1.25, frame.half_length * 1.15)
        cv2.fillPoly(mask, [np.round(grown.corners()).astype(np.int32)], 0)
    for quad in markers:
        cv2.fillPoly(mask, [np.round(quad).astype(np.int32)], 0)
    opening = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    mask = np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, opening), np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    blocks = []
    for contour in contours:
        area = float(cv2.contourArea(contour))
        rect = cv2.minAreaRect(contour)
        (w, h) = rect[1]
        if area < 50 or w * h <= 0 or area / (w * h) < min_fill:
            continue
        blocks.append((area, rect))
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
        if count < 1 or area < 0.6 * unit or not 0.75 * short_side <= min(rect[1]) <= widest * 2 * short_side:
            continue
        found.extend(box for box in _split(rect, count)
                     if is_back(lab, mask, box, max_marks=max_marks))
    return found


Rect = tuple[Sequence[float], Sequence[float], float]  # (centre, size, angle) as cv2.minAreaRect gives it


def _split(rect: Rect, count: int) -> list[np.ndarray]:
    (cx, cy), (w, h), angle = rect
    theta = np.deg2rad(angle)
    ux = np.array([np.cos(theta), np.sin(theta)], np.float32)
    uy = np.array([-np.sin(theta), np.cos(theta)], np.float32)
    if h > w:  # split along the longer side
        ux, uy, w, h = uy, -ux, h, w
    boxes = []
    for k in range(count):
        centre = np.array([cx, cy], np.float32) + ux * ((k + 0.5) / count - 0.5) * w
        half_u, half_v = ux * (w / count / 2), uy * (h / 2)
        corners = np.array([centre - half_u - half_v, centre + half_u - half_v,
                            centre + half_u + half_v, centre - half_u + half_v], np.float32)
        first, second = corners[1] - corners[0], corners[2] - corners[1]
        if first[0] * second[1] - first[1] * second[0] < 0:  # counter-clockwise on screen
            corners = corners[::-1].copy()
        boxes.append(corners)
    return boxes
