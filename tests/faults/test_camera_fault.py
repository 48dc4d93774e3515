"""A camera that is missing, vanishes or returns: one clear line, said again while it lasts, shown
on the scoreboard, and opened again with backoff until it is back; never a traceback.

Before, `source = "7"` (no such camera) gave a 17-line traceback from the camera thread, and the
table ran on without a camera, saying nothing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import tomli_w

from referee.app.camera import CameraDevice
from referee.app.eventlog import EventLog
from referee.app.health import Health, PartHealth, State
from referee.app.ports import RecordingDisplay
from referee.app.service import TableService
from referee.app.supervisor import Backoff, Supervisor
from vision.onnx import chosen_runtime

from .kit import RULES, SETTINGS, wait_for
from .test_supervisor import Said

ROOT = Path(__file__).resolve().parents[2]
FAST = Backoff(first=0.02, longest=0.1)


class Heard:
    """Every health change, waited on without sleeping."""

    def __init__(self, health: Health) -> None:
        self.changes: list[PartHealth] = []
        self.changed = threading.Condition()
        health.subscribe(self._heard)

    def _heard(self, part: PartHealth) -> None:
        with self.changed:
            self.changes.append(part)
            self.changed.notify_all()

    def wait(self, part: str, state: State, why: str = "", timeout: float = 20.0) -> PartHealth:
        def found() -> PartHealth | None:
            return next((p for p in reversed(self.changes)
                         if p.part == part and p.state == state and why in p.why), None)
        with self.changed:
            assert self.changed.wait_for(lambda: found() is not None, timeout), self.changes
        result = found()
        assert result is not None
        return result


def test_run_with_a_missing_camera_says_so_on_one_line_without_a_traceback(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(tomli_w.dumps({
        "table": {"id": "faults", "rules": RULES, "players": list(SETTINGS.players)},
        "camera": {"source": "7"},
        "scoreboard": {"enabled": False}, "gpio": {"enabled": False},
        "mqtt": {"enabled": False}, "web": {"enabled": False},
        "storage": {"data_dir": str(tmp_path / "data")}}))
    process = subprocess.Popen([sys.executable, "-m", "referee.app.cli", "run", "--config", str(config)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert process.stdout is not None
    for text in process.stdout:
        if "camera" in text:
            line = text.strip()
            break
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 0
    assert line == ("# health: camera failed: cannot open camera index 7: no such device, file or stream, "
                    "or no codec (trying again)")
    assert "camera" not in out                       # tried again with backoff, said once (and reminders)
    assert "Traceback" not in err and "WARN" not in err, err


def test_a_missing_camera_is_said_again_while_it_lasts(tmp_path: Path) -> None:
    health, said = Health(reminder_seconds=0.2), Said()
    health.subscribe(lambda part: said(f"# health: {part.line()}"))
    supervisor = Supervisor(health=health, say=said)
    camera = CameraDevice("7", 5.0, lambda: 0.0, health=health, backoff=FAST)
    supervisor.spawn(camera.name, lambda stop: camera.run(lambda inp: None, stop), policy=camera.policy)
    reminder = "# health: still camera failed: cannot open camera index 7"
    assert said.wait(lambda lines: sum(line.startswith(reminder) for line in lines) >= 2)
    assert sum(line.startswith("# health: camera failed") for line in said.lines) == 1
    assert camera.opened == 0
    supervisor.stop()


def write_video(path: Path, frames: int) -> None:
    import cv2

    tmp = path.with_name("incoming.avi")
    writer = cv2.VideoWriter(str(tmp), cv2.VideoWriter_fourcc(*"MJPG"), 5.0, (320, 240))  # type: ignore[attr-defined]
    for n in range(frames):
        writer.write(np.full((240, 320, 3), 40 + n, np.uint8))
    writer.release()
    tmp.replace(path)   # the camera never sees half a file


def test_a_camera_that_returns_is_reopened_and_the_board_says_so(tmp_path: Path) -> None:
    health = Health()
    heard = Heard(health)
    display = RecordingDisplay()
    service = TableService(SETTINGS, log=EventLog(tmp_path / "events.sqlite"),
                           referee_factory=lambda settings: None, display=display, health=health)
    service.start(tick_interval=None)
    video = tmp_path / "camera.avi"
    supervisor = Supervisor(health=health, reminders=False)
    camera = CameraDevice(str(video), 5.0, lambda: 0.0, health=health, backoff=FAST)
    supervisor.spawn(camera.name, lambda stop: camera.run(service.feed, stop), policy=camera.policy)
    missing = heard.wait("camera", State.FAILED)
    assert "no such file or folder" in missing.why
    assert wait_for(display.changed, lambda: display.last.message == "camera FAIL")   # what players see
    write_video(video, 8)                                  # the camera returns
    opened = heard.wait("camera", State.OK, f"reading {str(video)!r}")
    assert opened.why.endswith(f"(networks run by {chosen_runtime()})")  # the fast extra in use, or not
    heard.wait("camera", State.OK, "ended")              # a file ends; a camera would be reopened
    supervisor.stop()
    assert camera.opened == 1 and camera.frames == 8
    assert wait_for(display.changed, lambda: display.last.message == "")   # the board is clear again
    service.stop()


class MjpegCamera:
    """A network camera on loopback (MJPEG over HTTP, as IP cameras serve it): each connection
    gets `frames` frames and ends; `stop` makes it vanish, `start` brings it back on its port."""

    def __init__(self, frames: int = 5) -> None:
        import cv2

        self.frames = frames
        self.port = 0
        self.server: Any = None
        self.image = cv2.imencode(".jpg", np.full((120, 160, 3), 90, np.uint8))[1].tobytes()

    def start(self) -> None:
        import http.server

        camera = self

        class Stream(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
                self.end_headers()
                for _ in range(camera.frames):
                    self.wfile.write(b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n"
                                     % len(camera.image) + camera.image + b"\r\n")

            def log_message(self, *args: Any) -> None:
                pass
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Stream)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/stream.mjpg"


def test_a_network_camera_that_vanishes_mid_stream_is_reopened_when_it_returns(tmp_path: Path) -> None:
    health = Health()
    heard = Heard(health)
    source = MjpegCamera(frames=5)
    source.start()
    supervisor = Supervisor(health=health, reminders=False)
    camera = CameraDevice(source.url, 5.0, lambda: 0.0, health=health, backoff=FAST)
    try:
        supervisor.spawn(camera.name, lambda stop: camera.run(lambda inp: None, stop), policy=camera.policy)
        heard.wait("camera", State.OK, "reading")
        stopped = heard.wait("camera", State.FAILED, "stopped giving frames")   # the stream ended
        assert stopped.why == f"camera {source.url!r} stopped giving frames (reopening)"
        source.stop()                                                          # and it is gone
        gone = heard.wait("camera", State.FAILED, "cannot open")
        assert "(trying again)" in gone.why
        source.start()                                                         # back on its port
        def oks() -> int:
            return sum(1 for p in heard.changes if p.part == "camera" and p.state == State.OK)
        before = oks()
        with heard.changed:
            assert heard.changed.wait_for(lambda: oks() > before, 20)              # read again
        assert camera.opened >= 2 and camera.frames >= 5
    finally:
        supervisor.stop()
        source.stop()
