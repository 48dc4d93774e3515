"""Peak memory of joining a harvest's crops as `make model` joins them, against holding them first.

    python -m benchmarks.training_join [--tables 1500] [--jobs 2] [--json FILE]

Two processes (spawned, `vision.progress.worker_pool`) make one `vision.train.harvest.Harvest`
part a table, of random crops in the harvest's shapes and about its row counts (`ROWS`: 1,500
tables give about 2.1 GB of crops, as `make model`'s harvest does), and send each back to the main
process, which joins them in one of two ways, each in a fresh process of its own:

- `as they come`: `Rows.concatenate` over the pool's answers, what `vision.train.fit` does;
- `held, then joined`: the answers listed first, then `np.concatenate`, field by field (the way
  before, and what a plain script does).

Each way reports its peak resident memory (the process's high-water mark, `VmHWM`, as
`benchmarks.vision_speed` reads it: not `ru_maxrss`, which Linux carries over from the parent), the
memory resident before the parts came (`VmRSS`), and the ratio of the peak's growth to the bytes
joined: 1.0 is the physical floor (the joined arrays alone), 2.0 holds every byte twice. Linux
(`/proc`); needs no `train` extra.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import numpy as np

from benchmarks.process_memory import status_bytes
from vision.crops import CROP_HEIGHT, CROP_WIDTH, GEOMETRY_SIZE
from vision.progress import in_order, worker_pool
from vision.train.harvest import Harvest

ROWS = (180, 280)  # crops a part: about the harvest's 230 a table
WAYS = {"as they come": "stream", "held, then joined": "held"}


def part(seed: int) -> Harvest:
    """A table's part: random crops and labels of the harvest's shapes."""
    rng = np.random.default_rng(seed)
    rows = int(rng.integers(*ROWS))
    crops = rng.integers(0, 256, (rows, CROP_HEIGHT, CROP_WIDTH, 3), dtype=np.uint8)
    return Harvest(crops, kind=np.zeros(rows, np.int8), top=np.zeros(rows, np.int8),
                   bottom=np.zeros(rows, np.int8), geometry=np.zeros((rows, GEOMETRY_SIZE), np.float32),
                   has_geometry=np.zeros(rows, bool), image=np.full(rows, seed, np.int32))


def _held_then_joined(parts: list[Harvest]) -> Harvest:
    return Harvest(**{f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(Harvest)})


def joined_once(way: str, tables: int, jobs: int) -> dict[str, float]:
    """Join `tables` parts one `way` in this process; its figures (bytes)."""
    with worker_pool(jobs) as pool:
        before = status_bytes("VmRSS")
        answers = in_order(part, range(tables), pool, what=f"parts ({way})", unit="tables", chunksize=4)
        data = Harvest.concatenate(answers, expected_parts=tables) if way == "stream" else _held_then_joined(
            list(answers))
    joined = sum(getattr(data, f.name).nbytes for f in fields(Harvest))
    peak = status_bytes("VmHWM")
    return {"rows": len(data), "joined_bytes": joined, "resident_before": before, "peak_resident": peak,
            "growth_per_byte_joined": (peak - before) / joined}


def measure(tables: int, jobs: int) -> dict[str, dict[str, float]]:
    """Each way in a fresh process, so one's peak does not hide the other's."""
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (root, os.environ.get("PYTHONPATH"))))}
    figures = {}
    for name, way in WAYS.items():
        run = subprocess.run([sys.executable, "-m", "benchmarks.training_join", "--way", way, "--tables",
                              str(tables), "--jobs", str(jobs)], capture_output=True, text=True, check=True,
                             env=env)
        figures[name] = json.loads(run.stdout.strip().splitlines()[-1])
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1500)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", type=Path, default=None, help="write the figures here too")
    parser.add_argument("--way", choices=sorted(WAYS.values()), help=argparse.SUPPRESS)  # one way, here
    args = parser.parse_args(argv)
    if args.tables < 1 or args.jobs < 1:
        parser.error("--tables and --jobs must be >= 1")
    if args.way:
        print(json.dumps(joined_once(args.way, args.tables, args.jobs)))
        return 0
    figures = measure(args.tables, args.jobs)
    gb = 1e9
    for name, got in figures.items():
        print(f"{name:18s} {got['rows']:8d} rows, {got['joined_bytes'] / gb:5.2f} GB joined: peak "
              f"{got['peak_resident'] / gb:5.2f} GB ({got['resident_before'] / gb:4.2f} before), "
              f"{got['growth_per_byte_joined']:4.2f} x the bytes joined")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
