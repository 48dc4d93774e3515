"""Keep the memory a training step frees for the next step, instead of handing it back to the
system and faulting it in again.

Each step of either fit allocates its batch, its activations and their gradients afresh, and
frees them at its end. glibc's malloc maps every block above its mmap threshold (at most 32 MB,
and 128 kB until a mapped block is freed) on its own and unmaps it when freed, and hands the top
of its heap back once more than its trim threshold lies free there: so the next step's blocks are
new pages, each zeroed by the kernel on its first touch. One `make model` took 89 million minor
page faults and 297 s of system time that way.

Inside `reused_heap` malloc takes every block from its heap (`M_MMAP_MAX` 0) and keeps the freed
top (`M_TRIM_THRESHOLD` `KEPT_FREE_BYTES`), so each step runs in the pages the step before it
used. On 2026-12-07, `python -m benchmarks.training_heap` (the fits as `make model` runs them, on
60 rendered tables, each way in turn): 300 finder steps 19.5 s -> 17.8 s (1.10x) and 200 reader
steps 34.1 s -> 25.0 s (1.37x), with 1.5 and 6.3 million page faults -> 5,000 and 26,000. The
whole recipe from nothing: 32.8 min -> 27.4 min (twice), both networks bit for bit the same.

The heap grows to the largest step's working set and no further (a step frees what it
allocates); leaving the block gives its free top back (`malloc_trim`) and restores glibc's
defaults. The fits' large arrays (the patches, the crops) are allocated before it and are mapped
as usual, so they are still given back when freed. Where the C library is not glibc (macOS, musl)
it changes nothing.

The workers that render and harvest the tables (`vision.train.fit.each_table`) do the same for
their whole life (`keep_heap`, the pool's initializer): each table's pages serve the next. On
2026-12-07, 120 tables rendered with their patches in two workers took 21.5 s instead of 23.7
(1.10x; 0.12 instead of 0.59 million page faults), and a worker's peak was 947 MB instead of 918;
the harvest gained nothing (6.6 s against 6.7). From nothing, the recipe's rendering then took
239 s against 266-275 in the two runs before, and the whole recipe 26.1 min.
"""

from __future__ import annotations

import contextlib
import ctypes
import platform
from collections.abc import Iterator

# mallopt's parameters (glibc's malloc.h) and the defaults `reused_heap` restores.
M_TRIM_THRESHOLD = -1
M_MMAP_MAX = -4
DEFAULT_TRIM_THRESHOLD = 128 * 1024
DEFAULT_MMAP_MAX = 65536
# Free bytes the heap's top may hold inside `reused_heap` before malloc hands them back (1 GiB):
# more than a step of either fit frees at the recipe's batches, so none is handed back.
KEPT_FREE_BYTES = 1 << 30


def _glibc() -> ctypes.CDLL | None:
    """This process's C library, when it is glibc (whose `mallopt` takes these parameters)."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


def can_keep_heap() -> bool:
    """Whether `reused_heap` changes anything here (the C library is glibc)."""
    return _glibc() is not None


def _keep(libc: ctypes.CDLL) -> None:
    libc.mallopt(M_MMAP_MAX, 0)
    libc.mallopt(M_TRIM_THRESHOLD, KEPT_FREE_BYTES)


def keep_heap() -> None:
    """From now until the process ends, as inside `reused_heap`: for a process whose whole life
    is one piece of work over and over (a pool worker rendering or harvesting tables, given as
    the pool's initializer). Nothing where the C library is not glibc."""
    libc = _glibc()
    if libc is not None:
        _keep(libc)


@contextlib.contextmanager
def reused_heap(keep: bool = True) -> Iterator[None]:
    """Inside: every block from malloc's heap, and its freed top kept (see the module). With
    `keep` False, or where the C library is not glibc, it changes nothing (the benchmark's other
    way)."""
    libc = _glibc() if keep else None
    if libc is None:
        yield
        return
    _keep(libc)
    try:
        yield
    finally:
        libc.mallopt(M_MMAP_MAX, DEFAULT_MMAP_MAX)
        libc.mallopt(M_TRIM_THRESHOLD, DEFAULT_TRIM_THRESHOLD)
        libc.malloc_trim(0)
