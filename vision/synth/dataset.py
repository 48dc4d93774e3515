"""Write a labelled synthetic dataset: images plus labels.json for `domino-referee vision eval`.

    python -m vision.synth.dataset --out DIR --count N --seed S [--width 1920 --height 1080] [--widened]

Image i is drawn from seed S + i alone, so any single image can be re-rendered by itself.
`--widened` draws from the widened renderer (`vision.synth.widened`: textured and cluttered
tables, sets of every colour, poor webcams, shrink-wrap, hard shadows, double-nine and
double-twelve sets), whose labels also name each image's surface, clutter and family.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.progress import progress
from vision.synth.random_scenes import random_layout, random_scene
from vision.synth.scene import Frame, Renderer
from vision.synth.style import random_style
from vision.synth.widened import render_widened

LABELS_FORMAT = "domino-vision-labels"


def render_example(seed: int, size: tuple[int, int] = (1920, 1080), max_pip: int = 6,
                   tidied_share: float = 0.0) -> Frame:
    """The dataset's image number `seed`: a random style, table and scene (`tidied_share`: see
    `random_scene`)."""
    rng = np.random.default_rng(seed)
    style = random_style(rng)
    scene = random_scene(rng, random_layout(rng), max_pip=max_pip, tidied_share=tidied_share)
    return Renderer(style, size, seed=int(rng.integers(1 << 31)), layout=scene.layout).render(scene, seed)


def write_dataset(
    out: Path,
    count: int,
    seed: int = 0,
    size: tuple[int, int] = (1920, 1080),
    max_pip: int | None = 6,
    widened: bool = False,
) -> dict[str, object]:
    """Render images seed..seed+count-1 into `out` with their labels.json. `max_pip` None: the
    plain dataset's double-six, or the widened renderer's own mix of sets."""
    out.mkdir(parents=True, exist_ok=True)
    images: dict[str, object] = {}
    for i in progress(range(count), total=count, what="rendering"):
        if widened:
            frame = render_widened(seed + i, size, max_pip)
        else:
            frame = render_example(seed + i, size, 6 if max_pip is None else max_pip)
        name = f"{'widened' if widened else 'synth'}-{seed + i:06d}.jpg"
        if not cv2.imwrite(str(out / name), frame.image, [cv2.IMWRITE_JPEG_QUALITY, 95]):
            raise OSError(f"cannot write {out / name}")
        images[name] = frame.labels
    labels = {
        "format": LABELS_FORMAT,
        "version": 1,
        "note": f"Synthetic tables rendered by vision.synth{' (widened)' if widened else ''}, "
        f"seeds {seed}..{seed + count - 1}, "
        f"{size[0]}x{size[1]}; corners are exact image pixels, clockwise, a-half edge first.",
        "images": images,
    }
    (out / "labels.json").write_text(json.dumps(labels, indent=1) + "\n")
    return labels


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.synth.dataset", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--out", type=Path, required=True, help="folder to write images and labels.json into")
    parser.add_argument("--count", type=int, default=500, help="number of images (default 500)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first image (default 0)")
    parser.add_argument("--width", type=int, default=1920)
    parser.add_argument("--height", type=int, default=1080)
    parser.add_argument(
        "--max-pip",
        type=int,
        default=None,
        choices=(6, 9, 12),
        help="set: double-six/nine/twelve (default: double-six; with --widened, its own mix)",
    )
    parser.add_argument(
        "--widened", action="store_true", help="draw from the widened renderer (vision.synth.widened)"
    )
    args = parser.parse_args(argv)
    if args.count < 1 or args.width < 64 or args.height < 64:
        parser.error("--count must be >= 1 and the frame at least 64 x 64")
    write_dataset(args.out, args.count, args.seed, (args.width, args.height), args.max_pip, args.widened)
    print(f"wrote {args.count} images and labels.json to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
