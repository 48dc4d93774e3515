"""Progress of long runs on a terminal: done, total, rate and time left, quiet when not a terminal.

`vision eval` over a folder, dataset generation and the vision benchmarks wrap their loops in
`progress`; tqdm draws the bar on standard error, and only when standard error is a terminal, so
piped or logged output stays exactly what it was.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

from tqdm import tqdm

T = TypeVar("T")


def progress(items: Iterable[T], *, total: int | None = None, what: str = "",
             unit: str = "images") -> Iterator[T]:
    """`items`, drawing a progress bar labelled `what` on standard error while it is a terminal:
    done/total, `unit`s per second, time spent and time left."""
    stream = sys.stderr
    shown = bool(getattr(stream, "isatty", lambda: False)())
    yield from tqdm(items, total=total, desc=what or None, unit=f" {unit}", disable=not shown,
                    file=stream, dynamic_ncols=True)
