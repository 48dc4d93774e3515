"""Adapters from the service's small interfaces to the real devices: the serial scoreboard
(`firmware_bridge.scoreboard.Scoreboard`, any pyserial URL or ``emulator://``) and the Pi's GPIO
(gpiozero buttons, buzzer and LEDs; ``pin_factory = "mock"`` runs them anywhere).

Buttons, on the board or on GPIO: Start, Pass and Continue do what they say; holding Start for a
second is Undo (the table manager fixing a misread); a seat's "done" button claims the lead for
that seat when the rules let the holder of the highest double lead.
"""

from __future__ import annotations

import threading
import time
import unicodedata
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from firmware_bridge.protocol.messages import ButtonPress
from referee.app.config import Config
from referee.app.health import Health
from referee.app.ports import BoardView, Feed, Input, InputKind

if TYPE_CHECKING:   # the device libraries load only when a device is opened
    from firmware_bridge.gpio import GpioPanel
    from firmware_bridge.protocol.session import LinkEvent
    from firmware_bridge.scoreboard import Scoreboard

BEEPS = {"ok": "ok", "error": "error", "warning": "warning", "timeout": "timeout", "hand": "ok",
         "match": "match-end"}
# The board shows a message in place of the scores: at the match's end it gives the digits back
# after this long, so the final scores stay on the board (the firmware times it by itself).
END_MESSAGE_SECONDS = 4.0


def board_text(text: str, width: int = 16) -> str:
    """A message as the 7-segment board can show it: printable ASCII, at most `width` characters."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return "".join(char for char in plain if " " <= char <= "~")[:width]


def button_input(name: str, held: bool, players: tuple[str, ...], now: float) -> Input | None:
    """A button press as an input. A held button first reports its press, then that it is held:
    holding Start is Undo (its press changes nothing while a match runs); other holds add nothing."""
    if held:
        return Input(InputKind.UNDO, {}, now, origin="button") if name == "start" else None
    if name in ("start", "pass", "continue"):
        return Input(InputKind(name), {}, now, origin="button")
    if name.startswith("done-") and name[5:].isdigit() and int(name[5:]) < len(players):
        return Input(InputKind.LEAD, {"player": players[int(name[5:])]}, now, origin="button")
    return None


class ScoreboardDisplay:
    """`Display` and `Signals` on a `Scoreboard`; its buttons become inputs (a `Device`)."""

    def __init__(self, board: Scoreboard, players: tuple[str, ...], now: Callable[[], float]) -> None:
        self.board = board
        self.players = players
        self.now = now
        self._shown: dict[str, Any] = {}
        self._lock = threading.Lock()
        # Extra fields for button inputs (the demo tags them with the move they belong to).
        self.context: Callable[[], Mapping[str, Any]] | None = None

    # Device
    def start(self, feed: Feed) -> None:
        def pressed(press: ButtonPress) -> None:
            inp = button_input(press.name, bool(press.held), self.players, self.now())
            if inp is not None:
                if self.context is not None:
                    inp = Input(inp.kind, {**inp.data, **self.context()}, inp.at, inp.origin)
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
                    self._shown.get("since") != view.clock_since or \
                    (view.clock is not None and self._shown.get("clock") is None):
                if seat is None or view.clock is None:
                    self.board.hide_clock()
                else:
                    self.board.run_clock(seat, max(view.clock, 0.0))
                self.board.leds(turn=seat)
                self._shown.update(turn=seat, hand=view.hand, clock=clock[2], since=view.clock_since)
            text = board_text(view.message)
            if force or self._shown.get("message") != text:
                self.board.message(text, END_MESSAGE_SECONDS if text and view.phase == "match-over" else 0)
                self.board.leds(red=bool(text) and "take" in view.message)
                self._shown["message"] = text

    def sync(self, view: BoardView) -> None:
        self.show(view, force=True)

    # Signals
    def signal(self, name: str) -> None:
        if name in BEEPS:
            self.board.beep(BEEPS[name])


def open_scoreboard(config: Config, health: Health) -> ScoreboardDisplay:
    """The `[scoreboard]` board, opened (its link connects in the background), as the service sees
    it; its link reports to `health` (unplugged: failed, back: ok)."""
    from firmware_bridge.scoreboard import Scoreboard

    section = config["scoreboard"]
    board = Scoreboard(section["port"], baud=section["baud"])
    watch_link(board, health)
    board.open()
    if not board.connected:
        health.failed("scoreboard", f"{section['port']}: not connected "
                                    f"({board.link.last_error or 'no answer'}); retrying")
    return ScoreboardDisplay(board, tuple(config["table"]["players"]), time.monotonic)


def watch_link(board: Scoreboard, health: Health) -> None:
    """The scoreboard's link events as its health: unplugged is failed, back is ok."""
    def event(link_event: LinkEvent) -> None:
        if link_event.kind == "connected":
            health.ok("scoreboard", f"{board.url} connected")
        elif link_event.kind == "disconnected" and link_event.detail != "link closed":   # not our close
            health.failed("scoreboard", f"{board.url} lost: {link_event.detail}; reconnecting")
        elif link_event.kind == "incompatible":
            health.failed("scoreboard", f"{board.url}: {link_event.detail}")
    board.on_link_event(event)


class GpioAdapter:
    """`Signals` and a `Device` on `firmware_bridge.gpio.GpioPanel` (buttons, buzzer, LEDs)."""

    def __init__(self, panel: GpioPanel, players: tuple[str, ...], now: Callable[[], float]) -> None:
        self.panel = panel
        self.players = players
        self.now = now

    def start(self, feed: Feed) -> None:
        def pressed(press: ButtonPress) -> None:
            inp = button_input(press.name, bool(press.held), self.players, self.now())
            if inp is not None:
                feed(inp)
        self.panel.on_button(pressed)

    def stop(self) -> None:
        self.panel.close()

    def signal(self, name: str) -> None:
        if name in BEEPS:
            self.panel.beep(BEEPS[name])
            self.panel.status(ok=name not in ("error", "timeout"))


def open_gpio(config: Config) -> GpioAdapter:
    """The `[gpio]` buttons, buzzer and LEDs, as the service sees them."""
    from firmware_bridge.gpio import GpioPanel

    return GpioAdapter(GpioPanel.from_config(config["gpio"]), tuple(config["table"]["players"]),
                       time.monotonic)
