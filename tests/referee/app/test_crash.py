"""Crash safety: a real service process killed with SIGKILL at random points resumes exactly.

The fast path drives the service through `run --inputs FILE` (a script of the table inputs a
camera would give); the process is killed after a random number of handled inputs, restarted on
the same data directory, and so on until the match ends. The event log must then hold exactly the
inputs and events of an uninterrupted run, and every event must have reached the broker.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from referee.app.assembly import engine_referee
from referee.app.core import MatchSettings
from referee.app.eventlog import EventLog
from referee.app.ports import Input
from referee.app.script import table_script
from referee.app.service import TableService

from .conftest import USERS, Broker, Watcher
from .matches import NAMES, SHORT, engine_result, simulated_record

ROOT = Path(__file__).resolve().parents[3]


def write_config(path: Path, rules: str, data_dir: Path, broker: Broker | None) -> Path:
    config: dict[str, Any] = {
        "table": {"id": "crash", "rules": rules, "players": NAMES[rules], "options": SHORT[rules]},
        "scoreboard": {"enabled": False}, "gpio": {"enabled": False},
        "storage": {"data_dir": str(data_dir)},
        "mqtt": {"enabled": broker is not None},
        "web": {"enabled": False},   # tested on their own; here each restart would load aiohttp
    }
    if broker is not None:
        config["mqtt"].update(url=broker.url, username="referee", password=USERS["referee"])
    path.write_text(tomli_w.dumps(config))
    return path


def reference_run(rules: str, lines: list[dict[str, Any]], directory: Path) -> EventLog:
    """The same script through an uninterrupted in-process service."""
    settings = MatchSettings("crash", rules, tuple(NAMES[rules]), options=SHORT[rules])
    log = EventLog(directory / "reference.sqlite")
    service = TableService(settings, log=log, referee_factory=engine_referee)
    service.start(tick_interval=None)
    for n, line in enumerate(lines, 1):
        data = {k: v for k, v in line.items() if k not in ("kind", "t")}
        service.feed(Input(line["kind"], {**data, "line": n}, 0.0, t=float(line["t"])))
    assert service.wait_processed(timeout=60)
    service.stop()
    assert service.match_over.is_set()
    return log


def kill_and_resume(config: Path, script: Path, rng: random.Random, *, max_runs: int = 200) -> int:
    """Run the service until the match ends, SIGKILLing it after a random number of inputs."""
    kills = 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "referee.app.cli",
               "run", "--config", str(config), "--inputs", str(script),
               "--input-interval", "0.005", "--exit-at-end", "--progress"]
    for _ in range(max_runs):
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                   text=True)
        assert process.stdout is not None
        handled, target = 0, rng.randint(1, 5)  # small, so a busy machine still kills often
        for text in process.stdout:
            if text.startswith("{") and json.loads(text).get("logged"):
                handled += 1
                if handled >= target:
                    process.send_signal(signal.SIGKILL)
                    kills += 1
                    break
        code = process.wait(timeout=60)
        assert process.stderr is not None
        errors = process.stderr.read()
        if code == 0:
            return kills
        assert code == -signal.SIGKILL, errors
    raise AssertionError("the match never finished")


def comparable(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in event.items() if k != "seq"} for event in events]


@pytest.mark.parametrize(("rules", "seed"), [("turkish", 11), ("italian", 5)])
def test_sigkill_at_random_points_loses_and_doubles_nothing(rules: str, seed: int, tmp_path: Path,
                                                            broker: Broker) -> None:
    record = simulated_record(rules, seed)
    lines = table_script(record)
    script = tmp_path / "table.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in lines))
    reference = reference_run(rules, lines, tmp_path)
    data_dir = tmp_path / "data"
    config = write_config(tmp_path / "table.toml", rules, data_dir, broker)
    watcher = Watcher(broker, "viewer", client_id=f"crash-{rules}", clean=False)
    watcher.subscribe("domino/crash/events")

    kills = kill_and_resume(config, script, random.Random(seed))
    assert kills >= 10

    log = EventLog(data_dir / "events.sqlite")
    entry = log.last_match()
    assert entry is not None and entry.finished
    got = [(i.kind, dict(i.data)) for i in log.inputs(entry.id)]
    want = [(i.kind, dict(i.data)) for i in reference.inputs(1)]
    assert got == want
    assert comparable(log.events()) == comparable(reference.events())
    # Every event reached the broker (at least once; `seq` lets a consumer drop a repeat).
    assert log.undelivered() == []
    received: dict[int, dict[str, Any]] = {}
    while len(received) < len(log.events()):
        event = watcher.next_json("events")
        assert received.setdefault(event["seq"], event) == event
    assert [received[seq] for seq in sorted(received)] == log.events()
    watcher.close()
    # And the match came out as the engine's own replay of the same moves says.
    expected = engine_result(record)
    written = json.loads((data_dir / "records" / f"match-{entry.id}.json").read_text())
    from referee.record import replay_with_referee
    referee, _ = replay_with_referee(written)
    snap = referee.snapshot()
    assert (snap.get("scores") or snap.get("penalties")) == expected["scores"]
