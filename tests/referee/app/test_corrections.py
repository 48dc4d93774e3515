"""The table manager's corrections through the real service and engine: "the tile just played is
3-5, not 3-6" and "this play was not seen"; logged, published, in the record, replayed on resume."""

from __future__ import annotations

import json
from pathlib import Path

from referee.app.assembly import engine_referee
from referee.app.core import MatchSettings
from referee.app.eventlog import EventLog
from referee.app.ports import Input
from referee.app.service import TableService

# Muggins scores each play, so a correction shows in the scores; the target ends the match early.
SETTINGS = MatchSettings("c1", "muggins", ("Ayşe", "Burak"), options={"target": 150})


class Capture:
    def __init__(self) -> None:
        self.events: list[dict[str, object]] = []
        self.states: list[dict[str, object]] = []

    def publish_state(self, document: dict[str, object]) -> None:
        self.states.append(dict(document))

    def publish_event(self, seq: int, payload: str) -> None:
        self.events.append(json.loads(payload))

    def publish_error(self, message: str, received: str = "") -> None:
        pass


def service_at(path: Path) -> tuple[TableService, Capture]:
    capture = Capture()
    clock = iter(range(100, 10_000, 2))
    service = TableService(SETTINGS, log=EventLog(path / "log.sqlite"), referee_factory=engine_referee,
                           publisher=capture, now=lambda: float(next(clock)), records_dir=path / "records")
    return service, capture


def feed(service: TableService, *inputs: tuple[str, dict[str, object]]) -> None:
    for kind, data in inputs:
        service.feed(Input(kind, data, service.now()))
    assert service.wait_processed(timeout=10)


OPENING = (("start", {}), ("lead", {"player": "Ayşe"}), ("placed", {"tile": "5-5"}),
           ("placed", {"tile": "5-0"}))


def test_a_misread_play_is_corrected_logged_and_in_the_record(tmp_path: Path) -> None:
    service, capture = service_at(tmp_path)
    service.start(tick_interval=None)
    try:
        feed(service, *OPENING)
        core = service.core
        assert core is not None and core.scores() == {"Ayşe": 10.0, "Burak": 10.0}
        feed(service, ("correct", {"tile": "5-3"}))
        assert core.scores() == {"Ayşe": 10.0, "Burak": 0.0}
        assert core.turn() == "Ayşe" and core.last_play is not None and core.last_play["tile"] == "5-3"
        assert capture.events[-1] == {**capture.events[-1], "event": "correct", "player": "Burak",
                                      "tile": "5-3", "was": "5-0", "points": 0}
        assert capture.states[-1]["corrections"] == [
            {"kind": "correct", "player": "Burak", "tile": "5-3", "was": "5-0", "end": "left",
             "t": capture.events[-1]["t"]}]
        # The camera still sees the right tile on the table: nothing new to log.
        feed(service, ("placed", {"tile": "3-5"}))   # as vision names it (low-high)
        logged = [(i.kind, dict(i.data)) for i in service.log.inputs(service.match_id)]
        assert logged[-1] == ("correct", {"tile": "5-3"})
        record = service.call(service.record).result(10)
        assert record is not None
        plays = [e["play"] for e in record["hands"][0]["events"] if "play" in e]
        assert plays == ["5-5", "5-3"] and record["corrections"][0]["was"] == "5-0"
    finally:
        service.stop()


def test_a_correction_that_does_not_fit_changes_nothing(tmp_path: Path) -> None:
    service, capture = service_at(tmp_path)
    service.start(tick_interval=None)
    try:
        feed(service, *OPENING)
        core = service.core
        assert core is not None
        before = (core.scores(), core.turn(), sorted(core.on_table()))
        for data in ({"tile": "6-6"}, {"tile": "5-3", "end": "up"}, {"tile": "9-9"}):
            feed(service, ("correct", data))
            assert capture.events[-1]["event"] == "refused" and "cannot correct 5-0" in core.message, data
            assert (core.scores(), core.turn(), sorted(core.on_table())) == before
        feed(service, ("missed", {"player": "Burak", "tile": "0-0"}))   # Ayşe is on move
        assert capture.events[-1]["error"] == "it is Ayşe's move, not Burak's"
        assert core.corrections == []
    finally:
        service.stop()


def test_a_missed_play_is_entered_and_a_resume_replays_the_corrections(tmp_path: Path) -> None:
    service, _ = service_at(tmp_path)
    service.start(tick_interval=None)
    feed(service, *OPENING, ("correct", {"tile": "5-3"}), ("missed", {"player": "Ayşe", "tile": "5-1"}))
    core = service.core
    assert core is not None
    state = core.state(core.last_t)
    assert state["last_play"] == {**state["last_play"], "player": "Ayşe", "tile": "5-1", "end": "right"}
    assert [c["kind"] for c in state["corrections"]] == ["correct", "missed"]
    service.stop()
    service.log.close()
    # A crash and a restart: the log's inputs rebuild the same table, corrections included.
    again, _ = service_at(tmp_path)
    assert again.resume()
    assert again.core is not None
    resumed = again.core.state(again.core.last_t)
    for key in ("scores", "turn", "line", "last_play", "corrections", "table_tiles"):
        assert resumed[key] == state[key], key
    again.log.close()
