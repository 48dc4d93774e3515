"""CPU time of each of the reader's stages on 1080p frames, one core, against a 30 fps frame.

    python -m benchmarks.vision_stages [--images N] [--repeat R] [--real]

The stages of `vision.pipeline.read_checked`, called as it calls them, on N rendered 1920x1080
tables (seeds 0..N-1) and, with `--real`, the 13 shared real photos: the input checks
(`vision.image.checked_bgr`), the coarse shrink (`vision.scale`), the finder at every pyramid
level (`vision.finder`), the tile reader's first look at every candidate
(`vision.pipeline.first_look`), its looks at the face-up ones (`face_up_readings`), the choice
among readings (`choose` from `MIN_CONFIDENCE`, and again with the turned look's readings, then
the set's size, `of_the_sets_size`), the turned look at the candidates no reading explains
(`turned_readings`), and the backs (its looks at the face-down ones, `back_readings` and
`face_down`). The stages read the tiles `read_image` reads (a test checks it), so a stage
`read_checked` gains shows up here.

Each stage's figure is the fastest of R runs on an image (`time.process_time`, so other work on
the machine inflates it less), and the table gives the median over the images, with the ratio to
the 33.3 ms between frames at 30 fps. Run it on another tree to compare (before and after):
`PYTHONPATH=/path/to/other/tree python benchmarks/vision_stages.py` from this one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.finder import shipped_finder
from vision.image import checked_bgr, load_image
from vision.pipeline import (
    MIN_CONFIDENCE,
    Coarse,
    Reading,
    back_readings,
    choose,
    face_down,
    face_up_readings,
    first_look,
    of_the_sets_size,
    turned_readings,
)
from vision.progress import progress
from vision.scale import coarse_factor, shrink
from vision.tilenet import shipped

REAL_PHOTOS = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets" / "real-photos"
FRAME_MS = 1000 / 30
STAGES = ("image checks", "coarse shrink", "finder", "first look", "face-up looks", "choice", "turned look",
          "backs")


def best_cpu_ms(run: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Fastest CPU ms of `repeat` calls of `run`, and its last answer."""
    best, answer = float("inf"), None
    for _ in range(repeat):
        started = time.process_time()
        answer = run()
        best = min(best, (time.process_time() - started) * 1000)
    return best, answer


def stage_times(frame: np.ndarray, repeat: int, *,
                max_pip: int = 6) -> tuple[dict[str, float], list[Reading]]:
    """CPU ms of each of `STAGES` on `frame` (uint8 BGR), fed as `read_checked` feeds them (no
    calibration, background or one set), and the face-up readings the stages keep."""
    times: dict[str, float] = {}
    times["image checks"], checked = best_cpu_ms(lambda: checked_bgr(frame), repeat)
    factor = coarse_factor(checked.shape)
    times["coarse shrink"], image = best_cpu_ms(lambda: shrink(checked, factor), repeat)
    times["finder"], found = best_cpu_ms(lambda: shipped_finder().find(image), repeat)
    candidates = [f.frame for f in found]
    # A fresh picture each run: the crops' halved images are cached on it.
    times["first look"], looked = best_cpu_ms(
        lambda: first_look(shipped(), Coarse(image, factor), candidates), repeat)
    times["face-up looks"], (readings, _) = best_cpu_ms(
        lambda: face_up_readings(shipped(), Coarse(image, factor), looked, max_pip=max_pip), repeat)
    first_choice, chosen = best_cpu_ms(lambda: choose(readings, MIN_CONFIDENCE), repeat)
    times["turned look"], (more, _) = best_cpu_ms(
        lambda: turned_readings(shipped(), Coarse(image, factor), found, chosen, max_pip=max_pip), repeat)
    last_choice, (chosen, _) = best_cpu_ms(
        lambda: of_the_sets_size(choose(readings + more, MIN_CONFIDENCE) if more else chosen), repeat)
    times["choice"] = first_choice + last_choice
    times["backs"], _ = best_cpu_ms(
        lambda: face_down(back_readings(shipped(), Coarse(image, factor), looked)[0],
                          [r.frame for r in chosen], None), repeat)
    return times, chosen


def frames(count: int, real: bool) -> dict[str, list[np.ndarray]]:
    """The benchmark's images by group: rendered 1080p tables, and the real photos."""
    out: dict[str, list[np.ndarray]] = {}
    if count:
        from vision.synth.dataset import render_example

        out[f"{count} rendered 1920x1080 tables"] = [render_example(seed).image for seed in range(count)]
    if real:
        out["the 13 shared real photos"] = [load_image(path) for path in sorted(REAL_PHOTOS.iterdir())
                                            if path.suffix in (".jpeg", ".jpg", ".png")]
    return out


def report(title: str, times: list[dict[str, float]], repeat: int) -> None:
    print(f"{title}: median CPU ms on one core (fastest of {repeat} runs per image)")
    for stage in STAGES:
        ms = statistics.median(t[stage] for t in times)
        print(f"  {stage:22s} {ms:7.1f} ms  {ms / FRAME_MS:5.2f} frame intervals")
    total = statistics.median(sum(t.values()) for t in times)
    print(f"  {'all (median of sums)':22s} {total:7.1f} ms  {total / FRAME_MS:5.2f} frame intervals "
          f"({FRAME_MS:.1f} ms at 30 fps)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.vision_stages", description=__doc__)
    parser.add_argument("--images", type=int, default=10, help="rendered 1080p tables (seeds 0..N-1)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per stage and image (the fastest counts)")
    parser.add_argument("--real", action="store_true", help="also the 13 shared real photos")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    import vision

    print(f"vision from {Path(vision.__file__).parent}; machine load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for title, images in frames(args.images, args.real).items():
        times = [stage_times(frame, args.repeat)[0]
                 for frame in progress(images, total=len(images), what=title)]
        report(title, times, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
