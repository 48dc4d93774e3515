"""The real devices named by a table's configuration, each behind the service's small interfaces.

Every part is optional at import time: an installation without the vision or scoreboard packages
still runs, and says what it left out in `Parts.notes`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from referee.app.ports import Display, Signals


@dataclass
class Parts:
    displays: list[Display] = field(default_factory=list)
    signals: list[Signals] = field(default_factory=list)
    devices: list[Any] = field(default_factory=list)
    closers: list[Callable[[], None]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    scoreboard: Any = None
    gpio: Any = None


def hardware_parts(config: Any, *, camera: bool = True) -> Parts:
    """Scoreboard, GPIO buttons/buzzer/LEDs and the camera as the configuration asks."""
    parts = Parts()
    if config["scoreboard"]["enabled"]:
        _add(parts, "scoreboard", "referee.app.devices", "scoreboard_parts", config)
    if config["gpio"]["enabled"]:
        _add(parts, "GPIO", "referee.app.devices", "gpio_parts", config)
    if camera:
        _add(parts, "camera", "referee.app.camera", "camera_parts", config)
    return parts


def _add(parts: Parts, what: str, module: str, function: str, config: Any) -> None:
    import importlib

    try:
        builder = getattr(importlib.import_module(module), function)
    except (ImportError, AttributeError) as error:
        parts.notes.append(f"{what}: not available in this installation ({error})")
        return
    builder(parts, config)
