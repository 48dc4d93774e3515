"""Reading the pips of a fitted tile from an upright patch of it.

The patch covers exactly the tile: columns span the width, rows the length, the a-half on top, at
`pixels_per_half_width` px per half-width. Pips are marks darker (light faces) or brighter (dark
faces) than the face by a ratio; what sits on the divider (the bar, a metal centre pin) and at the
rim (edge shading) is not a pip, and a straight mark inside a half means the fit is not a tile.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import TileFrame, sample
from vision.marks import channel_max, channel_min, variance_ratio

PPW = 32


@dataclass(frozen=True)
class PipReading:
    """Pips counted in each half, and how clean the reading was."""

    a: int
    b: int
    pip_centers: tuple[tuple[float, float], ...]  # (x, y) in half-widths, y < 0 in the a-half
    regularity: float  # 0..1: 1 when every mark is a pip of the common size
    valid: bool        # False when a half holds a straight mark (a bar): not a tile centred here
    clutter: float = 0.0  # share of the face away from marks that is faintly marked (grain, felt)


def tile_ink(patch_bgr: np.ndarray, face_bgr: np.ndarray, polarity: str) -> np.ndarray:
    """float32 (H, W) in [0, 1]: how far each pixel departs from the face towards the marks."""
    if polarity == "dark":
        channel = channel_min(patch_bgr).astype(np.float32)
        face = max(float(face_bgr.min()), 1.0)
        ink: np.ndarray = np.clip(1.0 - channel / face, 0.0, 1.0)
        return ink
    channel = channel_max(patch_bgr).astype(np.float32)
    face = float(face_bgr.max())
    ink = np.clip((channel - face) / max(255.0 - face, 1.0), 0.0, 1.0)
    return ink


def _filled(mask: np.ndarray) -> np.ndarray:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(mask)
    cv2.drawContours(out, contours, -1, 1, thickness=cv2.FILLED)
    return out


def _chained_pips(ink: np.ndarray, labels: np.ndarray, stats: np.ndarray, index: int, cut: float,
                  min_area: float) -> list[tuple[float, float]]:
    """Centres (patch px) of the round pips a long mark falls into at higher thresholds, or []
    when it stays a bar. Bright pips glow, and a column of three merges at the reading threshold;
    a bar shrinks evenly as the threshold rises, or breaks into long pieces."""
    x, y, w, h = (int(v) for v in stats[index, :4])
    own = np.where(labels[y:y + h, x:x + w] == index, ink[y:y + h, x:x + w], 0.0)
    for factor in (1.5, 2.0, 2.5):
        count, _, parts, centres = cv2.connectedComponentsWithStats(
            (own > cut * factor).astype(np.uint8), connectivity=8)
        pieces = [i for i in range(1, count) if parts[i, cv2.CC_STAT_AREA] >= 0.5 * min_area * PPW * PPW]
        if len(pieces) < 2:
            continue
        sides = [(parts[i, cv2.CC_STAT_WIDTH], parts[i, cv2.CC_STAT_HEIGHT]) for i in pieces]
        if any(max(side) > 1.6 * min(side) for side in sides):
            return []
        return [(float(centres[i][0]) + x, float(centres[i][1]) + y) for i in pieces]
    return []


# What a mark stands for when it is not one component of the reading threshold's mask.
MERGED = 0    # pieces of one pip (split by a highlight or a ring) put together
CHAINED = -1  # one of the round pips a long glowing mark fell into at higher thresholds
PALE = -2     # a pip under the threshold (see `_pale_pips`)

PALE_CUT = 0.6       # of the reading threshold: where a pale pip's outline is cut
PALE_PEAK = 0.75     # of the reading threshold: how dark a pale pip's centre must be
PALE_MASS = 0.5      # of `min_area`: a pale pip's ink summed over its outline, in half-widths²
PALE_ROUND = 1.45    # largest variance ratio (long over short axis) of a pale pip: nearly a disc
PALE_CLEAN = 0.01    # largest clutter of a face whose pale marks are read as pips
PALE_RIM = 0.25      # half-widths: the least distance from a pale pip's centre to the fitted edge


def _pale_pips(ink: np.ndarray, strong: np.ndarray, cut: float, min_area: float,
               max_area: float) -> tuple[np.ndarray, list[tuple[float, float, int, np.ndarray]]]:
    """Round marks that stay under the reading threshold: a small coloured pip (a sky-blue one)
    blurred by the lens. Blur lowers a pip's peak but keeps its ink summed over its outline, so
    such a mark counts when it is nearly a disc of a pip's size, holds enough ink in all and
    holds no mark read at the threshold.

    Returns their mask and, per mark, (x, y) centroid px, area px and its x, y, w, h box."""
    weak = _filled((ink > cut * PALE_CUT).astype(np.uint8))
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(weak, connectivity=8)
    unit = float(PPW * PPW)
    # A mark found at the threshold keeps its pixels; a speck of it too small to be read (the
    # peak of a pale pip) does not.
    strong_px = np.bincount(labels[strong > 0], minlength=count)
    kept: list[int] = []
    for index in range(1, count):
        x, y, w, h, area_px = (int(v) for v in stats[index])
        if strong_px[index] >= min_area * unit or not min_area <= area_px / unit <= max_area:
            continue
        own = ink[y:y + h, x:x + w][labels[y:y + h, x:x + w] == index]
        if (float(own.max()) < cut * PALE_PEAK or float(own.sum()) / unit < PALE_MASS * min_area
                or variance_ratio(labels, stats, index) > PALE_ROUND):
            continue
        kept.append(index)
    mask = np.isin(labels, kept).astype(np.uint8)
    return mask, [(float(centroids[i][0]), float(centroids[i][1]), int(stats[i, cv2.CC_STAT_AREA]),
                   stats[i, :4]) for i in kept]


def _at_borders(box: np.ndarray, cols: int, rows: int) -> tuple[bool, bool]:
    """Whether a mark's (x, y, w, h) box touches a side, and an end, of a patch cols x rows."""
    left, top, width, height = (int(v) for v in box[:4])
    return left == 0 or left + width >= cols, top == 0 or top + height >= rows


def _clutter(detail: np.ndarray, marked: np.ndarray, cut: float, middle: int, band: int) -> float:
    """Share of the face away from the marks, the rim and the divider that is faintly marked, from
    `detail` (the ink less its local mean)."""
    keep = cv2.dilate(marked, np.ones((9, 9), np.uint8)) == 0
    inner = round(0.2 * PPW)
    keep[:inner] = keep[-inner:] = False
    keep[:, :inner] = keep[:, -inner:] = False
    keep[max(0, middle - band - 2):middle + band + 3] = False
    faint = detail[keep]
    return float(np.mean(faint > 0.25 * cut)) if faint.size else 0.0


def read_pips(image: np.ndarray, frame: TileFrame, face_bgr: np.ndarray, polarity: str, *,
              threshold: float = 0.35, divider_band: float = 0.2, rim: float = 0.12,
              grow: float = 0.0, bar_band: float = 0.14, bar_thickness: float | None = None,
              min_area: float = 0.015, max_pip_area: float = 0.35) -> PipReading:
    """Count pips in each half of the tile at `frame` in `image` (uint8 BGR).

    Areas are in squared half-widths: a pip is usually 0.05-0.15. `divider_band` (half-widths
    either side of the divider) is ignored, and so is a mark centred further out than `rim`
    half-widths inside the fitted edge. Fitted edges sit on the inner side of the tile's bevel, so
    the patch reaches `grow` half-widths beyond them for pips cut by the edge. Marks within
    `bar_band` half-widths of the divider line are erased first (the bar and a centre pin), or
    within 0.6 `bar_thickness` (px) of it when the bar's thickness is known.
    """
    length = frame.half_length / frame.half_width
    patch = sample(image, frame, pixels_per_half_width=PPW, extent_x=1.0 + grow, extent_y=length + grow)
    ink = tile_ink(patch, face_bgr, polarity)
    cut = threshold if polarity == "dark" else threshold * 0.7
    # Clear the divider line so a pip touching the bar is not swallowed by it.
    rows = ink.shape[0]
    if bar_thickness is not None:
        bar_band = max(bar_band, 0.6 * bar_thickness / frame.half_width)
    band = round(bar_band * PPW)
    near = round(0.3 * PPW)
    middle = rows // 2 - near + int(np.argmax(ink[rows // 2 - near:rows // 2 + near + 1].sum(axis=1)))
    ink[max(0, middle - band):middle + band + 1] = 0
    mask = _filled((ink > cut).astype(np.uint8))
    # A tile's face is smooth between its marks (light may shade it slowly); wood grain or felt
    # fitted as a face holds fine streaks and specks.
    detail = ink - cv2.blur(ink, (25, 25))
    clutter = _clutter(detail, mask, cut, middle, band)
    pale_mask, pale = _pale_pips(ink, mask, cut, min_area, max_pip_area)
    if pale:
        # A faint mark is a pip only on a face that holds no other faint marks.
        clean = _clutter(detail, mask | pale_mask, cut, middle, band)
        pale, clutter = (pale, clean) if clean <= PALE_CLEAN else ([], clutter)
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
    rows, cols = mask.shape
    unit = float(PPW * PPW)
    # x, y, area, and the component's label, or MERGED, CHAINED or PALE
    marks: list[tuple[float, float, float, int]] = []
    valid = True
    for index in range(1, count):
        area = stats[index, cv2.CC_STAT_AREA] / unit
        x = (centroids[index][0] - (cols - 1) / 2) / PPW
        # From the divider found above, not the frame's middle: a frame a little off along the
        # tile would put what is left of a centre pin past the divider band.
        y = (centroids[index][1] - middle) / PPW
        width_px, height_px = int(stats[index, cv2.CC_STAT_WIDTH]), int(stats[index, cv2.CC_STAT_HEIGHT])
        at_side, at_end = _at_borders(stats[index, :4], cols, rows)
        if (at_side and height_px > 0.6 * PPW) or (at_end and width_px > 0.6 * PPW):
            continue  # a strip along the edge: the table or a neighbour beyond the fitted outline
        if at_side and at_end:
            continue  # the table seen past a rounded corner: a pip, even one cut by an edge, is in one
        from_centre = (centroids[index][1] - (rows - 1) / 2) / PPW
        if area < min_area or abs(y) < divider_band or abs(x) > 1 - rim or abs(from_centre) > length - rim:
            continue
        w, h = width_px / PPW, height_px / PPW
        found = [(x, y, area, index)]
        if max(w, h) > 0.9 and max(w, h) > 2.5 * min(w, h):
            chain = _chained_pips(ink, labels, stats, index, cut, min_area)
            if not chain:
                valid = False  # a bar or an edge runs through this half
                continue
            # Each is one pip, however much glow its share of the area holds.
            found = [((cx - (cols - 1) / 2) / PPW, (cy - middle) / PPW, area / len(chain), CHAINED)
                     for cx, cy in chain]
        for mark in found:
            # Two pieces of one pip (split by a highlight or a ring) are one pip.
            px, py, parea, _ = mark
            for k, (mx, my, marea, _) in enumerate(marks):
                if (mx - px) ** 2 + (my - py) ** 2 < 0.3 ** 2:
                    total = marea + parea
                    marks[k] = ((mx * marea + px * parea) / total, (my * marea + py * parea) / total,
                                total, MERGED)
                    break
            else:
                marks.append(mark)
    for px, py, area_px, box in pale:
        x, y = (px - (cols - 1) / 2) / PPW, (py - middle) / PPW
        from_centre = (py - (rows - 1) / 2) / PPW
        # Held further from the rim than a pip: bevel shade and a neighbour's edge are faint too.
        inside = abs(x) <= 1 - PALE_RIM and abs(from_centre) <= length - PALE_RIM
        if not any(_at_borders(box, cols, rows)) and inside and abs(y) >= divider_band:
            marks.append((x, y, area_px / unit, PALE))
    areas = np.array([m[2] for m in marks if m[2] <= max_pip_area and m[3] != PALE])
    reference = float(np.median(areas)) if areas.size else 0.09
    a = b = 0
    centers: list[tuple[float, float]] = []
    irregular = 0.0
    for x, y, area, index in marks:
        # Blurred pips that touch make one long blob of several pips' area; a round blob that
        # large is one pip of a bolder colour than the other half's (red beside brown on black).
        several = area > 1.6 * reference and (
            index == MERGED or (index > 0 and variance_ratio(labels, stats, index) > 1.4 * 1.4))
        n = max(1, round(area / reference)) if several else 1
        if index != PALE:  # a pale pip's outline, cut lower, says nothing of its size
            irregular += abs(area / reference - n) / n
        if y < 0:
            a += n
        else:
            b += n
        centers.append((x, y))
    regularity = float(np.clip(1.0 - irregular / max(len(marks), 1), 0.0, 1.0))
    return PipReading(a, b, tuple(centers), regularity, valid, clutter)
