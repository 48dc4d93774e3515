"""Home Assistant MQTT discovery: the table appears in Home Assistant as one device by itself.

Over the table's own `MqttLink`, retained config messages at
``<discovery prefix>/<component>/<node>/<object>/config`` describe one device per table: sensors
for each seat's score, the turn, the move clock, the phase and the hand, all read from the retained
``<prefix>/<table>/state`` with a value template; availability from ``<prefix>/<table>/status``;
buttons for the commands that need no argument, publishing ``{}`` to ``<prefix>/<table>/cmd/<name>``
(the same `parse_command` check as every other command). When Home Assistant announces ``online``
on ``<discovery prefix>/status`` (it has restarted), the configs are published again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from referee.app.mqtt import MqttLink, MqttSettings

DISCOVERY_PREFIX = "homeassistant"
# The commands Home Assistant gets a button for: none takes an argument or can lose a match.
BUTTONS = ("start", "pass", "continue", "undo", "sync")
SOFTWARE = "domino-referee"


def node_id(table_id: str) -> str:
    """The table id as a discovery node id (letters, digits, ``_`` and ``-`` only)."""
    return "domino_" + re.sub(r"[^A-Za-z0-9_-]", "_", table_id)


def discovery_configs(settings: MqttSettings, players: Sequence[str], *,
                      prefix: str = DISCOVERY_PREFIX) -> dict[str, dict[str, Any]]:
    """Every config topic and its payload for one table (pure: the tests read it too)."""
    node = node_id(settings.table_id)
    state, status = settings.topic("state"), settings.topic("status")
    device = {"identifiers": [node], "name": f"Domino table {settings.table_id}",
              "manufacturer": SOFTWARE, "model": "table referee"}
    # The retained status is a JSON document ({"state": "online", "health": …}); the template
    # picks its state, which the payloads then name.
    common = {"availability_topic": status, "availability_template": "{{ value_json.state }}",
              "payload_available": "online", "payload_not_available": "offline", "device": device}
    sensors: dict[str, dict[str, Any]] = {
        "phase": {"name": "Phase", "value_template": "{{ value_json.phase }}", "icon": "mdi:state-machine"},
        "turn": {"name": "Turn", "value_template": "{{ value_json.turn if value_json.turn else 'none' }}",
                 "icon": "mdi:account-arrow-right"},
        "hand": {"name": "Hand", "value_template": "{{ value_json.hand | default(0) }}",
                 "state_class": "measurement", "icon": "mdi:cards"},
        "clock": {"name": "Move clock",
                  "value_template": "{{ value_json.clock.remaining if value_json.clock and "
                                    "value_json.clock.remaining is not none else 0 }}",
                  "unit_of_measurement": "s", "device_class": "duration", "state_class": "measurement"},
    }
    for seat, player in enumerate(players):
        sensors[f"score_{seat}"] = {
            "name": f"Score {player}",
            "value_template": f"{{{{ value_json.scores[{json.dumps(player, ensure_ascii=False)}] "
                              "| default(0) if value_json.scores else 0 }}",
            "state_class": "measurement", "icon": "mdi:counter"}
    configs: dict[str, dict[str, Any]] = {}
    for name, extra in sensors.items():
        configs[f"{prefix}/sensor/{node}/{name}/config"] = {
            "unique_id": f"{node}_{name}", "object_id": f"{node}_{name}", "state_topic": state,
            **extra, **common}
    for command in BUTTONS:
        configs[f"{prefix}/button/{node}/{command}/config"] = {
            "unique_id": f"{node}_{command}", "object_id": f"{node}_{command}",
            "name": command.capitalize(), "command_topic": settings.topic(f"cmd/{command}"),
            "payload_press": "{}", **common}
    return configs


class HomeAssistantDiscovery:
    """Publishes the configs on every connect and when Home Assistant says ``online``."""

    def __init__(self, link: MqttLink, players: Sequence[str], *, prefix: str = DISCOVERY_PREFIX) -> None:
        self.link = link
        self.prefix = prefix
        self.configs = discovery_configs(link.settings, players, prefix=prefix)
        self.published = 0

    def attach(self) -> None:
        self.link.on_connect(self.publish)
        self.link.add_listener(f"{self.prefix}/status", self._status)

    def publish(self) -> None:
        for topic, payload in self.configs.items():
            self.link.publish_retained(topic, json.dumps(payload, ensure_ascii=False, sort_keys=True))
        self.published += 1

    def _status(self, topic: str, payload: bytes) -> None:
        if payload.strip() == b"online":
            self.publish()
