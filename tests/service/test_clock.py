"""The move clock through the service: ticks from an injected clock give warnings and timeouts."""

from __future__ import annotations

from pathlib import Path

from referee.service.app import engine_referee
from referee.service.eventlog import EventLog
from referee.service.ports import Input, RecordingDisplay, RecordingSignals
from referee.service.service import TableService
from referee.service.table import MatchSettings


def test_italian_clock_warns_then_the_flag_falls(tmp_path: Path) -> None:
    now = [500.0]
    display, signals = RecordingDisplay(), RecordingSignals()
    settings = MatchSettings("t1", "italian", ("Ayşe", "Burak"), options={"target": 20})
    service = TableService(settings, log=EventLog(tmp_path / "log.sqlite"), referee_factory=engine_referee,
                           display=display, signals=signals, now=lambda: now[0])
    service.start(tick_interval=None)

    def at(seconds: float, kind: str, **data: object) -> None:
        now[0] = 500.0 + seconds
        service.feed(Input(kind, data, now[0]))
        assert service.wait_processed(timeout=10)

    at(0, "start")
    at(1, "lead", player="Ayşe")
    at(3, "placed", tile="6-6")                      # Burak's first move: 20 s, from t = 3
    assert display.last.turn == "Burak" and display.last.clock == 20.0
    at(12.9, "tick")
    assert "warning" not in signals.played
    at(13.1, "tick")                                 # 9.9 s left: one warning
    at(14, "tick")
    assert signals.played.count("warning") == 1
    at(23.2, "tick")                                 # the flag falls: italian loses the match
    assert service.match_over.is_set()
    assert "timeout" in signals.played
    events = service.log.events()
    names = [e["event"] for e in events if e["event"] != "findings"]
    assert names[-2:] == ["timeout", "match"]
    assert events[-1]["result"]["winners"] == ["Ayşe"]
    kinds = [i.kind for i in service.log.inputs(service.match_id)]
    assert kinds == ["start", "lead", "placed", "timeout"]   # ticks and warnings are not logged
    service.stop()
