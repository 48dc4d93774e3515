"""Buttons: debounced by the firmware, reported as BUTTON events, resent until acknowledged."""

from __future__ import annotations

import itertools

from firmware_bridge.protocol.codec import (
    Ack,
    Beep,
    BeepPattern,
    ButtonAction,
    ButtonEvent,
    Frame,
    Nack,
    NackReason,
)
from firmware_bridge.simavr import SimulatedBoard
from tests.firmware_bridge.firmware.driver import Driver

START, PASS, CONTINUE = 1, 2, 3


def test_an_unacknowledged_press_is_sent_four_times_then_dropped(host: Driver, board: SimulatedBoard) -> None:
    host.handshake()
    board.press("start")
    first = host.next()
    assert first.frame.message == ButtonEvent(START, ButtonAction.PRESSED)
    resends = [host.next(0.5) for _ in range(3)]
    assert [r.frame for r in resends] == [first.frame] * 3, "resends keep the event's seq"
    assert host.collect(0.4) == [], "more than 3 retries"
    sends = board.wait_frame_ends("TX", 5)[1:]  # after the HELLO_REPLY
    gaps = [(later - earlier) / 1000 for earlier, later in itertools.pairwise(sends)]
    assert len(sends) == 4 and all(abs(gap - 100) <= 1.5 for gap in gaps), gaps  # every 100 ms
    down = board.of_kind("BUTTON")[0].sim_us
    assert 30 <= (sends[0] - down) / 1000 <= 32.5, "not debounced for 30 ms"  # + 1 tick, 0.7 ms wire


def test_an_acknowledged_press_is_sent_once_and_seqs_advance(host: Driver, board: SimulatedBoard) -> None:
    host.handshake()
    seqs = []
    for button, name in ((PASS, "pass"), (START, "start")):
        board.press(name)
        event = host.next().frame
        assert event.message == ButtonEvent(button, ButtonAction.PRESSED)
        host.write(Frame(event.seq, Ack()).encode())
        seqs.append(event.seq)
        assert host.collect(0.3) == [], "resent although acknowledged"
    assert seqs[1] == (seqs[0] + 1) % 255


def test_a_garbled_event_is_resent_at_once_on_nack_1(host: Driver, board: SimulatedBoard) -> None:
    host.handshake()
    board.press("continue")
    first = host.next()
    host.write(Frame(255, Nack(NackReason.BAD_CRC)).encode())
    again = host.next(0.5)
    assert again.frame == first.frame
    nacked, resent = board.wait_frame_ends("RX", 2)[1], board.wait_frame_ends("TX", 3)[2]
    assert 0 < resent - nacked < 5000, "waited for the 100 ms timeout instead"
    host.write(Frame(first.frame.seq, Ack()).encode())
    assert host.collect(0.3) == []


def test_holding_reports_pressed_then_held_and_bounces_are_ignored(host: Driver,
                                                                    board: SimulatedBoard) -> None:
    host.handshake()
    board.press("start", ms=10)  # shorter than the 30 ms debounce: contact bounce, not a press
    assert host.collect(0.3) == []
    board.press("pass", ms=1300)
    pressed = host.next()
    assert pressed.frame.message == ButtonEvent(PASS, ButtonAction.PRESSED)
    host.write(Frame(pressed.frame.seq, Ack()).encode())
    held = host.next(2.0)
    assert held.frame.message == ButtonEvent(PASS, ButtonAction.HELD)
    pressed_at, held_at = board.wait_frame_ends("TX", 3)[1:3]
    assert abs((held_at - pressed_at) / 1000 - 1000) <= 1.5
    host.write(Frame(held.frame.seq, Ack()).encode())
    downs = [o for o in board.of_kind("BUTTON") if o.fields == ("pass", "down")]
    assert len(downs) == 1
    assert host.collect(0.5) == [], "released after the hold: no further event"


def test_a_press_while_the_buzzer_sounds_is_not_lost(host: Driver, board: SimulatedBoard) -> None:
    host.handshake()
    assert host.request(Beep(BeepPattern.ERROR)).message == Ack()  # one 600 ms tone
    board.press("start", ms=100)
    event = host.next()
    assert event.frame.message == ButtonEvent(START, ButtonAction.PRESSED)
    host.write(Frame(event.frame.seq, Ack()).encode())
    assert board.wait_for(lambda b: len(b.buzzer_events) == 1, 2.0), board.buzzer_events
    tone, down = board.buzzer_events[0], board.of_kind("BUTTON")[0].sim_us
    assert tone.start_us < down and down + 100_000 < tone.end_us, "the press was not made during the tone"
