"""`TableService`: the queue, the single consumer, the log-before-act discipline and the outputs."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from referee.app.core import MatchSettings, Outcome, RefereeFactory, TableCore, jsonable
from referee.app.eventlog import EventLog
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
from referee.errors import DominoError

# The players among those given who may not be seated now, each with the end of their bar
# (wall-clock seconds): the club ledger's habitual-leaver bars (`Ledger.barred`).
BarCheck = Callable[[Sequence[str]], Mapping[str, float]]


def describe_bars(barred: Mapping[str, float]) -> str:
    """`Cem is barred until 2026-12-01 22:15 (habitual leaver): no match starts`."""
    names = "; ".join(f"{name} is barred until {time.strftime('%Y-%m-%d %H:%M', time.localtime(until))}"
                      for name, until in sorted(barred.items()))
    return f"{names} (habitual leaver): no match starts"


class TableService:
    """Runs one table. Devices call `feed` from any thread; `run` (one thread) does everything else."""

    def __init__(self, settings: MatchSettings, *, log: EventLog, referee_factory: RefereeFactory,
                 display: Display | None = None,
                 signals: Signals | None = None, publisher: Publisher | None = None,
                 now: Callable[[], float] = time.monotonic, records_dir: Path | None = None,
                 bar_check: BarCheck | None = None) -> None:
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

    # -- feeding -------------------------------------------------------------------------------
    def feed(self, inp: Input) -> int:
        """Queue one input (any thread); returns its number for `wait_processed`."""
        with self._progress:
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
        self._thread = threading.Thread(target=self.run, name="table-consumer", daemon=True)
        self._thread.start()
        if tick_interval:
            self._ticker = threading.Thread(target=self._tick, args=(tick_interval,), name="ticker",
                                            daemon=True)
            self._ticker.start()

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
            try:
                logged = self.handle(inp)
                if self.on_processed is not None and inp.kind != "tick":
                    self.on_processed(inp, logged)
            finally:
                with self._progress:
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
            for n, event in enumerate(outcome.events):
                self.log.add_event(logged.seq, n, event)
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
        self.display.sync(self.core.view(t))
        if self.publisher is not None:
            self.publisher.publish_state(self.core.state(t))

    def publish_idle(self) -> None:
        """The retained state of a table with no match yet: who sits there and what they play."""
        if self.publisher is not None:
            self.publisher.publish_state({
                "table": self.settings.table_id, "rules": self.settings.rules,
                "players": list(self.settings.players), "teams": [list(t) for t in self.settings.teams],
                "options": jsonable(self.settings.options), "phase": "waiting", "message": "press Start"})

    # -- one input -------------------------------------------------------------------------------
    def handle(self, inp: Input) -> bool:
        """Handle one input; returns whether it was logged (it changed the match)."""
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
        self.match_over.clear()
        self.match_id = self.log.begin_match(self.settings.as_dict())
        self.origin = inp.at
        self.core = TableCore(self.settings, *self.referee_factory(self.settings))
        data = {key: jsonable(value) for key, value in inp.data.items()}
        seq = self.log.append(self.match_id, 0.0, "start", data)
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
            self.signals.signal("warning")
            self._deliver(None, Outcome(events=[{"event": "warning", "player": core.turn(),
                                                 "remaining": round(left or 0.0, 1), "t": round(t, 3)}]), t)
        elif what == "timeout":
            player = core.turn()
            seq = self.log.append(self.match_id, t, "timeout", {"player": player})
            self._deliver(seq, self._act("timeout", {"player": player}, t), t)
            return True
        return False

    def _deliver(self, input_seq: int | None, outcome: Outcome, t: float) -> None:
        assert self.core is not None
        for n, event in enumerate(outcome.events):
            seq, payload, new = self.log.add_event(input_seq, n, event)
            if new and self.publisher is not None:
                self.publisher.publish_event(seq, payload)
        for name in outcome.signals:
            self.signals.signal(name)
        self.display.show(self.core.view(t))
        if self.publisher is not None:
            self.publisher.publish_state(self.core.state(t))
        if self.core.phase == "match-over":
            self._finish()

    def _finish(self) -> None:
        assert self.core is not None
        if self.records_dir is not None:
            self.records_dir.mkdir(parents=True, exist_ok=True)
            path = self.records_dir / f"match-{self.match_id}.json"
            record = self.record()
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
            tmp.replace(path)
            self.records.append(path)
        self.log.finish_match(self.match_id)
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
            self.signals.signal("error")
        if self.core is not None:
            self.core.message = text
            self.display.show(self.core.view(self.core.last_t))
        else:
            self.display.show(BoardView(message=text))
