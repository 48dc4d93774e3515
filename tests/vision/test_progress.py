"""Progress of long runs: a bar with done, total, rate and time left on a terminal, nothing when
standard error is a pipe or a file."""

from __future__ import annotations

import io
import sys

import pytest

from vision.progress import each_in_order, in_order, progress, worker_pool


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_sees_done_total_rate_and_time_left(monkeypatch: pytest.MonkeyPatch) -> None:
    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    assert list(progress(range(5), total=5, what="reading")) == [0, 1, 2, 3, 4]
    shown = screen.getvalue()
    assert "reading" in shown and "5/5" in shown and "images/s" in shown
    assert "<" in shown  # tqdm's "elapsed<left"


def test_a_pipe_sees_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    assert list(progress(iter("abc"), what="reading")) == ["a", "b", "c"]
    assert piped.getvalue() == ""


@pytest.mark.parametrize("jobs", [1, 2])
def test_work_spread_over_processes_comes_back_in_order_with_its_bar(
        monkeypatch: pytest.MonkeyPatch, jobs: int) -> None:
    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    numbers = [-n if n % 3 else n for n in range(40)]
    assert each_in_order(abs, numbers, jobs, what="counting", unit="numbers", chunksize=3) == list(range(40))
    assert "counting" in screen.getvalue() and "40/40" in screen.getvalue()


def test_one_pool_serves_several_batches_and_one_job_needs_none() -> None:
    with worker_pool(1) as none:
        assert none is None
        assert list(in_order(len, ["a", "bb"], none)) == [1, 2]
    with worker_pool(2) as pool:
        assert pool is not None
        first = list(in_order(abs, [-1, -2, -3], pool))
        second = list(in_order(len, ["abc", ""], pool))
    assert (first, second) == ([1, 2, 3], [3, 0])
