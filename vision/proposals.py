"""Candidate tiles from geometry alone: where a face-up tile could lie, before anything reads it.

A face-up domino's most telling shape is its divider: a straight mark across the middle of the
face, a fixed share of the tile's width long. `propose` brings the image to the working scale
(`vision.scale`, then pips of `WORK_PIP_PX`), finds every divider-like bar of either polarity
(`vision.marks.find_bars`) and offers, around each, a frame of a tile that bar could divide.
Recall comes first: pip rows, seams between tiles, grain and the edges of cards all give bars
too, and the tile reader (`vision.tilenet`) decides which frames hold a tile.

Shapes: the working image is uint8 (H, W, 3) BGR with a grey margin of `margin` px on each side;
a proposal is a `TileFrame` in working-image px. `to_input` maps working px back to the input's.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from vision.geometry import TileFrame
from vision.image import checked_bgr
from vision.markers import find_markers, on_marker
from vision.marks import Bar, envelope_size, find_bars, ink_ratio, pip_diameters
from vision.neighbours import close_pairs
from vision.scale import MIN_WORK_SIDE, coarse_factor, shrink

WORK_PIP_PX = 11.0  # pips wider than this are shrunk to it: the answer needs no more pixels
BAR_TO_WIDTH = 0.72  # a divider's typical length over the tile's width (sets range 0.45..0.95)
TILE_ASPECT = 2.0  # a tile's length over its width (every common set)
MAX_PIP_SHARE = 0.25  # of the working image's shorter side: the widest a pip can be
PIP_PER_HALF_WIDTH = 0.33  # a pip's diameter over a tile's half-width (about 4 mm of 12 on most sets)
DARK_BAR_INK = 0.4  # ink ratio of a dark divider on a light face (`vision.marks.ink_ratio`)
FAINT_BAR_INK = 0.3  # ... of a hairline divider, blurred to a faint line
BRIGHT_BAR_INK = 0.3  # ... of a bright divider on a dark face
MAX_FAINT_THICKNESS = 0.5  # pips: a faint bar thicker than this is merged pips, not a hairline
MARGIN_SHARE = 0.1  # grey margin, a share of the shorter side: tiles cut by the border keep an edge
# Two proposals this close are one: the reader's first look moves a frame this far anyway.
SAME_PLACE = 0.25  # centres within this many half-widths ...
SAME_DEGREES = 8.0  # ... axes within this angle ...
SAME_SIZE = 0.15  # ... and half-widths within this ratio
# Where a bar redrawn at the set's size (`redrawn`) puts the bar, in the frame's half-lengths
# along it: on the divider, or across one half (a row of pips).
SHIFTS_ALONG = (0.0, -0.5, 0.5)


@dataclass(frozen=True)
class WorkImage:
    """The image every later stage reads, and how to map its pixels back to the input's."""

    image: np.ndarray  # uint8 (H, W, 3) BGR at the working scale, with the grey margin
    coarse: np.ndarray  # uint8 (h, w, 3) BGR at the coarse scale, without margin
    coarse_factor: float  # input px * coarse_factor = coarse px
    scale: float  # coarse px * scale + margin = working px
    margin: int
    pip: float  # pip diameter in working px
    markers: tuple[np.ndarray, ...]  # ArUco outlines in coarse px
    # Other guesses at the pip diameter, coarse px, likeliest first (`vision.marks.pip_diameters`;
    # none when a calibration gave the size).
    pip_alternatives: tuple[float, ...] = ()
    # `image` averaged down for crops (`vision.crops.crops`), by quarter octave: built on demand.
    shrunk: dict[int, np.ndarray] = field(default_factory=dict, compare=False, repr=False)

    def to_input(self, points: np.ndarray) -> np.ndarray:
        """(..., 2) working px -> input px."""
        return ((np.asarray(points, np.float32) - self.margin) / (self.scale * self.coarse_factor)).astype(
            np.float32
        )

    def from_input(self, points: np.ndarray) -> np.ndarray:
        """(..., 2) input px -> working px."""
        return (np.asarray(points, np.float32) * (self.scale * self.coarse_factor) + self.margin).astype(
            np.float32
        )


def work_image(image_bgr: object, tile_length_px: float | None = None) -> WorkImage:
    """The checked input brought to its working scale (see the module's docstring).

    A calibrated camera's `tile_length_px` gives the pips' size outright (`PIP_PER_HALF_WIDTH` of
    a quarter of it); without one it is estimated from the round marks in view."""
    checked = checked_bgr(image_bgr)
    factor = coarse_factor(checked.shape, tile_length_px)
    coarse = shrink(checked, factor)
    markers = tuple(find_markers(coarse))
    alternatives: tuple[float, ...] = ()
    if tile_length_px is not None:
        pip = PIP_PER_HALF_WIDTH * tile_length_px * factor / (2 * TILE_ASPECT)
    else:
        pip, *others = pip_diameters(coarse, markers=list(markers))
        alternatives = tuple(others)
    return at_pip(coarse, factor, markers, pip, alternatives)


def at_pip(coarse: np.ndarray, factor: float, markers: tuple[np.ndarray, ...], pip: float,
           alternatives: tuple[float, ...] = ()) -> WorkImage:
    """The working image of `coarse` for pips `pip` coarse px wide: shrunk to `WORK_PIP_PX` pips."""
    # However large the pips are said to be (a wrong calibration), the image keeps MIN_WORK_SIDE px.
    scale = max(min(1.0, WORK_PIP_PX / pip), min(1.0, MIN_WORK_SIDE / min(coarse.shape[:2])))
    if scale < 0.95:
        image = shrink(coarse, scale)
        pip *= scale
    else:
        scale, image = 1.0, coarse
    # No pip is wider than a quarter of the picture (its tile would not fit in it); kernels are
    # sized from the pip, so a wrong calibration must not make them larger.
    pip = min(pip, MAX_PIP_SHARE * min(image.shape[:2]))
    margin = max(8, round(min(image.shape[:2]) * MARGIN_SHARE))
    image = cv2.copyMakeBorder(
        image, margin, margin, margin, margin, cv2.BORDER_CONSTANT, value=(128, 128, 128)
    )
    return WorkImage(image, coarse, factor, scale, margin, pip, markers, pip_alternatives=alternatives)


def with_pip(work: WorkImage, pip: float) -> WorkImage:
    """`work` again, for pips `pip` coarse px wide (when the estimate proved wrong)."""
    return at_pip(work.coarse, work.coarse_factor, work.markers, pip, work.pip_alternatives)


def divider_bars(work: WorkImage) -> list[Bar]:
    """Every bar of either polarity that could be a divider, none on a marker."""
    image, pip = work.image, work.pip
    bars: list[Bar] = []
    for polarity, threshold in (("dark", DARK_BAR_INK), ("bright", BRIGHT_BAR_INK)):
        # Each channel's own contrast: a divider on a coloured face may stand out in one only.
        ink = ink_ratio(image, polarity=polarity, window=envelope_size(image.shape, pip), per_channel=True)
        strong = find_bars(ink, pip, polarity=polarity, threshold=threshold)
        bars += strong
        if polarity == "dark":
            bars += _faint(find_bars(ink, pip, polarity=polarity, threshold=FAINT_BAR_INK), strong, pip)
    markers = [quad * work.scale + work.margin for quad in work.markers]
    return [bar for bar in bars if not on_marker(bar.center, markers)]


def _faint(faint: list[Bar], strong: list[Bar], pip: float) -> list[Bar]:
    """Bars found only at the lower threshold that are thin: a hairline divider blurs to a faint
    line, while pips that merge at that threshold make thick blobs."""
    thin = [bar for bar in faint if bar.thickness <= MAX_FAINT_THICKNESS * pip]
    centers = np.array([b.center for b in strong + thin], np.float32).reshape(-1, 2)
    # A thin faint bar within half a pip of a strong one is that bar again.
    first, second = close_pairs(centers, reach=0.5 * pip)
    pairs = (first < len(strong)) & (second >= len(strong))
    first, second = first[pairs], second[pairs]
    offset = centers[second] - centers[first]
    again = np.zeros(len(thin), bool)
    again[second[np.hypot(offset[:, 0], offset[:, 1]) < 0.5 * pip] - len(strong)] = True
    return [replace(bar, faint=True) for bar, seen in zip(thin, again.tolist(), strict=True) if not seen]


def bar_frame(bar: Bar, bar_to_width: float = BAR_TO_WIDTH) -> TileFrame:
    """The tile `bar` would divide if it were a divider `bar_to_width` of the tile's width long."""
    half_width = bar.length / (2 * bar_to_width)
    return TileFrame(
        np.asarray(bar.center, np.float32),
        np.asarray(bar.direction, np.float32),
        float(half_width),
        float(TILE_ASPECT * half_width),
    )


def redrawn(proposal: TileFrame, half_width: float, half_length: float) -> list[TileFrame]:
    """Frames of the given size about `proposal`'s bar, along it and across it (a row of pips may
    run either way), with the bar on the divider or across either half (`SHIFTS_ALONG`)."""
    out = []
    for axis in (proposal.across, proposal.along):
        along = TileFrame(proposal.center, axis, half_width, half_length).along
        for shift in SHIFTS_ALONG:
            center = proposal.center + np.float32(shift * half_length) * along
            out.append(TileFrame(center.astype(np.float32), axis, half_width, half_length))
    return out


def distinct(frames: list[TileFrame], *, by_size: bool = True) -> list[TileFrame]:
    """`frames` less those that repeat a larger one (see `SAME_PLACE`): a bar is often found
    whole, bridged over a pin and re-aimed along its ink, and all three frame the same tile.
    With `by_size` False, an earlier frame is preferred to a later one instead (the caller has
    put them in order)."""
    if not frames:
        return []
    order = list(range(len(frames)))
    if by_size:
        order.sort(key=lambda i: -frames[i].half_width)
    centers = np.array([frames[i].center for i in order], np.float32)
    axes = np.array([frames[i].across for i in order], np.float32)
    widths = np.array([frames[i].half_width for i in order], np.float32)
    # Pairs of ranks, an earlier (kept first) and a later frame, that repeat each other.
    earlier, later = close_pairs(centers, reach=0.0, sizes=widths, size_ratio=1 + SAME_SIZE,
                                 reach_per_size=SAME_PLACE)
    offset = centers[later] - centers[earlier]
    near = np.hypot(offset[:, 0], offset[:, 1]) < SAME_PLACE * widths[earlier]
    near &= np.abs(np.sum(axes[earlier] * axes[later], axis=1)) > np.cos(np.radians(SAME_DEGREES))
    near &= np.abs(np.log(widths[earlier] / widths[later])) < np.log1p(SAME_SIZE)
    earlier, later = earlier[near], later[near]
    by_rank = np.argsort(earlier, kind="stable")
    earlier, later = earlier[by_rank], later[by_rank]
    starts = np.searchsorted(earlier, np.arange(len(order)), "left")
    ends = np.searchsorted(earlier, np.arange(len(order)), "right")
    kept: list[int] = []
    dropped = np.zeros(len(order), bool)
    for rank in range(len(order)):
        if dropped[rank]:
            continue
        kept.append(order[rank])
        dropped[later[starts[rank]:ends[rank]]] = True
    return [frames[i] for i in kept]


def propose(work: WorkImage) -> list[TileFrame]:
    """One frame per divider-like bar (see `bar_frame`), repeats left out (see `distinct`)."""
    return distinct([bar_frame(bar) for bar in divider_bars(work)])
