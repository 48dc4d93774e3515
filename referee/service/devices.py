"""Adapters from the service's small interfaces to the real devices: the serial scoreboard
(`firmware_bridge.scoreboard.Scoreboard`, any pyserial URL or ``emulator://``) and the Pi's GPIO
(gpiozero buttons, buzzer and LEDs; ``pin_factory = "mock"`` runs them anywhere).

Buttons, on the board or on GPIO: Start, Pass and Continue do what they say; holding Continue for
a second is Undo (the table manager fixing a misread); a seat's "done" button claims the lead for
that seat when the rules let the holder of the highest double lead.
"""

from __future__ import annotations

import threading
import unicodedata
from typing import Any

from referee.service.ports import BoardView, Feed, Input

BEEPS = {"ok": "ok", "error": "error", "warning": "warning", "timeout": "timeout", "hand": "ok",
         "match": "match-end"}


def board_text(text: str, width: int = 16) -> str:
    """A message as the 7-segment board can show it: printable ASCII, at most `width` characters."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return "".join(char for char in plain if " " <= char <= "~")[:width]


def button_input(name: str, held: bool, players: tuple[str, ...], now: float) -> Input | None:
    if name == "continue" and held:
        return Input("undo", {}, now, origin="button")
    if name in ("start", "pass", "continue"):
        return Input(name, {}, now, origin="button")
    if name.startswith("done-") and name[5:].isdigit() and int(name[5:]) < len(players):
        return Input("lead", {"player": players[int(name[5:])]}, now, origin="button")
    return None


class ScoreboardDisplay:
    """`Display` and `Signals` on a `Scoreboard`; its buttons become inputs (a `Device`)."""

    def __init__(self, board: Any, players: tuple[str, ...], now: Any) -> None:
        self.board = board
        self.players = players
        self.now = now
        self._shown: dict[str, Any] = {}
        self._lock = threading.Lock()

    # Device
    def start(self, feed: Feed) -> None:
        def pressed(press: Any) -> None:
            inp = button_input(press.name, bool(press.held), self.players, self.now())
            if inp is not None:
                feed(inp)
        self.board.on_button(pressed)

    def stop(self) -> None:
        pass

    # Display
    def show(self, view: BoardView, *, force: bool = False) -> None:
        with self._lock:
            scores = tuple(max(-999, min(9999, round(points))) for _, points in view.scores[:4]) or (0,)
            if force or self._shown.get("scores") != scores:
                self.board.show_scores(scores)
                self._shown["scores"] = scores
            seat = self.players.index(view.turn) if view.turn in self.players else None
            clock = (seat, view.hand, None if view.clock is None else round(view.clock, 1))
            if force or self._shown.get("turn") != seat or self._shown.get("hand") != view.hand or \
                    (view.clock is not None and self._shown.get("clock") is None):
                if seat is None or view.clock is None:
                    self.board.hide_clock()
                else:
                    self.board.run_clock(seat, max(view.clock, 0.0))
                self.board.leds(turn=seat)
                self._shown.update(turn=seat, hand=view.hand, clock=clock[2])
            text = board_text(view.message)
            if force or self._shown.get("message") != text:
                self.board.message(text)
                self.board.leds(red=bool(text) and "take" in view.message)
                self._shown["message"] = text

    def sync(self, view: BoardView) -> None:
        self.show(view, force=True)

    # Signals
    def signal(self, name: str) -> None:
        if name in BEEPS:
            self.board.beep(BEEPS[name])


def scoreboard_parts(parts: Any, config: Any) -> None:
    import time

    from firmware_bridge.scoreboard import Scoreboard

    section = config["scoreboard"]
    board = Scoreboard(section["port"], baud=section["baud"]).open()
    adapter = ScoreboardDisplay(board, tuple(config["table"]["players"]), time.monotonic)
    parts.displays.append(adapter)
    parts.signals.append(adapter)
    parts.devices.append(adapter)
    parts.closers.append(board.close)
    parts.scoreboard = board


# signal -> (seconds on, seconds off, count) for the GPIO buzzer and LED
BUZZ_PATTERNS = {"ok": (0.08, 0.05, 1), "error": (0.6, 0.1, 1), "warning": (0.1, 0.1, 2),
                 "timeout": (0.5, 0.2, 3), "hand": (0.1, 0.1, 1), "match": (0.2, 0.1, 4)}


class GpioPanel:
    """Start/Pass/Continue (and seat) buttons, a buzzer and two LEDs on the Pi's GPIO (gpiozero)."""

    def __init__(self, section: Any, players: tuple[str, ...], now: Any) -> None:
        from gpiozero import LED, Button, Buzzer  # type: ignore[import-untyped,unused-ignore]

        factory = _pin_factory(section["pin_factory"])
        bounce = section["bounce_ms"] / 1000 or None
        kwargs = {"pin_factory": factory} if factory is not None else {}
        self.players = players
        self.now = now
        self.buttons = {name: Button(section[f"{name}_pin"], bounce_time=bounce, hold_time=1.0, **kwargs)
                        for name in ("start", "pass", "continue")}
        for seat, pin in enumerate(section["player_pins"]):
            self.buttons[f"done-{seat}"] = Button(pin, bounce_time=bounce, **kwargs)
        self.buzzer = Buzzer(section["buzzer_pin"], **kwargs)
        self.ok_led = LED(section["ok_led_pin"], **kwargs)
        self.error_led = LED(section["error_led_pin"], **kwargs)

    def start(self, feed: Feed) -> None:
        for name, button in self.buttons.items():
            held = threading.Event()

            def pressed(name: str = name, held: threading.Event = held) -> None:
                held.clear()

            def released(name: str = name, held: threading.Event = held) -> None:
                inp = button_input(name, held.is_set(), self.players, self.now())
                if inp is not None:
                    feed(inp)

            def hold(held: threading.Event = held) -> None:
                held.set()

            button.when_pressed = pressed
            button.when_released = released
            button.when_held = hold

    def stop(self) -> None:
        for device in (*self.buttons.values(), self.buzzer, self.ok_led, self.error_led):
            device.close()

    def signal(self, name: str) -> None:
        if name not in BUZZ_PATTERNS:
            return
        on, off, count = BUZZ_PATTERNS[name]
        self.buzzer.blink(on_time=on, off_time=off, n=count, background=True)
        led = self.error_led if name in ("error", "timeout") else self.ok_led
        led.blink(on_time=on, off_time=off, n=count, background=True)


def _pin_factory(name: str) -> Any:
    if name == "default":
        return None
    if name == "mock":
        from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped,unused-ignore]
        return MockFactory()
    import importlib
    module, cls = {"lgpio": ("gpiozero.pins.lgpio", "LGPIOFactory"),
                   "rpigpio": ("gpiozero.pins.rpigpio", "RPiGPIOFactory"),
                   "pigpio": ("gpiozero.pins.pigpio", "PiGPIOFactory"),
                   "native": ("gpiozero.pins.native", "NativeFactory")}[name]
    return getattr(importlib.import_module(module), cls)()


def gpio_parts(parts: Any, config: Any) -> None:
    import time

    panel = GpioPanel(config["gpio"], tuple(config["table"]["players"]), time.monotonic)
    parts.signals.append(panel)
    parts.devices.append(panel)
    parts.gpio = panel
