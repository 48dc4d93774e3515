"""The watchdog resets a board whose main loop hangs (a test build adds a message that hangs it)."""

from __future__ import annotations

from pathlib import Path

from cobs import cobs

from firmware_bridge.display import DisplayState, layout
from firmware_bridge.protocol.codec import Ack, Heartbeat, Nack, NackReason, SetScores, crc16
from firmware_bridge.simavr import SimulatedBoard, build_firmware
from tests.firmware_bridge.firmware.conftest import Builds
from tests.firmware_bridge.firmware.driver import Driver

TEST_STALL = 0x7F


def test_a_hung_main_loop_is_reset_by_the_watchdog_within_about_1_s(builds: Builds, tmp_path: Path) -> None:
    hooks = build_firmware(tmp_path / "hooks", test_hooks=True)
    assert "warning" not in hooks.output.lower()
    with SimulatedBoard(hooks.path, builds.harness.path, link=tmp_path / "board", trace=["uart"]) as board:
        host = Driver(board.port)
        host.handshake()
        assert host.request(SetScores((4, 2))).message == Ack()
        body = bytes([TEST_STALL, 9])
        host.write(cobs.encode(body + crc16(body).to_bytes(2, "big")) + b"\x00")
        assert board.wait_for(lambda b: bool(b.of_kind("RESET")), 2.0), "the watchdog never fired"
        hung, reset = board.wait_frame_ends("RX", 3)[2], board.of_kind("RESET")[0].sim_us
        assert 1.0 <= (reset - hung) / 1e6 <= 1.05  # WDTO_1S from the last wdt_reset()
        assert host.collect(0.1) == [], "a hung board answered"
        assert host.request(Heartbeat()).message == Nack(NackReason.NO_HANDSHAKE)
        host.handshake()
        assert host.request(SetScores((4, 3))).message == Ack()
        board.wait_display([cell.segments for cell in layout(DisplayState(scores=(4, 3)))], 1.0)
        assert board.of_kind("BUTTON") == [] and host.collect(0.2) == [], "phantom button presses"
        host.close()
