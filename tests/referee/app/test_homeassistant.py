"""Home Assistant MQTT discovery against a real mosquitto (the shipped ACL): the config topics, and
the state and availability topics they name, exist and carry what they say."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jinja2

from referee.app.assembly import build_table
from referee.app.config import parse_config
from referee.app.homeassistant import BUTTONS, discovery_configs, node_id
from referee.app.mqtt import MqttSettings
from referee.app.ports import Input

from .conftest import USERS, Broker, Watcher

PLAYERS = ["Ayşe", "Burak \"B\" Öz"]


def render(template: str, state: dict[str, Any]) -> str:
    """A value template as Home Assistant renders it (Jinja2, the payload parsed as `value_json`)."""
    return jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(template).render(value_json=state)


def test_node_ids_and_configs_are_what_home_assistant_accepts() -> None:
    assert node_id("table-1") == "domino_table-1"
    assert node_id("salon.3é") == "domino_salon_3_"
    configs = discovery_configs(MqttSettings("h", 1883, "t.1"), PLAYERS)
    topic = re.compile(r"^homeassistant/(sensor|button)/[A-Za-z0-9_-]+/[A-Za-z0-9_-]+/config$")
    assert all(topic.match(name) for name in configs)
    assert len({c["unique_id"] for c in configs.values()}) == len(configs)
    buttons = [c for name, c in configs.items() if "/button/" in name]
    assert sorted(c["command_topic"].rsplit("/", 1)[-1] for c in buttons) == sorted(BUTTONS)
    # A name with quotes is a valid template still.
    score = configs["homeassistant/sensor/domino_t_1/score_1/config"]
    assert render(score["value_template"], {"scores": {PLAYERS[1]: 12.0}}) == "12.0"


def test_discovery_on_a_real_broker(broker: Broker, tmp_path: Path) -> None:
    config = parse_config({
        "table": {"id": "ha-1", "rules": "muggins", "players": PLAYERS},
        "mqtt": {"enabled": True, "url": broker.url, "username": "referee", "password": USERS["referee"]},
        "web": {"enabled": False}}, environ={})
    table = build_table(config, data_dir=tmp_path)
    expected = discovery_configs(MqttSettings.from_config(config), PLAYERS)
    home = Watcher(broker, "homeassistant")
    try:
        table.start(tick_interval=None)
        assert table.link is not None and table.link.connected.wait(10) and table.link.flush(10)
        home.subscribe("homeassistant/#")
        configs: dict[str, Any] = {}
        while set(configs) != set(expected):
            name, payload, retained = home.next("/config")
            assert retained
            configs[name] = json.loads(payload)
        assert configs == expected

        # Every state and availability topic a config names holds a retained message of that shape.
        named = {c.get("state_topic") for c in configs.values()} | {c["availability_topic"]
                                                                    for c in configs.values()}
        named.discard(None)
        viewer = Watcher(broker, "viewer")
        for topic in sorted(named):
            viewer.subscribe(topic)
        retained = {}
        while set(retained) != named:
            name, payload, was_retained = viewer.next()
            assert was_retained
            retained[name] = payload
        phase = configs["homeassistant/sensor/domino_ha-1/phase/config"]
        status = json.loads(retained["domino/ha-1/status"])
        assert render(phase["availability_template"], status) == phase["payload_available"]
        state = json.loads(retained["domino/ha-1/state"])
        assert render(configs["homeassistant/sensor/domino_ha-1/phase/config"]["value_template"], state) \
            == "waiting"

        # A button publishes its payload to its command topic; the table acts on it.
        start = configs["homeassistant/button/domino_ha-1/start/config"]
        assert home.publish(start["command_topic"], start["payload_press"]).value == 0
        while state.get("phase") != "playing":
            state = viewer.next_json("/state")
        table.service.feed(Input("lead", {"player": PLAYERS[0]}))
        table.service.feed(Input("placed", {"tile": "5-5"}))
        while state.get("turn") != PLAYERS[1]:
            state = viewer.next_json("/state")
        values = {name.split("/")[3]: render(c["value_template"], state)
                  for name, c in configs.items() if "value_template" in c}
        assert values == {"phase": "playing", "turn": PLAYERS[1], "hand": "1",
                          "clock": values["clock"], "score_0": "10.0", "score_1": "0.0"}
        float(values["clock"])   # a number of seconds (0 without a move clock)

        # Home Assistant restarts: it says online, and every config comes again.
        assert home.publish("homeassistant/status", "online").value == 0
        again = set()
        while again != set(expected):
            name, _, _ = home.next("/config")
            again.add(name)
        viewer.close()
    finally:
        table.stop()
        home.close()
    # After a clean stop the availability topic says offline.
    check = Watcher(broker, "viewer")
    check.subscribe("domino/ha-1/status")
    offline = json.loads(check.next("/status")[1])
    assert render(expected["homeassistant/sensor/domino_ha-1/phase/config"]["availability_template"],
                  offline) == "offline"
    check.close()
