"""Where the reader loses a tile: the recall of each stage on widened held-out tables.

    python -m benchmarks.vision_candidates [--count N] [--seed S] [--jobs J] [--json FILE]

For each face-up tile of widened frames S..S+N-1 (`vision.synth.widened`, default 0..99, held
out from training), which stages it passed:

- `near`: some candidate of the finder (`vision.finder`), from either heat (the reader looks at
  both), has its centre inside the tile;
- `found`: ... and one frames it as the reader's training calls a tile's frame (centre within
  0.35 of a half-width across and 0.5 along, axis within 20 degrees, size within 0.6..1.65:
  `vision.train.harvest.label`);
- `settled`: after the reader's looks (`vision.pipeline.first_look` at every candidate, then
  `settle` from those it may see a face-up tile in) a frame holds the tile (centre
  within half a half-width, axis within 20 degrees);
- `read`: the reader's final answer (`read_image`) has the tile, values included;
- `at its frame`: the reader, shown the tile's true frame, reads it right and sure enough to keep
  (`Reading.is_tile`, and `read_image`'s `min_confidence`), with its second opinion when unsure,
  as the read asks it (`vision.pipeline.second_opinion`): what a perfect finder would leave to
  the reader.

It reports each stage's share of all tiles, broken down by camera, by textured surface and by
whether the frame still shows every pip of the tile (`legible`, `vision.synth.legibility`: a tile
whose pips glare or a webcam's grain wiped out is lost at its frame whatever the reader), so a
change to one stage can be measured where it matters.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.finder import shipped_finder
from vision.geometry import frame_from_corners
from vision.pipeline import MIN_CONFIDENCE, coarse, first_look, reading_at, second_opinion, settle
from vision.progress import each_in_order
from vision.read import read_image
from vision.tilenet import FACE_UP, shipped

STAGES = ("near", "found", "settled", "read", "at its frame")
SETTLED_REACH = 0.5  # half-widths: a settled frame this close to the tile's centre holds it
SETTLED_DEGREES = 20.0


def _inside(point: np.ndarray, corners: np.ndarray) -> bool:
    return cv2.pointPolygonTest(corners.reshape(-1, 1, 2).astype(np.float32),
                                (float(point[0]), float(point[1])), False) >= 0


def stage_of_seed(seed: int) -> dict[str, Any]:
    """Every face-up tile of widened frame `seed`: the stages it passed."""
    from vision.synth.legibility import LEGIBLE_CONTRAST, pip_contrasts
    from vision.synth.widened import widened_renderer
    from vision.train.harvest import Truth, label

    renderer, scene = widened_renderer(seed)
    frame = renderer.render(scene, seed)
    contrasts = pip_contrasts(renderer, frame, seed)
    labels = frame.labels
    max_pip = int(labels["max_pip"])  # type: ignore[call-overload]
    net = shipped()
    picture = coarse(frame.image)
    found = [f.frame for f in shipped_finder().find(picture.image)]
    settled = settle(net, picture, first_look(net, picture, found).holding(FACE_UP)).frames
    view = read_image(frame.image, max_pip=max_pip)
    seen = [(t.a, t.b, frame_from_corners(t.corners)) for t in view.tiles]
    tiles = []
    for tile, contrast in zip(labels["tiles"], contrasts, strict=True):  # type: ignore[call-overload]
        corners = np.array(tile["corners"], np.float32) * picture.factor
        truth = frame_from_corners(corners)
        passed = {"near": any(_inside(f.center, corners) for f in found)}
        passed["found"] = any(label(f, [Truth(truth, FACE_UP, tile["a"], tile["b"])])[0] == FACE_UP
                              for f in found)
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
        at_truth = second_opinion(net, picture, [truth], net.read(picture.crops([truth])), max_pip=max_pip)
        reading = reading_at(truth, at_truth, 0, max_pip)
        passed["at its frame"] = ({reading.top, reading.bottom} == {tile["a"], tile["b"]}
                                  and reading.is_tile() and reading.confidence >= MIN_CONFIDENCE)
        tiles.append({"tile": tile["tile"], "passed": passed, "half_width": truth.half_width,
                      "legible": contrast >= LEGIBLE_CONTRAST})
    return {"seed": seed, "camera": labels["camera"], "textured": labels["textured"],
            "surface": labels["surface"], "candidates": len(found), "tiles": tiles}


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    groups: dict[str, dict[str, list[int]]] = defaultdict(lambda: {s: [0, 0] for s in STAGES})
    for result in results:
        keys = ["all", f"camera={result['camera']}", f"textured={result['textured']}"]
        for tile in result["tiles"]:
            for key in [*keys, f"legible={tile['legible']}"]:
                for stage in STAGES:
                    groups[key][stage][0] += bool(tile["passed"][stage])
                    groups[key][stage][1] += 1
    return {key: {stage: {"passed": p, "tiles": n, "share": p / n if n else 0.0}
                  for stage, (p, n) in stages.items()} for key, stages in sorted(groups.items())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.vision_candidates")
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
    results = each_in_order(stage_of_seed, seeds, args.jobs, what="widened tables")
    summary = summarise(results)
    print(f"widened seeds {args.seed}..{args.seed + args.count - 1}: share of face-up tiles past each stage")
    print(f"{'group':<22}{'tiles':>7}" + "".join(f"{s:>14}" for s in STAGES))
    for key, stages in summary.items():
        shares = "".join(f"{stages[s]['share']:>14.3f}" for s in STAGES)
        print(f"{key:<22}{stages['read']['tiles']:>7}{shares}")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "images": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
