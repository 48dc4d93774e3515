"""The work of `make model` with glibc's malloc as it comes and with the memory each piece of work
frees kept for the next (`vision.train.heap`), side by side.

    python -m benchmarks.training_heap [--tables N] [--finder-steps S] [--reader-steps R]
        [--rounds K] [--jobs J] [--json FILE]

This machine's speed wanders, so the two ways run one after the other, K rounds of each, not in
two runs apart:

- the rendering of N training tables and the shipped finder's harvest of them, in J worker
  processes as `make model` runs them (`vision.train.fit.each_table`), each worker with glibc's
  defaults or keeping its heap for life (`keep_heap`); timed by the wall clock, with the workers'
  page faults and the largest peak resident size of any worker;
- then S steps of `vision.train.finder.fit_finder` and R of `vision.train.fit.train` from their
  start on those tables, as the recipe runs them (its precision; J threads, 2 in the recipe),
  outside or inside `reused_heap`; timed by the wall clock and this process's page faults.

The table gives each way's fastest round and the ratio of glibc's defaults to the heap kept. The
arithmetic is the same both ways (a test checks that the fitted weights are). Needs the `train`
extra (`make train-deps`).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch

from benchmarks.process_memory import status_bytes
from vision.tilenet import MODEL_DIR
from vision.train.finder import FinderSamples, fit_finder
from vision.train.fit import FIRST_SEED, each_table, harvested, prepared, train
from vision.train.harvest import Harvest
from vision.train.heap import can_keep_heap
from vision.train.precision import default_precision

WAYS = {"glibc's defaults": False, "heap kept": True}  # name: reuse_heap, keep_worker_heaps
POOLED = ("rendering", "harvest")  # the work `make model` spreads over its workers (`each_table`)


def _timed(fit: Callable[[bool], object], reuse_heap: bool) -> dict[str, float]:
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    started = time.perf_counter()
    fit(reuse_heap)
    return {"seconds": time.perf_counter() - started,
            "page_faults": resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults}


def _peak_resident_bytes() -> int:
    """This process's peak resident size: `VmHWM` (`benchmarks.process_memory`), the new
    interpreter's own, where Linux's `ru_maxrss` would count the pages of the parent a spawned
    worker was forked from. Without /proc (macOS), `ru_maxrss`, which is bytes there."""
    try:
        return status_bytes("VmHWM")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _with_usage(work: Callable[[int], Any], seed: int) -> tuple[Any, int, int, int]:
    """`work(seed)`, with the worker's process id, peak resident bytes and page faults so far."""
    answer = work(seed)
    return answer, os.getpid(), _peak_resident_bytes(), resource.getrusage(resource.RUSAGE_SELF).ru_minflt


Runs = dict[str, list[dict[str, float]]]  # way: each round's figures


def _pooled(work: Callable[[int], Any], seeds: list[int], jobs: int,
            keep: bool) -> tuple[list[Any], dict[str, float]]:
    """Every seed's answer from `each_table`'s workers as `make model` runs them, and the run's
    wall time, its workers' largest peak resident size and their page faults."""
    started = time.perf_counter()
    got = list(each_table(partial(_with_usage, work), seeds, jobs, "", keep_worker_heaps=keep))
    seconds = time.perf_counter() - started
    faults: dict[int, int] = {}
    for _, pid, _, pid_faults in got:
        faults[pid] = max(faults.get(pid, 0), pid_faults)
    return [answer for answer, *_ in got], {"seconds": seconds, "worker_peak_bytes": max(g[2] for g in got),
                                            "page_faults": sum(faults.values())}


def measure(tables: int, finder_steps: int, reader_steps: int, rounds: int, jobs: int) -> dict[str, Any]:
    """The rendering and the harvest of `tables` tables in `jobs` workers, then each fit on them,
    `rounds` rounds each way, in turn."""
    seeds = list(range(FIRST_SEED, FIRST_SEED + tables))
    precision = default_precision()
    figures: dict[str, Any] = {"tables": tables, "precision": precision, "threads": torch.get_num_threads(),
                               "jobs": jobs, "steps": {"finder": finder_steps, "reader": reader_steps},
                               "rounds": rounds, "heap_kept_possible": can_keep_heap()}
    pooled: dict[str, Runs] = {part: {way: [] for way in WAYS} for part in POOLED}
    with tempfile.TemporaryDirectory(prefix="domino-heap-") as temporary:
        for turn in range(rounds):
            for way, keep in WAYS.items():
                folder = Path(temporary) / f"{turn}-{int(keep)}"  # rendered afresh each time
                folder.mkdir()
                patches, got = _pooled(partial(prepared, folder=folder), seeds, jobs, keep)
                pooled["rendering"][way].append(got)
                crops, got = _pooled(partial(harvested, folder=folder, finder_dir=MODEL_DIR), seeds, jobs,
                                     keep)
                pooled["harvest"][way].append(got)
                shutil.rmtree(folder)
    samples = FinderSamples.concatenate(iter(patches), expected_parts=len(seeds))
    data = Harvest.concatenate(iter(crops), expected_parts=len(seeds))
    fits: dict[str, Callable[[bool], object]] = {
        "finder": lambda reuse: fit_finder(samples, steps=finder_steps, precision=precision,
                                           reuse_heap=reuse),
        # As many epochs as steps, so that the fit runs all `reader_steps` however few tables give crops.
        "reader": lambda reuse: train(data, np.arange(len(data.kind)), epochs=reader_steps,
                                      max_steps=reader_steps, precision=precision, reuse_heap=reuse),
    }
    for part, part_runs in pooled.items():
        figures[part] = _fastest(part_runs)
    for name, fit in fits.items():
        runs: Runs = {way: [] for way in WAYS}
        for _ in range(rounds):
            for way, reuse in WAYS.items():
                runs[way].append(_timed(fit, reuse))
        figures[name] = _fastest(runs)
    return figures


def _fastest(runs: Runs) -> dict[str, Any]:
    return {way: {"rounds": got, "fastest_seconds": min(r["seconds"] for r in got)}
            for way, got in runs.items()}


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
    for name in (*POOLED, "finder", "reader"):
        ways = figures[name]
        base = ways["glibc's defaults"]["fastest_seconds"]
        what = (f"{name} in {args.jobs} workers" if name in POOLED
                else f"{name} {figures['steps'][name]} steps")
        for way, got in ways.items():
            faults = min(r["page_faults"] for r in got["rounds"])
            peak = (f"  a worker's peak {max(r['worker_peak_bytes'] for r in got['rounds']) / 1e6:5.0f} MB"
                    if name in POOLED else "")
            print(f"  {what:22s} {way:17s} {got['fastest_seconds']:7.1f} s  "
                  f"{faults:>10,d} page faults  {base / got['fastest_seconds']:.2f}x{peak}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
