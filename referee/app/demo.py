"""`domino-referee demo`: a whole refereed match on simulated hardware, with nothing to set up.

Engine players play a match (full knowledge, seeded). Their moves are filmed by the synthetic
table renderer (`vision.synth.film.GameFilm`: hands carry tiles in, draw from the boneyard, reveal at
the hand's end); each frame goes through vision and the stable-frame tracker, whose observations
are the service's only view of the tiles. Start, Pass and the leader's seat button are pressed on
the emulated scoreboard, whose display is drawn in the terminal. The service referees with table
knowledge, exactly as on a real table, and writes the game record; at the end the demo checks the
referee's result against the engine's own replay of the moves.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import shutil
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.app.assembly import Table, build_table
from referee.app.camera import VisionReport
from referee.app.config import ENV_PREFIX, Config, load_config, parse_config
from referee.app.devices import ScoreboardDisplay
from referee.app.logcheck import remove_log
from referee.app.ports import Input, InputKind
from referee.app.script import table_script
from referee.errors import DominoError
from referee.rules import find_rules

if TYPE_CHECKING:   # pyserial loads with the board, only when the demo runs
    from firmware_bridge.scoreboard import Scoreboard

DEMO_CONFIG = Path(__file__).resolve().parents[2] / "config" / "examples" / "demo.toml"
NAMES = ("Ayşe", "Burak", "Cem", "Deniz")


class DemoError(DominoError, ValueError):
    """A demo option that cannot work (say, a target the rule set does not allow)."""


class FilmClock:
    """The demo's clock: the film's time, so the referee sees the match at the film's pace.
    Start is pressed at `START`, so match time is film time."""

    START = 1000.0

    def __init__(self) -> None:
        self.t = self.START

    def __call__(self) -> float:
        return self.t


def options_set_by(path: Path | str | None) -> set[str]:
    """The rule options a configuration file (or its environment override) names itself, as
    opposed to those it leaves at the rule set's defaults."""
    import os
    import tomllib

    named: set[str] = set()
    if path is not None:
        with open(path, "rb") as file:
            options = tomllib.load(file).get("table", {}).get("options", {})
        named = set(options) if isinstance(options, dict) else set()
    override = os.environ.get(f"{ENV_PREFIX}TABLE__OPTIONS")
    if override is not None:
        try:
            value = tomllib.loads(f"v = {override}")["v"]
        except tomllib.TOMLDecodeError:
            value = None
        named = set(value) if isinstance(value, dict) else named
    return named


def demo_config(args: argparse.Namespace) -> Config:
    """The demo's table: demo.toml (or --config) with the command line's overrides.

    The match length is, by precedence: `--hands`/`--target`, the file's `[table.options]`, then
    the rule set's short match (`RuleSet.short_match_options`)."""
    path = args.config or (DEMO_CONFIG if DEMO_CONFIG.exists() else None)
    base = load_config(path) if path else parse_config({"table": {"id": "demo"}})
    data = base.as_dict(reveal_secrets=True)
    table = data["table"]
    rules = args.rules or table["rules"]
    rule_set = find_rules(rules)
    count = args.players or (len(table["players"]) if rules == table["rules"]
                             else rule_set.short_match_players)
    if rules != table["rules"] or args.players:
        table["players"] = list(NAMES[:count])
        table["teams"] = []
        table["options"] = {}
    table["rules"] = rules
    same_rules = rules == base["table"]["rules"]
    options = dict(table["options"]) if same_rules else {}
    # A demo match is kept short unless the file says otherwise: one hand of turkish, small targets.
    named = options_set_by(path) if same_rules and not args.players else set()
    options.update({key: value for key, value in rule_set.short_match_options.items() if key not in named})
    for option, given in (("hands", args.hands), ("target", args.target)):
        if given is None:
            continue
        if rule_set.length_option != option:
            raise DemoError(f"--{option} is not for {rules}: it plays --{rule_set.length_option}")
        options[option] = given
    table["options"] = options
    data["scoreboard"]["enabled"] = True
    data["gpio"]["enabled"] = False
    data["storage"]["data_dir"] = str(args.out)
    web = data["web"]
    if web["enabled"] and web["port"] and not port_free(str(web["host"]), int(web["port"])):
        web["port"] = 0   # another demo (or program) has the port: the demo's pages take any free one
    clean = {section: {k: v for k, v in values.items() if v is not None} for section, values in data.items()}
    return parse_config(clean, source=args.config or "demo", environ={})


def port_free(host: str, port: int) -> bool:
    """Whether a server could listen on `host`:`port` now."""
    import socket

    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def simulated_match(config: Config, seed: int) -> dict[str, Any]:
    from referee.players import find_strategy
    from referee.simulate import simulate_match

    table = config["table"]
    rules = find_rules(table["rules"])(dict(config.rule_options))
    names = list(table["players"])
    strategies = [find_strategy("greedy") for _ in names]
    _, record = simulate_match(rules, names, strategies, random.Random(seed),
                               [list(team) for team in table["teams"]] or None)
    assert record is not None
    return record


class Driver:
    """Feeds the table and waits for each input to be handled (no sleeping: a condition variable)."""

    def __init__(self, table: Table, board: Scoreboard, clock: FilmClock, *, speed: float,
                 show: Callable[[], None]) -> None:
        self.table = table
        self.service = table.service
        self.board = board
        self.clock = clock
        self.speed = speed
        self.show = show
        self._handled: list[str] = []
        self._changed = threading.Condition()
        self._pause = threading.Event()
        self.on_frame: Callable[[Any, Any], object] | None = None   # every filmed frame (the web's)
        self.service.on_processed = self._processed
        # Moves are numbered; inputs carry their move, so a resumed demo skips the moves the log
        # already holds (`skip_through`) while it films them again to rebuild the picture.
        self.move = 0
        self.skip_through = 0
        adapter = next((d for d in table.devices if hasattr(d, "context")), None)
        if adapter is not None:
            adapter.context = lambda: {"move": self.move}

    def next_move(self) -> bool:
        """Start the next move; False while replaying moves already in the log."""
        self.move += 1
        return self.move > self.skip_through

    def _processed(self, inp: Input, logged: bool) -> None:
        with self._changed:
            self._handled.append(inp.kind)
            self._changed.notify_all()

    def advance(self, t: float) -> None:
        """Move the film clock to `t`; with --speed, let that much real time pass too."""
        if self.speed > 0 and t > self.clock.t:
            self._pause.wait((t - self.clock.t) / self.speed)
        self.clock.t = max(self.clock.t, t)

    def press(self, button: str, kind: str) -> None:
        """Press a button on the emulated scoreboard and wait until the referee handled it."""
        emulator = self.board.emulator
        if emulator is None:
            raise DemoError(f"the demo's scoreboard has no emulated buttons to press {button!r} on")
        with self._changed:
            before = self._handled.count(kind)
        emulator.press(button)
        with self._changed:
            if not self._changed.wait_for(lambda: self._handled.count(kind) > before, 10):
                raise DemoError(f"the scoreboard's {button} button was not handled within 10 s")
        self.show()

    def fits(self, tile: str) -> int:
        """How many ends `tile` fits now (asked between moves, while the consumer is idle)."""
        core = self.service.core
        return 0 if core is None else len(core.referee.legal_ends(tile))

    def feed(self, kind: InputKind, data: dict[str, Any]) -> None:
        data = {**data, "move": self.move}
        self.service.wait_processed(self.service.feed(Input(kind, data, self.clock(), origin="camera")), 30)


def play_without_vision(driver: Driver, record: dict[str, Any], players: list[str]) -> None:
    """The camera-less path: the table inputs a perfect camera would report, fed directly."""
    for line in table_script(record)[1:]:
        if not driver.next_move():
            continue
        driver.advance(FilmClock.START + float(line["t"]))
        kind = line["kind"]
        data = {k: v for k, v in line.items() if k not in ("kind", "t")}
        if kind == "pass":
            driver.press("pass", "pass")
        elif kind == "lead":
            driver.press(f"done-{players.index(data['player'])}", "lead")
        else:
            driver.feed(kind, data)
            if kind != "removed":
                driver.show()
        if driver.service.match_over.is_set():
            break


@dataclass
class DemoResult:
    """How a demo match went: the referee's scores, the engine's own replay's, and what vision did."""

    scores: dict[str, float]
    expected: dict[str, float]
    finished: bool
    board_scores: tuple[int, ...]
    records: list[Path]
    notes: list[str] = field(default_factory=list)
    vision: Any = None
    summary: list[str] = field(default_factory=list)

    @property
    def agree(self) -> bool:
        return self.finished and self.scores == self.expected


def run_demo_from_args(args: argparse.Namespace) -> int:
    config = demo_config(args)
    linger = None
    if getattr(args, "linger", False):
        def linger(table: Table) -> None:
            if table.web is not None:
                sys.stdout.write(f"the match is over; the web pages ({table.web.url}/) stay up "
                                 "until Ctrl-C\n")
                sys.stdout.flush()
                with contextlib.suppress(KeyboardInterrupt):
                    threading.Event().wait()
    result = run_demo(config, seed=args.seed, out=Path(args.out), vision=not args.no_vision,
                      video=args.video, speed=args.speed, quiet=args.quiet, resume=args.resume,
                      linger=linger)
    sys.stdout.write("\n".join(result.summary) + "\n")
    return 0 if result.agree else 1


def run_demo(config: Config, *, seed: int, out: Path, vision: bool = True, video: str | None = None,
             speed: float = 0.0, quiet: bool = True, resume: bool = False,
             on_step: Callable[[Table], None] | None = None,
             linger: Callable[[Table], None] | None = None) -> DemoResult:
    """Play, film, read and referee one match; see the module docstring.

    With `resume`, an interrupted demo in `out` goes on where its event log stops (same seed).
    `on_step(table)` runs after every input the demo fed (the web tests compare the overlay with
    the referee's state there); `linger(table)` runs after the match, before the table stops
    (``--linger``: the pages stay up)."""
    from firmware_bridge.scoreboard import Scoreboard
    from firmware_bridge.terminal import render

    clock = FilmClock()
    skip = _resume_point(out, clock) if resume else None
    if skip is None:
        remove_log(out / "events.sqlite")  # a fresh demo starts a fresh log
        shutil.rmtree(out / "records", ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    record = simulated_match(config, seed)
    players = list(config["table"]["players"])
    board = Scoreboard("emulator://", connect_timeout=5).open()
    adapter = ScoreboardDisplay(board, tuple(players), clock)
    table = build_table(config, displays=[adapter], signals=[adapter], devices=[adapter], data_dir=out,
                        now=clock)
    tty = sys.stdout.isatty() and not quiet
    last: list[str] = []
    pages: list[str] = []

    def show() -> None:
        if on_step is not None:
            on_step(table)
        if quiet or board.emulator is None:
            return
        text = render(board.emulator.cells(), board.emulator.board.state,
                      board.emulator.beeps[-1] if board.emulator.beeps else None, compact=not tty)
        core = table.service.core
        message = f"  {core.message}" if core is not None and core.message else ""
        if tty:
            sys.stdout.write("\x1b[H\x1b[2J" + "".join(line + "\n" for line in pages) + text + "\n"
                             + message + "\n")
        elif text != (last[-1] if last else ""):
            sys.stdout.write(text + message + "\n")
        last[:] = [text]
        sys.stdout.flush()

    notes: list[str] = []
    report = None
    try:
        table.start(tick_interval=None)
        for note in table.notes:
            notes.append(note)
        pages[:] = web_pages(table, config, watchable=speed > 0 or linger is not None)
        if not quiet:
            sys.stdout.write("".join(line + "\n" for line in pages))
            sys.stdout.flush()
        driver = Driver(table, board, clock, speed=speed, show=show)
        if table.web is not None:
            driver.on_frame = table.web.frames.offer
        if table.resumed and skip is not None:
            driver.skip_through = skip
            notes.append(f"resumed the interrupted match after move {skip}")
        else:
            driver.press("start", "start")
        if vision:
            try:
                from referee.app.camera import play_through_vision
            except ImportError as error:
                notes.append(f"vision: the tracker is not available in this installation ({error}); "
                             "the camera's observations were fed directly")
            else:
                report = play_through_vision(driver, record, players, config, video=video, seed=seed)
                notes += _vision_notes(report, video)
        if report is None:
            play_without_vision(driver, record, players)
            if video:
                notes.append("--video needs the vision path; no video written")
        result = _finish(table, board, record, out, notes, show, report)
        if linger is not None:
            linger(table)
        return result
    finally:
        table.stop()
        board.close()


def web_pages(table: Table, config: Config, *, watchable: bool = True) -> list[str]:
    """The lines naming the demo's web pages (empty when the web server is off); unless the match
    is `watchable` (played in real time, or the pages stay up after it), how to watch it."""
    if table.web is None:
        return []
    urls = table.web.urls()
    pin = config["web"]["pin"]
    lines = [f"overlay (OBS browser source): {urls['overlay']}",
             f"manager's page: {urls['table']}" + (f" (PIN {pin})" if pin else " (set [web] pin to command)"),
             f"club page: {urls['club']}    API: {urls['api']}"]
    if not watchable:
        lines.append("to watch the overlay follow the match: domino-referee demo --speed 1 --linger")
    return lines


def _resume_point(out: Path, clock: FilmClock) -> int | None:
    """The last move the log of an unfinished demo match holds (and set the film clock to it)."""
    from referee.app.eventlog import EventLog

    if not (out / "events.sqlite").exists():
        return None
    log = EventLog(out / "events.sqlite")
    try:
        entry = log.last_match()
        if entry is None or entry.finished:
            return None
        inputs = log.inputs(entry.id)
        clock.t = FilmClock.START + (inputs[-1].t if inputs else 0.0)
        return max((int(i.data["move"]) for i in inputs if isinstance(i.data.get("move"), int)), default=0)
    finally:
        log.close()


def _vision_notes(report: VisionReport, video: str | None) -> list[str]:
    moves = report.read + len(report.corrected)
    notes = [f"vision: read {report.read} of {moves} filmed moves right "
             f"({report.frames} frames in {report.seconds:.0f} s)"]
    notes += [f"  corrected by the table manager: {c}" for c in report.corrected[:5]]
    if len(report.corrected) > 5:
        notes.append(f"  ... and {len(report.corrected) - 5} more corrections")
    if report.unfilmed:
        notes.append(f"the renderer could not film {len(report.unfilmed)} move(s), first: "
                     f"{report.unfilmed[0]} (fed as they truly were)")
    if report.failures:
        notes.append(f"vision raised on {len(report.failures)} frame(s), first: {report.failures[0]}")
    if video:
        notes.append(f"video: {video}")
    return notes


def _finish(table: Table, board: Scoreboard, record: dict[str, Any], out: Path, notes: list[str],
            show: Callable[[], None], report: VisionReport | None) -> DemoResult:
    from referee.record import replay_with_referee

    service = table.service
    core = service.core
    assert core is not None
    referee, _ = replay_with_referee(record)
    snap = referee.snapshot()
    expected = {k: float(v) for k, v in (snap.get("scores") or snap.get("penalties") or {}).items()}
    got = core.scores()
    final = tuple(max(-999, min(9999, round(v))) for v in got.values())
    shown: tuple[int, ...] = ()
    if board.emulator is not None:
        board.emulator.wait_for(lambda model: tuple(model.state.scores) == final, 5)
        shown = tuple(board.emulator.board.state.scores)
    show()
    result = core.snapshot().get("match") or {}
    kind = "penalties" if "penalties" in core.snapshot() else "scores"
    outcome = DemoResult(got, expected, service.match_over.is_set(), shown, list(service.records), notes,
                         report)
    lines = [f"{service.settings.rules}: {', '.join(f'{k} {v:g}' for k, v in got.items())} ({kind})",
             f"winner: {', '.join(result.get('winners') or []) or 'none'}"
             f" after {result.get('hands_played', '?')} hand(s)"]
    lines += [f"record: {path}" for path in service.records]
    lines.append(f"event log: {out / 'events.sqlite'}")
    lines.append("the referee agrees with the engine's replay of the same moves" if outcome.agree else
                 f"MISMATCH: the engine's replay says {json.dumps(expected, ensure_ascii=False)}")
    lines += [f"note: {note}" for note in notes]
    outcome.summary = lines
    return outcome
