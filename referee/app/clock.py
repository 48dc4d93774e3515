"""The move clock as the service sees it: how long the player on turn has left.

The clock policies themselves (italian, Fischer, Bronstein, byo-yomi) belong to the engine's clock
module; the service only asks how much time is left after ``elapsed`` seconds of the current turn
and tells the clock when a player finished a move. Time is always an argument.
"""

from __future__ import annotations

from typing import Protocol


class MoveClock(Protocol):
    warning_seconds: float

    def remaining(self, player: str, elapsed: float) -> float | None: ...

    def moved(self, player: str, elapsed: float) -> None: ...


class NoClock:
    """Untimed play: nothing runs out."""

    warning_seconds = 0.0

    def remaining(self, player: str, elapsed: float) -> float | None:
        return None

    def moved(self, player: str, elapsed: float) -> None:
        pass


class PerMoveClock:
    """The same allowance for every move (``[clock] mode = "per-move"``)."""

    def __init__(self, limit: float, warning_seconds: float = 10.0) -> None:
        self.limit = limit
        self.warning_seconds = warning_seconds

    def remaining(self, player: str, elapsed: float) -> float | None:
        return self.limit - elapsed

    def moved(self, player: str, elapsed: float) -> None:
        pass
