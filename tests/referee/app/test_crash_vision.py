"""Crash safety through vision: the demo process (film → vision → tracker → referee → emulated
board) SIGKILLed twice mid-match resumes with `--resume` and ends exactly as an uninterrupted run."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

from referee.app.eventlog import EventLog

from .conftest import SmallDemo

ROOT = Path(__file__).resolve().parents[3]


def logged(directory: Path) -> list[tuple[str, dict[str, object], float]]:
    log = EventLog(directory / "events.sqlite")
    entry = log.last_match()
    assert entry is not None and entry.finished
    inputs = [(i.kind, dict(i.data), i.t) for i in log.inputs(entry.id)]
    log.close()
    return inputs


def test_demo_killed_twice_through_vision_resumes_exactly(tmp_path: Path, small_demo: SmallDemo) -> None:
    assert small_demo.result.agree
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "referee.app.cli", "demo", "--config", str(small_demo.config_file),
               "--hands", "1", "--seed", "4", "--out", str(out), "--resume"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    rng = random.Random(9)
    kills = 0
    while True:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                   text=True)
        assert process.stdout is not None and process.stderr is not None
        target = rng.randint(3, 9) if kills < 2 else None
        for count, _ in enumerate(process.stdout, 1):
            if target is not None and count >= target:
                process.send_signal(signal.SIGKILL)
                kills += 1
                break
        code = process.wait(timeout=120)
        errors = process.stderr.read()
        if code == 0:
            break
        assert code == -signal.SIGKILL, errors
    assert kills == 2
    assert logged(out) == logged(small_demo.out)
