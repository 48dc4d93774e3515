"""The real devices named by a table's configuration, each behind the service's small interfaces.

`hardware_parts` builds what `[scoreboard]`, `[gpio]` and `[camera]` ask for; the device libraries
(pyserial, gpiozero, OpenCV) are imported by the builders only when a part is enabled, so a table
without a camera never loads OpenCV.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from referee.app.camera import open_camera
from referee.app.config import Config
from referee.app.devices import GpioAdapter, open_gpio, open_scoreboard
from referee.app.health import Health
from referee.app.ports import Device, Display, Signals
from referee.app.supervisor import Worker

if TYPE_CHECKING:   # the scoreboard module loads pyserial: only for the annotation here
    from firmware_bridge.scoreboard import Scoreboard

NO_CAMERA = "camera: source 'synthetic' has nothing to film outside the demo; no camera"


@dataclass
class Parts:
    displays: list[Display] = field(default_factory=list)
    signals: list[Signals] = field(default_factory=list)
    devices: list[Device] = field(default_factory=list)
    closers: list[Callable[[], None]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    scoreboard: Scoreboard | None = None
    gpio: GpioAdapter | None = None
    workers: list[Worker] = field(default_factory=list)    # supervised loops (the camera)
    health: Health = field(default_factory=Health)              # where the parts report how they are


def hardware_parts(config: Config, *, camera: bool = True, health: Health | None = None) -> Parts:
    """Scoreboard, GPIO buttons/buzzer/LEDs and the camera as the configuration asks; each reports
    to `health` (give the table's, so the scoreboard and the status show it)."""
    parts = Parts(health=health or Health())
    if config["scoreboard"]["enabled"]:
        board = open_scoreboard(config, parts.health)
        parts.displays.append(board)
        parts.signals.append(board)
        parts.devices.append(board)
        parts.closers.append(board.board.close)
        parts.scoreboard = board.board
    if config["gpio"]["enabled"]:
        panel = open_gpio(config)
        parts.signals.append(panel)
        parts.devices.append(panel)
        parts.gpio = panel
    if camera:
        device = open_camera(config, parts.health)
        if device is None:
            parts.notes.append(NO_CAMERA)
        else:
            parts.workers.append(device)   # under the table's supervisor
    return parts
