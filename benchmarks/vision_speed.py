"""Time to read one 1920x1080 frame on one core, against the 33.3 ms between frames at 30 fps,
and what a 12-megapixel (4000x3000) photo of the same tables costs beside it.

    python -m benchmarks.vision_speed [--repeat N]

The frame is made of real pixels: two of the shared real photos (28 tiles) scaled to 1080 rows
and set side by side on a 1920x1080 canvas; and, when `vision.synth` is present, a rendered table.
The 12 MP cases are the same two photos scaled to 3000 rows on a 4000x3000 canvas (made in memory
from the shared photos, read in place) and the same table rendered at 4000x3000: the reader brings
every input to a working scale first, so their ratio to the 1080p figure should stay near 1.
The peak memory of a 12 MP read is measured in a fresh process (peak resident memory, which includes the
interpreter, numpy and OpenCV, also printed alone) by `--peak-memory`: VmHWM, so Linux only.
OpenCV runs on one thread (`cv2.setNumThreads(1)`); the figure is CPU time of this process
(`time.process_time`), which a busy machine inflates less than wall-clock time (also printed).
A Raspberry Pi 5 is taken as about three times slower than this machine per core; that factor is
an estimate, not a measurement.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from vision.read import read_image

REAL_PHOTOS = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets" / "real-photos"
FRAME_MS = 1000 / 30
PI5_FACTOR = 3.0
BIG = (4000, 3000)  # a 12-megapixel phone photo


def photo_frame(size: tuple[int, int] = (1920, 1080)) -> np.ndarray:
    """Two real photos scaled to the canvas's height, side by side on a `size` (width, height)
    canvas; a canvas taller than the photos scales them up (cubic), as a 12 MP camera would see them.

    Raises `FileNotFoundError` naming the photo when it cannot be read (a clone without ../shared)."""
    width_px, height_px = size
    canvas = np.full((height_px, width_px, 3), 235, np.uint8)
    x = 0
    for name in ("jm-1.jpeg", "jm-8.jpeg"):
        photo = cv2.imread(str(REAL_PHOTOS / name))
        if photo is None:
            raise FileNotFoundError(f"cannot read {REAL_PHOTOS / name}: no shared photos beside the clone")
        grow = height_px > photo.shape[0]
        photo = cv2.resize(photo, (round(photo.shape[1] * height_px / photo.shape[0]), height_px),
                           interpolation=cv2.INTER_CUBIC if grow else cv2.INTER_AREA)
        width = min(photo.shape[1], width_px - x)
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


def frames() -> list[tuple[str, np.ndarray]]:
    """The benchmark's frames: (title, image), each 1080p frame followed by its 12 MP version."""
    out = []
    try:
        out += [("two real photos on a 1920x1080 canvas", photo_frame()),
                ("the same photos on a 4000x3000 (12 MP) canvas", photo_frame(BIG))]
    except FileNotFoundError as missing:
        print(f"left out the real photos: {missing}")
    try:
        from vision.synth.dataset import render_example

        out.append(("rendered 1920x1080 table (seed 0)", render_example(0).image))
        out.append(("the same table rendered at 4000x3000 (12 MP)", render_example(0, BIG).image))
    except ImportError:
        pass
    return out


def peak_memory_mb(frame: np.ndarray) -> tuple[float, float]:
    """Peak resident memory (MB) of a fresh process that loads `frame` (saved to a temporary .npy
    file) and reads it once, and of one that only loads it (the interpreter, numpy, OpenCV, the
    reader's modules and the frame itself)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "frame.npy"
        np.save(path, frame)

        def run(read: bool) -> float:
            # The child's own peak (`benchmarks.process_memory`: VmHWM, not ru_maxrss).
            code = ("import cv2, numpy; cv2.setNumThreads(1); "
                    "from benchmarks.process_memory import status_bytes; "
                    "from vision.read import read_image; "
                    f"frame = numpy.load({str(path)!r}); "
                    + ("read_image(frame); " if read else "")
                    + "print(status_bytes('VmHWM'))")
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                  check=True, cwd=Path(__file__).resolve().parents[1])
            return int(done.stdout.split()[-1]) / 2**20
        return run(True), run(False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.vision_speed", description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--peak-memory", action="store_true",
                        help="also measure the peak memory of each 12 MP read in a fresh process")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    load = os.getloadavg()[0]
    print(f"machine load average {load:.1f} on {os.cpu_count()} cores "
          f"(above the core count, other work shares the core and the times grow)")
    hd_ms = 0.0
    for title, frame in frames():
        wall, ms, tiles = measure(frame, args.repeat)
        print(f"{title}: {tiles} face-up tiles read")
        if frame.shape[0] == BIG[1]:
            print(f"  median {ms:.0f} ms of CPU on one core (wall clock {wall:.0f} ms) = "
                  f"{ms / hd_ms:.2f}x the same table at 1920x1080")
            if args.peak_memory:
                peak, base = peak_memory_mb(frame)
                print(f"  peak memory {peak:.0f} MB in a fresh process ({base:.0f} MB before the read: "
                      f"interpreter, libraries and the 12 MP frame loaded)")
            continue
        hd_ms = ms
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
