"""The link's reliability rules on a fake clock: no port, no thread, exact times."""

from __future__ import annotations

import pytest

from firmware_bridge.display import DisplayState
from firmware_bridge.protocol.board import BoardModel
from firmware_bridge.protocol.codec import (
    Ack,
    Beep,
    ButtonEvent,
    Frame,
    FrameProtocol,
    Heartbeat,
    Hello,
    HelloReply,
    Nack,
    NackReason,
    SetScores,
    Sync,
)
from firmware_bridge.protocol.session import LinkState, Rejected, Session

STATE = DisplayState(scores=(5, 7))


def frames(data: bytes) -> list[Frame]:
    return FrameProtocol().feed(data)


def connected_session() -> Session:
    session = Session(lambda: STATE)
    hello = frames(session.connection_made(0.0))
    assert [f.message for f in hello] == [Hello()]
    sync = frames(session.frame_received(Frame(hello[0].seq, HelloReply()), 0.01))
    assert [f.message for f in sync] == [Sync(STATE)]
    assert session.link_state == LinkState.HANDSHAKING
    session.frame_received(Frame(sync[0].seq, Ack()), 0.02)
    assert session.link_state == LinkState.CONNECTED
    assert [e.kind for e in session.events] == ["connected"]
    session.events.clear()
    return session


def test_handshake_then_sync_then_updates() -> None:
    session = connected_session()
    delivery, data = session.submit(SetScores((1, 2)), 0.03)
    [frame] = frames(data)
    assert frame.message == SetScores((1, 2)) and not delivery.done
    session.frame_received(Frame(frame.seq, Ack()), 0.04)
    assert delivery.done and delivery.reply == Ack()


def test_stop_and_wait_sends_the_next_frame_after_the_ack() -> None:
    session = connected_session()
    _, first = session.submit(Beep(), 1.0)
    _, second = session.submit(SetScores((3,)), 1.0)
    assert second == b""  # waits for the first answer
    [sent] = frames(first)
    [following] = frames(session.frame_received(Frame(sent.seq, Ack()), 1.01))
    assert following.message == SetScores((3,)) and following.seq == (sent.seq + 1) % 255


def test_resends_after_100_ms_three_times_then_the_link_is_lost() -> None:
    session = connected_session()
    delivery, data = session.submit(Beep(), 1.0)
    [original] = frames(data)
    assert session.poll(1.099) == b""
    times = [1.1, 1.2, 1.3]
    for now in times:
        [again] = frames(session.poll(now))
        assert again == original  # same frame, same seq
        assert session.poll(now + 0.05) == b""
    assert session.poll(1.4) == b"" and session.lost
    assert "no answer to ok within 100 ms, after 3 retries" in session.lost_reason
    session.connection_lost(session.lost_reason)
    assert session.link_state == LinkState.DISCONNECTED and not delivery.done  # a beep waits for the board
    hello, *rest = frames(session.connection_made(2.0))
    assert hello.message == Hello() and rest == []


def test_nack_bad_crc_resends_at_once() -> None:
    session = connected_session()
    _, data = session.submit(Beep(), 1.0)
    [original] = frames(data)
    assert frames(session.frame_received(Frame(255, Nack(NackReason.BAD_CRC)), 1.01)) == [original]
    assert session.stats.retries == 1


def test_rejected_frame_is_reported_not_resent() -> None:
    session = connected_session()
    delivery, data = session.submit(Beep(), 1.0)
    [original] = frames(data)
    assert session.frame_received(Frame(original.seq, Nack(NackReason.BAD_VALUE)), 1.01) == b""
    with pytest.raises(Rejected, match=r"rejected ok: NACK 4 \(bad value\)"):
        delivery.wait(0)
    assert [e.kind for e in session.events] == ["rejected"]


def test_heartbeat_after_one_second_of_silence() -> None:
    session = connected_session()
    assert session.poll(1.0) == b""
    [beat] = frames(session.poll(1.03))
    assert beat.message == Heartbeat()
    session.frame_received(Frame(beat.seq, Ack()), 1.04)
    assert session.poll(2.0) == b"" and session.next_deadline() == pytest.approx(2.03)


def test_nack_no_handshake_repeats_handshake_and_sync_then_the_event() -> None:
    """A board reset while the port stayed open is noticed and re-synchronised."""
    session = connected_session()
    _, data = session.submit(Beep(), 1.0)
    [beep] = frames(data)
    [hello] = frames(session.frame_received(Frame(beep.seq, Nack(NackReason.NO_HANDSHAKE)), 1.01))
    assert hello.message == Hello()
    [sync] = frames(session.frame_received(Frame(hello.seq, HelloReply()), 1.02))
    assert sync.message == Sync(STATE)
    [again] = frames(session.frame_received(Frame(sync.seq, Ack()), 1.03))
    assert again.message == Beep() and session.link_state == LinkState.CONNECTED
    assert [e.kind for e in session.events] == ["board-reset", "connected"]


def test_state_messages_queued_while_away_are_superseded_by_the_sync() -> None:
    session = connected_session()
    session.connection_lost("unplugged")
    delivery, data = session.submit(SetScores((9,)), 2.0)
    assert data == b"" and delivery.done and delivery.superseded
    beep_delivery, _ = session.submit(Beep(), 2.0)
    assert not beep_delivery.done  # events wait for the board


def test_button_events_are_acked_and_duplicates_dropped() -> None:
    session = connected_session()
    press = Frame(0, ButtonEvent(2))
    assert frames(session.frame_received(press, 1.0)) == [Frame(0, Ack())]
    assert frames(session.frame_received(press, 1.1)) == [Frame(0, Ack())]  # our ACK was lost
    assert [e.button for e in session.events] == [ButtonEvent(2)]
    assert session.stats.duplicates == 1


def test_session_against_board_model_with_lossy_line() -> None:
    """Session and board model, the answers of the board lost now and then: all updates applied once."""
    board = BoardModel(now=0.0)
    session = Session(lambda: STATE)
    now = 0.0
    wire_to_board = session.connection_made(now)
    beeps = [Beep.parse(f"{n}x10/10@1000") for n in range(1, 21)]
    for beep in beeps:
        session.submit(beep, now)
    answers = 0
    for _ in range(2000):
        now += 0.01
        answer = board.receive(wire_to_board, now)
        if answer:
            answers += 1
            if answers % 3 == 0:
                answer = b""  # lost on the line
        wire_to_board = b"".join(session.frame_received(f, now) for f in frames(answer))
        wire_to_board += session.poll(now)
        assert not session.lost
    assert [record.beep for record in board.beeps] == beeps  # each exactly once, in order
    assert board.state == STATE and session.link_state == LinkState.CONNECTED
    assert session.stats.retries >= 7 and board.duplicates >= 7


def test_a_board_that_does_not_speak_version_1_is_reported_and_left_alone() -> None:
    session = Session(lambda: STATE)
    [hello] = frames(session.connection_made(0.0))
    assert session.frame_received(Frame(hello.seq, Nack(NackReason.UNSUPPORTED_VERSION)), 0.01) == b""
    assert session.link_state == LinkState.INCOMPATIBLE and session.poll(5.0) == b""
    assert [e.kind for e in session.events] == ["incompatible"]
    delivery, data = session.submit(Beep(), 5.0)
    assert data == b"" and delivery.error is not None and "protocol version 1" in str(delivery.error)
