"""The host side's own wiring check (`domino-referee scoreboard test`) passes on the real firmware,
and what it asked for really happened on the simulated pins."""

from __future__ import annotations

import pytest

from firmware_bridge.simavr import SimulatedBoard
from referee.app.cli import main


def test_the_wiring_check_passes_against_the_firmware(board: SimulatedBoard,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scoreboard", "test", "--port", board.port, "--skip-buttons", "--pause", "0"]) == 0
    out = capsys.readouterr().out
    assert "all checks passed" in out, out
    # ok, warning (2), error, timeout (3), match-end (3 rising), in that order
    expected = [2000, 2000, 2000, 400, 1000, 1000, 1000, 1000, 1500, 2000]
    assert board.wait_for(lambda b: len(b.buzzer_events) >= len(expected), 2.0)
    heard = [tone.frequency_hz for tone in board.buzzer_events]
    assert heard == pytest.approx(expected, rel=0.02), heard
    lit = {int(o.fields[0], 16) for o in board.of_kind("LEDS")}
    assert {0b000001, 0b000010, 0b000100, 0b001000, 0b010000, 0b100000} <= lit, sorted(lit)
