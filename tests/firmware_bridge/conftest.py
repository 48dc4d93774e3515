"""Fixtures: a scoreboard on the pty emulator, an accelerated clock, gpiozero's mock pin factory."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import pytest

from firmware_bridge.scoreboard import Scoreboard


class FastClock:
    """Real time, run `factor` times faster: the timing is real (threads, a pty), just shorter."""

    def __init__(self, factor: float) -> None:
        self.factor = factor
        self._start = time.monotonic()

    def __call__(self) -> float:
        return (time.monotonic() - self._start) * self.factor

    def wait_until(self, t: float) -> None:
        pause = threading.Event()
        while self() < t:
            pause.wait(max(0.001, (t - self()) / self.factor))


@pytest.fixture
def scoreboard() -> Iterator[Scoreboard]:
    with Scoreboard("emulator://", connect_timeout=5) as board:
        assert board.connected
        yield board


def wait_until(condition: Callable[[], bool], timeout: float) -> bool:
    """Poll a condition that no thread signals (a display that changes with time)."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while not condition():
        if time.monotonic() > deadline:
            return False
        pause.wait(0.005)
    return True
