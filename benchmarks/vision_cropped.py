"""Pictures cropped to one tile: is a tile read when it fills the picture?

    python -m benchmarks.vision_cropped [DIR [--labels FILE]] [--tables N] [--seed S]
                                        [--widened N [--widened-seed S]] [--json FILE]

A dataset of single tiles, a close-up, a robot's camera over one tile: the picture holds one tile
and little round it. Each tile is cut out of a bigger picture `LENGTHS` px long, upright, on its
side and turned 45 degrees in its crop (`TURNS`), with no margin (the crop's edge is the tile's
outline, or its bounding box when turned) and with `MARGIN` of its length of what lay round it
on every side, and read with its set's `max_pip`:

- the tiles of N rendered tables (`vision.synth.dataset.render_example`, seeds S..S+N-1; default
  3 tables from seed 0, held out from training), cut from their labelled corners;
- with `--widened N`, the face-up tiles of N widened tables (`vision.synth.widened`, seeds
  S..S+N-1 from `--widened-seed`, default 30000, which no training, tuning or held-out set uses:
  every set, surface, light and webcam), cut from their labelled corners, each read with its
  set's `max_pip`;
- the tiles of the labelled photos of DIR (default: the shared real photos; `--labels` as in
  `benchmarks.vision_accuracy`) that the whole photo's read gets right, cut from the corners that
  read found: the labels name a photo's tiles, not where they lie. The reader's frame hugs the
  tile's face, so a crop with no margin cuts a real tile's rim.

Each condition reports the crops read as exactly their tile, as nothing, and as anything else
(another tile, or more than one).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import cv2
import numpy as np

from benchmarks.vision_accuracy import add_folder_arguments
from vision.evaluate import label_max_pip, labelled_image, load_labels
from vision.progress import progress
from vision.read import read_image

LENGTHS = (60, 120, 300)  # px, the tile's length in its crop: a thumbnail, a small crop, a close-up
TURNS = (0.0, 90.0, 45.0)  # degrees the tile is turned in its crop
MARGIN = 0.1  # of the tile's length, round its bounding box, in the crops that have one
DEFAULT_MAX_PIP = 6  # a labelled photo's set, unless its labels say otherwise
OUTCOMES = ("read", "nothing", "other")
# Widened tables no training (seeds 1,000,000 on), tuning (10000-10899) or held-out (0-999) set uses.
WIDENED_SEED = 30000


@dataclass(frozen=True)
class Condition:
    length: int
    turn: float
    margin: float

    @property
    def name(self) -> str:
        return f"{self.length} px, turned {self.turn:g} deg, margin {self.margin:g}"


CONDITIONS = tuple(Condition(length, turn, margin)
                   for length in LENGTHS for turn in TURNS for margin in (0.0, MARGIN))


def cropped(image: np.ndarray, corners: np.ndarray, condition: Condition) -> tuple[np.ndarray, np.ndarray]:
    """`image` cut to the tile at `corners` ((4, 2) clockwise, a-half first) as `condition` says,
    and where the tile's corners lie in the crop. What lies beyond `image` repeats its edge."""
    length = float(condition.length)
    width = length / 2
    upright = np.array([[-width / 2, -length / 2], [width / 2, -length / 2],
                        [width / 2, length / 2], [-width / 2, length / 2]], np.float32)
    angle = math.radians(condition.turn)
    rotation = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]], np.float32)
    placed = upright @ rotation.T
    low, high = placed.min(axis=0), placed.max(axis=0)
    margin = condition.margin * length
    placed = (placed - low + margin).astype(np.float32)
    size = (round(float(high[0] - low[0]) + 2 * margin), round(float(high[1] - low[1]) + 2 * margin))
    to_crop = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), placed)
    crop = cv2.warpPerspective(image, to_crop, size, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    return crop, placed


def outcome(crop: np.ndarray, tile: str, max_pip: int) -> str:
    """What reading `crop` gave: the tile alone ("read"), no tile ("nothing") or anything else."""
    seen = [t.tile for t in read_image(crop, max_pip=max_pip).tiles]
    return "read" if seen == [tile] else "nothing" if not seen else "other"


@dataclass(frozen=True)
class Picture:
    """A picture and the tiles in it to crop: each tile's name and (4, 2) corners."""

    name: str
    image: np.ndarray
    tiles: list[tuple[str, np.ndarray]]
    max_pip: int


def labelled_picture(name: str, frame: Any, max_pip: int) -> Picture:
    """A rendered frame (`vision.synth.scene.Frame`) with every labelled tile at its labelled corners."""
    labelled = cast(list[dict[str, Any]], frame.labels["tiles"])
    tiles = [(t["tile"], np.array(t["corners"], np.float32)) for t in labelled]
    return Picture(name, frame.image, tiles, max_pip)


def rendered_pictures(seeds: range) -> Iterator[Picture]:
    from vision.synth.dataset import render_example

    for seed in seeds:
        yield labelled_picture(f"table {seed}", render_example(seed), DEFAULT_MAX_PIP)


def widened_pictures(seeds: range) -> Iterator[Picture]:
    from vision.synth.widened import render_widened

    for seed in seeds:
        frame = render_widened(seed)
        yield labelled_picture(f"widened {seed}", frame, int(cast(int, frame.labels["max_pip"])))


def photo_pictures(folder: Path, labels_file: Path | None = None) -> Iterator[Picture]:
    """Each labelled photo, with the tiles the whole photo's read gets right where it found them."""
    for name, label in sorted(load_labels(folder, labels_file).items()):
        image = labelled_image(folder, name, label)
        max_pip = label_max_pip(label, DEFAULT_MAX_PIP)
        left = Counter(t["tile"] for t in label.get("tiles", []))
        tiles = []
        for seen in read_image(image, max_pip=max_pip).tiles:
            if left[seen.tile] > 0:
                left[seen.tile] -= 1
                tiles.append((seen.tile, seen.corners))
        yield Picture(name, image, tiles, max_pip)


def run(pictures: Iterable[Picture], total: int,
        conditions: tuple[Condition, ...] = CONDITIONS) -> dict[Condition, Counter[str]]:
    """How each crop of each tile of `pictures` (`total` of them, one in memory at a time) under
    each of `conditions` was read."""
    counts: dict[Condition, Counter[str]] = {c: Counter() for c in conditions}
    for picture in progress(pictures, total=total, what="pictures"):
        for tile, corners in picture.tiles:
            for condition in conditions:
                crop, _ = cropped(picture.image, corners, condition)
                counts[condition][outcome(crop, tile, picture.max_pip)] += 1
    return counts


def to_json(counts: dict[Condition, Counter[str]]) -> list[dict[str, Any]]:
    return [{"length": c.length, "turn": c.turn, "margin": c.margin,
             **{o: counts[c][o] for o in OUTCOMES}} for c in counts]


def report(counts: dict[Condition, Counter[str]], title: str) -> None:
    tiles = sum(next(iter(counts.values())).values()) if counts else 0
    print(f"{title}: {tiles} tiles, each cropped {len(counts)} ways")
    print(f"  {'condition':<40}" + "".join(f"{o:>9}" for o in OUTCOMES))
    for condition, outcomes in counts.items():
        print(f"  {condition.name:<40}" + "".join(f"{outcomes[o]:>9}" for o in OUTCOMES))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.vision_cropped", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_folder_arguments(parser)
    parser.add_argument("--tables", type=int, default=3, metavar="N", help="rendered tables (0: none)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="the first rendered table's seed")
    parser.add_argument("--widened", type=int, default=0, metavar="N", help="widened tables (default: none)")
    parser.add_argument("--widened-seed", type=int, default=WIDENED_SEED, metavar="S",
                        help="the first widened table's seed")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every figure to FILE")
    args = parser.parse_args(argv)
    figures: dict[str, Any] = {"argv": sys.argv[1:] if argv is None else argv}
    rendered = [("rendered", "rendered tables", rendered_pictures, range(args.seed, args.seed + args.tables)),
                ("widened", "widened tables", widened_pictures,
                 range(args.widened_seed, args.widened_seed + args.widened))]
    for key, what, pictures, seeds in rendered:
        if not seeds:
            continue
        try:
            import vision.synth  # noqa: F401
        except ImportError:
            print(f"vision_cropped: no {what} (vision.synth is not installed)")
            continue
        counts = run(pictures(seeds), len(seeds))
        report(counts, f"{what} {seeds.start}..{seeds.stop - 1}")
        figures[key] = to_json(counts)
    if args.labels is None and not (args.folder / "labels.json").is_file():
        print(f"vision_cropped: photos skipped ({args.folder} holds no labels.json; the shared real "
              f"photos are not beside this clone)")
    else:
        photos = len(load_labels(args.folder, args.labels))
        counts = run(photo_pictures(args.folder, args.labels), photos)
        report(counts, f"labelled folder {args.folder.resolve().name}")
        figures["photos"] = to_json(counts)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
