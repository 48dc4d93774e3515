"""A calibrated camera leaning over the table: tiles read on the table's plane, against one length.

    python -m benchmarks.vision_oblique [--games 6] [--far-over-near 0.6] [--seed 0]

Each game is filmed on the small table (`vision.synth.film.fixed_camera_film`, plain style) by a
camera leaning over the table's near edge, so that the far edge is `--far-over-near` as wide in
the picture as the near one (`leaning_camera`): a boneyard of 4, a line of 3 tiles in the middle,
and two hands of 3 shown face up at the near and the far seat. The last frame is read three ways
by `vision.read.read_image`:

- `rectified`: given the camera's calibration, the table is read on its own plane, where every
  tile has the layout's length (`vision.rectify`), as the tracker and the service read;
- `one length`: told the tile length at the table's centre (`tile_length_px`, the layout's
  tile length times `Calibration.pixels_per_mm`), as the tracker read before, which drops
  readings far from that length;
- `plain`: told nothing.

It prints, for each, the tiles read right (of the 9 face up per game), the backs counted (of 4)
and the median CPU per read on one core (OpenCV on one thread).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from typing import Any

import cv2

from vision.progress import progress
from vision.read import read_image
from vision.synth.film import fixed_camera_film
from vision.synth.style import PLAIN_STYLE

PLAYS = (("6-6", None), ("6-3", "right"), ("6-1", "left"))
HANDS = ((0, ("2-2", "1-4", "0-5")), (2, ("3-4", "0-0", "2-5")))  # the near and the far seat
BACKS = 4
WAYS = ("rectified", "one length", "plain")


def one_game(seed: int, far_over_near: float) -> dict[str, tuple[int, int, float]]:
    """Per way: tiles read right, backs counted, CPU seconds of the read."""
    film, calibration = fixed_camera_film(PLAIN_STYLE, seed, (1280, 720), lean=far_over_near)
    film.new_hand(boneyard=BACKS)
    for seat, (tile, end) in enumerate(PLAYS):
        film.play(seat, tile, end)
    frames = [frame for seat, tiles in HANDS for frame in film.reveal(seat, list(tiles))]
    image = frames[-1].image
    truth = Counter(["-".join(sorted(t.split("-"))) for t, _ in PLAYS] + [t for _, ts in HANDS for t in ts])
    length = calibration.layout.tile_length_mm * calibration.pixels_per_mm()  # at the table's centre
    options: dict[str, dict[str, Any]] = {
        "rectified": {"calibration": calibration}, "one length": {"tile_length_px": length}, "plain": {}}
    out = {}
    for way in WAYS:
        start = time.process_time()
        view = read_image(image, **options[way])
        seconds = time.process_time() - start
        right = sum((Counter(t.tile for t in view.tiles) & truth).values())
        out[way] = (right, view.face_down, seconds)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--far-over-near", type=float, default=0.6,
                        help="the far edge's width in the picture over the near edge's (1: no lean)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not 0.1 <= args.far_over_near <= 1.0:
        parser.error(f"--far-over-near must be from 0.1 to 1, got {args.far_over_near}")
    cv2.setNumThreads(1)
    results = [one_game(args.seed + k, args.far_over_near)
               for k in progress(range(args.games), total=args.games, what="games", unit="games")]
    faces = args.games * (len(PLAYS) + sum(len(tiles) for _, tiles in HANDS))
    print(f"{args.games} games on the small table, the far edge {args.far_over_near:.0%} as wide as the "
          f"near one: {faces} tiles face up, {args.games * BACKS} backs")
    for way in WAYS:
        right = sum(r[way][0] for r in results)
        backs = sum(r[way][1] == BACKS for r in results)
        cpu = statistics.median(r[way][2] for r in results) * 1000
        print(f"  {way:<10} {right:>4} of {faces} tiles read right, the backs counted right in "
              f"{backs} of {args.games} games, median {cpu:.0f} ms of CPU per read")


if __name__ == "__main__":
    main()
