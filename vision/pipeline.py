"""The stages of `read_image` in order; see `vision.read` for the public API."""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.detect import TileFit, bar_context, fit_tile
from vision.geometry import TileFrame
from vision.image import checked_bgr
from vision.layout import find_joins
from vision.markers import find_markers, on_marker
from vision.marks import Bar, envelope_size, estimate_pip_diameter, find_bars, ink_ratio
from vision.pips import PipReading, read_pips
from vision.scale import coarse_factor, shrink
from vision.types import SeenTile, TableView, tile_name

# A divider is a thin line: the thickest seen on real sets is 0.31 half-widths, about a pip's
# radius. The dark gap between two fingers, fitted as a tile, is half a half-width or more.
MAX_BAR_THICKNESS = 0.45
GREY_FACE = (60.0, 160.0)  # brightest channel of a face that can hold dark or bright pips


@dataclass(frozen=True)
class Candidate:
    bar: Bar
    fit: TileFit
    pips: PipReading
    confidence: float


def find_candidates(image: np.ndarray, bars: list[Bar], *, bar_ratio: float,
                    window: tuple[float, float], max_pip: int,
                    half_width: float | None = None, aspect: float | None = None,
                    min_confidence: float = 0.0,
                    contexts: dict[int, float] | None = None,
                    reuse: dict[int, Candidate] | None = None,
                    final: bool = False) -> list[Candidate]:
    """A fitted and read tile for every bar that can be a tile's divider.

    With `half_width` (the size of this set's tiles in this image, px) every fit starts from it,
    and a bar whose length does not fit that size (by `bar_ratio`, within 25 %) is no divider.
    `contexts` keeps each bar's `bar_context` between passes (it hardly depends on the size);
    `reuse` holds, by bar, readings of an earlier pass that need no second fit. In the `final` pass
    a candidate that cannot reach `min_confidence` is left out unread (an earlier pass keeps them:
    a fit of the set's size there spares its bar a second fit).
    """
    out: list[Candidate] = []
    for bar in bars:
        key = id(bar)
        if reuse is not None and key in reuse:
            out.append(reuse[key])  # already a tile of the set's size and shape, whatever its bar
            continue
        if half_width is not None and abs(bar.length / (2 * half_width) / bar_ratio - 1) > 0.25:
            continue
        if contexts is not None and key in contexts:
            context = contexts[key]
        else:
            context = bar_context(image, bar, half_width or bar.length / (2 * bar_ratio))
            if contexts is not None:
                contexts[key] = context
        if context <= min_confidence or (bar.faint and context * 0.7 < min_confidence):
            continue  # a reading's confidence never exceeds its bar's context (0.7 of it if faint)
        fit = fit_tile(image, bar, bar_ratio=bar_ratio, window=window, half_width=half_width,
                       aspect=aspect)
        if fit is None or fit.score <= 0 or bar.thickness > MAX_BAR_THICKNESS * fit.frame.half_width:
            continue
        if final and fit.score * context * (0.7 if bar.faint else 1.0) < min_confidence:
            continue  # every other factor of the confidence is at most 1
        pips = read_pips(image, fit.frame, fit.face_bgr, fit.polarity, bar_thickness=bar.thickness)
        if not pips.valid or pips.a > max_pip or pips.b > max_pip:
            continue
        if pips.a + pips.b == 0 and _pips_of_the_other_polarity(image, fit, bar.thickness):
            continue
        smooth = float(np.clip(1.0 - (pips.clutter - 0.02) / 0.04, 0.0, 1.0))
        confidence = fit.score * (0.6 + 0.4 * pips.regularity) * context * smooth
        if bar.faint:
            confidence *= 0.7
        out.append(Candidate(bar, fit, pips, confidence))
    return out


def _pips_of_the_other_polarity(image: np.ndarray, fit: TileFit, bar_thickness: float) -> bool:
    """Whether a mid-grey face read blank shows two or more pips of the other polarity: then it
    is a black set's face grey under a lamp, whose bright pips a dark mark (the seam between two
    tiles) was read across. Only a mid-grey face can hold either: on a light face the bright ink
    is noise in the few levels left below 255, on a black one the dark ink is noise above 0."""
    if not GREY_FACE[0] <= float(fit.face_bgr.max()) <= GREY_FACE[1]:
        return False
    other = "bright" if fit.polarity == "dark" else "dark"
    pips = read_pips(image, fit.frame, fit.face_bgr, other, bar_thickness=bar_thickness)
    return pips.valid and pips.a + pips.b >= 2


def _inside(point: np.ndarray, frame: TileFrame, shrink: float = 0.9) -> bool:
    offset = point - frame.center
    return (abs(float(offset @ frame.across)) < shrink * frame.half_width
            and abs(float(offset @ frame.along)) < shrink * frame.half_length)


def overlap(first: TileFrame, second: TileFrame) -> float:
    """Shared area over the smaller tile's area, 0..1."""
    area, _ = cv2.intersectConvexConvex(first.corners(), second.corners())
    smaller = 4 * min(first.half_width * first.half_length, second.half_width * second.half_length)
    return float(area) / max(smaller, 1e-6)


def select(candidates: list[Candidate], min_confidence: float, *,
           max_overlap: float = 0.2, kept: list[Candidate] | None = None) -> list[Candidate]:
    """The best candidate per place: a candidate overlapping a better one is dropped.

    A reading of fewer than two pips needs twice `min_confidence`: pips are what only a tile
    shows, while a pale outline around a dark line is also the gap between two fingers, a streak
    of wood grain or the edge of a back. Places taken by `kept` (an earlier choice) stay theirs."""
    kept = list(kept or [])
    for cand in sorted(candidates, key=lambda c: -c.confidence):
        if cand.confidence < min_confidence * (2.0 if cand.pips.a + cand.pips.b < 2 else 1.0):
            continue
        frame = cand.fit.frame
        if any(overlap(frame, k.fit.frame) > max_overlap or _inside(cand.bar.center, k.fit.frame, 0.85)
               for k in kept):
            continue
        kept.append(cand)
    return kept


def faint_bars(faint: list[Bar], strong: list[Bar], pip: float) -> list[Bar]:
    """Bars found only at a lower threshold that are thin: a divider drawn as a hairline
    blurs to a faint line, while pips that merge at that threshold make thick blobs."""
    centers = np.array([b.center for b in strong], np.float32).reshape(-1, 2)
    out = []
    for bar in faint:
        if bar.thickness > 0.5 * pip:
            continue
        if centers.size and np.min(np.hypot(*(centers - bar.center).T)) < 0.5 * pip:
            continue
        out.append(replace(bar, faint=True))
    return out


def set_members(candidates: list[Candidate], spread: float = 0.2) -> list[Candidate]:
    """The candidates of the commonest tile size: every tile of one set has the same size, and
    false fits (sleeve stripes, grain) come in many sizes. Sizes vote with their confidence, and
    a reading with pips, a thing only a tile shows, votes three times as much as a blank one.
    Readings around faint bars vote only when there is no other."""
    strong = [c for c in candidates if not c.bar.faint]
    candidates = strong or candidates  # faint bars speak only when no clear divider does
    sizes = np.log([c.fit.frame.half_width for c in candidates])
    weights = np.array([c.confidence * (1.0 if c.pips.a + c.pips.b else 0.33) for c in candidates])
    near = np.abs(sizes[:, None] - sizes[None, :]) <= spread
    best = int(np.argmax(near.astype(np.float64) @ weights))
    return [c for c, inside in zip(candidates, near[best], strict=True) if inside]


def of_the_sets_shape(candidate: Candidate, half_width: float, aspect: float, spread: float) -> bool:
    """Whether a reading's fitted frame is within `spread` (a ratio) of the set's half-width and
    aspect (half-length over half-width)."""
    frame = candidate.fit.frame
    return (abs(frame.half_width / half_width - 1) < spread
            and abs(frame.half_length / frame.half_width / aspect - 1) < spread)


def first_readings_to_keep(first: list[Candidate], refit: list[Candidate], *, half_width: float,
                           aspect: float, spread: float = 0.08) -> list[Candidate]:
    """First-pass readings whose bar the refit at the set's size read nothing from.

    The narrower refit can slide off a half whose pips touch a seam; a first reading within
    `spread` of the set's size and shape stands in for it. Blank and one-pip readings, the
    likeliest false ones, get no second chance."""
    refitted = {id(c.bar) for c in refit}
    return [c for c in first if id(c.bar) not in refitted and c.pips.a + c.pips.b >= 2
            and of_the_sets_shape(c, half_width, aspect, spread)]


def read_checked(image_bgr: object, *, max_pip: int, min_confidence: float,
                 work_pip: float = 11.0, tile_length_px: float | None = None) -> TableView:
    """`read_image` on a checked frame, at a bounded cost whatever its size.

    The frame is first brought to its coarse scale (`vision.scale`: at most a 1080p frame's
    pixels, less when a calibrated tile is long); the markers, the pip size and the backs are
    found there. Frames whose pips are wider than `work_pip` px are then read shrunk to that
    size: the answer does not change and the time falls with the square. Corners are mapped back
    to the input's pixels."""
    checked = checked_bgr(image_bgr)
    coarse = coarse_factor(checked.shape, tile_length_px)
    full = original = shrink(checked, coarse)
    found_markers = find_markers(original)
    pip = estimate_pip_diameter(original, markers=found_markers)
    scale = min(1.0, work_pip / pip)
    if scale < 0.95:
        original = cv2.resize(original, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        pip *= scale
    else:
        scale = 1.0
    image = original
    # A grey margin gives tiles cut by the border (and close crops of one tile) an edge to fit.
    margin = max(8, min(image.shape[:2]) // 10)
    image = cv2.copyMakeBorder(image, margin, margin, margin, margin, cv2.BORDER_CONSTANT,
                               value=(128, 128, 128))
    markers = [quad * scale + margin for quad in found_markers]
    bars: list[Bar] = []
    for polarity in ("dark", "bright"):
        ink = ink_ratio(image, polarity=polarity, window=envelope_size(image.shape, pip))
        strong = find_bars(ink, pip, polarity=polarity, threshold=0.4 if polarity == "dark" else 0.3)
        bars += strong
        if polarity == "dark":
            bars += faint_bars(find_bars(ink, pip, polarity=polarity, threshold=0.3), strong, pip)
    bars = [bar for bar in bars if not on_marker(bar.center, markers)]
    contexts: dict[int, float] = {}
    wide = find_candidates(image, bars, bar_ratio=0.72, window=(0.7, 1.35), max_pip=max_pip,
                           min_confidence=min_confidence, contexts=contexts)
    first = select(wide, min_confidence)
    # The bar's share of the width is the same for every tile of a set: learn it from this image
    # and fit again with narrower windows.
    if first:
        first = set_members(first)
        ratios = [c.bar.length / (2 * c.fit.frame.half_width) for c in first]
        ratio = float(np.clip(np.median(ratios), 0.45, 0.95))
        size = float(np.median([c.fit.frame.half_width for c in first]))
        aspect = float(np.median([c.fit.frame.half_length / c.fit.frame.half_width for c in first]))
        # A first fit already of the set's size and shape would only be found again.
        agree = {id(c.bar): c for c in wide if of_the_sets_shape(c, size, aspect, 0.04)}
        final = find_candidates(image, bars, bar_ratio=ratio, window=(0.85, 1.18),
                                max_pip=max_pip, half_width=size, aspect=aspect,
                                min_confidence=min_confidence, contexts=contexts,
                                reuse=agree, final=True)
        chosen = select(final, min_confidence)
        near = first_readings_to_keep(wide, final, half_width=size, aspect=aspect)
        chosen = select(near, min_confidence, kept=chosen)  # only where the refit left room
    else:
        chosen = []
    if tile_length_px is not None:
        length = tile_length_px * coarse * scale
        chosen = [c for c in chosen if 0.85 < 2 * c.fit.frame.half_length / length < 1.15]
    tiles = tuple(
        SeenTile(tile_name(c.pips.a, c.pips.b), c.pips.a, c.pips.b,
                 ((c.fit.frame.corners() - margin) / (scale * coarse)).astype(np.float32),
                 float(c.confidence))
        for c in chosen)
    frames = [c.fit.frame for c in chosen]
    joins = find_joins(frames, [t.is_double for t in tiles])
    from vision.facedown import find_face_down

    # Backs are counted at the coarse scale, not the reading's: with few pips in view the pip
    # size, and so the shrink, says nothing about the size of a back.
    shifted = [TileFrame((f.center - margin) / scale, f.across, f.half_width / scale, f.half_length / scale)
               for f in frames]
    face_down = find_face_down(full, shifted, markers=found_markers,
                               tile_length_px=None if tile_length_px is None else tile_length_px * coarse)
    return TableView(
        tiles=tiles,
        face_down_corners=tuple((corners / coarse).astype(np.float32) for corners in face_down),
        joins=tuple((tiles[j.first].tile, tiles[j.second].tile) for j in joins),
        join_halves=tuple((j.first, j.first_half, j.second, j.second_half) for j in joins),
    )


__all__ = ["cv2", "read_checked"]
