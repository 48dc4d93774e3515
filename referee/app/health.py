"""The health of each part of a running table: ok, degraded or failed, since when, and why.

One `Health` per table. Every part (camera, tracker, scoreboard, gpio, mqtt, web, eventlog, disk,
consumer, …) reports its state here; the scoreboard's message line, the retained MQTT `status`
document, the log and the web pages all read this one model, so they never disagree. A report
that changes nothing is not news: listeners hear only changes, and `due_reminders` says which
unhealthy parts are due to be said again while they last (never silence).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

# How often a part that stays degraded or failed is reported again (seconds).
REMINDER_SECONDS = 30.0


class State(StrEnum):
    OK = "ok"
    DEGRADED = "degraded"   # working, but not as it should (retrying, a fallback, slow)
    FAILED = "failed"       # not working at all


SEVERITY = {State.OK: 0, State.DEGRADED: 1, State.FAILED: 2}


@dataclass(frozen=True)
class PartHealth:
    part: str
    state: State
    since: float   # wall-clock seconds (epoch) of the last change of state
    why: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"state": str(self.state), "since": round(self.since, 3), "why": self.why}

    def line(self) -> str:
        """One line for the log and the table manager: ``camera failed: cannot open camera index 7``."""
        return f"{self.part} {self.state}" + (f": {self.why}" if self.why else "")


Listener = Callable[[PartHealth], None]


# Parts that write their own lines (the broker link says each connection fault and its reminders).
SELF_SAID = ("mqtt",)


def log_lines(say: Callable[[str], None], *, skip: tuple[str, ...] = SELF_SAID) -> Listener:
    """A listener that writes one log line per change (``# health: camera failed: …``). A part's
    first report that it is ok is no change: a table that starts well says nothing."""
    seen: set[str] = set()

    def listener(part: PartHealth) -> None:
        if part.part in skip:
            return
        first = part.part not in seen
        seen.add(part.part)
        if not (first and part.state == State.OK):
            say(f"# health: {part.line()}")
    return listener


class Health:
    """Thread-safe: devices' threads report, any thread reads."""

    def __init__(self, *, now: Callable[[], float] = time.time,
                 reminder_seconds: float = REMINDER_SECONDS) -> None:
        self._now = now
        self._reminder = reminder_seconds
        self._lock = threading.Lock()
        self._parts: dict[str, PartHealth] = {}
        self._last_said: dict[str, float] = {}
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> None:
        """Call `listener` with every change of any part's state or reason (from the reporting thread)."""
        with self._lock:
            self._listeners.append(listener)

    def report(self, part: str, state: State, why: str = "") -> bool:
        """Set `part`'s state; returns whether that was news (a change of state or reason)."""
        with self._lock:
            old = self._parts.get(part)
            if old is not None and old.state == state and old.why == why:
                return False
            since = old.since if old is not None and old.state == state else self._now()
            new = PartHealth(part, state, since, why)
            self._parts[part] = new
            self._last_said[part] = self._now()
            listeners = list(self._listeners)
        for listener in listeners:
            listener(new)
        return True

    def ok(self, part: str, why: str = "") -> bool:
        return self.report(part, State.OK, why)

    def degraded(self, part: str, why: str) -> bool:
        return self.report(part, State.DEGRADED, why)

    def failed(self, part: str, why: str) -> bool:
        return self.report(part, State.FAILED, why)

    def get(self, part: str) -> PartHealth | None:
        with self._lock:
            return self._parts.get(part)

    def parts(self) -> dict[str, PartHealth]:
        with self._lock:
            return dict(self._parts)

    def overall(self) -> State:
        """The worst state of any part (ok when nothing has reported)."""
        with self._lock:
            states = [p.state for p in self._parts.values()]
        return max(states, key=SEVERITY.__getitem__, default=State.OK)

    def as_dict(self) -> dict[str, Any]:
        """The document the retained `status`, the state and the web pages carry."""
        parts = self.parts()
        return {"overall": str(self.overall()),
                "parts": {name: part.as_dict() for name, part in sorted(parts.items())}}

    def due_reminders(self) -> list[PartHealth]:
        """Unhealthy parts not said for `reminder_seconds`; marks them said now."""
        now = self._now()
        due: list[PartHealth] = []
        with self._lock:
            for name, part in self._parts.items():
                if part.state != State.OK and now - self._last_said.get(name, 0.0) >= self._reminder:
                    self._last_said[name] = now
                    due.append(part)
        return due
