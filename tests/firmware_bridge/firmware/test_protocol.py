"""The firmware under simavr speaks docs/serial-protocol.md; what it shows is read back from the
MAX7219 writes the harness recorded, and compared with the emulator's layout of the same state."""

from __future__ import annotations

from firmware_bridge.display import DisplayState, layout
from firmware_bridge.protocol.codec import (
    Ack,
    Beep,
    BeepPattern,
    Frame,
    Heartbeat,
    Hello,
    HelloReply,
    Leds,
    Nack,
    NackReason,
    SetClock,
    SetScores,
    ShowMessage,
    Status,
    StatusReply,
    Sync,
    crc16,
)
from firmware_bridge.simavr import SimulatedBoard
from tests.firmware_bridge.firmware.driver import Driver

SHOW = 2.0  # seconds allowed for a change to reach the digits (it takes a few ms)
QUIET = 0.3  # seconds to listen for frames that must not come


def segments(state: DisplayState, **options: object) -> list[int]:
    return [cell.segments for cell in layout(state, **options)]  # type: ignore[arg-type]


def raw_frame(type_code: int, seq: int, payload: bytes) -> bytes:
    """A frame with a valid CRC whatever the payload (the codec refuses to build bad ones)."""
    from cobs import cobs

    body = bytes([type_code, seq]) + payload
    return cobs.encode(body + crc16(body).to_bytes(2, "big")) + b"\x00"


def test_hello_is_answered_with_version_and_digits(host: Driver) -> None:
    assert host.handshake() == HelloReply(version=1, firmware_major=1, firmware_minor=0, digits=24)
    assert host.request(Hello(version=2)).message == Nack(NackReason.UNSUPPORTED_VERSION)


def test_nothing_is_applied_before_the_handshake(host: Driver, board: SimulatedBoard) -> None:
    assert host.request(SetScores((5, 6))).message == Nack(NackReason.NO_HANDSHAKE)
    assert host.request(Heartbeat()).message == Nack(NackReason.NO_HANDSHAKE)
    host.handshake()
    assert host.request(SetScores((5, 6))).message == Ack()
    board.wait_display(segments(DisplayState(scores=(5, 6))), SHOW)


def test_scores_and_clock_reach_the_24_digits(host: Driver, board: SimulatedBoard) -> None:
    host.handshake()
    assert host.request(SetScores((12, -30, 5, 10000))).message == Ack()
    assert host.request(SetClock(2, 754, running=False)).message == Ack()
    state = DisplayState(scores=(12, -30, 5, 10000), seat=2, tenths=754)
    shown = board.wait_display(segments(state), SHOW)
    assert board.display_text() == "  12| -30|   5|----| 1.15|P3--"
    assert shown.text == "  12 -30   5---- 115P3--"
    assert host.request(SetClock(0, 95, away=True)).message == Ack()
    board.wait_display(segments(DisplayState(scores=(12, -30, 5, 10000), seat=0, tenths=95, away=True)), SHOW)
    assert board.display_text().endswith("|  9.5|P1 A")
    assert host.request(SetClock(None)).message == Ack()
    board.wait_display(segments(DisplayState(scores=(12, -30, 5, 10000))), SHOW)


def test_long_clocks_and_messages(host: Driver, board: SimulatedBoard) -> None:
    host.handshake()
    for tenths, text in ((36000, "60.00"), (65535, "99.59"), (600, " 1.00"), (599, " 59.9"), (0, "  0.0")):
        assert host.request(SetClock(3, tenths)).message == Ack()
        board.wait_display(segments(DisplayState(seat=3, tenths=tenths)), SHOW)
        assert board.display_text().split("|")[4] == text
    assert host.request(ShowMessage("1.2.3 go.Mix")).message == Ack()
    board.wait_display(segments(DisplayState(seat=3, message="1.2.3 go.Mix")), SHOW)
    assert board.display_text().startswith("1.2.3 |Go. i|")  # '.' lights the previous digit's point


def test_garbage_gets_nack_1_and_nothing_else(host: Driver, board: SimulatedBoard) -> None:
    host.handshake()
    assert host.request(SetScores((7,))).message == Ack()
    before = board.wait_display(segments(DisplayState(scores=(7,))), SHOW)
    good = Frame(9, SetScores((99,))).encode()
    bad_crc = good[:-3] + bytes([good[-3] ^ 0x01]) + good[-2:]
    for garbage in (b"\x01\x02\x00", bad_crc, b"\x05\x11\x00", bytes(range(1, 100)) + b"\x00"):
        host.write(garbage)
        answers = host.collect(QUIET)
        assert [received.frame for received in answers] == [Frame(255, Nack(NackReason.BAD_CRC))], garbage
    host.write(b"\x00\x00")  # empty frames: a sender's resync, not garbage
    assert host.collect(QUIET) == []
    assert board.display == before, "garbage changed the display"
    status = host.request(Status()).message
    assert isinstance(status, StatusReply) and status.garbage_frames == 4


def test_bad_frames_get_their_reasons(host: Driver) -> None:
    host.handshake()
    host.write(raw_frame(0x42, 20, b""))
    assert host.next().frame == Frame(20, Nack(NackReason.UNKNOWN_TYPE))
    host.write(raw_frame(0x02, 21, bytes([2, 0, 1])))
    assert host.next().frame == Frame(21, Nack(NackReason.BAD_LENGTH))
    host.write(raw_frame(0x02, 22, bytes([5]) + bytes(10)))
    assert host.next().frame == Frame(22, Nack(NackReason.BAD_VALUE))
    host.write(raw_frame(0x03, 23, bytes([7, 0, 10, 1])))
    assert host.next().frame == Frame(23, Nack(NackReason.BAD_VALUE))
    host.write(raw_frame(0x04, 24, b"\x00\x00caf\xc3\xa9"))
    assert host.next().frame == Frame(24, Nack(NackReason.BAD_VALUE))
    host.write(raw_frame(0x05, 25, bytes([9])))
    assert host.next().frame == Frame(25, Nack(NackReason.BAD_VALUE))
    host.write(raw_frame(0x06, 26, bytes([0x04])))
    assert host.next().frame == Frame(26, Nack(NackReason.BAD_VALUE))
    # a rejected frame is not remembered: the corrected one with the same seq is applied
    assert host.request(SetScores((3,)), seq=26).message == Ack()


def test_a_repeated_seq_is_acknowledged_but_not_applied_twice(host: Driver, board: SimulatedBoard) -> None:
    host.handshake()
    assert host.request(Beep(BeepPattern.OK), seq=40).message == Ack()
    assert host.request(Beep(BeepPattern.OK), seq=40).message == Ack()  # "our ACK was lost"
    assert host.request(SetScores((1, 2)), seq=40).message == Ack()  # same seq: still a repeat
    assert host.request(Status()).message  # the next seq is applied again
    assert board.wait_for(lambda b: len(b.buzzer_events) == 1, SHOW)
    assert host.collect(QUIET) == []
    assert len(board.buzzer_events) == 1, "a repeated BEEP sounded twice"
    assert board.display_text().startswith("    |    |"), "a repeated SET_SCORES was applied"
    # HELLO is never a repeat and makes the board forget the last seq (a restarted host)
    assert isinstance(host.request(Hello(), seq=0).message, HelloReply)
    assert host.request(SetScores((8, 9)), seq=0).message == Ack()
    board.wait_display(segments(DisplayState(scores=(8, 9))), SHOW)


def test_sync_leds_and_status(host: Driver, board: SimulatedBoard) -> None:
    host.handshake()
    state = DisplayState(scores=(100, 200), seat=1, tenths=1234, warning=False, green=True,
                         turn=frozenset({1, 3}), message="", message_tenths=0)
    assert host.request(Sync(state)).message == Ack()
    board.wait_display(segments(state), SHOW)
    assert board.wait_for(lambda b: b.leds == 0b101001, SHOW), f"LED pins {board.leds:#x}"
    assert host.request(Leds(red=True, turn=frozenset({0}))).message == Ack()
    assert board.wait_for(lambda b: b.leds == 0b000110, SHOW)
    status = host.request(Status()).message
    assert status == StatusReply(tenths=1234, flags=0, garbage_frames=0, uptime_s=status.uptime_s)
    assert host.request(Sync(DisplayState())).message == Ack()  # a fresh host's empty state
    board.wait_display(segments(DisplayState()), SHOW)
    assert board.wait_for(lambda b: b.leds == 0, SHOW)


def test_a_timed_message_goes_away_by_itself(host: Driver, board: SimulatedBoard) -> None:
    host.handshake()
    assert host.request(SetScores((42,))).message == Ack()
    host.write(Frame(50, ShowMessage("PASS", tenths=5)).encode())
    assert host.next().frame == Frame(50, Ack())
    arrived = board.wait_frame_ends("RX", 3)[2]
    shown = board.wait_display(segments(DisplayState(scores=(42,), message="PASS")), SHOW)
    gone = board.wait_display(segments(DisplayState(scores=(42,))), SHOW)
    # the frame takes 0.7 ms, then each of the 4 changed rows 6 SPI bytes (0.1 ms each under simavr)
    assert shown.sim_us - arrived < 6000
    assert abs((gone.sim_us - shown.sim_us) / 1000 - 500) <= 2
