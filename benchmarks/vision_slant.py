"""Photos taken at a slant: what reading them again on their tiles' plane (`vision.slant`) gains.

    python -m benchmarks.vision_slant [DIR [--labels FILE]] [--degrees 0 30 40 50]
                                      [--count N] [--seed S] [--jobs J] [--json FILE]

Each picture is seen by a camera turned by each of `--degrees` about an axis through the picture's
centre (`vision.synth.turn.camera_turn`: the homography K R K^-1 of a pinhole camera whose focal
length is 0.9 of the longer side, a phone's), and read twice: as `read_image` reads it, and by its
first read alone (`vision.pipeline.read_checked`, no second read on the plane). The pictures are

- the labelled photos of DIR (default: the shared real photos), each turned about its horizontal
  and its vertical axis, both ways;
- widened frames S..S+N-1 (`vision.synth.widened`; default 20000..20199, seeds the reader's
  training, tuning and held-out sets do not use), each turned about an axis drawn from its seed.
  The slant read's constants were chosen on 20000..20199: `--seed 20200` measures it fairly.

For each it reports tile recall and precision, exact pictures and the CPU per read. The turned
photos are the same photos with their perspective changed, so they measure the slant, not new sets.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, cast

import numpy as np

from benchmarks.vision_accuracy import add_folder_arguments
from vision.evaluate import ImageScore, label_max_pip, labelled_image, load_labels, score_image, summarise
from vision.image import checked_bgr
from vision.pipeline import MIN_CONFIDENCE, read_checked
from vision.progress import in_order, worker_pool
from vision.read import TableView, read_image
from vision.synth.turn import camera_turn

DEGREES = (0.0, 30.0, 40.0, 50.0)
WIDENED_SEED = 20000


def _first_read_only(image: np.ndarray, max_pip: int) -> TableView:
    return read_checked(checked_bgr(image), max_pip=max_pip, min_confidence=MIN_CONFIDENCE, one_set=True)


def _with_the_slant_read(image: np.ndarray, max_pip: int) -> TableView:
    return read_image(image, max_pip=max_pip, one_set=True)


# The two ways each picture is read, told one set: `read_image` without its slant read, and whole.
READS: dict[str, Callable[[np.ndarray, int], TableView]] = {
    "first read only": _first_read_only, "with the slant read": _with_the_slant_read}


def _both_reads(name: str, image: np.ndarray, label: dict[str, Any],
                max_pip: int) -> dict[str, tuple[ImageScore, float]]:
    """`image` read with and without the slant read: each one's score and CPU seconds."""
    out = {}
    for way, read in READS.items():
        started = time.process_time()
        view = read(image, max_pip)
        out[way] = (score_image(name, view.to_json(), label), time.process_time() - started)
    return out


def widened_seed(seed: int, degrees: float) -> dict[str, tuple[ImageScore, float]]:
    from vision.synth.widened import render_widened

    frame = render_widened(seed)
    axis = float(np.random.default_rng(seed).uniform(0, 2 * math.pi))
    image, _ = camera_turn(frame.image, degrees, axis)
    return _both_reads(f"widened-{seed}", image, frame.labels, cast(int, frame.labels["max_pip"]))


def photo_turns(folder: Path, labels_file: Path | None,
                degrees: float) -> list[dict[str, tuple[ImageScore, float]]]:
    labels = load_labels(folder, labels_file)
    results = []
    for name, label in sorted(labels.items()):
        image = labelled_image(folder, name, label)
        for axis in (0.0, math.pi / 2, math.pi, -math.pi / 2) if degrees else (0.0,):
            turned, _ = camera_turn(image, degrees, axis)
            name_turned = f"{name}@{math.degrees(axis):.0f}"
            results.append(_both_reads(name_turned, turned, label, label_max_pip(label, 6)))
    return results


def _figures(results: list[dict[str, tuple[ImageScore, float]]]) -> dict[str, Any]:
    figures = {}
    for way in READS:
        scores = [r[way][0] for r in results]
        total = summarise(scores)
        figures[way] = {
            "images": total["images"], "precision": total["precision"], "recall": total["recall"],
            "tiles_right": sum(s.true_positives for s in scores), "labelled": sum(s.labelled for s in scores),
            "false_tiles": sum(s.predicted - s.true_positives for s in scores),
            "exact_images": total["exact_images"],
            "cpu_median_s": round(statistics.median(r[way][1] for r in results), 3) if results else None,
            "cpu_mean_s": round(statistics.mean(r[way][1] for r in results), 3) if results else None,
            "cpu_max_s": round(max(r[way][1] for r in results), 3) if results else None,
        }
    return figures


def _print(title: str, figures: dict[str, Any]) -> None:
    print(title)
    for way, f in figures.items():
        print(f"  {way:<20} recall {f['recall']:.3f} ({f['tiles_right']}/{f['labelled']})  precision "
              f"{f['precision']:.3f} ({f['false_tiles']} false)  exact {f['exact_images']}/{f['images']}  "
              f"CPU per read {f['cpu_median_s']} s median, {f['cpu_mean_s']} mean, {f['cpu_max_s']} most")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.vision_slant")
    add_folder_arguments(parser)
    parser.add_argument("--degrees", type=float, nargs="+", default=list(DEGREES))
    parser.add_argument("--count", type=int, default=200, help="widened frames (0: none)")
    parser.add_argument("--seed", type=int, default=WIDENED_SEED)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    report: dict[str, Any] = {}
    count = args.count
    if count:
        try:
            import vision.synth.widened  # noqa: F401
        except ImportError:
            print("vision.synth is not installed: no widened frames", file=sys.stderr)
            count = 0
    # One pool for every angle: each worker loads the networks once.
    with worker_pool(args.jobs if count else 1) as pool:
        for degrees in args.degrees:
            if (args.folder / "labels.json").is_file() or args.labels:
                figures = _figures(photo_turns(args.folder, args.labels, degrees))
                report[f"photos, {degrees:g} degrees"] = figures
                _print(f"{args.folder}, turned {degrees:g} degrees", figures)
            else:
                print(f"{args.folder}: no labelled photos there, left out", file=sys.stderr)
            if count:
                work = partial(widened_seed, degrees=degrees)
                results = list(in_order(work, range(args.seed, args.seed + count), pool,
                                        what=f"widened frames at {degrees:g} degrees"))
                figures = _figures(results)
                report[f"widened, {degrees:g} degrees"] = figures
                last = args.seed + count - 1
                _print(f"widened frames {args.seed}..{last}, turned {degrees:g} degrees", figures)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
