"""Commands are not lost across restarts (issue 17): the service's command subscription lives in a
persistent MQTT session (a stable client id per table, clean_start=False, a session expiry), so a
manager's command sent while the service is down is delivered when it is back."""

from __future__ import annotations

import queue
from pathlib import Path

from referee.app.assembly import build_table
from referee.app.config import parse_config
from referee.app.intake import Command
from referee.app.mqtt import SESSION_EXPIRY_SECONDS, MqttLink

from .mqtt_table import USERS, Broker, Watcher, broker, settings_for

__all__ = ["broker"]


def started(commands: queue.Queue[Command], broker: Broker) -> MqttLink:
    link = MqttLink(settings_for(broker), on_command=commands.put, say=lambda line: None)
    link.start()
    assert link.subscribed.wait(10)
    return link


def test_a_command_sent_while_the_service_restarts_is_delivered(broker: Broker) -> None:
    assert SESSION_EXPIRY_SECONDS >= 60     # a restart, even a reboot, fits in the session
    commands: queue.Queue[Command] = queue.Queue()
    started(commands, broker).stop()        # the service goes down
    manager = Watcher(broker, "manager")
    assert not manager.publish("domino/t1/cmd/pass", "").is_failure   # the broker takes it ...
    assert not manager.publish("domino/t1/cmd/away", '{"player": "Cem"}').is_failure
    link = started(commands, broker)        # ... and the restarted service gets it, in order
    assert commands.get(timeout=10) == Command("pass", {})
    assert commands.get(timeout=10) == Command("away", {"player": "Cem"})
    link.stop()
    manager.close()


def test_the_session_survives_a_broker_restart_too(broker: Broker) -> None:
    commands: queue.Queue[Command] = queue.Queue()
    started(commands, broker).stop()
    manager = Watcher(broker, "manager")
    assert not manager.publish("domino/t1/cmd/undo", "").is_failure
    manager.close()
    broker.stop()                           # mosquitto saves its sessions (persistence true)
    broker.start()
    link = started(commands, broker)
    assert commands.get(timeout=10) == Command("undo", {})
    link.stop()


def test_a_whole_table_restarted_acts_on_the_command(broker: Broker, tmp_path: Path) -> None:
    config = parse_config({
        "table": {"id": "t1", "players": ["Ayşe", "Burak"], "options": {"hand_size": 5, "hands": 1}},
        "clock": {"mode": "none"},
        "mqtt": {"enabled": True, "url": broker.url, "username": "referee", "password": USERS["referee"]},
        "storage": {"data_dir": str(tmp_path / "data")}}, environ={})
    first = build_table(config)
    first.start(tick_interval=None)
    assert first.link is not None and first.link.subscribed.wait(10)
    first.stop()
    manager = Watcher(broker, "manager")
    assert not manager.publish("domino/t1/cmd/start", "").is_failure
    again = build_table(config)
    again.start(tick_interval=None)
    assert again.link is not None and again.link.subscribed.wait(10)
    assert again.service.wait_processed(1, timeout=10)
    assert again.service.core is not None and again.service.core.phase == "playing"
    assert [entry.kind for entry in again.service.log.inputs(again.service.match_id)] == ["start"]
    again.stop()
    manager.close()
