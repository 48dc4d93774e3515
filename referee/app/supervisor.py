"""One supervisor for every worker thread of a table: no loose threads, no silent deaths.

A worker is a function ``target(stop)`` that runs until `stop` is set. The supervisor runs each on
its own thread and, when it raises, logs one line with what was going on (the worker's name and its
`context`: the input it was handling, the frame it was reading), the traceback after it, reports
the worker's part in the `Health`, and then follows the worker's `Policy`:

- ``RESTART``: safe to start again (camera, ticker, reminders): after a backoff that doubles from
  `Backoff.first` to `Backoff.longest` and starts over once a run lasted `Backoff.reset_after`;
- ``STOP``: not worth restarting (a script of inputs): the part is failed, the table goes on;
- ``FATAL``: not safe to go on (the consumer: the match's state is unknown): the supervisor sets
  `fatal`, and the program exits non-zero (`EXIT_FATAL`) so systemd restarts it and the event log
  resumes the match.

Callbacks that run on threads the table does not own (the scoreboard's events, gpiozero's button
threads) are wrapped with `guard`: an exception is logged and reported, and the thread lives on.
`catch_stray_exceptions` installs a `threading.excepthook` for any other thread (a library's
network loop): its death is fatal, because nothing would restart it.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, ParamSpec, Protocol

from referee.app.health import SELF_SAID, Health
from referee.app.ports import Feed

P = ParamSpec("P")

# The process's exit status when a worker died and could not be restarted (sysexits' EX_SOFTWARE).
EXIT_FATAL = 70
# How often the supervisor says again what is still unhealthy (the Health decides what is due).
REMINDER_POLL_SECONDS = 1.0


class Policy(Enum):
    RESTART = "restart"
    STOP = "stop"
    FATAL = "fatal"


@dataclass(frozen=True)
class Backoff:
    """Seconds between restarts: `first`, doubling up to `longest`; back to `first` after a run
    of `reset_after` seconds without a failure."""

    first: float = 0.5
    longest: float = 30.0
    reset_after: float = 60.0

    def delay(self, failures: int) -> float:
        return float(min(self.longest, self.first * 2 ** max(failures - 1, 0)))


Target = Callable[[threading.Event], None]


class Worker(Protocol):
    """A device that feeds the table from a loop of its own (the camera, a script of inputs)."""

    name: str
    part: str
    policy: Policy

    def run(self, feed: Feed, stop: threading.Event) -> None:
        """Feed inputs until `stop` is set (or the source ends); raise on what it cannot handle."""
        ...

    def doing(self) -> str:
        """What it is doing now, for the line the supervisor writes when it fails."""
        ...


@dataclass
class WorkerRecord:
    name: str
    part: str
    policy: Policy
    thread: threading.Thread
    failures: int = 0
    restarts: int = 0
    last_error: str = ""


def say_on_stderr(text: str) -> None:
    import sys

    sys.stderr.write(text + "\n")
    sys.stderr.flush()


class Supervisor:
    """Runs and watches the table's workers. `say` writes one log line (the service's log)."""

    def __init__(self, *, health: Health, say: Callable[[str], None] = say_on_stderr,
                 backoff: Backoff = Backoff(), clock: Callable[[], float] = time.monotonic,
                 reminders: bool = True) -> None:
        self.health = health
        self.say = say
        self.backoff = backoff
        self.clock = clock
        self.stopping = threading.Event()
        self.fatal = threading.Event()
        self.fatal_reason = ""
        self.on_fatal: list[Callable[[str], None]] = []
        self.workers: dict[str, WorkerRecord] = {}
        self._lock = threading.Lock()
        self._previous_hook: Callable[[threading.ExceptHookArgs], Any] | None = None
        if reminders:
            self.spawn("health-reminders", self._remind, policy=Policy.RESTART, part="supervisor")

    # -- workers ---------------------------------------------------------------------------------
    def spawn(self, name: str, target: Target, *, policy: Policy = Policy.RESTART, part: str | None = None,
              context: Callable[[], str] | None = None) -> WorkerRecord:
        """Run `target(stop)` on a thread named `name` under `policy`; `part` names it in the Health
        (default: the name) and `context` says what it is doing when it fails."""
        thread = threading.Thread(target=self._run, args=(name, target, context), name=name, daemon=True)
        record = WorkerRecord(name, part or name, policy, thread)
        with self._lock:
            self.workers[name] = record
        thread.start()
        return record

    def _run(self, name: str, target: Target, context: Callable[[], str] | None) -> None:
        record = self.workers[name]
        while not self.stopping.is_set():
            began = self.clock()
            doing = ""
            try:
                target(self.stopping)
                return
            except Exception as error:  # every failure is said, then the policy decides
                doing = self._context(context)
                if self.clock() - began >= self.backoff.reset_after:
                    record.failures = 0
                record.failures += 1
                record.last_error = f"{type(error).__name__}: {error}"
                self.say(f"# worker {name} failed{doing}: {record.last_error}")
                self.say("".join(traceback.format_exception(error)).rstrip())
            if record.policy is Policy.FATAL:
                self.die(f"worker {name} failed{doing}: {record.last_error}", part=record.part)
                return
            if record.policy is Policy.STOP:
                self.health.failed(record.part, f"{name} stopped: {record.last_error}")
                return
            delay = self.backoff.delay(record.failures)
            self.health.degraded(record.part, f"{name} failed ({record.last_error}); restarting")
            if self.stopping.wait(delay):
                return
            record.restarts += 1
            self.say(f"# worker {name} restarted (restart {record.restarts}, after {delay:g} s)")

    @staticmethod
    def _context(context: Callable[[], str] | None) -> str:
        if context is None:
            return ""
        try:
            text = context()
        except Exception as error:  # a context that fails must not hide the failure itself
            text = f"(context unknown: {error})"
        return f" while {text}" if text else ""

    def guard(self, name: str, callback: Callable[P, None], *,
              context: Callable[[], str] | None = None) -> Callable[P, None]:
        """`callback` for a thread the table does not own: failures are said and reported, never raised."""
        def guarded(*args: P.args, **kwargs: P.kwargs) -> None:
            try:
                callback(*args, **kwargs)
            except Exception as error:
                doing = self._context(context)
                self.say(f"# {name} failed{doing}: {type(error).__name__}: {error}")
                self.say("".join(traceback.format_exception(error)).rstrip())
                self.health.degraded(name, f"{type(error).__name__}: {error}")
        return guarded

    # -- the end ---------------------------------------------------------------------------------
    def die(self, why: str, *, part: str = "supervisor") -> None:
        """Not safe to go on: mark the part failed and let the program exit with `EXIT_FATAL`."""
        with self._lock:
            first = not self.fatal.is_set()
            if first:
                self.fatal_reason = why
                self.fatal.set()
        if not first:
            return
        self.health.failed(part, why)
        self.say(f"# fatal: {why}; exiting with status {EXIT_FATAL} for a restart")
        for listener in list(self.on_fatal):
            listener(why)

    def catch_stray_exceptions(self) -> None:
        """Any thread that is not a worker and dies of an exception makes the process exit."""
        self._previous_hook = threading.excepthook

        def hook(args: threading.ExceptHookArgs) -> None:
            name = args.thread.name if args.thread is not None else "a thread"
            if args.exc_type is SystemExit:
                return
            error = f"{args.exc_type.__name__}: {args.exc_value}"
            self.say(f"# thread {name} died: {error}")
            self.say("".join(traceback.format_exception(args.exc_type, args.exc_value,
                                                        args.exc_traceback)).rstrip())
            self.die(f"thread {name} died: {error}", part=_part_of(name))
        threading.excepthook = hook

    def stop(self, timeout: float = 5.0) -> None:
        self.stopping.set()
        deadline = self.clock() + timeout
        for record in list(self.workers.values()):
            if record.thread is not threading.current_thread():
                record.thread.join(max(0.0, deadline - self.clock()))
        if self._previous_hook is not None:
            threading.excepthook = self._previous_hook
            self._previous_hook = None

    # -- never silence ---------------------------------------------------------------------------
    def _remind(self, stop: threading.Event) -> None:
        while not stop.wait(REMINDER_POLL_SECONDS):
            for part in self.health.due_reminders():
                if part.part not in SELF_SAID:
                    self.say(f"# health: still {part.line()}")


def _part_of(thread_name: str) -> str:
    """The part a library's thread belongs to, from its name (paho names its loop paho-mqtt-client-…)."""
    if thread_name.startswith("paho"):
        return "mqtt"
    if thread_name.startswith("scoreboard"):
        return "scoreboard"
    return thread_name
