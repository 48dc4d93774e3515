"""Where the reader loses a tile: the recall of each stage on widened held-out tables.

    python -m benchmarks.vision_candidates [--count N] [--seed S] [--one-set] [--jobs J] [--json FILE]

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
- `read`: the reader's final answer (`read_image`; with `--one-set`, told the table shows one
  set, as the service reads) has the tile, values included;
- `at its frame`: the reader, shown the tile's true frame, reads it right and sure enough to keep
  (`Reading.is_tile`, and `read_image`'s `min_confidence`), with its second opinion when unsure,
  as the read asks it (`vision.pipeline.second_opinion`): what a perfect finder would leave to
  the reader.

It reports each stage's share of all tiles, broken down by camera, by textured surface and by
whether the frame still shows every pip of the tile (`legible`, `vision.synth.legibility`: a tile
whose pips glare or a webcam's grain wiped out is lost at its frame whatever the reader), so a
change to one stage can be measured where it matters. Each tile the read loses is also given the
first of `LOSSES` that holds for it (`why_lost`): the reader's fault, or the framing's.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict
from functools import partial
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
# Why a tile the read lost was lost, the first that holds: its pips no longer show; the read put
# another tile there; shown its true frame, the reader reads other pips, or the right ones but not
# sure enough to keep them; or it reads it right there, and the finder and the looks never framed it.
LOSSES = ("illegible", "read as another tile", "misread at its frame", "unsure at its frame", "framing")
SETTLED_REACH = 0.5  # half-widths: a settled frame this close to the tile's centre holds it
SETTLED_DEGREES = 20.0


def _inside(point: np.ndarray, corners: np.ndarray) -> bool:
    return cv2.pointPolygonTest(corners.reshape(-1, 1, 2).astype(np.float32),
                                (float(point[0]), float(point[1])), False) >= 0


def why_lost(passed: dict[str, bool], legible: bool, other_tile_there: bool,
             right_at_frame: bool) -> str | None:
    """The first of `LOSSES` that holds for a tile with these stages `passed`; None if it was read."""
    if passed["read"]:
        return None
    if not legible:
        return "illegible"
    if other_tile_there:
        return "read as another tile"
    if not right_at_frame:
        return "misread at its frame"
    if not passed["at its frame"]:
        return "unsure at its frame"
    return "framing"


def stage_of_seed(seed: int, one_set: bool = False) -> dict[str, Any]:
    """Every face-up tile of widened frame `seed`: the stages it passed, and why it was lost."""
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
    view = read_image(frame.image, max_pip=max_pip, one_set=one_set)
    seen = [(t.a, t.b, frame_from_corners(t.corners)) for t in view.tiles]
    tiles = []
    for tile, contrast in zip(labels["tiles"], contrasts, strict=True):  # type: ignore[call-overload]
        values = {tile["a"], tile["b"]}
        input_corners = np.array(tile["corners"], np.float32)
        corners = input_corners * picture.factor
        truth = frame_from_corners(corners)
        passed = {"near": any(_inside(f.center, corners) for f in found)}
        passed["found"] = any(label(f, [Truth(truth, FACE_UP, tile["a"], tile["b"])])[0] == FACE_UP
                              for f in found)
        passed["settled"] = any(
            float(np.linalg.norm(f.center - truth.center)) < SETTLED_REACH * truth.half_width
            and abs(float(np.dot(f.across, truth.across))) > math.cos(math.radians(SETTLED_DEGREES))
            for f in settled
        )
        in_input = frame_from_corners(input_corners)
        passed["read"] = any(
            {top, bottom} == values
            and float(np.linalg.norm(f.center - in_input.center)) < SETTLED_REACH * in_input.half_width
            for top, bottom, f in seen
        )
        at_truth = second_opinion(net, picture, [truth], net.read(picture.crops([truth])), max_pip=max_pip)
        reading = reading_at(truth, at_truth, 0, max_pip)
        right_at_frame = {reading.top, reading.bottom} == values
        passed["at its frame"] = right_at_frame and reading.is_tile() and reading.confidence >= MIN_CONFIDENCE
        other_tile_there = any({top, bottom} != values and _inside(f.center, input_corners)
                               for top, bottom, f in seen)
        legible = bool(contrast >= LEGIBLE_CONTRAST)
        lost = why_lost(passed, legible, other_tile_there, right_at_frame)
        tiles.append({"tile": tile["tile"], "passed": passed, "half_width": truth.half_width,
                      "legible": legible, "why_lost": lost})
    return {"seed": seed, "camera": labels["camera"], "textured": labels["textured"],
            "surface": labels["surface"], "candidates": len(found), "tiles": tiles}


def _groups(result: dict[str, Any]) -> list[str]:
    """The groups every tile of one table's `result` counts in: all, its camera, its surface."""
    return ["all", f"camera={result['camera']}", f"textured={result['textured']}"]


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    groups: dict[str, dict[str, list[int]]] = defaultdict(lambda: {s: [0, 0] for s in STAGES})
    for result in results:
        for tile in result["tiles"]:
            for key in [*_groups(result), f"legible={tile['legible']}"]:
                for stage in STAGES:
                    groups[key][stage][0] += bool(tile["passed"][stage])
                    groups[key][stage][1] += 1
    return {key: {stage: {"passed": p, "tiles": n, "share": p / n if n else 0.0}
                  for stage, (p, n) in stages.items()} for key, stages in sorted(groups.items())}


def lost_by_reason(results: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """How many tiles each reason of `LOSSES` lost: over all, by camera and by textured surface
    (`summarise`'s groups but legibility, which is a reason of its own here)."""
    groups: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(LOSSES, 0))
    for result in results:
        for tile in result["tiles"]:
            if tile["why_lost"] is not None:
                for key in _groups(result):
                    groups[key][tile["why_lost"]] += 1
    return dict(sorted(groups.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.vision_candidates")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--one-set", action="store_true", help="read each table told it shows one set")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    try:
        import vision.synth.widened  # noqa: F401
    except ImportError:
        print("vision.synth is not installed: nothing to render", file=sys.stderr)
        return 1
    seeds = range(args.seed, args.seed + args.count)
    results = each_in_order(partial(stage_of_seed, one_set=args.one_set), seeds, args.jobs,
                            what="widened tables")
    summary = summarise(results)
    told = ", told each shows one set" if args.one_set else ""
    print(f"widened seeds {args.seed}..{args.seed + args.count - 1}{told}: "
          "share of face-up tiles past each stage")
    print(f"{'group':<22}{'tiles':>7}" + "".join(f"{s:>14}" for s in STAGES))
    for key, stages in summary.items():
        shares = "".join(f"{stages[s]['share']:>14.3f}" for s in STAGES)
        print(f"{key:<22}{stages['read']['tiles']:>7}{shares}")
    lost = lost_by_reason(results)
    print("tiles lost, by why (`LOSSES`: the first that holds)")
    print(f"{'group':<22}" + "".join(f"{reason:>22}" for reason in LOSSES))
    for key, counts in lost.items():
        print(f"{key:<22}" + "".join(f"{counts[reason]:>22}" for reason in LOSSES))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "lost": lost, "images": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
