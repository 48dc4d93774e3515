"""`vision.train.heap.reused_heap`: inside it a block freed and allocated again is the same pages
(no page faults the second time) and no block is mapped on its own; leaving it, however it is
left, gives glibc's defaults back (a large block is mapped on its own again). A pool's workers
given `keep_heap` as their initializer keep their heap so for life."""

from __future__ import annotations

import ctypes
import json
import resource
from typing import Any

import numpy as np
import pytest

from tests.train_extra import require_torch
from vision.progress import in_order, worker_pool
from vision.train.heap import can_keep_heap, keep_heap, reused_heap

BLOCK_BYTES = 64 * 1024 * 1024  # above glibc's largest mmap threshold (32 MB): mapped on its own by default
PAGES = BLOCK_BYTES // resource.getpagesize()
AFTER_BYTES = 4 * BLOCK_BYTES


# The flag glibc sets in a chunk's size word (just before the block) when it mapped the block on
# its own (malloc.c's IS_MMAPPED).
IS_MMAPPED = 0x2


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    return libc


def _faults() -> int:
    """This thread's minor page faults so far (other threads of a test process may fault too)."""
    return resource.getrusage(resource.RUSAGE_THREAD).ru_minflt


def _faults_of_second_block() -> int:
    """The minor page faults taken writing a block of `BLOCK_BYTES` that malloc gives just after
    one like it was written and freed, as a training step's activations are. Straight from malloc:
    numpy asks for huge pages for large arrays, which fault 2 MB at a time."""
    libc = _libc()
    first = libc.malloc(BLOCK_BYTES)
    ctypes.memset(first, 1, BLOCK_BYTES)
    libc.free(first)
    before = _faults()
    second = libc.malloc(BLOCK_BYTES)
    ctypes.memset(second, 1, BLOCK_BYTES)
    taken = _faults() - before
    libc.free(second)
    return taken


def _mapped_on_its_own(size: int) -> bool:
    """Whether malloc maps a block of `size` bytes on its own (its chunk's `IS_MMAPPED` flag). The
    block is not written, so a large one costs nothing."""
    libc = _libc()
    block = libc.malloc(size)
    mapped = bool(ctypes.c_size_t.from_address(block - ctypes.sizeof(ctypes.c_size_t)).value & IS_MMAPPED)
    libc.free(block)
    return mapped


@pytest.fixture
def glibc() -> None:
    if not can_keep_heap():
        pytest.skip("the C library is not glibc: reused_heap changes nothing here")


@pytest.mark.usefixtures("glibc")
def test_a_freed_block_is_reused_inside_and_large_blocks_are_mapped_again_after() -> None:
    with reused_heap():
        inside = _faults_of_second_block()
        mapped_inside = _mapped_on_its_own(BLOCK_BYTES)
    assert inside < PAGES // 20, f"{inside} page faults for a block of {PAGES} pages the heap kept"
    assert not mapped_inside, "inside reused_heap, a large block was mapped on its own"
    # Larger than any block freed above, so no free chunk of the heap can serve it: only glibc's
    # defaults, restored, make it mapped.
    assert _mapped_on_its_own(AFTER_BYTES), "after reused_heap, a large block is not mapped on its own"


@pytest.mark.usefixtures("glibc")
def test_leaving_on_an_error_restores_the_defaults() -> None:
    with pytest.raises(RuntimeError, match="a step failed"), reused_heap():
        raise RuntimeError("a step failed")
    assert _mapped_on_its_own(AFTER_BYTES)


def _large_block_mapped(_: object) -> bool:
    """In a pool's worker: whether it maps a large block on its own."""
    return _mapped_on_its_own(BLOCK_BYTES)


@pytest.mark.usefixtures("glibc")
@pytest.mark.parametrize("keep", [True, False], ids=["keep_heap", "defaults"])
def test_pool_workers_keep_their_heap_for_life_when_given_keep_heap(keep: bool) -> None:
    with worker_pool(2, initializer=keep_heap if keep else None) as pool:
        mapped = list(in_order(_large_block_mapped, range(6), pool))
    assert mapped == [not keep] * 6


# The fits themselves need the train extra (`tests.train_extra`).


def _random_samples(count: int) -> Any:
    from vision.train.finder import CELLS, PATCH, FinderSamples

    rng = np.random.default_rng(0)
    return FinderSamples(
        images=rng.integers(0, 256, (count, PATCH, PATCH, 3), np.uint8),
        heat=rng.random((count, 2, CELLS, CELLS)).astype(np.float16),
        geometry=rng.normal(size=(count, 6, CELLS, CELLS)).astype(np.float16),
        weight=rng.random((count, CELLS, CELLS)).astype(np.float16),
        ignore=rng.random((count, CELLS, CELLS)) < 0.1,
        table=np.zeros(count, np.int32),
    )


def _random_harvest(count: int) -> Any:
    from vision.crops import CROP_HEIGHT, CROP_WIDTH, GEOMETRY_SIZE
    from vision.tilenet import KINDS, MAX_PIPS
    from vision.train.harvest import Harvest

    rng = np.random.default_rng(1)
    return Harvest(
        crops=rng.integers(0, 256, (count, CROP_HEIGHT, CROP_WIDTH, 3), np.uint8),
        kind=rng.integers(0, len(KINDS), count).astype(np.int8),
        top=rng.integers(0, MAX_PIPS + 1, count).astype(np.int8),
        bottom=rng.integers(0, MAX_PIPS + 1, count).astype(np.int8),
        geometry=rng.normal(size=(count, GEOMETRY_SIZE)).astype(np.float32),
        has_geometry=rng.random(count) < 0.5,
        image=np.zeros(count, np.int32),
    )


def _same_weights(first: Any, second: Any) -> bool:
    torch = require_torch()
    ours, theirs = first.state_dict(), second.state_dict()
    return ours.keys() == theirs.keys() and all(torch.equal(ours[k], theirs[k]) for k in ours)


def test_both_fits_reach_the_same_weights_with_the_heap_kept_or_not() -> None:
    """`reused_heap` changes where the steps' memory comes from, never their arithmetic."""
    require_torch()
    from vision.train.finder import fit_finder
    from vision.train.fit import train

    samples = _random_samples(12)
    kept, plain = (fit_finder(samples, steps=3, reuse_heap=reuse) for reuse in (True, False))
    assert _same_weights(kept, plain)
    data = _random_harvest(96)
    kept, plain = (train(data, np.arange(96), epochs=1, batch=32, max_steps=3, reuse_heap=reuse)
                   for reuse in (True, False))
    assert _same_weights(kept, plain)


def test_the_benchmark_times_the_workers_and_both_fits_each_way_on_rendered_tables(tmp_path, capsys) -> None:
    require_torch()
    from benchmarks.training_heap import POOLED, WAYS, main

    out = tmp_path / "heap.json"
    assert main(["--tables", "2", "--finder-steps", "2", "--reader-steps", "2", "--rounds", "1",
                 "--jobs", "2", "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    for part in POOLED:  # in two workers, as make model renders and harvests
        assert figures[part].keys() == WAYS.keys()
        for way in WAYS:
            (got,) = figures[part][way]["rounds"]
            assert got["seconds"] > 0 and got["page_faults"] > 0 and got["worker_peak_bytes"] > 1e6
    for fit in ("finder", "reader"):
        assert figures[fit].keys() == WAYS.keys()
        for way in WAYS:
            (got,) = figures[fit][way]["rounds"]
            assert got["seconds"] > 0 and got["page_faults"] >= 0
            assert figures[fit][way]["fastest_seconds"] == got["seconds"]
    printed = capsys.readouterr().out
    assert "finder 2 steps" in printed and "reader 2 steps" in printed and "rendering in 2 workers" in printed
    assert "a worker's peak" in printed
