"""`domino-referee scoreboard test|show --port URL`: wiring checks and a view of the display."""

from __future__ import annotations

import argparse
import functools
import logging
import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from firmware_bridge.beeps import duration_ms
from firmware_bridge.display import Cell, cells_text, layout
from firmware_bridge.protocol.codec import Beep, ButtonPress
from firmware_bridge.protocol.session import LinkError
from firmware_bridge.scoreboard import Scoreboard
from firmware_bridge.terminal import render

BEEPS = ("ok", "warning", "error", "timeout", "match-end")
BUTTONS = ("start", "pass", "continue")


def register(subparsers: Any) -> None:
    scoreboard = subparsers.add_parser("scoreboard", help="check and watch the serial scoreboard")
    actions = scoreboard.add_subparsers(dest="scoreboard_command", metavar="ACTION", required=True)
    test = actions.add_parser("test", help="exercise a connected board: digits, clock, beeps, LEDs, buttons")
    _port_arguments(test)
    test.add_argument("--button-timeout", type=float, default=15.0, metavar="S",
                      help="seconds to wait for each button press (default 15)")
    test.add_argument("--skip-buttons", action="store_true", help="do not wait for button presses")
    test.add_argument("--pause", type=float, default=1.0, metavar="S",
                      help="seconds to look at each display step (default 1)")
    test.set_defaults(handler=run_test)
    show = actions.add_parser("show", help="show scores/clock/message and draw what the display shows")
    _port_arguments(show)
    show.add_argument("--scores", default="", metavar="A,B,…", help="scores of seats 1-4, e.g. 12,30")
    show.add_argument("--clock", default="", metavar="SEAT:SECONDS",
                      help="run seat's clock (seats 1-4), e.g. 2:20")
    show.add_argument("--message", default="", help="a message over the scores (16 characters)")
    show.add_argument("--follow", type=float, default=0.0, metavar="S", help="redraw for S seconds")
    show.add_argument("--compact", action="store_true", help="one line instead of large digits")
    show.set_defaults(handler=run_show)


def _port_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", required=True, metavar="URL",
                        help="pyserial URL (/dev/ttyACM0, socket://host:port) or emulator://")
    parser.add_argument("--baud", type=int, default=115200, help="serial speed (default 115200)")
    parser.add_argument("--connect-timeout", type=float, default=5.0, metavar="S",
                        help="seconds to wait for the handshake (default 5)")


def _open(args: argparse.Namespace) -> Scoreboard:
    # The command reports a missing board itself; the service's "retrying in the background" would mislead.
    logging.getLogger("firmware_bridge.scoreboard").setLevel(logging.ERROR)
    board = Scoreboard(args.port, baud=args.baud, connect_timeout=args.connect_timeout).open()
    if not board.connected:
        reason = board.link.last_error or f"no answer to HELLO ({board.link.state.value})"
        board.close()
        raise LinkError(f"scoreboard {args.port}: not connected after {args.connect_timeout} s: {reason}")
    return board


class _Checks:
    def __init__(self, board: Scoreboard, pause: float) -> None:
        self.board = board
        self.pause = pause
        self.failed: list[str] = []

    def step(self, title: str, action: Callable[[], object]) -> None:
        print(f"- {title}", flush=True)
        try:
            result = action()
        except LinkError as error:
            self.fail(f"{title}: {error}")
            return
        if isinstance(result, str):
            print(f"    {result}")
        self.look()

    def look(self) -> None:
        """Give a person time to look, and compare with the emulator's digits when there is one."""
        threading.Event().wait(self.pause)
        if self.board.emulator is not None:
            expected = layout(self.board.state, blink_on=True)
            shown = self.board.emulator.cells()
            if not _same_digits(shown, expected):
                self.fail(f"the emulator shows [{cells_text(shown)}], expected [{cells_text(expected)}]")

    def fail(self, what: str) -> None:
        print(f"    FAILED: {what}")
        self.failed.append(what)


def _same_digits(shown: list[Cell], expected: list[Cell]) -> bool:
    # The clock digits may have ticked between the two readings; compare the rest exactly.
    return shown[:16] == expected[:16] and shown[20:] == expected[20:]


def run_test(args: argparse.Namespace) -> int:
    board = _open(args)
    try:
        checks = _Checks(board, args.pause)
        version = board.link.session.board
        assert version is not None
        print(f"connected to {args.port}: protocol {version.version}, firmware "
              f"{version.firmware_major}.{version.firmware_minor}, {version.digits} digits")
        checks.step("digits: all segments", lambda: board.message("8" * 16).wait(2))
        checks.step("digits: all decimal points", lambda: board.message("." * 16).wait(2))
        board.message("").wait(2)
        checks.step("scores 1, 22, 333, 4444", lambda: board.show_scores([1, 22, 333, 4444]).wait(2))
        checks.step("negative and too large scores: -5, -999, 10000, 0",
                    lambda: board.show_scores([-5, -999, 10000, 0]).wait(2))
        checks.step("clock: seat 1, 10 s, counting down", lambda: board.run_clock(0, 10.0).wait(2))
        _check_countdown(checks)
        checks.step("clock: seat 2, 5:00, warning (blinking)",
                    lambda: board.run_clock(1, 300, warning=True).wait(2))
        checks.step("clock: seat 3 away", lambda: board.run_clock(2, 60, away=True).wait(2))
        checks.step("clock: stopped", lambda: board.stop_clock().wait(2))
        for name in BEEPS:
            checks.step(f"beep: {name}", functools.partial(_beep, board, name))
        checks.step("LEDs: green", lambda: board.leds(green=True, red=False, turn=None).wait(2))
        checks.step("LEDs: red", lambda: board.leds(green=False, red=True).wait(2))
        for seat in range(4):
            checks.step(f"LEDs: turn marker P{seat + 1}",
                        functools.partial(lambda turn: board.leds(red=False, turn=turn).wait(2), seat))
        board.leds(turn=None)
        if not args.skip_buttons:
            _check_buttons(checks, args.button_timeout)
        status = board.status()
        print(f"board status: uptime {status.uptime_s} s, {status.garbage_frames} garbage frames; host: "
              f"{board.link.session.stats.retries} retries, {board.link.protocol.garbage} garbage frames")
        board.message("tESt donE" if not checks.failed else "tESt FAIL").wait(2)
    finally:
        board.close()
    if checks.failed:
        print(f"{len(checks.failed)} check(s) failed:", *checks.failed, sep="\n  ", file=sys.stderr)
        return 1
    print("all checks passed")
    return 0


def _beep(board: Scoreboard, name: str) -> str:
    beep = Beep.parse(name)
    board.beep(beep).wait(2)
    threading.Event().wait(duration_ms(beep) / 1000)
    return f"{duration_ms(beep)} ms"


def _check_countdown(checks: _Checks) -> None:
    board = checks.board
    threading.Event().wait(1.0)
    status = board.status()
    host = board.state.tenths
    print(f"    after 1 s the board shows {status.tenths / 10:.1f} s, the host expects {host / 10:.1f} s")
    if abs(status.tenths - host) > 1:
        checks.fail(f"board clock {status.tenths} tenths, host {host} tenths")


def _check_buttons(checks: _Checks, timeout: float) -> None:
    board = checks.board
    presses: queue.Queue[ButtonPress] = queue.Queue()
    board.on_button(presses.put)
    for name in BUTTONS:
        print(f"- press {name.upper()} on the board (within {timeout:g} s)", flush=True)
        if board.emulator is not None:
            board.emulator.press(name)
        deadline = time.monotonic() + timeout
        while True:
            try:
                press = presses.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                checks.fail(f"no {name} press within {timeout:g} s")
                break
            if press.name == name:
                print(f"    {name}: ok")
                break
            print(f"    {press.name} pressed (waiting for {name})")


def run_show(args: argparse.Namespace) -> int:
    board = _open(args)
    try:
        if args.scores:
            try:
                scores = [int(score) for score in args.scores.split(",")]
            except ValueError:
                raise LinkError(f"--scores {args.scores!r}: expected integers separated by commas") from None
            board.show_scores(scores)
        if args.clock:
            seat, _, seconds = args.clock.partition(":")
            try:
                board.run_clock(int(seat) - 1, float(seconds))
            except ValueError:
                raise LinkError(f"--clock {args.clock!r}: expected SEAT:SECONDS with seat 1-4") from None
        if args.message:
            board.message(args.message)
        board.status()  # everything above has been acknowledged once this answers
        deadline = time.monotonic() + args.follow
        while True:
            print(_draw(board, args.compact), flush=True)
            if time.monotonic() >= deadline:
                break
            threading.Event().wait(0.5)
    finally:
        board.close()
    return 0


def _draw(board: Scoreboard, compact: bool) -> str:
    emulator = board.emulator
    if emulator is not None:
        last = emulator.beeps[-1] if emulator.beeps else None
        return render(emulator.cells(), emulator.board.state, last, compact=compact, now=emulator.clock())
    state = board.state
    return render(layout(state), state, compact=compact)
