"""The MQTT link against a real mosquitto with a password file and an ACL."""

from __future__ import annotations

import contextlib
import json
import queue
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.app.config import parse_config
from referee.app.eventlog import EventLog
from referee.app.intake import Command, CommandError, parse_command
from referee.app.mqtt import MqttLink, MqttSettingError, MqttSettings

from .conftest import USERS, Broker, Watcher


def settings_for(broker: Broker, user: str = "referee", table: str = "t1") -> MqttSettings:
    return MqttSettings.from_url(broker.url, table, username=user, password=USERS[user])


def test_parse_command_accepts_known_commands() -> None:
    assert parse_command("start", b"") == Command("start", {})
    assert parse_command("away", b'{"player": "Cem"}') == Command("away", {"player": "Cem"})
    assert str(parse_command("substitute", b'{"player": "Cem", "substitute": "Efe"}')) == \
        "substitute player=Cem substitute=Efe"


@pytest.mark.parametrize(("name", "payload", "fragment"), [
    ("reboot", b"", "unknown command 'reboot'"),
    ("away", b"{not json", "is not JSON"),
    ("away", b"[1, 2]", "must be a JSON object"),
    ("away", b"{}", "lacks field(s) player"),
    ("start", b'{"force": true}', "unknown field(s) force"),
    ("away", b'{"player": 7}', "expected a player name"),
])
def test_parse_command_refuses_malformed_payloads(name: str, payload: bytes, fragment: str) -> None:
    with pytest.raises(CommandError, match=None) as error:
        parse_command(name, payload)
    assert fragment in str(error.value)
    assert isinstance(error.value, ValueError)


@given(st.sampled_from(["start", "pass", "away", "substitute", "x"]), st.binary(max_size=60))
def test_parse_command_never_fails_otherwise(name: str, payload: bytes) -> None:
    with contextlib.suppress(CommandError):
        parse_command(name, payload)


def test_settings_from_config_reads_password_file(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("s3cret\n")
    config = parse_config({"table": {"id": "club-3"}, "mqtt": {
        "url": "mqtts://broker.example:8884", "username": "referee", "password_file": str(secret)}},
        environ={})
    settings = MqttSettings.from_config(config)
    assert (settings.host, settings.port, settings.tls, settings.password) == \
        ("broker.example", 8884, True, "s3cret")
    assert settings.topic("state") == "domino/club-3/state"
    missing = parse_config({"mqtt": {"password_file": str(tmp_path / "nope")}}, environ={})
    with pytest.raises(MqttSettingError, match="nope"):
        MqttSettings.from_config(missing)


def test_state_status_and_commands(broker: Broker) -> None:
    commands: queue.Queue[Command] = queue.Queue()
    link = MqttLink(settings_for(broker), on_command=commands.put)
    link.publish_state({"turn": "Ayşe", "scores": {"Ayşe": 0}})
    link.start()
    assert link.connected.wait(10)
    # Subscribing before the broker has stored the state would deliver it live, not retained.
    assert link.flush(10)
    viewer = Watcher(broker, "viewer")
    viewer.subscribe("domino/t1/#")
    seen = {}
    while set(seen) != {"domino/t1/state", "domino/t1/status"}:
        topic, payload, retained = viewer.next()
        assert retained
        seen[topic] = payload
    assert json.loads(seen["domino/t1/state"])["turn"] == "Ayşe"
    assert json.loads(seen["domino/t1/status"])["state"] == "online"

    manager = Watcher(broker, "manager")
    assert not manager.publish("domino/t1/cmd/pass", "").is_failure
    assert commands.get(timeout=10) == Command("pass", {})

    # An authenticated user without the right to command is refused by the broker (MQTT v5 PUBACK).
    reason = viewer.publish("domino/t1/cmd/undo", "")
    assert reason.is_failure and "authoriz" in str(reason).lower()
    # A wrong password is refused at CONNECT.
    intruder = Watcher(broker, "manager", password="guess")
    assert intruder.reason.is_failure
    intruder.close()

    # A malformed command is answered on cmd/errors and never reaches the referee.
    assert not manager.publish("domino/t1/cmd/away", '{"player": 3}').is_failure
    error = viewer.next_json("cmd/errors")
    assert "expected a player name" in error["error"] and error["received"] == '{"player": 3}'
    assert not manager.publish("domino/t1/cmd/start", "").is_failure
    assert commands.get(timeout=10) == Command("start", {})  # the undo and the bad away never came

    link.stop()
    topic, payload, retained = viewer.next("status")
    assert json.loads(payload)["state"] == "offline"
    manager.close()
    viewer.close()


def test_events_survive_a_broker_restart(broker: Broker, tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.sqlite")
    link = MqttLink(settings_for(broker), on_command=lambda command: None, outbox=log)
    link.start()
    assert link.connected.wait(10)
    # A persistent session, so the broker keeps QoS 1 events for the watcher while it is away.
    watcher = Watcher(broker, "viewer", client_id="overlay", clean=False)
    watcher.subscribe("domino/t1/events")

    def publish(n: int) -> None:
        seq, payload, _ = log.add_event(n, 0, {"event": "play", "n": n})
        link.publish_event(seq, payload)

    publish(1)
    assert watcher.next_json("events")["n"] == 1
    watcher.close()
    broker.stop()
    for n in range(2, 6):
        publish(n)
    assert [seq for seq, _ in log.undelivered()] == [2, 3, 4, 5]
    broker.start()
    watcher = Watcher(broker, "viewer", client_id="overlay", clean=False)
    got = [watcher.next_json("events")["n"] for _ in range(4)]
    assert got == [2, 3, 4, 5]
    link.stop()
    assert log.undelivered() == []
    watcher.close()


def test_undelivered_events_of_a_previous_run_are_sent_on_start(broker: Broker, tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.sqlite")
    for n in range(3):
        log.add_event(n, 0, {"event": "draw", "n": n})
    log.mark_delivered(1)
    watcher = Watcher(broker, "viewer")
    watcher.subscribe("domino/t1/events")
    link = MqttLink(settings_for(broker), on_command=lambda command: None, outbox=log)
    link.start()
    assert [watcher.next_json("events")["seq"] for _ in range(2)] == [2, 3]
    link.stop()
    assert log.undelivered() == []
    watcher.close()


def test_websockets_listener_serves_browser_overlays(broker: Broker) -> None:
    link = MqttLink(settings_for(broker), on_command=lambda command: None)
    link.publish_state({"turn": "Cem"})
    link.start()
    overlay = Watcher(broker, "viewer", transport="websockets")
    assert not overlay.reason.is_failure
    overlay.subscribe("domino/t1/state")
    assert overlay.next_json("state")["turn"] == "Cem"
    overlay.close()
    # The service itself can also reach the broker over websockets (ws:// URL).
    ws = MqttSettings.from_url(f"ws://127.0.0.1:{broker.ws_port}/", "t2", username="referee",
                               password=USERS["referee"])
    link2 = MqttLink(ws, on_command=lambda command: None)
    link2.start()
    assert link2.connected.wait(10)
    link2.stop()
    link.stop()
