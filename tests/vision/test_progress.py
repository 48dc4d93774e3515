"""Progress of long runs: a bar with done, total, rate and time left on a terminal, nothing when
standard error is a pipe or a file."""

from __future__ import annotations

import io
import sys

import pytest

from vision.progress import progress


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
