"""`TableService`: the queue, the single consumer, the log-before-act discipline and the outputs.

When the event log cannot be written (disk full, read-only, an I/O error) the match stops where it
is, visibly: the error tone, the scoreboard's message line (``eventlog FAIL``), the health failed,
one line on ``cmd/errors``. Every input that arrives meanwhile is kept in memory in arrival order
(at most `HOLD_LIMIT`; beyond that an input is refused out loud, never dropped silently) and none
is acted on before it is logged. The service tries the log again every `RETRY_SECONDS` (and on every
input); once a write succeeds it logs and acts on the kept inputs in order and the match goes on.
Match time stands still while the match is stopped, so nobody's clock runs out meanwhile.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import Any

from referee.app.core import MatchSettings, Outcome, RefereeFactory, TableCore, jsonable
from referee.app.eventlog import EventLog, LogWriteError
from referee.app.health import Health, PartHealth, State
from referee.app.intake import COMMANDS, Command, CommandError, check_players
from referee.app.ports import (
    BoardView,
    Display,
    Input,
    InputKind,
    NullDisplay,
    NullSignals,
    Publisher,
    Signals,
)
from referee.app.supervisor import Policy, Supervisor
from referee.errors import DominoError

# The players among those given who may not be seated now, each with the end of their bar
# (wall-clock seconds): the club ledger's habitual-leaver bars (`Ledger.barred`).
BarCheck = Callable[[Sequence[str]], Mapping[str, float]]


def describe_bars(barred: Mapping[str, float]) -> str:
    """`Cem is barred until 2026-12-01 22:15 (habitual leaver): no match starts`."""
    names = "; ".join(f"{name} is barred until {time.strftime('%Y-%m-%d %H:%M', time.localtime(until))}"
                      for name, until in sorted(barred.items()))
    return f"{names} (habitual leaver): no match starts"

# Inputs kept in memory while the event log cannot be written (a whole match is a few hundred).
HOLD_LIMIT = 10_000
# How often a stopped match tries the event log again (seconds of the injected clock).
RETRY_SECONDS = 1.0
# The data directory's free space below which the disk is reported failed before a write fails
# (a match's log and its write-ahead log take a few MB), and how often it is looked at (seconds).
LOW_SPACE_BYTES = 4 * 1024 * 1024
DISK_CHECK_SECONDS = 1.0
# Inputs that only ask the consumer to look again; never logged, never kept while stopped.
CONTROL_KINDS = ("tick", "sync", "health", "call")


# Parts that serve people away from the table (dashboards, overlays, automation): their trouble
# shows on the scoreboard only while the match has nothing to say, like a degraded part's.
OFF_TABLE_PARTS = frozenset({"mqtt", "web"})


def board_health(part: PartHealth) -> str:
    """A part's trouble as the 16-character message line can show it: ``camera FAIL``."""
    return f"{part.part} {'FAIL' if part.state == State.FAILED else 'WARN'}"


class TableService:
    """Runs one table. Devices call `feed` from any thread; `run` (one thread) does everything else."""

    def __init__(self, settings: MatchSettings, *, log: EventLog, referee_factory: RefereeFactory,
                 display: Display | None = None,
                 signals: Signals | None = None, publisher: Publisher | None = None,
                 now: Callable[[], float] = time.monotonic, records_dir: Path | None = None,
                 bar_check: BarCheck | None = None, health: Health | None = None,
                 supervisor: Supervisor | None = None, hold_limit: int = HOLD_LIMIT) -> None:
        self.settings = settings
        self.log = log
        self.referee_factory = referee_factory
        self.display: Display = display or NullDisplay()
        self.signals: Signals = signals or NullSignals()
        self.publisher = publisher
        self.now = now
        self.records_dir = records_dir
        self.bar_check = bar_check
        self.core: TableCore | None = None
        self.match_id = 0
        self.origin = 0.0
        self.records: list[Path] = []
        self._queue: queue.Queue[Input] = queue.Queue()
        self._fed = 0
        self._done = 0
        self._progress = threading.Condition()
        self._thread: threading.Thread | None = None
        self._ticker: threading.Thread | None = None
        self._stopping = threading.Event()
        self.match_over = threading.Event()
        self.on_processed: Callable[[Input, bool], None] | None = None
        self.health = health or Health()
        self.supervisor = supervisor
        self.hold_limit = hold_limit
        self.current: Input | None = None        # what the consumer is handling (for the supervisor)
        self.halted: str = ""                     # why the match is stopped ("" while it runs)
        self.held: deque[Input] = deque()         # inputs kept while the log cannot be written
        self._owed: list[Callable[[], None]] = []  # log writes to finish before the kept inputs
        self._halted_at = 0.0
        self._last_retry = 0.0
        self._failing: set[str] = set()           # outputs that failed and have not worked since
        self.health.subscribe(self._health_changed)
        log.on_problem = self._log_problem

    # -- feeding -------------------------------------------------------------------------------
    def feed(self, inp: Input) -> int:
        """Queue one input (any thread); returns its number for `wait_processed`. A health change
        is no input of the table's: it is not numbered (nobody waits for the board to redraw)."""
        with self._progress:
            if inp.kind != InputKind.HEALTH:
                self._fed += 1
            number = self._fed
        self._queue.put(inp)
        return number

    def command(self, command: Command) -> int:
        """Queue a command checked by `parse_command`; returns its number for `wait_processed`.

        Its player fields are checked against the table's players (substitutes included) when its
        turn comes; a refusal of any kind is answered once through `command.reply`."""
        return self.submit(command, command.origin or "mqtt")

    def submit(self, command: Command, origin: str) -> int:
        """Queue a checked command from `origin` ("mqtt", "web"); returns its input number."""
        return self.feed(Input(InputKind(command.name), dict(command.args), self.now(),
                               origin=origin, reply=command.reply))

    def players(self) -> tuple[str, ...]:
        """Everyone a command may name: the seats' players and the substitutes who sat down."""
        names = list(self.settings.players)
        if self.core is not None:
            names += [name for name in self.core.referee.aliases if name not in names]
        return tuple(names)

    def call(self, function: Callable[[], Any]) -> Future[Any]:
        """Run `function` on the consumer thread, between inputs (readers that need the engine as it
        is, like the web API's record); the future holds its result. Nothing is logged."""
        future: Future[Any] = Future()
        self.feed(Input(InputKind.CALL, {"function": function, "future": future}, self.now(), origin="call"))
        return future

    def record(self) -> dict[str, Any] | None:
        """The running (or last) match's record with the table manager's corrections (consumer thread)."""
        if self.core is None:
            return None
        record: dict[str, Any] = jsonable(self.core.referee.record())
        if self.core.corrections:
            record["corrections"] = list(self.core.corrections)
        return record

    def button(self, name: str) -> None:
        self.feed(Input(InputKind(name), {}, self.now(), origin="button"))

    def wait_processed(self, number: int | None = None, timeout: float = 10.0) -> bool:
        """Block until input `number` (default: everything fed so far) has been handled."""
        with self._progress:
            target = self._fed if number is None else number
            return self._progress.wait_for(lambda: self._done >= target, timeout)

    # -- running -------------------------------------------------------------------------------
    def start(self, tick_interval: float | None = 0.1) -> None:
        """The consumer and the ticker: under the supervisor when there is one (the consumer's
        failure is fatal, the ticker is restarted), else as plain threads."""
        if self.supervisor is not None:
            self._thread = self.supervisor.spawn("table-consumer", lambda stop: self.run(),
                                                 policy=Policy.FATAL, part="consumer",
                                                 context=self.doing).thread
            if tick_interval:
                self._ticker = self.supervisor.spawn("ticker", lambda stop: self._tick(tick_interval),
                                                     policy=Policy.RESTART).thread
            self.supervisor.spawn("disk-watch", self.watch_disk, policy=Policy.RESTART, part="disk")
            return
        self._thread = threading.Thread(target=self.run, name="table-consumer", daemon=True)
        self._thread.start()
        if tick_interval:
            self._ticker = threading.Thread(target=self._tick, args=(tick_interval,), name="ticker",
                                            daemon=True)
            self._ticker.start()

    def watch_disk(self, stop: threading.Event) -> None:
        """Say a full or read-only data directory the moment it happens, not at the next write."""
        import os

        folder = self.log.path.parent
        while True:
            try:
                stats = os.statvfs(folder)
            except OSError as error:
                self.health.failed("disk", f"{folder}: {error.strerror}")
            else:
                free = stats.f_bavail * stats.f_frsize
                if stats.f_flag & os.ST_RDONLY:
                    self.health.failed("disk", f"{folder} is read-only")
                elif free < LOW_SPACE_BYTES:
                    self.health.failed("disk", f"{folder}: less than {LOW_SPACE_BYTES >> 20} MB free")
                else:
                    self.health.ok("disk")
            if stop.wait(DISK_CHECK_SECONDS):
                return

    def doing(self) -> str:
        """What the consumer is handling, for the supervisor's line when it fails."""
        inp = self.current
        if inp is None:
            return "waiting for input"
        data = json.dumps(dict(inp.data), ensure_ascii=False, default=str)
        return f"handling {inp.kind} {data[:200]} from {inp.origin or 'the table'}"

    def stop(self, timeout: float = 10.0) -> None:
        self._stopping.set()
        self._queue.put(Input(InputKind.STOP))
        if self._thread is not None:
            self._thread.join(timeout)

    def _tick(self, interval: float) -> None:
        while not self._stopping.wait(interval):
            self.feed(Input(InputKind.TICK, {}, self.now(), origin="ticker"))

    def run(self) -> None:
        while True:
            inp = self._queue.get()
            if inp.kind == "stop":
                break
            if inp.kind == "call":
                self._call(inp)
                continue
            self.current = inp   # left set if handling fails: the supervisor's line names it
            try:
                logged = self.handle(inp)
                if self.on_processed is not None and inp.kind not in CONTROL_KINDS and not self._is_held(inp):
                    self.on_processed(inp, logged)
                self.current = None
            finally:
                with self._progress:
                    if inp.kind != InputKind.HEALTH:
                        self._done += 1
                    self._progress.notify_all()

    def _call(self, inp: Input) -> None:
        future: Future[Any] = inp.data["future"]
        try:
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(inp.data["function"]())
                except Exception as error:  # the caller hears of it; the consumer goes on
                    future.set_exception(error)
        finally:
            with self._progress:
                self._done += 1
                self._progress.notify_all()

    # -- resuming after a crash ------------------------------------------------------------------
    def resume(self) -> bool:
        """Replay the last unfinished match from the log; returns whether there was one."""
        entry = self.log.last_match()
        if entry is None or entry.finished:
            return False
        self.match_id = entry.id
        self.settings = MatchSettings.from_dict(entry.settings)
        self.core = TableCore(self.settings, *self.referee_factory(self.settings))
        for logged in self.log.inputs(entry.id):
            outcome = self._act(logged.kind, logged.data, logged.t)
            self.log.add_events(logged.seq, outcome.events)
        self.origin = self.now() - self.core.last_t
        if self.core.phase == "match-over":
            self._finish()
        self._sync()
        return True

    def _sync(self) -> None:
        if self.core is None:
            self.publish_idle()
            return
        t = self.core.last_t
        self._output("display", self.display.sync, self.view(t))
        self._publish_state(self.core.state(t))

    def publish_idle(self) -> None:
        """The retained state of a table with no match yet: who sits there and what they play."""
        self._publish_state({
            "table": self.settings.table_id, "rules": self.settings.rules,
            "players": list(self.settings.players), "teams": [list(t) for t in self.settings.teams],
            "options": jsonable(self.settings.options), "phase": "waiting", "message": "press Start"})

    # -- one input -------------------------------------------------------------------------------
    def handle(self, inp: Input) -> bool:
        """Handle one input; returns whether it was logged (it changed the match). While the log
        cannot be written, the input is kept (not acted on) and the log is tried again."""
        if inp.kind == "health":
            self._refresh()
            return False
        if self.halted:
            if inp.kind == "sync":
                self._sync()
            elif inp.kind not in CONTROL_KINDS:
                self._hold(inp)
            if inp.kind != "tick" or self.now() - self._last_retry >= RETRY_SECONDS:
                self._retry()
            return False
        owed = len(self._owed)
        try:
            return self._handle(inp)
        except LogWriteError as error:
            # Not logged: keep it. Logged but its events or end not stored: that is owed instead.
            self._halt(error, inp if len(self._owed) == owed else None)
            return False

    def _handle(self, inp: Input) -> bool:
        if inp.reply is not None and inp.kind in COMMANDS:
            try:
                check_players(Command(inp.kind, {k: str(v) for k, v in inp.data.items()}), self.players())
            except CommandError as error:
                self.note(str(error), answer=inp)
                return False
        if inp.kind == "start":
            return self._start(inp)
        if inp.kind == "sync":
            self._sync()
            return False
        core = self.core
        if core is None:
            if inp.kind not in ("tick", "removed", "boneyard"):
                self.note("press Start to begin a match", error=inp.kind == "placed", answer=inp)
            return False
        t = max(inp.at - self.origin if inp.t is None else inp.t, core.last_t)
        if inp.kind == "tick":
            return self._tick_at(core, t)
        admitted, note = core.admit(inp)
        if not admitted:
            if note:
                self.note(note, error=inp.kind == "placed", answer=inp)
            return False
        data = {key: jsonable(value) for key, value in inp.data.items() if key != "corners"}
        seq = self.log.append(self.match_id, t, inp.kind, data)
        outcome = self._act(inp.kind, data, t)
        self._deliver(seq, outcome, t)
        self._answer_refusal(inp, outcome)
        return True

    def _start(self, inp: Input) -> bool:
        if self.core is not None and self.core.phase != "match-over":
            self.note("a match is running: finish it or undo, Start begins a new match only after the end",
                      answer=inp)
            return False
        try:
            barred = self.bar_check(self.settings.players) if self.bar_check is not None else {}
        except DominoError as error:   # the bars are the ledger's; the match is the players'
            barred = {}
            self.note(f"bars not checked: {error}")
        if barred:
            self.note(describe_bars(barred), error=True, answer=inp)
            return False
        data = {key: jsonable(value) for key, value in inp.data.items()}
        match_id, seq = self.log.start_match(self.settings.as_dict(), data)   # one transaction
        self.match_over.clear()
        self.match_id = match_id
        self.origin = inp.at
        self.core = TableCore(self.settings, *self.referee_factory(self.settings))
        self._deliver(seq, self._act("start", {}, 0.0), 0.0)
        return True

    def _act(self, kind: str, data: Mapping[str, Any], t: float) -> Outcome:
        assert self.core is not None
        try:
            return self.core.act(kind, data, t)
        except Exception as error:  # the referee never stops mid-match on input; the log keeps it
            self.core.message = f"{kind} not understood: {error}"
            return Outcome(events=[{"event": "error", "input": kind, "error": str(error), "t": round(t, 3)}],
                           signals=["error"])

    def _tick_at(self, core: TableCore, t: float) -> bool:
        what, left = core.tick(t)
        if what == "warning":
            self._signal("warning")
            self._deliver(None, Outcome(events=[{"event": "warning", "player": core.turn(),
                                                 "remaining": round(left or 0.0, 1), "t": round(t, 3)}]), t)
        elif what == "timeout":
            player = core.turn()
            seq = self.log.append(self.match_id, t, "timeout", {"player": player})
            self._deliver(seq, self._act("timeout", {"player": player}, t), t)
            return True
        return False

    def _deliver(self, input_seq: int | None, outcome: Outcome, t: float) -> None:
        """Store the input's events, then tell the table. The input is logged and acted on by now:
        if its events cannot be stored, storing them is owed before anything else."""
        try:
            stored = self.log.add_events(input_seq, outcome.events)
        except LogWriteError:
            self._owed.append(lambda: self._tell(self.log.add_events(input_seq, outcome.events), outcome, t))
            raise
        self._tell(stored, outcome, t)

    def _tell(self, stored: list[tuple[int, str, bool]], outcome: Outcome, t: float) -> None:
        assert self.core is not None
        for seq, payload, new in stored:
            if new and self.publisher is not None:
                self._output("mqtt", self.publisher.publish_event, seq, payload)
        for name in outcome.signals:
            self._signal(name)
        self._output("display", self.display.show, self.view(t))
        self._publish_state(self.core.state(t))
        if self.core.phase == "match-over":
            self._finish()

    def _finish(self) -> None:
        assert self.core is not None
        if self.records_dir is not None:
            path = self.records_dir / f"match-{self.match_id}.json"
            try:
                self.records_dir.mkdir(parents=True, exist_ok=True)
                record = self.record()
                tmp = path.with_suffix(".tmp")
                tmp.write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
                tmp.replace(path)
                self.records.append(path)
            except OSError as error:   # the event log still holds the match: the record can wait
                self.health.degraded("records", f"cannot write {path.name}: {error.strerror}")
        match_id = self.match_id
        try:
            self.log.finish_match(match_id)
        except LogWriteError:
            self._owed.append(lambda: self.log.finish_match(match_id))
            raise
        finally:
            self.match_over.set()

    def _answer_refusal(self, inp: Input, outcome: Outcome) -> None:
        """A command the referee refused (a pass that is not allowed, nothing to undo) is answered
        once to its sender; the `refused` event tells everyone else."""
        if inp.reply is None:
            return
        for event in outcome.events:
            if event.get("event") in ("refused", "error"):
                inp.reply(f"cmd/{inp.kind}: {event.get('error', 'refused')}")
                return

    def note(self, text: str, *, error: bool = False, answer: Input | None = None) -> None:
        """Say `text` on the scoreboard's message line; when it refuses a command (`answer`), also
        answer the command's sender (MQTT: once on ``cmd/errors``). A note about the table's own
        inputs (a tile taken off after the match) answers nobody: no message without a command."""
        if answer is not None and answer.reply is not None:
            answer.reply(text if text.startswith("cmd/") else f"cmd/{answer.kind}: {text}")
        if error:
            self._signal("error")
        if self.core is not None:
            self.core.message = text
            self._output("display", self.display.show, self.view(self.core.last_t))
        else:
            self._output("display", self.display.show, self.idle_view(text))

    # -- what the table shows ----------------------------------------------------------------------
    def view(self, t: float) -> BoardView:
        """The board's view: the match's, with a failed part on the message line (a degraded one
        only when the match has nothing to say)."""
        assert self.core is not None
        view = self.core.view(t)
        return replace(view, message=self._health_line(view.message))

    def idle_view(self, text: str = "") -> BoardView:
        return BoardView(message=self._health_line(text))

    def _health_line(self, message: str) -> str:
        parts = sorted(self.health.parts().values(), key=lambda p: (-int(p.state == State.FAILED), p.part))
        # A failed part the referee needs (the event log, the disk, the camera) wins the line;
        # the players still need the match's messages while only a page or the broker is down.
        failed = [p for p in parts if p.state == State.FAILED and p.part not in OFF_TABLE_PARTS]
        if failed:
            return board_health(failed[0])
        troubled = [p for p in parts if p.state != State.OK]
        if troubled and not message:
            return board_health(troubled[0])
        return message

    def state(self, t: float) -> dict[str, Any]:
        """The table's state document (`TableCore.state`) with the table's `health` in it."""
        assert self.core is not None
        return {**self.core.state(t), "health": self.health.as_dict()}

    def _publish_state(self, document: Mapping[str, Any]) -> None:
        if self.publisher is not None:
            self._output("mqtt", self.publisher.publish_state, {**document, "health": self.health.as_dict()})

    def _refresh(self) -> None:
        """A part's health changed: show it on the board and in the retained state."""
        if self.core is None:
            self._output("display", self.display.show, self.idle_view())
            return
        self._output("display", self.display.show, self.view(self.core.last_t))
        self._publish_state(self.core.state(self.core.last_t))

    def _health_changed(self, part: PartHealth) -> None:
        self.feed(Input(InputKind.HEALTH, {"part": part.part}, self.now(), origin="health"))

    def _signal(self, name: str) -> None:
        self._output("signals", self.signals.signal, name)

    def _output(self, part: str, send: Callable[..., None], *args: Any) -> None:
        """An output that fails (a scoreboard unplugged mid-call) is a degraded part, never the
        end of the consumer: the referee goes on and the log keeps everything."""
        try:
            send(*args)
        except Exception as error:
            self._failing.add(part)
            self.health.degraded(part, f"{type(error).__name__}: {error}")
            return
        if part in self._failing:
            self._failing.discard(part)
            self.health.ok(part, "working again")

    # -- a log that cannot be written --------------------------------------------------------------
    def _log_problem(self, text: str) -> None:
        self.health.degraded("eventlog", text)

    def _is_held(self, inp: Input) -> bool:
        return bool(self.held) and any(kept is inp for kept in self.held)

    def _hold(self, inp: Input) -> None:
        if len(self.held) >= self.hold_limit:
            self.note(f"input {inp.kind} refused: {len(self.held)} inputs already wait for the event log",
                      error=True)
            return
        self.held.append(inp)

    def _halt(self, error: LogWriteError, inp: Input | None) -> None:
        if inp is not None and inp.kind not in CONTROL_KINDS:
            self.held.appendleft(inp)
        first = not self.halted
        self.halted = str(error)
        if first:
            self._halted_at = self._last_retry = self.now()
            self._signal("error")
        self.health.failed("eventlog", f"{error}: the match is stopped, the inputs are kept")
        if first:   # the board and the state's health say it (no cmd/errors without a command)
            self._refresh()

    def _retry(self) -> None:
        now = self.now()
        self._last_retry = now
        self.origin += now - self._halted_at   # match time stands still while stopped
        self._halted_at = now
        try:
            while self._owed:
                self._owed[0]()
                self._owed.pop(0)
            while self.held:
                inp = self.held.popleft()
                owed = len(self._owed)
                try:
                    logged = self._handle(inp)
                except LogWriteError:
                    if len(self._owed) == owed:
                        self.held.appendleft(inp)
                    raise
                if self.on_processed is not None and inp is not self.current:
                    self.on_processed(inp, logged)
        except LogWriteError as error:
            self._halt(error, None)
            return
        self.halted = ""
        self.health.ok("eventlog", "writing again")
        if self.core is not None:
            self.core.message = "match resumed"
        self._refresh()
