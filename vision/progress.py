"""Progress of long runs on a terminal: done, total, rate and time left, quiet when not a terminal.

`vision eval` over a folder, dataset generation and the vision benchmarks wrap their loops in
`progress`; tqdm draws the bar on standard error, and only when standard error is a terminal, so
piped or logged output stays exactly what it was. Runs that spread their work over processes
(`worker_pool`, `in_order`, `each_in_order`) show the same bar as their answers come back.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

from tqdm import tqdm

T = TypeVar("T")
R = TypeVar("R")


def progress(items: Iterable[T], *, total: int | None = None, what: str = "",
             unit: str = "images") -> Iterator[T]:
    """`items`, drawing a progress bar labelled `what` on standard error while it is a terminal:
    done/total, `unit`s per second, time spent and time left."""
    stream = sys.stderr
    shown = bool(getattr(stream, "isatty", lambda: False)())
    yield from tqdm(items, total=total, desc=what or None, unit=f" {unit}", disable=not shown,
                    file=stream, dynamic_ncols=True)


@contextmanager
def worker_pool(jobs: int, initializer: Callable[[], object] | None = None
                ) -> Iterator[multiprocessing.pool.Pool | None]:
    """A pool of `jobs` processes, or None for one job (the work then runs in this process, and
    `initializer` is not called).

    The processes are spawned, not forked: a forked child of a process with threads (a test
    worker, OpenCV's) can deadlock. Each worker imports what it needs once, so a run that maps
    several batches over one pool (`in_order`) pays for that once. Each calls `initializer`
    (a module-level function: it is pickled) before its first piece of work."""
    if jobs <= 1:
        yield None
        return
    with multiprocessing.get_context("spawn").Pool(jobs, initializer=initializer) as pool:
        yield pool


def in_order(work: Callable[[T], R], items: Sequence[T], pool: multiprocessing.pool.Pool | None, *,
             what: str = "", unit: str = "images", chunksize: int = 1) -> Iterator[R]:
    """`work(item)` for every item, in the items' order, in `pool`'s processes (in this one without
    a pool), with a progress bar as the answers come back."""
    answers = pool.imap(work, items, chunksize=chunksize) if pool else map(work, items)
    yield from progress(answers, total=len(items), what=what, unit=unit)


def each_in_order(work: Callable[[T], R], items: Sequence[T], jobs: int, *, what: str = "",
                  unit: str = "images", chunksize: int = 1) -> list[R]:
    """`work(item)` for every item, in order, in `jobs` processes (`worker_pool`)."""
    with worker_pool(jobs) as pool:
        return list(in_order(work, items, pool, what=what, unit=unit, chunksize=chunksize))
