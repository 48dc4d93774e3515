"""MQTT: the table's state, events and the manager's commands on a broker (paho-mqtt 2.x, MQTT v5).

Topics live under ``<prefix>/<table-id>/``:

- ``state``   retained JSON document of the whole table (rewritten on every change and reconnect)
- ``events``  QoS 1 stream, one JSON object per decision, numbered by ``seq``
- ``status``  retained JSON ``{"state": "online"|"offline", "health": {...}, ...}`` (the last
  will says offline)
- ``cmd/<name>`` commands from the table manager (start, continue, pass, undo, ...)
- ``cmd/errors`` what was wrong with a refused command (only ever an answer to a command)

Who may command is the broker's business: its password file and ACL let only the manager's user
write ``cmd/#``. The link never trusts a payload: `parse_command` checks it, a malformed one is
answered once on ``cmd/errors`` and changes nothing, and no payload can stop paho's network thread
(every callback catches everything and reports it). Events go through an `Outbox` (the event log)
and are marked delivered only when the broker's PUBACK arrives, so a crash or a broker outage loses
none. The command subscription lives in a persistent session (a stable client id per table,
``clean_start=False``, `SESSION_EXPIRY_SECONDS`), so a command sent while the service restarts is
delivered when it is back.

The link is never silent: an unreachable broker (refused, unknown host, no answer), a refused
login, a refused subscription or publish (the ACL) is reported on the `Health` part ``mqtt`` and
said in one line the moment it happens and again, at most every `REMINDER_SECONDS`, while it
lasts; paho reconnects with a backoff from `RECONNECT_MIN_SECONDS` to `RECONNECT_MAX_SECONDS`.
"""

from __future__ import annotations

import json
import logging
import socket
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from referee.app.config import Config
from referee.app.health import REMINDER_SECONDS, Health, PartHealth, State
from referee.app.intake import ECHO_CHARS, Command, CommandError, RateLimiter, parse_command
from referee.errors import DominoError

DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883, "ws": 80, "wss": 443}
# How long the broker keeps the service's session (its command subscription and the QoS 1 commands
# sent to it) while the service is away: long enough for a restart or a reboot of the Pi, short
# enough that yesterday's commands are not acted on today.
SESSION_EXPIRY_SECONDS = 600
RECONNECT_MIN_SECONDS = 1        # paho's reconnect backoff: doubles from here ...
RECONNECT_MAX_SECONDS = 30       # ... up to here (the reminder interval: each retry can say it again)
CONNECT_TIMEOUT_SECONDS = 5.0    # a TCP connect with no answer (a blackholed address) gives up after this
HEALTH_PART = "mqtt"
COMMAND_ORIGIN = "mqtt"          # the rate limiter's origin for every command that came over MQTT

logger = logging.getLogger(__name__)

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
                            password=password, keepalive=section["keepalive"])

    @property
    def session_id(self) -> str:
        """The MQTT client id: stable per table, so the broker keeps the command session."""
        return self.client_id or f"domino-referee-{self.table_id}"

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


class Outbox(Protocol):
    """Where events wait for their PUBACK (the event log)."""

    def mark_delivered(self, seq: int) -> None: ...

    def undelivered(self) -> list[tuple[int, str]]: ...


def connect_failure(settings: MqttSettings, error: OSError,
                    timeout: float = CONNECT_TIMEOUT_SECONDS) -> str:
    """One line saying why a connection attempt failed, in the technician's terms."""
    where = settings.address
    if isinstance(error, socket.gaierror):
        return f"cannot find the broker host {settings.host!r} ({error.strerror or error}): check [mqtt] url"
    if isinstance(error, ConnectionRefusedError):
        return f"broker {where} refused the connection: nothing listens there (is mosquitto running?)"
    if isinstance(error, TimeoutError):
        return (f"no answer from broker {where} within {timeout:g} s "
                "(wrong address, or a firewall drops the packets)")
    if isinstance(error, ssl.SSLError):
        return f"TLS with broker {where} failed: {error.reason or error}"
    return f"cannot connect to broker {where}: {error.strerror or error}"


class _Client(paho.Client):
    """paho's client, telling why each (re)connection attempt failed: paho's loop retries with
    backoff but keeps the reason to itself."""

    on_attempt_failed: Callable[[OSError], None] | None = None

    def reconnect(self) -> MQTTErrorCode:
        try:
            return super().reconnect()
        except OSError as error:
            if self.on_attempt_failed is not None:
                self.on_attempt_failed(error)
            raise


class MqttLink:
    """One broker connection: publishes state/events/status and hands checked commands on.

    `on_command` is called from paho's network thread with each well-formed command (its `reply`
    answers a refusal on ``cmd/errors``); it should only enqueue. The link reconnects by itself
    (paho's loop, with backoff), keeps unacknowledged QoS 1 messages queued across reconnects, and
    republishes the latest state and the status on every connect and the status on every change
    of `health`. `say` gets each line about the connection (default: the ``referee.app.mqtt``
    logger, a warning while unhealthy); `now` is the monotonic clock of its reminders.
    """

    def __init__(self, settings: MqttSettings, *, on_command: Callable[[Command], object],
                 outbox: Outbox | None = None, on_connection: Callable[[bool], None] | None = None,
                 health: Health | None = None, limiter: RateLimiter | None = None,
                 say: Callable[[str], None] | None = None,
                 now: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self._on_command = on_command
        self._on_connection = on_connection
        self._outbox = outbox
        self.health = health if health is not None else Health()
        self.limiter = limiter if limiter is not None else RateLimiter()
        self._say = say or _log_line
        self._now = now
        self._lock = threading.Condition()
        self._pending: dict[int, tuple[int | None, str]] = {}   # mid -> (event seq, topic)
        self._answered_early: dict[int, ReasonCode] = {}        # mid -> the broker's PUBACK
        self._refused: dict[str, str] = {}                      # topic -> why the broker refused it
        self._state: str | None = None
        self._said_at: float | None = None
        self._login_refused = False
        self._stopping = False
        self.connected = threading.Event()
        self.subscribed = threading.Event()   # the broker confirmed the command subscription
        # The connect handler has published everything a connection publishes (status, state and
        # the connect hooks': Home Assistant's configs), so `flush` can wait for their answers.
        self._greeted = threading.Event()
        self.client = _Client(CallbackAPIVersion.VERSION2, client_id=settings.session_id,
                              protocol=paho.MQTTv5, transport=settings.transport,  # type: ignore[arg-type]
                              reconnect_on_failure=True)
        self.client.on_attempt_failed = self._attempt_failed
        # A callback's exception must never end the network thread (ours catch everything already).
        self.client.suppress_exceptions = True
        self.client.connect_timeout = CONNECT_TIMEOUT_SECONDS
        self.client.max_queued_messages_set(0)
        self.client.reconnect_delay_set(min_delay=RECONNECT_MIN_SECONDS, max_delay=RECONNECT_MAX_SECONDS)
        if settings.transport == "websockets":
            self.client.ws_set_options(path=settings.path)
        if settings.username:
            self.client.username_pw_set(settings.username, settings.password)
        if settings.tls:
            context = ssl.create_default_context(cafile=settings.ca_file)
            self.client.tls_set_context(context)
        # The will is fixed at connect time, so it carries no (stale) health.
        self.client.will_set(settings.topic("status"),
                             self._status_text("offline", "connection lost", with_health=False),
                             qos=1, retain=True)
        self.client.on_connect = self._connected
        self.client.on_disconnect = self._disconnected
        self.client.on_message = self._message
        self.client.on_publish = self._published
        self.client.on_subscribe = self._subscribed
        self.health.subscribe(self._health_changed)
        self._extra: dict[str, Callable[[str, bytes], None]] = {}   # see add_listener
        self._connect_hooks: list[Callable[[], None]] = []

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        self._report(State.DEGRADED, f"connecting to broker {self.settings.address}{self._as_user()}")
        session = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        session.SessionExpiryInterval = SESSION_EXPIRY_SECONDS
        self.client.connect_async(self.settings.host, self.settings.port, keepalive=self.settings.keepalive,
                                  clean_start=False, properties=session)
        self.client.loop_start()
        if self._outbox is not None:
            for seq, payload in self._outbox.undelivered():
                self.publish_event(seq, payload)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until the broker answered every message published so far: events, state and
        status (or `timeout`). Once true, a new subscriber gets the retained state and status."""
        deadline = time.monotonic() + timeout
        if self.connected.is_set() and not self._greeted.wait(timeout):
            return False
        with self._lock:
            return self._lock.wait_for(lambda: not self._pending, max(0.0, deadline - time.monotonic()))

    def stop(self, timeout: float = 5.0) -> None:
        """Deliver what is still unacknowledged (waiting up to `timeout` for the broker), say
        ``offline`` and disconnect. The broker keeps the command session for
        `SESSION_EXPIRY_SECONDS`, so commands sent until the next start are not lost."""
        with self._lock:
            waiting = any(seq is not None for seq, _ in self._pending.values())
        if waiting:
            self.connected.wait(timeout)
        self._stopping = True
        if self.connected.is_set():
            self.flush(timeout)
            info = self.client.publish(self.settings.topic("status"), self._status_text("offline", "stopped"),
                                       qos=1, retain=True)
            if info.rc == paho.MQTT_ERR_SUCCESS:
                info.wait_for_publish(timeout=2)
        self.client.disconnect()
        self.client.loop_stop()

    # -- publishing --------------------------------------------------------------------------
    def publish_state(self, document: Mapping[str, Any]) -> None:
        """Publish the retained state; while the broker is away only the latest is kept (the
        connect handler sends it), so a long outage queues no stale states in memory."""
        text = json.dumps(document, ensure_ascii=False, sort_keys=True)
        with self._lock:
            self._state = text
        # `_connected` sets `connected` before it reads `_state`: one of the two sends the latest.
        if self.connected.is_set():
            self._publish("state", text, retain=True)

    def publish_event(self, seq: int, payload: str) -> None:
        """Publish an event already stored in the outbox (its payload carries ``seq``)."""
        self._publish("events", payload, seq=seq)

    def publish_error(self, message: str, received: str = "") -> None:
        """Answer one command on ``cmd/errors`` (only ever called for a command)."""
        self._publish("cmd/errors", json.dumps({"error": message, "received": received[:ECHO_CHARS]},
                                               ensure_ascii=False))

    def publish_status(self) -> None:
        """The retained ``status``: online and each part's health (only while connected: on a
        connect the status is published anyway)."""
        if self.connected.is_set():
            self._publish("status", self._status_text("online"), retain=True)

    def _status_text(self, state: str, why: str = "", *, with_health: bool = True) -> str:
        document: dict[str, Any] = {"state": state, "table": self.settings.table_id}
        if with_health:
            document["health"] = self.health.as_dict()
        if why:
            document["why"] = why
        return json.dumps(document, ensure_ascii=False, sort_keys=True)

    def _publish(self, leaf: str, payload: str, *, retain: bool = False, seq: int | None = None) -> None:
        topic = self.settings.topic(leaf)
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        if info.mid == 0:
            return
        with self._lock:
            answer = self._answered_early.pop(info.mid, None)
            if answer is None:
                self._pending[info.mid] = (seq, topic)
        if answer is not None:
            self._acknowledged(seq, topic, answer)

    def _acknowledged(self, seq: int | None, topic: str, reason: ReasonCode) -> None:
        if reason.is_failure:
            # A refused event is not delivered: it stays in the outbox for the next start.
            why = (f"broker {self.settings.address} refused to take {topic}"
                   f"{self._as_user()}: {reason} (check the broker's ACL)")
            with self._lock:
                self._refused[topic] = why
            self._report(State.FAILED, why)
            return
        if seq is not None and self._outbox is not None:
            self._outbox.mark_delivered(seq)
        with self._lock:
            cleared = self._refused.pop(topic, None) is not None and not self._refused
        if cleared and self.connected.is_set():
            self._report(State.OK, self._connected_line())

    # -- health --------------------------------------------------------------------------------
    def _as_user(self) -> str:
        return f" as user {self.settings.username!r}" if self.settings.username else " without a user name"

    def _connected_line(self) -> str:
        return f"connected to broker {self.settings.address}{self._as_user()}"

    def _report(self, state: State, why: str) -> bool:
        """Report the link's health; say it when it is news, and again every `REMINDER_SECONDS`
        while it is not ok (each reconnection attempt comes here). Returns whether it was news."""
        news = self.health.report(HEALTH_PART, state, why)
        now = self._now()
        with self._lock:
            due = news or (state != State.OK and (self._said_at is None
                                                  or now - self._said_at >= REMINDER_SECONDS))
            if due:
                self._said_at = now
        if due:
            part = self.health.get(HEALTH_PART)
            self._say(PartHealth(HEALTH_PART, state, 0.0, why).line() if part is None else part.line())
        return news

    def _health_changed(self, part: PartHealth) -> None:
        try:
            self.publish_status()
        except Exception:  # a listener must not break the part that reported
            logger.exception("mqtt: cannot republish the status after %s", part.line())

    def _attempt_failed(self, error: OSError) -> None:
        try:
            self._report(State.FAILED, connect_failure(self.settings, error, self.client.connect_timeout))
        except Exception:
            logger.exception("mqtt: cannot report a failed connection attempt")

    # -- paho callbacks (network thread: each catches everything, so the thread never dies) ----
    def _connected(self, client: paho.Client, userdata: Any, flags: Any, reason: ReasonCode,
                   properties: Properties | None) -> None:
        try:
            if reason.is_failure:
                self._login_refused = True
                self._report(State.FAILED, f"broker {self.settings.address} refused the login"
                                           f"{self._as_user()}: {reason} (check [mqtt] username and "
                                           "password_file against the broker's password file)")
                return
            self._login_refused = False
            with self._lock:
                self._refused.clear()
            options = SubscribeOptions(qos=1, noLocal=True)
            client.subscribe(self.settings.topic("cmd/+"), options=options)
            self.connected.set()
            if not self._report(State.OK, self._connected_line()):
                self.publish_status()   # (news republishes it through the health listener)
            with self._lock:
                state = self._state
            if state is not None:
                self._publish("state", state, retain=True)
            for topic in list(self._extra):
                client.subscribe(topic, qos=1)
            for hook in list(self._connect_hooks):
                hook()
            self._greeted.set()
            if self._on_connection is not None:
                self._on_connection(True)
        except Exception:
            logger.exception("mqtt: error while handling the broker's CONNACK")

    def _disconnected(self, client: paho.Client, userdata: Any, flags: Any, reason: ReasonCode,
                      properties: Properties | None) -> None:
        try:
            was_connected = self.connected.is_set()
            self.connected.clear()
            self._greeted.clear()
            self.subscribed.clear()
            if self._login_refused or self._stopping:
                pass   # the refusal said it all; a stop is no fault
            elif was_connected:
                self._report(State.FAILED, f"lost the connection to broker {self.settings.address}: {reason}")
            elif reason.is_failure:
                self._report(State.FAILED, f"broker {self.settings.address} took the connection but never "
                                           f"answered the MQTT handshake: {reason}")
            if self._on_connection is not None:
                self._on_connection(False)
        except Exception:
            logger.exception("mqtt: error while handling a disconnect")

    def _subscribed(self, client: paho.Client, userdata: Any, mid: int, reasons: list[ReasonCode],
                    properties: Properties | None) -> None:
        try:
            refused = [reason for reason in reasons if reason.is_failure]
            if not refused:
                self.subscribed.set()
            else:
                self._report(State.FAILED, f"broker {self.settings.address} refused the subscription to "
                                           f"{self.settings.topic('cmd/+')}{self._as_user()}: {refused[0]}"
                                           " (commands cannot arrive; check the broker's ACL)")
        except Exception:
            logger.exception("mqtt: error while handling a SUBACK")

    def _published(self, client: paho.Client, userdata: Any, mid: int, reason: ReasonCode,
                   properties: Properties | None) -> None:
        try:
            with self._lock:
                if mid not in self._pending:
                    self._answered_early[mid] = reason
                    return
                seq, topic = self._pending.pop(mid)
                self._lock.notify_all()
            self._acknowledged(seq, topic, reason)
        except Exception:
            logger.exception("mqtt: error while handling a PUBACK")

    def _message(self, client: paho.Client, userdata: Any, message: paho.MQTTMessage) -> None:
        payload = b""
        handler = self._extra.get(message.topic)
        if handler is not None:
            try:
                handler(message.topic, bytes(message.payload))
            except Exception:  # never let a message end the network thread
                logger.exception("mqtt: error while handling a message on %s", message.topic)
            return
        try:
            payload = bytes(message.payload)
            name = message.topic.rsplit("/", 1)[-1]
            if name == "errors":
                return
            received = payload[:ECHO_CHARS * 4].decode("utf-8", errors="replace")

            def reply(text: str) -> None:
                try:
                    self.publish_error(text, received)
                except Exception:  # the consumer thread calls this: it must not raise
                    logger.exception("mqtt: cannot answer a command on cmd/errors")

            try:
                command = parse_command(name, payload)
            except CommandError as error:
                reply(str(error))
                return
            if not self.limiter.allow(COMMAND_ORIGIN):
                reply(str(self.limiter.refusal(COMMAND_ORIGIN, name)))
                return
            self._on_command(replace(command, origin=COMMAND_ORIGIN, reply=reply))
        except Exception as error:  # never let a message end the network thread
            logger.exception("mqtt: error while handling a command")
            try:
                self.publish_error(f"internal error while handling this command: {type(error).__name__}",
                                   payload[:ECHO_CHARS].decode("utf-8", errors="replace"))
            except Exception:
                logger.exception("mqtt: cannot answer a command on cmd/errors")

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
            answer = self._answered_early.pop(info.mid, None)
            if answer is None:
                self._pending[info.mid] = (None, topic)
        if answer is not None:
            self._acknowledged(None, topic, answer)


def _log_line(line: str) -> None:
    """A line about the connection: a warning while it is unhealthy (Python's last-resort handler
    prints warnings even when nothing configured logging), else information."""
    if line.startswith(f"{HEALTH_PART} {State.OK}"):
        logger.info(line)
    else:
        logger.warning(line)
