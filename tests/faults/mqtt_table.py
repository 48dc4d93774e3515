"""A table served over a real mosquitto (the shipped ACL, a generated password file) for the
fault tests: the service with the real engine, its MQTT link, and the manager's and a viewer's
clients. Imported by the test modules (not a conftest, so other fault tests keep their own)."""

from __future__ import annotations

import json
import queue
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.app.assembly import engine_referee
from referee.app.core import MatchSettings
from referee.app.eventlog import EventLog
from referee.app.health import Health
from referee.app.mqtt import MqttLink, MqttSettings
from referee.app.ports import Input, RecordingDisplay
from referee.app.service import TableService
from tests.referee.app import conftest as app_tests
from tests.referee.app.conftest import USERS, Broker, Watcher

# The app tests' fixture (a real mosquitto with the shipped ACL), shared with the fault tests.
broker = app_tests.broker

# One hand of five tiles (turkish: seat 0 leads any tile); every tile of HAND fits one end only,
# and Ayşe goes out with her fifth, which ends the match.
SETTINGS = MatchSettings("t1", "turkish", ("Ayşe", "Burak"), options={"hand_size": 5, "hands": 1})
HAND = ["3-4", "4-4", "4-6", "6-6", "6-1", "1-1", "1-2", "2-2", "2-5"]


def settings_for(broker: Broker, user: str = "referee", table: str = "t1", **kwargs: Any) -> MqttSettings:
    return MqttSettings.from_url(broker.url, table, username=user, password=USERS.get(user, "nope"),
                                 **kwargs)


class Clock:
    """The table's injected time, moved by the test."""

    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


class Lines:
    """The link's lines, for waiting on (never sleeping)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.changed = threading.Condition()

    def __call__(self, line: str) -> None:
        with self.changed:
            self.lines.append(line)
            self.changed.notify_all()

    def wait_for(self, fragment: str, count: int = 1, timeout: float = 20) -> list[str]:
        def matching() -> list[str]:
            return [line for line in self.lines if fragment in line]
        with self.changed:
            assert self.changed.wait_for(lambda: len(matching()) >= count, timeout), (fragment, self.lines)
            return matching()


@dataclass
class MqttTable:
    service: TableService
    link: MqttLink
    log: EventLog
    manager: Watcher
    errors: Watcher          # subscribed to cmd/errors only
    display: RecordingDisplay
    clock: Clock
    lines: Lines = field(default_factory=Lines)
    processed: queue.Queue[tuple[Input, bool]] = field(default_factory=queue.Queue)

    def command(self, name: str, payload: str = "") -> None:
        reason = self.manager.publish(f"domino/t1/cmd/{name}", payload)
        assert not reason.is_failure, reason

    def answer(self, timeout: float = 10) -> dict[str, Any]:
        """The next message on cmd/errors."""
        result: dict[str, Any] = json.loads(self.errors.next("cmd/errors", timeout)[1])
        return result

    def no_answer(self, timeout: float = 0.5) -> bool:
        """No cmd/errors message arrives: proven by a probe command that must be answered first."""
        self.command("reboot", "probe")
        answer = self.answer(timeout=10)
        return "unknown command 'reboot'" in answer["error"]

    def feed(self, kind: str, **data: Any) -> None:
        self.clock.t += 2.0
        self.service.feed(Input(kind, data, self.clock.t))
        assert self.service.wait_processed(timeout=10)

    def close(self) -> None:
        self.service.stop()
        self.link.stop()
        self.manager.close()
        self.errors.close()
        self.log.close()


def serve(broker: Broker, tmp_path: Path, settings: MatchSettings = SETTINGS, **link: Any) -> MqttTable:
    clock = Clock()
    log = EventLog(tmp_path / "events.sqlite")
    display = RecordingDisplay()
    service = TableService(settings, log=log, referee_factory=engine_referee, display=display, now=clock,
                           records_dir=tmp_path / "records")
    lines = Lines()
    mqtt = MqttLink(settings_for(broker), on_command=service.command, outbox=log,
                    health=link.pop("health", Health()), say=lines, **link)
    service.publisher = mqtt
    errors = Watcher(broker, "viewer")
    errors.subscribe("domino/t1/cmd/errors")
    manager = Watcher(broker, "manager")
    table = MqttTable(service, mqtt, log, manager, errors, display, clock, lines)
    service.on_processed = lambda inp, logged: table.processed.put((inp, logged))
    mqtt.start()
    assert mqtt.subscribed.wait(10)
    service.start(tick_interval=None)
    return table
