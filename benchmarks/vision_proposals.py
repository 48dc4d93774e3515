"""Where the reader loses a tile: the recall of each stage on widened held-out tables.

    python -m benchmarks.vision_proposals [--count N] [--seed S] [--jobs J] [--json FILE]

For each face-up tile of widened frames S..S+N-1 (`vision.synth.widened`, default 0..99, held
out from training), the first stage that loses it:

- `scale`: the pip size the working image was made for (`vision.proposals.work_image`) is off the
  tile's own (`PIP_PER_HALF_WIDTH` of its half-width) by more than `SCALE_DOUBT`;
- `proposed`: some proposal (`vision.proposals.propose`) has its centre inside the tile;
- `gated`: ... and one of those passes the gate (`TileNet.gate`);
- `settled`: after the looks (`vision.pipeline.settle`) a frame holds the tile (centre within
  half a half-width, axis within 20 degrees);
- `read`: the reader's final answer (`read_image`) has the tile, values included.

It reports each stage's share of all tiles, broken down by camera and by textured surface, so a
change to one stage can be measured where it matters. Proposals are counted at the first working
scale only; `read` is the whole reader (which may read again at another scale).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.crops import crops
from vision.geometry import frame_from_corners
from vision.marks import SCALE_DOUBT
from vision.pipeline import settle
from vision.progress import progress
from vision.proposals import PIP_PER_HALF_WIDTH, propose, work_image
from vision.read import read_image
from vision.tilenet import GATE_MAX_NOT_A_TILE, shipped

STAGES = ("scale", "proposed", "gated", "settled", "read")
SETTLED_REACH = 0.5  # half-widths: a settled frame this close to the tile's centre holds it
SETTLED_DEGREES = 20.0


def _inside(point: np.ndarray, corners: np.ndarray) -> bool:
    return cv2.pointPolygonTest(corners.reshape(-1, 1, 2).astype(np.float32),
                                (float(point[0]), float(point[1])), False) >= 0


def stage_of_seed(seed: int) -> dict[str, Any]:
    """Every face-up tile of widened frame `seed`: the stages it passed."""
    from vision.synth.widened import render_widened

    frame = render_widened(seed)
    labels = frame.labels
    net = shipped()
    work = work_image(frame.image)
    frames = propose(work)
    batch = crops(work.image, frames, work.shrunk)
    through = net.gate(batch) < GATE_MAX_NOT_A_TILE if frames else np.zeros(0, bool)
    gated = [f for f, ok in zip(frames, through, strict=True) if ok]
    settled, _, _ = settle(net, work, gated, batch[through]) if gated else ([], None, [])
    view = read_image(frame.image, max_pip=int(labels["max_pip"]))  # type: ignore[call-overload]
    seen = [(t.a, t.b, frame_from_corners(t.corners)) for t in view.tiles]
    tiles = []
    for tile in labels["tiles"]:  # type: ignore[attr-defined]
        corners = work.from_input(np.array(tile["corners"], np.float32))
        truth = frame_from_corners(corners)
        own_pip = PIP_PER_HALF_WIDTH * truth.half_width
        passed = {"scale": abs(math.log(own_pip / work.pip)) <= math.log(SCALE_DOUBT)}
        near = [i for i, f in enumerate(frames) if _inside(f.center, corners)]
        passed["proposed"] = bool(near)
        passed["gated"] = any(bool(through[i]) for i in near)
        passed["settled"] = any(
            float(np.linalg.norm(f.center - truth.center)) < SETTLED_REACH * truth.half_width
            and abs(float(np.dot(f.across, truth.across))) > math.cos(math.radians(SETTLED_DEGREES))
            for f in settled
        )
        in_input = frame_from_corners(np.array(tile["corners"], np.float32))
        passed["read"] = any(
            {top, bottom} == {tile["a"], tile["b"]}
            and float(np.linalg.norm(f.center - in_input.center)) < SETTLED_REACH * in_input.half_width
            for top, bottom, f in seen
        )
        tiles.append({"tile": tile["tile"], "passed": passed, "half_width_work": truth.half_width})
    return {"seed": seed, "camera": labels["camera"], "textured": labels["textured"],
            "surface": labels["surface"], "pip_work": work.pip, "proposals": len(frames),
            "tiles": tiles}


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    groups: dict[str, dict[str, list[int]]] = defaultdict(lambda: {s: [0, 0] for s in STAGES})
    for result in results:
        keys = ["all", f"camera={result['camera']}", f"textured={result['textured']}"]
        for tile in result["tiles"]:
            for key in keys:
                for stage in STAGES:
                    groups[key][stage][0] += bool(tile["passed"][stage])
                    groups[key][stage][1] += 1
    return {key: {stage: {"passed": p, "tiles": n, "share": p / n if n else 0.0}
                  for stage, (p, n) in stages.items()} for key, stages in sorted(groups.items())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.vision_proposals")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    try:
        import vision.synth.widened  # noqa: F401
    except ImportError:
        print("vision.synth is not installed: nothing to render", file=sys.stderr)
        return 1
    seeds = range(args.seed, args.seed + args.count)
    pool = multiprocessing.get_context("spawn").Pool(args.jobs) if args.jobs > 1 else None
    results_iter = pool.imap(stage_of_seed, seeds) if pool else map(stage_of_seed, seeds)
    results = list(progress(results_iter, total=args.count, what="widened tables"))
    if pool:
        pool.close()
    summary = summarise(results)
    print(f"widened seeds {args.seed}..{args.seed + args.count - 1}: share of face-up tiles past each stage")
    print(f"{'group':<22}{'tiles':>7}" + "".join(f"{s:>10}" for s in STAGES))
    for key, stages in summary.items():
        shares = "".join(f"{stages[s]['share']:>10.3f}" for s in STAGES)
        print(f"{key:<22}{stages['read']['tiles']:>7}{shares}")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "images": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
