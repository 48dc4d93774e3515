"""CPU time to render one frame of the plain dataset and one of the widened renderer, side by side.

    python -m benchmarks.synth_speed [--count N] [--width 1920 --height 1080]

Renders seeds 0..N-1 of each (`vision.synth.dataset.render_example` and
`vision.synth.widened.render_widened`) after one warm-up frame of each, and prints the median,
mean and largest CPU time of this process per frame (`time.process_time`, OpenCV on one thread)
and the widened renderer's ratio to the plain one. The widened renderer is meant to cost at most
`BUDGET` times the plain one.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence

import cv2

from vision.synth.dataset import render_example
from vision.synth.scene import Frame
from vision.synth.widened import render_widened

BUDGET = 2.0  # widened / plain, median CPU per frame


def cpu_per_frame(
    render: Callable[[int, tuple[int, int]], Frame], count: int, size: tuple[int, int]
) -> list[float]:
    render(10_000, size)  # warm-up: sprite caches, noise banks, imports
    times = []
    for seed in range(count):
        start = time.process_time()
        render(seed, size)
        times.append(time.process_time() - start)
    return times


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.synth_speed", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--count", type=int, default=20, help="frames of each renderer (default 20)")
    parser.add_argument("--width", type=int, default=1920)
    parser.add_argument("--height", type=int, default=1080)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    size = (args.width, args.height)
    medians = {}
    for name, render in (("plain", render_example), ("widened", render_widened)):
        times = cpu_per_frame(render, args.count, size)
        medians[name] = statistics.median(times)
        print(
            f"{name:8s} {size[0]}x{size[1]}: median {medians[name]:.3f} s, "
            f"mean {statistics.mean(times):.3f} s, max {max(times):.3f} s of CPU per frame "
            f"({args.count} frames)"
        )
    ratio = medians["widened"] / medians["plain"]
    print(f"widened / plain: {ratio:.2f}x (budget {BUDGET:.1f}x)")
    return 0 if ratio <= BUDGET else 1


if __name__ == "__main__":
    sys.exit(main())
