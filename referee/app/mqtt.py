"""MQTT: the table's state, events and the manager's commands on a broker (paho-mqtt 2.x, MQTT v5).

Topics live under ``<prefix>/<table-id>/``:

- ``state``   retained JSON document of the whole table (rewritten on every change and reconnect)
- ``events``  QoS 1 stream, one JSON object per decision, numbered by ``seq``
- ``status``  retained ``online``/``offline`` (the last will says ``offline``)
- ``cmd/<name>`` commands from the table manager (start, continue, pass, undo, ...)
- ``cmd/errors`` what was wrong with a refused command

Who may command is the broker's business: its password file and ACL let only the manager's user
write ``cmd/#``. The link never trusts a payload: `parse_command` checks it and a malformed one is
answered on ``cmd/errors`` and changes nothing. Events go through an `Outbox` (the event log) and
are marked delivered only when the broker's PUBACK arrives, so a crash or a broker outage loses none.
"""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from referee.app.config import Config
from referee.app.intake import Command, CommandError, parse_command
from referee.errors import DominoError

DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883, "ws": 80, "wss": 443}

class MqttSettingError(DominoError, ValueError):
    """The [mqtt] section names something the link cannot use (URL, password file)."""


@dataclass(frozen=True)
class MqttSettings:
    """Where and how to connect; built from the `[mqtt]` config section by `from_config`."""

    host: str
    port: int
    table_id: str
    prefix: str = "domino"
    transport: str = "tcp"
    path: str = "/"
    tls: bool = False
    ca_file: str | None = None
    username: str | None = None
    password: str | None = None
    keepalive: int = 30
    client_id: str = ""

    @property
    def base(self) -> str:
        return f"{self.prefix}/{self.table_id}"

    def topic(self, leaf: str) -> str:
        return f"{self.base}/{leaf}"

    @classmethod
    def from_url(cls, url: str, table_id: str, **kwargs: Any) -> MqttSettings:
        parts = urlsplit(url)
        if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
            raise MqttSettingError(f"mqtt.url: found {url!r}, allowed mqtt://, mqtts://, ws:// or wss://host[:port]")
        try:
            port = parts.port or DEFAULT_PORTS[parts.scheme]
        except ValueError:
            raise MqttSettingError(f"mqtt.url: found {url!r}: the port is not a number") from None
        kwargs.setdefault("tls", parts.scheme in ("mqtts", "wss"))
        kwargs["tls"] = kwargs["tls"] or parts.scheme in ("mqtts", "wss")
        return cls(host=parts.hostname, port=port, table_id=table_id,
                   transport="websockets" if parts.scheme in ("ws", "wss") else "tcp",
                   path=parts.path or "/", **kwargs)

    @classmethod
    def from_config(cls, config: Config) -> MqttSettings:
        section = config["mqtt"]
        password = section["password"]
        if section["password_file"]:
            try:
                password = Path(section["password_file"]).read_text(encoding="utf-8").strip()
            except OSError as error:
                name = section["password_file"]
                raise MqttSettingError(
                    f"mqtt.password_file: cannot read {name!r}: {error.strerror}") from None
        return cls.from_url(section["url"], config["table"]["id"], prefix=section["topic_prefix"],
                            tls=section["tls"], ca_file=section["ca_file"], username=section["username"],
                            password=password, keepalive=section["keepalive"],
                            client_id=f"domino-referee-{config['table']['id']}")


class Outbox(Protocol):
    """Where events wait for their PUBACK (the event log)."""

    def mark_delivered(self, seq: int) -> None: ...

    def undelivered(self) -> list[tuple[int, str]]: ...


class MqttLink:
    """One broker connection: publishes state/events/status and hands checked commands on.

    `on_command` is called from paho's network thread; it should only enqueue. The link reconnects
    by itself (paho's loop), keeps unacknowledged QoS 1 messages queued across reconnects, and
    republishes the latest state and ``online`` on every connect.
    """

    def __init__(self, settings: MqttSettings, *, on_command: Callable[[Command], None],
                 outbox: Outbox | None = None, on_connection: Callable[[bool], None] | None = None) -> None:
        self.settings = settings
        self._on_command = on_command
        self._on_connection = on_connection
        self._outbox = outbox
        self._lock = threading.Condition()
        self._pending: dict[int, int | None] = {}
        self._answered_early: dict[int, bool] = {}  # mid -> the broker accepted it
        self._state: str | None = None
        self.connected = threading.Event()
        self.client = paho.Client(CallbackAPIVersion.VERSION2, client_id=settings.client_id,
                                  protocol=paho.MQTTv5, transport=settings.transport,  # type: ignore[arg-type]
                                  reconnect_on_failure=True)
        self.client.max_queued_messages_set(0)
        self.client.reconnect_delay_set(min_delay=1, max_delay=8)
        if settings.transport == "websockets":
            self.client.ws_set_options(path=settings.path)
        if settings.username:
            self.client.username_pw_set(settings.username, settings.password)
        if settings.tls:
            context = ssl.create_default_context(cafile=settings.ca_file)
            self.client.tls_set_context(context)
        self.client.will_set(settings.topic("status"), "offline", qos=1, retain=True)
        self.client.on_connect = self._connected
        self.client.on_disconnect = self._disconnected
        self.client.on_message = self._message
        self.client.on_publish = self._published
        self._extra: dict[str, Callable[[str, bytes], None]] = {}   # see add_listener
        self._connect_hooks: list[Callable[[], None]] = []

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        self.client.connect_async(self.settings.host, self.settings.port, keepalive=self.settings.keepalive)
        self.client.loop_start()
        if self._outbox is not None:
            for seq, payload in self._outbox.undelivered():
                self.publish_event(seq, payload)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until the broker answered every message published so far: events, state and
        status (or `timeout`). Once true, a new subscriber gets the retained state and status."""
        with self._lock:
            return self._lock.wait_for(lambda: not self._pending, timeout)

    def stop(self, timeout: float = 5.0) -> None:
        """Deliver what is still unacknowledged (waiting up to `timeout` for the broker), say
        ``offline`` and disconnect."""
        with self._lock:
            waiting = any(seq is not None for seq in self._pending.values())
        if waiting:
            self.connected.wait(timeout)
        if self.connected.is_set():
            self.flush(timeout)
            info = self.client.publish(self.settings.topic("status"), "offline", qos=1, retain=True)
            if info.rc == paho.MQTT_ERR_SUCCESS:
                info.wait_for_publish(timeout=2)
        self.client.disconnect()
        self.client.loop_stop()

    # -- publishing --------------------------------------------------------------------------
    def publish_state(self, document: Mapping[str, Any]) -> None:
        text = json.dumps(document, ensure_ascii=False, sort_keys=True)
        with self._lock:
            self._state = text
        self._publish("state", text, retain=True)

    def publish_event(self, seq: int, payload: str) -> None:
        """Publish an event already stored in the outbox (its payload carries ``seq``)."""
        self._publish("events", payload, seq=seq)

    def publish_error(self, message: str, received: str = "") -> None:
        self._publish("cmd/errors", json.dumps({"error": message, "received": received}, ensure_ascii=False))

    def _publish(self, leaf: str, payload: str, *, retain: bool = False, seq: int | None = None) -> None:
        info = self.client.publish(self.settings.topic(leaf), payload, qos=1, retain=retain)
        if info.mid == 0:
            return
        with self._lock:
            accepted = self._answered_early.pop(info.mid, None)
            if accepted is None:
                self._pending[info.mid] = seq
        if accepted and seq is not None and self._outbox is not None:
            self._outbox.mark_delivered(seq)

    # -- paho callbacks (network thread) -------------------------------------------------------
    def _connected(self, client: paho.Client, userdata: Any, flags: Any, reason: ReasonCode,
                   properties: Properties | None) -> None:
        if reason.is_failure:
            return
        options = SubscribeOptions(qos=1, noLocal=True)
        client.subscribe(self.settings.topic("cmd/+"), options=options)
        self._publish("status", "online", retain=True)
        with self._lock:
            state = self._state
        if state is not None:
            self._publish("state", state, retain=True)
        self.connected.set()
        for topic in list(self._extra):
            client.subscribe(topic, qos=1)
        for hook in list(self._connect_hooks):
            hook()
        if self._on_connection is not None:
            self._on_connection(True)

    def _disconnected(self, client: paho.Client, userdata: Any, flags: Any, reason: ReasonCode,
                      properties: Properties | None) -> None:
        self.connected.clear()
        if self._on_connection is not None:
            self._on_connection(False)

    def _published(self, client: paho.Client, userdata: Any, mid: int, reason: ReasonCode,
                   properties: Properties | None) -> None:
        with self._lock:
            if mid in self._pending:
                seq = self._pending.pop(mid)
                self._lock.notify_all()
            else:
                self._answered_early[mid] = not reason.is_failure
                return
        # A refused event is not delivered: it stays in the outbox for the next start.
        if seq is not None and self._outbox is not None and not reason.is_failure:
            self._outbox.mark_delivered(seq)

    def _message(self, client: paho.Client, userdata: Any, message: paho.MQTTMessage) -> None:
        handler = self._extra.get(message.topic)
        if handler is not None:
            handler(message.topic, bytes(message.payload))
            return
        name = message.topic.rsplit("/", 1)[-1]
        if name == "errors":
            return
        try:
            command = parse_command(name, bytes(message.payload))
        except CommandError as error:
            self.publish_error(str(error), message.payload.decode("utf-8", errors="replace")[:200])
            return
        self._on_command(command)

    # -- topics outside the table's own (Home Assistant discovery) -----------------------------
    def add_listener(self, topic: str, handler: Callable[[str, bytes], None]) -> None:
        """Also subscribe to `topic` (an exact topic, on every connect) and hand its messages to
        `handler` on paho's network thread."""
        self._extra[topic] = handler
        if self.connected.is_set():
            self.client.subscribe(topic, qos=1)

    def on_connect(self, hook: Callable[[], None]) -> None:
        """Call `hook` on paho's network thread after every (re)connect."""
        self._connect_hooks.append(hook)

    def publish_retained(self, topic: str, payload: str) -> None:
        """Publish a retained QoS 1 message on any topic (`flush` waits for it too)."""
        info = self.client.publish(topic, payload, qos=1, retain=True)
        if info.mid == 0:
            return
        with self._lock:
            if self._answered_early.pop(info.mid, None) is None:
                self._pending[info.mid] = None
