"""Latency from a tile settling on the table to the scoreboard and MQTT showing it.

    python -m benchmarks.service_latency [--moves N] [--size 1280x720] [--fps 30]

A match's first plays are filmed by the synthetic renderer at the camera's frame rate. For each
play the clock starts at the first frame in which the tile lies still and no hand is in view (the
tile has *settled*). Then:

- camera wait: frames the tracker waits for the picture to stay quiet, times the frame interval;
- vision: from the committing frame's arrival to the tracker having processed it (read, compare,
  explain), on a real-time schedule: frames arrive one interval apart and each waits for the one
  before (see `film_play`), so a read started a frame early counts as long as it makes the
  commit wait;
- board: from the service receiving the play to the emulated scoreboard (over a pty, with acks)
  showing the next player on move;
- MQTT: from the service receiving the play to a subscriber receiving its event (QoS 1, through a
  real mosquitto on loopback).

Each is reported in milliseconds and as a multiple of the camera's frame interval (33.3 ms at
30 fps), the physical limit: a referee cannot know sooner than the next frame. When vision does not
recognise the filmed tile, its cost is still measured on the frame it read, and the play is fed as
it truly was so the service's part is measured all the same (the report says how many).
"""

from __future__ import annotations

import argparse
import functools
import json
import queue
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.app.config import Config


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _broker(directory: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    conf = directory / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\n")
    process = subprocess.Popen(["mosquitto", "-c", str(conf)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    for _ in range(400):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.05):
                return process, port
        except OSError:
            threading.Event().wait(0.01)
    raise RuntimeError("mosquitto did not start")


def _has_turn(seat: int, model: Any) -> bool:
    """Whether the board shows `seat`'s turn (`BoardModel`)."""
    return seat in model.state.turn


def film_play(tracker: Any, frames: list[Any], settled: int, frame_ms: float
              ) -> tuple[int | None, float, Any, int | None]:
    """Feed a play's `frames` to `tracker` on a real-time schedule: frame i arrives at i frame
    intervals, and its processing starts when it has arrived and the frame before is done (a read
    longer than an interval delays the frames after it). Returns the frame that committed the play
    (at or after `settled`), the vision time of that commit (from the frame's arrival to its
    processing ending: its own work and any wait behind earlier frames), the `TilePlaced`, and the
    first frame read from `settled` on (None for each that did not happen)."""
    committed_at, vision_ms, seen, read_at = None, 0.0, None, None
    busy_until = 0.0
    for index, frame in enumerate(frames):
        arrival = index * frame_ms
        reads = tracker.reads
        started = time.perf_counter()
        observations = tracker.feed(frame.t, frame.image)
        done = max(arrival, busy_until) + (time.perf_counter() - started) * 1000
        busy_until = done
        if index >= settled and read_at is None and tracker.reads > reads:
            read_at = index
            if committed_at is None:
                vision_ms = done - arrival
        placed = [o for o in observations if type(o).__name__ == "TilePlaced"]
        if placed and committed_at is None and index >= settled:
            committed_at, vision_ms, seen = index, done - arrival, placed[0]
    return committed_at, vision_ms, seen, read_at


def opening_plays(config: Config, moves: int) -> list[dict[str, Any]]:
    """The first `moves` plays of the first simulated match whose first hand opens with that many
    plays before anyone draws or passes (a fixed, repeatable stream of tiles to lay)."""
    from referee.app.demo import simulated_match

    for seed in range(1, 200):
        record = simulated_match(config, seed=seed)
        events: list[dict[str, Any]] = []
        for event in record["hands"][0]["events"]:
            if "play" not in event or len(events) == moves:
                break
            events.append(event)
        if len(events) == moves:
            return events
    raise SystemExit(f"no simulated match opens with {moves} plays in a row")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=8)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--fps", type=float, default=30.0)
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.split("x"))
    warnings.simplefilter("ignore")

    import paho.mqtt.client as paho
    from paho.mqtt.enums import CallbackAPIVersion

    from firmware_bridge.scoreboard import Scoreboard
    from referee.app.assembly import build_table
    from referee.app.camera import demo_camera, observation_input, quiet_reader
    from referee.app.config import parse_config
    from referee.app.devices import ScoreboardDisplay
    from referee.app.ports import Input, InputKind

    frame_ms = 1000.0 / args.fps
    work = Path(tempfile.mkdtemp(prefix="service-latency-"))
    broker, port = _broker(work)
    config = parse_config({"table": {"id": "bench", "rules": "turkish", "options": {"hands": 1}},
                           "mqtt": {"enabled": True, "url": f"mqtt://127.0.0.1:{port}"},
                           "storage": {"data_dir": str(work)}}, environ={})
    players = list(config["table"]["players"])
    events = opening_plays(config, args.moves)

    clock = [0.0]
    board = Scoreboard("emulator://", connect_timeout=5).open()
    assert board.emulator is not None
    adapter = ScoreboardDisplay(board, tuple(players), lambda: clock[0])
    table = build_table(config, displays=[adapter], signals=[adapter], now=lambda: clock[0])
    received: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
    watcher = paho.Client(CallbackAPIVersion.VERSION2, protocol=paho.MQTTv5)
    watcher.on_message = lambda c, u, m: received.put((time.perf_counter(), json.loads(m.payload)))
    subscribed = threading.Event()
    watcher.on_subscribe = lambda *a: subscribed.set()
    watcher.connect("127.0.0.1", port)
    watcher.loop_start()
    watcher.subscribe("domino/bench/events", qos=1)
    subscribed.wait(10)
    table.start(tick_interval=None)
    service = table.service
    service.wait_processed(service.feed(Input(InputKind.START, {}, 0.0)))
    service.wait_processed(service.feed(Input(InputKind.BONEYARD, {"count": 0}, 0.0)))

    film, tracker = demo_camera((width, height), seed=5, fps=args.fps, approach_frames=4, leave_frames=3,
                                rest_frames=6)
    for frame in film.new_hand(boneyard=0):
        tracker.feed(frame.t, frame.image)
    rows: list[dict[str, float]] = []
    misread = unread = 0
    reader = quiet_reader()
    for event in events:
        seat = players.index(event["player"])
        frames = film.play(seat, event["play"], event.get("end"))
        settled = next(i for i, f in enumerate(frames) if not f.scene.hands and i > 0)
        committed_at, vision_ms, seen, read_at = film_play(tracker, frames, settled, frame_ms)
        if read_at is None:
            # The tracker did not read the settled picture at all: time the read it would need.
            unread += 1
            started = time.perf_counter()
            reader(frames[min(len(frames) - 1, settled + tracker.stable_frames)].image)
            vision_ms = (time.perf_counter() - started) * 1000
        if seen is None or sorted(seen.tile.split("-")) != sorted(event["play"].split("-")):
            misread += 1
            committed_at = committed_at if committed_at is not None else \
                read_at if read_at is not None else settled + tracker.stable_frames
            inp = Input(InputKind.PLACED, {"tile": event["play"], "end": event.get("end")}, 0.0)
        else:
            assert committed_at is not None  # set with `seen`
            inp = observation_input(seen, 0.0) or Input(InputKind.PLACED, {"tile": event["play"]}, 0.0)
        camera_ms = (committed_at - settled) * frame_ms
        next_seat = (seat + 1) % len(players)
        fed = time.perf_counter()
        number = service.feed(inp)
        board.emulator.wait_for(functools.partial(_has_turn, next_seat), 5)
        board_ms = (time.perf_counter() - fed) * 1000
        while True:
            arrived, payload = received.get(timeout=10)
            if payload.get("event") == "play":
                break
        mqtt_ms = (arrived - fed) * 1000
        service.wait_processed(number)
        rows.append({"camera": camera_ms, "vision": vision_ms, "board": board_ms, "mqtt": mqtt_ms})

    table.stop()
    board.close()
    watcher.loop_stop()
    broker.terminate()
    broker.wait()

    print(f"service latency: {len(rows)} plays filmed at {width}x{height}, {args.fps:g} fps "
          f"(frame interval {frame_ms:.1f} ms)")
    print(f"{'stage':<14}{'median ms':>11}{'max ms':>10}{'frames':>9}")
    for key, label in (("camera", "camera wait"), ("vision", "vision"), ("board", "to scoreboard"),
                       ("mqtt", "to MQTT")):
        values = [row[key] for row in rows]
        median = statistics.median(values)
        print(f"{label:<14}{median:>11.1f}{max(values):>10.1f}{median / frame_ms:>9.2f}")
    total = [row["camera"] + row["vision"] + max(row["board"], row["mqtt"]) for row in rows]
    print(f"{'settle→shown':<14}{statistics.median(total):>11.1f}{max(total):>10.1f}"
          f"{statistics.median(total) / frame_ms:>9.2f}")
    print(f"vision recognised {len(rows) - misread} of {len(rows)} filmed plays "
          f"(the others were fed as they truly were); the tracker skipped reading {unread} settled "
          f"pictures, whose read was timed on its own")
    return 0


if __name__ == "__main__":
    sys.exit(main())
