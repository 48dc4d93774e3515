"""Moves (play, draw, pass) as values, and the errors a refused move raises.

Like python-chess's `IllegalMoveError`/`AmbiguousMoveError`, every error quotes the input and
says exactly why; all subclass `DominoError` and `ValueError`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from referee.errors import DominoError
from referee.line import END_NAMES
from referee.tiles import Tile


class MoveKind(StrEnum):
    """What a player's move does (a `StrEnum`: each equals its record-format name)."""

    PLAY = "play"
    DRAW = "draw"
    PASS = "pass"


PLAY, DRAW, PASS = MoveKind.PLAY, MoveKind.DRAW, MoveKind.PASS


class IllegalMoveError(DominoError, ValueError):
    """The move breaks a rule; the message says which, quoting the move."""


class AmbiguousMoveError(IllegalMoveError):
    """A tile fits more than one end with different results and no end was named."""


class RecordError(DominoError, ValueError):
    """A game record or one of its events is malformed; the message names where."""


class Move(NamedTuple):
    """One player's move. `tile` is None for a pass and for a table-mode draw (a count).

    `end` is the end number (0..3) a play goes on, None when not named; `first` is the half
    written first (it matters only for the lead, which lies first half on the left).
    """

    kind: MoveKind
    seat: int
    tile: Tile | None = None
    end: int | None = None
    first: int | None = None

    def __str__(self) -> str:
        if self.kind == PASS:
            return "pass"
        if self.kind == DRAW:
            return f"draw {self.tile}" if self.tile is not None else "draw"
        text = str(self.tile)
        if self.first is not None and self.tile is not None and self.first != self.tile.low:
            text = f"{self.tile.high}-{self.tile.low}"
        return text if self.end is None else f"{text} {END_NAMES[self.end]}"
