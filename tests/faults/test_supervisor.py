"""The supervisor: a worker's failure is said with what it was doing; it is restarted with backoff
when that is safe, and the process exits non-zero (so systemd restarts it) when it is not.

Before, every worker was a loose thread: an exception ended it with a traceback on stderr and the
process ran on without it (the MQTT loop killed by a `RecursionError`: deaf, but never restarted).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from referee.app.assembly import engine_referee
from referee.app.core import MatchSettings
from referee.app.eventlog import EventLog
from referee.app.health import Health, State
from referee.app.ports import Input, RecordingDisplay
from referee.app.service import TableService
from referee.app.supervisor import EXIT_FATAL, Backoff, Policy, Supervisor

from .kit import RULES, SETTINGS, match_lines

FAST = Backoff(first=0.01, longest=0.04, reset_after=60.0)


class Said:
    """The supervisor's log lines, waited on without sleeping."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.changed = threading.Condition()

    def __call__(self, text: str) -> None:
        with self.changed:
            self.lines.append(text)
            self.changed.notify_all()

    def wait(self, predicate: Any, timeout: float = 10.0) -> bool:
        with self.changed:
            return bool(self.changed.wait_for(lambda: predicate(self.lines), timeout))


def test_a_failing_worker_is_said_with_its_context_and_restarted_with_backoff() -> None:
    health, said = Health(), Said()
    supervisor = Supervisor(health=health, say=said, backoff=FAST, reminders=False)
    runs: list[int] = []
    recovered = threading.Event()

    def camera(stop: threading.Event) -> None:
        runs.append(len(runs) + 1)
        if len(runs) <= 3:
            raise OSError(f"frame grab failed (run {len(runs)})")
        health.ok("camera", "reading")
        recovered.set()
        stop.wait()

    supervisor.spawn("camera", camera, policy=Policy.RESTART, context=lambda: f"reading frame {len(runs)}")
    assert recovered.wait(10)
    assert said.lines[0] == "# worker camera failed while reading frame 1: OSError: frame grab failed (run 1)"
    assert "Traceback" in said.lines[1]                       # the traceback follows the line
    restarts = [line for line in said.lines if "restarted" in line]
    assert restarts == ["# worker camera restarted (restart 1, after 0.01 s)",
                        "# worker camera restarted (restart 2, after 0.02 s)",
                        "# worker camera restarted (restart 3, after 0.04 s)"]   # doubling, capped
    assert health.get("camera").state == State.OK            # type: ignore[union-attr]
    assert not supervisor.fatal.is_set()
    supervisor.stop()


class BrokenView:
    """The real engine, except that its snapshot fails once a given tile is on the table: an
    error outside the referee's judgement (which is caught and refused), in the consumer itself."""

    def __init__(self, referee: Any, tile: str) -> None:
        self._referee, self._tile = referee, tile

    def __getattr__(self, name: str) -> Any:
        return getattr(self._referee, name)

    def snapshot(self) -> Any:
        snap = self._referee.snapshot()
        if any(self._tile in str(item) for item in snap.get("table", []) or snap.get("line", [])):
            raise MemoryError("the view cannot be built")
        return snap


def broken(settings: MatchSettings, tile: str) -> tuple[Any, Any]:
    referee, side = engine_referee(settings)
    return BrokenView(referee, tile), side


def test_a_consumer_failure_is_fatal_and_names_the_input(tmp_path: Path) -> None:
    lines = match_lines()
    tile = next(line["tile"] for line in lines if line["kind"] == "placed")
    health, said = Health(), Said()
    supervisor = Supervisor(health=health, say=said, backoff=FAST, reminders=False)
    fatal: list[str] = []
    supervisor.on_fatal.append(fatal.append)
    service = TableService(SETTINGS, log=EventLog(tmp_path / "events.sqlite"),
                           referee_factory=lambda settings: broken(settings, tile),
                           display=RecordingDisplay(), health=health, supervisor=supervisor)
    service.start(tick_interval=None)
    for number, line in enumerate(lines[:8], 1):
        data = {k: v for k, v in line.items() if k not in ("kind", "t")}
        service.feed(Input(line["kind"], {**data, "line": number}, float(number)))
    assert supervisor.fatal.wait(10)
    assert fatal and fatal[0].startswith("worker table-consumer failed while handling placed")
    assert f'"tile": "{tile}"' in fatal[0] and "MemoryError: the view cannot be built" in fatal[0]
    assert health.get("consumer").state == State.FAILED       # type: ignore[union-attr]
    assert any(line.endswith(f"exiting with status {EXIT_FATAL} for a restart") for line in said.lines)
    supervisor.stop()


def test_a_thread_nobody_supervises_dying_is_fatal() -> None:
    health, said = Health(), Said()
    supervisor = Supervisor(health=health, say=said, reminders=False)
    supervisor.catch_stray_exceptions()
    try:
        thread = threading.Thread(target=lambda: json.loads("[" * 100_000), name="paho-mqtt-client-x")
        thread.start()
        thread.join(10)
        assert supervisor.fatal.wait(10)
        assert supervisor.fatal_reason.startswith("thread paho-mqtt-client-x died: RecursionError")
        assert health.get("mqtt").state == State.FAILED       # type: ignore[union-attr]
    finally:
        supervisor.stop()


def test_a_guarded_callback_survives_what_it_is_given() -> None:
    health, said = Health(), Said()
    supervisor = Supervisor(health=health, say=said, reminders=False)
    pressed: list[str] = []

    def on_button(name: str) -> None:
        if name == "bad":
            raise KeyError(name)
        pressed.append(name)
    guarded = supervisor.guard("gpio", on_button, context=lambda: "a button press")
    for name in ("pass", "bad", "continue"):
        guarded(name)
    assert pressed == ["pass", "continue"]
    assert said.lines[0] == "# gpio failed while a button press: KeyError: 'bad'"
    assert health.get("gpio").state == State.DEGRADED          # type: ignore[union-attr]
    supervisor.stop()


def test_run_exits_non_zero_when_a_thread_dies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`domino-referee run` itself: a thread outside the supervisor dies mid-match (as paho's loop
    did on the nested-bracket payload): the run ends with status 70, for systemd to restart it."""
    import referee.app.assembly as assembly
    from referee.app.cli import main

    ready = threading.Event()
    real_print = assembly.print_line

    def print_line(text: str) -> None:   # a seam to know when the table is up; prints as before
        real_print(text)
        if text.startswith("{") and json.loads(text).get("logged"):   # the match has started
            ready.set()
    monkeypatch.setattr(assembly, "print_line", print_line)
    config = tmp_path / "table.toml"
    config.write_text(tomli_w.dumps({
        "table": {"id": "faults", "rules": RULES, "players": list(SETTINGS.players),
                  "options": dict(SETTINGS.options)},
        "scoreboard": {"enabled": False}, "gpio": {"enabled": False},
        "mqtt": {"enabled": False}, "web": {"enabled": False},
        "storage": {"data_dir": str(tmp_path / "data")}}))
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in match_lines()[:5]))

    def die_when_ready() -> None:
        assert ready.wait(30)
        raise RuntimeError("the network loop met something it could not handle")
    threading.Thread(target=die_when_ready, name="paho-mqtt-client-test", daemon=True).start()
    status = main(["run", "--config", str(config), "--inputs", str(script), "--progress"])
    assert status == EXIT_FATAL
    out = capsys.readouterr().out
    assert "# fatal: thread paho-mqtt-client-test died: RuntimeError" in out
    # The log it leaves resumes: what was accepted before the death is there.
    log = EventLog(tmp_path / "data" / "events.sqlite")
    assert log.last_match() is not None
    log.close()

