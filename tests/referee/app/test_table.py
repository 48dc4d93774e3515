"""The service's own mechanics with a controlled clock: ordering, log-before-act, refusals, resume."""

from __future__ import annotations

from pathlib import Path

from referee.app.assembly import engine_referee
from referee.app.core import MatchSettings
from referee.app.eventlog import EventLog
from referee.app.ports import Input, RecordingDisplay, RecordingSignals
from referee.app.service import TableService

# The real engine as `domino-referee run` builds it; one hand of five tiles keeps the match short
# (turkish: seat 0 leads any tile, going out ends the hand, the hand's end ends this match).
SETTINGS = MatchSettings("t1", "turkish", ("Ayşe", "Burak"), options={"hand_size": 5, "hands": 1})
# Ayşe goes out with her fifth tile; every tile fits one open end only.
HAND = ["3-4", "4-4", "4-6", "6-6", "6-1", "1-1", "1-2", "2-2", "2-5"]


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
                           referee_factory=engine_referee, display=display,
                           signals=signals, publisher=capture, now=clock, records_dir=tmp_path / "records")
    return service, display, signals, capture


def feed_all(service: TableService, clock: ManualClock, inputs: list[tuple[str, dict[str, object]]]) -> None:
    for kind, data in inputs:
        clock.now += 2.0
        service.feed(Input(kind, data, clock.now))
    assert service.wait_processed(timeout=10)


def placed(tiles: list[str]) -> list[tuple[str, dict[str, object]]]:
    return [("placed", {"tile": tile}) for tile in tiles]


def test_illegal_play_waits_until_the_tile_is_taken_back(tmp_path: Path) -> None:
    clock = ManualClock()
    service, display, signals, _capture = make(tmp_path, clock)
    service.start(tick_interval=None)
    feed_all(service, clock, [("placed", {"tile": "1-2"}), ("start", {}), ("placed", {"tile": "3-4"}),
                              ("placed", {"tile": "5-6"})])
    assert display.last.message == ("5-6: 5-6 does not match the open ends 3 (left) and 4 (right)"
                                    " - take it back")
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
    # Burak's 4-4 was misread: undone, it is his turn again; he draws one tile, then plays 4-4.
    feed_all(service, clock, [("start", {}), *placed(HAND[:2]), ("undo", {}), ("boneyard", {"count": 17}),
                              *placed(HAND[1:4])])
    service.stop()
    assert service.core is not None and service.core.on_table() == set(HAND[:4])
    before = service.core.state(service.core.last_t)
    assert before["turn"] == "Ayşe" and before["hand_sizes"] == {"Ayşe": 3, "Burak": 4}
    events = service.log.events()
    assert [e["event"] for e in events] == ["start", "play", "play", "undo", "draw", "play", "play", "play"]
    # A new process on the same log: the same table, nothing added to the outbox, a full sync.
    again, display2, _, capture2 = make(tmp_path, clock)
    assert again.resume()
    assert again.core is not None and again.core.state(again.core.last_t) == before
    assert again.log.events() == events and display2.syncs == 1
    assert capture2.states[-1] == {**before, "health": {"overall": "ok", "parts": {}}}
    again.start(tick_interval=None)
    feed_all(again, clock, [*placed(HAND[4:]), ("revealed", {"zone": 1, "tiles": ["0-0", "0-3"]})])
    assert again.match_over.is_set() and (tmp_path / "records" / "match-1.json").exists()
    tail = again.log.events()[-4:]
    assert [e["event"] for e in tail] == ["reveal", "findings", "hand", "match"]
    # The reveal is audited: Burak drew while he held the 4-4 he then played.
    assert tail[1]["findings"] == ["Burak drew (move 2) while able to play "
                                   "(one of 0-3, 4-4 was already held)"]
    assert again.core.scores() == {"Ayşe": 0.0, "Burak": 23.0}   # the double blank counts 20
    again.stop()
    third, *_ = make(tmp_path, clock)
    assert not third.resume()     # a finished match is not resumed


def test_bad_inputs_change_nothing(tmp_path: Path) -> None:
    clock = ManualClock()
    service, display, _signals, capture = make(tmp_path, clock)
    service.start(tick_interval=None)
    feed_all(service, clock, [("start", {}), ("start", {}), ("undo", {}), ("undo", {}),
                              ("placed", {"tile": "x"}), ("removed", {"tile": "x"})])
    # A button's Start during a match is said on the scoreboard; cmd/errors answers only commands.
    assert any("a match is running" in view.message for view in display.views)
    assert capture.errors == []
    assert service.core is not None and service.core.on_table() == set()
    assert [e["event"] for e in service.log.events()][1:] == ["refused", "refused", "refused", "taken-back"]
    assert service.core.referee.accepted == [(0, {"start": True, "t": 0.0})]   # Start is not undone
    service.stop()


def test_a_tile_already_down_is_no_news_whichever_way_it_is_written(tmp_path: Path) -> None:
    clock = ManualClock()
    service, display, signals, _capture = make(tmp_path, clock)
    service.start(tick_interval=None)
    feed_all(service, clock, [("start", {}), ("placed", {"tile": "3-4"}), ("placed", {"tile": "4-3"}),
                              ("removed", {"tile": "4-3"})])
    assert service.core is not None and service.core.on_table() == {"3-4"}
    # The second sighting (written high-low) was neither logged nor refused; its leaving is the
    # table manager's to undo, however it is written.
    assert [i.kind for i in service.log.inputs(service.match_id)] == ["start", "placed"]
    assert "error" not in signals.played
    assert display.last.message == "4-3 left the table: press Undo if it was misread"
    service.stop()
