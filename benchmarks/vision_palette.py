"""Does the reader count pips or read their colours? Tables of coloured-pip sets read twice.

    python -m benchmarks.vision_palette [--count N] [--seed S] [--jobs J] [--json FILE]

Sets with a colour per value print different palettes: one maker's 5 is another's 3. Of widened
frames S..S+N-1 (`vision.synth.widened`, default 0..999, held out from training), those whose set
has coloured pips are rendered with their own palette and once more with its colours moved to
other values (`moved`: each value takes the colour of the value `SHIFT` above it, wrapping round,
so no value keeps its own), and each picture is read told one set. A reader that learned which
colour is which value loses or misreads tiles on the second. One that counts loses a little too:
a pale colour moved onto a value of many pips leaves more pips to miss.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from vision.evaluate import score_image
from vision.progress import each_in_order
from vision.read import read_image

SHIFT = 5  # each value takes the colour of the value this many above it (1..12, wrapping round)
CONDITIONS = ("own palette", "colours moved")


def moved(palette: tuple[Any, ...]) -> tuple[Any, ...]:
    """`palette` (value 0's colour first) with each value 1..n taking the colour of the value
    `SHIFT` above it, wrapping round n: no value keeps its colour."""
    values = len(palette) - 1
    return (palette[0], *(palette[(v - 1 + SHIFT) % values + 1] for v in range(1, values + 1)))


def read_seed(seed: int) -> dict[str, Any] | None:
    """Widened frame `seed` read with its palette and with its colours moved; None when its set's
    pips are not coloured, or it holds no face-up tile."""
    from vision.synth.style import PIP_PALETTE
    from vision.synth.widened import widened_renderer

    renderer, scene = widened_renderer(seed)
    style = renderer.style
    if style.pips not in ("coloured", "coloured_bright") or not scene.tiles:
        return None
    out: dict[str, Any] = {"seed": seed}
    for condition in CONDITIONS:
        if condition == "colours moved":
            renderer.style = style.replace(pip_palette=moved(style.pip_palette or PIP_PALETTE))
        frame = renderer.render(scene, seed)
        view = read_image(frame.image, max_pip=int(frame.labels["max_pip"]), one_set=True)  # type: ignore[call-overload]
        score = score_image(str(seed), view.to_json(), frame.labels)
        out[condition] = {"right": score.true_positives, "seen": score.predicted,
                          "labelled": score.labelled, "exact": score.exact,
                          "missing": score.missing, "extra": score.extra}
    return out


def summarise(results: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    summary = {}
    for condition in CONDITIONS:
        rows = [r[condition] for r in results]
        right, seen = sum(r["right"] for r in rows), sum(r["seen"] for r in rows)
        summary[condition] = {"images": len(rows), "tiles_right": right, "tiles_seen": seen,
                              "tiles_labelled": sum(r["labelled"] for r in rows), "false_tiles": seen - right,
                              "exact_images": sum(bool(r["exact"]) for r in rows)}
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.vision_palette", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=1000, metavar="N")
    parser.add_argument("--seed", type=int, default=0, metavar="S")
    parser.add_argument("--jobs", type=int, default=1, metavar="J")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every figure to FILE")
    args = parser.parse_args(argv)
    try:
        import vision.synth.widened  # noqa: F401
    except ImportError:
        print("vision_palette: vision.synth is not installed: nothing to render")
        return 1
    seeds = range(args.seed, args.seed + args.count)
    answers = each_in_order(read_seed, seeds, args.jobs, what="widened frames")
    results = [r for r in answers if r is not None]
    summary = summarise(results)
    print(f"widened frames {seeds.start}..{seeds.stop - 1}: {len(results)} of coloured-pip sets, "
          f"told one set")
    print(f"  {'palette':<16}{'tiles right':>14}{'false':>7}{'exact':>10}")
    for condition, figures in summary.items():
        print(f"  {condition:<16}{figures['tiles_right']:>8}/{figures['tiles_labelled']:<5}"
              f"{figures['false_tiles']:>7}{figures['exact_images']:>6}/{figures['images']}")
    if args.json:
        args.json.write_text(json.dumps({"argv": sys.argv[1:] if argv is None else argv,
                                         "summary": summary, "images": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
