"""The club's view: every table on the broker, from the retained ``<prefix>/+/state`` and ``status``.

One read-only MQTT connection (its own client id) follows all tables; each message updates that
table's card and is pushed to the web clients as ``{"type": "club", "table": id, ...}``. A payload
that is not a JSON object is kept as an error on that table's card, never raised; at most
`MAX_CLUB_TABLES` tables are followed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from referee.app.mqtt import MqttSettings
from referee.app.web.limits import MAX_CLUB_TABLES

# What a club card shows of a table's state (the rest stays on the table's own page).
CARD_FIELDS = ("table", "rules", "players", "phase", "hand", "turn", "scores", "clock", "boneyard",
               "last_play", "message", "popup")


def card(state: dict[str, Any]) -> dict[str, Any]:
    return {key: state.get(key) for key in CARD_FIELDS}



def status_of(payload: bytes) -> tuple[str, str]:
    """A table's retained ``status`` as (state, overall health): a JSON document
    ``{"state": "online", "health": {"overall": "ok", …}}``, or a plain word from older tables."""
    text = payload.decode("utf-8", errors="replace")
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        return text[:20], ""
    if not isinstance(document, dict):
        return text[:20], ""
    health = document.get("health")
    overall = health.get("overall") if isinstance(health, dict) else None
    return str(document.get("state", "unknown"))[:20], str(overall or "")[:20]

class ClubWatcher:
    """Follows every table under `settings.prefix`; `on_change(table, card)` runs on paho's thread."""

    def __init__(self, settings: MqttSettings, *, on_change: Callable[[dict[str, Any]], None]) -> None:
        self.settings = replace(settings, client_id=f"{settings.client_id or 'domino'}-club")
        self._on_change = on_change
        self._lock = threading.Lock()
        self._tables: dict[str, dict[str, Any]] = {}
        self.connected = threading.Event()
        client = paho.Client(CallbackAPIVersion.VERSION2, client_id=self.settings.client_id,
                             protocol=paho.MQTTv5, transport=settings.transport,  # type: ignore[arg-type]
                             reconnect_on_failure=True)
        if settings.transport == "websockets":
            client.ws_set_options(path=settings.path)
        if settings.username:
            client.username_pw_set(settings.username, settings.password)
        if settings.tls:
            import ssl
            client.tls_set_context(ssl.create_default_context(cafile=settings.ca_file))
        client.reconnect_delay_set(min_delay=1, max_delay=8)
        client.on_connect = self._connected
        client.on_disconnect = lambda *args: self.connected.clear()
        client.on_message = self._message
        self.client = client

    def start(self) -> None:
        self.client.connect_async(self.settings.host, self.settings.port, keepalive=self.settings.keepalive)
        self.client.loop_start()

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def tables(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {name: dict(entry) for name, entry in sorted(self._tables.items())}

    def _connected(self, client: paho.Client, userdata: Any, flags: Any, reason: Any,
                   properties: Any) -> None:
        if getattr(reason, "is_failure", False):
            return
        prefix = self.settings.prefix
        client.subscribe([(f"{prefix}/+/state", 1), (f"{prefix}/+/status", 1)])
        self.connected.set()

    def _message(self, client: paho.Client, userdata: Any, message: paho.MQTTMessage) -> None:
        parts = message.topic.split("/")
        if len(parts) != 3:
            return
        table, leaf = parts[1], parts[2]
        with self._lock:
            entry = self._tables.get(table)
            if entry is None:
                if len(self._tables) >= MAX_CLUB_TABLES:
                    return
                entry = self._tables[table] = {"table": table, "status": "unknown", "health": "",
                                               "state": None, "error": ""}
            if leaf == "status":
                entry["status"], entry["health"] = status_of(bytes(message.payload))
            else:
                try:
                    state = json.loads(message.payload)
                except (json.JSONDecodeError, UnicodeDecodeError) as error:
                    entry["error"] = f"state is not JSON: {error}"
                else:
                    if isinstance(state, dict):
                        entry["state"], entry["error"] = card(state), ""
                    else:
                        entry["error"] = "state is not a JSON object"
            update = dict(entry)
        self._on_change({"type": "club", **update})
