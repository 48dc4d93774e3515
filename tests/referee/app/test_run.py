"""`domino-referee run` with every simulated device: emulated board, mock GPIO, a script for the camera."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import tomli_w

from referee.app.script import table_script

from .matches import NAMES, SHORT, engine_result, simulated_record

ROOT = Path(__file__).resolve().parents[3]


def test_run_with_the_emulated_board_and_mock_gpio(tmp_path: Path) -> None:
    record = simulated_record("all-fives", 2)
    script = tmp_path / "table.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in table_script(record)))
    config = tmp_path / "table.toml"
    config.write_text(tomli_w.dumps({
        "table": {"id": "club-1", "rules": "all-fives", "players": NAMES["all-fives"],
                  "options": SHORT["all-fives"]},
        "scoreboard": {"enabled": True, "port": "emulator://"},
        "gpio": {"enabled": True, "pin_factory": "mock"},
        "web": {"host": "127.0.0.1", "port": 0},   # the pages too, on a port nobody else holds
        "storage": {"data_dir": str(tmp_path / "data")}}))
    done = subprocess.run([sys.executable, "-m", "referee.app.cli",
                           "run", "--config", str(config), "--inputs",
                           str(script), "--exit-at-end", "--progress"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    lines = [json.loads(text) for text in done.stdout.splitlines() if text.startswith("{")]
    assert lines[0]["ready"] is True and lines[-1]["phase"] == "match-over"
    assert not [text for text in done.stdout.splitlines() if text.startswith("#")]   # nothing missing
    written = json.loads((tmp_path / "data" / "records" / "match-1.json").read_text())
    from referee.record import replay_with_referee
    snap = replay_with_referee(written)[0].snapshot()
    assert snap["scores"] == engine_result(record)["scores"]


def test_run_reports_a_bad_config_on_one_line(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[mqtt]\nurl = "http://broker"\n')
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "referee.app.cli", "run", "--config", str(config)],
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "mqtt.url" in done.stderr and "http://broker" in done.stderr
