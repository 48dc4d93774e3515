"""`domino-referee … | head`: a reader that stops early ends the command quietly (exit 141)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from referee.app.cli import BROKEN_PIPE_STATUS

ROOT = Path(__file__).resolve().parents[3]


def start(*args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "referee.app.cli", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_a_reader_that_stops_after_one_line_ends_simulate_quietly() -> None:
    # ~290 kB of JSON: more than the pipe (64 kB) and our read-ahead (8 kB) hold, so the command is
    # still writing when the reader goes, as with `| head -n 1`.
    process = start("simulate", "--rules", "italian", "--games", "600", "--seed", "3", "--json")
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline() == b"{\n"
    process.stdout.close()
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == BROKEN_PIPE_STATUS == 141
    assert stderr == ""  # no BrokenPipeError traceback, no "Exception ignored" at exit


def test_a_reader_gone_before_the_first_line_ends_any_command_quietly() -> None:
    for args in (["simulate", "--rules", "muggins", "--games", "2"], ["tournament", "buy-ins"]):
        process = start(*args)
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()   # `| true`: nobody ever reads
        stderr = process.stderr.read().decode()
        assert process.wait(timeout=120) == 141, args
        assert stderr == "", args


def test_a_reader_that_reads_everything_sees_exit_0() -> None:
    done = subprocess.run([sys.executable, "-m", "referee.app.cli", "tournament", "buy-ins"], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, check=False)
    assert done.returncode == 0 and done.stdout.count(b"\n") == 10 and done.stderr == b""
