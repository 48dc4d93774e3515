"""Labelled crops from rendered tables: exactly what the reader will be shown, with the truth.

For each rendered table (`render`), the image is brought to the working scale and proposed from
as at reading time (`vision.proposals`); every proposal is labelled against the scene's true
tiles. Around each true tile, extra frames are drawn with the errors a proposal makes (off
centre, wrong size, a few degrees off, turned half round), proposals far from the set's size
are redrawn at it as the reader redraws them, and frames that only straddle tiles or lie on
bare table are added as things that are not tiles.

A crop's labels: `kind` (IGNORE, or the index into `vision.tilenet.KINDS`), `top` and `bottom`
(pips of the half at the crop's top and bottom, or -1), `geometry` (`vision.crops.geometry_target`
of its true tile, with `has_geometry`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from vision.crops import GEOMETRY_SIZE, crops, geometry_target
from vision.geometry import TileFrame, frame_from_corners, inside_any
from vision.pipeline import off_size
from vision.plane import project
from vision.proposals import TILE_ASPECT, WorkImage, propose, redrawn, work_image
from vision.synth.scene import Frame
from vision.tilenet import BACK, FACE_UP, NOT_A_TILE

IGNORE = -1
# A proposal is a tile's when its centre is within these shares of the tile's half-width (across,
# along), its axis within POSITIVE_DEGREES and its size within POSITIVE_SCALE; one nearer than
# IGNORE_DISTANCE half-widths that is not teaches nothing either way and is left out.
POSITIVE_ACROSS = 0.35
POSITIVE_ALONG = 0.5
POSITIVE_DEGREES = 20.0
POSITIVE_SCALE = (0.6, 1.65)
IGNORE_DISTANCE = 0.8
JITTERED_PER_TILE = 6  # frames drawn around each face-up tile ...
JITTERED_PER_BACK = 3  # ... and each face-down one
SHIFTED_PER_TILE = 2  # frames that straddle a tile and its neighbour
RANDOM_PER_IMAGE = 15  # frames on bare table, of the tiles' size
# Proposals far from the set's size redrawn at it, as the reader redraws them: this many whose
# bar lies on each tile (its pip rows), and this many elsewhere in the image (print, clutter).
REDRAWN_PER_TILE = 2
REDRAWN_ELSEWHERE = 30
SIZES = ((1920, 1080), (1280, 720), (960, 540), (640, 360))
SIZE_WEIGHTS = (0.3, 0.3, 0.25, 0.15)


@dataclass(frozen=True)
class Truth:
    frame: TileFrame  # working px
    kind: int
    a: int
    b: int


@dataclass
class Harvest:
    crops: np.ndarray  # uint8 (N, H, W, 3)
    kind: np.ndarray  # int8 (N,)
    top: np.ndarray  # int8 (N,)
    bottom: np.ndarray  # int8 (N,)
    geometry: np.ndarray  # float32 (N, GEOMETRY_SIZE)
    has_geometry: np.ndarray  # bool (N,)
    image: np.ndarray  # int32 (N,) the seed of the image each crop comes from

    @staticmethod
    def concatenate(parts: Iterable[Harvest]) -> Harvest:
        parts = list(parts)
        return Harvest(
            *(
                np.concatenate([getattr(p, name) for p in parts])
                for name in ("crops", "kind", "top", "bottom", "geometry", "has_geometry", "image")
            )
        )

    def save(self, path: str) -> None:
        np.savez(path, **vars(self))

    @staticmethod
    def load(path: str) -> Harvest:
        with np.load(path) as data:
            return Harvest(**{name: data[name] for name in data.files})


def truths(frame: Frame, work: WorkImage) -> list[Truth]:
    """The scene's tiles on the table (not carried by a hand), in working px."""
    out = []
    for tile in frame.scene.tiles:
        if tile.lifted_mm:
            continue
        corners = work.from_input(project(frame.table_to_image, tile.corners()))
        kind = FACE_UP if tile.face_up else BACK
        out.append(Truth(frame_from_corners(corners), kind, tile.a, tile.b))
    return out


def label(proposal: TileFrame, tiles: list[Truth]) -> tuple[int, Truth | None]:
    """The kind a proposal teaches, and the true tile it frames (if any)."""
    near = False
    for truth in tiles:
        t = truth.frame
        offset = proposal.center - t.center
        across, along = (
            abs(float(offset @ t.across)) / t.half_width,
            abs(float(offset @ t.along)) / t.half_width,
        )
        aligned = abs(float(proposal.across @ t.across)) > math.cos(math.radians(POSITIVE_DEGREES))
        ratio = proposal.half_width / t.half_width
        if (
            across < POSITIVE_ACROSS
            and along < POSITIVE_ALONG
            and aligned
            and POSITIVE_SCALE[0] < ratio < POSITIVE_SCALE[1]
        ):
            return truth.kind, truth
        near = near or math.hypot(across, along) < IGNORE_DISTANCE
    return (IGNORE if near else NOT_A_TILE), None


def _turned(vector: np.ndarray, degrees: float) -> np.ndarray:
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return np.array([c * vector[0] - s * vector[1], s * vector[0] + c * vector[1]], np.float32)


def jittered(truth: TileFrame, rng: np.random.Generator) -> TileFrame:
    """A frame with a proposal's errors about `truth`: half of them as loose as a first look from a
    bar, half as tight as a second look from a refined frame; either way turned half round at random."""
    loose = rng.random() < 0.5
    spread = (0.15, 0.25, 0.22, 6.0) if loose else (0.05, 0.08, 0.06, 2.0)
    w = truth.half_width
    center = (
        truth.center
        + truth.across * rng.normal(0, spread[0] * w)
        + truth.along * rng.normal(0, spread[1] * w)
    )
    across = _turned(truth.across, rng.normal(0, spread[3]))
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


def bare(work: WorkImage, size: float, rng: np.random.Generator) -> TileFrame:
    height, width = work.image.shape[:2]
    center = np.array([rng.uniform(0, width), rng.uniform(0, height)], np.float32)
    angle = rng.uniform(0, 2 * math.pi)
    half_width = size * math.exp(rng.normal(0, 0.3))
    return TileFrame(
        center, np.array([math.cos(angle), math.sin(angle)], np.float32), half_width, half_width * TILE_ASPECT
    )


def _some(items: list[TileFrame], count: int, rng: np.random.Generator) -> list[TileFrame]:
    if len(items) <= count:
        return items
    return [items[i] for i in sorted(rng.choice(len(items), count, replace=False).tolist())]


def at_the_sets_size(
    proposals: list[TileFrame], tiles: list[Truth], rng: np.random.Generator
) -> list[TileFrame]:
    """Proposals far from the set's true size redrawn at it (`vision.proposals.redrawn`), as the
    reader redraws them once it has read the set's size (`vision.pipeline.proposals_at_the_sets_size`).

    On a webcam's tiles whose divider hardly shows, the bars are rows of pips, and these are the
    frames that find the tile; on print and clutter they are frames of a tile's size that hold no
    tile, which the proposals at their own size rarely give. Some of each are drawn
    (`REDRAWN_PER_TILE`, `REDRAWN_ELSEWHERE`)."""
    face_up = [t.frame for t in tiles if t.kind == FACE_UP]
    if not face_up or not proposals:
        return []
    half_width, half_length = (
        float(v) for v in np.median([(f.half_width, f.half_length) for f in face_up], axis=0)
    )
    far = [p for p in proposals if off_size(p, half_width)]
    if not far:
        return []
    centers = np.array([p.center for p in far], np.float32)
    chosen: list[TileFrame] = []
    for tile in face_up:
        inside = inside_any(centers, [tile]).tolist()
        chosen += _some([p for p, on in zip(far, inside, strict=True) if on], REDRAWN_PER_TILE, rng)
    on_a_tile = inside_any(centers, [t.frame for t in tiles])
    elsewhere = [p for p, on in zip(far, on_a_tile.tolist(), strict=True) if not on]
    chosen += _some(elsewhere, REDRAWN_ELSEWHERE, rng)
    return [frame for proposal in chosen for frame in redrawn(proposal, half_width, half_length)]


def harvest_frame(frame: Frame, seed: int, rng: np.random.Generator) -> Harvest:
    """Every labelled crop of one rendered table."""
    work = work_image(frame.image)
    tiles = truths(frame, work)
    frames = propose(work)
    frames += at_the_sets_size(frames, tiles, rng)
    for truth in tiles:
        count = JITTERED_PER_TILE if truth.kind == FACE_UP else JITTERED_PER_BACK
        frames += [jittered(truth.frame, rng) for _ in range(count)]
        frames += [straddling(truth.frame, rng) for _ in range(SHIFTED_PER_TILE)]
    size = float(np.median([t.frame.half_width for t in tiles])) if tiles else 4 * work.pip
    frames += [bare(work, size, rng) for _ in range(RANDOM_PER_IMAGE)]
    n = len(frames)
    kind = np.full(n, IGNORE, np.int8)
    top = np.full(n, -1, np.int8)
    bottom = np.full(n, -1, np.int8)
    geometry = np.zeros((n, GEOMETRY_SIZE), np.float32)
    has_geometry = np.zeros(n, bool)
    for i, proposal in enumerate(frames):
        kind[i], match = label(proposal, tiles)
        if match is None:
            continue
        geometry[i], a_on_top = geometry_target(proposal, match.frame)
        has_geometry[i] = True
        if match.kind == FACE_UP:
            top[i], bottom[i] = (match.a, match.b) if a_on_top else (match.b, match.a)
    keep = kind != IGNORE
    return Harvest(
        crops(work.image, frames)[keep],
        kind[keep],
        top[keep],
        bottom[keep],
        geometry[keep],
        has_geometry[keep],
        np.full(int(keep.sum()), seed, np.int32),
    )


Render = Callable[[int, tuple[int, int]], Frame]


def harvest_seed(seed: int, render: Render) -> Harvest:
    """The crops of table `seed`, rendered at a size drawn from `SIZES` by the same seed."""
    rng = np.random.default_rng([seed, 7])
    size = SIZES[int(rng.choice(len(SIZES), p=SIZE_WEIGHTS))]
    return harvest_frame(render(seed, size), seed, rng)
