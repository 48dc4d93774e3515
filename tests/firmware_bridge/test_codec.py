"""The codec: every message round-trips, corruption is caught, garbage never escapes as an exception."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.display import DisplayState
from firmware_bridge.errors import BridgeError
from firmware_bridge.protocol.codec import (
    MAX_ENCODED,
    MESSAGE_CLASSES,
    Ack,
    Beep,
    BeepPattern,
    ButtonAction,
    ButtonEvent,
    CodecError,
    Frame,
    FrameProtocol,
    GarbageFrame,
    Heartbeat,
    Hello,
    HelloReply,
    InvalidMessage,
    Leds,
    Message,
    MessageValueError,
    Nack,
    NackReason,
    SetClock,
    SetScores,
    ShowMessage,
    Status,
    StatusReply,
    Sync,
    crc16,
    decode_frame,
    decode_stream,
)

u8 = st.integers(0, 255)
u16 = st.integers(0, 0xFFFF)
i16 = st.integers(-0x8000, 0x7FFF)
seats = st.integers(0, 3)
text = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=16)
turns = st.frozensets(seats)

states = st.builds(
    DisplayState, scores=st.lists(i16, max_size=4).map(tuple), seat=st.none() | seats, tenths=u16,
    running=st.booleans(), warning=st.booleans(), away=st.booleans(), green=st.booleans(), red=st.booleans(),
    turn=turns, message=text, message_tenths=u16)

MESSAGE_STRATEGIES: dict[type[Message], st.SearchStrategy[Message]] = {
    Hello: st.builds(Hello, u8),
    SetScores: st.builds(SetScores, st.lists(i16, min_size=1, max_size=4).map(tuple)),
    SetClock: st.builds(SetClock, st.none() | seats, u16, st.booleans(), st.booleans(), st.booleans()),
    ShowMessage: st.builds(ShowMessage, text, u16),
    Beep: st.one_of(
        st.sampled_from([p for p in BeepPattern if p != BeepPattern.CUSTOM]).map(Beep),
        st.builds(Beep, st.just(BeepPattern.CUSTOM), st.integers(1, 255), u16, u16, u16)),
    Leds: st.builds(Leds, st.booleans(), st.booleans(), turns),
    Sync: st.builds(Sync, states),
    Heartbeat: st.just(Heartbeat()),
    Status: st.just(Status()),
    Ack: st.just(Ack()),
    Nack: st.builds(Nack, st.sampled_from(NackReason)),
    HelloReply: st.builds(HelloReply, u8, u8, u8, u8),
    ButtonEvent: st.builds(ButtonEvent, st.sampled_from([1, 2, 3, 16, 17, 18, 19]),
                           st.sampled_from(ButtonAction)),
    StatusReply: st.builds(StatusReply, u16, u8, u16, u16),
}
messages = st.one_of(*MESSAGE_STRATEGIES.values())
frames = st.builds(Frame, st.integers(0, 254), messages)


def test_every_message_type_has_a_strategy() -> None:
    assert set(MESSAGE_STRATEGIES) == set(MESSAGE_CLASSES.values())


@settings(max_examples=600)
@given(frames)
def test_frame_round_trip(frame: Frame) -> None:
    wire = frame.encode()
    assert wire.endswith(b"\x00") and b"\x00" not in wire[:-1]
    assert len(wire) <= MAX_ENCODED + 1
    assert decode_frame(wire[:-1]) == frame
    assert decode_stream(wire) == [frame]


@given(st.lists(frames, max_size=8), st.lists(st.binary(max_size=80), min_size=9, max_size=9))
def test_resynchronises_after_garbage(sent: list[Frame], noise: list[bytes]) -> None:
    """Garbage between frames costs at most the frame it runs into; later frames all arrive."""
    stream = b"".join(noise[i] + b"\x00" + frame.encode() for i, frame in enumerate(sent)) + noise[-1]
    # Each garbage chunk is closed by a delimiter, so every real frame after it arrives intact.
    assert decode_stream(stream) == sent


SAMPLE_MESSAGES: list[Message] = [
    Hello(), SetScores((1, -2, 300, 9999)), SetClock(2, 1234, True, False, True), ShowMessage("HELLO. 1", 30),
    Beep.parse("3x200/100@1500"), Beep.parse("warning"), Leds(True, False, frozenset({1})),
    Sync(DisplayState(scores=(1, 2), seat=0, tenths=5, running=True, red=True, turn=frozenset({3}),
                      message="x", message_tenths=4)),
    Heartbeat(), Status(), Ack(), Nack(NackReason.NO_HANDSHAKE), HelloReply(), ButtonEvent(17),
    StatusReply(1, 2, 3, 4),
]


@pytest.mark.parametrize("message", SAMPLE_MESSAGES, ids=str)
def test_every_single_corrupted_byte_on_the_wire_is_detected(message: Message) -> None:
    """Exhaustive: each byte of the encoded frame replaced by each other non-zero value."""
    wire = Frame(7, message).encode()[:-1]
    for position in range(len(wire)):
        for value in range(1, 256):
            if value == wire[position]:
                continue
            corrupted = bytearray(wire)
            corrupted[position] = value
            with pytest.raises(GarbageFrame):
                decode_frame(bytes(corrupted))


@given(frames, st.data())
def test_any_single_corrupted_byte_before_framing_is_detected(frame: Frame, data: st.DataObject) -> None:
    """CRC-16 catches every error burst of up to 16 bits, so one changed byte is always caught."""
    from cobs import cobs

    raw = bytearray(frame.raw())
    position = data.draw(st.integers(0, len(raw) - 1))
    raw[position] ^= data.draw(st.integers(1, 255))
    with pytest.raises(GarbageFrame):
        decode_frame(cobs.encode(bytes(raw)))


@settings(max_examples=1000, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.binary(max_size=70), frames.map(Frame.encode), st.just(b"\x00")), max_size=6))
def test_arbitrary_streams_never_raise(chunks: list[bytes]) -> None:
    protocol = FrameProtocol()
    for chunk in chunks:
        protocol.feed(chunk)
    assert protocol.garbage + protocol.invalid + protocol.frames <= sum(len(c) for c in chunks)


def test_hundred_thousand_seeded_random_streams_never_raise() -> None:
    rng = random.Random(20261129)
    samples = [Frame(i, m).encode() for i, m in enumerate(SAMPLE_MESSAGES)]
    total_frames = total_garbage = 0
    for _ in range(100_000):
        protocol = FrameProtocol()
        for _ in range(rng.randint(1, 4)):
            kind = rng.random()
            if kind < 0.4:
                chunk = rng.randbytes(rng.randint(0, 70))
            elif kind < 0.7:
                chunk = bytearray(rng.choice(samples))
                chunk[rng.randrange(len(chunk))] = rng.randrange(256)  # may be a no-op or a new 0x00
                chunk = bytes(chunk)
            elif kind < 0.9:
                chunk = rng.choice(samples)
            else:
                chunk = b"\x00" * rng.randint(1, 3)
            protocol.feed(chunk)
        total_frames += protocol.frames
        total_garbage += protocol.garbage
    assert total_frames > 10_000 and total_garbage > 10_000  # both paths were really exercised


def test_frames_split_anywhere_reassemble() -> None:
    wire = b"".join(Frame(i, m).encode() for i, m in enumerate(SAMPLE_MESSAGES))
    for step in (1, 2, 3, 7, 61):
        protocol = FrameProtocol()
        received = [f for start in range(0, len(wire), step) for f in protocol.feed(wire[start:start + step])]
        assert [f.message for f in received] == SAMPLE_MESSAGES


def test_overlong_frame_is_dropped_and_counted_then_next_frame_is_read() -> None:
    protocol = FrameProtocol()
    protocol.feed(b"\x01" * 40)
    protocol.feed(b"\x01" * 40)  # 80 bytes without a delimiter: over the 61-byte limit
    good = Frame(3, Heartbeat())
    assert protocol.feed(b"\x01" * 10 + b"\x00" + good.encode()) == [good]
    assert protocol.garbage == 1


def test_empty_frames_are_ignored_not_garbage() -> None:
    protocol = FrameProtocol()
    assert protocol.feed(b"\x00\x00\x00" + Frame(1, Ack()).encode()) == [Frame(1, Ack())]
    assert protocol.garbage == 0


def _with_crc(body: bytes) -> bytes:
    from cobs import cobs

    return cobs.encode(body + crc16(body).to_bytes(2, "big"))


@pytest.mark.parametrize(("body", "reason"), [
    (bytes([0x42, 9]), NackReason.UNKNOWN_TYPE),
    (bytes([0x01, 9]), NackReason.BAD_LENGTH),  # HELLO without its version
    (bytes([0x02, 9, 5, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5]), NackReason.BAD_VALUE),  # five scores
    (bytes([0x03, 9, 4, 0, 10, 1]), NackReason.BAD_VALUE),  # seat 4
    (bytes([0x04, 9, 0, 0]) + b"\x07", NackReason.BAD_VALUE),  # a control character
    (bytes([0x05, 9, 9]), NackReason.BAD_VALUE),  # beep pattern 9
    (bytes([0x05, 9, 0, 0, 0, 100, 0, 100, 3, 232]), NackReason.BAD_VALUE),  # custom beep, count 0
    (bytes([0x06, 9, 0x04]), NackReason.BAD_VALUE),  # reserved LED bit
])
def test_invalid_messages_carry_the_nack_reason_and_seq(body: bytes, reason: NackReason) -> None:
    with pytest.raises(InvalidMessage) as caught:
        decode_frame(_with_crc(body))
    assert caught.value.reason == reason and caught.value.seq == 9
    assert isinstance(caught.value, BridgeError) and isinstance(caught.value, ValueError)


def test_garbage_error_quotes_the_bytes() -> None:
    with pytest.raises(GarbageFrame, match=r"not COBS .*: 03 01 02 03 04"):
        decode_frame(bytes([3, 1, 2, 3, 4]))
    with pytest.raises(GarbageFrame, match=r"CRC 0x0304 does not match .*: 05 01 02 03 04"):
        decode_frame(bytes([5, 1, 2, 3, 4]))


@pytest.mark.parametrize("text", ["ok", "warning", "error", "timeout", "match-end", "3x200/100@1500"])
def test_beep_names_round_trip(text: str) -> None:
    assert str(Beep.parse(text)) == text


@pytest.mark.parametrize(("bad", "match"), [
    ("toot", "unknown beep 'toot'"), ("0x100/100@1000", "count 0 is not 1-255"),
    ("2x70000/1@1", "on_ms 70000 is not 0-65535")])
def test_bad_beeps_are_refused_with_the_input(bad: str, match: str) -> None:
    with pytest.raises(MessageValueError, match=match):
        Beep.parse(bad)


def test_message_values_are_checked_on_construction() -> None:
    with pytest.raises(MessageValueError, match=r"1-4 scores, got \[\]"):
        SetScores(())
    with pytest.raises(MessageValueError, match="longer than 16"):
        ShowMessage("seventeen chars!!")
    with pytest.raises(MessageValueError, match="seat 7"):
        SetClock(7)
    with pytest.raises(CodecError):
        ButtonEvent(4)
