"""Training the finder (`vision.finder`): patches of rendered tables at every scale, with the
centre heat and geometry the network should answer, and the fitting loop.

A rendered table gives `PER_TABLE` patches of `PATCH` x `PATCH` px: the image is resized so that
its tiles are a random length in `DRAWN_LENGTHS` px (log-uniform: the finder meets every length of
its pyramid's levels), and a patch is cut around a random tile (or anywhere, a share of the time),
inside a grey margin where it runs off the image, as `vision.finder.level_input` pads a level. A
table without tiles (clutter only) is resized by a random factor instead.

Targets, per `vision.finder.STRIDE` cell (see `vision.finder` for the geometry's channels):
- heat (2, C, C): a Gaussian of `SIGMA_PER_HALF_WIDTH` of each tile's half-width (at least
  `MIN_SIGMA` cells) about its centre, 1 exactly at the cell holding it, in the face-up or the
  face-down channel;
- geometry (6, C, C) and its weight (C, C): the tile's numbers at the cells near its centre
  (`GEOMETRY_REACH`), weighted by the heat there;
- ignore (C, C): cells near a tile the finder should neither find nor deny: one shorter or longer
  than `TAUGHT_LENGTHS` (the next level up or down answers for it).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import cv2
import numpy as np
import torch
from torch.nn import functional as F

from vision.finder import (
    ALIGN,
    GEOMETRY_CHANNELS,
    GREY,
    MARGIN,
    SPREAD,
    STRIDE,
    TileFinder,
    centre_peaks,
    network_input,
)
from vision.geometry import TileFrame, frame_from_corners
from vision.progress import progress
from vision.train.arrays import Rows
from vision.train.harvest import Table
from vision.train.heap import reused_heap
from vision.train.net import TileFinderNet
from vision.train.precision import FLOAT32, arithmetic, channels_last, stored_channels_last, stored_contiguous

PATCH = 192  # px a side (a multiple of `vision.finder.ALIGN`)
CELLS = PATCH // STRIDE
PER_TABLE = 16  # patches cut from each rendered table
DRAWN_LENGTHS = (14.0, 110.0)  # tile lengths (px) a patch is resized to, log-uniform
TAUGHT_LENGTHS = (12.0, 120.0)  # tiles of these lengths are taught; the rest are ignored
ON_A_TILE = 0.7  # share of patches cut around a tile (the rest anywhere)
SIGMA_PER_HALF_WIDTH = 0.35
MIN_SIGMA = 0.6  # cells
GEOMETRY_REACH = 1.5  # cells within this many (at least; or 0.7 of a half-width) teach geometry
CLUTTER_ONLY_SCALES = (0.1, 1.0)  # resize factors of a table with no tile on it, log-uniform
GEOMETRY_WEIGHT = 1.0  # the geometry loss's weight beside the heat's
FOCAL_POWER, FOCAL_EASE = 2.0, 4.0  # CenterNet's focal loss: (1 - p)^2, and (1 - heat)^4 off-centre
assert PATCH % ALIGN == 0


@dataclass
class FinderSamples(Rows):
    images: np.ndarray  # uint8 (N, PATCH, PATCH, 3)
    heat: np.ndarray  # float16 (N, 2, CELLS, CELLS)
    geometry: np.ndarray  # float16 (N, 6, CELLS, CELLS)
    weight: np.ndarray  # float16 (N, CELLS, CELLS)
    ignore: np.ndarray  # bool (N, CELLS, CELLS)
    table: np.ndarray  # int32 (N,) the seed of the table each patch comes from


@dataclass(frozen=True)
class Placed:
    frame: TileFrame  # image px
    face_up: bool


def placed_tiles(table: Table) -> list[Placed]:
    """Every tile on the rendered table, in image px."""
    return [Placed(frame_from_corners(corners), bool(up)) for corners, up in zip(table.corners, table.face_up,
                                                                                  strict=True)]


def targets(tiles: list[Placed], scale: float, offset: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """heat (2, C, C), geometry (6, C, C), weight (C, C), ignore (C, C) of a patch whose px are
    image px * `scale` - `offset`."""
    heat = np.zeros((2, CELLS, CELLS), np.float32)
    geometry = np.zeros((6, CELLS, CELLS), np.float32)
    weight = np.zeros((CELLS, CELLS), np.float32)
    ignore = np.zeros((CELLS, CELLS), bool)
    ys, xs = np.mgrid[0:CELLS, 0:CELLS].astype(np.float32) + 0.5  # cell centres, in cells
    for tile in tiles:
        centre = (tile.frame.center * scale - offset) / STRIDE  # cells
        if not (-2 <= centre[0] < CELLS + 2 and -2 <= centre[1] < CELLS + 2):
            continue
        half_width = tile.frame.half_width * scale / STRIDE  # cells
        half_length = tile.frame.half_length * scale / STRIDE
        squared = (xs - centre[0]) ** 2 + (ys - centre[1]) ** 2
        length = 2 * half_length * STRIDE
        if not TAUGHT_LENGTHS[0] <= length <= TAUGHT_LENGTHS[1]:
            ignore |= squared < max(1.0, half_width) ** 2
            continue
        sigma = max(MIN_SIGMA, SIGMA_PER_HALF_WIDTH * half_width)
        gaussian = np.exp(-squared / (2 * sigma * sigma))
        x, y = math.floor(centre[0]), math.floor(centre[1])
        if 0 <= x < CELLS and 0 <= y < CELLS:
            gaussian[y, x] = 1.0
        channel = 0 if tile.face_up else 1
        heat[channel] = np.maximum(heat[channel], gaussian)
        near = squared <= max(GEOMETRY_REACH, 0.7 * half_width) ** 2
        angle = 2 * math.atan2(float(tile.frame.along[1]), float(tile.frame.along[0]))
        geometry[0][near] = centre[0] - xs[near]
        geometry[1][near] = centre[1] - ys[near]
        geometry[2][near] = math.log(half_width)
        geometry[3][near] = math.log(half_length / half_width)
        geometry[4][near] = math.cos(angle)
        geometry[5][near] = math.sin(angle)
        weight[near] = np.maximum(weight[near], gaussian[near])
    return heat, geometry, weight, ignore


def _log_uniform(rng: np.random.Generator, low: float, high: float) -> float:
    return math.exp(rng.uniform(math.log(low), math.log(high)))


def recoloured(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Looks the renderer may not give: channels shuffled (sets and tables in other colours),
    inverted now and then (a black set's), gamma, contrast and gain (lamps), blur and noise
    (webcams)."""
    out = patch[..., rng.permutation(3)] if rng.random() < 0.5 else patch
    if rng.random() < 0.1:
        out = 255 - out
    gamma = math.exp(rng.normal(0, 0.3))
    contrast = math.exp(rng.normal(0, 0.2))
    gain = 1 + rng.normal(0, 0.08, 3)
    levels = 255 * (np.arange(256) / 255) ** gamma
    levels = (levels - 128) * contrast + 128
    table = np.clip(levels[:, None] * gain[None, :], 0, 255).astype(np.uint8)  # (256, 3)
    out = cv2.LUT(np.ascontiguousarray(out), table.reshape(256, 1, 3))
    if rng.random() < 0.2:
        out = cv2.blur(out, (3, 3))
    noise = rng.uniform(0, 8)
    if noise > 1:
        out = np.clip(out + rng.normal(0, noise, out.shape), 0, 255).astype(np.uint8)
    return np.ascontiguousarray(out, np.uint8)


def samples_of(table: Table, seed: int, rng: np.random.Generator) -> FinderSamples:
    """`PER_TABLE` patches of one rendered table, with their targets."""
    tiles = placed_tiles(table)
    median_length = float(np.median([2 * t.frame.half_length for t in tiles])) if tiles else None
    height, width = table.image.shape[:2]
    parts = []
    for _ in range(PER_TABLE):
        if median_length:
            scale = _log_uniform(rng, *DRAWN_LENGTHS) / median_length
        else:
            scale = _log_uniform(rng, *CLUTTER_ONLY_SCALES)
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        scale = size[0] / width
        interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
        resized = cv2.resize(table.image, size, interpolation=interpolation)
        # The level's grey margin, and more where the image is smaller than a patch.
        pad_x, pad_y = max(MARGIN, PATCH - size[0]), max(MARGIN, PATCH - size[1])
        padded = cv2.copyMakeBorder(resized, pad_y, pad_y, pad_x, pad_x, cv2.BORDER_CONSTANT,
                                    value=(int(GREY),) * 3)
        if tiles and rng.random() < ON_A_TILE:
            aim = tiles[int(rng.integers(len(tiles)))].frame.center * scale
            aim = aim + np.array([pad_x, pad_y]) + rng.uniform(-PATCH / 3, PATCH / 3, 2)
        else:
            aim = rng.uniform([pad_x, pad_y], [pad_x + size[0], pad_y + size[1]])
        x0 = int(np.clip(aim[0] - PATCH / 2, 0, padded.shape[1] - PATCH))
        y0 = int(np.clip(aim[1] - PATCH / 2, 0, padded.shape[0] - PATCH))
        patch = recoloured(padded[y0:y0 + PATCH, x0:x0 + PATCH], rng)
        heat, geometry, weight, ignore = targets(tiles, scale, np.array([x0 - pad_x, y0 - pad_y], np.float32))
        parts.append((patch, heat, geometry, weight, ignore))
    images, heat, geometry, weight, ignore = (np.stack([p[i] for p in parts]) for i in range(5))
    return FinderSamples(images, heat.astype(np.float16), geometry.astype(np.float16),
                         weight.astype(np.float16), ignore, np.full(len(parts), seed, np.int32))


# --- fitting ----------------------------------------------------------------------------------

Batch = tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]  # images, heat, geometry,
# weight, ignore


def turned(images: torch.Tensor, heat: torch.Tensor, geometry: torch.Tensor, weight: torch.Tensor,
           ignore: torch.Tensor, code: int) -> Batch:
    """One of the eight turns and mirrors of a square batch (bit 1: mirrored left-right, 2:
    upside down, 4: x and y swapped), the targets turned to match: offsets swap or change sign,
    and the axis's (cos, sin) of twice its angle follows it.

    Every map is (N, ..., y, x): the images' channels come last, so they are moved out of the way."""
    maps = [images.permute(0, 3, 1, 2), heat, weight[:, None], ignore[:, None], geometry]
    dx, dy, log_width, log_aspect, cos2, sin2 = range(GEOMETRY_CHANNELS)
    signs = torch.ones(GEOMETRY_CHANNELS)
    order = list(range(GEOMETRY_CHANNELS))
    if code & 4:
        maps = [m.transpose(2, 3) for m in maps]
        order[dx], order[dy] = dy, dx
        signs[cos2] *= -1
    if code & 1:
        maps = [m.flip(3) for m in maps]
        signs[dx] *= -1
        signs[sin2] *= -1
    if code & 2:
        maps = [m.flip(2) for m in maps]
        signs[dy] *= -1
        signs[sin2] *= -1
    del log_width, log_aspect  # sizes do not turn
    turned_geometry = maps[4][:, order] * signs[None, :, None, None]
    return (maps[0].permute(0, 2, 3, 1).contiguous(), maps[1].contiguous(), turned_geometry.contiguous(),
            maps[2][:, 0].contiguous(), maps[3][:, 0].contiguous())


def batch_input(images: torch.Tensor) -> torch.Tensor:
    """uint8 (N, H, W, 3) -> float (N, 3, H, W), as `vision.finder.network_input` scales a level;
    a view of the (N, H, W, 3) result, so stored channels-last, as the fit wants it, without a copy."""
    return ((images.float() - GREY) / SPREAD).permute(0, 3, 1, 2)


def focal_loss(logits: torch.Tensor, heat: torch.Tensor, ignore: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss over the centre heat, per centre."""
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    centre = (heat >= 0.999).float()
    elsewhere = (1 - centre) * (~ignore).float()[:, None]
    loss = -(torch.log(p) * (1 - p) ** FOCAL_POWER * centre
             + torch.log(1 - p) * p ** FOCAL_POWER * (1 - heat) ** FOCAL_EASE * elsewhere).sum()
    return loss / centre.sum().clamp_min(1)


def losses(model: TileFinderNet, images: torch.Tensor, heat: torch.Tensor, geometry: torch.Tensor,
           weight: torch.Tensor, ignore: torch.Tensor,
           precision: str = FLOAT32) -> tuple[torch.Tensor, torch.Tensor]:
    with arithmetic(precision):
        outputs = model(channels_last(batch_input(images)))
    heat_logits, geometry_out = (out.float() for out in outputs)
    error = F.smooth_l1_loss(geometry_out, geometry, reduction="none", beta=0.1)
    return focal_loss(heat_logits, heat, ignore), (error * weight[:, None]).sum() / weight.sum().clamp_min(1)


def _batch(samples: FinderSamples, pick: np.ndarray) -> Batch:
    return (torch.from_numpy(samples.images[pick]), torch.from_numpy(samples.heat[pick].astype(np.float32)),
            torch.from_numpy(samples.geometry[pick].astype(np.float32)),
            torch.from_numpy(samples.weight[pick].astype(np.float32)), torch.from_numpy(samples.ignore[pick]))


def fit_finder(samples: FinderSamples, *, steps: int, batch: int = 16, lr: float = 2e-3,
               seed: int = 0, precision: str = FLOAT32, reuse_heap: bool = True) -> TileFinderNet:
    """The finder fitted on `samples` for `steps` batches (one cycle of the learning rate;
    `precision`: `vision.train.precision`; `reuse_heap`: its steps inside
    `vision.train.heap.reused_heap`, the same arithmetic in less time)."""
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    model = stored_channels_last(TileFinderNet())
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=lr, total_steps=steps, pct_start=0.15)
    model.train()
    order: list[int] = []
    running: list[tuple[float, float]] = []
    with reused_heap(keep=reuse_heap):
        for step in progress(range(steps), total=steps, what="finder steps"):
            if len(order) < batch:
                order += torch.randperm(len(samples), generator=generator).tolist()
            pick, order = np.sort(order[:batch]), order[batch:]
            code = int(torch.randint(8, (1,), generator=generator))
            heat_loss, geometry_loss = losses(model, *turned(*_batch(samples, pick), code), precision)
            optimiser.zero_grad()
            (heat_loss + GEOMETRY_WEIGHT * geometry_loss).backward()  # type: ignore[no-untyped-call]
            optimiser.step()
            schedule.step()
            running.append((float(heat_loss.detach()), float(geometry_loss.detach())))
            if (step + 1) % 500 == 0 or step + 1 == steps:
                heat_mean, geometry_mean = np.mean(running, axis=0)
                print(f"finder step {step + 1}/{steps}: heat loss {heat_mean:.3f}, "
                      f"geometry loss {geometry_mean:.3f}",
                      file=sys.stderr, flush=True)
                running = []
    model.eval()
    return stored_contiguous(model)


def validate_finder(finder: TileFinder, samples: FinderSamples, threshold: float) -> dict[str, float]:
    """On held-out patches: the share of tile centres with a candidate at least `threshold` sure
    within a cell of them, and candidates per patch that are no centre (as the shipped file runs)."""
    found = centres = false = 0
    for i in range(len(samples)):
        probability, _ = finder.answer(network_input(samples.images[i]))
        peaks = np.stack([centre_peaks(p, threshold) for p in probability])
        truth = samples.heat[i].astype(np.float32) >= 0.999
        near = np.stack([cv2.dilate(t.astype(np.uint8), np.ones((3, 3))) for t in truth]) > 0
        centres += int(truth.sum())
        reached = np.stack([cv2.dilate(p.astype(np.uint8), np.ones((3, 3))) for p in peaks]) > 0
        found += int((truth & reached).sum())
        false += int((peaks & ~near & ~samples.ignore[i][None]).sum())
    return {"patches": len(samples), "centres": centres,
            "centre_recall": round(found / max(1, centres), 5),
            "false_centres_per_patch": round(false / max(1, len(samples)), 3)}
