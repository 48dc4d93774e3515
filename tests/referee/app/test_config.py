"""The table configuration loader: every shipped file passes, every kind of mistake is named."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from referee.app.cli import main
from referee.app.config import load_config, parse_config
from referee.fields import SettingError

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = sorted((ROOT / "config").rglob("*.toml"))


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_config_is_valid(path: Path) -> None:
    config = load_config(path, environ={})
    assert config["table"]["rules"] in ("turkish", "italian", "muggins", "all-fives")


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_config_check_command_passes_on_shipped_files(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "check", str(path)]) == 0
    assert "valid" in capsys.readouterr().out


def test_defaults_fill_every_section() -> None:
    config = parse_config({}, environ={})
    assert config["table"]["rules"] == "turkish"
    assert config.rule_options["double_blank"] == 20
    assert config.rule_options["hands"] == 11
    assert config["mqtt"]["username"] is None
    assert config["scoreboard"]["baud"] == 115200


def test_rule_options_get_their_rule_sets_defaults() -> None:
    config = parse_config({"table": {"rules": "muggins", "players": ["a", "b", "c"]}}, environ={})
    assert config.rule_options == {
        "max_pip": 6, "hand_size": None, "target": 200, "points_per_five": False,
        "no_double": "redeal", "reserve": False, "must_play": True, "play_again": False,
        "no_scoring_domino": False, "blocked_tie": "split",
    }


@pytest.mark.parametrize(
    ("text", "key", "fragment"),
    [
        ("[table]\nrulez = 'turkish'\n", "table.rulez", "unknown key"),
        ("[tabel]\nid = 'x'\n", "tabel", "unknown section"),
        ("table = 3\n", "table", "allowed a [table] table"),
        ("[table]\nrules = 'chess'\n", "table.rules", "'chess'"),
        ("[table]\nplayers = 'Ayşe'\n", "table.players", "allowed a list of strings"),
        ("[table]\nplayers = ['a']\n", "table.players", "from 2 to 4"),
        ("[table]\nplayers = ['a', 'b', 'c', 'd', 'e']\n", "table.players", "from 2 to 4"),
        ("[table]\nplayers = ['a', 'a']\n", "table.players", "distinct"),
        ("[table]\nplayers = ['a', 2]\n", "table.players[1]", "found 2 (int)"),
        ("[table]\nid = 'a/b'\n", "table.id", "MQTT topic level"),
        ("[table]\nrules = 'italian'\nplayers = ['a', 'b', 'c']\n", "table.players", "exactly 2"),
        ("[table]\nteams = [['North', 'East'], ['South', 'West']]\n", "table.teams", "opposite"),
        ("[table]\nteams = [['North', 'South']]\n", "table.teams", "two teams of two"),
        ("[table]\nteams = [['North', 'South'], ['East', 'Zed']]\n", "table.teams", "each of"),
        ("[table.options]\nhands = 0\n", "table.options.hands", "from 1 to 99"),
        ("[table.options]\nhands = true\n", "table.options.hands", "found True (bool)"),
        ("[table.options]\nhand_size = 6\n", "table.options.hand_size", "one of 5, 7"),
        ("[table.options]\ntarget = 50\n", "table.options.target", "unknown key"),
        ("[table]\nrules = 'all-fives'\nplayers = ['a', 'b']\n[table.options]\ntarget = 302\n",
         "table.options.target", "found 302 (int), allowed a positive multiple of 5"),
        ("[clock]\nmode = 'hourglass'\n", "clock.mode", "'hourglass'"),
        ("[clock]\ninitial_seconds = -1\n", "clock.initial_seconds", "at least 0"),
        ("[clock]\nwarning_seconds = 'ten'\n", "clock.warning_seconds", "allowed a number"),
        ("[camera]\nwidth = 1920.5\n", "camera.width", "allowed an integer"),
        ("[scoreboard]\nbaud = 1234\n", "scoreboard.baud", "one of 9600"),
        ("[scoreboard]\nenabled = 'yes'\n", "scoreboard.enabled", "a boolean"),
        ("[gpio]\nstart_pin = 40\n", "gpio.start_pin", "from 0 to 27"),
        ("[gpio]\nplayer_pins = [5, 6, 13, 19, 26]\n", "gpio.player_pins", "at most 4"),
        ("[gpio]\npin_factory = 'magic'\n", "gpio.pin_factory", "'mock'"),
        ("[mqtt]\nurl = 'http://broker'\n", "mqtt.url", "mqtt://"),
        ("[mqtt]\nkeepalive = 1\n", "mqtt.keepalive", "from 5 to 3600"),
        ("[storage]\ndata_dir = 5\n", "storage.data_dir", "allowed a string"),
    ],
)
def test_each_mistake_is_named_in_one_line(tmp_path: Path, text: str, key: str, fragment: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(SettingError) as caught:
        load_config(path, environ={})
    message = str(caught.value)
    assert message.startswith(f"{path}: {key}: "), message
    assert fragment in message
    assert "\n" not in message
    assert caught.value.key == key


def test_unreadable_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(SettingError, match=r"missing\.toml: file: cannot read"):
        load_config(tmp_path / "missing.toml", environ={})


def test_invalid_toml_is_named_with_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, "[table]\nid = \n")
    with pytest.raises(SettingError, match=r"file: not valid TOML: .*line 2"):
        load_config(path, environ={})


def test_environment_overrides_single_keys(tmp_path: Path) -> None:
    path = write(tmp_path, "[mqtt]\nkeepalive = 60\n")
    config = load_config(path, environ={
        "DOMINO_REFEREE__MQTT__KEEPALIVE": "15",
        "DOMINO_REFEREE__MQTT__URL": "mqtt://broker.local:1883",
        "DOMINO_REFEREE__TABLE__PLAYERS": '["A", "B"]',
        "DOMINO_REFEREE__GPIO__ENABLED": "false",
        "UNRELATED": "1",
    })
    assert config["mqtt"]["keepalive"] == 15
    assert config["mqtt"]["url"] == "mqtt://broker.local:1883"
    assert config["table"]["players"] == ["A", "B"]
    assert config["gpio"]["enabled"] is False


def test_environment_override_is_validated_too(tmp_path: Path) -> None:
    path = write(tmp_path, "")
    with pytest.raises(SettingError, match=r"mqtt\.keepalive: found 2 \(int\)"):
        load_config(path, environ={"DOMINO_REFEREE__MQTT__KEEPALIVE": "2"})
    with pytest.raises(SettingError, match="DOMINO_REFEREE__NOPE"):
        load_config(path, environ={"DOMINO_REFEREE__NOPE__X": "1"})
    with pytest.raises(SettingError, match="DOMINO_REFEREE__<SECTION>__<KEY>"):
        load_config(path, environ={"DOMINO_REFEREE__MQTT": "1"})


def test_password_is_masked_when_printed() -> None:
    config = parse_config({"mqtt": {"password": "hunter2"}}, environ={})
    assert config.as_dict()["mqtt"]["password"] == "********"
    assert config.as_dict(reveal_secrets=True)["mqtt"]["password"] == "hunter2"


def test_config_check_prints_effective_configuration_as_json(tmp_path: Path) -> None:
    path = write(tmp_path, "[table]\nrules = 'italian'\nplayers = ['Giulia', 'Marco']\n")
    done = subprocess.run([sys.executable, "-m", "referee.app.cli", "config", "check", str(path), "--json"],
                          capture_output=True, text=True, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert '"target": 50' in done.stdout


def test_broken_config_exits_nonzero_with_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, "[table]\nhands = 3\n")
    done = subprocess.run([sys.executable, "-m", "referee.app.cli", "config", "check", str(path)],
                          capture_output=True, text=True, check=False, cwd=ROOT)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1
    assert "table.hands: unknown key" in done.stderr
    assert done.stdout == ""


def test_help_lists_the_commands() -> None:
    done = subprocess.run([sys.executable, "-m", "referee.app.cli", "--help"],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    assert "config" in done.stdout


def test_help_does_not_import_opencv() -> None:
    code = "import sys; from referee.app.cli import build_parser; build_parser(); print('cv2' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize(("content", "fragment"), [
    (b"a = " + b"[" * 5000 + b"]" * 5000, "nested too deeply"),
    (b"[table]\nid = \"\xff\xfe\"\n", "not UTF-8 text"),
    (b"# " + b"x" * (300 * 1024), "larger than 256 KiB"),
])
def test_a_hostile_config_file_is_one_clear_line(tmp_path: Path, content: bytes, fragment: str) -> None:
    path = tmp_path / "table.toml"
    path.write_bytes(content)
    with pytest.raises(SettingError, match=fragment) as caught:
        load_config(path, environ={})
    assert str(caught.value).startswith(f"{path}: file: ")


def test_a_deeply_nested_environment_override_is_a_plain_string() -> None:
    raw = "[" * 5000 + "]" * 5000
    config = parse_config({}, environ={"DOMINO_REFEREE__CAMERA__SOURCE": raw})
    assert config["camera"]["source"] == raw
