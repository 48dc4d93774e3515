"""CPU time of the reader's classical stages on 1080p frames, one core, against a 30 fps frame.

    python -m benchmarks.vision_stages [--images N] [--repeat R] [--real]

The stages are the ones around the tile fitting (which a learned reader replaces), called as
`vision.pipeline` (through `vision.proposals`) calls them, on N rendered 1920x1080 tables (seeds
0..N-1) and, with `--real`, the 13 shared real photos: the input checks
(`vision.image.checked_bgr`), the coarse shrink (`vision.scale`), the ArUco markers, the pip
size, the dark and bright ink, the three `find_bars` passes (dark at 0.4 and 0.3, bright at 0.3)
and the face-down search. The face-down search is given no face-up tiles (the fitting is not
run), so it examines every block a face-up tile would have hidden: a little more than in a read.

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

from vision.facedown import find_face_down
from vision.image import checked_bgr, load_image
from vision.markers import find_markers
from vision.marks import envelope_size, find_bars, ink_ratio, pip_diameters
from vision.progress import progress
from vision.proposals import BRIGHT_BAR_INK, DARK_BAR_INK, FAINT_BAR_INK, WORK_PIP_PX
from vision.scale import coarse_factor, shrink

REAL_PHOTOS = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets" / "real-photos"
FRAME_MS = 1000 / 30
STAGES = ("image checks", "coarse shrink", "markers", "pip size", "ink (dark + bright)",
          "bars (3 passes)", "face-down")


def _best(run: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Fastest CPU ms of `repeat` calls of `run`, and its last answer."""
    best, answer = float("inf"), None
    for _ in range(repeat):
        started = time.process_time()
        answer = run()
        best = min(best, (time.process_time() - started) * 1000)
    return best, answer


def stage_times(frame: np.ndarray, repeat: int) -> dict[str, float]:
    """CPU ms of each of `STAGES` on `frame` (uint8 BGR), fed as `read_checked` feeds them."""
    times: dict[str, float] = {}
    times["image checks"], checked = _best(lambda: checked_bgr(frame), repeat)
    factor = coarse_factor(checked.shape)
    times["coarse shrink"], full = _best(lambda: shrink(checked, factor), repeat)
    times["markers"], markers = _best(lambda: find_markers(full), repeat)
    times["pip size"], guesses = _best(lambda: pip_diameters(full, markers=markers), repeat)
    pip = guesses[0]
    scale = min(1.0, WORK_PIP_PX / pip)
    image = full
    if scale < 0.95:
        image = cv2.resize(full, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        pip *= scale
    margin = max(8, min(image.shape[:2]) // 10)
    image = cv2.copyMakeBorder(image, margin, margin, margin, margin, cv2.BORDER_CONSTANT,
                               value=(128, 128, 128))
    window = envelope_size(image.shape, pip)
    times["ink (dark + bright)"], (dark, bright) = _best(
        lambda: (ink_ratio(image, polarity="dark", window=window, per_channel=True),
                 ink_ratio(image, polarity="bright", window=window, per_channel=True)), repeat)
    times["bars (3 passes)"], _ = _best(
        lambda: (find_bars(dark, pip, threshold=DARK_BAR_INK), find_bars(dark, pip, threshold=FAINT_BAR_INK),
                 find_bars(bright, pip, polarity="bright", threshold=BRIGHT_BAR_INK)), repeat)
    times["face-down"], _ = _best(lambda: find_face_down(full, [], markers=markers), repeat)
    return times


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
        times = [stage_times(frame, args.repeat)
                 for frame in progress(images, total=len(images), what=title)]
        report(title, times, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
