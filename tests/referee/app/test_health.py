"""The health model: news only on change, the worst part wins, reminders while a fault lasts."""

from __future__ import annotations

from referee.app.health import Health, PartHealth, State


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
