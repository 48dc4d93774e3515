"""From divider-bar candidates to tile frames: fit each tile's edges around its bar.

A face-up tile is found through its divider bar: the bar gives the centre, the orientation and a
first guess of the size (the bar spans most of the short side). The edges are then found in an
upright patch by walking out from the centre along median colour-distance profiles: a median over
a band ignores pips and keeps lines that cross the whole band, such as a tile's edge or the seam
between two touching tiles.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import TileFrame, sample
from vision.marks import Bar, channel_max, channel_min

BAR_TO_WIDTH = 0.72  # typical bar length / tile width, a prior only
PPW = 40             # px per half-width in the patches used to fit edges


@dataclass(frozen=True)
class TileFit:
    """A tile frame fitted around a bar, with how well the fit went."""

    frame: TileFrame
    face_bgr: np.ndarray  # float32 (3,), median face colour
    polarity: str
    score: float          # 0..1, how tile-like the surroundings of the bar are
    edge_rises: tuple[float, float, float, float]  # a-end, b-end, left, right: Lab distance steps


def _rises(profile: np.ndarray, centre: float, offsets: np.ndarray, step: int, width: int) -> np.ndarray:
    """Outward rise at each offset from `centre` going `step`: the mean over `width` px beyond the
    point minus the mean over `width` px before it (so a thin seam and a wide step both count).
    Points whose windows leave the profile get -inf."""
    n = profile.size
    sums = np.concatenate([[0.0], np.cumsum(profile, dtype=np.float64)])
    index = np.rint(centre + step * offsets).astype(np.int64)
    inner_lo, inner_hi = (index - width, index) if step > 0 else (index, index + width)
    outer_lo, outer_hi = (index, index + width) if step > 0 else (index - width, index)
    valid = (np.minimum(inner_lo, outer_lo) >= 0) & (np.maximum(inner_hi, outer_hi) < n)
    inner_lo, inner_hi = np.clip(inner_lo, 0, n - 1), np.clip(inner_hi, 0, n - 1)
    outer_lo, outer_hi = np.clip(outer_lo, 0, n - 1), np.clip(outer_hi, 0, n - 1)
    inner = (sums[inner_hi + 1] - sums[inner_lo]) / (inner_hi - inner_lo + 1)
    outer = (sums[outer_hi + 1] - sums[outer_lo]) / (outer_hi - outer_lo + 1)
    return np.where(valid, outer - inner, -np.inf)


def _strongest_rise(profile: np.ndarray, centre: float, near: float, far: float, step: int,
                    width: int) -> tuple[float, float]:
    """Where, between `near` and `far` px from `centre` going `step`, the profile rises most outward.

    Returns (offset in px from centre, rise).
    """
    offsets = np.arange(int(near), int(far) + 1, dtype=np.float64)
    if offsets.size == 0:
        return float(far), 0.0
    rises = _rises(profile, centre, offsets, step, width)
    best = int(np.argmax(rises))
    if not np.isfinite(rises[best]):
        return float(far), 0.0
    return float(offsets[best]), float(rises[best])


def _strongest_pair(profile: np.ndarray, centre: float, near: float, far: float,
                    width: int) -> tuple[float, float, float]:
    """The offset from `centre` where the profile rises most on both sides together.

    Returns (offset px, rise going down-index, rise going up-index). The weaker side counts double:
    a real tile has an edge on both sides.
    """
    offsets = np.arange(int(near), int(far) + 1, dtype=np.float64)
    if offsets.size == 0:
        return float(far), 0.0, 0.0
    down = _rises(profile, centre, offsets, -1, width)
    up = _rises(profile, centre, offsets, 1, width)
    down, up = np.where(np.isfinite(down), down, 0.0), np.where(np.isfinite(up), up, 0.0)
    total = down + up + np.minimum(down, up)
    best = int(np.argmax(total))
    return float(offsets[best]), float(down[best]), float(up[best])


def _span(mask: np.ndarray) -> slice:
    """The slice from the first to the last True of a 1-D mask of one run (empty when none)."""
    where = np.flatnonzero(mask)
    return slice(int(where[0]), int(where[-1]) + 1) if where.size else slice(0, 0)


_CHANNEL_OFFSETS = np.array([0, 256, 512], np.intp)


def _channel_medians(pixels: np.ndarray) -> np.ndarray:
    """`np.median(pixels, axis=0)` for (N >= 1, 3) whole numbers 0..255 (uint8, or Lab of uint8 as
    float32), in the same dtype np.median gives, counted instead of sorted: several times faster."""
    count = pixels.shape[0]
    codes = pixels.astype(np.intp) + _CHANNEL_OFFSETS
    ranks = np.cumsum(np.bincount(codes.ravel(), minlength=768).reshape(3, 256), axis=1)
    low = np.count_nonzero(ranks <= (count - 1) // 2, axis=1)
    high = np.count_nonzero(ranks <= count // 2, axis=1)
    medians: np.ndarray = ((low + high) / 2).astype(np.float32 if pixels.dtype == np.float32 else np.float64)
    return medians


@functools.lru_cache(maxsize=16)
def _grid(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Column and row offsets from a patch's centre, in `PPW` px units, as (rows, cols) arrays."""
    yy, xx = np.mgrid[0:rows, 0:cols]
    return (xx - (cols - 1) / 2) / PPW, (yy - (rows - 1) / 2) / PPW


def fit_tile(image: np.ndarray, bar: Bar, *, bar_ratio: float = BAR_TO_WIDTH,
             window: tuple[float, float] = (0.7, 1.35), half_width: float | None = None,
             aspect: float | None = None) -> TileFit | None:
    """Fit the tile whose divider is `bar`, or None when the surroundings cannot be a tile.

    Parameters: `image` uint8 (H, W, 3) BGR; `bar_ratio` the bar's length over the tile's width in
    this set (a prior, refined per image by the caller); `window` where to look for each edge, as
    fractions of the position the prior predicts. Each edge is the strongest outward rise of a
    low-percentile colour-distance profile inside its window. `half_width` (px), when given,
    replaces the guess from the bar's length: every tile of one set has the same size; `aspect`
    (fitted length over width in this image) then narrows the search for the ends.
    """
    across = bar.direction if (bar.direction[0] > 1e-6 or (
        abs(bar.direction[0]) <= 1e-6 and bar.direction[1] > 0)) else -bar.direction
    if half_width is None:
        half_width = bar.length / (2 * bar_ratio)
    guess = TileFrame(bar.center, across.astype(np.float32), half_width, 2 * half_width)
    ex, ey = 1.2 * window[1] + 0.1, 2.4 * window[1] + 0.2
    patch = sample(image, guess, pixels_per_half_width=PPW, extent_x=ex, extent_y=ey)
    rows, cols = patch.shape[:2]
    cy, cx = (rows - 1) / 2, (cols - 1) / 2
    xs, ys = _grid(rows, cols)   # in guessed half-widths
    grey = (channel_min(patch) if bar.polarity == "dark" else channel_max(patch)).astype(np.float32)
    region = (np.abs(xs) < 0.8) & (np.abs(ys) > 0.15) & (np.abs(ys) < 1.8)
    values = grey[region]
    if bar.polarity == "dark":
        face_mask = region & (grey >= np.percentile(values, 40))
    else:
        face_mask = region & (grey <= np.percentile(values, 60))
    face_bgr = _channel_medians(patch[face_mask].reshape(-1, 3)).astype(np.float32)
    # Bright marks belong on dark faces, dark marks on light ones; anything else is not a divider.
    # A black set under a bright lamp looks grey: a face still counts as dark beside a mark
    # much brighter than it.
    dark_face = float(face_bgr.max()) < 110
    if bar.polarity == "bright" and not dark_face:
        on_bar = grey[_span(np.abs(ys[:, 0]) < 0.04), _span(np.abs(xs[0]) < 0.5)]
        dark_face = on_bar.size > 0 and float(face_bgr.max()) < 0.6 * float(np.median(on_bar))
    if (bar.polarity == "bright") != dark_face:
        return None
    face_lab = cv2.cvtColor(face_bgr.reshape(1, 1, 3).astype(np.uint8), cv2.COLOR_BGR2LAB)
    lab_patch = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).astype(np.float32)
    difference = lab_patch - face_lab.reshape(3).astype(np.float32)
    distance = np.sqrt(np.einsum("ijk,ijk->ij", difference, difference))

    # Low percentiles across a band ignore pips (a minority of any band) but keep edges and seams.
    band_x = np.abs(xs[0]) < 0.6
    band_y = (np.abs(ys[:, 0]) < 1.7) & (np.abs(ys[:, 0]) > 0.2)
    along_profile = np.percentile(distance[:, band_x], 20, axis=1)
    across_profile = np.percentile(distance[band_y, :], 20, axis=0)
    width = max(2, PPW // 10)
    # The divider sits in the middle of the tile both ways, so each pair of opposite edges is found
    # together: the offset where both sides rise most. This keeps a faint seam at one end (tiles
    # laid end to end) from pulling the fit off the centre.
    near_x, far_x = window[0] * PPW, window[1] * PPW
    across_offset, rise_l, rise_r = _strongest_pair(across_profile, cx, near_x, far_x, width)
    half_w = across_offset / PPW
    # A domino is twice as long as wide; once the set's size is known, hold to that.
    near_y, far_y = (aspect * 0.9, aspect * 1.1) if aspect else (1.8, 2.3)
    near_y, far_y = near_y * across_offset, far_y * across_offset
    along_offset, rise_t, rise_b = _strongest_pair(along_profile, cy, near_y, far_y, width)
    # Then each edge on its own, close to the pair: real dividers sit a little off the middle.
    slack_x, slack_y = 0.12 * across_offset, 0.08 * along_offset
    lo_x, hi_x = across_offset - slack_x, across_offset + slack_x
    lo_y, hi_y = along_offset - slack_y, along_offset + slack_y
    left, rise_l = _strongest_rise(across_profile, cx, lo_x, hi_x, -1, width)
    right, rise_r = _strongest_rise(across_profile, cx, lo_x, hi_x, 1, width)
    top, rise_t = _strongest_rise(along_profile, cy, lo_y, hi_y, -1, width)
    bottom, rise_b = _strongest_rise(along_profile, cy, lo_y, hi_y, 1, width)
    t, b, lft, rgt = top / PPW, bottom / PPW, left / PPW, right / PPW
    half_w, half_l = (lft + rgt) / 2, (t + b) / 2
    aspect = half_l / max(half_w, 1e-6)
    scale = guess.half_width
    center = guess.to_image((rgt - lft) / 2, (b - t) / 2)
    frame = TileFrame(center.astype(np.float32), guess.across, half_w * scale, half_l * scale)
    # Every region below is an upright rectangle of the patch: work on slices, not masks.
    dx, dy = xs[0] - (rgt - lft) / 2, ys[:, 0] - (b - t) / 2
    rows_in, cols_in = _span(np.abs(dy) < 0.9 * half_l), _span(np.abs(dx) < 0.85 * half_w)
    inside = distance[rows_in, cols_in]
    shape_score = float(np.clip(1 - abs(aspect - 2) / 1.5, 0, 1))
    # Both halves show the same face; a frame straddling a tile and the table does not.
    halves = []
    for sign in (-1, 1):
        rows_h = _span((np.abs(dy) < 0.9 * half_l) & (sign * dy > 0.25 * half_w))
        half = lab_patch[rows_h, cols_in].reshape(-1, 3)
        if half.size:
            # Pips, and the colour a camera smears around coloured ones, may cover half of a
            # half: its face is the part nearest the face colour. A half on the table has none.
            near = distance[rows_h, cols_in].ravel()
            half = half[near <= np.percentile(near, 60)]
        halves.append(_channel_medians(half) if half.size else np.zeros(3, np.float32))
    halves_gap = float(np.linalg.norm((halves[0] - halves[1]) * np.array([0.2, 1.0, 1.0], np.float32)))
    halves_score = float(np.clip(1.0 - (halves_gap - 6.0) / 12.0, 0.0, 1.0))
    if inside.size and (shape_score == 0.0 or halves_score == 0.0):
        # The score is a product of finite factors: zero already (most false fits end here).
        return TileFit(frame, face_bgr, bar.polarity, 0.0, (rise_t, rise_b, rise_l, rise_r))
    face_noise = float(np.median(inside)) if inside.size else float("nan")
    uniform = float(np.mean(inside < face_noise + 12)) if inside.size else float("nan")
    # A tile stands out from what lies around it on at least one side; a stretch of wood grain or
    # felt that happens to hold a dark streak does not.
    level = np.array([0.25, 1.0, 1.0], np.float32)
    sides = [
        (_span(np.abs(dy) < 0.8 * half_l), _span((dx > 1.12 * half_w) & (dx < 1.45 * half_w))),
        (_span(np.abs(dy) < 0.8 * half_l), _span((dx < -1.12 * half_w) & (dx > -1.45 * half_w))),
        (_span((dy > 1.06 * half_l) & (dy < 1.2 * half_l)), _span(np.abs(dx) < 0.7 * half_w)),
        (_span((dy < -1.06 * half_l) & (dy > -1.2 * half_l)), _span(np.abs(dx) < 0.7 * half_w)),
    ]
    shares = []
    for rows_s, cols_s in sides:
        block = difference[rows_s, cols_s]
        if block.size:
            shares.append(float(np.mean(np.einsum("ijk,ijk,k->ij", block, block, level) > 144.0)))
    contrast = max(shares, default=0.0)
    surround_score = float(np.clip((contrast - 0.15) / 0.35, 0.0, 1.0))
    edges = (max(min(rise_t, rise_b), 0) + max(min(rise_l, rise_r), 0)) / 2
    edge_score = float(np.clip(edges / 6.0, 0, 1))
    score = uniform * (0.5 + 0.5 * edge_score) * shape_score * halves_score * surround_score
    return TileFit(frame, face_bgr, bar.polarity, float(score), (rise_t, rise_b, rise_l, rise_r))


def bar_context(image: np.ndarray, bar: Bar, half_width: float) -> float:
    """How much the bar's surroundings look like one face: 0 (no) .. 1 (yes).

    A divider has the same face on both sides and the face continues past both of its ends. The
    edge of a tile (face on one side, table on the other) and the seam between two tiles (table
    past its ends) fail this.
    """
    frame = TileFrame(bar.center, bar.direction, bar.length / 2, bar.length / 2)
    ppw = 24
    # Upright patch: columns along the bar (in half bar lengths), rows across it.
    extent_x = 1.0 + 0.45 * half_width / (bar.length / 2)
    extent_y = 0.6 * half_width / (bar.length / 2)
    patch = sample(image, frame, pixels_per_half_width=ppw, extent_x=extent_x, extent_y=extent_y)
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).astype(np.float32)
    rows, cols = lab.shape[:2]
    xs = (np.arange(cols) - (cols - 1) / 2) / ppw
    ys = (np.arange(rows) - (rows - 1) / 2) / ppw
    thick = max(bar.thickness / bar.length, 0.05)
    # Each region is an upright rectangle of the patch.
    middle = _span(np.abs(xs) < 0.7)
    off_bar = np.abs(ys) > thick * 1.5 + 0.05
    on_line = _span(np.abs(ys) < max(thick, 0.08))
    # Past each end two places are looked at and the more face-like counts: a bar found a little
    # short (its tip faded into the centre pin's shadow) reaches over the nearer one.
    ends = ((1.03, 1.1), (1.13, 1.2))
    regions = [(_span(off_bar & (ys < 0)), middle), (_span(off_bar & (ys > 0)), middle)]
    regions += [(on_line, _span((xs < -lo) & (xs > -hi))) for lo, hi in ends]
    regions += [(on_line, _span((xs > lo) & (xs < hi))) for lo, hi in ends]
    blocks = [lab[rows_s, cols_s].reshape(-1, 3) for rows_s, cols_s in regions]
    if any(block.shape[0] < 3 for block in blocks[:2]):
        return 0.0
    above, below = _channel_medians(blocks[0]), _channel_medians(blocks[1])
    reference = (above + below) / 2
    past_ends = [_channel_medians(block) if block.shape[0] >= 3 else None for block in blocks[2:]]
    # Lightness varies across a lit face; hue and saturation much less.
    weights = np.array([0.5, 1.0, 1.0], np.float32)
    # Past the bar's ends the face's bevel darkens it: there only a change of colour counts, or
    # of lightness by much more than a bevel shades.
    end_weights = np.array([0.2, 1.0, 1.0], np.float32)

    def distance(colour: np.ndarray | None, scale: np.ndarray) -> float:
        if colour is None:
            return np.inf
        offset = (colour - reference) * scale
        return float(np.sqrt(np.sum(offset * offset)))

    # Per end, the more face-like of its two places (`past_ends`: near and far of one end, then
    # of the other).
    ends_off = [min(distance(past_ends[i], end_weights), distance(past_ends[i + 1], end_weights))
                for i in (0, 2)]
    worst = max([distance(above, weights), distance(below, weights), *ends_off])
    return float(np.clip(1.0 - (worst - 8.0) / 20.0, 0.0, 1.0))
