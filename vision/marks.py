"""Marks: the pips and divider bars that stand out from a tile's face.

A mark is a pixel much darker (or, on black tiles, much brighter) than the local face around it.
Darkness is measured as a ratio to a local upper envelope of the image, so it does not depend on
the light level; the envelope is a grey closing computed at reduced resolution to stay fast.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.markers import on_marker
from vision.neighbours import close_pairs
from vision.scale import shrink


def channel_min(image_bgr: np.ndarray) -> np.ndarray:
    """(H, W) smallest of the three channels (much faster than `.min(axis=2)`; split first, as
    OpenCV copies a strided channel view anyway)."""
    blue, green, red = cv2.split(image_bgr)
    return cv2.min(cv2.min(blue, green), red)


def channel_max(image_bgr: np.ndarray) -> np.ndarray:
    """(H, W) largest of the three channels."""
    blue, green, red = cv2.split(image_bgr)
    return cv2.max(cv2.max(blue, green), red)


def components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """`cv2.connectedComponentsWithStats(mask, connectivity=8)`: count, labels, stats, centroids.

    Block-based decision trees (BBDT) give the same labels, in the same order, and the same
    statistics as the default (Spaghetti) algorithm, at a third of its time on a 1080p mask
    (about 7 ms instead of 20 on one core): the default's statistics pass is the slow part."""
    count, labels, stats, centroids = cv2.connectedComponentsWithStatsWithAlgorithm(
        mask, 8, cv2.CV_32S, cv2.CCL_BBDT)
    return int(count), labels, stats, centroids


@dataclass(frozen=True)
class Bar:
    """A divider-bar candidate: centre (x, y) px, unit direction along the bar, length, thickness."""

    center: np.ndarray   # float32 (2,)
    direction: np.ndarray  # float32 (2,), unit vector along the bar
    length: float
    thickness: float
    polarity: str        # "dark" (dark marks on a light face) or "bright"
    faint: bool = False  # found only at a lower ink threshold: trusted less


# Besides the fullest, a size that this many round marks vote for is another guess at the pips
# (one tile's worth of marks); at most `PIP_ALTERNATIVES` of them, the best supported first.
PIP_ALTERNATIVE_MARKS = 6
PIP_ALTERNATIVES = 2
PIP_BIN = 0.15  # width of the size histogram's bins, log(px)
# Pips this many times larger or smaller than a guess are a different scale: another guess must
# differ from every one before it by more, and tiles read implying such pips are read again there
# (`vision.pipeline.at_the_sets_scale`).
SCALE_DOUBT = 1.6


def pip_diameters(image_bgr: np.ndarray, *, work_side: int = 720, threshold: float = 0.4,
                  markers: list[np.ndarray] | None = None) -> list[float]:
    """Guesses at the pips' diameter in px, likeliest first: the commonest size among round dark
    marks, then (`PIP_ALTERNATIVES`) other sizes many marks share.

    The image is shrunk so its shorter side is at most `work_side`; marks are found with a window
    of an eighth of that side; round, solid blobs of 6 px or more vote with their diameter on a
    log scale and the fullest bin wins (pips are the commonest round mark on a domino table;
    hands, markers and wood grain are few or not round). A patterned cloth's squares or dots can
    outvote a few tiles' pips: the pips are then often the next fullest size, which the reader
    tries when the first guess reads (almost) nothing (`vision.pipeline.at_the_sets_scale`).
    With fewer than three round marks the scale-normalised Laplacian decides instead, as
    scikit-image's `blob_log` would, after a second look at full size.
    Marks inside `markers` (outlines in image px, as `vision.markers.find_markers` gives them) do
    not vote: an ArUco marker's black and white squares are round enough, and on a table with few
    small tiles its seven squares outvote the pips.
    """
    short = min(image_bgr.shape[:2])
    factor = min(1.0, work_side / short)
    small = shrink(image_bgr, factor)
    window = max(9, min(small.shape[:2]) // 8) | 1
    diameters = np.empty(0)
    # Both polarities vote: black tiles carry light pips, and the tiles themselves are few.
    for polarity, cut in (("dark", threshold), ("bright", threshold * 0.75)):
        mask = (ink_ratio(small, polarity=polarity, window=window) > cut).astype(np.uint8)
        _, labels, stats, centroids = components(mask)
        w, h, area = stats[1:, 2], stats[1:, 3], stats[1:, 4]
        round_ = (area >= 6) & (np.maximum(w, h) <= 1.6 * np.minimum(w, h)) & (area >= 0.55 * w * h)
        # A tile or a back turned 20-45 degrees has a squarish, well-filled box too; its second
        # moments say it is twice as long as wide.
        for blob in np.flatnonzero(round_ & (area >= 30)).tolist():
            round_[blob] = variance_ratio(labels, stats, blob + 1) <= 2.0  # axes within 1.41:1
        if markers:
            for index in np.flatnonzero(round_):
                round_[index] = not on_marker(centroids[index + 1] / factor, markers)
        diameters = np.concatenate([diameters, np.log(np.sqrt(4 * area[round_] / np.pi))])
    if diameters.size >= 3:
        edges = np.arange(np.log(3.0), np.log(400.0), PIP_BIN)
        counts, _ = np.histogram(diameters, bins=edges)
        sizes: list[float] = []
        # Each bin's vote with its neighbours' (a size's marks spread over two or three bins).
        support = np.convolve(counts, np.ones(3), mode="same")
        for k in [int(np.argmax(counts)), *np.argsort(-support, kind="stable").tolist()]:
            if sizes and (support[k] < PIP_ALTERNATIVE_MARKS or len(sizes) == 1 + PIP_ALTERNATIVES):
                break
            near = (diameters >= edges[k] - PIP_BIN) & (diameters < edges[k + 1] + PIP_BIN)
            size = float(np.median(diameters[near]))
            if all(abs(size - other) > np.log(SCALE_DOUBT) for other in sizes):
                sizes.append(size)
        return [float(np.exp(size) / factor) for size in sizes]
    if factor < 1.0:
        # Pips of a few small tiles fade in the shrunk image: look again at full size.
        return pip_diameters(image_bgr, work_side=short, threshold=threshold, markers=markers)
    return [_laplacian_pip_diameter(image_bgr)]


def variance_ratio(labels: np.ndarray, stats: np.ndarray, label: int) -> float:
    """How much longer than wide component `label` of a `cv2.connectedComponentsWithStats`
    result is, as the ratio of the variances of its pixels along its long and short axes (second
    moments): 1 for a disc, 4 for a 2:1 rectangle, inf for a straight line of pixels."""
    x, y, w, h = (int(v) for v in stats[label, :4])
    moments = cv2.moments((labels[y:y + h, x:x + w] == label).astype(np.uint8), binaryImage=True)
    mu20, mu02, mu11 = moments["mu20"], moments["mu02"], moments["mu11"]
    spread = float(np.sqrt(4 * mu11 * mu11 + (mu20 - mu02) ** 2))
    long_side, short_side = mu20 + mu02 + spread, mu20 + mu02 - spread
    if short_side > 0:
        return float(long_side / short_side)
    return float("inf") if long_side > 0 else 1.0


def _laplacian_pip_diameter(image_bgr: np.ndarray, work_side: int = 400) -> float:
    grey = channel_min(image_bgr).astype(np.float32)
    factor = min(1.0, work_side / min(grey.shape))
    if factor < 1.0:
        grey = np.asarray(shrink(grey, factor), np.float32)
    best_sigma, best_response = 1.0, -np.inf
    sigma = 1.0
    while sigma < min(grey.shape) / 10:
        blurred = cv2.GaussianBlur(grey, (0, 0), sigma)
        response = float(np.percentile(cv2.Laplacian(blurred, cv2.CV_32F, ksize=3), 99.7)) * sigma**2
        if response > best_response:
            best_sigma, best_response = sigma, response
        sigma *= 1.25
    return float(best_sigma * 2 * np.sqrt(2) / factor)


def envelope_size(shape: tuple[int, ...], pip_diameter: float) -> int:
    """Side of the closing window: about four pips, at most half the shorter side (odd, >= 9)."""
    return max(9, min(int(4 * pip_diameter), min(shape[:2]) // 2)) | 1


DARK_FLOOR = 64.0  # min-channel level below which a dark mark's contrast is not a ratio


def ink_ratio(image_bgr: np.ndarray, *, polarity: str = "dark", window: int = 31,
              per_channel: bool = False) -> np.ndarray:
    """How much each pixel stands out from its local face, as float32 (H, W) in [0, 1].

    `dark`: 1 - min-channel / local maximum of the min-channel (dark or coloured marks on light
    faces: a coloured pip is dark in at least one channel). `bright`: (max-channel - local minimum)
    / 255 (white or coloured marks on dark faces).

    `per_channel`: the same ratio in each of the three channels, and the largest. A mark on a
    coloured face can stand out in one channel only, and the face's own darkest (or brightest)
    channel hides it: a white divider on a green face is bright in red by three quarters of full
    scale, and in the max-channel (green, high on the face too) by a third.
    """
    height, width = image_bgr.shape[:2]
    if per_channel:
        channel = image_bgr
    else:
        channel = channel_min(image_bgr) if polarity == "dark" else channel_max(image_bgr)
    # The envelope changes slowly, so compute it at a quarter of the size: on the largest part
    # whose sides divide by four (a whole-number ratio is what OpenCV averages fast), the last
    # few rows and columns repeating the envelope's edge.
    scale = 4 if min(height, width) >= 160 else 1
    even_w, even_h = width - width % scale, height - height % scale
    small = cv2.resize(channel[:even_h, :even_w], (even_w // scale, even_h // scale),
                       interpolation=cv2.INTER_AREA)
    k = max(3, (window // scale) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    op = cv2.MORPH_CLOSE if polarity == "dark" else cv2.MORPH_OPEN
    envelope = cv2.morphologyEx(small, op, kernel)
    envelope = cv2.GaussianBlur(envelope, (0, 0), max(1.0, k / 6))
    envelope = cv2.resize(envelope, (even_w, even_h), interpolation=cv2.INTER_LINEAR)
    if (even_w, even_h) != (width, height):
        envelope = cv2.copyMakeBorder(envelope, 0, height - even_h, 0, width - even_w,
                                      cv2.BORDER_REPLICATE)
    if per_channel:
        return _largest_channel_ink(channel, envelope, polarity)
    # Channel and envelope are whole levels (uint8): the differences and the floor are taken
    # exactly in uint8, and only the ratio is float32 (the same values as in float throughout).
    # Neither ratio can leave [0, 1]: the envelope is clamped to the channel first.
    if polarity == "dark":
        envelope = cv2.max(envelope, channel)
        # On a dark surface the min-channel is a few levels of sensor noise, and ratios of noise
        # are anything: a mark must also be darker by a share of a quarter of full scale.
        ink: np.ndarray = cv2.divide(cv2.subtract(envelope, channel).astype(np.float32),
                                     np.maximum(envelope, np.uint8(DARK_FLOOR)).astype(np.float32))
        return ink
    envelope = cv2.min(envelope, channel)
    ink = cv2.LUT(cv2.subtract(channel, envelope), _LEVELS)
    return ink


def _largest_channel_ink(image: np.ndarray, envelope: np.ndarray, polarity: str) -> np.ndarray:
    """`ink_ratio(per_channel=True)` from the (H, W, 3) image and its envelope: each channel's
    ratio in whole 1/255 steps (uint8 arithmetic throughout, a third of the time of float on
    three channels; a step is finer than any threshold needs), the largest as float32 (H, W)."""
    if polarity == "dark":
        envelope = cv2.max(envelope, image)
        floor = np.full_like(envelope, np.uint8(DARK_FLOOR))
        levels = cv2.divide(cv2.subtract(envelope, image), cv2.max(envelope, floor), scale=255)
    else:
        levels = cv2.subtract(image, cv2.min(envelope, image))
    blue, green, red = cv2.split(levels)
    ink: np.ndarray = cv2.LUT(cv2.max(cv2.max(blue, green), red), _LEVELS)
    return ink


_LEVELS = np.arange(256, dtype=np.float32) / 255.0  # uint8 level -> share of full scale


def find_bars(ink: np.ndarray, pip_diameter: float, *, threshold: float = 0.4,
              min_length: float = 1.8, min_elongation: float = 3.0, max_elongation: float = 30.0,
              angles: int = 12, polarity: str = "dark", pin_gap: float = 1.5) -> list[Bar]:
    """Straight marks at least `min_length` pips long and `min_elongation` times longer than thick.

    Bars often touch the pips beside them or a shadow line. Each large component of `ink > threshold`
    is opened with a line of 1.6 pip diameters at `angles` orientations: a round pip does not hold
    such a line and vanishes, a bar does, and each orientation keeps only what runs along it.
    Two collinear pieces less than `pin_gap` pips apart are also offered joined (see `_bridged`),
    unless a line crosses the gap between them (see `_seam_between`).
    """
    mask = (ink > threshold).astype(np.uint8)
    _count, labels, stats, _ = components(mask)
    line = max(5, round(1.6 * pip_diameter))
    kernels = [_line_kernel(line, np.pi * i / angles) for i in range(angles)]
    # The patch of a component is padded just enough that the opening sees all of it (the line
    # reaches half its kernel from its anchor, and may miss the anchor by a pixel).
    pad = kernels[0].shape[0] // 2 + 2
    spread = kernels[0].shape[0] // 2 + 1
    # A line fits in no component narrower or lower than the line's own box.
    reach = [(int(np.ptp(np.nonzero(k)[1])) + 1, int(np.ptp(np.nonzero(k)[0])) + 1) for k in kernels]
    found: list[Bar] = []
    # Most components are specks of noise: drop them before any per-component work.
    sides = np.maximum(stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT])
    barren = np.zeros(sides.size + 1, bool)  # components long enough to try that gave no bar
    for index in (np.nonzero(sides >= min_length * pip_diameter)[0] + 1).tolist():
        before = len(found)
        x, y, w, h, _area = (int(v) for v in stats[index])
        patch = (labels[y:y + h, x:x + w] == index).astype(np.uint8)
        patch = cv2.copyMakeBorder(patch, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
        offset = np.array([x - line, y - line], np.float32)
        for kernel, (reach_x, reach_y) in zip(kernels, reach, strict=True):
            if w < reach_x or h < reach_y:
                continue
            # An opening, as cv2.morphologyEx does it, but a line that fits nowhere needs no dilation.
            eroded = cv2.erode(patch, kernel)
            ex, ey, ew, eh = cv2.boundingRect(eroded)
            if not ew:
                continue
            # The dilation reaches half a kernel from what the erosion kept: only that box
            # (with a pixel to spare) needs it, and the contours.
            x1, y1 = min(ex + ew + spread, patch.shape[1]), min(ey + eh + spread, patch.shape[0])
            ex, ey = max(ex - spread, 0), max(ey - spread, 0)
            opened = cv2.dilate(eroded[ey:y1, ex:x1], kernel)
            if cv2.countNonZero(opened) < min_length * pip_diameter * 0.7:
                continue  # nothing left as long as a bar
            # Each outer contour is one 8-connected piece of what the line kept, in the
            # coordinates of a patch padded by `line`.
            contours, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE,
                                           offset=(ex + line - pad, ey + line - pad))
            for contour in contours:
                _, _, pw, ph = cv2.boundingRect(contour)
                if max(pw, ph) < min_length * pip_diameter * 0.7:
                    continue
                rect = _rect_of_points(contour.reshape(-1, 2))
                if rect is None:
                    continue
                center, direction, length, thickness = rect
                if length < min_length * pip_diameter or not (
                        min_elongation <= length / thickness <= max_elongation):
                    continue
                found.append(Bar(center + offset, direction, length, thickness, polarity))
        barren[index] = len(found) == before
    found = _distinct(found, pip_diameter)
    # A pin splits a short bar into pieces too short to be bars themselves: thin marks of about a
    # pip's length that are alone in their component are offered for bridging only. So are
    # pieces a little longer that the opening lost (a thin line a few degrees off its angles);
    # such a line as long as a bar is a bar by itself.
    pieces, lines = [], []
    short = (sides >= 0.8 * pip_diameter) & ((sides < min_length * pip_diameter)
                                             | (barren[1:] & (sides < 6 * pip_diameter)))
    # A piece's rectangle (sides + 1, as `_rect_of_points` gives them) holds its n pixels, so
    # n <= length * thickness (a convex region of area A and perimeter P holds at most
    # A + P / 2 + 1 lattice points), and its length is at most the bounding box's diagonal
    # sqrt(w^2 + h^2): a piece with w^2 + h^2 < min_elongation * n can be no thin mark (a pip).
    box = stats[1:, [cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT]].astype(np.int64)
    short &= (box * box).sum(axis=1) >= min_elongation * stats[1:, cv2.CC_STAT_AREA]
    for index in (np.nonzero(short)[0] + 1).tolist():
        x, y, w, h, _area = (int(v) for v in stats[index])
        points = np.argwhere(labels[y:y + h, x:x + w] == index)[:, ::-1].astype(np.int32)
        rect = _rect_of_points(points)
        if rect is None:
            continue
        center, direction, length, thickness = rect
        if length >= 0.8 * pip_diameter and min_elongation <= length / thickness <= max_elongation:
            piece = Bar(center + np.array([x, y], np.float32), direction, length, thickness, polarity)
            pieces.append(piece)
            if barren[index] and length >= min_length * pip_diameter and thickness <= 0.5 * pip_diameter:
                lines.append(piece)
    bridged = _bridged(found + pieces, pip_diameter * pin_gap, seams=lambda centres, axes:
                       _seams_between(mask, centres, axes, pip_diameter))
    bridged = _reach_ink(mask, bridged, 0.5 * pip_diameter)
    bridged = [bar for bar in bridged if bar.length >= min_length * pip_diameter]
    # Only bars about as long as a divider (four pips) are re-aimed: short pieces (grain, specks,
    # the halves of a pinned bar) give no direction worth a second fit.
    long_bars = [bar for bar in found if bar.length >= 2.5 * pip_diameter]
    return found + lines + bridged + _straightened(ink, long_bars)


def _straightened(ink: np.ndarray, bars: list[Bar], *, min_turn_deg: float = 1.5,
                  max_turn_deg: float = 20.0, reach: float = 0.25, rounds: int = 3,
                  min_ink: float = 0.7) -> list[Bar]:
    """Bars re-aimed along the line their ink fills, where that line turns from the found one.

    A bar's direction comes from the rectangle about its opened shape, and a pip touching one end
    tilts that rectangle by degrees; a tile fit that starts a few degrees off blurs the edges it
    looks for and misses them (most on close-ups, where the image border is the tile's edge).
    Over the middle of the bar (`reach` of its length each side of the centre) the ink's centre
    line is found at each step along it and a straight line fitted to those centres, leaving out
    the steps far off the line (a touching pip). The re-aimed bar is offered besides the original:
    the fitting keeps whichever makes a tile.
    """
    if len(bars) > 1024:  # cv2.remap takes maps of fewer than 2**15 rows
        return [bar for start in range(0, len(bars), 1024)
                for bar in _straightened(ink, bars[start:start + 1024], min_turn_deg=min_turn_deg,
                                         max_turn_deg=max_turn_deg, reach=reach, rounds=rounds,
                                         min_ink=min_ink)]
    if not bars:
        return []
    centers = np.array([b.center for b in bars], np.float64)
    dirs = np.array([b.direction for b in bars], np.float64)
    lengths = np.array([b.length for b in bars])[:, None]
    thick = np.array([b.thickness for b in bars])[:, None, None]
    along = np.linspace(-reach, reach, 25)[None, :] * lengths          # (N, K) px along the bar
    across = np.linspace(-1.0, 1.0, 17)[None, :, None] * thick         # (N, M, 1) px across it
    start = dirs.copy()
    for _ in range(rounds):
        normals = np.stack([-dirs[:, 1], dirs[:, 0]], axis=1)
        points = (centers[:, None, None, :] + along[:, None, :, None] * dirs[:, None, None, :]
                  + across[..., None] * normals[:, None, None, :])        # (N, M, K, 2)
        n, m, k, _ = points.shape
        values = cv2.remap(ink, points[..., 0].reshape(n * m, k).astype(np.float32),
                           points[..., 1].reshape(n * m, k).astype(np.float32), cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=0).reshape(n, m, k)
        weights = values.astype(np.float64) ** 2
        mass = weights.sum(axis=1)                                          # (N, K)
        middle = (weights * across).sum(axis=1) / np.maximum(mass, 1e-9)    # ink centre per step
        use = mass > 0.2 * mass.max(axis=1, keepdims=True)
        for _ in range(2):
            slope, offset, _ = _line_fit(along, middle, use)
            miss = np.abs(middle - offset[:, None] - slope[:, None] * along)
            typical = _row_medians(miss, use)
            use &= miss < np.maximum(1.0, 2 * typical)[:, None]
        slope, offset, spread = _line_fit(along, middle, use)
        solid = values[:, m // 2, :].mean(axis=1)  # ink along the line the round started from
        turn = np.arctan(slope)[:, None]
        centers = centers + offset[:, None] * normals
        dirs = np.cos(turn) * dirs + np.sin(turn) * normals
        dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    turned = np.rad2deg(np.arccos(np.clip(np.abs(np.sum(dirs * start, axis=1)), 0.0, 1.0)))
    # A turn within three standard errors of the last line's slope is noise (short or ragged marks).
    # Only a solid bar is re-aimed: a faint or broken line is not a printed divider a pip could tilt.
    keep = ((turned > np.maximum(min_turn_deg, np.rad2deg(3 * spread))) & (turned <= max_turn_deg)
            & (solid >= min_ink) & np.all(np.isfinite(dirs), axis=1))
    return [Bar(centers[i].astype(np.float32), dirs[i].astype(np.float32), bars[i].length,
                bars[i].thickness, bars[i].polarity) for i in np.nonzero(keep)[0].tolist()]


def _row_medians(values: np.ndarray, use: np.ndarray) -> np.ndarray:
    """Median of each row of `values` over its `use` entries (0 for a row with none): what
    `np.nan_to_num(np.nanmedian(np.where(use, values, nan), axis=1))` gives, without the masked
    arrays nanmedian sorts small inputs with (a hundred times slower)."""
    ordered = np.sort(np.where(use, values, np.inf), axis=1)
    count = use.sum(axis=1)
    rows = np.arange(values.shape[0])
    low, high = ordered[rows, np.maximum(count - 1, 0) // 2], ordered[rows, count // 2]
    medians: np.ndarray = np.where(count > 0, (low + high) / 2, 0.0)
    return medians


def _line_fit(x: np.ndarray, y: np.ndarray,
              use: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row by row least-squares y = offset + slope * x over the `use` entries, and the slope's
    standard error (0, 0, inf with too few entries)."""
    count = use.sum(axis=1)
    weight = use.astype(np.float64)
    mean_x = (weight * x).sum(axis=1) / np.maximum(count, 1)
    mean_y = (weight * y).sum(axis=1) / np.maximum(count, 1)
    dx = (x - mean_x[:, None]) * weight
    spread = (dx * dx).sum(axis=1)
    enough = (count >= 5) & (spread > 1e-9)
    slope = np.where(enough, (dx * (y - mean_y[:, None])).sum(axis=1) / np.where(enough, spread, 1.0), 0.0)
    offset = np.where(enough, mean_y - slope * mean_x, 0.0)
    miss = y - offset[:, None] - slope[:, None] * x
    variance = (weight * miss * miss).sum(axis=1) / np.maximum(count - 2, 1)
    error = np.where(enough, np.sqrt(variance / np.maximum(spread, 1e-9)), np.inf)
    return slope, offset, error


def _seams_between(mask: np.ndarray, centres: np.ndarray, axes: np.ndarray,
                   pip_diameter: float) -> np.ndarray:
    """Whether a line crosses each `axes[k]` at `centres[k]` (float64 (P, 2) image px) in `mask`
    (uint8, non-zero on ink), as bool (P,): ink on both sides of the axis from 0.6 to 2 pips out,
    where a pin (a round spot on the axis) has none. The dividers of two tiles side by side are
    collinear, with the seam between them."""
    normals = np.stack([-axes[:, 1], axes[:, 0]], axis=1)
    steps = np.linspace(0.6, 2.0, 8) * pip_diameter
    height, width = mask.shape
    crossed = np.ones(centres.shape[0], bool)
    for side in (-1.0, 1.0):
        points = np.rint(centres[:, None, :] + (side * steps)[None, :, None] * normals[:, None, :]
                         ).astype(np.int64)                                          # (P, 8, 2)
        inside = ((points[..., 0] >= 0) & (points[..., 0] < width) & (points[..., 1] >= 0)
                  & (points[..., 1] < height))
        # The seam may sit a pixel or two off the middle of the gap: look one pixel either way.
        near = np.zeros(inside.shape, bool)
        for dx, dy in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
            near |= mask[np.clip(points[..., 1] + dy, 0, height - 1),
                         np.clip(points[..., 0] + dx, 0, width - 1)] > 0
        count = inside.sum(axis=1)
        share = (near & inside).sum(axis=1) / np.maximum(count, 1)
        crossed &= (count > 0) & (share >= 0.6)
    return crossed


def _bridged(bars: list[Bar], max_gap: float,
             seams: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None) -> list[Bar]:
    """Bars put together from two collinear pieces of similar length with a short gap between.

    A light metal pin in the middle of a thin bar splits it in two; the halves stay candidates
    too, and the fitting keeps whichever makes a tile. `seams(gap_centres, axes)` (float64 (P, 2)
    each), when given, says for each pair whether a line crosses its gap: then the pieces are two
    tiles' dividers, not one.
    """
    if len(bars) < 2:
        return []
    centers = np.array([b.center for b in bars], np.float64)
    dirs = np.array([b.direction for b in bars], np.float64)
    lengths = np.array([b.length for b in bars])
    # Only pairs close enough to be bridged are examined (most bars are far from each other):
    # pieces of lengths within 1.67 of each other (as bridged below) whose centres are within
    # their mean length and the gap of each other in x and in y.
    first_i, second_i = close_pairs(centers, reach=max_gap, sizes=lengths, size_ratio=1.67,
                                    reach_per_size=1.0)
    offset = np.abs(centers[second_i] - centers[first_i])
    reach = (lengths[first_i] + lengths[second_i]) / 2 + max_gap
    near = (offset[:, 0] <= reach) & (offset[:, 1] <= reach)
    first_i, second_i = first_i[near], second_i[near]
    # In the order the pairs of a full comparison came in (by first piece, then second).
    by_pair = np.lexsort((second_i, first_i))
    first_i, second_i = first_i[by_pair], second_i[by_pair]
    offset = centers[second_i] - centers[first_i]
    distance = np.maximum(np.hypot(offset[:, 0], offset[:, 1]), 1e-6)
    unit = offset / distance[:, None]
    # Short pieces have rough directions: the line through both centres must agree with both.
    agree_i = np.abs(np.sum(unit * dirs[first_i], axis=1))
    agree_j = np.abs(np.sum(unit * dirs[second_i], axis=1))
    gap = distance - (lengths[first_i] + lengths[second_i]) / 2
    ratio = lengths[first_i] / lengths[second_i]
    # Pieces may overlap: a thin line a few degrees off every opening angle comes out as two
    # pieces at neighbouring angles, each covering more than half of it. The rectangle of a short
    # thin piece may tilt ten degrees or so: the line through both centres must agree closely
    # with each piece, the pieces' own directions only within 25 degrees.
    overlap = -0.6 * np.minimum(lengths[first_i], lengths[second_i])
    ok = ((np.abs(np.sum(dirs[first_i] * dirs[second_i], axis=1)) >= 0.9) & (agree_i >= 0.95)
          & (agree_j >= 0.95) & (ratio >= 0.6) & (ratio <= 1.67) & (gap >= overlap) & (gap <= max_gap))
    pairs = np.nonzero(ok)[0]
    # The same float32 arithmetic as on each bar's own arrays.
    centres32 = np.array([b.center for b in bars], np.float32).reshape(-1, 2)
    axes = unit[pairs].astype(np.float32)
    halves = (lengths / 2).astype(np.float32)[:, None]
    inner_first = centres32[first_i[pairs]] + axes * halves[first_i[pairs]]
    inner_second = centres32[second_i[pairs]] - axes * halves[second_i[pairs]]
    gap_centres = ((inner_first + inner_second) / 2).astype(np.float64)
    crossed = (seams(gap_centres, axes.astype(np.float64)) if seams is not None and pairs.size
               else np.zeros(pairs.size, bool))
    joined: list[Bar] = []
    for k, axis, seam in zip(pairs.tolist(), axes, crossed.tolist(), strict=True):
        if seam:
            continue
        first, second = bars[first_i[k]], bars[second_i[k]]
        length = float(distance[k]) + (first.length + second.length) / 2
        center = (first.center + second.center) / 2 + axis * ((second.length - first.length) / 4)
        joined.append(Bar(center.astype(np.float32), axis, length,
                          max(first.thickness, second.thickness), first.polarity))
    return joined


def _reach_ink(mask: np.ndarray, bars: list[Bar], reach: float) -> list[Bar]:
    """Bars stretched along their line to where the ink in `mask` (uint8, non-zero on ink) ends.

    A bridged bar's ends come from its pieces' rectangles, and the piece beside a pin, or a piece
    a few degrees off the opening's angles, loses a pixel or two at its end; a bar ending short of
    its ink looks like a seam to `bar_context`, whose check of the face past each end starts 3 %
    beyond it. Each end moves out over ink, at most `reach` px.
    """
    if not bars:
        return []
    steps = np.arange(1, int(np.ceil(reach)) + 1, dtype=np.float64)
    centers = np.array([b.center for b in bars], np.float64)
    dirs = np.array([b.direction for b in bars], np.float64)
    halves = np.array([b.length for b in bars], np.float64) / 2 - 0.5
    height, width = mask.shape
    grown = []
    for sign in (-1.0, 1.0):
        tips = centers + sign * halves[:, None] * dirs                                 # (N, 2)
        points = np.rint(tips[:, None, :] + sign * steps[None, :, None] * dirs[:, None, :]).astype(np.intp)
        x = np.clip(points[..., 0], 0, width - 1)
        y = np.clip(points[..., 1], 0, height - 1)
        on_ink = (mask[y, x] > 0) & (points[..., 0] == x) & (points[..., 1] == y)      # (N, K)
        # Steps up to the first one off the ink.
        grown.append(np.where(on_ink.all(axis=1), steps.size, np.argmin(on_ink, axis=1)).astype(np.float64))
    out = []
    for k, bar in enumerate(bars):
        if grown[0][k] == 0 and grown[1][k] == 0:
            out.append(bar)
            continue
        center = centers[k] + dirs[k] * (grown[1][k] - grown[0][k]) / 2
        out.append(Bar(center.astype(np.float32), bar.direction, bar.length + grown[0][k] + grown[1][k],
                       bar.thickness, bar.polarity))
    return out


def _distinct(bars: list[Bar], pip_diameter: float) -> list[Bar]:
    """One bar per place: among candidates within half a pip of each other, the longest.

    Longest first, a bar is dropped when a kept one lies within half a pip and runs within 25
    degrees of it. The pairs that close are found by `vision.neighbours.close_pairs` (a busy
    frame has thousands of bars, mostly far apart), then the choice walks them in order."""
    order = sorted(range(len(bars)), key=lambda k: -bars[k].length)
    centers = np.array([bars[k].center for k in order], np.float32).reshape(-1, 2)
    dirs = np.array([bars[k].direction for k in order], np.float32).reshape(-1, 2)
    # Pairs of positions in `order`: a bar (`rival_of`) and a longer one close to it (`rival`).
    rival, rival_of = close_pairs(centers, reach=0.5 * pip_diameter)
    offset = centers[rival_of] - centers[rival]
    close = ((np.hypot(offset[:, 0], offset[:, 1]) <= 0.5 * pip_diameter)
             & (np.abs(np.sum(dirs[rival] * dirs[rival_of], axis=1)) >= 0.9))
    rival, rival_of = rival[close], rival_of[close]
    by_bar = np.argsort(rival_of, kind="stable")
    rival, rival_of = rival[by_bar], rival_of[by_bar]
    kept = np.ones(len(order), bool)  # a bar no longer one is close to stays
    if rival_of.size:  # sorted by rival_of
        positions, starts = np.unique(rival_of, return_index=True)
        ends = np.append(starts[1:], rival_of.size)
        for position, first, last in zip(positions.tolist(), starts.tolist(), ends.tolist(), strict=True):
            kept[position] = not kept[rival[first:last]].any()
    return [bars[order[position]] for position in np.flatnonzero(kept).tolist()]


def _line_kernel(length: int, angle_rad: float) -> np.ndarray:
    size = max(3, length | 1)
    kernel = np.zeros((size, size), np.uint8)
    c = size // 2
    dx, dy = np.cos(angle_rad) * (length - 1) / 2, np.sin(angle_rad) * (length - 1) / 2
    cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1, 1)
    return kernel


def _rect_of_points(points: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float] | None:
    """Centre, unit direction, length and thickness (px) of the smallest rectangle about `points`."""
    if points.shape[0] < 3:
        return None
    (cx, cy), (a, b), angle = cv2.minAreaRect(points)
    theta = math.radians(angle)  # as np.deg2rad, without numpy's per-call cost (called per piece)
    if a < b:
        theta += math.pi / 2
    a, b = max(a, b) + 1.0, min(a, b) + 1.0
    direction = np.array([math.cos(theta), math.sin(theta)], np.float32)
    return np.array([cx, cy], np.float32), direction, float(a), float(b)
