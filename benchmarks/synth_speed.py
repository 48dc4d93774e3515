"""CPU time to render one frame of the plain dataset and one of the widened renderer, side by side,
and a frame of a filmed game.

    python -m benchmarks.synth_speed [--count N] [--width 1920 --height 1080] [--films F --plays P]

Renders seeds 0..N-1 of each (`vision.synth.dataset.render_example` and
`vision.synth.widened.render_widened`) after one warm-up frame of each, and prints the median,
mean and largest CPU time of this process per frame (`time.process_time`, OpenCV on one thread)
and the widened renderer's ratio to the plain one. The widened renderer is meant to cost at most
`BUDGET` times the plain one.

Then the frames of F filmed games (`vision.synth.film.demo_game_frames`, seeds 0..F-1, P plays
each, 1280x720 as the demo films), against the 33.3 ms between frames at 30 fps: the demo, the
tracker's tests and its benchmarks render every frame they read. To time another tree's
renderers with this benchmark, run this file by its path: `PYTHONPATH=/other/tree python
benchmarks/synth_speed.py` from this tree (with `-m`, the current directory's `vision` comes first).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence

import cv2

from vision.synth.dataset import render_example
from vision.synth.film import demo_game_frames
from vision.synth.scene import Frame
from vision.synth.widened import render_widened

BUDGET = 2.0  # widened / plain, median CPU per frame
FILM_SIZE = (1280, 720)
FRAME_S = 1 / 30


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


def film_cpu_per_frame(films: int, plays: int) -> list[float]:
    """CPU seconds per frame of each of `films` filmed games of `plays` plays (a game's CPU over
    its frames: a move's frames are rendered together), after one warm-up game."""
    for _ in demo_game_frames(10_000, plays=1, size=FILM_SIZE):
        pass
    times = []
    for seed in range(films):
        start = time.process_time()
        count = sum(1 for _ in demo_game_frames(seed, plays=plays, size=FILM_SIZE))
        times.append((time.process_time() - start) / count)
    return times


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.synth_speed", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--count", type=int, default=20, help="frames of each renderer (default 20)")
    parser.add_argument("--width", type=int, default=1920)
    parser.add_argument("--height", type=int, default=1080)
    parser.add_argument("--films", type=int, default=3, help="filmed games (default 3; 0: none)")
    parser.add_argument("--plays", type=int, default=6, help="plays in each filmed game (default 6)")
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
    if args.films:
        times = film_cpu_per_frame(args.films, args.plays)
        median = statistics.median(times)
        print(f"film     {FILM_SIZE[0]}x{FILM_SIZE[1]}: median {median * 1000:.1f} ms of CPU per frame over "
              f"{args.films} games of {args.plays} plays (from {min(times) * 1000:.1f} to "
              f"{max(times) * 1000:.1f} ms; {median / FRAME_S:.1f} frame intervals at 30 fps)")
    return 0 if ratio <= BUDGET else 1


if __name__ == "__main__":
    sys.exit(main())
