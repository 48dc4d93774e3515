"""The small interfaces the service drives, so each device has a real and a simulated side.

The service never imports a device library here: adapters in `referee.app.devices` wrap the
scoreboard link, gpiozero and the vision tracker in these shapes, and tests use the recording ones.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

# What the buzzer (board or GPIO) plays: a legal move, a refused one, a clock warning, a timeout,
# a hand's end and the match's end.
SIGNALS = ("ok", "error", "warning", "timeout", "hand", "match")


@dataclass(frozen=True)
class BoardView:
    """Everything the scoreboard shows at one moment (a full-state sync sends all of it)."""

    scores: tuple[tuple[str, float], ...] = ()
    turn: str | None = None
    clock: float | None = None
    boneyard: int | None = None
    message: str = ""
    hand: int = 0
    phase: str = "waiting"
    clock_since: float | None = None   # match time the running turn's clock started (or restarted)


class Display(Protocol):
    """The scoreboard: shows a `BoardView`; `sync` resends everything (after a reconnect or resume)."""

    def show(self, view: BoardView) -> None: ...

    def sync(self, view: BoardView) -> None: ...


class Signals(Protocol):
    """Buzzer and LEDs: play one of `SIGNALS`."""

    def signal(self, name: str) -> None: ...


class Publisher(Protocol):
    """Where state and events go (the MQTT link)."""

    def publish_state(self, document: Mapping[str, Any]) -> None: ...

    def publish_event(self, seq: int, payload: str) -> None: ...

    def publish_error(self, message: str, received: str = "") -> None: ...


class InputKind(StrEnum):
    """What an `Input` is (a `StrEnum`: each equals the name the event log stores)."""

    # buttons and the manager's commands
    START = "start"
    CONTINUE = "continue"
    PASS = "pass"
    UNDO = "undo"
    SYNC = "sync"
    LEAD = "lead"
    AWAY = "away"
    BACK = "back"
    LEAVE = "leave"
    SUBSTITUTE = "substitute"
    TIMEOUT = "timeout"
    # the table manager's corrections (the web page, the API, cmd/correct and cmd/missed)
    CORRECT = "correct"
    MISSED = "missed"
    # the camera
    PLACED = "placed"
    REMOVED = "removed"
    BONEYARD = "boneyard"
    REVEALED = "revealed"
    # the service itself
    TICK = "tick"
    STOP = "stop"
    CALL = "call"      # run a reader on the consumer thread (TableService.call)
    HEALTH = "health"  # a part's health changed: show it on the board and in the state

    @property
    def changes_the_match(self) -> bool:
        """Whether an input of this kind can change the match, and so is logged before it acts."""
        return self not in (InputKind.SYNC, InputKind.TICK, InputKind.STOP, InputKind.CALL, InputKind.HEALTH)


@dataclass(frozen=True)
class Input:
    """One thing that happened at the table, stamped with the injected clock's time ``at``.

    ``kind`` is an `InputKind`; a plain name is converted (and an unknown one refused) on creation.
    """

    kind: InputKind
    data: Mapping[str, Any] = field(default_factory=dict)
    at: float = 0.0
    origin: str = ""
    t: float | None = None    # match time given by a script or a recording; None: from ``at``
    # For a command: how to answer its refusal (once) to whoever sent it; None for the table's own inputs.
    reply: Callable[[str], None] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", InputKind(self.kind))


Feed = Callable[[Input], object]


class Device(Protocol):
    """An input device: feeds the table from its own thread between `start` and `stop`."""

    def start(self, feed: Feed) -> None: ...

    def stop(self) -> None: ...


class NullDisplay:
    def show(self, view: BoardView) -> None:
        pass

    def sync(self, view: BoardView) -> None:
        pass


class NullSignals:
    def signal(self, name: str) -> None:
        pass


class RecordingDisplay:
    """Keeps every view shown; `changed` is set on each call (tests wait on it, never sleep)."""

    def __init__(self) -> None:
        self.views: list[BoardView] = []
        self.syncs = 0
        self.changed = threading.Condition()

    def show(self, view: BoardView) -> None:
        with self.changed:
            self.views.append(view)
            self.changed.notify_all()

    def sync(self, view: BoardView) -> None:
        with self.changed:
            self.syncs += 1
            self.views.append(view)
            self.changed.notify_all()

    @property
    def last(self) -> BoardView:
        return self.views[-1] if self.views else BoardView()


class RecordingSignals:
    def __init__(self) -> None:
        self.played: list[str] = []

    def signal(self, name: str) -> None:
        self.played.append(name)
