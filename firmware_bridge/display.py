"""What the scoreboard shows: the display state and its layout on the 24 seven-segment digits.

`DisplayState` is what the host keeps and sends in a `SYNC`; `layout` turns a state (with the
clock already counted down) into the 24 digit cells exactly as docs/serial-protocol.md describes,
so the emulator, the terminal view and the tests agree with the firmware.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from firmware_bridge.errors import BridgeError

DIGITS = 24
SCORE_DIGITS = 16
MAX_SEATS = 4
MAX_TEXT = 16
MIN_SCORE, MAX_SCORE = -999, 9999
MAX_TENTHS = 0xFFFF
NO_SEAT = 255

# Segment bits in MAX7219 "no decode" order: DP A B C D E F G.
SEG_A, SEG_B, SEG_C, SEG_D, SEG_E, SEG_F, SEG_G, SEG_DP = 0x40, 0x20, 0x10, 0x08, 0x04, 0x02, 0x01, 0x80

_FONT_SPEC = {
    "0": "ABCDEF", "1": "BC", "2": "ABDEG", "3": "ABCDG", "4": "BCFG", "5": "ACDFG", "6": "ACDEFG",
    "7": "ABC", "8": "ABCDEFG", "9": "ABCDFG", "A": "ABCEFG", "b": "CDEFG", "C": "ADEF", "c": "DEG",
    "d": "BCDEG", "E": "ADEFG", "F": "AEFG", "G": "ACDEF", "H": "BCEFG", "h": "CEFG", "I": "EF",
    "i": "C", "J": "BCDE", "L": "DEF", "n": "CEG", "O": "ABCDEF", "o": "CDEG", "P": "ABEFG",
    "q": "ABCFG", "r": "EG", "S": "ACDFG", "t": "DEFG", "U": "BCDEF", "u": "CDE", "y": "BCDFG",
    "-": "G", "_": "D", "=": "DG", " ": "", "'": "F", '"': "BF", "?": "ABEG",
}
_SEGMENT_BITS = {"A": SEG_A, "B": SEG_B, "C": SEG_C, "D": SEG_D, "E": SEG_E, "F": SEG_F, "G": SEG_G}


def _font() -> dict[str, int]:
    font = {char: sum(_SEGMENT_BITS[s] for s in segments) for char, segments in _FONT_SPEC.items()}
    # Letters the display can show in only one case are shown for both.
    for char in list(font):
        for other in (char.lower(), char.upper()):
            font.setdefault(other, font[char])
    return font


FONT: dict[str, int] = _font()


class DisplayValueError(BridgeError, ValueError):
    """A value the scoreboard cannot show (a seat, a clock, a message)."""


@dataclass(frozen=True)
class DisplayState:
    """Everything the scoreboard shows; immutable, changed with `dataclasses.replace`.

    `tenths` is the clock as it was when the state was made; a board counts a running clock down
    by itself, so the host stores the moment of the last clock change next to this state.
    """

    scores: tuple[int, ...] = ()
    seat: int | None = None
    tenths: int = 0
    running: bool = False
    warning: bool = False
    away: bool = False
    green: bool = False
    red: bool = False
    turn: frozenset[int] = field(default_factory=frozenset)
    message: str = ""
    message_tenths: int = 0

    def __post_init__(self) -> None:
        if len(self.scores) > MAX_SEATS:
            raise DisplayValueError(f"at most {MAX_SEATS} scores fit the board, got {list(self.scores)!r}")
        for score in self.scores:
            if not -0x8000 <= score <= 0x7FFF:
                raise DisplayValueError(f"score {score!r} does not fit a 16-bit signed integer")
        if self.seat is not None and not 0 <= self.seat < MAX_SEATS:
            raise DisplayValueError(f"clock seat {self.seat!r} is not 0-3 (or None for no clock)")
        for name in ("tenths", "message_tenths"):
            value = getattr(self, name)
            if not 0 <= value <= MAX_TENTHS:
                raise DisplayValueError(f"{name} {value!r} is not 0-{MAX_TENTHS}")
        if any(not 0 <= seat < MAX_SEATS for seat in self.turn):
            raise DisplayValueError(f"turn marker seats {sorted(self.turn)!r} are not all 0-3")
        check_text(self.message)

    @property
    def clock_flags(self) -> int:
        return int(self.running) | int(self.warning) << 1 | int(self.away) << 2

    @property
    def led_mask(self) -> int:
        return int(self.green) | int(self.red) << 1 | sum(1 << (4 + seat) for seat in self.turn)

    def with_clock_flags(self, flags: int) -> DisplayState:
        return replace(self, running=bool(flags & 1), warning=bool(flags & 2), away=bool(flags & 4))

    def with_led_mask(self, mask: int) -> DisplayState:
        return replace(self, green=bool(mask & 1), red=bool(mask & 2),
                       turn=frozenset(seat for seat in range(MAX_SEATS) if mask & (1 << (4 + seat))))


def check_text(text: str) -> str:
    """A scoreboard message is 0-16 printable ASCII characters."""
    if len(text) > MAX_TEXT:
        raise DisplayValueError(f"message {text!r} is longer than {MAX_TEXT} characters")
    if any(not " " <= char <= "~" for char in text):
        raise DisplayValueError(f"message {text!r} has characters outside printable ASCII")
    return text


@dataclass(frozen=True)
class Cell:
    """One seven-segment digit: the character shown (blank if the font has none) and its point."""

    char: str = " "
    point: bool = False

    @property
    def segments(self) -> int:
        return FONT.get(self.char, 0) | (SEG_DP if self.point else 0)

    def __str__(self) -> str:
        return self.char + ("." if self.point else "")


def _cells(text: str) -> list[Cell]:
    cells: list[Cell] = []
    for char in text:
        if char == "." and cells and not cells[-1].point:
            cells[-1] = Cell(cells[-1].char, True)
        elif char == ".":
            cells.append(Cell(" ", True))
        else:
            cells.append(Cell(char if char in FONT else " "))
    return cells


def text_cells(text: str, width: int) -> list[Cell]:
    """Left-aligned text, one character per digit; a '.' lights the previous digit's point."""
    cells = _cells(text)[:width]
    return cells + [Cell()] * (width - len(cells))


def score_cells(score: int | None) -> list[Cell]:
    if score is None:
        return [Cell()] * 4
    text = "----" if not MIN_SCORE <= score <= MAX_SCORE else f"{score:>4d}"
    return [Cell(char) for char in text]


def clock_text(tenths: int) -> str:
    """The four clock digits: `MM.SS` from 10 minutes (capped), ` M.SS` from 1 minute, `SS.t` below."""
    if tenths >= 600:
        minutes, seconds = divmod(tenths // 10, 60)
        if minutes > 99:
            minutes, seconds = 99, 59
        return f"{minutes:>2d}.{seconds:02d}"
    return f"{tenths // 10:>2d}.{tenths % 10:d}"


def layout(state: DisplayState, *, tenths: int | None = None, blink_on: bool = True,
           message: str | None = None) -> list[Cell]:
    """The 24 cells for `state`, with the clock showing `tenths` (default: the state's own).

    `message` overrides the state's message (the board shows `no HoSt` that way); `blink_on` is
    the phase of the warning blink.
    """
    text = state.message if message is None else message
    if text:
        cells = text_cells(text, SCORE_DIGITS)
    else:
        cells = []
        for seat in range(MAX_SEATS):
            cells += score_cells(state.scores[seat] if seat < len(state.scores) else None)
    if state.seat is None:
        return cells + [Cell()] * 8
    left = state.tenths if tenths is None else tenths
    clock = _cells(clock_text(left))
    clock = [Cell()] * (4 - len(clock)) + clock
    if state.warning and not blink_on:
        clock = [Cell()] * 4
    status = "  " if state.running else "--"
    if state.away:
        status = " A"
    return cells + clock + text_cells(f"P{state.seat + 1}{status}", 4)


def cells_text(cells: list[Cell]) -> str:
    """A compact one-line form: the digits in groups of four, points attached."""
    groups = ["".join(str(cell) for cell in cells[start:start + 4]) for start in range(0, len(cells), 4)]
    return "|".join(groups)
