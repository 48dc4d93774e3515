"""The board model (what the emulator and the firmware do) and the display layout, on exact times."""

from __future__ import annotations

import pytest

from firmware_bridge.display import DisplayState, cells_text, clock_text, layout
from firmware_bridge.protocol.board import BoardModel
from firmware_bridge.protocol.codec import (
    SEQ_UNKNOWN,
    Ack,
    Beep,
    ButtonEvent,
    Frame,
    FrameProtocol,
    Hello,
    HelloReply,
    Message,
    Nack,
    NackReason,
    SetClock,
    SetScores,
    ShowMessage,
    Status,
    StatusReply,
    Sync,
)


def answers(board: BoardModel, frame: Frame, now: float) -> list[Message]:
    return [f.message for f in FrameProtocol().feed(board.receive(frame.encode(), now))]


def greeted(now: float = 0.0) -> BoardModel:
    board = BoardModel(now=now)
    assert answers(board, Frame(0, Hello()), now) == [HelloReply(1, 1, 0, 24)]
    return board


def test_before_hello_everything_is_refused_with_nack_6() -> None:
    board = BoardModel()
    assert answers(board, Frame(4, SetScores((1,))), 0.1) == [Nack(NackReason.NO_HANDSHAKE)]
    assert board.state.scores == ()
    assert answers(board, Frame(5, Hello(2)), 0.2) == [Nack(NackReason.UNSUPPORTED_VERSION)]


def test_a_duplicate_is_answered_again_but_applied_once() -> None:
    board = greeted()
    assert answers(board, Frame(1, Beep()), 0.1) == [Ack()]
    assert answers(board, Frame(1, Beep()), 0.2) == [Ack()]
    assert len(board.beeps) == 1 and board.duplicates == 1
    assert answers(board, Frame(2, Status()), 0.3) == [StatusReply(0, 0, 0, 0)]
    assert answers(board, Frame(2, Status()), 0.4) == [StatusReply(0, 0, 0, 0)]


def test_hello_resets_duplicate_memory_so_a_restarted_host_is_heard() -> None:
    board = greeted()
    answers(board, Frame(1, SetScores((5,))), 0.1)
    # The host restarts and counts from 0 again: HELLO #0, then SYNC #1.
    answers(board, Frame(0, Hello()), 1.0)
    assert answers(board, Frame(1, Sync(DisplayState(scores=(9,)))), 1.1) == [Ack()]
    assert board.state.scores == (9,)


def test_garbage_gets_nack_with_unknown_seq() -> None:
    board = greeted()
    out = FrameProtocol().feed(board.receive(b"\x07noise\x00", 0.1))
    assert out == [Frame(SEQ_UNKNOWN, Nack(NackReason.BAD_CRC))] and board.garbage == 1


def test_clock_counts_down_by_itself_and_stops_at_zero() -> None:
    board = greeted()
    answers(board, Frame(1, SetClock(0, 25, running=True)), 10.0)
    assert [board.tenths_left(10.0 + t) for t in (0.0, 0.099, 0.1, 1.0, 2.5, 9.0)] == [25, 25, 24, 15, 0, 0]
    assert cells_text(board.cells(11.0)) == "    |    |    |    |  1.5|P1  "


def test_warning_blinks_the_clock_digits() -> None:
    board = greeted()
    answers(board, Frame(1, SetClock(3, 100, running=False, warning=True)), 0.0)
    assert cells_text(board.cells(0.1)).endswith("| 10.0|P4--")
    assert cells_text(board.cells(0.3)).endswith("|    |P4--")


def test_a_timed_message_disappears_by_itself() -> None:
    board = greeted()
    answers(board, Frame(1, SetScores((10, 20))), 0.0)
    answers(board, Frame(2, ShowMessage("donE", 15)), 0.0)
    assert cells_text(board.cells(1.4)).startswith("donE|    |")
    assert cells_text(board.cells(1.5)).startswith("  10|  20|")


def test_no_host_shown_after_3_s_of_silence_keeping_the_state() -> None:
    board = greeted()
    answers(board, Frame(1, SetScores((10, 20))), 0.0)
    assert cells_text(board.cells(2.9)).startswith("  10|  20")
    assert cells_text(board.cells(3.0)).startswith("no H|oSt |")
    answers(board, Frame(2, Status()), 3.5)
    assert cells_text(board.cells(3.5)).startswith("  10|  20")


def test_button_event_resent_every_100_ms_three_times_until_acked() -> None:
    board = greeted()
    first = FrameProtocol().feed(board.press(1, 0.0))
    assert first == [Frame(0, ButtonEvent(1))]
    assert board.tick(0.05) == b""
    resent = [FrameProtocol().feed(board.tick(t)) for t in (0.1, 0.2, 0.3, 0.4, 0.5)]
    assert resent == [first, first, first, [], []]
    second = FrameProtocol().feed(board.press(2, 1.0))
    assert answers(board, Frame(0, Ack()), 1.0) == []  # a stale ACK changes nothing
    board.receive(Frame(second[0].seq, Ack()).encode(), 1.05)
    assert board.tick(1.2) == b""


@pytest.mark.parametrize(("tenths", "text"), [
    (0, " 0.0"), (95, " 9.5"), (599, "59.9"), (600, " 1.00"), (6543, "10.54"), (65535, "99.59")])
def test_clock_text(tenths: int, text: str) -> None:
    assert clock_text(tenths) == text


def test_layout_of_message_with_points_and_unshowable_characters() -> None:
    cells = layout(DisplayState(message="1.2.3 W!"))
    assert cells_text(cells) == "1.2.3 |    |    |    |    |    "
