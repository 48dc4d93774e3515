"""The scoreboard serial protocol's frames (docs/serial-protocol.md), without any I/O.

A message is an immutable dataclass with a `TYPE` (`firmware_bridge.protocol.messages`, all re-exported
here); `Frame(seq, message).encode()` gives the bytes for the wire, `decode_frame(packet)` the
frame back. `FrameProtocol` cuts a byte stream at the 0x00 delimiters in the style of
`serial.threaded.Packetizer`: `data_received(bytes)` calls `handle_packet`, which calls
`handle_frame`, `handle_garbage` or `handle_invalid`, so it is tested by feeding bytes, with no
thread and no port. COBS and the CRC come from the `cobs` and `crc` packages.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from cobs import cobs
from crc import Calculator, Crc16
from serial.threaded import Protocol

from firmware_bridge.protocol.messages import (
    BUTTON_NAMES,
    CONTINUE_BUTTON,
    DELIMITER,
    MAX_ENCODED,
    MAX_PAYLOAD,
    MAX_RAW,
    MESSAGE_CLASSES,
    MIN_RAW,
    PASS_BUTTON,
    PROTOCOL_VERSION,
    SEAT_DONE_BUTTON,
    SEQ_MODULO,
    SEQ_UNKNOWN,
    START_BUTTON,
    Ack,
    Beep,
    BeepPattern,
    ButtonAction,
    ButtonEvent,
    ButtonPress,
    CodecError,
    GarbageFrame,
    Heartbeat,
    Hello,
    HelloReply,
    InvalidMessage,
    Leds,
    Message,
    MessageType,
    MessageValueError,
    Nack,
    NackReason,
    PayloadError,
    SetClock,
    SetScores,
    ShowMessage,
    Status,
    StatusReply,
    Sync,
    button_code,
    button_name,
    check_u8,
    hex_preview,
)

_CRC = Calculator(Crc16.IBM_3740.value, optimized=True)  # IBM-3740 is CRC-16/CCITT-FALSE


def crc16(data: bytes) -> int:
    return int(_CRC.checksum(data))


@dataclass(frozen=True)
class Frame:
    """A message with its sender's sequence number (or the acknowledged frame's, for answers)."""

    seq: int
    message: Message

    def __post_init__(self) -> None:
        check_u8(self.seq, "seq")

    def raw(self) -> bytes:
        """type | seq | payload | crc16, before COBS."""
        payload = self.message.payload()
        if len(payload) > MAX_PAYLOAD:
            raise MessageValueError(f"{self.message} payload is {len(payload)} bytes, over {MAX_PAYLOAD}")
        body = bytes([self.message.TYPE, self.seq]) + payload
        return body + crc16(body).to_bytes(2, "big")

    def encode(self) -> bytes:
        """The bytes on the wire, delimiter included."""
        return bytes(cobs.encode(self.raw())) + DELIMITER

    def __str__(self) -> str:
        return f"#{self.seq} {self.message}"


def decode_frame(packet: bytes) -> Frame:
    """Decode one packet (the bytes between two delimiters, without them).

    Raises `GarbageFrame` when the bytes are not a frame and `InvalidMessage` when the frame is
    sound but its type or payload is not.
    """
    if len(packet) > MAX_ENCODED:
        raise GarbageFrame(f"frame of {len(packet)} bytes is over {MAX_ENCODED}: {hex_preview(packet)}")
    try:
        raw = cobs.decode(packet)
    except cobs.DecodeError as error:
        raise GarbageFrame(f"not COBS ({error}): {hex_preview(packet)}") from None
    if len(raw) < MIN_RAW:
        raise GarbageFrame(f"frame of {len(raw)} bytes is under {MIN_RAW}: {hex_preview(packet)}")
    body, received = raw[:-2], int.from_bytes(raw[-2:], "big")
    if crc16(body) != received:
        raise GarbageFrame(f"CRC {received:#06x} does not match {crc16(body):#06x}: {hex_preview(packet)}")
    type_code, seq, payload = body[0], body[1], body[2:]
    cls = MESSAGE_CLASSES.get(type_code)
    if cls is None:
        raise InvalidMessage(f"unknown message type {type_code:#04x} in frame #{seq}",
                             reason=NackReason.UNKNOWN_TYPE, seq=seq, type_code=type_code)
    try:
        return Frame(seq, cls.from_payload(payload))
    except PayloadError as error:
        raise InvalidMessage(f"frame #{seq}: {error} ({hex_preview(payload)})", reason=error.reason, seq=seq,
                             type_code=type_code) from None
    except MessageValueError as error:
        raise InvalidMessage(f"frame #{seq}: {error}", reason=NackReason.BAD_VALUE, seq=seq,
                             type_code=type_code) from None


class FrameProtocol(Protocol):  # type: ignore[misc]
    """Cuts a byte stream into frames; garbage is skipped and counted, never raised.

    Subclasses override `handle_frame`, `handle_garbage` and `handle_invalid`; the default keeps
    the frames for `feed`, which is the pure "bytes in, frames out" use.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._discarding = False
        self._frames: list[Frame] = []
        self.frames = 0
        self.garbage = 0
        self.invalid = 0
        self.last_error: CodecError | None = None

    def data_received(self, data: bytes) -> None:
        chunks = bytes(data).split(DELIMITER)
        last = len(chunks) - 1
        for index, chunk in enumerate(chunks):
            complete = index < last
            if self._discarding:
                self._discarding = not complete
                continue
            self._buffer += chunk
            if len(self._buffer) > MAX_ENCODED:
                size = len(self._buffer)
                self._buffer.clear()
                self._discarding = not complete
                self._on_garbage(GarbageFrame(f"over {MAX_ENCODED} bytes ({size}+) before a delimiter"))
            elif complete and self._buffer:
                packet = bytes(self._buffer)
                self._buffer.clear()
                self.handle_packet(packet)

    def handle_packet(self, packet: bytes) -> None:
        try:
            frame = decode_frame(packet)
        except GarbageFrame as error:
            self._on_garbage(error)
        except InvalidMessage as error:
            self.invalid += 1
            self.last_error = error
            self.handle_invalid(error)
        else:
            self.frames += 1
            self.handle_frame(frame)

    def _on_garbage(self, error: GarbageFrame) -> None:
        self.garbage += 1
        self.last_error = error
        self.handle_garbage(error)

    def handle_frame(self, frame: Frame) -> None:
        self._frames.append(frame)

    def handle_garbage(self, error: GarbageFrame) -> None:
        """Called for every garbage frame (already counted)."""

    def handle_invalid(self, error: InvalidMessage) -> None:
        """Called for every frame with a bad type or payload (already counted)."""

    def feed(self, data: bytes) -> list[Frame]:
        """Feed bytes and return the frames completed by them."""
        self.data_received(data)
        frames, self._frames = self._frames, []
        return frames


def decode_stream(data: bytes) -> list[Frame]:
    """All valid frames in `data`, skipping garbage."""
    return FrameProtocol().feed(data)


def encode_frames(frames: Iterable[Frame]) -> bytes:
    return b"".join(frame.encode() for frame in frames)


__all__ = [
    "BUTTON_NAMES",
    "CONTINUE_BUTTON",
    "DELIMITER",
    "MAX_ENCODED",
    "MAX_PAYLOAD",
    "MAX_RAW",
    "MESSAGE_CLASSES",
    "MIN_RAW",
    "PASS_BUTTON",
    "PROTOCOL_VERSION",
    "SEAT_DONE_BUTTON",
    "SEQ_MODULO",
    "SEQ_UNKNOWN",
    "START_BUTTON",
    "Ack",
    "Beep",
    "BeepPattern",
    "ButtonAction",
    "ButtonEvent",
    "ButtonPress",
    "CodecError",
    "Frame",
    "FrameProtocol",
    "GarbageFrame",
    "Heartbeat",
    "Hello",
    "HelloReply",
    "InvalidMessage",
    "Leds",
    "Message",
    "MessageType",
    "MessageValueError",
    "Nack",
    "NackReason",
    "SetClock",
    "SetScores",
    "ShowMessage",
    "Status",
    "StatusReply",
    "Sync",
    "button_code",
    "button_name",
    "crc16",
    "decode_frame",
    "decode_stream",
    "encode_frames",
]
