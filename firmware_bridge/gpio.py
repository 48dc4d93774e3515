"""Buttons, buzzer and status LEDs on the Pi's own GPIO, through gpiozero.

```python
panel = GpioPanel.from_config(config["gpio"], on_button=print)   # or GpioPanel(start_pin=17, ...)
panel.beep("warning")            # the same patterns as the scoreboard's, on an on/off buzzer
panel.status(ok=False)           # red LED on, green off
```

The pin factory is injected as `pin_factory=` (a gpiozero factory, or its name from the
`[gpio] pin_factory` setting: "mock" gives `MockFactory`, so everything runs without a Pi).
Debouncing is done here, not by the factory, because gpiozero's mock pins ignore `bounce_time`
and the behaviour must be the same on every factory: a press within `bounce_ms` of the last
accepted edge of the same button is contact bounce and ignored.

Beep patterns are played here too, each tone with its own on and off time, on a thread of the
panel's own. Its pauses go through the injected `pause` (by default a wait on the player's stop
event), so a test can check a pattern's timing exactly, without racing a real-time thread.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gpiozero import LED, Button, Buzzer

from firmware_bridge.beeps import Tone, tones
from firmware_bridge.errors import BridgeError
from firmware_bridge.protocol.codec import Beep, BeepPattern, ButtonPress

log = logging.getLogger(__name__)

PIN_FACTORIES = {
    "mock": ("gpiozero.pins.mock", "MockFactory"),
    "lgpio": ("gpiozero.pins.lgpio", "LGPIOFactory"),
    "rpigpio": ("gpiozero.pins.rpigpio", "RPiGPIOFactory"),
    "pigpio": ("gpiozero.pins.pigpio", "PiGPIOFactory"),
    "native": ("gpiozero.pins.native", "NativeFactory"),
}


class GpioError(BridgeError, ValueError):
    """A GPIO setting or pin that cannot be used."""


def pin_factory_by_name(name: str, **options: Any) -> Any:
    """The gpiozero pin factory called `name`; "default" gives None (gpiozero's own choice,
    which honours GPIOZERO_PIN_FACTORY)."""
    if name == "default":
        return None
    if name not in PIN_FACTORIES:
        raise GpioError(f"unknown pin factory {name!r} (known: default, {', '.join(PIN_FACTORIES)})")
    module_name, class_name = PIN_FACTORIES[name]
    try:
        factory_class = getattr(importlib.import_module(module_name), class_name)
        return factory_class(**options)
    except (ImportError, OSError, RuntimeError) as error:
        raise GpioError(f"pin factory {name!r} is not usable here: {error}") from None


class _DebouncedButton:
    def __init__(self, name: str, pin: int, panel: GpioPanel) -> None:
        self.name = name
        self._panel = panel
        self._last_edge: float | None = None
        self.device = Button(pin, pull_up=True, bounce_time=None, hold_time=panel.hold_seconds,
                             pin_factory=panel.pin_factory)
        self.device.when_pressed = self._pressed
        self.device.when_released = self._edge
        self.device.when_held = self._held

    def _edge(self) -> bool:
        now = self._panel.clock()
        bouncing = self._last_edge is not None and now - self._last_edge < self._panel.bounce_ms / 1000
        if not bouncing:
            self._last_edge = now
        return not bouncing

    def _pressed(self) -> None:
        if self._edge():
            self._panel._emit(ButtonPress(self.name, source="gpio"))
        else:
            self._panel.bounces += 1

    def _held(self) -> None:
        self._panel._emit(ButtonPress(self.name, held=True, source="gpio"))


class GpioPanel:
    """Start/Pass/Continue (and optional per-seat "done") buttons, a buzzer and two status LEDs.

    `on_button` is called with a `ButtonPress` (source "gpio") in gpiozero's callback thread.
    `clock` times the debounce; it defaults to the pin factory's own ticks. `pause(stop, seconds)`
    times a beep's tones: it returns True, ending the pattern, once `stop` is set, and by default
    is `stop.wait(seconds)`.
    """

    def __init__(self, *, start_pin: int = 17, pass_pin: int = 27, continue_pin: int = 22,
                 buzzer_pin: int = 18, ok_led_pin: int = 23, error_led_pin: int = 24,
                 player_pins: Sequence[int] = (),
                 bounce_ms: int = 30, hold_seconds: float = 1.0, pin_factory: Any = None,
                 on_button: Callable[[ButtonPress], None] | None = None,
                 clock: Callable[[], float] | None = None,
                 pause: Callable[[threading.Event, float], bool] | None = None) -> None:
        if isinstance(pin_factory, str):
            pin_factory = pin_factory_by_name(pin_factory)
        pins = {"start_pin": start_pin, "pass_pin": pass_pin, "continue_pin": continue_pin,
                "buzzer_pin": buzzer_pin, "ok_led_pin": ok_led_pin, "error_led_pin": error_led_pin}
        pins.update({f"player_pins[{seat}]": pin for seat, pin in enumerate(player_pins)})
        seen: dict[int, str] = {}
        for key, pin in pins.items():
            if pin in seen:
                raise GpioError(f"gpio.{key} = {pin} is already gpio.{seen[pin]}: each pin has one use")
            seen[pin] = key
        self.pin_factory = pin_factory
        self.bounce_ms = bounce_ms
        self.hold_seconds = hold_seconds
        self.bounces = 0
        self._callbacks: list[Callable[[ButtonPress], None]] = [on_button] if on_button else []
        self._devices: list[Any] = []
        self._pause = pause or threading.Event.wait
        self._player: _Player | None = None
        self._beeping = threading.Lock()
        try:
            self.clock = clock or (pin_factory or _default_factory()).ticks
            names = [("start", start_pin), ("pass", pass_pin), ("continue", continue_pin)]
            names += [(f"done-{seat}", pin) for seat, pin in enumerate(player_pins)]
            self.buttons = {name: _DebouncedButton(name, pin, self) for name, pin in names}
            self._devices += [button.device for button in self.buttons.values()]
            self.buzzer = Buzzer(buzzer_pin, pin_factory=pin_factory)
            self.ok_led = LED(ok_led_pin, pin_factory=pin_factory)
            self.error_led = LED(error_led_pin, pin_factory=pin_factory)
            self._devices += [self.buzzer, self.ok_led, self.error_led]
        except Exception as error:
            self.close()
            if isinstance(error, BridgeError):
                raise
            raise GpioError(f"cannot set up the GPIO pins: {error}") from error

    @classmethod
    def from_config(cls, section: Mapping[str, Any], **options: Any) -> GpioPanel:
        """Build from the `[gpio]` section of the table configuration (`referee.app.config`)."""
        factory = options.pop("pin_factory", None)
        if factory is None:
            factory = pin_factory_by_name(section.get("pin_factory", "default"))
        keys = ("start_pin", "pass_pin", "continue_pin", "buzzer_pin", "ok_led_pin", "error_led_pin",
                "bounce_ms")
        settings = {key: section[key] for key in keys if key in section}
        players = tuple(section.get("player_pins", ()))
        return cls(player_pins=players, pin_factory=factory, **settings, **options)

    def on_button(self, callback: Callable[[ButtonPress], None]) -> None:
        self._callbacks.append(callback)

    def _emit(self, press: ButtonPress) -> None:
        for callback in list(self._callbacks):
            try:
                callback(press)
            except Exception:
                log.exception("GPIO button handler failed on %s", press)

    # -- outputs ---------------------------------------------------------------------------------

    def beep(self, pattern: str | Beep | BeepPattern, *, wait: bool = False) -> None:
        """Sound a pattern ('ok', 'warning', 'error', 'timeout', 'match-end', 'COUNTxON/OFF@HZ').

        An on/off buzzer cannot change pitch, so the frequencies are left to the scoreboard. A new
        beep replaces one still sounding; `wait` returns only when it has finished.
        """
        if isinstance(pattern, str):
            beep = Beep.parse(pattern)
        else:
            beep = Beep(pattern) if isinstance(pattern, BeepPattern) else pattern
        with self._beeping:  # beeps may come from the service and from a button's callback at once
            self._silence()
            player = self._player = _Player(self.buzzer, tones(beep), self._pause)
            player.start()
        if wait:
            player.join()

    def wait_silent(self, timeout: float | None = None) -> bool:
        """Wait until the pattern sounding, if any, has finished; whether it has within `timeout`."""
        player = self._player
        if player is not None and player.is_alive():
            player.join(timeout)
            return not player.is_alive()
        return True

    def _silence(self) -> None:
        """Stop the pattern still sounding, if any, and wait until its buzzer is off."""
        if self._player is not None:
            self._player.stop.set()
            if self._player.is_alive():
                self._player.join()
            self._player = None

    def leds(self, *, green: bool | None = None, red: bool | None = None) -> None:
        if green is not None:
            self.ok_led.value = green
        if red is not None:
            self.error_led.value = red

    def status(self, *, ok: bool) -> None:
        """Green for a healthy table, red for an error that needs a person."""
        self.leds(green=ok, red=not ok)

    def close(self) -> None:
        with self._beeping:
            self._silence()
        for device in reversed(self._devices):
            device.close()
        self._devices.clear()

    def __enter__(self) -> GpioPanel:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _Player(threading.Thread):
    """One beep pattern on an on/off buzzer: each tone on for its `on_ms`, then off for its
    `off_ms` (the last tone's pause too, so that a pattern never runs into the next)."""

    def __init__(self, buzzer: Any, sounds: Sequence[Tone],
                 pause: Callable[[threading.Event, float], bool]) -> None:
        super().__init__(name="gpio-beep", daemon=True)
        self.buzzer = buzzer
        self.sounds = tuple(sounds)
        self.pause = pause
        self.stop = threading.Event()

    def run(self) -> None:
        try:
            for tone in self.sounds:
                self.buzzer.on()
                if self.pause(self.stop, tone.on_ms / 1000):
                    return
                self.buzzer.off()
                if self.pause(self.stop, tone.off_ms / 1000):
                    return
        finally:
            self.buzzer.off()


def _default_factory() -> Any:
    from gpiozero import Device

    if Device.pin_factory is None:
        Device.pin_factory = Device._default_pin_factory()
    return Device.pin_factory
