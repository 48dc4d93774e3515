"""The fits of `make model` with glibc's malloc as it comes and inside `vision.train.heap.reused_heap`,
side by side.

    python -m benchmarks.training_heap [--tables N] [--finder-steps S] [--reader-steps R]
        [--rounds K] [--jobs J] [--json FILE]

Renders N training tables as `make model` renders them (into a temporary folder), gives the
finder their patches and the reader the shipped finder's harvest of them, then fits each network
from its start both ways in turn, K rounds of each (this machine's speed wanders, so the two ways
run one after the other, not in two runs apart): S steps of `vision.train.finder.fit_finder` and R
of `vision.train.fit.train`, as the recipe runs them (its precision; J threads, 2 in the recipe).
Each fit is timed by the wall clock and by the minor page faults it took (`getrusage`); the table
gives each way's fastest round and the ratio of glibc's defaults to the heap kept. The arithmetic
is the same both ways (a test checks that the fitted weights are). Needs the `train` extra
(`make train-deps`).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch

from vision.progress import each_in_order
from vision.tilenet import MODEL_DIR
from vision.train.finder import FinderSamples, fit_finder
from vision.train.fit import FIRST_SEED, harvested, prepared, train
from vision.train.harvest import Harvest
from vision.train.heap import can_keep_heap
from vision.train.precision import default_precision

WAYS = {"glibc's defaults": False, "heap kept": True}  # name: reuse_heap


def _timed(fit: Callable[[bool], object], reuse_heap: bool) -> dict[str, float]:
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    started = time.perf_counter()
    fit(reuse_heap)
    return {"seconds": time.perf_counter() - started,
            "page_faults": resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults}


def measure(tables: int, finder_steps: int, reader_steps: int, rounds: int, jobs: int) -> dict[str, Any]:
    """Each fit's rounds each way, on `tables` freshly rendered tables."""
    seeds = list(range(FIRST_SEED, FIRST_SEED + tables))
    precision = default_precision()
    with tempfile.TemporaryDirectory(prefix="domino-heap-") as temporary:
        folder = Path(temporary)
        samples = FinderSamples.concatenate(iter(each_in_order(partial(prepared, folder=folder), seeds, jobs,
                                                               what="rendered tables")),
                                            expected_parts=len(seeds))
        data = Harvest.concatenate(iter(each_in_order(partial(harvested, folder=folder, finder_dir=MODEL_DIR),
                                                      seeds, jobs, what="harvested tables")),
                                   expected_parts=len(seeds))
    fits: dict[str, Callable[[bool], object]] = {
        "finder": lambda reuse: fit_finder(samples, steps=finder_steps, precision=precision,
                                           reuse_heap=reuse),
        # As many epochs as steps, so that the fit runs all `reader_steps` however few tables give crops.
        "reader": lambda reuse: train(data, np.arange(len(data.kind)), epochs=reader_steps,
                                      max_steps=reader_steps, precision=precision, reuse_heap=reuse),
    }
    figures: dict[str, Any] = {"tables": tables, "precision": precision, "threads": torch.get_num_threads(),
                               "steps": {"finder": finder_steps, "reader": reader_steps}, "rounds": rounds}
    figures["heap_kept_possible"] = can_keep_heap()
    for name, fit in fits.items():
        runs: dict[str, list[dict[str, float]]] = {way: [] for way in WAYS}
        for _ in range(rounds):
            for way, reuse in WAYS.items():
                runs[way].append(_timed(fit, reuse))
        figures[name] = {way: {"rounds": got, "fastest_seconds": min(r["seconds"] for r in got)}
                         for way, got in runs.items()}
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.training_heap",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=60, help="training tables rendered (default 60)")
    parser.add_argument("--finder-steps", type=int, default=300)
    parser.add_argument("--reader-steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2, help="fits of each network each way (default 2)")
    parser.add_argument("--jobs", type=int, default=2,
                        help="processes rendering; threads fitting (default 2)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    if min(args.tables, args.finder_steps, args.reader_steps, args.rounds, args.jobs) < 1:
        parser.error("--tables, --finder-steps, --reader-steps, --rounds and --jobs must be >= 1")
    torch.set_num_threads(args.jobs)
    figures = measure(args.tables, args.finder_steps, args.reader_steps, args.rounds, args.jobs)
    if not figures["heap_kept_possible"]:
        print("the C library is not glibc: both ways are the same here", file=sys.stderr)
    print(f"{args.tables} tables, {figures['precision']}, {figures['threads']} threads, fastest of "
          f"{args.rounds} rounds each way, in turn")
    for name in ("finder", "reader"):
        ways = figures[name]
        base = ways["glibc's defaults"]["fastest_seconds"]
        for way, got in ways.items():
            faults = min(r["page_faults"] for r in got["rounds"])
            print(f"  {name} {figures['steps'][name]:5d} steps  {way:17s} {got['fastest_seconds']:7.1f} s  "
                  f"{faults:>10,d} page faults  {base / got['fastest_seconds']:.2f}x")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
