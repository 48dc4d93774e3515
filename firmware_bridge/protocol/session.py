"""The host's half of the protocol's reliability rules, without I/O or threads (sans-IO).

`Session` decides what bytes to write and when: stop-and-wait with sequence numbers, the 100 ms
acknowledgement timeout and 3 retries, the handshake and full-state `SYNC`, heartbeats after 1 s
of silence, re-handshake on `NACK` 6, and acknowledging (and de-duplicating) button events. Every
method takes the time `now` from the caller, so tests drive it with a fake clock; `Link` runs it
over a real port.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from firmware_bridge.display import DisplayState
from firmware_bridge.errors import BridgeError
from firmware_bridge.protocol.codec import (
    PROTOCOL_VERSION,
    SEQ_MODULO,
    Ack,
    ButtonEvent,
    Frame,
    Heartbeat,
    Hello,
    HelloReply,
    Message,
    Nack,
    NackReason,
    StatusReply,
    Sync,
)

_EPSILON = 1e-9  # fake clocks step in decimal fractions that binary floats round


class LinkError(BridgeError, ConnectionError):
    """The scoreboard link failed: the port, the board, or an answer was wrong."""


class Rejected(LinkError):
    """The board refused a frame with a NACK (unknown type, bad length or value, bad version)."""


class LinkState(Enum):
    DISCONNECTED = "disconnected"  # no port open
    HANDSHAKING = "handshaking"  # port open, HELLO/SYNC under way
    CONNECTED = "connected"  # SYNC acknowledged: the board shows the host's state
    INCOMPATIBLE = "incompatible"  # the board does not speak our protocol version


class Delivery:
    """The fate of one submitted message: `wait()` until it is acknowledged, superseded or failed."""

    def __init__(self, message: Message) -> None:
        self.message = message
        self.reply: Message | None = None
        self.error: LinkError | None = None
        self.superseded = False
        self._done = threading.Event()

    def _finish(self, reply: Message | None = None, error: LinkError | None = None,
                superseded: bool = False) -> None:
        self.reply, self.error, self.superseded = reply, error, superseded
        self._done.set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """True once finished; raise the error if it failed."""
        finished = self._done.wait(timeout)
        if finished and self.error is not None:
            raise self.error
        return finished


@dataclass
class _Outgoing:
    message: Message | None  # None: a SYNC built from the current state when it is sent
    delivery: Delivery | None
    seq: int = 0
    attempts: int = 0
    sent_at: float = 0.0
    frame: bytes = b""

    @property
    def is_handshake(self) -> bool:
        return self.message is None or isinstance(self.message, Hello)


@dataclass(frozen=True)
class LinkEvent:
    """Something the link reports to its owner: `kind` is connected, disconnected, button,
    board-reset, rejected or incompatible."""

    kind: str
    detail: str = ""
    button: ButtonEvent | None = None
    reply: HelloReply | None = None


@dataclass
class LinkStats:
    sent: int = 0
    retries: int = 0
    heartbeats: int = 0
    reconnects: int = 0
    board_resets: int = 0
    duplicates: int = 0
    stale_answers: int = 0
    nacks: dict[int, int] = field(default_factory=dict)


class Session:
    def __init__(self, state: Callable[[], DisplayState], *, ack_timeout: float = 0.1, retries: int = 3,
                 heartbeat_interval: float = 1.0, max_queued_events: int = 64) -> None:
        self._state = state
        self.ack_timeout = ack_timeout
        self.retries = retries
        self.heartbeat_interval = heartbeat_interval
        self.max_queued_events = max_queued_events
        self.link_state = LinkState.DISCONNECTED
        self.board: HelloReply | None = None
        self.lost_reason = ""
        self.stats = LinkStats()
        self.events: deque[LinkEvent] = deque()
        self._queue: deque[_Outgoing] = deque()
        self._outstanding: _Outgoing | None = None
        self._seq = 0
        self._last_sent = 0.0
        self._last_board_seq: int | None = None

    # -- the I/O layer's calls ---------------------------------------------------------------

    @property
    def lost(self) -> bool:
        """The retries ran out: the I/O layer closes the port and reconnects."""
        return bool(self.lost_reason)

    def connection_made(self, now: float) -> bytes:
        """A port was opened: start the handshake (a 0x00 first ends any partial frame)."""
        self.lost_reason = ""
        self.link_state = LinkState.HANDSHAKING
        self._start_handshake()
        return b"\x00" + self.poll(now)

    def connection_lost(self, reason: str) -> None:
        was = self.link_state
        self.link_state = LinkState.DISCONNECTED
        self.lost_reason = ""
        self._requeue_outstanding()
        self._drop_handshake_and_state()
        if was in (LinkState.CONNECTED, LinkState.HANDSHAKING):
            self.events.append(LinkEvent("disconnected", reason))

    def submit(self, message: Message, now: float) -> tuple[Delivery, bytes]:
        delivery = Delivery(message)
        if self.link_state == LinkState.INCOMPATIBLE:
            delivery._finish(error=LinkError(f"the board does not speak protocol version {PROTOCOL_VERSION}"))
            return delivery, b""
        if message.IS_STATE and self.link_state == LinkState.DISCONNECTED:
            delivery._finish(superseded=True)  # the SYNC after reconnecting carries it
            return delivery, b""
        if not message.IS_STATE and sum(1 for item in self._queue if item.delivery) >= self.max_queued_events:
            dropped = next(item for item in self._queue if item.delivery)
            self._queue.remove(dropped)
            assert dropped.delivery is not None
            dropped.delivery._finish(error=LinkError(f"{dropped.message} dropped: too many queued while the "
                                                     "board was away"))
        self._queue.append(_Outgoing(message, delivery))
        return delivery, self.poll(now)

    def frame_received(self, frame: Frame, now: float) -> bytes:
        message = frame.message
        if isinstance(message, ButtonEvent):
            return self._button(frame)
        outstanding = self._outstanding
        if outstanding is None or (frame.seq != outstanding.seq and not self._is_garbage_nack(message)):
            self.stats.stale_answers += 1
            return b""
        if isinstance(message, Nack):
            self.stats.nacks[message.reason] = self.stats.nacks.get(message.reason, 0) + 1
            return self._nack(outstanding, message.reason, now)
        if isinstance(message, HelloReply) and isinstance(outstanding.message, Hello):
            return self._hello_reply(message, now)
        if isinstance(message, Ack | StatusReply):
            self._complete(message)
            if outstanding.message is None and self.link_state == LinkState.HANDSHAKING:
                self.link_state = LinkState.CONNECTED
                self.events.append(LinkEvent("connected", reply=self.board))
            return self.poll(now)
        self.stats.stale_answers += 1
        return b""

    def poll(self, now: float) -> bytes:
        """Bytes due at `now`: a retry, the next queued frame, or a heartbeat."""
        if self.link_state in (LinkState.DISCONNECTED, LinkState.INCOMPATIBLE) or self.lost:
            return b""
        outstanding = self._outstanding
        if outstanding is not None:
            if now - outstanding.sent_at < self.ack_timeout - _EPSILON:
                return b""
            return self._retry(outstanding, now, f"no answer to {outstanding.message or 'SYNC'} "
                                                 f"within {self.ack_timeout * 1000:.0f} ms")
        if self._queue and (self.link_state == LinkState.CONNECTED or self._queue[0].is_handshake):
            return self._transmit(self._queue.popleft(), now)
        silent = now - self._last_sent
        if self.link_state == LinkState.CONNECTED and silent >= self.heartbeat_interval - _EPSILON:
            self.stats.heartbeats += 1
            return self._transmit(_Outgoing(Heartbeat(), None), now)
        return b""

    def next_deadline(self) -> float | None:
        if self.link_state in (LinkState.DISCONNECTED, LinkState.INCOMPATIBLE):
            return None
        if self._outstanding is not None:
            return self._outstanding.sent_at + self.ack_timeout
        if self.link_state == LinkState.CONNECTED:
            return self._last_sent + self.heartbeat_interval
        return None

    # -- internals -----------------------------------------------------------------------------

    def _start_handshake(self) -> None:
        self._requeue_outstanding()
        self._drop_handshake_and_state()
        self._queue.appendleft(_Outgoing(None, None))
        self._queue.appendleft(_Outgoing(Hello(PROTOCOL_VERSION), None))

    def _requeue_outstanding(self) -> None:
        if self._outstanding is not None:
            self._outstanding.attempts = 0
            self._queue.appendleft(self._outstanding)
            self._outstanding = None

    def _drop_handshake_and_state(self) -> None:
        """A coming SYNC supersedes queued state messages; events (beeps, status) stay queued."""
        kept: deque[_Outgoing] = deque()
        for item in self._queue:
            if item.is_handshake:
                continue
            if item.message is not None and item.message.IS_STATE:
                if item.delivery is not None:
                    item.delivery._finish(superseded=True)
                continue
            kept.append(item)
        self._queue = kept

    def _transmit(self, item: _Outgoing, now: float) -> bytes:
        if item.attempts == 0:
            if item.message is None:
                item.frame = Frame(self._seq, Sync(self._state())).encode()
            else:
                item.frame = Frame(self._seq, item.message).encode()
            item.seq = self._seq
            self._seq = (self._seq + 1) % SEQ_MODULO
        item.attempts += 1
        item.sent_at = now
        self._last_sent = now
        self._outstanding = item
        self.stats.sent += 1
        return item.frame

    def _retry(self, item: _Outgoing, now: float, why: str) -> bytes:
        if item.attempts > self.retries:
            self.lost_reason = f"{why}, after {self.retries} retries"
            return b""
        self.stats.retries += 1
        return self._transmit(item, now)

    def _complete(self, reply: Message | None, error: LinkError | None = None) -> None:
        item = self._outstanding
        self._outstanding = None
        if item is not None and item.delivery is not None:
            item.delivery._finish(reply, error)

    @staticmethod
    def _is_garbage_nack(message: Message) -> bool:
        return isinstance(message, Nack) and message.reason == NackReason.BAD_CRC

    def _nack(self, item: _Outgoing, reason: NackReason, now: float) -> bytes:
        if reason == NackReason.BAD_CRC:
            return self._retry(item, now, "the board kept answering NACK (bad CRC)")
        if reason == NackReason.NO_HANDSHAKE:
            self.stats.board_resets += 1
            self.events.append(LinkEvent("board-reset", "NACK 6 (no handshake): the board was reset"))
            self.link_state = LinkState.HANDSHAKING
            self._start_handshake()
            return self.poll(now)
        what = item.message or "SYNC"
        if reason == NackReason.UNSUPPORTED_VERSION:
            self._complete(None)
            self.link_state = LinkState.INCOMPATIBLE
            detail = f"the board does not speak protocol version {PROTOCOL_VERSION} (NACK 5 to HELLO)"
            self.events.append(LinkEvent("incompatible", detail))
            return b""
        detail = f"the board rejected {what}: NACK {reason.value} ({reason.name.lower().replace('_', ' ')})"
        self.events.append(LinkEvent("rejected", detail))
        self._complete(None, Rejected(detail))
        return self.poll(now)

    def _hello_reply(self, reply: HelloReply, now: float) -> bytes:
        self._complete(reply)
        self._last_board_seq = None
        if reply.version != PROTOCOL_VERSION:
            self.link_state = LinkState.INCOMPATIBLE
            detail = f"the board speaks protocol version {reply.version}, the host {PROTOCOL_VERSION}"
            self.events.append(LinkEvent("incompatible", detail))
            return b""
        self.board = reply
        return self.poll(now)

    def _button(self, frame: Frame) -> bytes:
        assert isinstance(frame.message, ButtonEvent)
        if frame.seq == self._last_board_seq:
            self.stats.duplicates += 1
        else:
            self._last_board_seq = frame.seq
            self.events.append(LinkEvent("button", frame.message.name, button=frame.message))
        return Frame(frame.seq, Ack()).encode()

