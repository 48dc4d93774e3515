"""The service process stopped and killed, the scoreboard unplugged, the clock jumping: nothing
accepted is lost or doubled, and the players see the table as it is.

SIGSTOP freezes the real service process (a laptop lid, a swapping Pi) while inputs queue up in
its pipe; SIGCONT thaws it; SIGKILL then ends it and a restart resumes from the log. The
scoreboard is the emulator on a real pty, unplugged and plugged in again. The clock jump is the
injected clock leaping forward an hour and back a few seconds.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import tomli_w

from referee.app.devices import ScoreboardDisplay, watch_link
from referee.app.eventlog import EventLog
from referee.app.health import Health, State
from tests.referee.app.clocked import ClockedTable

from .kit import RULES, SETTINGS, Table, logged, match_lines, reference, without_time
from .test_camera_fault import Heard

ROOT = Path(__file__).resolve().parents[2]
LINES = match_lines()


def progress_until(stdout: Any, line_number: int) -> list[dict[str, Any]]:
    seen = []
    for text in stdout:
        if text.startswith("{"):
            seen.append(json.loads(text))
            if seen[-1].get("line") == line_number:
                return seen
    raise AssertionError(f"the service ended before line {line_number}: {seen[-3:]}")


def process_state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def test_sigstop_then_sigkill_lose_and_double_nothing(tmp_path: Path) -> None:
    want_inputs, want_events = reference(tmp_path, LINES, scripted=True)   # the script's own times
    config = tmp_path / "table.toml"
    config.write_text(tomli_w.dumps({
        "table": {"id": SETTINGS.table_id, "rules": RULES, "players": list(SETTINGS.players),
                  "options": dict(SETTINGS.options)},
        "scoreboard": {"enabled": True, "port": "emulator://"}, "gpio": {"enabled": False},
        "mqtt": {"enabled": False}, "web": {"enabled": False},
        "storage": {"data_dir": str(tmp_path / "data")}}))
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in LINES))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "referee.app.cli", "run", "--config", str(config), "--progress"]
    process = subprocess.Popen([*command, "--inputs", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env, bufsize=1)
    assert process.stdin is not None and process.stdout is not None
    text_lines = script.read_text().splitlines(keepends=True)
    process.stdin.writelines(text_lines[:20])
    process.stdin.flush()
    progress_until(process.stdout, 20)
    process.send_signal(signal.SIGSTOP)
    _, status = os.waitpid(process.pid, os.WUNTRACED)       # returns once it is stopped
    assert os.WIFSTOPPED(status) and process_state(process.pid) == "T"
    process.stdin.writelines(text_lines[20:40])             # the table goes on while it is frozen
    process.stdin.flush()
    process.send_signal(signal.SIGCONT)
    handled = progress_until(process.stdout, 40)
    assert [p["line"] for p in handled] == list(range(21, 41))   # each once, in order
    process.send_signal(signal.SIGKILL)
    assert process.wait(timeout=30) == -signal.SIGKILL
    done = subprocess.run([*command, "--inputs", str(script), "--exit-at-end"], capture_output=True,
                          text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    ready = next(json.loads(text) for text in done.stdout.splitlines() if text.startswith('{"ready"'))
    assert ready["resumed"] is True and ready["skip_through"] <= 40
    log = EventLog(tmp_path / "data" / "events.sqlite")
    assert logged(log) == want_inputs
    assert log.events() == want_events                      # the same seq, payload and time for each
    log.close()


def test_a_scoreboard_unplugged_mid_match_is_said_and_resynced_with_nothing_lost(tmp_path: Path) -> None:
    from firmware_bridge.scoreboard import Scoreboard

    want_inputs, want_events = reference(tmp_path, LINES)
    health = Health()
    heard = Heard(health)
    board = Scoreboard("emulator://", connect_timeout=5)
    watch_link(board, health)
    board.open()
    emulator = board.emulator
    assert emulator is not None
    try:
        adapter = ScoreboardDisplay(board, SETTINGS.players, lambda: 0.0)
        table = Table(tmp_path / "data" / "events.sqlite", health=health)
        table.service.display = adapter
        table.service.signals = adapter
        table.start()
        table.feed(LINES[:20])
        emulator.unplug()
        lost = heard.wait("scoreboard", State.FAILED)
        assert "lost" in lost.why
        table.feed(LINES[20:40], first=21)                   # refereeing goes on without the board
        assert table.capture.states[-1]["health"]["parts"]["scoreboard"]["state"] == "failed"
        emulator.replug()
        heard.wait("scoreboard", State.OK)
        core = table.service.core
        assert core is not None
        scores = tuple(round(points) for _, points in core.view(core.last_t).scores)
        assert emulator.wait_for(lambda model: model.state.scores == scores, 5), emulator.text()
        table.feed(LINES[40:], first=41)
        assert table.service.match_over.is_set()
        assert logged(table.log) == want_inputs
        assert without_time(table.log.events()) == without_time(want_events)
        table.stop()
    finally:
        board.close()


def test_a_clock_jump_neither_doubles_a_timeout_nor_runs_time_backwards(tmp_path: Path) -> None:
    table = ClockedTable(tmp_path / "log.sqlite")
    service, signals, at = table.service, table.signals, table.at
    service.start(tick_interval=None)
    at(0, "start")
    at(1, "lead", player="Ayşe")
    at(3, "placed", tile="6-6")                              # Burak's move: 20 s from t = 3
    at(1.5, "tick")                                          # the clock jumps back 1.5 s
    at(2.0, "placed", tile="6-2")                            # Burak plays "before" Ayşe did
    times = [i.t for i in service.log.inputs(service.match_id)]
    assert times == sorted(times) and min(times) >= 0        # match time never runs backwards
    at(3600, "tick")                                         # an hour later: one flag falls
    at(3600.1, "tick")
    at(7200, "tick")
    kinds = [i.kind for i in service.log.inputs(service.match_id)]
    assert kinds.count("timeout") == 1 and signals.played.count("timeout") == 1
    assert service.match_over.is_set()                       # italian: a timeout loses the match
    events = [e["event"] for e in service.log.events()]
    assert events.count("timeout") == 1 and events[-1] == "match"
    service.stop()

