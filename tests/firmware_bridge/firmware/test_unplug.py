"""Unplugging mid-match: the host's link (firmware_bridge.link) resyncs the real firmware."""

from __future__ import annotations

import time
from pathlib import Path

from firmware_bridge.display import DisplayState, layout
from firmware_bridge.scoreboard import Scoreboard
from firmware_bridge.simavr import DisplayShown, SimulatedBoard
from tests.firmware_bridge.firmware.conftest import Builds

RESYNC = 2.0  # seconds a host may take to show everything again after the board is back
FAST_RECONNECT = {"reconnect_interval": 0.05}


def matches(shown: DisplayShown, state: DisplayState) -> bool:
    """Everything but the clock digits (they count on; checked against STATUS separately)."""
    expected = [cell.segments for cell in layout(state)]
    return list(shown.segments[:16]) == expected[:16] and list(shown.segments[20:]) == expected[20:]


def test_a_board_killed_and_restarted_mid_match_is_resynced_with_nothing_lost(builds: Builds,
                                                                                 tmp_path: Path) -> None:
    link = tmp_path / "scoreboard"
    first = SimulatedBoard(builds.firmware.path, builds.harness.path, link=link).start()
    with Scoreboard(str(link), link_options=FAST_RECONNECT) as scoreboard:
        scoreboard.show_scores([30, 45, 12, 0])
        scoreboard.run_clock(2, 90.0)
        scoreboard.leds(green=True, turn=2)
        first.wait_display(lambda shown: matches(shown, scoreboard.state), 1.0)
        first.kill()  # the USB cable is pulled: the port vanishes under the host
        deadline = time.monotonic() + 2.0
        while scoreboard.connected and time.monotonic() < deadline:
            scoreboard.link.wait_connected(0.01)  # returns at once; the loop waits on the link's state
        assert not scoreboard.connected, "the host did not notice the unplug"
        scoreboard.show_scores([35, 45, 12, 0])  # the referee goes on while the board is away
        beep = scoreboard.beep("ok")
        with SimulatedBoard(builds.firmware.path, builds.harness.path, link=link) as second:
            plugged = time.monotonic()
            assert scoreboard.wait_connected(RESYNC)
            shown = second.wait_display(lambda shown: matches(shown, scoreboard.state), RESYNC)
            assert shown.wall - plugged < RESYNC
            assert beep.wait(1.0) and second.wait_for(lambda b: len(b.buzzer_events) == 1, 1.0)
            assert second.wait_for(lambda b: b.leds == 0b010001, 1.0)
            status = scoreboard.status()
            assert abs(status.tenths - scoreboard.state.tenths) <= 1, "the clock was not resynced"
            assert status.flags & 1
            assert scoreboard.link.session.stats.reconnects == 1
    first.stop()


def test_a_restarted_host_reusing_seqs_is_not_taken_for_a_repeat(board: SimulatedBoard) -> None:
    before = Scoreboard(board.port)
    before.show_scores([1, 2])  # stored while disconnected: the handshake's SYNC carries it
    with before:  # HELLO #0, SYNC #1
        board.wait_display(lambda shown: matches(shown, before.state), 1.0)
    after = Scoreboard(board.port)  # a new host process counts from 0 again: HELLO #0, SYNC #1
    after.show_scores([70, 80])
    with after:
        board.wait_display(lambda shown: matches(shown, after.state), RESYNC)
        assert board.display_text().startswith("  70|  80|")


def test_a_board_reset_while_the_port_stays_open_is_resynced(board: SimulatedBoard) -> None:
    with Scoreboard(board.port) as scoreboard:
        scoreboard.show_scores([5, 10, 15])
        scoreboard.run_clock(1, 42.0)
        board.wait_display(lambda shown: matches(shown, scoreboard.state), 1.0)
        board.reset()  # a watchdog or brown-out reset: the firmware restarts blank, the port stays
        assert board.wait_for(lambda b: bool(b.of_kind("RESET")), 1.0)
        blank = board.wait_display(lambda shown: not any(shown.segments), 1.0)
        # the next heartbeat (at most 1 s later) gets NACK 6; the host then handshakes and resyncs
        back = board.wait_display(lambda shown: matches(shown, scoreboard.state), 1.0 + RESYNC)
        assert back.wall - blank.wall < 1.0 + RESYNC
        assert scoreboard.link.session.stats.board_resets == 1  # it saw NACK 6 (no handshake)
        assert abs(scoreboard.status().tenths - scoreboard.state.tenths) <= 1
