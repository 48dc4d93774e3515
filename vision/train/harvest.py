"""Labelled crops from rendered tables: exactly what the reader will be shown, with the truth.

For each rendered table the image is brought to its coarse scale (`vision.pipeline.coarse`) and
the finder's candidates are taken as at reading time (`vision.finder`, both heats: face-down
candidates teach backs); every candidate is labelled against the scene's true tiles. Around each
true tile, extra frames are drawn with the errors a candidate makes (off centre, wrong size, a few
degrees off, turned half round), and frames that only straddle tiles or lie on bare table are
added as things that are not tiles.

A crop's labels: `kind` (IGNORE, or the index into `vision.tilenet.KINDS`), `top` and `bottom`
(pips of the half at the crop's top and bottom, or -1), `geometry` (`vision.crops.geometry_target`
of its true tile, with `has_geometry`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.crops import GEOMETRY_SIZE, geometry_target
from vision.finder import TileFinder
from vision.geometry import TILE_ASPECT, TileFrame, frame_from_corners, turned
from vision.pipeline import Coarse, coarse
from vision.plane import project
from vision.synth.scene import Frame
from vision.tilenet import BACK, FACE_UP, NOT_A_TILE
from vision.train.arrays import Rows, Saved

IGNORE = -1
# A candidate is a tile's when its centre is within these shares of the tile's half-width (across,
# along), its axis within POSITIVE_DEGREES and its size within POSITIVE_SCALE; one nearer than
# IGNORE_DISTANCE half-widths that is not teaches nothing either way and is left out. Along the axis
# a candidate up to a whole half-width off is still the tile's, so that the reader's first look
# keeps the finder's frames that slip along a line of tiles and moves them onto the tile.
POSITIVE_ACROSS = 0.35
POSITIVE_ALONG = 1.0
POSITIVE_DEGREES = 20.0
POSITIVE_SCALE = (0.6, 1.65)
IGNORE_DISTANCE = 1.2
# Pips are taught only from a candidate within this share along: further off, a half is cut short.
PIPS_ALONG = 0.5
JITTERED_PER_TILE = 6  # frames drawn around each face-up tile ...
# ... and each face-down one: with three, the wider reader (`vision.train.net.READER_WIDTHS`) took
# many a back in a tidy row for a frame straddling two (it counted a new hand's row exactly in 4
# of 12 films, against 12 with six; docs/vision-design.md).
JITTERED_PER_BACK = 6
SHIFTED_PER_TILE = 2  # frames that straddle a tile and its neighbour
RANDOM_PER_IMAGE = 15  # frames on bare table, of the tiles' size ...
BARE_HALF_WIDTH_SHARE = 0.02  # ... or, with none, this share of the image's shorter side


@dataclass(frozen=True)
class Truth:
    frame: TileFrame  # coarse px
    kind: int
    a: int
    b: int


@dataclass
class Harvest(Rows):
    crops: np.ndarray  # uint8 (N, H, W, 3)
    kind: np.ndarray  # int8 (N,)
    top: np.ndarray  # int8 (N,)
    bottom: np.ndarray  # int8 (N,)
    geometry: np.ndarray  # float32 (N, GEOMETRY_SIZE)
    has_geometry: np.ndarray  # bool (N,)
    image: np.ndarray  # int32 (N,) the seed of the image each crop comes from



@dataclass(frozen=True)
class Table(Saved):
    """A rendered table as the harvest needs it: its pixels and where its tiles lie."""

    image: np.ndarray  # uint8 (H, W, 3) BGR
    corners: np.ndarray  # float32 (K, 4, 2) image px, a-half first, of the tiles on the table
    face_up: np.ndarray  # bool (K,)
    a: np.ndarray  # int8 (K,)
    b: np.ndarray  # int8 (K,)


def table_of(frame: Frame) -> Table:
    """The tiles of a rendered frame that lie on the table (not carried by a hand)."""
    tiles = [t for t in frame.scene.tiles if not t.lifted_mm]
    corners = np.array([project(frame.table_to_image, t.corners()) for t in tiles], np.float32)
    return Table(frame.image, corners.reshape(-1, 4, 2), np.array([t.face_up for t in tiles], bool),
                 np.array([t.a for t in tiles], np.int8), np.array([t.b for t in tiles], np.int8))


def truths(table: Table, picture: Coarse) -> list[Truth]:
    """The table's tiles in coarse px."""
    return [Truth(frame_from_corners(corners * picture.factor), FACE_UP if up else BACK, int(a), int(b))
            for corners, up, a, b in zip(table.corners, table.face_up, table.a, table.b, strict=True)]


def offset_shares(candidate: TileFrame, truth: TileFrame) -> tuple[float, float]:
    """How far `candidate`'s centre lies from `truth`'s, across and along `truth`, in its half-widths."""
    offset = candidate.center - truth.center
    return (abs(float(offset @ truth.across)) / truth.half_width,
            abs(float(offset @ truth.along)) / truth.half_width)


def label(candidate: TileFrame, tiles: list[Truth]) -> tuple[int, Truth | None]:
    """The kind a candidate teaches, and the true tile it frames (if any)."""
    near = False
    for truth in tiles:
        t = truth.frame
        across, along = offset_shares(candidate, t)
        aligned = abs(float(candidate.across @ t.across)) > math.cos(math.radians(POSITIVE_DEGREES))
        ratio = candidate.half_width / t.half_width
        if (
            across < POSITIVE_ACROSS
            and along < POSITIVE_ALONG
            and aligned
            and POSITIVE_SCALE[0] < ratio < POSITIVE_SCALE[1]
        ):
            return truth.kind, truth
        near = near or math.hypot(across, along) < IGNORE_DISTANCE
    return (IGNORE if near else NOT_A_TILE), None


def jittered(truth: TileFrame, rng: np.random.Generator) -> TileFrame:
    """A frame with a candidate's errors about `truth`: half of them as loose as the finder's
    first guess (which slips along a line of tiles most), half as tight as a second look from a
    refined frame; either way turned half round at random."""
    loose = rng.random() < 0.5
    spread = (0.15, 0.45, 0.22, 6.0) if loose else (0.05, 0.08, 0.06, 2.0)
    w = truth.half_width
    center = (
        truth.center
        + truth.across * rng.normal(0, spread[0] * w)
        + truth.along * rng.normal(0, spread[1] * w)
    )
    across = turned(truth.across, math.radians(rng.normal(0, spread[3])))
    if rng.random() < 0.5:
        across = -across
    half_width = w * math.exp(rng.normal(0, spread[2]))
    aspect = TILE_ASPECT if loose else truth.half_length / w * math.exp(rng.normal(0, 0.04))
    return TileFrame(center.astype(np.float32), across, half_width, half_width * aspect)


def straddling(truth: TileFrame, rng: np.random.Generator) -> TileFrame:
    """A frame of `truth`'s size shifted off it: across half a tile and its neighbour's end."""
    w = truth.half_width
    if rng.random() < 0.7:
        shift = truth.along * (rng.choice((-1, 1)) * rng.uniform(1.3, 2.3) * w)
    else:
        shift = truth.across * (rng.choice((-1, 1)) * rng.uniform(1.2, 2.0) * w)
    across = truth.across if rng.random() < 0.5 else -truth.across
    return TileFrame((truth.center + shift).astype(np.float32), across, w, truth.half_length)


def bare(picture: Coarse, size: float, rng: np.random.Generator) -> TileFrame:
    height, width = picture.image.shape[:2]
    center = np.array([rng.uniform(0, width), rng.uniform(0, height)], np.float32)
    angle = rng.uniform(0, 2 * math.pi)
    half_width = size * math.exp(rng.normal(0, 0.3))
    return TileFrame(
        center, np.array([math.cos(angle), math.sin(angle)], np.float32), half_width, half_width * TILE_ASPECT
    )


def harvest_table(table: Table, seed: int, finder: TileFinder, rng: np.random.Generator) -> Harvest:
    """Every labelled crop of one rendered table."""
    picture = coarse(table.image)
    tiles = truths(table, picture)
    frames = [found.frame for found in finder.find(picture.image)]
    for truth in tiles:
        count = JITTERED_PER_TILE if truth.kind == FACE_UP else JITTERED_PER_BACK
        frames += [jittered(truth.frame, rng) for _ in range(count)]
        frames += [straddling(truth.frame, rng) for _ in range(SHIFTED_PER_TILE)]
    size = float(np.median([t.frame.half_width for t in tiles])) if tiles else BARE_HALF_WIDTH_SHARE * min(
        picture.image.shape[:2])
    frames += [bare(picture, size, rng) for _ in range(RANDOM_PER_IMAGE)]
    n = len(frames)
    kind = np.full(n, IGNORE, np.int8)
    top = np.full(n, -1, np.int8)
    bottom = np.full(n, -1, np.int8)
    geometry = np.zeros((n, GEOMETRY_SIZE), np.float32)
    has_geometry = np.zeros(n, bool)
    for i, candidate in enumerate(frames):
        kind[i], match = label(candidate, tiles)
        if match is None:
            continue
        geometry[i], a_on_top = geometry_target(candidate, match.frame)
        has_geometry[i] = True
        if match.kind == FACE_UP and offset_shares(candidate, match.frame)[1] < PIPS_ALONG:
            top[i], bottom[i] = (match.a, match.b) if a_on_top else (match.b, match.a)
    keep = kind != IGNORE
    return Harvest(
        picture.crops(frames)[keep],
        kind[keep],
        top[keep],
        bottom[keep],
        geometry[keep],
        has_geometry[keep],
        np.full(int(keep.sum()), seed, np.int32),
    )
