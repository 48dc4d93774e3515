"""An italian table service on a clock the test sets, fed one input at a time."""

from __future__ import annotations

from pathlib import Path

from referee.app.assembly import engine_referee
from referee.app.core import MatchSettings
from referee.app.eventlog import EventLog
from referee.app.ports import Input, RecordingDisplay, RecordingSignals
from referee.app.service import TableService

SETTINGS = MatchSettings("t1", "italian", ("Ayşe", "Burak"), options={"target": 20})


class ClockedTable:
    """`at(seconds, kind, **data)` sets the clock to `origin + seconds` and feeds one input,
    waiting until the service has acted on it. A second table on the same log is a restart."""

    def __init__(self, log: Path, origin: float = 500.0) -> None:
        self.origin = self.now = origin
        self.display, self.signals = RecordingDisplay(), RecordingSignals()
        self.service = TableService(SETTINGS, log=EventLog(log), referee_factory=engine_referee,
                                    display=self.display, signals=self.signals, now=lambda: self.now)

    def at(self, seconds: float, kind: str, **data: object) -> None:
        self.now = self.origin + seconds
        self.service.feed(Input(kind, data, self.now))
        assert self.service.wait_processed(timeout=10)
