"""Real photos as poorer cameras would take them: does the reader still read them?

    python -m benchmarks.vision_degraded [DIR [--labels FILE]] [--json FILE]

Each labelled photo of DIR (default: the shared real photos; `--labels` as in
`benchmarks.vision_accuracy`) is read as it is and then under each of `DEGRADATIONS`: shrunk to a
webcam's or a small photo's size, its contrast cut, sensor noise added and the result saved as a
low-quality JPEG, alone and together. The rendered tables' webcams (`vision.synth.widened`) do
this to drawn tiles; here it is done to real pixels (real pips, real cloth, real light), which no
renderer made and nothing was trained on. Each condition reports tile precision and recall, exact
photos and the median length of the tiles in the degraded picture, beside the photos as taken.
The noise is seeded from the photo's name and the condition, so every run reads the same pixels.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.vision_accuracy import add_folder_arguments
from vision.evaluate import ImageScore, label_max_pip, labelled_image, load_labels, score_image, summarise
from vision.geometry import frame_from_corners
from vision.progress import progress
from vision.read import TableView, read_image

DEFAULT_MAX_PIP = 6  # a labelled photo's set, unless its labels say otherwise


@dataclass(frozen=True)
class Degradation:
    """What a poorer camera, or poorer light, does to a photo, in the order it is done: the
    shrink, then the scene's light (`light`, `shadow`), the lens (`blur`, `motion`), the sensor
    (`contrast`, `noise`) and the stream's compression (`jpeg_quality`). Blur and motion are in
    px of the shrunk picture."""

    name: str
    long_side: int | None = None  # shrink (never enlarge) so the longer side is this many px
    light: tuple[float, float, float] | None = None  # each channel's gain (B, G, R): its colour, its dimness
    shadow: float = 1.0  # the share of the light left beyond a straight edge across a third of the picture
    blur: float = 0.0  # Gaussian blur's standard deviation, px: a lens out of focus
    motion: int = 0  # the length, px, of a straight sideways smear: the camera or the table moved
    contrast: float = 1.0  # the image's spread about its mean grey, scaled by this
    noise: float = 0.0  # standard deviation of Gaussian sensor noise, in grey levels
    jpeg_quality: int | None = None  # saved and decoded as a JPEG of this quality

    def apply(self, image: np.ndarray, seed: int) -> np.ndarray:
        """`image` as this camera would take it (`image` itself, when this changes nothing)."""
        out = image
        if self.long_side is not None and max(image.shape[:2]) > self.long_side:
            scale = self.long_side / max(image.shape[:2])
            out = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        if self.light is not None or self.shadow != 1.0:
            pixels = out.astype(np.float32)
            if self.light is not None:
                pixels *= np.array(self.light, np.float32)
            if self.shadow != 1.0:
                pixels[shadowed(out.shape)] *= self.shadow
            out = np.clip(np.rint(pixels), 0, 255).astype(np.uint8)
        if self.blur > 0:
            out = cv2.GaussianBlur(out, (0, 0), self.blur)
        if self.motion > 1:
            smear = np.full((1, self.motion), 1.0 / self.motion, np.float32)
            out = cv2.filter2D(out, -1, smear, borderType=cv2.BORDER_REPLICATE)
        if self.contrast != 1.0 or self.noise > 0:
            pixels = out.astype(np.float32)
            if self.contrast != 1.0:
                pixels = pixels.mean() + (pixels - pixels.mean()) * self.contrast
            if self.noise > 0:
                pixels += np.random.default_rng(seed).normal(0.0, self.noise, pixels.shape)
            out = np.clip(np.rint(pixels), 0, 255).astype(np.uint8)
        if self.jpeg_quality is not None:
            ok, encoded = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg_quality])
            if not ok:
                raise RuntimeError(f"{self.name}: OpenCV could not encode a JPEG")
            decoded = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
            if decoded is None:
                raise RuntimeError(f"{self.name}: OpenCV could not decode its own JPEG")
            out = np.asarray(decoded, np.uint8)
        return out

    def scale(self, image: np.ndarray) -> float:
        """How much this shrinks `image`'s sides."""
        longest = max(image.shape[:2])
        return 1.0 if self.long_side is None or longest <= self.long_side else self.long_side / longest


def shadowed(shape: tuple[int, ...]) -> np.ndarray:
    """The bool (H, W) part of a picture of `shape` a hard shadow covers: beyond a straight edge
    slanting across it, about a third of the picture, through tiles wherever they lie."""
    height, width = shape[:2]
    y, x = np.mgrid[0:height, 0:width]
    return np.asarray(x + 0.6 * y > 0.55 * (width + 0.6 * height))


AS_TAKEN = Degradation("as taken")
# Sizes: a 1080p webcam's frame, a 720p one, a small web photo, thumbnails down to where the tiles
# are under 30 px long (the finder's weakest sizes); the contrast a webcam keeps in dim room light;
# the noise and compression of a cheap webcam's stream, alone and at each size.
DEGRADATIONS = (
    AS_TAKEN,
    Degradation("1024 px", long_side=1024),
    Degradation("640 px", long_side=640),
    Degradation("384 px", long_side=384),
    Degradation("256 px", long_side=256),
    Degradation("160 px", long_side=160),
    Degradation("128 px", long_side=128),
    Degradation("640 px, half contrast", long_side=640, contrast=0.5),
    Degradation("640 px, a third of the contrast", long_side=640, contrast=0.35),
    Degradation("640 px, noise 8, JPEG 40", long_side=640, noise=8.0, jpeg_quality=40),
    *(Degradation(f"{side} px, half contrast, noise 6, JPEG 40", long_side=side, contrast=0.5,
                  noise=6.0, jpeg_quality=40) for side in (480, 256, 160, 128)),
    # The room's light and the lens: a bulb's warm light, a window's cool one, a third of the
    # light, a hard shadow across part of the table (a lamp's, a player's arm), a lens out of
    # focus, and a smear as the camera or the table is knocked; and a club's webcam under a bulb:
    # dim, warm, soft, noisy and compressed.
    Degradation("640 px, warm bulb light", long_side=640, light=(0.55, 0.85, 1.1)),
    Degradation("640 px, cool window light", long_side=640, light=(1.15, 0.95, 0.6)),
    Degradation("640 px, a third of the light", long_side=640, light=(0.35, 0.35, 0.35)),
    Degradation("640 px, a hard shadow", long_side=640, shadow=0.45),
    Degradation("640 px, out of focus (blur 1.5 px)", long_side=640, blur=1.5),
    Degradation("640 px, out of focus (blur 2.5 px)", long_side=640, blur=2.5),
    Degradation("640 px, smeared 9 px", long_side=640, motion=9),
    Degradation("480 px, dim warm light, blur 1, noise 6, JPEG 40", long_side=480,
                light=(0.3, 0.45, 0.6), blur=1.0, noise=6.0, jpeg_quality=40),
)


def seed_of(name: str, degradation: Degradation) -> int:
    """The noise seed of one photo under one condition: the same on every run and machine."""
    digest = hashlib.sha256(f"{name}\0{degradation.name}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


@dataclass(frozen=True)
class ConditionResult:
    degradation: Degradation
    scores: list[ImageScore]
    tile_lengths: list[float]  # the length, px, of each tile read in the photos as taken, scaled
    seconds: float  # CPU seconds of reading

    def to_json(self) -> dict[str, Any]:
        return {"degradation": asdict(self.degradation), **summarise(self.scores),
                "tiles_right": sum(s.true_positives for s in self.scores),
                "tiles_seen": sum(s.predicted for s in self.scores),
                "tiles_labelled": sum(s.labelled for s in self.scores),
                "median_tile_length_px": round(statistics.median(self.tile_lengths), 1)
                if self.tile_lengths else None,
                "read_cpu_s": round(self.seconds, 2),
                "inexact": {s.name: {"extra": s.extra, "missing": s.missing}
                            for s in self.scores if not s.exact}}


def tile_lengths(view: TableView) -> list[float]:
    """The length, px, of each tile read in `view`."""
    return [2 * frame_from_corners(tile.corners).half_length for tile in view.tiles]


def run(folder: Path, labels_file: Path | None = None,
        degradations: tuple[Degradation, ...] = DEGRADATIONS) -> list[ConditionResult]:
    """Every labelled photo of `folder` read under each of `degradations`, one photo in memory at
    a time. The photo as taken is read once: a condition that leaves it as it is reuses that read."""
    labels = load_labels(folder, labels_file)
    scores: list[list[ImageScore]] = [[] for _ in degradations]
    lengths: list[list[float]] = [[] for _ in degradations]
    seconds = [0.0 for _ in degradations]
    for name, label in progress(sorted(labels.items()), total=len(labels), what="photos"):
        image = labelled_image(folder, name, label)
        max_pip = label_max_pip(label, DEFAULT_MAX_PIP)
        started = time.process_time()
        as_taken = read_image(image, max_pip=max_pip)
        as_taken_seconds = time.process_time() - started
        as_taken_lengths = tile_lengths(as_taken)
        for i, degradation in enumerate(degradations):
            degraded = degradation.apply(image, seed_of(name, degradation))
            if degraded is image:
                view, spent = as_taken, as_taken_seconds
            else:
                started = time.process_time()
                view = read_image(degraded, max_pip=max_pip)
                spent = time.process_time() - started
            seconds[i] += spent
            scores[i].append(score_image(name, view.to_json(), label))
            lengths[i] += [length * degradation.scale(image) for length in as_taken_lengths]
    return [ConditionResult(d, scores[i], lengths[i], seconds[i]) for i, d in enumerate(degradations)]


def report(results: list[ConditionResult], title: str) -> None:
    print(f"{title}: {len(results[0].scores)} photos, "
          f"{sum(s.labelled for s in results[0].scores)} tiles, under {len(results)} conditions")
    print(f"  {'condition':<42} {'tile px':>7} {'precision':>9} {'recall':>7} {'exact':>7}  "
          f"misread or missed")
    for result in results:
        figures = result.to_json()
        wrong = ", ".join(f"{name} -{sum(v['missing'].values())} +{sum(v['extra'].values())}"
                          for name, v in figures["inexact"].items())
        length = figures["median_tile_length_px"]
        print(f"  {result.degradation.name:<42} {length if length is not None else '-':>7} "
              f"{figures['precision']:>9.3f} {figures['recall']:>7.3f} "
              f"{figures['exact_images']:>3}/{figures['images']:<3}  {wrong}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.vision_degraded", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_folder_arguments(parser)
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every figure to FILE")
    args = parser.parse_args(argv)
    if args.labels is None and not (args.folder / "labels.json").is_file():
        print(f"vision_degraded: skipped ({args.folder} holds no labels.json; the shared real "
              f"photos are not beside this clone)")
        return 0
    results = run(args.folder, args.labels)
    report(results, f"labelled folder {args.folder.resolve().name}")
    if args.json:
        args.json.write_text(json.dumps({"argv": sys.argv[1:] if argv is None else argv,
                                         "conditions": [r.to_json() for r in results]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
