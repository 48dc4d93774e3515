"""The scoreboard protocol's messages (docs/serial-protocol.md): one frozen dataclass per type.

Each message knows its `TYPE`, its `payload()` bytes and `from_payload(bytes)` back; values are
checked on construction (`MessageValueError`) and on decoding (a reason for the NACK). Framing,
COBS and the CRC are in `firmware_bridge.protocol.codec`, which also re-exports everything here.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import IntEnum
from typing import ClassVar, Self

from firmware_bridge.display import MAX_SEATS, NO_SEAT, DisplayState, DisplayValueError, check_text
from firmware_bridge.errors import BridgeError

PROTOCOL_VERSION = 1
MAX_PAYLOAD = 56
MIN_RAW, MAX_RAW = 4, 4 + MAX_PAYLOAD
MAX_ENCODED = 61  # COBS adds one byte to a 60-byte frame; the 0x00 delimiter makes 62 on the wire
SEQ_MODULO = 255
SEQ_UNKNOWN = 255
DELIMITER = b"\x00"


class MessageType(IntEnum):
    HELLO = 0x01
    SET_SCORES = 0x02
    SET_CLOCK = 0x03
    MESSAGE = 0x04
    BEEP = 0x05
    LEDS = 0x06
    SYNC = 0x07
    HEARTBEAT = 0x08
    STATUS = 0x09
    ACK = 0x10
    NACK = 0x11
    HELLO_REPLY = 0x81
    BUTTON = 0x82
    STATUS_REPLY = 0x89


class NackReason(IntEnum):
    BAD_CRC = 1
    UNKNOWN_TYPE = 2
    BAD_LENGTH = 3
    BAD_VALUE = 4
    UNSUPPORTED_VERSION = 5
    NO_HANDSHAKE = 6


class BeepPattern(IntEnum):
    CUSTOM = 0
    OK = 1
    WARNING = 2
    ERROR = 3
    TIMEOUT = 4
    MATCH_END = 5


class ButtonAction(IntEnum):
    PRESSED = 1
    HELD = 2


START_BUTTON, PASS_BUTTON, CONTINUE_BUTTON = 1, 2, 3
SEAT_DONE_BUTTON = 16  # + seat
BUTTON_NAMES = {START_BUTTON: "start", PASS_BUTTON: "pass", CONTINUE_BUTTON: "continue"}


def button_name(code: int) -> str:
    """'start', 'pass', 'continue' or 'done-N' (seat N's "my move is done" button)."""
    if code in BUTTON_NAMES:
        return BUTTON_NAMES[code]
    return f"done-{code - SEAT_DONE_BUTTON}"


@dataclass(frozen=True)
class ButtonPress:
    """A button pressed at the table, from the scoreboard or the Pi's GPIO: `name` is 'start',
    'pass', 'continue' or 'done-N'; `held` when held for 1 s or more."""

    name: str
    held: bool = False
    source: str = "scoreboard"

    @property
    def seat(self) -> int | None:
        """The seat of a "my move is done" button, else None."""
        return int(self.name[5:]) if self.name.startswith("done-") else None


def button_code(name: str) -> int:
    for code, known in BUTTON_NAMES.items():
        if known == name:
            return code
    if name.startswith("done-") and name[5:].isdigit() and int(name[5:]) < MAX_SEATS:
        return SEAT_DONE_BUTTON + int(name[5:])
    raise MessageValueError(f"unknown button {name!r} (start, pass, continue, done-0 … done-3)")


class CodecError(BridgeError, ValueError):
    """Bytes from the line that are not a valid frame or message."""


class MessageValueError(CodecError):
    """A message field out of its range (raised when building or decoding a message)."""


class GarbageFrame(CodecError):
    """Not a frame: COBS fails, too short or too long, or the CRC does not match (NACK reason 1)."""

    reason = NackReason.BAD_CRC


class InvalidMessage(CodecError):
    """A frame with a good CRC whose type or payload is wrong; it is answered with a NACK."""

    def __init__(self, detail: str, *, reason: NackReason, seq: int, type_code: int) -> None:
        super().__init__(detail)
        self.reason = reason
        self.seq = seq
        self.type_code = type_code


class PayloadError(Exception):
    """Raised by `from_payload` with the NACK reason; `decode_frame` turns it into `InvalidMessage`."""

    def __init__(self, reason: NackReason, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


def hex_preview(data: bytes, limit: int = 24) -> str:
    shown = data[:limit].hex(" ")
    return shown + (" …" if len(data) > limit else "")


def _expect_length(payload: bytes, size: int, name: str) -> None:
    if len(payload) != size:
        raise PayloadError(NackReason.BAD_LENGTH, f"{name} payload is {len(payload)} bytes, expected {size}")


def check_u16(value: int, name: str) -> int:
    if not 0 <= value <= 0xFFFF:
        raise MessageValueError(f"{name} {value!r} is not 0-65535")
    return value


def check_u8(value: int, name: str) -> int:
    if not 0 <= value <= 0xFF:
        raise MessageValueError(f"{name} {value!r} is not 0-255")
    return value


class Message:
    """Base of every message; subclasses are frozen dataclasses."""

    TYPE: ClassVar[MessageType]
    # State messages are superseded by a SYNC (a resync need not resend them); events are not.
    IS_STATE: ClassVar[bool] = False

    def payload(self) -> bytes:
        return b""

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        _expect_length(payload, 0, cls.TYPE.name)
        return cls()

    def __str__(self) -> str:
        return self.TYPE.name


@dataclass(frozen=True)
class Hello(Message):
    TYPE = MessageType.HELLO
    version: int = PROTOCOL_VERSION

    def __post_init__(self) -> None:
        check_u8(self.version, "protocol version")

    def payload(self) -> bytes:
        return bytes([self.version])

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        _expect_length(payload, 1, "HELLO")
        return cls(payload[0])


@dataclass(frozen=True)
class SetScores(Message):
    TYPE = MessageType.SET_SCORES
    IS_STATE = True
    scores: tuple[int, ...]

    def __post_init__(self) -> None:
        if not 1 <= len(self.scores) <= MAX_SEATS:
            raise MessageValueError(f"SET_SCORES takes 1-4 scores, got {list(self.scores)!r}")
        for score in self.scores:
            if not -0x8000 <= score <= 0x7FFF:
                raise MessageValueError(f"score {score!r} does not fit a 16-bit signed integer")

    def payload(self) -> bytes:
        return struct.pack(f">B{len(self.scores)}h", len(self.scores), *self.scores)

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        if not payload:
            raise PayloadError(NackReason.BAD_LENGTH, "SET_SCORES payload is empty")
        count = payload[0]
        if not 1 <= count <= MAX_SEATS:
            raise PayloadError(NackReason.BAD_VALUE, f"SET_SCORES count {count} is not 1-4")
        _expect_length(payload, 1 + 2 * count, "SET_SCORES")
        return cls(struct.unpack(f">{count}h", payload[1:]))


@dataclass(frozen=True)
class SetClock(Message):
    TYPE = MessageType.SET_CLOCK
    IS_STATE = True
    seat: int | None
    tenths: int = 0
    running: bool = False
    warning: bool = False
    away: bool = False

    def __post_init__(self) -> None:
        if self.seat is not None and not 0 <= self.seat < MAX_SEATS:
            raise MessageValueError(f"clock seat {self.seat!r} is not 0-3 (or None for no clock)")
        check_u16(self.tenths, "clock tenths")

    @property
    def flags(self) -> int:
        return int(self.running) | int(self.warning) << 1 | int(self.away) << 2

    def payload(self) -> bytes:
        return struct.pack(">BHB", NO_SEAT if self.seat is None else self.seat, self.tenths, self.flags)

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        _expect_length(payload, 4, "SET_CLOCK")
        seat, tenths, flags = struct.unpack(">BHB", payload)
        if seat != NO_SEAT and seat >= MAX_SEATS:
            raise PayloadError(NackReason.BAD_VALUE, f"SET_CLOCK seat {seat} is not 0-3 or 255")
        return cls(None if seat == NO_SEAT else seat, tenths,
                   bool(flags & 1), bool(flags & 2), bool(flags & 4))


def _decode_text(raw: bytes, name: str) -> str:
    if any(not 0x20 <= byte <= 0x7E for byte in raw):
        raise PayloadError(NackReason.BAD_VALUE, f"{name} text {raw!r} is not printable ASCII")
    return raw.decode("ascii")


@dataclass(frozen=True)
class ShowMessage(Message):
    """MESSAGE: text over the score digits, for `tenths` (0 = until replaced); '' clears it."""

    TYPE = MessageType.MESSAGE
    IS_STATE = True
    text: str
    tenths: int = 0

    def __post_init__(self) -> None:
        check_u16(self.tenths, "message tenths")
        try:
            check_text(self.text)
        except DisplayValueError as error:
            raise MessageValueError(str(error)) from None

    def payload(self) -> bytes:
        return struct.pack(">H", self.tenths) + self.text.encode("ascii")

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        if not 2 <= len(payload) <= 18:
            raise PayloadError(NackReason.BAD_LENGTH,
                                f"MESSAGE payload is {len(payload)} bytes, expected 2-18")
        return cls(_decode_text(payload[2:], "MESSAGE"), struct.unpack(">H", payload[:2])[0])


_BEEP_NAMES = {BeepPattern.OK: "ok", BeepPattern.WARNING: "warning", BeepPattern.ERROR: "error",
               BeepPattern.TIMEOUT: "timeout", BeepPattern.MATCH_END: "match-end"}


@dataclass(frozen=True)
class Beep(Message):
    """BEEP: a built-in pattern, or `count` tones of `on_ms`/`off_ms` at `frequency_hz`.

    `str()` gives the pattern's name or `COUNTxON/OFF@HZ`; `Beep.parse` reads either back.
    """

    TYPE = MessageType.BEEP
    pattern: BeepPattern = BeepPattern.OK
    count: int = 0
    on_ms: int = 0
    off_ms: int = 0
    frequency_hz: int = 0

    def __post_init__(self) -> None:
        if self.pattern == BeepPattern.CUSTOM:
            if not 1 <= self.count <= 255:
                raise MessageValueError(f"custom beep count {self.count!r} is not 1-255")
            for name in ("on_ms", "off_ms", "frequency_hz"):
                check_u16(getattr(self, name), name)
        elif (self.count, self.on_ms, self.off_ms, self.frequency_hz) != (0, 0, 0, 0):
            raise MessageValueError(f"beep pattern {self.pattern.name} takes no count, times or frequency")

    @classmethod
    def parse(cls, text: str) -> Beep:
        for pattern, name in _BEEP_NAMES.items():
            if text == name:
                return cls(pattern)
        try:
            count, rest = text.split("x", 1)
            times, frequency = rest.split("@", 1)
            on_ms, off_ms = times.split("/", 1)
            hertz = int(frequency.removesuffix("Hz"))
            return cls(BeepPattern.CUSTOM, int(count), int(on_ms), int(off_ms), hertz)
        except ValueError as error:
            if isinstance(error, MessageValueError):
                raise
            raise MessageValueError(
                f"unknown beep {text!r}: use {', '.join(_BEEP_NAMES.values())} or COUNTxON/OFF@HZ "
                "(milliseconds and hertz, e.g. 3x200/100@1500)") from None

    def __str__(self) -> str:
        if self.pattern == BeepPattern.CUSTOM:
            return f"{self.count}x{self.on_ms}/{self.off_ms}@{self.frequency_hz}"
        return _BEEP_NAMES[self.pattern]

    def payload(self) -> bytes:
        if self.pattern == BeepPattern.CUSTOM:
            return struct.pack(">BBHHH", 0, self.count, self.on_ms, self.off_ms, self.frequency_hz)
        return bytes([self.pattern])

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        if not payload:
            raise PayloadError(NackReason.BAD_LENGTH, "BEEP payload is empty")
        if payload[0] == BeepPattern.CUSTOM:
            _expect_length(payload, 8, "custom BEEP")
            _, count, on_ms, off_ms, frequency = struct.unpack(">BBHHH", payload)
            if count == 0:
                raise PayloadError(NackReason.BAD_VALUE, "custom BEEP count is 0")
            return cls(BeepPattern.CUSTOM, count, on_ms, off_ms, frequency)
        _expect_length(payload, 1, "BEEP")
        if payload[0] not in BeepPattern.__members__.values():
            raise PayloadError(NackReason.BAD_VALUE, f"BEEP pattern {payload[0]} is not 0-5")
        return cls(BeepPattern(payload[0]))


@dataclass(frozen=True)
class Leds(Message):
    TYPE = MessageType.LEDS
    IS_STATE = True
    green: bool = False
    red: bool = False
    turn: frozenset[int] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        if any(not 0 <= seat < MAX_SEATS for seat in self.turn):
            raise MessageValueError(f"turn marker seats {sorted(self.turn)!r} are not all 0-3")

    @property
    def mask(self) -> int:
        return int(self.green) | int(self.red) << 1 | sum(1 << (4 + seat) for seat in self.turn)

    def payload(self) -> bytes:
        return bytes([self.mask])

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        _expect_length(payload, 1, "LEDS")
        mask = payload[0]
        if mask & 0x0C:
            raise PayloadError(NackReason.BAD_VALUE, f"LEDS mask {mask:#04x} sets reserved bits 2-3")
        return cls(bool(mask & 1), bool(mask & 2),
                   frozenset(seat for seat in range(MAX_SEATS) if mask & (1 << (4 + seat))))


@dataclass(frozen=True)
class Sync(Message):
    """SYNC: the whole display state, sent after every handshake."""

    TYPE = MessageType.SYNC
    IS_STATE = True
    state: DisplayState

    def payload(self) -> bytes:
        state = self.state
        return (struct.pack(f">B{len(state.scores)}h", len(state.scores), *state.scores)
                + struct.pack(">BHBBHB", NO_SEAT if state.seat is None else state.seat, state.tenths,
                              state.clock_flags, state.led_mask, state.message_tenths, len(state.message))
                + state.message.encode("ascii"))

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        if not payload:
            raise PayloadError(NackReason.BAD_LENGTH, "SYNC payload is empty")
        count = payload[0]
        if count > MAX_SEATS:
            raise PayloadError(NackReason.BAD_VALUE, f"SYNC score count {count} is not 0-4")
        fixed = 1 + 2 * count + 8
        if len(payload) < fixed:
            raise PayloadError(NackReason.BAD_LENGTH, f"SYNC payload is {len(payload)} bytes, too short")
        scores = struct.unpack(f">{count}h", payload[1:1 + 2 * count])
        fields = struct.unpack(">BHBBHB", payload[1 + 2 * count:fixed])
        seat, tenths, flags, leds, message_tenths, length = fields
        _expect_length(payload, fixed + length, "SYNC")
        if seat != NO_SEAT and seat >= MAX_SEATS:
            raise PayloadError(NackReason.BAD_VALUE, f"SYNC seat {seat} is not 0-3 or 255")
        if length > 16:
            raise PayloadError(NackReason.BAD_VALUE, f"SYNC message length {length} is over 16")
        if leds & 0x0C:
            raise PayloadError(NackReason.BAD_VALUE, f"SYNC LED mask {leds:#04x} sets reserved bits 2-3")
        state = DisplayState(scores=scores, seat=None if seat == NO_SEAT else seat, tenths=tenths,
                             message=_decode_text(payload[fixed:], "SYNC"), message_tenths=message_tenths)
        return cls(state.with_clock_flags(flags).with_led_mask(leds))


@dataclass(frozen=True)
class Heartbeat(Message):
    TYPE = MessageType.HEARTBEAT


@dataclass(frozen=True)
class Status(Message):
    TYPE = MessageType.STATUS


@dataclass(frozen=True)
class Ack(Message):
    TYPE = MessageType.ACK


@dataclass(frozen=True)
class Nack(Message):
    TYPE = MessageType.NACK
    reason: NackReason = NackReason.BAD_CRC

    def payload(self) -> bytes:
        return bytes([self.reason])

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        _expect_length(payload, 1, "NACK")
        if payload[0] not in NackReason.__members__.values():
            raise PayloadError(NackReason.BAD_VALUE, f"NACK reason {payload[0]} is not 1-6")
        return cls(NackReason(payload[0]))


@dataclass(frozen=True)
class HelloReply(Message):
    TYPE = MessageType.HELLO_REPLY
    version: int = PROTOCOL_VERSION
    firmware_major: int = 1
    firmware_minor: int = 0
    digits: int = 24

    def __post_init__(self) -> None:
        for name in ("version", "firmware_major", "firmware_minor", "digits"):
            check_u8(getattr(self, name), name)

    def payload(self) -> bytes:
        return bytes([self.version, self.firmware_major, self.firmware_minor, self.digits])

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        _expect_length(payload, 4, "HELLO_REPLY")
        return cls(*payload)


@dataclass(frozen=True)
class ButtonEvent(Message):
    """BUTTON: 1 Start, 2 Pass, 3 Continue, 16+n seat n's "done"; pressed or held ≥ 1 s."""

    TYPE = MessageType.BUTTON
    button: int
    action: ButtonAction = ButtonAction.PRESSED

    def __post_init__(self) -> None:
        seat_button = SEAT_DONE_BUTTON <= self.button < SEAT_DONE_BUTTON + MAX_SEATS
        if self.button not in BUTTON_NAMES and not seat_button:
            raise MessageValueError(f"button {self.button!r} is not 1-3 or 16-19")

    @property
    def name(self) -> str:
        return button_name(self.button)

    def payload(self) -> bytes:
        return bytes([self.button, self.action])

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        _expect_length(payload, 2, "BUTTON")
        button, action = payload
        if action not in ButtonAction.__members__.values():
            raise PayloadError(NackReason.BAD_VALUE, f"BUTTON action {action} is not 1-2")
        try:
            return cls(button, ButtonAction(action))
        except MessageValueError as error:
            raise PayloadError(NackReason.BAD_VALUE, str(error)) from None


@dataclass(frozen=True)
class StatusReply(Message):
    TYPE = MessageType.STATUS_REPLY
    tenths: int = 0
    flags: int = 0
    garbage_frames: int = 0
    uptime_s: int = 0

    def __post_init__(self) -> None:
        check_u8(self.flags, "clock flags")
        for name in ("tenths", "garbage_frames", "uptime_s"):
            check_u16(getattr(self, name), name)

    def payload(self) -> bytes:
        return struct.pack(">HBHH", self.tenths, self.flags, self.garbage_frames, self.uptime_s)

    @classmethod
    def from_payload(cls, payload: bytes) -> Self:
        _expect_length(payload, 7, "STATUS_REPLY")
        return cls(*struct.unpack(">HBHH", payload))


MESSAGE_CLASSES: dict[int, type[Message]] = {
    cls.TYPE: cls for cls in (Hello, SetScores, SetClock, ShowMessage, Beep, Leds, Sync, Heartbeat, Status,
                              Ack, Nack, HelloReply, ButtonEvent, StatusReply)
}
