"""The buzzer sounds each pattern at the right times, read from the recorded pin toggles."""

from __future__ import annotations

import pytest

from firmware_bridge.beeps import tones
from firmware_bridge.protocol.codec import Ack, Beep, BeepPattern, Frame, Status, StatusReply
from firmware_bridge.simavr import SimulatedBoard
from tests.firmware_bridge.firmware.driver import Driver

MS = 1.5  # tolerance on tone lengths and pauses: the firmware ticks every 1 ms
HZ = 0.02  # Timer0's 8-bit divider rounds the frequency by under 2 %


@pytest.mark.parametrize("beep", [Beep(BeepPattern.OK), Beep(BeepPattern.WARNING), Beep(BeepPattern.ERROR),
                                  Beep(BeepPattern.TIMEOUT), Beep(BeepPattern.MATCH_END),
                                  Beep(BeepPattern.CUSTOM, 3, 40, 60, 3000),
                                  # 7 toggles a tone, so the stop forces the pin low (one more
                                  # edge), and a pause of 1 ms: seen on the edges alone, this was
                                  # a 357 Hz tone between two merged ones
                                  Beep(BeepPattern.CUSTOM, 3, 3, 1, 1250)], ids=str)
def test_each_pattern_sounds_as_documented(host: Driver, board: SimulatedBoard, beep: Beep) -> None:
    host.handshake()
    expected = tones(beep)
    host.write(Frame(7, beep).encode())
    assert host.next().frame == Frame(7, Ack())
    assert board.wait_for(lambda b: len(b.buzzer_events) >= len(expected), 3.0), board.buzzer_events
    assert host.collect(0.2) == []
    sounded = board.buzzer_events
    assert len(sounded) == len(expected), sounded
    arrived = board.wait_frame_ends("RX", 2)[1]  # handed to the UART: its bytes take 0.09 ms each
    assert 0 <= (sounded[0].start_us - arrived) / 1000 <= 2.0, "the first tone started late"
    for index, (tone, want) in enumerate(zip(sounded, expected, strict=True)):
        assert tone.duration_ms == pytest.approx(want.on_ms, abs=MS), (index, tone, sounded)
        assert tone.frequency_hz == pytest.approx(want.frequency_hz, rel=HZ), (index, tone)
        if index + 1 < len(sounded):
            pause_ms = (sounded[index + 1].start_us - tone.end_us) / 1000
            assert pause_ms == pytest.approx(want.off_ms, abs=MS), (index, pause_ms)


def test_a_new_beep_replaces_the_one_sounding_and_nothing_blocks(host: Driver, board: SimulatedBoard) -> None:
    host.handshake()
    assert host.request(Beep(BeepPattern.TIMEOUT)).message == Ack()
    assert board.wait_for(lambda b: bool(b.of_kind("TONE_ON")), 1.0)
    host.write(Frame(30, Status()).encode())
    answer = host.next()
    assert isinstance(answer.frame.message, StatusReply)
    asked, answered = board.wait_frame_ends("RX", 3)[2], board.wait_frame_ends("TX", 3)[2]
    assert answered - asked < 2500, "the board was busy beeping"  # 6 bytes in, 11 out: 1.6 ms
    assert board.wait_for(lambda b: len(b.buzzer_events) == 1, 1.0)  # in the pause after tone 1 of 3
    assert host.request(Beep(BeepPattern.OK)).message == Ack()
    assert board.wait_for(lambda b: len(b.buzzer_events) == 2, 1.0)
    host.collect(0.8)
    first, ok = board.buzzer_events  # the timeout pattern's other two tones never came
    assert first.duration_ms == pytest.approx(400, abs=MS)
    assert first.frequency_hz == pytest.approx(1000, rel=HZ)
    assert ok.duration_ms == pytest.approx(100, abs=MS)
    assert ok.frequency_hz == pytest.approx(2000, rel=HZ)
    assert ok.start_us - first.end_us < 200_000


def test_a_beep_replacing_a_tone_mid_sound_is_seen_as_two_tones(host: Driver, board: SimulatedBoard) -> None:
    host.handshake()
    assert host.request(Beep(BeepPattern.ERROR)).message == Ack()  # 600 ms at 400 Hz
    assert board.wait_for(lambda b: bool(b.of_kind("TONE_ON")), 1.0)
    assert host.request(Beep(BeepPattern.CUSTOM, 1, 150, 0, 3000)).message == Ack()
    assert board.wait_for(lambda b: len(b.buzzer_events) == 2, 2.0), board.buzzer_events
    cut, custom = board.buzzer_events
    assert cut.frequency_hz == pytest.approx(400, rel=HZ) and cut.duration_ms < 300
    assert custom.frequency_hz == pytest.approx(3000, rel=HZ)
    assert custom.duration_ms == pytest.approx(150, abs=MS)
    assert abs(custom.start_us - cut.end_us) < 1500, "the new tone follows without a pause"


def test_a_reset_silences_the_tone_sounding_at_that_moment(host: Driver, board: SimulatedBoard) -> None:
    host.handshake()
    assert host.request(Beep(BeepPattern.ERROR)).message == Ack()  # 600 ms at 400 Hz
    assert board.wait_for(lambda b: bool(b.of_kind("TONE_ON")), 1.0)
    board.reset()  # the reset clears Timer0 with no write the firmware makes
    assert board.wait_for(lambda b: bool(b.of_kind("RESET")) and len(b.buzzer_events) == 1, 2.0), \
        board.buzzer_events
    cut, reset = board.buzzer_events[0], board.of_kind("RESET")[0]
    assert cut.start_us < reset.sim_us and cut.duration_ms < 600
    assert cut.end_us == reset.sim_us, "the tone outlived the reset"
