"""Time to read one 1920x1080 frame on one core, against the 33.3 ms between frames at 30 fps.

    python -m benchmarks.vision_speed [--repeat N]

The frame is made of real pixels: two of the shared real photos (28 tiles) scaled to 1080 rows
and set side by side on a 1920x1080 canvas; and, when `vision.synth` is present, a rendered table.
OpenCV runs on one thread (`cv2.setNumThreads(1)`); the figure is CPU time of this process
(`time.process_time`), which a busy machine inflates less than wall-clock time (also printed).
A Raspberry Pi 5 is taken as about three times slower than this machine per core; that factor is
an estimate, not a measurement.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision.read import read_image

REAL_PHOTOS = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets" / "real-photos"
FRAME_MS = 1000 / 30
PI5_FACTOR = 3.0


def photo_frame() -> np.ndarray:
    canvas = np.full((1080, 1920, 3), 235, np.uint8)
    x = 0
    for name in ("jm-1.jpeg", "jm-8.jpeg"):
        photo = cv2.imread(str(REAL_PHOTOS / name))
        photo = cv2.resize(photo, (round(photo.shape[1] * 1080 / photo.shape[0]), 1080),
                           interpolation=cv2.INTER_AREA)
        width = min(photo.shape[1], 1920 - x)
        canvas[:, x:x + width] = photo[:, :width]
        x += width
    return canvas


def measure(frame: np.ndarray, repeat: int) -> tuple[float, float, int]:
    """Median wall-clock and CPU milliseconds per read, and the tiles read."""
    tiles = len(read_image(frame).tiles)  # warm-up
    wall, cpu = [], []
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        read_image(frame)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return statistics.median(wall) * 1000, statistics.median(cpu) * 1000, tiles


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.vision_speed", description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    load = os.getloadavg()[0]
    print(f"machine load average {load:.1f} on {os.cpu_count()} cores "
          f"(above the core count, other work shares the core and the times grow)")
    frames = [("two real photos on a 1920x1080 canvas", photo_frame())]
    try:
        from vision.synth.dataset import render_example

        frames.append(("rendered 1920x1080 table (seed 0)", render_example(0).image))
    except ImportError:
        pass
    for title, frame in frames:
        wall, ms, tiles = measure(frame, args.repeat)
        print(f"{title}: {tiles} face-up tiles read")
        print(f"  median {ms:.0f} ms of CPU per frame on one core (wall clock {wall:.0f} ms) = "
              f"{ms / FRAME_MS:.2f}x the 30 fps frame interval ({FRAME_MS:.1f} ms); "
              f"{1000 / ms:.1f} frames/s")
        pi = ms * PI5_FACTOR
        print(f"  Raspberry Pi 5 (~{PI5_FACTOR:.0f}x slower, estimated): ~{pi:.0f} ms per frame, "
              f"~{1000 / pi:.1f} frames/s; {'enough' if pi <= 1000 else 'too slow'} for reading the "
              f"table once a second, {'enough' if pi <= FRAME_MS else 'not'} for every frame at 30 fps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
