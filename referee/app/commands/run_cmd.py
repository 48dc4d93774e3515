"""`domino-referee run --config FILE`: referee a real table until interrupted."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import threading
from typing import Any

from referee.app.config import load_config


def register(subparsers: Any) -> None:
    run = subparsers.add_parser(
        "run", help="referee a real table (camera, serial scoreboard, GPIO, MQTT from the config)",
        description="Referee a real table. Resumes an unfinished match from the event log in the "
                    "data directory after a crash or power cut.")
    run.add_argument("--config", required=True, help="the table configuration (TOML)")
    run.add_argument("--data-dir", help="event log and records here instead of [storage] data_dir")
    run.add_argument("--inputs", metavar="FILE",
                     help="also feed table inputs from a JSON-lines file ('-' for stdin) - a replay or test "
                          "driver; with it the camera is not opened")
    run.add_argument("--input-interval", type=float, default=0.0, metavar="SECONDS",
                     help="pause between --inputs lines")
    run.add_argument("--exit-at-end", action="store_true", help="exit when the match is over")
    run.add_argument("--progress", action="store_true",
                     help="print one JSON line per handled input on stdout (for supervising programs)")
    run.add_argument("--no-camera", action="store_true", help="do not open the camera")
    run.add_argument("--new-log", action="store_true",
                     help="the event log was refused as damaged: rename it aside (kept) and start a new one, "
                          "numbering on after the old one")
    run.set_defaults(handler=run_table)


def run_table(args: argparse.Namespace) -> int:
    import socket
    import time
    from pathlib import Path

    from referee.app.assembly import ScriptDevice, build_table, print_line
    from referee.app.hardware import hardware_parts
    from referee.app.health import Health
    from referee.app.supervisor import EXIT_FATAL

    # The parts' lines (``mqtt failed: …``, ``mqtt ok: …``) go to stderr, one per line (the journal).
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    config = load_config(args.config)
    data_dir = Path(args.data_dir) if args.data_dir else None
    health = Health()
    parts = hardware_parts(config, camera=not (args.no_camera or args.inputs), health=health)
    try:
        table = build_table(config, displays=parts.displays, signals=parts.signals, devices=parts.devices,
                            workers=parts.workers, data_dir=data_dir, health=health, new_log=args.new_log,
                            say=print_line)
    except BaseException:
        for close in parts.closers:
            close()
        raise
    supervisor = table.supervisor
    assert supervisor is not None
    supervisor.catch_stray_exceptions()
    table.closers.extend(parts.closers)
    table.notes.extend(parts.notes)
    done = threading.Event()
    service = table.service
    # The script's first inputs may be processed before the "ready" line is printed: their
    # progress lines wait for it, so "ready" is always the first line a reader sees.
    announced = threading.Lock()
    before_ready: list[str] | None = []
    if args.progress:
        def progress(inp: Any, logged: bool) -> None:
            core = service.core
            line = json.dumps({"kind": inp.kind, "line": inp.data.get("line"), "logged": logged,
                               "phase": None if core is None else core.phase})
            with announced:
                if before_ready is not None:
                    before_ready.append(line)
                    return
            print_line(line)
        service.on_processed = progress
    skip = last_script_line(service) if args.inputs else 0
    if args.inputs:
        table.workers.append(ScriptDevice(args.inputs, time.monotonic, skip_through=skip,
                                          interval=args.input_interval, on_error=service.note))
    entry = service.log.last_match()
    # Restarted after its match ended (killed before it could exit): deliver what is left, stop.
    finished = bool(args.inputs and args.exit_at_end and entry is not None and entry.finished and skip)
    if finished:
        table.workers.clear()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    supervisor.on_fatal.append(lambda why: done.set())
    for part in health.parts().values():   # reported before the table's log listened
        if part.state != "ok":
            print_line(f"# health: {part.line()}")
    table.start()
    for note in table.notes:
        print_line(f"# {note}")
    if table.web is not None and not args.progress:
        print_line("web pages: " + ", ".join(f"{name} {url}" for name, url in table.web.urls().items())
                   + (f" (from other machines: http://{socket.gethostname()}:{table.web.port}/)"
                      if table.web.host in ("0.0.0.0", "::", "") else ""))
    if args.progress:
        with announced:
            print_line(json.dumps({"ready": True, "resumed": table.resumed, "skip_through": skip}))
            for line in before_ready or []:
                print_line(line)
            before_ready = None
    try:
        while not finished and not done.wait(0.2):
            if args.exit_at_end and service.match_over.is_set() and not service.halted:
                break
    except KeyboardInterrupt:
        pass
    if supervisor.fatal.is_set():
        stop_within(table, 10.0)
        return EXIT_FATAL
    table.stop()
    return 0


def stop_within(table: Any, seconds: float) -> None:
    """Stop what can be stopped after a fatal failure; a worker stuck for good must not keep the
    process from exiting (systemd restarts it and the log resumes the match)."""
    stopper = threading.Thread(target=table.stop, name="stopping", daemon=True)
    stopper.start()
    stopper.join(seconds)


def last_script_line(service: Any) -> int:
    entry = service.log.last_match()
    if entry is None:
        return 0
    lines = [int(i.data["line"]) for i in service.log.inputs(entry.id) if isinstance(i.data.get("line"), int)]
    return max(lines, default=0)
