"""The scoreboard as the referee service sees it: scores, a move clock, messages, beeps, LEDs, buttons.

```python
with Scoreboard("/dev/ttyACM0") as board:          # or "emulator://", "socket://host:port"
    board.show_scores([12, 30])
    board.run_clock(1, 20.0)                        # seat 1 has 20 s; the board counts down itself
    board.beep("warning")
    board.on_button(lambda press: print(press.name))
```

Every call updates `state`, the full display state kept on the host, and sends one message; after
the board was unplugged or reset, the link sends the whole `state` again (with the clock counted
down to the moment of the resync), so nothing the referee showed is lost. Calls never block on
the line: they return a `Delivery` to wait on when the caller cares.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from firmware_bridge.display import MAX_SEATS, MAX_TENTHS, DisplayState, DisplayValueError, check_text
from firmware_bridge.emulator import Emulator
from firmware_bridge.link import Link
from firmware_bridge.protocol.codec import (
    Beep,
    BeepPattern,
    ButtonAction,
    ButtonPress,
    Leds,
    SetClock,
    SetScores,
    ShowMessage,
    StatusReply,
)
from firmware_bridge.protocol.session import Delivery, LinkError, LinkEvent, LinkState

log = logging.getLogger(__name__)

EMULATOR_URL = "emulator://"
_UNCHANGED: Any = object()


def seconds_to_tenths(seconds: float) -> int:
    return max(0, min(MAX_TENTHS, round(seconds * 10)))


class Scoreboard:
    """The serial scoreboard at `url` (any pyserial URL, or `emulator://` for the in-process emulator).

    `clock` is the host's time for the move clock (injected by tests); `link_options` go to `Link`
    (ack_timeout, retries, heartbeat_interval, reconnect_interval, clock); `emulator_options` to
    `Emulator` when the URL is `emulator://`.
    """

    def __init__(self, url: str = EMULATOR_URL, *, baud: int = 115200,
                 clock: Callable[[], float] = time.monotonic,
                 connect_timeout: float = 2.0, link_options: dict[str, Any] | None = None,
                 emulator_options: dict[str, Any] | None = None) -> None:
        self.url = url
        self.clock = clock
        self.connect_timeout = connect_timeout
        self.emulator: Emulator | None = None
        if url.startswith(EMULATOR_URL):
            self.emulator = Emulator(**(emulator_options or {}))
            port_url = self.emulator.url
        else:
            port_url = url
        # Updates hold `_lock` (state and message order agree); readers take the snapshot tuple
        # without it, because the link builds its SYNC from `state` under its own lock.
        self._lock = threading.RLock()
        self._snapshot = (DisplayState(), clock(), clock())  # state, clock origin, message origin
        self._callbacks: list[Callable[[ButtonPress], None]] = []
        self._status_callbacks: list[Callable[[LinkEvent], None]] = []
        self.link = Link(port_url, baud=baud, state=lambda: self.state, on_event=self._on_event,
                         **(link_options or {}))

    # -- lifecycle -------------------------------------------------------------------------------

    def open(self) -> Scoreboard:
        """Start the link; wait up to `connect_timeout` for the board (it keeps trying after that)."""
        if self.emulator is not None:
            self.emulator.start()
        self.link.start()
        if not self.link.wait_connected(self.connect_timeout):
            log.warning("scoreboard %s not connected yet (%s); retrying in the background", self.url,
                        self.link.last_error or self.link.state.value)
        return self

    def close(self) -> None:
        self.link.close()
        if self.emulator is not None:
            self.emulator.stop()

    def __enter__(self) -> Scoreboard:
        return self.open()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        return self.link.connected

    def wait_connected(self, timeout: float) -> bool:
        return self.link.wait_connected(timeout)

    @property
    def board_version(self) -> tuple[int, int] | None:
        reply = self.link.session.board
        return None if reply is None else (reply.firmware_major, reply.firmware_minor)

    # -- the display state ---------------------------------------------------------------------

    @property
    def state(self) -> DisplayState:
        """The full display state now: the clock counted down and the message's time left."""
        state, clock_origin, message_origin = self._snapshot
        now = self.clock()
        if state.running and state.seat is not None:
            state = replace(state, tenths=max(0, state.tenths - int((now - clock_origin) * 10 + 1e-9)))
        if state.message_tenths:
            left = state.message_tenths - int((now - message_origin) * 10 + 1e-9)
            state = replace(state, message="" if left <= 0 else state.message, message_tenths=max(0, left))
        return state

    def _update(self, *, restart_clock: bool = False, restart_message: bool = False,
                **changes: Any) -> DisplayState:
        """Change the stored state (under `_lock`), restarting the clock's or message's time origin."""
        state, clock_origin, message_origin = self._snapshot
        now = self.clock()
        state = replace(state, **changes)
        self._snapshot = (state, now if restart_clock else clock_origin,
                          now if restart_message else message_origin)
        return state

    def clock_seconds_left(self) -> float:
        return self.state.tenths / 10

    # -- updates ---------------------------------------------------------------------------------

    def show_scores(self, scores: list[int] | tuple[int, ...]) -> Delivery:
        """Scores of seats 0-3 (1-4 of them); −999…9999 are shown, others as `----`."""
        scores = tuple(int(score) for score in scores)
        if not 1 <= len(scores) <= MAX_SEATS:
            raise DisplayValueError(f"the scoreboard shows 1-4 scores, got {list(scores)!r}")
        with self._lock:
            self._update(scores=scores)
            return self.link.send(SetScores(scores))

    def run_clock(self, seat: int, seconds_left: float, *, running: bool = True, warning: bool = False,
                  away: bool = False) -> Delivery:
        """Show seat's clock with `seconds_left`; a running clock is counted down by the board itself."""
        if not 0 <= seat < MAX_SEATS:
            raise DisplayValueError(f"clock seat {seat!r} is not 0-3")
        tenths = seconds_to_tenths(seconds_left)
        with self._lock:
            self._update(restart_clock=True, seat=seat, tenths=tenths, running=running, warning=warning,
                         away=away)
            return self.link.send(SetClock(seat, tenths, running, warning, away))

    def stop_clock(self) -> Delivery:
        """Stop the clock where it is (shown with `--`)."""
        with self._lock:
            state = self._update(restart_clock=True, tenths=self.state.tenths, running=False)
            return self.link.send(SetClock(state.seat, state.tenths, False, state.warning, state.away))

    def hide_clock(self) -> Delivery:
        with self._lock:
            self._update(restart_clock=True, seat=None, tenths=0, running=False, warning=False, away=False)
            return self.link.send(SetClock(None))

    def message(self, text: str, seconds: float = 0) -> Delivery:
        """Show `text` (≤ 16 characters) over the scores, for `seconds` (0: until replaced); '' clears."""
        check_text(text)
        tenths = seconds_to_tenths(seconds)
        with self._lock:
            self._update(restart_message=True, message=text, message_tenths=tenths if text else 0)
            return self.link.send(ShowMessage(text, tenths if text else 0))

    def beep(self, pattern: str | Beep | BeepPattern) -> Delivery:
        """'ok', 'warning', 'error', 'timeout', 'match-end', or custom 'COUNTxON/OFF@HZ' or a `Beep`."""
        if isinstance(pattern, str):
            beep = Beep.parse(pattern)
        elif isinstance(pattern, BeepPattern):
            beep = Beep(pattern)
        else:
            beep = pattern
        return self.link.send(beep)

    def leds(self, *, green: bool | None = None, red: bool | None = None,
             turn: int | None = _UNCHANGED) -> Delivery:
        """Set the green and red LEDs and the turn marker (a seat, or None for none); omitted ones stay."""
        with self._lock:
            state = self._snapshot[0]
            if turn is not _UNCHANGED and turn is not None and not 0 <= turn < MAX_SEATS:
                raise DisplayValueError(f"turn marker seat {turn!r} is not 0-3 (or None)")
            marker = state.turn if turn is _UNCHANGED else frozenset() if turn is None else frozenset({turn})
            new = self._update(green=state.green if green is None else green,
                               red=state.red if red is None else red, turn=marker)
            return self.link.send(Leds(new.green, new.red, new.turn))

    def status(self, timeout: float = 1.0) -> StatusReply:
        """The board's own view (its clock, garbage count, uptime); raises `LinkError` without an answer."""
        return self.link.status(timeout)

    # -- buttons and link events ---------------------------------------------------------------

    def on_button(self, callback: Callable[[ButtonPress], None]) -> None:
        """Call `callback(ButtonPress)` for every button pressed on the board (in the events thread)."""
        self._callbacks.append(callback)

    def on_link_event(self, callback: Callable[[LinkEvent], None]) -> None:
        self._status_callbacks.append(callback)

    def _on_event(self, event: LinkEvent) -> None:
        if event.kind == "button" and event.button is not None:
            press = ButtonPress(event.button.name, event.button.action == ButtonAction.HELD)
            for callback in list(self._callbacks):
                callback(press)
        elif event.kind in ("rejected", "incompatible"):
            log.warning("scoreboard %s: %s", self.url, event.detail)
        else:
            log.info("scoreboard %s: %s %s", self.url, event.kind, event.detail)
        for status_callback in list(self._status_callbacks):
            status_callback(event)


__all__ = ["EMULATOR_URL", "LinkError", "LinkState", "Scoreboard", "seconds_to_tenths"]
