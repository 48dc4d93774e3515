"""`domino-referee scoreboard test|show` against the emulator."""

from __future__ import annotations

import pytest

from referee.app.cli import main


def test_scoreboard_test_passes_on_the_emulator(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scoreboard", "test", "--port", "emulator://", "--pause", "0", "--button-timeout", "2"]) == 0
    out = capsys.readouterr().out
    assert "connected to emulator://: protocol 1, firmware 1.0, 24 digits" in out
    assert "beep: match-end" in out and "continue: ok" in out
    assert out.rstrip().endswith("all checks passed")


def test_scoreboard_show_draws_the_emulator_display(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["scoreboard", "show", "--port", "emulator://", "--scores", "12,30", "--clock", "2:20",
            "--compact"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    clock = out[21:26]  # shown after the STATUS answer: 20.0, or 19.9 on a slow machine
    assert out.replace(clock, "CLOCK", 1).startswith("[  12|  30|    |    |CLOCK|P2  ]  LEDs:")
    assert clock in (" 20.0", " 19.9")


def test_a_missing_port_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scoreboard", "show", "--port", "/nonexistent/ttyACM9", "--connect-timeout", "0.2"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("domino-referee: error: scoreboard /nonexistent/ttyACM9: not connected after 0.2 s")
    assert "No such file or directory" in err and err.count("\n") == 1
