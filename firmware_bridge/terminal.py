"""What the scoreboard shows, drawn in a terminal: large seven-segment digits or one compact line.

```
 seat 1   seat 2   seat 3   seat 4     clock   seat
     _   _   _                          _   _
  |  _| |_| |_   ...                 |  _||_   ...
  | |_   _|  _|                      | |_  _|
 LEDs: green ● red ○  turn: P2    last beep: warning at 12.3 s
```
"""

from __future__ import annotations

from firmware_bridge.display import (
    DIGITS,
    SEG_A,
    SEG_B,
    SEG_C,
    SEG_D,
    SEG_E,
    SEG_F,
    SEG_G,
    Cell,
    DisplayState,
    cells_text,
)
from firmware_bridge.protocol.board import BeepRecord

GROUP_TITLES = ("seat 1", "seat 2", "seat 3", "seat 4", "clock", "move")


def _digit_rows(cell: Cell) -> tuple[str, str, str]:
    bits = cell.segments

    def on(mask: int, char: str) -> str:
        return char if bits & mask else " "

    return (
        " " + on(SEG_A, "_") + "  ",
        on(SEG_F, "|") + on(SEG_G, "_") + on(SEG_B, "|") + " ",
        on(SEG_E, "|") + on(SEG_D, "_") + on(SEG_C, "|") + ("." if cell.point else " "),
    )


def big_digits(cells: list[Cell]) -> str:
    """Three text rows per row of digits: the scores on one row, the clock and seat on the next."""
    lines: list[str] = []
    for first, last in ((0, 16), (16, DIGITS)):
        groups = [cells[start:start + 4] for start in range(first, min(last, len(cells)), 4)]
        titles = [GROUP_TITLES[(first + index * 4) // 4] for index in range(len(groups))]
        lines.append("  ".join(f"{title:<16}" for title in titles).rstrip())
        rows = [[_digit_rows(cell) for cell in group] for group in groups]
        for row in range(3):
            lines.append("  ".join("".join(digit[row] for digit in group) for group in rows).rstrip())
    return "\n".join(lines)


def status_line(state: DisplayState, last_beep: BeepRecord | None = None, *, now: float | None = None) -> str:
    green = "●" if state.green else "○"
    red = "●" if state.red else "○"
    turn = ", ".join(f"P{seat + 1}" for seat in sorted(state.turn)) or "-"
    line = f"LEDs: green {green} red {red}  turn: {turn}"
    if last_beep is not None:
        ago = "" if now is None else f" {now - last_beep.t:.1f} s ago"
        line += f"  last beep: {last_beep.beep}{ago}"
    return line


def render(cells: list[Cell], state: DisplayState, last_beep: BeepRecord | None = None, *,
           compact: bool = False, now: float | None = None) -> str:
    """The display as text: `compact` gives one line (`  12|  30|...| 9.5|P2  `), else big digits."""
    digits = f"[{cells_text(cells)}]" if compact else big_digits(cells)
    joiner = "  " if compact else "\n"
    return digits + joiner + status_line(state, last_beep, now=now)
