"""The board's half of the protocol, without I/O: what the firmware does, as a Python model.

`BoardModel` takes the host's bytes and the time, and returns the bytes the board answers; it
keeps the display state, counts a running clock down by itself, logs beeps with their times,
sends button events (resent every 100 ms, 3 times, until acknowledged), answers garbage with
NACK, duplicates without applying them twice, everything before a HELLO with NACK 6, and shows
`no HoSt` after 3 s without a valid frame. The emulator serves it on a pty.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace

from firmware_bridge.display import DIGITS, Cell, DisplayState, layout
from firmware_bridge.protocol.codec import (
    PROTOCOL_VERSION,
    SEQ_MODULO,
    SEQ_UNKNOWN,
    Ack,
    Beep,
    ButtonAction,
    ButtonEvent,
    Frame,
    FrameProtocol,
    GarbageFrame,
    Hello,
    HelloReply,
    InvalidMessage,
    Leds,
    Nack,
    NackReason,
    SetClock,
    SetScores,
    ShowMessage,
    Status,
    StatusReply,
    Sync,
)

NO_HOST_TEXT = "no HoSt"


@dataclass(frozen=True)
class BeepRecord:
    """A beep the board started, at time `t` (the board's clock)."""

    t: float
    beep: Beep


class _BoardProtocol(FrameProtocol):
    def __init__(self, board: BoardModel) -> None:
        super().__init__()
        self.board = board

    def handle_frame(self, frame: Frame) -> None:
        self.board._frame(frame)

    def handle_garbage(self, error: GarbageFrame) -> None:
        self.board._answer(Frame(SEQ_UNKNOWN, Nack(NackReason.BAD_CRC)))

    def handle_invalid(self, error: InvalidMessage) -> None:
        self.board._valid_at = self.board._now
        self.board._answer(Frame(error.seq, Nack(error.reason)))


class BoardModel:
    def __init__(self, *, now: float = 0.0, firmware: tuple[int, int] = (1, 0),
                 protocol_version: int = PROTOCOL_VERSION, no_host_after: float = 3.0,
                 ack_timeout: float = 0.1, retries: int = 3) -> None:
        self.firmware = firmware
        self.protocol_version = protocol_version
        self.no_host_after = no_host_after
        self.ack_timeout = ack_timeout
        self.retries = retries
        self.beeps: list[BeepRecord] = []
        self.applied: list[Frame] = []
        self.duplicates = 0
        self.button_resends = 0
        self.drop_answers = 0  # answers to leave unsent (a lost ACK on the line)
        self.drop_incoming = 0  # frames to ignore (a frame lost on the line)
        self.power_on(now)

    def power_on(self, now: float) -> None:
        """Start as after a reset: blank display, no handshake, nothing pending."""
        self.state = DisplayState()
        self.handshaken = False
        self.booted_at = now
        self._now = now
        self._valid_at = now
        self._clock_origin = now
        self._message_origin = now
        self._last_host_seq: int | None = None
        self._last_answer = b""
        self._seq = 0
        self._buttons: deque[ButtonEvent] = deque()
        self._pending: tuple[Frame, int, float] | None = None  # frame, attempts, sent_at
        self._out = bytearray()
        self.protocol = _BoardProtocol(self)

    # -- I/O layer's calls ----------------------------------------------------------------------

    def receive(self, data: bytes, now: float) -> bytes:
        self._now = now
        self.protocol.data_received(data)
        return self._flush(now)

    def tick(self, now: float) -> bytes:
        """Resend an unacknowledged button event when due."""
        self._now = now
        return self._flush(now)

    def press(self, button: int, now: float, *, held: bool = False) -> bytes:
        self._now = now
        self._buttons.append(ButtonEvent(button, ButtonAction.HELD if held else ButtonAction.PRESSED))
        return self._flush(now)

    @property
    def garbage(self) -> int:
        return self.protocol.garbage

    # -- what the board shows -------------------------------------------------------------------

    def tenths_left(self, now: float) -> int:
        if not self.state.running or self.state.seat is None:
            return self.state.tenths
        elapsed = int((now - self._clock_origin) * 10 + 1e-9)
        return max(0, self.state.tenths - elapsed)

    def no_host(self, now: float) -> bool:
        return now - self._valid_at >= self.no_host_after

    def shown_message(self, now: float) -> str:
        if self.no_host(now):
            return NO_HOST_TEXT
        state = self.state
        if state.message_tenths and now - self._message_origin >= state.message_tenths / 10:
            return ""
        return state.message

    def cells(self, now: float) -> list[Cell]:
        blink_on = (now - self._clock_origin) % 0.5 < 0.25
        cells = layout(self.state, tenths=self.tenths_left(now), blink_on=blink_on,
                       message=self.shown_message(now))
        assert len(cells) == DIGITS
        return cells

    # -- protocol -------------------------------------------------------------------------------

    def _frame(self, frame: Frame) -> None:
        if self.drop_incoming:
            self.drop_incoming -= 1
            return
        message = frame.message
        self._valid_at = self._now
        if isinstance(message, Ack | Nack):
            if isinstance(message, Ack) and self._pending and self._pending[0].seq == frame.seq:
                self._pending = None
            return
        if isinstance(message, Hello):
            self._last_host_seq = None
            if message.version != self.protocol_version:
                self._answer(Frame(frame.seq, Nack(NackReason.UNSUPPORTED_VERSION)))
                return
            self.handshaken = True
            major, minor = self.firmware
            reply = HelloReply(self.protocol_version, major, minor, DIGITS)
            self._answer(Frame(frame.seq, reply), remember=True)
            return
        if not self.handshaken:
            self._answer(Frame(frame.seq, Nack(NackReason.NO_HANDSHAKE)))
            return
        if frame.seq == self._last_host_seq:
            self.duplicates += 1
            self._answer_bytes(self._last_answer)
            return
        self._last_host_seq = frame.seq
        self._apply(frame)

    def _apply(self, frame: Frame) -> None:
        message, now = frame.message, self._now
        self.applied.append(frame)
        reply: Ack | StatusReply = Ack()
        tenths = self.tenths_left(now)
        if isinstance(message, SetScores):
            self.state = replace(self.state, scores=message.scores)
        elif isinstance(message, SetClock):
            self.state = replace(self.state, seat=message.seat, tenths=message.tenths,
                                 running=message.running, warning=message.warning, away=message.away)
            self._clock_origin = now
        elif isinstance(message, ShowMessage):
            self.state = replace(self.state, message=message.text, message_tenths=message.tenths)
            self._message_origin = now
        elif isinstance(message, Beep):
            self.beeps.append(BeepRecord(now, message))
        elif isinstance(message, Leds):
            self.state = replace(self.state, green=message.green, red=message.red, turn=message.turn)
        elif isinstance(message, Sync):
            self.state = message.state
            self._clock_origin = self._message_origin = now
        elif isinstance(message, Status):
            reply = StatusReply(tenths, self.state.clock_flags, min(self.garbage, 0xFFFF),
                                min(int(now - self.booted_at), 0xFFFF))
        self._answer(Frame(frame.seq, reply), remember=True)

    def _answer(self, frame: Frame, *, remember: bool = False) -> None:
        data = frame.encode()
        if remember:
            self._last_answer = data
        self._answer_bytes(data)

    def _answer_bytes(self, data: bytes) -> None:
        if self.drop_answers:
            self.drop_answers -= 1
            return
        self._out += data

    def _flush(self, now: float) -> bytes:
        if self._pending is not None:
            frame, attempts, sent_at = self._pending
            if now - sent_at >= self.ack_timeout - 1e-9:  # tolerate decimal steps of a fake clock
                if attempts > self.retries:
                    self._pending = None
                else:
                    self.button_resends += 1
                    self._pending = (frame, attempts + 1, now)
                    self._out += frame.encode()
        if self._pending is None and self._buttons:
            frame = Frame(self._seq, self._buttons.popleft())
            self._seq = (self._seq + 1) % SEQ_MODULO
            self._pending = (frame, 1, now)
            self._out += frame.encode()
        out, self._out = bytes(self._out), bytearray()
        return out
