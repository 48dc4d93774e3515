"""The two runtimes that can run the shipped networks (`vision.onnx`), side by side on one core:
OpenCV's `cv2.dnn` and ONNX Runtime.

    python -m benchmarks.vision_runtimes [--rounds N] [--repeat R] [--json FILE]

Each round times every case under each runtime in turn (so that a change in the machine's load
falls on both): the finder's network alone on its 768-px top level (1x3x432x768), the reader's
network alone on a batch of 62 crops, and whole reads (`read_image`) of `vision_speed`'s frames:
two shared real photos on a 1920x1080 canvas and at 12 MP, and a rendered table at both sizes. A
figure is the median of the fastest-of-`repeat` time of each round, in CPU ms of this process
(`time.process_time`) with OpenCV, and so each runtime, on one thread. It also reports how far the
two runtimes' answers lie apart on the same inputs and whether the whole reads found the same
tiles. Needs the `fast` extra (`onnxruntime`); without it, says so and exits.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from benchmarks.vision_speed import FRAME_MS, frames
from benchmarks.vision_stages import best_cpu_ms
from vision.crops import CROP_HEIGHT, CROP_WIDTH
from vision.finder import FINDER_FILE, MODEL_DIR, shipped_finder
from vision.finder import OUTPUTS as FINDER_OUTPUTS
from vision.onnx import RUNTIME_ONNXRUNTIME, RUNTIME_OPENCV, RUNTIME_VARIABLE, Network, onnxruntime_installed
from vision.read import read_image
from vision.tilenet import MODEL_FILE, shipped
from vision.tilenet import OUTPUTS as READER_OUTPUTS

RUNTIMES = (RUNTIME_OPENCV, RUNTIME_ONNXRUNTIME)
TOP_LEVEL = (1, 3, 432, 768)  # the finder's input for a 1920x1080 frame's top level
CROPS = 62  # the reader's batch in the first look at the benchmark's photo frame


def use(runtime: str) -> None:
    """Make `runtime` the one the shipped finder and reader load next, and unload them."""
    os.environ[RUNTIME_VARIABLE] = runtime
    shipped_finder.cache_clear()
    shipped.cache_clear()


def cases(pictures: list[tuple[str, np.ndarray]]) -> dict[str, Callable[[], object]]:
    """Each case's work, under the runtime `use` chose last (built anew for each runtime): each
    network alone, and a whole read of each of `pictures` (title, image)."""
    rng = np.random.default_rng(0)
    top = rng.normal(size=TOP_LEVEL).astype(np.float32)
    crops = rng.normal(size=(CROPS, 3, CROP_HEIGHT, CROP_WIDTH)).astype(np.float32)
    finder = Network(MODEL_DIR / FINDER_FILE, "tile finder", FINDER_OUTPUTS)
    reader = Network(MODEL_DIR / MODEL_FILE, "tile reader", READER_OUTPUTS)
    out: dict[str, Callable[[], object]] = {
        "finder network, 768-px top level": lambda: finder.run(top),
        f"reader network, {CROPS} crops": lambda: reader.run(crops),
    }
    for title, frame in pictures:
        out[title] = lambda frame=frame: tiles_read(frame)  # type: ignore[misc]  # bound now, not at the call
    return out


def tiles_read(frame: np.ndarray) -> list[str]:
    return sorted(tile.tile for tile in read_image(frame).tiles)


def answers_apart() -> dict[str, float]:
    """The largest difference between the runtimes' outputs for the same inputs, per network."""
    rng = np.random.default_rng(1)
    inputs = {"finder": rng.normal(size=(1, 3, 96, 160)).astype(np.float32),
              "reader": rng.normal(size=(16, 3, CROP_HEIGHT, CROP_WIDTH)).astype(np.float32)}
    apart = {}
    networks = {"finder": (FINDER_FILE, FINDER_OUTPUTS), "reader": (MODEL_FILE, READER_OUTPUTS)}
    for name, (file, outputs) in networks.items():
        ours, theirs = (Network(MODEL_DIR / file, name, outputs, runtime=runtime).run(inputs[name])
                        for runtime in RUNTIMES)
        apart[name] = max(float(np.abs(a - b).max()) for a, b in zip(ours, theirs, strict=True))
    return apart


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.vision_runtimes", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="rounds, each timing both runtimes in turn")
    parser.add_argument("--repeat", type=int, default=5, help="runs per case and round; the fastest counts")
    parser.add_argument("--json", type=Path, help="also write every figure to this file")
    args = parser.parse_args(argv)
    if not onnxruntime_installed():
        print("skipped: onnxruntime is not installed (pip install -e '.[fast]')")
        return 0
    cv2.setNumThreads(1)  # each runtime takes OpenCV's thread count when a network loads
    print(f"machine load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          f"{args.rounds} rounds, fastest of {args.repeat} runs a case")
    times: dict[str, dict[str, list[float]]] = {}
    answers: dict[str, dict[str, object]] = {}
    pictures = [(f"read: {title}", image) for title, image in frames()]
    for _ in range(args.rounds):
        for runtime in RUNTIMES:
            use(runtime)
            for title, work in cases(pictures).items():
                work()  # warm-up: a network's first run sets it up
                ms, answer = best_cpu_ms(work, args.repeat)
                times.setdefault(title, {}).setdefault(runtime, []).append(ms)
                answers.setdefault(title, {})[runtime] = answer
    apart = answers_apart()
    report: dict[str, object] = {"answers_apart": apart}
    for title, by_runtime in times.items():
        opencv, ort = (statistics.median(by_runtime[r]) for r in RUNTIMES)
        read = title.startswith("read:")
        tiles = answers[title]
        same = read and tiles[RUNTIME_OPENCV] == tiles[RUNTIME_ONNXRUNTIME]
        said = "" if not read else "; the same tiles" if same else f"; tiles differ: {tiles}"
        print(f"{title}: OpenCV {opencv:.1f} ms, ONNX Runtime {ort:.1f} ms = {opencv / ort:.2f}x as fast "
              f"({ort / FRAME_MS:.2f} frame intervals at 30 fps){said}")
        report[title] = {"opencv_ms": by_runtime[RUNTIME_OPENCV],
                         "onnxruntime_ms": by_runtime[RUNTIME_ONNXRUNTIME],
                         "same_tiles": same if read else None}
    print("largest difference between the runtimes' outputs: "
          + ", ".join(f"{name} {value:.1e}" for name, value in apart.items()))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
