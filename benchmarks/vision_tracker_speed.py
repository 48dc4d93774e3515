"""What the tracker costs per camera frame at 1920x1080 on one core, against a 30 fps camera.

    python -m benchmarks.vision_tracker_speed [--plays 12] [--seed 0]

A game is filmed on the demo's table (fixed camera, plain style): a boneyard, plays with hands
reaching over the table between them, draws. Every frame goes through `Tracker.feed` with the
real reader, twice: reading only the changed part of the frame (`incremental`, the default) and
reading whole frames. Rendering is not timed; each `feed` is timed in CPU seconds of this process
(`time.process_time`) with OpenCV on one thread. Most frames cost only the motion check; a frame
where the table settled after a change costs a read. A Raspberry Pi 5 is taken as about three
times slower per core (an estimate, not a measurement).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.progress import progress
from vision.read import read_image
from vision.synth.film import fixed_camera_film, random_plays
from vision.synth.scene import Frame
from vision.synth.style import PLAIN_STYLE
from vision.tracker import Tracker
from vision.types import TilePlaced

FRAME_MS = 1000 / 30
PI5_FACTOR = 3.0
SIZE = (1920, 1080)


def film_frames(seed: int, plays: int) -> tuple[Iterator[Frame], object]:
    rng = np.random.default_rng(seed)
    film, calibration = fixed_camera_film(PLAIN_STYLE, seed, SIZE, approach_frames=3, leave_frames=2,
                                          rest_frames=5)

    def frames() -> Iterator[Frame]:
        yield from film.new_hand(boneyard=8)
        for turn, (tile, end) in enumerate(random_plays(rng, plays, False)):
            yield from film.pass_over(int(rng.integers(4)), linger=int(rng.integers(0, 3)))
            yield from film.play(turn % 2, tile, end)
            if turn % 4 == 3 and film.boneyard:
                yield from film.draw(turn % 2)

    return frames(), calibration


@dataclass
class Run:
    """One way of reading a film: CPU ms of every frame and of the frames read, the reads (and how
    many of them partial), and the plays reported (tile, end)."""

    costs: list[float] = field(default_factory=list)
    read_costs: list[float] = field(default_factory=list)
    reads: int = 0
    partial: int = 0
    placed: list[tuple[str, str | None]] = field(default_factory=list)


def measure(seed: int, plays: int, incremental: bool) -> Run:
    frames, calibration = film_frames(seed, plays)
    tracker = Tracker(read_image, calibration=calibration, incremental=incremental)  # type: ignore[arg-type]
    run = Run()
    for frame in progress(frames, what="frames", unit="frames"):
        reads = tracker.reads
        started = time.process_time()
        observed = tracker.feed(frame.t, frame.image)
        cost = (time.process_time() - started) * 1000
        run.costs.append(cost)
        if tracker.reads > reads:
            run.read_costs.append(cost)
        run.placed += [(o.tile, o.end) for o in observed if isinstance(o, TilePlaced)]
    run.reads, run.partial = tracker.reads, tracker.partial_reads
    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.vision_tracker_speed", description=__doc__)
    parser.add_argument("--plays", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    results: dict[str, Run] = {}
    for incremental in (True, False):
        name = "changed part only" if incremental else "whole frames"
        result = results[name] = measure(args.seed, args.plays, incremental)
        costs = sorted(result.costs)
        reads = result.read_costs
        p90 = costs[int(0.9 * (len(costs) - 1))]
        print(f"{name}: {len(costs)} frames of 1920x1080, {result.reads} read "
              f"({result.partial} of them partly), {len(result.placed)} plays reported")
        print(f"  per frame: median {statistics.median(costs):.1f} ms, mean {statistics.mean(costs):.1f} ms, "
              f"90th percentile {p90:.1f} ms, worst {costs[-1]:.0f} ms of CPU on one core")
        print(f"  a frame with a read: median {statistics.median(reads):.0f} ms" if reads else "  no reads")
        mean = statistics.mean(costs)
        verdict = "keeps up with" if mean * PI5_FACTOR <= FRAME_MS else "falls behind"
        print(f"  mean against the 30 fps frame interval ({FRAME_MS:.1f} ms): {mean / FRAME_MS:.2f}x; "
              f"Raspberry Pi 5 (~{PI5_FACTOR:.0f}x slower, estimated): mean ~{mean * PI5_FACTOR:.0f} ms per "
              f"frame, {verdict} 30 fps on one core")
    first, second = results.values()
    same = first.placed == second.placed
    print(f"both ways reported the same plays: {'yes' if same else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
