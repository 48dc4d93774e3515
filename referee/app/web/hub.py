"""The web side's view of the table: the latest state, recent events and the connected clients.

`Hub` is a `Publisher`: the service's consumer thread calls `publish_state` / `publish_event`, which
only encode the message once and hand it to the web server's event loop (never blocking the
referee). On the loop, every WebSocket client has its own bounded queue; a client whose queue is
full is too slow to keep up and is dropped (it reconnects and rebuilds its view from one state
message), so one slow phone never holds back the overlay or the referee.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.app.web.limits import CLIENT_QUEUE, EVENT_BACKLOG


@dataclass(eq=False)
class Client:
    """One WebSocket client: its outgoing queue (None ends it), and why it was dropped."""

    queue: asyncio.Queue[str | None] = field(default_factory=lambda: asyncio.Queue(CLIENT_QUEUE + 1))
    dropped: str = ""


class Hub:
    """Thread-safe in (`publish_*` from any thread), loop-bound out (clients on the server's loop)."""

    def __init__(self, *, backlog: int = EVENT_BACKLOG) -> None:
        self._lock = threading.Lock()
        self._state_text = json.dumps({"phase": "waiting"})
        self._state: dict[str, Any] = {"phase": "waiting"}
        self.revision = 0
        self._events: deque[dict[str, Any]] = deque(maxlen=backlog)
        self._forgotten_through = 0   # the highest seq no longer kept (0: none forgotten)
        self.errors: deque[str] = deque(maxlen=20)
        self._loop: asyncio.AbstractEventLoop | None = None
        self.clients: set[Client] = set()
        self.dropped = 0
        # Notified when a state is published or a client is forgotten: tests and the benchmark wait on it.
        self.changed = threading.Condition(self._lock)

    # -- the referee's side (any thread) ---------------------------------------------------------
    def publish_state(self, document: Mapping[str, Any]) -> None:
        with self._lock:
            self.revision += 1
            state = {**document, "rev": self.revision}
            self._state = state
            self._state_text = json.dumps({"type": "state", "state": state}, ensure_ascii=False)
            text = self._state_text
            self.changed.notify_all()
        self._send(text)

    def publish_event(self, seq: int, payload: str) -> None:
        try:
            event = json.loads(payload)
        except json.JSONDecodeError:
            return
        with self._lock:
            self._keep(event)
        self._send(json.dumps({"type": "event", "event": event}, ensure_ascii=False))

    def _keep(self, event: dict[str, Any]) -> None:
        if len(self._events) == self._events.maxlen:
            self._forgotten_through = max(self._forgotten_through, int(self._events[0].get("seq", 0)))
        self._events.append(event)

    def seed(self, events: list[dict[str, Any]]) -> None:
        """The events the table published before the server started (from the event log)."""
        with self._lock:
            for event in events:
                self._keep(event)

    def publish_error(self, message: str, received: str = "") -> None:
        with self._lock:
            self.errors.append(message)
        self._send(json.dumps({"type": "note", "error": message}, ensure_ascii=False))

    def publish_raw(self, document: Mapping[str, Any]) -> None:
        """Any other message for every client (the club's tables, health changes)."""
        self._send(json.dumps(document, ensure_ascii=False))

    # -- reading (any thread) ----------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        with self._lock:
            return dict(self._state)

    def state_message(self) -> str:
        with self._lock:
            return self._state_text

    def events_since(self, since: int, limit: int) -> tuple[list[dict[str, Any]], bool]:
        """Events with ``seq > since`` (at most `limit`), and whether that is all of them (False when
        some of those were already forgotten: the event log still has them)."""
        with self._lock:
            events = list(self._events)
            complete = since >= self._forgotten_through
        return [event for event in events if int(event.get("seq", 0)) > since][:limit], complete

    # -- the loop's side -------------------------------------------------------------------------
    def bind(self, loop: asyncio.AbstractEventLoop | None) -> None:
        self._loop = loop

    def _send(self, text: str) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        # The loop may close between the check and the call: the server is stopping.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(self._fan_out, text)

    def _fan_out(self, text: str) -> None:
        for client in list(self.clients):
            if client.queue.qsize() >= CLIENT_QUEUE:
                self.drop(client, f"too slow: {CLIENT_QUEUE} messages waiting")
            else:
                client.queue.put_nowait(text)

    def drop(self, client: Client, why: str) -> None:
        """Forget `client` (on the loop's thread): what it has not taken yet is thrown away."""
        if client in self.clients:
            self.clients.discard(client)
            client.dropped = why
            if why != "closed":
                self.dropped += 1
            while not client.queue.empty():
                client.queue.get_nowait()
            client.queue.put_nowait(None)
            with self._lock:
                self.changed.notify_all()
