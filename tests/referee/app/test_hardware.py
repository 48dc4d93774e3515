"""The service on the emulated scoreboard (a pty), a real broker and gpiozero's mock pins."""

from __future__ import annotations

import json
import queue
import threading
from pathlib import Path
from typing import Any

from firmware_bridge.gpio import GpioPanel
from firmware_bridge.scoreboard import Scoreboard
from referee.app.assembly import engine_referee
from referee.app.config import parse_config
from referee.app.core import MatchSettings
from referee.app.devices import GpioAdapter, ScoreboardDisplay, board_text
from referee.app.eventlog import EventLog
from referee.app.mqtt import MqttLink, MqttSettings
from referee.app.ports import Input
from referee.app.script import table_script
from referee.app.service import TableService

from .conftest import USERS, Broker, Watcher
from .matches import NAMES, SHORT, engine_result, simulated_record


class ScriptClock:
    """The table's time is the script's: buttons and commands are stamped with the last line's t."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def feed_lines(service: TableService, lines: list[dict[str, Any]], first: int) -> None:
    for n, line in enumerate(lines, first):
        data = {k: v for k, v in line.items() if k not in ("kind", "t")}
        assert isinstance(service.now, ScriptClock)
        service.now.t = float(line["t"])
        service.feed(Input(line["kind"], {**data, "line": n}, service.now.t))
    assert service.wait_processed(timeout=60)


def test_match_on_the_emulated_board_survives_an_unplug(tmp_path: Path, broker: Broker) -> None:
    rules = "italian"
    record = simulated_record(rules, seed=3)
    expected = engine_result(record)
    lines = table_script(record)
    players = tuple(NAMES[rules])
    log = EventLog(tmp_path / "log.sqlite")
    board = Scoreboard("emulator://", connect_timeout=5).open()
    assert board.emulator is not None and board.connected
    clock = ScriptClock()
    adapter = ScoreboardDisplay(board, players, clock)
    service = TableService(MatchSettings("t1", rules, players, options=SHORT[rules]), log=log,
                           referee_factory=engine_referee, display=adapter, signals=adapter, now=clock)
    link = MqttLink(MqttSettings.from_url(broker.url, "t1", username="referee", password=USERS["referee"]),
                    on_command=service.command, outbox=log)
    service.publisher = link
    started, undone = threading.Event(), threading.Event()

    def processed(inp: Input, logged: bool) -> None:
        if logged and inp.kind == "start":
            started.set()
        if logged and inp.kind == "undo":
            undone.set()
    service.on_processed = processed
    viewer = Watcher(broker, "viewer")
    viewer.subscribe("domino/t1/events")
    link.start()
    service.start(tick_interval=None)
    adapter.start(service.feed)

    board.emulator.press("start")             # the table manager presses Start on the board
    assert started.wait(10)
    half = next(n for n in range(len(lines) // 2, len(lines)) if lines[n - 1]["kind"] == "placed")
    feed_lines(service, lines[1:half], 2)

    # A misread play: an unauthorised user cannot undo it, the table manager can (MQTT cmd/undo).
    manager = Watcher(broker, "manager")
    tiles = service.core.on_table() if service.core else set()
    assert viewer.publish("domino/t1/cmd/undo", "").is_failure
    assert not manager.publish("domino/t1/cmd/undo", "").is_failure
    assert undone.wait(10)
    assert service.core is not None and service.core.on_table() == tiles - {lines[half - 1]["tile"]}
    feed_lines(service, lines[half - 1:half], half)     # the tile is read again, correctly
    assert service.core.on_table() == tiles
    board.emulator.unplug()                   # the USB cable is pulled mid-match ...
    feed_lines(service, lines[half:-3], half + 1)
    board.emulator.replug(power_cycle=True)   # ... and plugged back: the board restarted blank
    feed_lines(service, lines[-3:], len(lines) - 2)
    final = tuple(int(expected["scores"][name]) for name in players)
    assert board.emulator.wait_for(lambda model: model.state.scores == final, 10), board.emulator.text()
    assert service.match_over.is_set()
    assert board.emulator.wait_for(lambda model: any(str(b.beep) == "match-end" for b in model.beeps), 5)

    # MQTT: every event in order, and the retained state shows the end of the match.
    events = [viewer.next_json("events") for _ in range(len(log.events()))]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["event"] == "match"
    late = Watcher(broker, "viewer")
    late.subscribe("domino/t1/state")
    state = late.next_json("state")
    assert state["phase"] == "match-over"
    assert state["scores"] == {k: float(v) for k, v in expected["scores"].items()}

    # After the end, a command changes nothing: it is answered on cmd/errors.
    errors = Watcher(broker, "viewer")
    errors.subscribe("domino/t1/cmd/errors")
    assert not manager.publish("domino/t1/cmd/pass", "").is_failure
    assert "the match is over" in errors.next_json("cmd/errors")["error"]
    errors.close()
    for client in (viewer, late, manager):
        client.close()
    service.stop()
    link.stop()
    board.close()


def test_gpio_buttons_and_buzzer_on_mock_pins() -> None:
    config = parse_config({"gpio": {"enabled": True, "pin_factory": "mock", "player_pins": [5, 6],
                                    "bounce_ms": 0}}, environ={})
    panel = GpioPanel.from_config(config["gpio"], hold_seconds=0.05)
    adapter = GpioAdapter(panel, ("Ayşe", "Burak"), lambda: 1.5)
    inputs: queue.Queue[Input] = queue.Queue()
    adapter.start(inputs.put)
    try:
        pin = panel.buttons["pass"].device.pin
        pin.drive_low()
        pin.drive_high()
        assert inputs.get(timeout=5) == Input("pass", {}, 1.5, origin="button")
        seat = panel.buttons["done-1"].device.pin
        seat.drive_low()
        seat.drive_high()
        assert inputs.get(timeout=5) == Input("lead", {"player": "Burak"}, 1.5, origin="button")
        start = panel.buttons["start"].device.pin
        start.drive_low()                       # held: its press, then Undo
        assert inputs.get(timeout=5).kind == "start"
        assert inputs.get(timeout=5) == Input("undo", {}, 1.5, origin="button")
        start.drive_high()
        buzzer = panel.buzzer.pin
        buzzer.clear_states()
        adapter.signal("error")
        assert panel.error_led.value and not panel.ok_led.value
        assert panel.wait_silent(5)
        assert [state.state for state in buzzer.states] == [False, True, False]
    finally:
        adapter.stop()
    assert board_text("Ayşe: take 5-6 back please") == "Ayse: take 5-6 b"
    assert json.dumps(board_text("é")) == '"e"'
