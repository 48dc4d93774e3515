"""Time one training step of each network, as `make model` runs it, in each layout and arithmetic.

    python -m benchmarks.training_speed [--steps N] [--threads T]

A step is the forward pass, the loss, the backward pass and the optimiser's update: the reader's
on a batch of 256 crops (`vision.train.fit.train`'s batch, augmented as it augments them), the
finder's on 16 patches of 192x192 px (`vision.train.finder.fit_finder`'s), both from random
pixels and labels of the right shapes (the arithmetic does not depend on the values). Each
network is timed in three ways, each after three steps of warm-up, as the median of N steps of
wall time on T threads (`make model` runs 2):

- `float32, contiguous`: the recipe before `vision.train.precision`;
- `float32, channels-last`: activations and weights stored channels-last;
- `bfloat16, channels-last`: and the convolutions run in bfloat16 (`torch.autocast`), the default
  where the CPU has native bfloat16 (`vision.train.precision.native_bfloat16`).

The ratio to the first way says how much faster the fits run: they are about three quarters of
`make model`'s time, rendering and harvesting the rest. Needs the `train` extra (`make train-deps`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

import torch
from torch.nn import functional as F

from vision.crops import CROP_HEIGHT, CROP_WIDTH, GEOMETRY_SIZE
from vision.finder import GEOMETRY_CHANNELS, HEAT_CHANNELS
from vision.tilenet import KINDS, MAX_PIPS
from vision.train.finder import PATCH, focal_loss
from vision.train.net import TileFinderNet, TileReaderNet, augment, normalise
from vision.train.precision import (
    BFLOAT16,
    FLOAT32,
    Net,
    arithmetic,
    channels_last,
    native_bfloat16,
    stored_channels_last,
)

READER_BATCH = 256
FINDER_BATCH = 16
WARM_UP = 3
WAYS = ((FLOAT32, False), (FLOAT32, True), (BFLOAT16, True))  # (arithmetic, channels-last)


def _layout(batch: torch.Tensor, last: bool) -> torch.Tensor:
    return channels_last(batch) if last else batch.contiguous()


def _model(model: Net, last: bool) -> Net:
    return stored_channels_last(model) if last else model


def reader_step(precision: str, last: bool) -> Callable[[], None]:
    generator = torch.Generator().manual_seed(0)
    model = _model(TileReaderNet(), last).train()
    optimiser = torch.optim.AdamW(model.parameters(), lr=1e-3)
    crops = torch.randint(0, 256, (READER_BATCH, CROP_HEIGHT, CROP_WIDTH, 3), generator=generator)
    kind = torch.randint(0, len(KINDS), (READER_BATCH,), generator=generator)
    top = torch.randint(0, MAX_PIPS + 1, (READER_BATCH,), generator=generator)
    bottom = torch.randint(0, MAX_PIPS + 1, (READER_BATCH,), generator=generator)
    geometry = torch.randn(READER_BATCH, GEOMETRY_SIZE, generator=generator)

    def step() -> None:
        x, top_, bottom_, geometry_ = augment(crops.float(), top, bottom, geometry, generator)
        with arithmetic(precision):
            outputs = model(_layout(normalise(x), last))
        kind_logits, top_logits, bottom_logits, geometry_out = (out.float() for out in outputs)
        loss = (F.cross_entropy(kind_logits, kind)
                + F.cross_entropy(top_logits, top_)
                + F.cross_entropy(bottom_logits, bottom_)
                + F.smooth_l1_loss(geometry_out, geometry_))
        optimiser.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        optimiser.step()

    return step


def finder_step(precision: str, last: bool) -> Callable[[], None]:
    generator = torch.Generator().manual_seed(0)
    model = _model(TileFinderNet(), last).train()
    optimiser = torch.optim.AdamW(model.parameters(), lr=1e-3)
    images = torch.randn(FINDER_BATCH, 3, PATCH, PATCH, generator=generator)
    heat = torch.rand(FINDER_BATCH, HEAT_CHANNELS, PATCH // 4, PATCH // 4, generator=generator)
    geometry = torch.randn(FINDER_BATCH, GEOMETRY_CHANNELS, PATCH // 4, PATCH // 4, generator=generator)
    ignore = torch.zeros(FINDER_BATCH, PATCH // 4, PATCH // 4, dtype=torch.bool)

    def step() -> None:
        with arithmetic(precision):
            outputs = model(_layout(images, last))
        heat_logits, geometry_out = (out.float() for out in outputs)
        loss = focal_loss(heat_logits, heat, ignore) + F.smooth_l1_loss(geometry_out, geometry)
        optimiser.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        optimiser.step()

    return step


def median_ms(step: Callable[[], None], steps: int) -> float:
    for _ in range(WARM_UP):
        step()
    times = []
    for _ in range(steps):
        started = time.perf_counter()
        step()
        times.append(time.perf_counter() - started)
    return 1000 * statistics.median(times)


def measure(steps: int) -> dict[str, dict[str, float]]:
    """Median ms per step of each network, keyed by way (`arithmetic, layout`)."""
    figures: dict[str, dict[str, float]] = {}
    for name, make in (("reader", reader_step), ("finder", finder_step)):
        figures[name] = {}
        for precision, last in WAYS:
            way = f"{precision}, {'channels-last' if last else 'contiguous'}"
            figures[name][way] = median_ms(make(precision, last), steps)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    if args.steps < 1 or args.threads < 1:
        parser.error("--steps and --threads must be >= 1")
    torch.set_num_threads(args.threads)
    native = "yes" if native_bfloat16() else "no (emulated: slower than float32)"
    print(f"native bfloat16 on this CPU: {native}; {args.threads} threads, median of {args.steps} steps")
    for name, ways in measure(args.steps).items():
        baseline = next(iter(ways.values()))
        for way, ms in ways.items():
            print(f"  {name:7s} {way:26s} {ms:8.1f} ms a step  {baseline / ms:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
