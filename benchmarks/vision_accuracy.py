"""Tile-reading accuracy: the real photos, and rendered tables when `vision.synth` is present.

    python -m benchmarks.vision_accuracy [DIR] [--synthetic N] [--seed S] [--jobs J]

DIR (default: the shared real photos) is scored like `domino-referee vision eval DIR`: tile
identity precision and recall (multiset of values per image), exact images (every tile right,
nothing extra), face-down count error and joins. With `vision.synth` importable, N rendered
1920x1080 tables (default 500, seeds S..S+N-1; `--size 4000x3000` renders 12 MP ones) are scored
the same way; `--synthetic 0` skips them. A bar on standard error shows progress on a terminal.
"""

from __future__ import annotations

import argparse
import functools
import multiprocessing
import sys
import time
from pathlib import Path
from typing import Any

from vision.evaluate import ImageScore, load_labels, score_image, summarise
from vision.image import load_image
from vision.progress import progress
from vision.read import read_image

REAL_PHOTOS = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets" / "real-photos"
GOAL = 0.99


def score_folder(folder: Path) -> tuple[list[ImageScore], float]:
    labels = load_labels(folder)
    scores = []
    started = time.process_time()
    for name, label in progress(sorted(labels.items()), total=len(labels), what="photos"):
        view = read_image(load_image(folder / name))
        scores.append(score_image(name, view.to_json(), label))
    return scores, time.process_time() - started


def score_seed(seed: int, size: tuple[int, int] = (1920, 1080)) -> tuple[ImageScore, float]:
    """Render table `seed` at `size` (width, height), read it; the score and the CPU seconds of
    reading."""
    from vision.synth.dataset import render_example

    frame = render_example(seed, size)
    started = time.process_time()
    view = read_image(frame.image)
    return score_image(f"synth-{seed}", view.to_json(), frame.labels), time.process_time() - started


def score_synthetic(count: int, seed: int, every: int = 0, jobs: int = 1,
                    size: tuple[int, int] = (1920, 1080)) -> tuple[list[ImageScore], float] | None:
    try:
        import vision.synth.dataset  # noqa: F401
    except ImportError:
        return None
    scores = []
    reading = 0.0
    pool = multiprocessing.Pool(jobs) if jobs > 1 else None
    seeds = range(seed, seed + count)
    read = functools.partial(score_seed, size=size)
    results = pool.imap(read, seeds) if pool else map(read, seeds)
    for i, (score, seconds) in enumerate(progress(results, total=count, what="rendered tables")):
        reading += seconds
        scores.append(score)
        if every and (i + 1) % every == 0:
            right = sum(s.true_positives for s in scores)
            print(f"  ... {i + 1} rendered tables: {right} right of "
                  f"{sum(s.predicted for s in scores)} seen, {sum(s.labelled for s in scores)} labelled, "
                  f"{sum(s.exact for s in scores)} exact", flush=True)
    if pool:
        pool.close()
    return scores, reading


def report(title: str, scores: list[ImageScore], seconds: float) -> dict[str, Any]:
    total = summarise(scores)
    right = sum(s.true_positives for s in scores)
    seen = sum(s.predicted for s in scores)
    labelled = sum(s.labelled for s in scores)
    print(f"{title}: {total['images']} images in {seconds:.1f} s of reading (CPU)")
    print(f"  tiles: {right} right of {seen} seen and {labelled} labelled")
    print(f"  tile precision {total['precision']:.4f}  recall {total['recall']:.4f}  "
          f"(goal {GOAL:.2f}: precision {'met' if total['precision'] >= GOAL else 'not met'}, "
          f"recall {'met' if total['recall'] >= GOAL else 'not met'})")
    print(f"  exact images {total['exact_images']}/{total['images']} ({total['exact_accuracy']:.3f})")
    if total["face_down_mean_abs_error"] is not None:
        print(f"  face-down count: mean absolute error {total['face_down_mean_abs_error']}")
    if total["joins_recall"] is not None:
        print(f"  joins precision {total['joins_precision']:.3f}  recall {total['joins_recall']:.3f}")
    wrong = [s for s in scores if not s.exact]
    for s in wrong[:10]:
        print(f"    {s.name}: extra {s.extra} missing {s.missing}")
    if len(wrong) > 10:
        print(f"    ... and {len(wrong) - 10} more inexact images")
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.vision_accuracy", description=__doc__)
    parser.add_argument("folder", nargs="?", type=Path, default=REAL_PHOTOS)
    parser.add_argument("--synthetic", type=int, default=500, metavar="N")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--progress", type=int, default=0, metavar="K",
                        help="print running totals every K rendered tables")
    parser.add_argument("--jobs", type=int, default=1, metavar="J",
                        help="render and read the tables in J processes (same results)")
    parser.add_argument("--size", default="1920x1080", metavar="WxH",
                        help="render the tables at this size, e.g. 4000x3000 (default 1920x1080)")
    args = parser.parse_args(argv)
    try:
        width, height = (int(side) for side in args.size.lower().split("x"))
    except ValueError:
        parser.error(f"--size must be WIDTHxHEIGHT, got {args.size!r}")
    if width < 64 or height < 64:
        parser.error(f"--size must be at least 64x64, got {args.size!r}")
    scores, seconds = score_folder(args.folder)
    sys.stdout.flush()
    report(f"labelled folder {args.folder.resolve().name}", scores, seconds)
    if args.synthetic > 0:
        synthetic = score_synthetic(args.synthetic, args.seed, args.progress, args.jobs, (width, height))
        if synthetic is None:
            print("rendered tables: skipped (vision.synth is not in this checkout)")
        else:
            report(f"rendered {width}x{height} tables, seeds {args.seed}..{args.seed + args.synthetic - 1}",
                   *synthetic)
    return 0


if __name__ == "__main__":
    sys.exit(main())
