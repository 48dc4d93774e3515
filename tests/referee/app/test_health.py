"""The health model: news only on change, the worst part wins, reminders while a fault lasts."""

from __future__ import annotations

from pathlib import Path

from referee.app.assembly import engine_referee
from referee.app.core import MatchSettings
from referee.app.eventlog import EventLog
from referee.app.health import Health, PartHealth, State
from referee.app.ports import Input, InputKind, RecordingDisplay
from referee.app.service import TableService


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_a_report_is_news_only_when_state_or_reason_changes() -> None:
    clock = Clock()
    health = Health(now=clock)
    heard: list[PartHealth] = []
    health.subscribe(heard.append)
    assert health.failed("camera", "cannot open camera index 7")
    clock.t += 5
    assert not health.failed("camera", "cannot open camera index 7")
    assert health.failed("camera", "camera index 7 still missing")
    assert [p.line() for p in heard] == ["camera failed: cannot open camera index 7",
                                         "camera failed: camera index 7 still missing"]
    assert heard[1].since == 1000.0          # the state did not change, so neither did `since`
    clock.t += 5
    assert health.ok("camera")
    assert heard[-1].since == 1010.0 and heard[-1].state == State.OK


def test_the_worst_part_is_the_table_s_state() -> None:
    health = Health(now=Clock())
    assert health.overall() == State.OK
    health.ok("mqtt")
    health.degraded("scoreboard", "reconnecting to /dev/ttyACM0")
    assert health.overall() == State.DEGRADED
    health.failed("disk", "No space left on device")
    assert health.overall() == State.FAILED
    document = health.as_dict()
    assert document["overall"] == "failed"
    assert document["parts"]["scoreboard"] == {"state": "degraded", "since": 1000.0,
                                               "why": "reconnecting to /dev/ttyACM0"}


def test_unhealthy_parts_are_said_again_while_they_last() -> None:
    clock = Clock()
    health = Health(now=clock, reminder_seconds=30)
    health.failed("mqtt", "broker refused the login: Not authorized")
    health.ok("camera")
    assert health.due_reminders() == []
    clock.t += 30
    assert [p.part for p in health.due_reminders()] == ["mqtt"]
    assert health.due_reminders() == []      # said now: not again until 30 s later
    clock.t += 31
    assert [p.part for p in health.due_reminders()] == ["mqtt"]


def settled(service: TableService) -> None:
    """Wait until the consumer has redrawn the board for every health change so far (a health
    change is not a numbered input, so a numbered one queued behind it is waited for)."""
    assert service.wait_processed(service.feed(Input(InputKind.SYNC, {}, 0.0)))


def test_the_scoreboard_keeps_the_match_s_messages_while_only_the_broker_or_pages_are_down(
        tmp_path: Path) -> None:
    health = Health(now=Clock())
    display = RecordingDisplay()
    settings = MatchSettings("t1", "turkish", ("Ayşe", "Burak"), options={"hand_size": 5, "hands": 1})
    service = TableService(settings, log=EventLog(tmp_path / "events.sqlite"), referee_factory=engine_referee,
                           display=display, health=health)
    service.start(tick_interval=None)
    service.feed(Input(InputKind.START, {}, 0.0))
    health.failed("mqtt", "broker 127.0.0.1:1883 refused the login")
    health.failed("web", "cannot listen on 0.0.0.0:8080")
    settled(service)
    assert display.last.message == "mqtt FAIL"          # the match has nothing to say: the trouble shows
    service.feed(Input(InputKind.PLACED, {"tile": "6-6"}, 1.0))   # the lead: the first seat's to make
    service.feed(Input(InputKind.PLACED, {"tile": "1-2"}, 2.0))   # fits no end
    assert service.wait_processed()
    assert display.last.message.startswith("1-2: ")     # a refusal the players must read wins over them
    health.failed("eventlog", "disk full")
    settled(service)
    assert display.last.message == "eventlog FAIL"      # the referee itself cannot go on: that wins
    service.stop()
    service.log.close()
