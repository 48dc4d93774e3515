"""A photo taken at a slant, read again on the plane its tiles lie on.

A phone held over a table at 40 degrees from straight down sees the near tiles up to twice as
long as the far ones, and every tile squashed along the slant: one lying along it looks 1.5 times
as long as wide, one lying across it 2.6 times. The reader drops the largest as not the set's
size (`vision.pipeline.SET_SIZE_SPREAD`) and loses squashed ones. A calibrated camera is read on
its table's plane (`vision.rectify`); an uncalibrated photo has no plane to go by but its own
tiles, which all have one size and one shape. So, from the tiles a first read saw:

1. `vanishing_line`: under a plane's perspective a tile's area in the image grows as the cube of
   l . p, for the plane's vanishing line l (the image's area per area of the plane is
   det(H) (l . p)^3), so the cube root of each tile's area is fitted as a linear function of its
   position, and that function is the line. The fit is robust (a reading off it by more than
   `FIT_INLIER_LOG` is left out and it is fitted again) and shrunk towards no slant
   (`GRADIENT_RIDGE`): the reader's frames give sizes a few per cent off, and a fit that follows
   them all the way read fewer tiles on the turned frames it was measured on.
2. `affine_metric`: with the line sent to infinity, what is left is a squash and shear, the same
   everywhere; each tile's long side is `TILE_ASPECT` times its short side and at right angles
   to it, which fixes it (least squares over the tiles, two equations each).
3. `slant_of` decides whether it matters: the picture is read again only when the plane changes a
   tile's length across the image by `MIN_SLANT` or more, or squashes it by `MIN_SQUASH` or
   more. A photo taken from above is read once, as before (none of 300 widened tuning frames,
   whose cameras lean a little, was read again).
4. `read_slanted` warps the photo onto that plane (`vision.rectify.rectify`, with the plane as a
   calibration) and reads it there with corners taken back to the photo's pixels; that read is
   kept unless it sees fewer tiles. Up to `SLANT_READS` times, each from the last read's tiles.

Only a first read's face-up tiles go into the fit, so a photo of a heap of backs or of one tile
is read once; a photo whose first read sees almost nothing (a steeper slant than about 45
degrees) is not helped. Every bound is a named constant here. Measured with
`python -m benchmarks.vision_slant` (README, "Photos taken at a slant").
"""

from __future__ import annotations

import math

import numpy as np

from vision.calibration import Calibration, TableLayout
from vision.geometry import TILE_ASPECT, TileFrame, frame_from_corners
from vision.pipeline import OFF_SIZE
from vision.plane import project
from vision.rectify import read_rectified, rectify
from vision.types import TableView

# Face-up tiles (kept, or dropped as not the set's size) a first read must see for a plane to be
# fitted to them: with fewer, their sizes cannot tell a slant from a set of mixed tiles.
SLANT_QUORUM = 3
# A reading whose tile size is off the fit by more than this (log of the cube root of its area,
# about 1.35x in length) is left out of the next fit: a frame round two tiles, a half read as a tile.
FIT_INLIER_LOG = 0.2
FIT_ROUNDS = 3
# The least change in a tile's length over the image (largest over smallest, at the image's
# corners) and the least squash (how much longer the affine part makes a length one way than at
# right angles, `squash`) worth a second read on the plane.
MIN_SLANT = 1.35
MIN_SQUASH = 1.2
# The most the fitted plane may change a tile's length across the image: a vanishing line fitted
# into or near the picture (too few or too clustered tiles) is pulled back to this.
MAX_SLANT = 4.0
# A plane fitted this much squashed or more is a bad fit (a line of tiles all one way), not a view.
MAX_SQUASH = 3.0
# Tiles whose centres spread less than this many tile lengths (standard deviation) one way say
# nothing of the slant that way, which is then taken as none: a line of tiles, a single heap.
MIN_SPREAD = 0.75
# The fit's slope is shrunk towards none by this weight per tile (on sizes over their median, in
# half-diagonals of the image). On widened frames 20000-20199 turned 40 degrees (before off-size
# readings joined only where they fit, `_fitting`): 0.05 read 1449 tiles right and 5 false, 0.01
# 1460 and 7, none (a full fit, and `MIN_SPREAD` alone) 1406 and 12; the first read alone 1373, 6.
GRADIENT_RIDGE = 0.05
# Reads on the plane at most: each next one fitted to the tiles the last one saw, while it sees more.
SLANT_READS = 2


def _image_corners(shape: tuple[int, ...]) -> np.ndarray:
    """float64 (4, 2): the corners of a picture of `shape` (H, W, ...), in its px."""
    height, width = shape[:2]
    return np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float64)


def _normalised(points: np.ndarray, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(N, 2) image px -> coordinates about the image's centre in half-diagonals; and the (3, 3)
    that maps image px to them."""
    height, width = shape[:2]
    half = math.hypot(width, height) / 2
    to_unit = np.array([[1 / half, 0, -width / 2 / half], [0, 1 / half, -height / 2 / half], [0, 0, 1]])
    return project(to_unit, points), to_unit


def vanishing_line(frames: list[TileFrame], shape: tuple[int, ...]) -> np.ndarray | None:
    """The (3,) line l in image px (homogeneous: l . (x, y, 1)) along which the tiles' plane
    recedes to infinity, scaled so that l . p is the cube root of a tile's area at p over its
    value at the image's centre; None with fewer than `SLANT_QUORUM` tiles agreeing."""
    if len(frames) < SLANT_QUORUM:
        return None
    centres, to_unit = _normalised(np.array([f.center for f in frames], np.float64), shape)
    sizes = np.array([_size(f) for f in frames])
    tile_length = 2 * float(np.median([f.half_length for f in frames])) * float(to_unit[0, 0])
    design = np.hstack([centres, np.ones((len(frames), 1))])
    inliers = np.ones(len(frames), bool)
    line = np.array([0.0, 0.0, 1.0])
    for _ in range(FIT_ROUNDS):
        if int(inliers.sum()) < SLANT_QUORUM:
            return None
        line = _fitted(design[inliers], sizes[inliers], tile_length)
        predicted = design @ line
        if np.any(predicted <= 0):
            return None
        inliers = np.abs(np.log(sizes / predicted)) < FIT_INLIER_LOG
    if line[2] <= 0:
        return None
    line = line / line[2]
    # At the image's corners (symmetric about its centre, where l . p = 1), the least l . p is
    # 1 - |gradient . corner|: keep the length's change within MAX_SLANT.
    corners, _ = _normalised(_image_corners(shape), shape)
    reach = float(np.max(np.abs(corners @ line[:2])))
    most = (MAX_SLANT ** (2 / 3) - 1) / (MAX_SLANT ** (2 / 3) + 1)  # (1+r)/(1-r) = MAX_SLANT^(2/3)
    if reach > most:
        line[:2] *= most / reach
    return np.asarray(line @ to_unit, np.float64)


def _fitted(design: np.ndarray, sizes: np.ndarray, tile_length: float) -> np.ndarray:
    """Least squares of `sizes` on `design`'s (x, y, 1) rows, with no slope across the tiles'
    main direction where they spread less than `MIN_SPREAD` tile lengths (`tile_length`, in the
    design's units) that way: tiles along one line say nothing of the slant across it."""
    centres = design[:, :2] - design[:, :2].mean(axis=0)
    spreads, axes = np.linalg.eigh(centres.T @ centres / len(centres))
    kept = axes[:, np.sqrt(np.maximum(spreads, 0)) >= MIN_SPREAD * tile_length]  # (2, k) directions
    along = np.hstack([design[:, :2] @ kept, design[:, 2:]])
    ridge = math.sqrt(GRADIENT_RIDGE * len(sizes)) * np.eye(kept.shape[1], kept.shape[1] + 1)
    scale = float(np.median(sizes))
    targets = np.concatenate([sizes / scale, np.zeros(len(ridge))])
    solution = np.linalg.lstsq(np.vstack([along, ridge]), targets, rcond=None)[0] * scale
    return np.concatenate([kept @ solution[:-1], solution[-1:]])


def _recede(line: np.ndarray) -> np.ndarray:
    """The homography that sends `line` to infinity and keeps the image's scale where l . p = 1."""
    return np.array([[1.0, 0, 0], [0, 1.0, 0], [line[0], line[1], line[2]]])


def affine_metric(frames: list[TileFrame], receded: np.ndarray) -> np.ndarray | None:
    """The (2, 2) symmetric metric C under which each tile, mapped by `receded`, has its long side
    `TILE_ASPECT` times its short side and at right angles to it (least squares, up to scale; its
    trace is 2); None when the tiles do not fix one (C not positive definite)."""
    rows = []
    for frame in frames:
        corners = project(receded, frame.corners().astype(np.float64))
        along = (corners[3] + corners[2] - corners[0] - corners[1]) / 2
        across = (corners[1] + corners[2] - corners[0] - corners[3]) / 2
        scale = max(float(np.linalg.norm(along)), 1e-9)  # each tile weighs the same, whatever its size
        unit_along, long_across = along / scale, across * TILE_ASPECT / scale
        unit_across = across / max(float(np.linalg.norm(across)), 1e-9)
        # along' C along = aspect^2 across' C across (the lengths), along' C across = 0 (square).
        rows.append([unit_along[0] ** 2 - long_across[0] ** 2,
                     2 * (unit_along[0] * unit_along[1] - long_across[0] * long_across[1]),
                     unit_along[1] ** 2 - long_across[1] ** 2])
        rows.append([unit_along[0] * unit_across[0],
                     unit_along[0] * unit_across[1] + unit_along[1] * unit_across[0],
                     unit_along[1] * unit_across[1]])
    _, _, vt = np.linalg.svd(np.array(rows))
    c1, c2, c3 = vt[-1]
    metric = np.array([[c1, c2], [c2, c3]])
    if np.trace(metric) < 0:
        metric = -metric
    if np.linalg.det(metric) <= 0:
        return None
    return np.asarray(2 * metric / np.trace(metric), np.float64)


def squash(metric: np.ndarray) -> float:
    """How much `metric` squashes: the square root of its eigenvalues' ratio, 1 for none."""
    low, high = np.linalg.eigvalsh(metric)
    return math.sqrt(high / low)


def _size(frame: TileFrame) -> float:
    """The cube root of `frame`'s area: linear in its position under perspective."""
    return float((frame.half_width * frame.half_length) ** (1 / 3))


def _fitting(frames: list[TileFrame], line: np.ndarray, fitted: list[TileFrame]) -> list[TileFrame]:
    """Those of `frames` of the size `line` (fitted to `fitted`) gives a tile at their place,
    within `FIT_INLIER_LOG`."""
    def depth(f: TileFrame) -> float:
        return float(line @ np.array([f.center[0], f.center[1], 1.0]))

    scale = float(np.median([_size(f) / depth(f) for f in fitted]))
    return [f for f in frames
            if depth(f) > 0 and abs(math.log(_size(f) / (scale * depth(f)))) < FIT_INLIER_LOG]


def _square_root(metric: np.ndarray) -> np.ndarray:
    values, vectors = np.linalg.eigh(metric)
    return np.asarray(vectors @ np.diag(np.sqrt(values)) @ vectors.T, np.float64)


def slant_of(view: TableView, off_size: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray | None:
    """The (3, 3) homography from image px to the plane the tiles of `view` (and the corners
    `off_size` of readings dropped as not the set's size) lie on, in image px at the image's
    centre; None when there are too few tiles to tell or the picture is seen from nearly above
    (`MIN_SLANT`, `MIN_SQUASH`)."""
    frames = [frame_from_corners(t.corners) for t in view.tiles]
    line = vanishing_line(frames, shape)
    if line is None:
        return None
    # A reading dropped as not the set's size joins the fit only where the kept tiles' plane says
    # a tile is that size: a near tile at a slant, not a jumbo tile of another set.
    joining = _fitting([frame_from_corners(c) for c in off_size], line, frames)
    if joining:
        frames += joining
        line = vanishing_line(frames, shape)
        if line is None:
            return None
    depth = np.hstack([_image_corners(shape), np.ones((4, 1))]) @ line  # 1 at the image's centre
    slant = float((depth.max() / depth.min()) ** 1.5)
    receded = _recede(line)
    metric = affine_metric(frames, receded)
    if metric is None or squash(metric) >= MAX_SQUASH:
        metric = np.eye(2)
    if slant < MIN_SLANT and squash(metric) < MIN_SQUASH:
        return None
    affine = np.eye(3)
    affine[:2, :2] = _square_root(metric)
    return np.asarray(affine @ receded, np.float64)


def plane_calibration(image_to_plane: np.ndarray, shape: tuple[int, ...],
                      tile_length_px: float) -> Calibration:
    """`image_to_plane` as a `Calibration` of a table as large as the picture's footprint, in
    units where a tile of `tile_length_px` on the plane is the layout's tile length (so that
    `vision.rectify.rectify` warps it)."""
    layout = TableLayout()
    height, width = shape[:2]
    mm_per_px = layout.tile_length_mm / tile_length_px
    to_mm = np.diag([mm_per_px, mm_per_px, 1.0]) @ image_to_plane
    footprint = project(to_mm, _image_corners(shape))
    low, high = footprint.min(axis=0), footprint.max(axis=0)
    shift = np.array([[1.0, 0, -low[0]], [0, 1.0, -low[1]], [0, 0, 1]])
    table = TableLayout(width_mm=float(high[0] - low[0]), height_mm=float(high[1] - low[1]), zones={})
    return Calibration(shift @ to_mm, table, (width, height))


def read_slanted(image: np.ndarray, view: TableView, *, max_pip: int, min_confidence: float,
                 background: np.ndarray | None = None, one_set: bool = False) -> TableView:
    """`view`, the first read of the checked `image`, or, when its tiles show the picture was taken
    at a slant (`slant_of`), the read of `image` on their plane with corners in `image`'s px,
    unless that sees fewer tiles; up to `SLANT_READS` times, each from the tiles the last read saw.
    `background` is the empty table already checked against `image`
    (`vision.pipeline.checked_background`), or None."""
    for _ in range(SLANT_READS):
        again = _read_on_plane(image, view, max_pip=max_pip, min_confidence=min_confidence,
                               background=background, one_set=one_set)
        if again is None or len(again.tiles) < len(view.tiles):
            break
        grew = len(again.tiles) > len(view.tiles)
        view = again
        if not grew:
            break
    return view


def _read_on_plane(image: np.ndarray, view: TableView, *, max_pip: int, min_confidence: float,
                   background: np.ndarray | None, one_set: bool) -> TableView | None:
    """The read of `image` on the plane of `view`'s tiles (`slant_of`), with corners in `image`'s
    px; None when they show no slant."""
    off_size = [v.corners for v in view.candidates if v.kind == OFF_SIZE]
    plane = slant_of(view, off_size, image.shape)
    if plane is None:
        return None
    def length_on_plane(corners: np.ndarray) -> float:
        """The tile's a-half edge to its b-half edge, along its frame's left side, on the plane."""
        on_plane = project(plane, frame_from_corners(corners).corners().astype(np.float64))
        return float(np.linalg.norm(on_plane[3] - on_plane[0]))

    lengths = [length_on_plane(c) for c in [t.corners for t in view.tiles] + off_size]
    calibration = plane_calibration(plane, image.shape, float(np.median(lengths)))
    rectified = rectify(image, calibration)
    if rectified is None:
        return None
    return read_rectified(rectified, max_pip=max_pip, min_confidence=min_confidence, tile_length_px=None,
                          empty=background, one_set=one_set)
