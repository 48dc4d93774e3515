"""GPIO buttons, buzzer and LEDs on gpiozero's mock pins, with their timed states."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from firmware_bridge.gpio import GpioError, GpioPanel, pin_factory_by_name
from firmware_bridge.protocol.codec import ButtonPress
from referee.app.config import parse_config


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    mock = MockFactory()
    previous, Device.pin_factory = Device.pin_factory, mock
    yield mock
    mock.reset()  # frees the pins for the next test
    Device.pin_factory = previous


class FakeTicks:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_buttons_report_presses_and_ignore_contact_bounce(factory: MockFactory) -> None:
    ticks = FakeTicks()
    presses: list[ButtonPress] = []
    with GpioPanel(pin_factory=factory, on_button=presses.append, clock=ticks, player_pins=[5, 6]) as panel:
        start = factory.pin(17)
        start.drive_low()  # pressed (the button pulls up)
        ticks.now += 0.005
        start.drive_high()  # bounce
        ticks.now += 0.005
        start.drive_low()  # bounce
        assert presses == [ButtonPress("start", source="gpio")] and panel.bounces == 1
        ticks.now += 0.2
        start.drive_high()
        ticks.now += 0.2
        start.drive_low()  # a real second press
        factory.pin(6).drive_low()
        assert [p.name for p in presses] == ["start", "start", "done-1"]
        assert presses[-1].seat == 1 and panel.bounces == 1


@pytest.mark.parametrize(("bounce_ms", "accepted"), [(30, 3), (100, 1)])
def test_debounce_window_follows_the_setting(factory: MockFactory, bounce_ms: int, accepted: int) -> None:
    """Edges 40 ms apart: all real with a 30 ms window; with 100 ms only the first press counts."""
    ticks = FakeTicks()
    presses: list[ButtonPress] = []
    with GpioPanel(pin_factory=factory, on_button=presses.append, clock=ticks, bounce_ms=bounce_ms):
        pin = factory.pin(27)
        for _ in range(3):
            pin.drive_low()
            ticks.now += 0.04
            pin.drive_high()
            ticks.now += 0.04
        assert [p.name for p in presses] == ["pass"] * accepted


def test_a_held_button_is_reported_as_held(factory: MockFactory) -> None:
    presses: queue.Queue[ButtonPress] = queue.Queue()
    with GpioPanel(pin_factory=factory, on_button=presses.put, hold_seconds=0.05):
        factory.pin(22).drive_low()
        assert presses.get(timeout=1) == ButtonPress("continue", source="gpio")
        assert presses.get(timeout=1) == ButtonPress("continue", held=True, source="gpio")


def states(pin: object) -> list[bool]:
    """Every state `pin` has been in, first to last."""
    return [bool(state.state) for state in pin.states]  # type: ignore[attr-defined]


class RecordedPauses:
    """A `pause` for `GpioPanel` that returns at once and records the buzzer's state and length
    of each pause; one `blocking` on the first pause waits there until the pattern is stopped."""

    def __init__(self, pin: object, *, blocking: bool = False) -> None:
        self.pin = pin
        self.blocking = blocking
        self.paused: list[tuple[bool, float]] = []
        self.entered: queue.Queue[float] = queue.Queue()

    def __call__(self, stop: threading.Event, seconds: float) -> bool:
        self.paused.append((bool(self.pin.state), seconds))  # type: ignore[attr-defined]
        self.entered.put(seconds)
        if self.blocking and len(self.paused) == 1:
            return stop.wait(timeout=5)
        return stop.is_set()


@pytest.mark.parametrize(("pattern", "expected"), [
    ("ok", [(True, 0.1), (False, 0.0)]),
    ("warning", [(True, 0.1), (False, 0.1)] * 2),
    ("error", [(True, 0.6), (False, 0.0)]),
    ("timeout", [(True, 0.4), (False, 0.2)] * 3),
    ("match-end", [(True, 0.15), (False, 0.05)] * 3),
    ("2x50/150@880", [(True, 0.05), (False, 0.15)] * 2),
])
def test_beep_patterns_are_timed(factory: MockFactory, pattern: str,
                                 expected: list[tuple[bool, float]]) -> None:
    """Each tone sounds for its own on time, then is silent for its off time, whatever the load."""
    pauses = RecordedPauses(factory.pin(18))
    with GpioPanel(pin_factory=factory, pause=pauses) as panel:
        panel.beep(pattern, wait=True)
        assert pauses.paused == expected
        assert states(factory.pin(18)) == [False] + [True, False] * (len(expected) // 2)


def test_a_beep_sounds_in_real_time_by_default(factory: MockFactory) -> None:
    with GpioPanel(pin_factory=factory) as panel:
        started = time.monotonic()
        panel.beep("2x50/150@880", wait=True)
        assert time.monotonic() - started >= 0.4 - 0.005  # two tones of 50 ms on, 150 ms off
        assert states(factory.pin(18)) == [False, True, False, True, False]


def test_a_new_beep_replaces_one_still_sounding(factory: MockFactory) -> None:
    pauses = RecordedPauses(factory.pin(18), blocking=True)
    with GpioPanel(pin_factory=factory, pause=pauses) as panel:
        panel.beep("error")  # in the background, held in its first pause
        assert pauses.entered.get(timeout=5) == 0.6
        panel.beep("ok", wait=True)
        assert pauses.paused == [(True, 0.6), (True, 0.1), (False, 0.0)]
        assert states(factory.pin(18)) == [False, True, False, True, False]


def test_closing_the_panel_silences_the_buzzer(factory: MockFactory) -> None:
    pauses = RecordedPauses(factory.pin(18), blocking=True)
    panel = GpioPanel(pin_factory=factory, pause=pauses)
    panel.beep("timeout")
    assert pauses.entered.get(timeout=5) == 0.4
    panel.close()
    assert states(factory.pin(18)) == [False, True, False]


def test_leds_show_status(factory: MockFactory) -> None:
    with GpioPanel(pin_factory=factory) as panel:
        panel.status(ok=True)
        assert (factory.pin(23).state, factory.pin(24).state) == (1, 0)
        panel.status(ok=False)
        assert (factory.pin(23).state, factory.pin(24).state) == (0, 1)
        factory.pin(24).assert_states([False, True])


def test_panel_from_the_table_config_with_the_factory_by_name() -> None:
    section = {"enabled": True, "pin_factory": "mock", "start_pin": 5, "pass_pin": 6, "continue_pin": 13,
               "player_pins": [19, 26], "bounce_ms": 50}
    config = parse_config({"gpio": section}, environ={})
    panel = GpioPanel.from_config(config["gpio"])
    try:
        assert isinstance(panel.pin_factory, MockFactory)
        assert set(panel.buttons) == {"start", "pass", "continue", "done-0", "done-1"}
        assert panel.bounce_ms == 50
        presses: list[ButtonPress] = []
        panel.on_button(presses.append)
        panel.pin_factory.pin(26).drive_low()
        assert presses == [ButtonPress("done-1", source="gpio")]
    finally:
        panel.close()
        panel.pin_factory.reset()


def test_a_pin_used_twice_is_refused(factory: MockFactory) -> None:
    with pytest.raises(GpioError, match=r"gpio.buzzer_pin = 17 is already gpio.start_pin"):
        GpioPanel(pin_factory=factory, buzzer_pin=17)


def test_unknown_factory_name_is_refused() -> None:
    with pytest.raises(GpioError, match="unknown pin factory 'arduino'"):
        pin_factory_by_name("arduino")
    assert pin_factory_by_name("default") is None
