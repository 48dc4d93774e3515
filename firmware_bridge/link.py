"""The scoreboard link over any pyserial URL: a reader thread runs a `Session` against a real port.

The port is opened with `serial.serial_for_url(url, exclusive=True)` (an flock on POSIX ports, so
a second program cannot share the board). A `SerialException` or `OSError` on read or write — an
unplugged USB board — or retries that run out close the port; the reader thread then reopens the
same URL every `reconnect_interval` seconds, repeats the handshake and sends the full state.
Writes happen in the caller's thread under the link's lock, so an update goes out at once; user
callbacks run in a separate dispatcher thread, so a slow callback never stalls the line.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import serial

from firmware_bridge.display import DisplayState
from firmware_bridge.protocol.codec import (
    Frame,
    FrameProtocol,
    GarbageFrame,
    InvalidMessage,
    Message,
    Status,
    StatusReply,
)
from firmware_bridge.protocol.session import Delivery, LinkError, LinkEvent, LinkState, Session

log = logging.getLogger(__name__)

READ_TIMEOUT = 0.02  # how often the reader thread looks at retry and heartbeat deadlines
WRITE_TIMEOUT = 0.5


class PortBusy(LinkError):
    """Another program holds the port (exclusive lock)."""


def open_port(url: str, baud: int) -> Any:
    """Open `url` exclusively where the port supports it; raise `LinkError` with the reason."""
    try:
        return serial.serial_for_url(url, baudrate=baud, timeout=READ_TIMEOUT, write_timeout=WRITE_TIMEOUT,
                                     exclusive=True)
    except serial.SerialException as error:
        if "exclusively lock" in str(error):
            raise PortBusy(f"{url}: another program is using the scoreboard port ({error})") from None
        raise LinkError(f"{url}: cannot open the scoreboard port: {error}") from None
    except (OSError, ValueError) as error:
        raise LinkError(f"{url}: cannot open the scoreboard port: {error}") from None


class _LinkProtocol(FrameProtocol):
    def __init__(self, link: Link) -> None:
        super().__init__()
        self._link = link

    def handle_frame(self, frame: Frame) -> None:
        self._link._frame_received(frame)

    def handle_garbage(self, error: GarbageFrame) -> None:
        log.debug("scoreboard link: garbage from the board: %s", error)

    def handle_invalid(self, error: InvalidMessage) -> None:
        log.warning("scoreboard link: invalid frame from the board: %s", error)


class Link:
    """A reliable message link to one board. Use as a context manager or `start()`/`close()`.

    `state` returns the full display state for the `SYNC` after each handshake; `on_event` gets
    every `LinkEvent` (connected, disconnected, button, board-reset, rejected, incompatible).
    """

    def __init__(self, url: str, *, baud: int = 115200, state: Callable[[], DisplayState] = DisplayState,
                 on_event: Callable[[LinkEvent], None] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 ack_timeout: float = 0.1, retries: int = 3, heartbeat_interval: float = 1.0,
                 reconnect_interval: float = 0.1,
                 opener: Callable[[str, int], Any] = open_port) -> None:
        self.url = url
        self.baud = baud
        self.clock = clock
        self.reconnect_interval = reconnect_interval
        self.on_event = on_event
        self.session = Session(state, ack_timeout=ack_timeout, retries=retries,
                               heartbeat_interval=heartbeat_interval)
        self.protocol = _LinkProtocol(self)
        self.last_error: LinkError | None = None
        self._opener = opener
        self._port: Any = None
        self._broken = ""
        self._connections = 0
        self._lock = threading.RLock()
        self._closing = threading.Event()
        self._state_changed = threading.Condition(self._lock)
        self._events: queue.Queue[LinkEvent | None] = queue.Queue()
        self._reader = threading.Thread(target=self._run, name=f"scoreboard-link {url}", daemon=True)
        self._dispatcher = threading.Thread(target=self._dispatch, name="scoreboard-events", daemon=True)

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> Link:
        self._dispatcher.start()
        self._reader.start()
        return self

    def close(self) -> None:
        self._closing.set()
        if self._reader.is_alive():
            self._reader.join(timeout=2)
        with self._lock:
            self._drop_port("link closed")
        self._events.put(None)
        if self._dispatcher.is_alive():
            self._dispatcher.join(timeout=2)

    def __enter__(self) -> Link:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- what callers use ----------------------------------------------------------------------

    @property
    def state(self) -> LinkState:
        return self.session.link_state

    @property
    def connected(self) -> bool:
        return self.session.link_state == LinkState.CONNECTED

    def wait_connected(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._state_changed:
            while not self.connected:
                left = deadline - time.monotonic()
                if left <= 0 or self.session.link_state == LinkState.INCOMPATIBLE:
                    return False
                self._state_changed.wait(left)
            return True

    def send(self, message: Message) -> Delivery:
        """Queue `message`; it goes out at once when nothing else is waiting for an answer."""
        with self._lock:
            delivery, data = self.session.submit(message, self.clock())
            self._write(data)
        return delivery

    def status(self, timeout: float = 1.0) -> StatusReply:
        delivery = self.send(Status())
        if not delivery.wait(timeout) or not isinstance(delivery.reply, StatusReply):
            raise LinkError(f"{self.url}: no STATUS_REPLY within {timeout} s")
        return delivery.reply

    def send_raw(self, data: bytes) -> None:
        """Write bytes as they are (line tests: garbage, a resent frame)."""
        with self._lock:
            self._write(data)

    # -- the reader thread ----------------------------------------------------------------------

    def _run(self) -> None:
        while not self._closing.is_set():
            port = self._port
            if port is None:
                if not self._connect():
                    self._closing.wait(self.reconnect_interval)
                continue
            try:
                data = port.read(max(1, port.in_waiting))
            except (serial.SerialException, OSError, TypeError, AttributeError) as error:
                # pyserial raises TypeError/AttributeError when the port was closed under it.
                with self._lock:
                    self._drop_port(f"read failed: {error}")
                continue
            if data:
                self.protocol.data_received(data)
            with self._lock:
                self._write(self.session.poll(self.clock()))
                if self.session.lost:
                    self._drop_port(self.session.lost_reason)
                elif self._broken:
                    self._drop_port(self._broken)
                self._publish_events()

    def _connect(self) -> bool:
        try:
            port = self._opener(self.url, self.baud)
        except LinkError as error:
            if self.last_error is None or str(error) != str(self.last_error):
                log.info("scoreboard link: %s", error)
            self.last_error = error
            return False
        with self._lock:
            self._port = port
            self._broken = ""
            if self._connections:
                self.session.stats.reconnects += 1
            self._connections += 1
            self._write(self.session.connection_made(self.clock()))
            self._state_changed.notify_all()
        return True

    def _frame_received(self, frame: Frame) -> None:
        with self._lock:
            self._write(self.session.frame_received(frame, self.clock()))
            self._publish_events()

    def _write(self, data: bytes) -> None:
        if not data or self._port is None or self._broken:
            return
        try:
            self._port.write(data)
        except (serial.SerialException, OSError) as error:
            # Dropping the port is the reader thread's job; it sees this flag on its next turn.
            self._broken = f"write failed: {error}"

    def _drop_port(self, reason: str) -> None:
        port, self._port = self._port, None
        if port is None:
            return
        log.info("scoreboard link %s lost: %s", self.url, reason)
        with contextlib.suppress(serial.SerialException, OSError):
            port.close()
        self.session.connection_lost(reason)
        self._broken = ""
        self._publish_events()

    def _publish_events(self) -> None:
        while self.session.events:
            self._events.put(self.session.events.popleft())
        self._state_changed.notify_all()

    def _dispatch(self) -> None:
        while True:
            event = self._events.get()
            if event is None:
                return
            if self.on_event is None:
                continue
            try:
                self.on_event(event)
            except Exception:
                log.exception("scoreboard link: event handler failed on %s", event)
