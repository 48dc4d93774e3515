"""The referee service on the real firmware: the table assembled as `domino-referee run` assembles it
(`hardware_parts` + `build_table`, the scoreboard port being the simulated board's pty) referees a
short all-fives match with the italian move clock, with an illegal play and a misread play undone
by holding Start on the board, and the test reads what the board really shows (the MAX7219 digits
the harness decodes, its LEDs and the buzzer's tones)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from firmware_bridge.display import SCORE_DIGITS, score_cells, text_cells
from firmware_bridge.simavr import DisplayShown, SimulatedBoard, Tone
from referee.app.assembly import Table, build_table
from referee.app.config import parse_config
from referee.app.devices import END_MESSAGE_SECONDS, board_text
from referee.app.hardware import hardware_parts
from referee.app.ports import Input
from referee.app.script import table_script
from referee.tiles import full_set
from tests.firmware_bridge.firmware.conftest import Builds
from tests.referee.app.matches import NAMES, SHORT, engine_result, simulated_record

RULES = "all-fives"
PLAYERS = tuple(NAMES[RULES])
HZ = 0.02          # Timer0's divider rounds the buzzer's frequency by under 2 %
# The board counts tenths by itself and the host rounds to a tenth when it sets them; a simulation
# starved of CPU counts late besides, by its drift from the wall clock (`SimulatedBoard.drift`).
CLOCK_SLACK = 0.25
RED_LED = 0x02


def score_segments(scores: tuple[int, ...]) -> list[int]:
    cells = [cell for score in scores for cell in score_cells(score)]
    return [cell.segments for cell in cells + text_cells("", SCORE_DIGITS - len(cells))]


def message_segments(message: str) -> list[int]:
    return [cell.segments for cell in text_cells(board_text(message), SCORE_DIGITS)]


def clock_of(shown: DisplayShown) -> tuple[str, float | None]:
    """The clock digits read back: ("P1", 24.7), or ("", None) when the clock is hidden."""
    seat = "".join(cell.char for cell in shown.cells[20:24]).strip()
    digits = "".join(str(cell) for cell in shown.cells[16:20]).strip()
    return seat, float(digits) if digits else None


class Match:
    """The running table, and the engine's view of it to compare the board with."""

    def __init__(self, table: Table, board: SimulatedBoard) -> None:
        self.table, self.board, self.service = table, board, table.service

    def feed(self, kind: str, data: dict[str, object]) -> None:
        assert self.service.wait_processed(self.service.feed(Input(kind, data, time.monotonic())), 10)

    def engine_scores(self) -> tuple[int, ...]:
        core = self.service.core
        assert core is not None
        return tuple(round(core.referee.snapshot()["scores"][name]) for name in PLAYERS)

    def agrees(self, shown: DisplayShown) -> bool:
        """Whether `shown` is what the engine reports: scores or message, and the move clock."""
        core = self.service.core
        assert core is not None
        first = list(shown.segments[:SCORE_DIGITS])
        wanted = message_segments(core.message) if core.message else score_segments(self.engine_scores())
        if first != wanted:
            return False
        seat, left = clock_of(shown)
        turn = core.turn()
        assert core.side is not None
        # No move is timed before a hand's first play (nobody knows when the tiles were dealt).
        engine_left = core.side.clock.time_left(shown.wall - self.service.origin)
        if turn is None or engine_left is None:
            return (seat, left) == ("", None)
        return seat == f"P{PLAYERS.index(turn) + 1}" and left is not None \
            and abs(left - engine_left) <= CLOCK_SLACK + self.board.drift()

    def board_agrees(self, timeout: float = 3.0) -> DisplayShown:
        return self.board.wait_display(self.agrees, timeout)

    def tone_since(self, count: int, hz: float, timeout: float = 3.0) -> Tone:
        """The first tone of about `hz` sounded after the first `count` tones (the ok beep of the
        move before may still be sounding)."""
        def sounded(board: SimulatedBoard) -> list[Tone]:
            return [tone for tone in board.buzzer_events[count:]
                    if tone.frequency_hz == pytest.approx(hz, rel=HZ)]
        assert self.board.wait_for(lambda b: bool(sounded(b)), timeout), self.board.buzzer_events[count:]
        return sounded(self.board)[0]


def illegal_tile(match: Match) -> str:
    core = match.service.core
    assert core is not None
    return next(str(tile) for tile in full_set(6) if str(tile) not in core.on_table()
                and not core.referee.legal_ends(str(tile)))


@pytest.fixture
def simulated_board(builds: Builds, tmp_path: Path) -> SimulatedBoard:
    return SimulatedBoard(builds.firmware.path, builds.harness.path, link=tmp_path / "scoreboard")


def test_the_service_referees_a_match_on_the_real_firmware(simulated_board: SimulatedBoard,
                                                            tmp_path: Path) -> None:
    record = simulated_record(RULES, seed=4)
    lines = table_script(record)[1:]       # the Start button is pressed on the board instead
    expected = engine_result(record)
    final = tuple(int(expected["scores"][name]) for name in PLAYERS)
    with simulated_board as board:
        config = parse_config({
            "table": {"id": "fw-1", "rules": RULES, "players": list(PLAYERS), "options": SHORT[RULES]},
            "clock": {"mode": "italian"},
            "scoreboard": {"enabled": True, "port": board.port},
            "storage": {"data_dir": str(tmp_path / "data")}, "web": {"enabled": False}}, environ={})
        parts = hardware_parts(config, camera=False)
        assert parts.notes == [] and parts.scoreboard.wait_connected(5)
        table = build_table(config, displays=parts.displays, signals=parts.signals, devices=parts.devices)
        table.closers.extend(parts.closers)
        started, undone = threading.Event(), threading.Event()

        def processed(inp: Input, logged: bool) -> None:
            (started if inp.kind == "start" else undone if inp.kind == "undo" else threading.Event()).set()
        table.service.on_processed = processed
        table.start()
        match = Match(table, board)
        try:
            board.press("start")           # through the firmware's button debounce and the link
            assert started.wait(5) and table.service.core is not None
            match.board_agrees()
            illegal_at = next(n for n, line in enumerate(lines) if line["kind"] == "placed" and n > 10)
            undo_at = next(n for n, line in enumerate(lines) if n > illegal_at + 5
                           and line["kind"] == "placed" and lines[n - 1]["kind"] == "placed")
            plays = 0
            for n, line in enumerate(lines):
                if n == illegal_at:
                    tile = illegal_tile(match)
                    tones = len(board.buzzer_events)
                    match.feed("placed", {"tile": tile})
                    shown = match.board_agrees()
                    core = table.service.core
                    assert core.message.startswith(f"{tile}: ") and "take it back" in core.message
                    assert list(shown.segments[:SCORE_DIGITS]) == message_segments(core.message)
                    assert board.wait_for(lambda b: bool(b.leds & RED_LED), 2)
                    error = match.tone_since(tones, 400)     # the error beep: one low 600 ms tone
                    assert error.duration_ms == pytest.approx(600, abs=1.5)
                    match.feed("removed", {"tile": tile})
                    match.board_agrees()
                    assert board.wait_for(lambda b: not b.leds & RED_LED, 2)
                core = table.service.core
                mover, allowance = core.turn(), core.side.clock.allowance() if core.side else None
                match.feed(line["kind"], {k: v for k, v in line.items() if k not in ("kind", "t")})
                plays += line["kind"] == "placed"
                if n == undo_at:
                    # A misread play: the table manager holds Start on the board for a second,
                    # while the play's beep may still sound.
                    match.board_agrees()
                    board.press("start", 1100)
                    assert undone.wait(5)
                    assert core.turn() == mover and core.message == "undone"
                    assert core.side is not None and core.side.clock.allowance() == allowance
                    match.board_agrees()         # the mover's clock runs again, its time given back
                    match.feed(line["kind"], {k: v for k, v in line.items() if k not in ("kind", "t")})
                if table.service.match_over.is_set():
                    break
                match.board_agrees()
            assert table.service.match_over.is_set() and n == len(lines) - 1 and plays > 20
            # The end: "match over" with the three-tone signal, then the final scores stay.
            assert match.engine_scores() == final
            shown = board.wait_display(lambda d: list(d.segments[:SCORE_DIGITS]) ==
                                       message_segments("match over"), 3)
            assert clock_of(shown) == ("", None)
            later = board.wait_display(lambda d: list(d.segments[:SCORE_DIGITS]) == score_segments(final),
                                       END_MESSAGE_SECONDS + 1)
            assert later.wall - shown.wall == pytest.approx(END_MESSAGE_SECONDS, abs=0.1)
            assert board.wait_for(lambda b: len(b.buzzer_events) >= 3 and
                                  [round(t.frequency_hz, -2) for t in b.buzzer_events[-3:]] ==
                                  [1000, 1500, 2000], 3), board.buzzer_events[-3:]
        finally:
            table.stop()
