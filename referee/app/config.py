"""The table configuration: one TOML file per table, validated on load.

Every key is declared below with its type, default and allowed values, so a mistake stops the
program with one line naming the file, the key, what was found and what is allowed. Single keys
can be overridden from the environment: ``DOMINO_REFEREE__MQTT__URL=mqtt://broker:1883`` sets
``[mqtt] url``; the value is read as a TOML value when it parses as one, else as a string.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.app.intake import QUOTE_CHARS, name_problem
from referee.fields import Field, SettingError, validate_section
from referee.rules import RULE_SET_NAMES, find_rules, validate_options
from referee.table.clocks import CLOCK_FIELDS

ENV_PREFIX = "DOMINO_REFEREE__"
# A table's configuration is a few kilobytes; anything this large is the wrong file.
MAX_CONFIG_BYTES = 256 * 1024

def _table_id_check(value: str) -> str | None:
    if not value or any(c in value for c in "/#+ ") or len(value) > 64:
        return "a table id is 1-64 characters without '/', '#', '+' or spaces (it is an MQTT topic level)"
    return None


def _unique_names(value: list[str]) -> str | None:
    if len(set(value)) != len(value):
        return "player names must be distinct"
    if any(not name.strip() for name in value):
        return "player names must not be empty"
    for name in value:
        problem = name_problem(name)
        if problem is not None:   # the same check as a command's names, so a command can name them
            return f"player {name[:QUOTE_CHARS]!r}: {problem}"
    return None


SECTIONS: dict[str, tuple[Field, ...]] = {
    "table": (
        Field("id", str, "table-1", "table id, the MQTT topic level domino/<id>/", check=_table_id_check),
        Field("rules", str, "turkish", "rule set", choices=RULE_SET_NAMES),
        Field("players", list, ["North", "East", "South", "West"], "players in seating order (clockwise)",
              item=str, minimum=2, maximum=4, check=_unique_names),
        Field("teams", list, [], "partnerships: two lists of two players sitting opposite, or empty",
              item=list),
        Field("options", dict, {}, "rule-set options (see the README's rule sets)"),
    ),
    "clock": CLOCK_FIELDS,
    "camera": (
        Field("source", str, "synthetic",
              "camera: a device index ('0'), a video file, an image folder, an rtsp:// URL, or 'synthetic'"),
        Field("width", int, 1920, "frame width in pixels", minimum=160, maximum=7680),
        Field("height", int, 1080, "frame height in pixels", minimum=120, maximum=4320),
        Field("fps", float, 30.0, "frames per second requested from the camera", minimum=1, maximum=240),
        Field("calibration", str, "aruco", "how the table plane is found", choices=("aruco", "fixed")),
        Field("calibration_file", str, "", "saved calibration for 'fixed' (empty: the data directory's)",
              nullable=True),
    ),
    "scoreboard": (
        Field("enabled", bool, True, "drive a serial scoreboard"),
        Field("port", str, "emulator://", "pyserial URL (/dev/ttyACM0, socket://host:port) or emulator://"),
        Field("baud", int, 115200, "serial speed", choices=(9600, 19200, 38400, 57600, 115200, 230400)),
    ),
    "gpio": (
        Field("enabled", bool, False, "use buttons, buzzer and LEDs on the Pi's own GPIO"),
        Field("pin_factory", str, "default", "gpiozero pin factory",
              choices=("default", "mock", "lgpio", "rpigpio", "pigpio", "native")),
        Field("start_pin", int, 17, "Start button (BCM number)", minimum=0, maximum=27),
        Field("pass_pin", int, 27, "Pass button (BCM number)", minimum=0, maximum=27),
        Field("continue_pin", int, 22, "Continue button (BCM number)", minimum=0, maximum=27),
        Field("buzzer_pin", int, 18, "buzzer (BCM number)", minimum=0, maximum=27),
        Field("ok_led_pin", int, 23, "green LED (BCM number)", minimum=0, maximum=27),
        Field("error_led_pin", int, 24, "red LED (BCM number)", minimum=0, maximum=27),
        Field("player_pins", list, [], "optional 'my move is done' buttons, one per seat", item=int,
              maximum=4),
        Field("bounce_ms", int, 30, "button debounce time", minimum=0, maximum=1000),
    ),
    "mqtt": (
        Field("enabled", bool, False, "publish state and events to an MQTT broker"),
        Field("url", str, "mqtt://localhost:1883", "broker: mqtt://host:port or mqtts://host:port"),
        Field("username", str, "", "broker user name", nullable=True),
        Field("password", str, "", "broker password (prefer password_file)", nullable=True),
        Field("password_file", str, "", "file holding the broker password", nullable=True),
        Field("topic_prefix", str, "domino", "topics live under <prefix>/<table id>/"),
        Field("tls", bool, False, "use TLS (also implied by mqtts://)"),
        Field("ca_file", str, "", "CA certificate for TLS", nullable=True),
        Field("keepalive", int, 30, "keepalive seconds", minimum=5, maximum=3600),
    ),
    "web": (
        Field("enabled", bool, True, "serve the overlay, the manager's page, the club page and the API"),
        Field("host", str, "0.0.0.0", "address to listen on (127.0.0.1: this machine only)"),
        Field("port", int, 8080, "HTTP port (0: any free port)", minimum=0, maximum=65535),
        Field("pin", str, "", "PIN for the manager's page and the API's commands (empty: token only)",
              nullable=True),
        Field("token", str, "", "token for the API's commands (Authorization: Bearer …); empty with an "
              "empty pin: commands from the web are refused", nullable=True),
    ),
    "homeassistant": (
        Field("discovery", bool, True, "announce the table to Home Assistant (MQTT discovery; needs [mqtt])"),
        Field("prefix", str, "homeassistant", "Home Assistant's discovery prefix"),
    ),
    "storage": (
        Field("data_dir", str, "/var/lib/domino-referee", "event log, records, ledger and calibration"),
    ),
}


@dataclass(frozen=True)
class Config:
    """A validated table configuration; `sections` maps section → key → value."""

    sections: Mapping[str, Mapping[str, Any]]
    source: str = "<defaults>"
    rule_options: Mapping[str, Any] = field(default_factory=dict)

    def __getitem__(self, section: str) -> Mapping[str, Any]:
        return self.sections[section]

    def as_dict(self, *, reveal_secrets: bool = False) -> dict[str, Any]:
        result = {name: dict(values) for name, values in self.sections.items()}
        result["table"]["options"] = dict(self.rule_options)
        if not reveal_secrets and result["mqtt"].get("password"):
            result["mqtt"]["password"] = "********"
        for key in ("pin", "token"):
            if not reveal_secrets and result.get("web", {}).get(key):
                result["web"][key] = "********"
        return result


def _env_overrides(environ: Mapping[str, str]) -> dict[str, dict[str, object]]:
    overrides: dict[str, dict[str, object]] = {}
    for name, raw in environ.items():
        if not name.startswith(ENV_PREFIX):
            continue
        parts = name[len(ENV_PREFIX):].lower().split("__")
        if len(parts) != 2 or not all(parts):
            raise SettingError(name, "environment overrides are DOMINO_REFEREE__<SECTION>__<KEY>")
        section, key = parts
        try:
            value: object = tomllib.loads(f"v = {raw}")["v"]
        except (tomllib.TOMLDecodeError, RecursionError):   # not a TOML value: the plain string
            value = raw
        overrides.setdefault(section, {})[key] = value
    return overrides


def _check_teams(players: list[str], teams: list[Any]) -> None:
    if not teams:
        return
    if len(players) != 4 or len(teams) != 2 or any(not isinstance(t, list) or len(t) != 2 for t in teams):
        raise SettingError("table.teams", f"found {teams!r}, allowed two teams of two with 4 players")
    members = [name for team in teams for name in team]
    if sorted(members) != sorted(players):
        raise SettingError("table.teams", f"found {teams!r}: teams must hold each of {players} once")
    for team in teams:
        seats = sorted(players.index(name) for name in team)
        if seats[1] - seats[0] != 2:
            raise SettingError("table.teams", f"found {team!r}: partners sit opposite (seats 0+2, 1+3)")


def parse_config(data: Mapping[str, Any], *, source: str = "<config>",
                 environ: Mapping[str, str] | None = None) -> Config:
    """Validate an already parsed TOML document (plus environment overrides)."""
    try:
        merged: dict[str, dict[str, Any]] = {}
        for name, values in data.items():
            if name not in SECTIONS:
                raise SettingError(name, f"unknown section (known sections: {', '.join(SECTIONS)})")
            if not isinstance(values, dict):
                raise SettingError(name, f"found {values!r}, allowed a [{name}] table")
            merged[name] = dict(values)
        for name, values in _env_overrides(environ if environ is not None else os.environ).items():
            if name not in SECTIONS:
                raise SettingError(f"{ENV_PREFIX}{name.upper()}", "unknown section in environment override")
            merged.setdefault(name, {}).update(values)
        sections = {
            name: validate_section(fields, merged.get(name, {}), f"{name}.")
            for name, fields in SECTIONS.items()
        }
        table = sections["table"]
        rule_set = find_rules(table["rules"])
        if not rule_set.min_players <= len(table["players"]) <= rule_set.max_players:
            exactly = "exactly " if rule_set.min_players == rule_set.max_players else ""
            allowed = f"{exactly}{rule_set.players_allowed()}"
            raise SettingError("table.players", f"found {len(table['players'])} players, "
                                                f"allowed {allowed} for {rule_set.name}")
        _check_teams(table["players"], table["teams"])
        rule_options = validate_options(table["rules"], table["options"], "table.options.")
        for key in ("username", "password", "password_file", "ca_file"):
            sections["mqtt"][key] = sections["mqtt"][key] or None
        for key in ("pin", "token"):
            sections["web"][key] = sections["web"][key] or None
        url = sections["mqtt"]["url"]
        if not url.startswith(("mqtt://", "mqtts://", "ws://", "wss://")):
            raise SettingError("mqtt.url", f"found {url!r}, allowed mqtt://, mqtts://, ws:// or wss:// URL")
    except SettingError as error:
        raise error.with_source(source) from None
    return Config(sections=sections, source=source, rule_options=rule_options)


def load_config(path: str | os.PathLike[str], *, environ: Mapping[str, str] | None = None) -> Config:
    """Read and validate a table configuration file."""
    source = str(path)
    try:
        with open(path, "rb") as file:
            raw = file.read(MAX_CONFIG_BYTES + 1)
    except OSError as error:
        raise SettingError("file", f"cannot read: {error.strerror}", source=source) from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise SettingError("file", f"larger than {MAX_CONFIG_BYTES // 1024} KiB: not a table configuration",
                           source=source)
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise SettingError("file", f"not UTF-8 text (byte {error.start})", source=source) from None
    except tomllib.TOMLDecodeError as error:
        raise SettingError("file", f"not valid TOML: {error}", source=source) from None
    except RecursionError:
        raise SettingError("file", "not valid TOML: nested too deeply", source=source) from None
    return parse_config(data, source=source, environ=environ)
