"""Fixtures for the service tests: a real mosquitto broker with a password file and an ACL."""

from __future__ import annotations

import contextlib
import getpass
import json
import queue
import socket
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion

USERS = {"referee": "ref-secret", "manager": "mgr-secret", "viewer": "view-secret",
         "homeassistant": "ha-secret"}
# The shipped ACL is the one under test.
ACL_FILE = Path(__file__).resolve().parents[3] / "config" / "mosquitto" / "domino.acl"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Broker:
    """A mosquitto process on loopback ports (MQTT and websockets) that tests may stop and restart."""

    directory: Path
    port: int = field(default_factory=free_port)
    ws_port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    def write_config(self) -> Path:
        passwords = self.directory / "passwd"
        passwords.write_text("")
        for user, password in USERS.items():
            subprocess.run(["mosquitto_passwd", "-b", str(passwords), user, password], check=True)
        acl = self.directory / "acl"
        acl.write_text(ACL_FILE.read_text())
        conf = self.directory / "mosquitto.conf"
        conf.write_text(
            f"user {getpass.getuser()}\n"
            "persistence true\n"
            f"persistence_location {self.directory}/\n"
            f"password_file {passwords}\nacl_file {acl}\nallow_anonymous false\n"
            f"listener {self.port} 127.0.0.1\n"
            f"listener {self.ws_port} 127.0.0.1\nprotocol websockets\n")
        return conf

    def start(self) -> None:
        conf = self.directory / "mosquitto.conf"
        if not conf.exists():
            self.write_config()
        log = open(self.directory / "mosquitto.log", "ab")  # noqa: SIM115 - the process owns it
        self.process = subprocess.Popen(["mosquitto", "-c", str(conf)], stdout=log, stderr=log)
        for _ in range(200):
            try:
                for port in (self.port, self.ws_port):
                    with socket.create_connection(("127.0.0.1", port), timeout=0.05):
                        pass
                return
            except OSError:
                if self.process.poll() is not None:
                    raise RuntimeError((self.directory / "mosquitto.log").read_text()) from None
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(timeout=0.025)
        raise RuntimeError("mosquitto did not open its port")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    directory = tmp_path / "broker"
    directory.mkdir()
    instance = Broker(directory)
    instance.start()
    yield instance
    instance.stop()


class Watcher:
    """A test MQTT client that collects messages into a queue."""

    def __init__(self, broker: Broker, user: str = "viewer", password: str | None = None, *,
                 client_id: str = "", clean: bool = True, transport: str = "tcp") -> None:
        self.messages: queue.Queue[tuple[str, bytes, bool]] = queue.Queue()
        self.connack: queue.Queue[Any] = queue.Queue()
        self.acks: queue.Queue[tuple[int, Any]] = queue.Queue()
        self.client = paho.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=paho.MQTTv5,
                                  transport=transport)  # type: ignore[arg-type]
        self.client.username_pw_set(user, USERS.get(user, "") if password is None else password)
        self.client.on_connect = lambda c, u, f, reason, p: self.connack.put(reason)
        self.client.on_message = lambda c, u, m: self.messages.put(
            (m.topic, bytes(m.payload), bool(m.retain)))
        self.client.on_publish = lambda c, u, mid, reason, p: self.acks.put((mid, reason))
        self.subscribed = threading.Event()
        self.client.on_subscribe = lambda *args: self.subscribed.set()
        properties = None
        if not clean:
            from paho.mqtt.packettypes import PacketTypes
            from paho.mqtt.properties import Properties
            properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
            properties.SessionExpiryInterval = 3600
        port = broker.ws_port if transport == "websockets" else broker.port
        self.client.connect("127.0.0.1", port, clean_start=clean, properties=properties)
        self.client.loop_start()
        self.reason = self.connack.get(timeout=10)

    def subscribe(self, topic: str) -> None:
        self.subscribed.clear()
        self.client.subscribe(topic, qos=1)
        assert self.subscribed.wait(10)

    def next(self, topic_suffix: str = "", timeout: float = 10) -> tuple[str, bytes, bool]:
        while True:
            topic, payload, retained = self.messages.get(timeout=timeout)
            if topic.endswith(topic_suffix):
                return topic, payload, retained

    def next_json(self, topic_suffix: str, timeout: float = 10) -> Any:
        return json.loads(self.next(topic_suffix, timeout)[1])

    def publish(self, topic: str, payload: str) -> Any:
        info = self.client.publish(topic, payload, qos=1)
        mid, reason = self.acks.get(timeout=10)
        assert mid == info.mid
        return reason

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


SMALL_DEMO = ('[table]\nid = "demo"\nrules = "turkish"\nplayers = ["Ayşe", "Burak"]\n'
              '[table.options]\nhand_size = 5\n[camera]\nwidth = 1280\nheight = 720\n')


@dataclass
class SmallDemo:
    config_file: Path
    out: Path
    video: Path
    result: Any


@pytest.fixture(scope="session")
def small_demo(tmp_path_factory: pytest.TempPathFactory) -> SmallDemo:
    """One short demo match through vision (2 players, 5 tiles, one hand, 1280×720), run once."""
    import argparse

    from referee.app.demo import demo_config, run_demo

    directory = tmp_path_factory.mktemp("small-demo")
    config_file = directory / "small.toml"
    config_file.write_text(SMALL_DEMO)
    args = argparse.Namespace(config=str(config_file), rules=None, players=None, hands=1, target=None,
                              out=str(directory / "out"))
    video = directory / "seen.mp4"
    result = run_demo(demo_config(args), seed=4, out=directory / "out", vision=True, video=str(video))
    return SmallDemo(config_file, directory / "out", video, result)
