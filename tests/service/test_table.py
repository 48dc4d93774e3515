"""The service's own mechanics with a controlled clock: ordering, log-before-act, refusals, resume."""

from __future__ import annotations

from pathlib import Path

from referee.service.eventlog import EventLog
from referee.service.ports import Input, RecordingDisplay, RecordingSignals
from referee.service.service import TableService
from referee.service.table import MatchSettings

from .fakes import FakeReferee

SETTINGS = MatchSettings("t1", "turkish", ("Ayşe", "Burak"))


class ManualClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Capture:
    def __init__(self) -> None:
        self.states: list[dict[str, object]] = []
        self.events: list[tuple[int, str]] = []
        self.errors: list[str] = []

    def publish_state(self, document: dict[str, object]) -> None:
        self.states.append(document)

    def publish_event(self, seq: int, payload: str) -> None:
        self.events.append((seq, payload))

    def publish_error(self, message: str, received: str = "") -> None:
        self.errors.append(message)


Made = tuple[TableService, RecordingDisplay, RecordingSignals, Capture]


def make(tmp_path: Path, clock: ManualClock) -> Made:
    display, signals, capture = RecordingDisplay(), RecordingSignals(), Capture()
    service = TableService(SETTINGS, log=EventLog(tmp_path / "log.sqlite"),
                           referee_factory=lambda s: FakeReferee(s.players), display=display,
                           signals=signals, publisher=capture, now=clock, records_dir=tmp_path / "records")
    return service, display, signals, capture


def feed_all(service: TableService, clock: ManualClock, inputs: list[tuple[str, dict[str, object]]]) -> None:
    for kind, data in inputs:
        clock.now += 2.0
        service.feed(Input(kind, data, clock.now))
    assert service.wait_processed(timeout=10)


def test_illegal_play_waits_until_the_tile_is_taken_back(tmp_path: Path) -> None:
    clock = ManualClock()
    service, display, signals, _capture = make(tmp_path, clock)
    service.start(tick_interval=None)
    feed_all(service, clock, [("placed", {"tile": "1-2"}), ("start", {}), ("placed", {"tile": "3-4"}),
                              ("placed", {"tile": "5-6"})])
    assert display.last.message.startswith("5-6: 5-6 does not match an open end")
    assert signals.played == ["error", "ok", "error"]   # before Start, the play is refused too
    feed_all(service, clock, [("placed", {"tile": "4-5"})])   # still waiting for 5-6 to go
    assert display.last.message == "take back 5-6 first" and signals.played[-1] == "error"
    feed_all(service, clock, [("removed", {"tile": "5-6"}), ("placed", {"tile": "4-5"})])
    assert service.core is not None and service.core.on_table() == {"3-4", "4-5"}
    assert display.last.turn == "Ayşe" and display.last.message == ""
    kinds = [entry.kind for entry in service.log.inputs(service.match_id)]
    assert kinds == ["start", "placed", "placed", "removed", "placed"]
    assert service.log.inputs(service.match_id)[1].t == 2.0   # match time: seconds since Start
    service.stop()


def test_undo_and_resume_after_a_crash(tmp_path: Path) -> None:
    clock = ManualClock()
    service, _display, _signals, _capture = make(tmp_path, clock)
    service.start(tick_interval=None)
    feed_all(service, clock, [("start", {}), ("placed", {"tile": "3-4"}), ("placed", {"tile": "4-4"}),
                              ("undo", {}), ("placed", {"tile": "4-6"}), ("pass", {})])
    service.stop()
    assert service.core is not None
    before = service.core.state(service.core.last_t)
    events = service.log.events()
    assert [e["event"] for e in events] == ["start", "play", "play", "undo", "play", "pass"]
    # A new process on the same log: the same table, nothing added to the outbox, a full sync.
    again, display2, _, capture2 = make(tmp_path, clock)
    assert again.resume()
    assert again.core is not None and again.core.state(again.core.last_t) == before
    assert again.log.events() == events and display2.syncs == 1 and capture2.states[-1] == before
    again.start(tick_interval=None)
    feed_all(again, clock, [("placed", {"tile": "6-6"}), ("revealed", {"zone": 0, "tiles": []})])
    assert again.match_over.is_set() and (tmp_path / "records" / "match-1.json").exists()
    assert [e["event"] for e in again.log.events()][-3:] == ["reveal", "hand", "match"]
    again.stop()
    third, *_ = make(tmp_path, clock)
    assert not third.resume()     # a finished match is not resumed


def test_bad_inputs_change_nothing(tmp_path: Path) -> None:
    clock = ManualClock()
    service, _display, _signals, capture = make(tmp_path, clock)
    service.start(tick_interval=None)
    feed_all(service, clock, [("start", {}), ("start", {}), ("undo", {}), ("undo", {}),
                              ("placed", {"tile": "x"}), ("removed", {"tile": "x"})])
    assert "a match is running" in capture.errors[0]
    assert service.core is not None and service.core.on_table() == set()
    assert [e["event"] for e in service.log.events()][1:] == ["refused", "refused", "refused", "taken-back"]
    service.stop()
