"""Backs in a tidy row: how exactly the reader counts a new hand's boneyard laid side by side.

    python -m benchmarks.vision_backs_rows [--count N] [--seed S] [--jobs J] [--json FILE]

The tracker counts the boneyard from the face-down tiles it reads, so a back missed or two backs
taken for one is a draw the referee cannot see. A new hand's boneyard, too big to scatter in its
zone, is laid in a row of backs a few millimetres apart (`vision.synth.film.GameFilm.new_hand`),
and is read as the tracker reads it: through the fixed camera's calibration (`read_image`).

Films S..S+N-1 (default 100..299: the tracker test's films are 0..11) are filmed by a fixed camera
at 1280 x 720 (even seeds) or 1920 x 1080 (odd), the plain table of the tracker test (seeds
divisible by 4) or a style drawn from the whole variety (`vision.synth.style.random_style`), with
8 to 14 backs. Reported: rows counted exactly, backs counted against backs laid, how many rows
were counted each number of backs short or over, and which films were miscounted.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vision.progress import each_in_order
from vision.read import read_image

FIRST_FILM = 100
SIZES = ((1280, 720), (1920, 1080))
BACKS = (8, 14)  # the fewest and most backs a new hand's row is laid with


def counted_row(seed: int) -> tuple[int, int]:
    """(backs laid, backs read) for film `seed`'s new hand."""
    from vision.synth.film import fixed_camera_film
    from vision.synth.style import PLAIN_STYLE, random_style

    rng = np.random.default_rng([seed, 0xB0])
    style = PLAIN_STYLE if seed % 4 == 0 else random_style(rng)
    backs = int(rng.integers(BACKS[0], BACKS[1] + 1))
    film, calibration = fixed_camera_film(style, seed, SIZES[seed % 2], approach_frames=2, leave_frames=1,
                                          rest_frames=4)
    image = film.new_hand(boneyard=backs)[-1].image
    return backs, read_image(image, calibration=calibration).face_down


def figures(films: Sequence[int], rows: list[tuple[int, int]]) -> dict[str, Any]:
    """The report of `rows` (`counted_row`) of `films`: counts, and each film miscounted."""
    errors = Counter(read - laid for laid, read in rows)
    return {
        "rows": len(rows),
        "rows_exact": errors[0],
        "backs_laid": sum(laid for laid, _ in rows),
        "backs_read": sum(read for _, read in rows),
        "rows_by_error": {f"{error:+d}": errors[error] for error in sorted(errors)},
        "miscounted": [{"film": film, "laid": laid, "read": read}
                       for film, (laid, read) in zip(films, rows, strict=True) if read != laid],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.vision_backs_rows",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200, help="films (one row each)")
    parser.add_argument("--seed", type=int, default=FIRST_FILM, help="the first film's seed")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if args.count < 1 or args.jobs < 1:
        parser.error("--count and --jobs must be at least 1")
    try:
        import vision.synth.film  # noqa: F401
    except ImportError:
        parser.error("vision.synth is not installed: no films to read")
    films = range(args.seed, args.seed + args.count)
    report = figures(films, each_in_order(counted_row, films, args.jobs, what="rows of backs"))
    print(f"films {args.seed}..{args.seed + args.count - 1}: {report['rows_exact']} of {report['rows']} rows "
          f"counted exactly; {report['backs_read']} backs read of {report['backs_laid']} laid")
    print("rows by backs read minus laid: "
          + ", ".join(f"{error}: {n}" for error, n in report["rows_by_error"].items()))
    if report["miscounted"]:
        print("miscounted (film: read of laid): "
              + ", ".join(f"{row['film']}: {row['read']} of {row['laid']}" for row in report["miscounted"]))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
