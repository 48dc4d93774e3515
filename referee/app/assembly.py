"""Assembling a table from its configuration: the service, its devices and its broker link.

`Table` owns the threads through its `Supervisor`: the consumer, the ticker, the disk watch, the
health reminders and every worker (the camera, a script of inputs) run under it; callback devices
(scoreboard and GPIO buttons) feed from their libraries' threads, the MQTT network loop is paho's.
The devices the configuration asks for are built by `referee.app.hardware.hardware_parts`; every
part is passed in explicitly (displays, signals, devices, workers), so tests and the demo swap any
of them. One `Health` is shared by all of them: every change is one log line.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.app.config import Config
from referee.app.core import MatchSettings, RefereeFactory
from referee.app.eventlog import EventLog
from referee.app.health import Health, log_lines
from referee.app.mqtt import MqttLink, MqttSettings
from referee.app.ports import BoardView, Device, Display, Feed, Publisher, Signals
from referee.app.service import BarCheck, TableService
from referee.app.supervisor import Policy, Supervisor, Worker, say_on_stderr
from referee.club.ledger import LEDGER_FILE, Ledger
from referee.fields import validate_section
from referee.referee import Referee
from referee.rules import validate_options
from referee.table.clocks import CLOCK_FIELDS, clock_from_config
from referee.table.observer import TableObserver
from referee.table.tableside import TableSide

if TYPE_CHECKING:   # the web part is imported only when a table serves its pages
    from referee.app.web import WebServer
    from referee.app.web.club import ClubWatcher


def engine_referee(settings: MatchSettings) -> tuple[Referee, TableSide]:
    """The rules engine for a real table (table knowledge: the referee sees only the table), with
    the table side (move clock, stepping away, leaving and substitutes) attached as its observer."""
    teams = [list(team) for team in settings.teams] or None
    options = validate_options(settings.rules, dict(settings.options))
    section = validate_section(CLOCK_FIELDS, dict(settings.clock), "clock.")
    policy = clock_from_config(section, settings.rules)
    side = TableSide(settings.rules, list(settings.players), options, policy)
    referee = Referee(settings.rules, list(settings.players), options=options, teams=teams,
                      knowledge="table", observers=[TableObserver(side)])
    return referee, side


class FanOutDisplay:
    def __init__(self, displays: list[Display]) -> None:
        self.displays = displays

    def show(self, view: BoardView) -> None:
        for display in self.displays:
            display.show(view)

    def sync(self, view: BoardView) -> None:
        for display in self.displays:
            display.sync(view)


class FanOutPublisher:
    """The service's one publisher, handing state and events to the broker link and the web."""

    def __init__(self, publishers: list[Publisher]) -> None:
        self.publishers = publishers

    def publish_state(self, document: Mapping[str, Any]) -> None:
        for publisher in self.publishers:
            publisher.publish_state(document)

    def publish_event(self, seq: int, payload: str) -> None:
        for publisher in self.publishers:
            publisher.publish_event(seq, payload)

    def publish_error(self, message: str, received: str = "") -> None:
        for publisher in self.publishers:
            publisher.publish_error(message, received)


class FanOutSignals:
    def __init__(self, signals: list[Signals]) -> None:
        self.signals = signals

    def signal(self, name: str) -> None:
        for target in self.signals:
            target.signal(name)


@dataclass
class Table:
    """A running table: `start` resumes or waits for Start, `stop` closes everything in order."""

    service: TableService
    link: MqttLink | None = None
    devices: list[Device] = field(default_factory=list)
    closers: list[Callable[[], None]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    resumed: bool = False
    health: Health = field(default_factory=Health)
    web: WebServer | None = None       # the web pages, when [web] is enabled
    club: ClubWatcher | None = None    # the club page's broker watcher, when [mqtt] is enabled too
    workers: list[Worker] = field(default_factory=list)   # supervised loops (camera, script)
    supervisor: Supervisor | None = None

    def start(self, tick_interval: float | None = 0.1) -> None:
        self.resumed = self.service.resume()
        if not self.resumed:
            self.service.publish_idle()
        if self.link is not None:
            self.link.start()
        self.service.start(tick_interval)
        for device in self.devices:
            device.start(self.service.feed)
        for worker in self.workers:
            self._spawn(worker)
        # The web comes last: the referee is already at work while aiohttp loads and binds.
        if self.web is not None:
            try:
                self.web.start()
            except OSError as error:   # a taken port costs the web pages, never the referee
                self.notes.append(f"{error}; the table runs without its web pages")
                self.web = None
                self.health.failed("web", str(error))
            else:
                self.health.ok("web", self.web.url)
        if self.club is not None:
            self.club.start()

    def _spawn(self, worker: Worker) -> None:
        feed = self.service.feed
        if self.supervisor is None:
            stop = threading.Event()
            self.closers.insert(0, stop.set)
            threading.Thread(target=worker.run, args=(feed, stop), name=worker.name, daemon=True).start()
            return
        self.supervisor.spawn(worker.name, lambda stop: worker.run(feed, stop), policy=worker.policy,
                              part=worker.part, context=worker.doing)

    def stop(self) -> None:
        for device in self.devices:
            device.stop()
        if self.supervisor is not None:
            self.supervisor.stopping.set()   # workers see it and end; the consumer drains first
        self.service.stop()
        if self.web is not None:
            self.web.stop()
        if self.club is not None:
            self.club.stop()
        if self.link is not None:
            self.link.stop()
        for close in self.closers:
            close()
        if self.supervisor is not None:
            self.supervisor.stop()
        self.service.log.close()


def build_table(config: Config, *, referee_factory: RefereeFactory = engine_referee,
                displays: list[Display] | None = None, signals: list[Signals] | None = None,
                devices: list[Device] | None = None, data_dir: Path | None = None,
                now: Callable[[], float] = time.monotonic, mqtt: bool | None = None,
                web: bool | None = None, health: Health | None = None,
                workers: list[Worker] | None = None, supervisor: Supervisor | None = None,
                new_log: bool = False, say: Callable[[str], None] | None = None) -> Table:
    """A `Table` from a validated `Config`; the keyword arguments add or replace parts.

    `say` writes the table's log lines (health changes, reminders, workers' failures; default
    stderr); `new_log` starts a new event log beside a damaged one (see `EventLog`)."""
    settings = MatchSettings.from_config(config)
    data = Path(data_dir or config["storage"]["data_dir"])
    health = health or Health()
    line = say or say_on_stderr
    log = EventLog(data / "events.sqlite", new_log=new_log, table_id=settings.table_id)
    health.ok("eventlog", f"{log.path.name} checked")
    health.subscribe(log_lines(line))
    supervisor = supervisor or Supervisor(health=health, say=line)
    service = TableService(settings, log=log, referee_factory=referee_factory,
                           display=FanOutDisplay(list(displays or [])),
                           signals=FanOutSignals(list(signals or [])), now=now, records_dir=data / "records",
                           bar_check=ledger_bar_check(data), health=health, supervisor=supervisor)
    table = Table(service, devices=list(devices or []), health=health, workers=list(workers or []),
                  supervisor=supervisor, notes=list(log.notes))
    publishers: list[Publisher] = []
    if config["mqtt"]["enabled"] if mqtt is None else mqtt:
        link = MqttLink(MqttSettings.from_config(config), on_command=service.command, outbox=log,
                        health=table.health)
        publishers.append(link)
        table.link = link
        if config["homeassistant"]["discovery"]:
            from referee.app.homeassistant import HomeAssistantDiscovery

            HomeAssistantDiscovery(link, settings.players, prefix=config["homeassistant"]["prefix"]).attach()
    if config["web"]["enabled"] if web is None else web:
        publishers.append(web_parts(table, config, table.health))
    service.publisher = publishers[0] if len(publishers) == 1 else (
        FanOutPublisher(publishers) if publishers else None)
    return table


def ledger_bar_check(data_dir: Path, *, wall: Callable[[], float] = time.time) -> BarCheck:
    """Start asks the club ledger in the data directory (if there is one) who is barred now.

    A ledger that cannot be read raises `LedgerError`: Start then says the bars were not checked
    and the match begins (the bars are the ledger's; the match is the players')."""
    def check(players: Sequence[str]) -> dict[str, float]:
        path = data_dir / LEDGER_FILE
        if not path.exists():
            return {}
        with Ledger(path) as ledger:
            return ledger.barred(players, wall())
    return check


def web_parts(table: Table, config: Config, health: Health) -> Publisher:
    """The web server for `table` (and the club page's broker watcher when MQTT is on); its hub."""
    from referee.app.web import Hub, WebServer
    from referee.app.web.frames import FrameTap

    hub = Hub()
    hub.seed(table.service.log.events())   # a restarted table's earlier events (the last ones kept)
    section = config["web"]
    if table.link is not None:
        from referee.app.web.club import ClubWatcher

        table.club = ClubWatcher(table.link.settings, on_change=hub.publish_raw)
    table.web = WebServer(hub, service=table.service, host=section["host"], port=section["port"],
                          pin=section["pin"], token=section["token"], health=health, club=table.club,
                          frames=FrameTap())
    from referee.app.camera import CameraDevice

    for device in [*table.devices, *table.workers]:
        if isinstance(device, CameraDevice):   # the manager's page shows what the camera saw
            device.on_frame = table.web.frames.offer
    return hub


def print_line(text: str) -> None:
    """One line on stdout, flushed at once (progress lines are read by other programs)."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


class ScriptDevice:
    """`run --inputs FILE`: a script of inputs as a device or a supervised `Worker` (see
    `referee.app.sources`). Not restarted when it fails: it would feed its lines again."""

    name = "script"
    part = "script"
    policy = Policy.STOP

    def __init__(self, path: str, now: Callable[[], float], *, skip_through: int = 0,
                 interval: float = 0.0, on_error: Callable[[str], None] | None = None) -> None:
        self.path = path
        self.now = now
        self.skip_through = skip_through
        self.interval = interval
        self.on_error = on_error
        self.finished = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, feed: Feed) -> None:
        self._thread = threading.Thread(target=self._run, args=(feed,), name="script", daemon=True)
        self._thread.start()

    def doing(self) -> str:
        return f"reading {self.path}"

    def run(self, feed: Feed, stop: threading.Event) -> None:
        self._stop = stop
        self._run(feed)

    def _run(self, feed: Feed) -> None:
        from referee.app.sources import run_script

        try:
            if self.path == "-":
                run_script(sys.stdin, feed, self.now, skip_through=self.skip_through, interval=self.interval,
                           stop=self._stop, on_error=self.on_error)
            else:
                with open(self.path, encoding="utf-8") as lines:
                    run_script(lines, feed, self.now, skip_through=self.skip_through,
                               interval=self.interval, stop=self._stop, on_error=self.on_error)
        finally:
            self.finished.set()

    def stop(self) -> None:
        self._stop.set()
