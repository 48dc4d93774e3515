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


def test_an_undone_play_gives_its_time_back_and_a_restart_keeps_it(tmp_path: Path) -> None:
    now = [500.0]
    settings = MatchSettings("t1", "italian", ("Ayşe", "Burak"), options={"target": 20})

    def table() -> tuple[TableService, RecordingDisplay, RecordingSignals]:
        display, signals = RecordingDisplay(), RecordingSignals()
        service = TableService(settings, log=EventLog(tmp_path / "log.sqlite"),
                               referee_factory=engine_referee, display=display, signals=signals,
                               now=lambda: now[0])
        return service, display, signals

    service, display, signals = table()
    service.start(tick_interval=None)

    def at(seconds: float, kind: str, **data: object) -> None:
        now[0] = 500.0 + seconds
        service.feed(Input(kind, data, now[0]))
        assert service.wait_processed(timeout=10)

    at(0, "start")
    at(1, "lead", player="Ayşe")
    at(3, "placed", tile="6-6")
    at(15, "placed", tile="6-2")                     # Burak took 12 s: his next move would have 25 s
    assert display.last.turn == "Ayşe" and display.last.clock == 25.0
    at(19, "tick")
    at(25, "undo")                                   # misread: Burak's move runs again, 20 s from 25
    assert display.last.turn == "Burak" and display.last.clock == 20.0 and display.last.clock_since == 25.0
    at(34.9, "tick")
    assert "warning" not in signals.played           # 10.1 s left: the 12 s of the undone move are back
    at(35.2, "tick")
    assert signals.played.count("warning") == 1
    core = service.core
    assert core is not None and core.side is not None
    assert core.side.clock.standing["Burak"].main == 20.0
    state = core.state(35.2)
    service.stop()
    # Replaying the log after a crash gives the same clocks.
    again, display2, _ = table()
    assert again.resume() and again.core is not None
    assert again.core.state(35.2) == state and display2.last.clock_since == 25.0


def test_the_board_clock_is_set_again_when_the_same_player_moves_again() -> None:
    from firmware_bridge.scoreboard import Scoreboard
    from referee.service.devices import ScoreboardDisplay
    from referee.service.ports import BoardView

    board = Scoreboard("emulator://", connect_timeout=5).open()
    try:
        assert board.emulator is not None
        adapter = ScoreboardDisplay(board, ("Ayşe", "Burak"), lambda: 0.0)
        scores = (("Ayşe", 0.0), ("Burak", 0.0))
        adapter.show(BoardView(scores=scores, turn="Ayşe", clock=8.0, clock_since=10.0, phase="playing"))
        assert board.emulator.wait_for(lambda model: model.state.seat == 0 and model.state.tenths <= 80, 5)
        # An undo gave Ayşe her 20 s back: same player, same hand, a clock started afresh.
        adapter.show(BoardView(scores=scores, turn="Ayşe", clock=20.0, clock_since=22.0, phase="playing"))
        assert board.emulator.wait_for(lambda model: model.state.tenths > 190, 5), board.emulator.text()
    finally:
        board.close()
