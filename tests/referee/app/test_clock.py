"""The move clock through the service: ticks from an injected clock give warnings and timeouts."""

from __future__ import annotations

from pathlib import Path

from .clocked import ClockedTable


def test_italian_clock_warns_then_the_flag_falls(tmp_path: Path) -> None:
    table = ClockedTable(tmp_path / "log.sqlite")
    service, display, signals, at = table.service, table.display, table.signals, table.at
    service.start(tick_interval=None)

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
    table = ClockedTable(tmp_path / "log.sqlite")
    service, display, signals, at = table.service, table.display, table.signals, table.at
    service.start(tick_interval=None)

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
    restarted = ClockedTable(tmp_path / "log.sqlite")
    again = restarted.service
    assert again.resume() and again.core is not None
    assert again.core.state(35.2) == state and restarted.display.last.clock_since == 25.0


def test_the_board_clock_is_set_again_when_the_same_player_moves_again() -> None:
    from firmware_bridge.scoreboard import Scoreboard
    from referee.app.devices import ScoreboardDisplay
    from referee.app.ports import BoardView

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
