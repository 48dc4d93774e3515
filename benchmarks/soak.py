"""A soak: an hour (or more) of simulated play, compressed in time, with a random fault every few
minutes of match time; reports inputs lost, doubled, seq reused, time to report and to recover.

The table is the real service (`TableService`, its event log on a small real tmpfs when one can be
mounted, else a temporary folder: then the full-disk fault is left out and the report says so),
the emulated scoreboard on a real pty, a real mosquitto broker reached through the real
`MqttLink`, under the `Supervisor`, with one `Health`. Its clock is injected: matches of turkish
(engine players, `table_script` as the camera and buttons would report them) are fed as fast as the
machine goes, the clock stepping by each input's match time. Faults, chosen so every kind comes
round, at random every `--every` minutes of match time on average:

| kind | injected | repaired |
|---|---|---|
| disk-full | the tmpfs filled by a file | the file deleted |
| read-only | SQLite refuses writes (``PRAGMA query_only``); noticed at the next write | allowed again |
| kill | the log's files copied as `kill -9` leaves them; the table dropped | a new table resumes |
| broker | mosquitto stopped | started again |
| unplug | the scoreboard's pty vanishes | it returns |
| worker | a supervised worker raises | the supervisor restarts it |
| output | the display raises on every call | it works again |
| clock-jump | the clock leaps an hour forward, then 5 s back | — |

Counted at the end, against each match fed through an undisturbed service: every accepted input is
in the log once (lost = missing, doubled = twice), every event a subscriber received has one
payload per `seq` (reused = a seq seen with two payloads), every event in the logs reached the
subscriber, and every fault was in the `Health` (reported) within `REPORT_LIMIT` seconds.

Run: ``python -m benchmarks.soak [--minutes 60] [--every 2] [--seed 1]`` (needs mosquitto; root for
the tmpfs). The tests run a short one (`tests/faults/test_soak.py`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_bridge.scoreboard import Scoreboard
from referee.app.assembly import engine_referee
from referee.app.core import MatchSettings
from referee.app.devices import ScoreboardDisplay, watch_link
from referee.app.eventlog import EventLog
from referee.app.health import Health, PartHealth, State
from referee.app.mqtt import MqttLink, MqttSettings
from referee.app.ports import BoardView, Input, InputKind
from referee.app.script import table_script
from referee.app.service import TableService
from referee.app.supervisor import Backoff, Policy, Supervisor
from tests.faults.kit import crash_copy, fill

RULES = "turkish"
PLAYERS = ("Ayşe", "Burak", "Cem", "Deniz")
SETTINGS = MatchSettings("soak", RULES, PLAYERS, options={"hands": 2})
REPORT_LIMIT = 2.0   # seconds from a fault to its line in the health (the bound)
KINDS = ("disk-full", "read-only", "kill", "broker", "unplug", "worker", "output", "clock-jump")
INPUTS_DURING_FAULT = 3


class ManualClock:
    def __init__(self) -> None:
        self.now = 10_000.0

    def __call__(self) -> float:
        return self.now


class Heard:
    """Health changes with the wall time they arrived, waited on without sleeping."""

    def __init__(self, health: Health) -> None:
        self.changes: list[tuple[float, PartHealth]] = []
        self.changed = threading.Condition()
        health.subscribe(self._heard)

    def _heard(self, part: PartHealth) -> None:
        with self.changed:
            self.changes.append((time.monotonic(), part))
            self.changed.notify_all()

    def wait(self, parts: str | tuple[str, ...], states: tuple[State, ...], after: float,
             timeout: float = 30.0) -> float | None:
        """The wall time one of `parts` entered one of `states` after `after` (None: not within
        `timeout`)."""
        names = (parts,) if isinstance(parts, str) else parts

        def found() -> float | None:
            return next((at for at, p in self.changes
                         if at >= after and p.part in names and p.state in states), None)
        with self.changed:
            self.changed.wait_for(lambda: found() is not None, timeout)
            return found()


class FlakyDisplay:
    """The scoreboard adapter, made to raise while `broken` (a driver bug, a board that NAKs)."""

    def __init__(self, inner: ScoreboardDisplay) -> None:
        self.inner = inner
        self.broken = False

    def show(self, view: BoardView) -> None:
        if self.broken:
            raise OSError("display write failed (injected)")
        self.inner.show(view)

    def sync(self, view: BoardView) -> None:
        if self.broken:
            raise OSError("display write failed (injected)")
        self.inner.sync(view)

    def signal(self, name: str) -> None:
        self.inner.signal(name)


class Subscriber:
    """A viewer on the broker's `events`: every payload per seq it received."""

    def __init__(self, url: str, user: str, password: str) -> None:
        import paho.mqtt.client as paho
        from paho.mqtt.enums import CallbackAPIVersion
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        self.received: dict[int, set[str]] = defaultdict(set)
        self.count = 0
        self.changed = threading.Condition()
        self.client = paho.Client(CallbackAPIVersion.VERSION2, client_id="soak-viewer", protocol=paho.MQTTv5)
        self.client.username_pw_set(user, password)
        self.client.on_message = self._message
        self.client.on_connect = lambda c, u, f, reason, p: c.subscribe("domino/soak/events", qos=1)
        properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        properties.SessionExpiryInterval = 3600   # a broker restart keeps what it queued for us
        host, port = url.removeprefix("mqtt://").split(":")
        self.client.connect(host, int(port), clean_start=False, properties=properties)
        self.client.loop_start()

    def _message(self, client: Any, userdata: Any, message: Any) -> None:
        payload = message.payload.decode()
        with self.changed:
            self.received[int(json.loads(payload)["seq"])].add(payload)
            self.count += 1
            self.changed.notify_all()

    def wait_for(self, seqs: set[int], timeout: float) -> bool:
        with self.changed:
            return bool(self.changed.wait_for(lambda: seqs <= set(self.received), timeout))

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@dataclass
class Rig:
    """One running table on `data`: the log, the service and its broker link."""

    data: Path
    clock: ManualClock
    health: Health
    supervisor: Supervisor
    display: FlakyDisplay
    mqtt: MqttSettings | None

    def __post_init__(self) -> None:
        self.log = EventLog(self.data / "events.sqlite")
        self.service = TableService(SETTINGS, log=self.log, referee_factory=engine_referee,
                                    display=self.display, signals=self.display, now=self.clock,
                                    health=self.health,
                                    supervisor=self.supervisor)
        self.link: MqttLink | None = None
        if self.mqtt is not None:
            self.link = MqttLink(self.mqtt, on_command=self.service.command, outbox=self.log,
                                 health=self.health)
            self.service.publisher = self.link
        self.resumed = self.service.resume()
        if self.link is not None:
            self.link.start()
        self.service.start(tick_interval=None)

    def drop(self) -> None:
        self.service.stop()
        if self.link is not None:
            self.link.client.disconnect()
            self.link.client.loop_stop()
        self.log.close()


@dataclass
class Fault:
    kind: str
    at: float                     # match time of the clock when injected
    reported: float | None = None  # seconds from injection to the health's line
    recovered: float | None = None  # seconds from the repair to working again
    note: str = ""


@dataclass
class Report:
    faults: list[Fault] = field(default_factory=list)
    matches: int = 0
    inputs_fed: int = 0
    accepted: int = 0
    lost: int = 0
    doubled: int = 0
    seq_reused: int = 0
    events_logged: int = 0
    events_missing_at_subscriber: int = 0
    match_seconds: float = 0.0
    wall_seconds: float = 0.0
    left_out: list[str] = field(default_factory=list)


@contextlib.contextmanager
def small_disk(root: Path, size: str = "64m") -> Iterator[bool]:
    root.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(root)],
                          capture_output=True, text=True)
    try:
        yield done.returncode == 0
    finally:
        if done.returncode == 0:
            subprocess.run(["umount", "-l", str(root)], check=False)


def reference_inputs(lines: list[dict[str, Any]], directory: Path) -> list[tuple[str, dict[str, Any]]]:
    """What an undisturbed service logs for these lines (each carries its `n`)."""
    log = EventLog(directory / "events.sqlite")
    service = TableService(SETTINGS, log=log, referee_factory=engine_referee)
    service.start(tick_interval=None)
    for line in lines:
        data = {k: v for k, v in line.items() if k not in ("kind", "t")}
        service.feed(Input(line["kind"], data, float(line["t"])))
    assert service.wait_processed(timeout=60)
    service.stop()
    entry = log.last_match()
    assert entry is not None and entry.finished, "the reference match did not finish"
    rows = [(i.kind, dict(i.data)) for i in log.inputs(entry.id)]
    log.close()
    return rows


class Soak:
    def __init__(self, root: Path, refs: Path, broker: Any, *, seed: int, minutes: float, every: float,
                 disk: bool, say: Callable[[str], None]) -> None:
        self.root, self.broker, self.say = root, broker, say
        self.rng = random.Random(seed)
        self.seed = seed
        self.minutes, self.every, self.disk = minutes, every, disk
        self.clock = ManualClock()
        self.health = Health(now=time.time)
        self.heard = Heard(self.health)
        self.lines: list[str] = []
        self.supervisor = Supervisor(health=self.health, say=self.lines.append,
                                     backoff=Backoff(first=0.05, longest=0.2))
        self.board = Scoreboard("emulator://", connect_timeout=5)
        watch_link(self.board, self.health)
        self.board.open()
        self.display = FlakyDisplay(ScoreboardDisplay(self.board, PLAYERS, self.clock))
        self.mqtt = None
        if broker is not None:
            self.mqtt = MqttSettings.from_url(broker.url, "soak", username="referee",
                                              password=broker.password, client_id="domino-referee-soak")
        self.generation = 0
        self.rig = self._rig(root / "data-0")
        self.crash = threading.Event()
        self.supervisor.spawn("tracker", self._tracker, policy=Policy.RESTART)
        self.report = Report(left_out=[] if disk else ["disk-full (no tmpfs could be mounted here)"])
        self.expect: dict[int, list[tuple[str, dict[str, Any]]]] = {}
        self.until: Callable[[], bool] | None = None   # a fault noticed only by a write
        self.refs = refs

    def _rig(self, data: Path) -> Rig:
        return Rig(data, self.clock, self.health, self.supervisor, self.display, self.mqtt)

    def _tracker(self, stop: threading.Event) -> None:
        """A supervised worker (standing in for the tracker) that fails when told to."""
        self.health.ok("tracker", "running")
        while not stop.is_set():
            if self.crash.wait(0.02):
                self.crash.clear()
                raise RuntimeError("tracker failed (injected)")

    # -- play ------------------------------------------------------------------------------------
    def run(self) -> Report:
        started = time.monotonic()
        subscriber = Subscriber(self.broker.url, "viewer", self.broker.viewer) if self.broker else None
        kinds = [k for k in KINDS if self.disk or k != "disk-full"]
        order: list[str] = []
        next_fault = self.clock.now + self.rng.expovariate(1 / (self.every * 60))
        played, end = 0.0, self.minutes * 60   # match time played (a clock jump is not play)
        match_seed, n = self.seed * 1000, 0
        repair: Callable[[], None] | None = None
        during = 0
        while played < end:
            match_seed += 1
            lines = table_script(_record(match_seed))
            for line in lines:
                n += 1
                line["n"] = n
            self.expect[match_seed] = reference_inputs(lines, Path(tempfile.mkdtemp(dir=self.refs)))
            previous_t = 0.0
            for line in lines:
                step = max(0.5, float(line["t"]) - previous_t)
                self.clock.now += step
                played += step
                previous_t = float(line["t"])
                data = {k: v for k, v in line.items() if k not in ("kind", "t")}
                self.rig.service.feed(Input(line["kind"], data, self.clock.now))
                self.report.inputs_fed += 1
                if repair is not None:
                    during += 1
                    if during >= INPUTS_DURING_FAULT and (during >= 50 or self._noticed()):
                        repair()
                        repair, self.until = None, None
                elif self.clock.now >= next_fault:
                    if not order:
                        order = self.rng.sample(kinds, len(kinds))
                    repair, during = self._inject(order.pop()), 0
                    next_fault = self.clock.now + self.rng.expovariate(1 / (self.every * 60))
            assert self.rig.service.wait_processed(timeout=60)
            self.report.matches += 1
        if repair is not None:
            repair()
        self.report.match_seconds = played
        self._count(subscriber)
        if subscriber is not None:
            subscriber.close()
        self.report.wall_seconds = time.monotonic() - started
        return self.report

    def _inject(self, kind: str) -> Callable[[], None]:
        """Inject a fault; returns its repair (called after a few more inputs went in meanwhile)."""
        fault = Fault(kind, self.clock.now - 10_000.0)
        self.report.faults.append(fault)
        assert self.rig.service.wait_processed(timeout=60)
        t0 = time.monotonic()
        rig = self.rig

        def reported(part: str | tuple[str, ...], states: tuple[State, ...]) -> None:
            fault.reported = _since(t0, self.heard.wait(part, states, t0))

        def recovered(part: str, start: float, states: tuple[State, ...] = (State.OK,)) -> None:
            fault.recovered = _since(start, self.heard.wait(part, states, start))
            self._said(fault)

        if kind == "disk-full":
            filler = fill(rig.data)
            reported(("disk", "eventlog"), (State.FAILED,))   # the disk watch, or a write that failed

            def repair() -> None:
                assert rig.service.wait_processed(timeout=60)
                t1 = time.monotonic()
                halted = bool(rig.service.halted)
                filler.unlink()
                self._tick(2.0)
                recovered("disk", t1)
                if halted:
                    ok = self.heard.wait("eventlog", (State.OK,), t1)
                    fault.recovered = max(fault.recovered or 0.0, _since(t1, ok) or 0.0)
            return repair
        if kind == "read-only":
            rig.log._db.execute("PRAGMA query_only = 1")
            self.until = lambda: bool(rig.service.halted)   # noticed at the next write: feed until then

            def repair() -> None:
                assert rig.service.wait_processed(timeout=60)
                reported("eventlog", (State.FAILED,))
                t1 = time.monotonic()
                rig.log._db.execute("PRAGMA query_only = 0")
                self._tick(2.0)
                recovered("eventlog", t1)
            return repair
        if kind == "kill":
            self.generation += 1
            target = self.root / f"data-{self.generation}"
            crash_copy(rig.data / "events.sqlite", target)
            rig.drop()
            self.rig = self._rig(target)
            shutil.rmtree(rig.data, ignore_errors=True)
            fault.reported = fault.recovered = time.monotonic() - t0
            fault.note = "(resumed)" if self.rig.resumed else "(between matches)"
            self._said(fault)
            return lambda: None
        if kind == "broker":
            self.broker.stop()
            reported("mqtt", (State.FAILED,))

            def repair() -> None:
                t1 = time.monotonic()
                self.broker.start()
                recovered("mqtt", t1)
            return repair
        if kind == "unplug":
            emulator = self.board.emulator
            assert emulator is not None
            emulator.unplug()
            reported("scoreboard", (State.FAILED,))

            def repair() -> None:
                t1 = time.monotonic()
                emulator.replug()
                recovered("scoreboard", t1)
            return repair
        if kind == "worker":
            self.crash.set()
            reported("tracker", (State.DEGRADED,))
            t1 = time.monotonic()
            recovered("tracker", t1)
            return lambda: None
        if kind == "output":
            self.display.broken = True

            def repair() -> None:
                assert rig.service.wait_processed(timeout=60)
                reported("display", (State.DEGRADED,))
                t1 = time.monotonic()
                self.display.broken = False
                self.rig.service.feed(Input(InputKind.SYNC, {}, self.clock.now))
                recovered("display", t1)
            return repair
        # clock-jump: an hour forward, then 5 s back; nothing is wrong, so nothing to report
        self._tick(3600.0)
        self._tick(-5.0)
        fault.note = "(nothing to report: match time never runs backwards)"
        self._said(fault)
        return lambda: None

    def _noticed(self) -> bool:
        if self.until is None:
            return True
        assert self.rig.service.wait_processed(timeout=60)
        return self.until()

    def _tick(self, seconds: float) -> None:
        self.clock.now += seconds
        self.rig.service.feed(Input(InputKind.TICK, {}, self.clock.now))
        assert self.rig.service.wait_processed(timeout=60)

    def _said(self, fault: Fault) -> None:
        self.say(f"fault {len(self.report.faults):>3} {fault.kind:<10} at {fault.at:7.0f} s: reported "
                 f"{_fmt(fault.reported)}, recovered {_fmt(fault.recovered)} {fault.note}")

    # -- counting --------------------------------------------------------------------------------
    def _count(self, subscriber: Subscriber | None) -> None:
        rig = self.rig
        assert rig.service.wait_processed(timeout=60)
        if rig.link is not None:
            rig.link.flush(30)
        got: dict[int, list[dict[str, Any]]] = defaultdict(list)   # n -> logged copies
        entry = rig.log.last_match()
        for match in range(1, (entry.id if entry else 0) + 1):
            for kind, data in [(i.kind, dict(i.data)) for i in rig.log.inputs(match)]:
                got[int(data.get("n", -1))].append({"kind": kind, **data})
        want = [row for rows in self.expect.values() for row in rows]
        self.report.accepted = len(want)
        wanted_n = {int(data["n"]) for _, data in want}
        self.report.lost = sum(1 for n in wanted_n if n not in got)
        self.report.doubled = sum(len(copies) - 1 for copies in got.values() if len(copies) > 1)
        events = rig.log.events()
        self.report.events_logged = len(events)
        if subscriber is not None:
            seqs = {int(event["seq"]) for event in events}
            subscriber.wait_for(seqs, 30)
            self.report.seq_reused = sum(1 for payloads in subscriber.received.values() if len(payloads) > 1)
            self.report.events_missing_at_subscriber = len(seqs - set(subscriber.received))
        rig.drop()
        self.board.close()
        self.supervisor.stop()


def _record(seed: int) -> dict[str, Any]:
    from referee.players import find_strategy
    from referee.rules import find_rules
    from referee.simulate import simulate_match

    rules = find_rules(RULES)({"hands": 2})
    strategies = [find_strategy("greedy" if seat % 2 == 0 else "random") for seat in range(len(PLAYERS))]
    _, record = simulate_match(rules, list(PLAYERS), strategies, random.Random(seed))
    assert record is not None
    return record


def _since(start: float, at: float | None) -> float | None:
    return None if at is None else max(0.0, at - start)


def _fmt(seconds: float | None) -> str:
    return "  —   " if seconds is None else f"{seconds:5.2f} s"


def summary(report: Report) -> str:
    by_kind: dict[str, list[Fault]] = defaultdict(list)
    for fault in report.faults:
        by_kind[fault.kind].append(fault)
    reported = [f for f in report.faults if f.kind != "clock-jump"]
    late = [f for f in reported if f.reported is None or f.reported > REPORT_LIMIT]
    lines = [
        f"{report.match_seconds / 60:.0f} min of match time ({report.matches} matches, "
        f"{report.inputs_fed} inputs fed) in {report.wall_seconds:.0f} s of wall time: "
        f"{report.match_seconds / report.wall_seconds:.0f}x",
        f"{len(report.faults)} faults of {len(by_kind)} kinds; {len(reported) - len(late)} of "
        f"{len(reported)} reported within {REPORT_LIMIT:g} s",
        f"inputs accepted {report.accepted}: lost {report.lost}, doubled {report.doubled}; "
        f"seq reused {report.seq_reused}; events {report.events_logged}, "
        f"missing at the subscriber {report.events_missing_at_subscriber}",
        "", "| kind | faults | reported (median / max) | recovered (median / max) |", "|---|---|---|---|"]
    for kind in KINDS:
        faults = by_kind.get(kind, [])
        if not faults:
            continue
        rep = [f.reported for f in faults if f.reported is not None]
        rec = [f.recovered for f in faults if f.recovered is not None]
        lines.append(f"| {kind} | {len(faults)} | {_pair(rep)} | {_pair(rec)} |")
    lines += [f"left out: {what}" for what in report.left_out]
    return "\n".join(lines)


def _pair(values: list[float]) -> str:
    return "—" if not values else f"{statistics.median(values):.2f} / {max(values):.2f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=60.0, help="match time to play (default 60)")
    parser.add_argument("--every", type=float, default=2.0, help="mean minutes between faults (default 2)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    report = soak(minutes=args.minutes, every=args.every, seed=args.seed, say=print)
    print(summary(report))
    bad = report.lost or report.doubled or report.seq_reused or report.events_missing_at_subscriber
    return 1 if bad else 0


def soak(*, minutes: float, every: float, seed: int, say: Callable[[str], None]) -> Report:
    from tests.referee.app.conftest import USERS, Broker

    with tempfile.TemporaryDirectory(prefix="soak-") as scratch, small_disk(Path(scratch) / "disk") as disk:
        root = Path(scratch) / "disk"
        refs = Path(scratch) / "refs"
        refs.mkdir()
        broker_dir = Path(scratch) / "broker"
        broker_dir.mkdir()
        broker = Broker(broker_dir)
        broker.start()
        broker.password = USERS["referee"]  # type: ignore[attr-defined]
        broker.viewer = USERS["viewer"]     # type: ignore[attr-defined]
        try:
            return Soak(root, refs, broker, seed=seed, minutes=minutes, every=every, disk=disk, say=say).run()
        finally:
            broker.stop()


if __name__ == "__main__":
    sys.exit(main())
