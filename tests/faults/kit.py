"""What the fault tests share: a table service on a clock the test sets, a simulated match as the
inputs a real table gives, the run it must equal, and a small real tmpfs to fill."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from referee.app.assembly import engine_referee
from referee.app.core import MatchSettings
from referee.app.eventlog import EventLog
from referee.app.health import Health
from referee.app.ports import Input, InputKind, RecordingDisplay, RecordingSignals
from referee.app.script import table_script
from referee.app.service import TableService
from tests.referee.app.matches import NAMES, SHORT, simulated_record

RULES = "turkish"
SETTINGS = MatchSettings("faults", RULES, tuple(NAMES[RULES]), options=SHORT[RULES])


class ManualClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Capture:
    """A publisher that keeps what the service published (the MQTT side is part B's)."""

    def __init__(self) -> None:
        self.states: list[Mapping[str, Any]] = []
        self.events: list[tuple[int, str]] = []
        self.errors: list[str] = []

    def publish_state(self, document: Mapping[str, Any]) -> None:
        self.states.append(document)

    def publish_event(self, seq: int, payload: str) -> None:
        self.events.append((seq, payload))

    def publish_error(self, message: str, received: str = "") -> None:
        self.errors.append(message)


def match_lines(seed: int = 7) -> list[dict[str, Any]]:
    """A whole simulated match as script lines (``kind``, data, ``t``)."""
    return table_script(simulated_record(RULES, seed))


def as_input(line: dict[str, Any], number: int, at: float, *, scripted: bool = False) -> Input:
    """A script line as an input at `at`; `scripted` keeps the line's own match time ``t``."""
    data = {key: value for key, value in line.items() if key not in ("kind", "t")}
    return Input(line["kind"], {**data, "line": number}, at, t=float(line["t"]) if scripted else None)


@dataclass
class Table:
    """One service on `log_path`; a second `Table` on the same path is a restart."""

    log_path: Path
    clock: ManualClock = field(default_factory=ManualClock)
    health: Health = field(default_factory=Health)
    new_log: bool = False

    def __post_init__(self) -> None:
        self.display, self.signals, self.capture = RecordingDisplay(), RecordingSignals(), Capture()
        self.log = EventLog(self.log_path, new_log=self.new_log)
        self.service = TableService(SETTINGS, log=self.log, referee_factory=engine_referee,
                                    display=self.display, signals=self.signals, publisher=self.capture,
                                    now=self.clock, health=self.health,
                                    records_dir=self.log_path.parent / "records")

    def start(self) -> Table:
        self.service.resume()
        self.service.start(tick_interval=None)
        return self

    def feed(self, lines: list[dict[str, Any]], first: int = 1, step: float = 2.0, *,
             scripted: bool = False) -> None:
        """Feed `lines` `step` seconds apart (or, `scripted`, at the script's own match times)."""
        for number, line in enumerate(lines, first):
            self.clock.now += step
            self.service.feed(as_input(line, number, self.clock.now, scripted=scripted))
        assert self.service.wait_processed(timeout=30)

    def tick(self, seconds: float = 2.0) -> None:
        self.clock.now += seconds
        self.service.feed(Input(InputKind.TICK, {}, self.clock.now, origin="ticker"))
        assert self.service.wait_processed(timeout=30)

    def stop(self) -> None:
        self.service.stop()
        self.log.close()


def logged(log: EventLog) -> list[tuple[str, dict[str, Any]]]:
    """Every input of every match, without its seq and time: what was accepted, in order."""
    rows: list[tuple[str, dict[str, Any]]] = []
    entry = log.last_match()
    for match in range(1, (entry.id if entry else 0) + 1):
        rows += [(i.kind, dict(i.data)) for i in log.inputs(match)]
    return rows


def without_time(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events compared across runs whose clocks differ (a stopped match does not count time)."""
    return [{k: v for k, v in event.items() if k not in ("t", "remaining")} for event in events]


def reference(tmp_path: Path, lines: list[dict[str, Any]], *,
              scripted: bool = False) -> tuple[list[Any], list[dict[str, Any]]]:
    """The inputs and events of the same lines through an uninterrupted service."""
    table = Table(tmp_path / "reference" / "events.sqlite").start()
    table.feed(lines, scripted=scripted)
    result = logged(table.log), table.log.events()
    table.stop()
    return result


def crash_copy(log_path: Path, target: Path) -> Path:
    """The log's files as a `kill -9` leaves them (the WAL not checkpointed), copied to `target`."""
    target.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", ".seq"):
        source = log_path.with_name(log_path.name + suffix)
        if source.exists():
            shutil.copy(source, target / source.name)
    return target / log_path.name


def file_bytes(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir()) if path.is_file()
            and not path.name.endswith("-shm")}


@contextlib.contextmanager
def tmpfs(path: Path, size: str) -> Iterator[Path]:
    """A real, small tmpfs at `path` (needs root: the tests run as root here and in CI's container)."""
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()}): a full disk needs one")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(directory: Path) -> Path:
    """Fill the file system of `directory` to the last byte; returns the filler file."""
    filler = directory / "filler"
    with open(filler, "wb", buffering=0) as file, contextlib.suppress(OSError):
        while True:
            file.write(b"\0" * 4096)
    return filler


def wait_for(condition: threading.Condition, check: Any, timeout: float = 10.0) -> bool:
    with condition:
        return bool(condition.wait_for(check, timeout))
