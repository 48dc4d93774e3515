"""Tiles: the immutable value type of one domino, its notation and the sets it comes in.

A `Tile` is two pip values, stored low-high; `str(tile)` is the canonical `3-5`, and
`Tile.parse` also reads `5-3`, `5|3` and `[5|3]`. Tiles are interned (one object per value), so
comparing, hashing and set membership are cheap, and each tile carries a small `index`
(its position in the double-`max_pip` set) for bitmask work inside the engine.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import ClassVar

from referee.errors import DominoError

MAX_SUPPORTED_PIP = 12
_NOTATION = re.compile(r"^\s*\[?\s*(\d{1,2})\s*[-|]\s*(\d{1,2})\s*\]?\s*$")


class TileError(DominoError, ValueError):
    """A tile could not be read, or its pips are outside the set."""


class Tile:
    """One domino tile, low half first. Immutable and interned: ``Tile(5, 3) is Tile(3, 5)``."""

    __slots__ = ("bit", "high", "index", "is_double", "low", "pips")
    _interned: ClassVar[dict[tuple[int, int], Tile]] = {}

    low: int
    high: int
    index: int
    bit: int
    pips: int
    is_double: bool

    def __new__(cls, a: int, b: int) -> Tile:
        low, high = (a, b) if a <= b else (b, a)
        key = (low, high)
        found = cls._interned.get(key)
        if found is not None:
            return found
        if not (isinstance(low, int) and isinstance(high, int)) or low < 0 or high > MAX_SUPPORTED_PIP:
            raise TileError(f"{a}-{b} is not a tile: pips run from 0 to {MAX_SUPPORTED_PIP}")
        tile = object.__new__(cls)
        object.__setattr__(tile, "low", low)
        object.__setattr__(tile, "high", high)
        # Triangular numbering: 0-0, 0-1, 1-1, 0-2, 1-2, 2-2, ... so a set's tiles are a prefix.
        object.__setattr__(tile, "index", high * (high + 1) // 2 + low)
        object.__setattr__(tile, "bit", 1 << tile.index)
        object.__setattr__(tile, "pips", low + high)
        object.__setattr__(tile, "is_double", low == high)
        cls._interned[key] = tile
        return tile

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Tile is immutable")

    def __reduce__(self) -> tuple[type[Tile], tuple[int, int]]:
        return (Tile, (self.low, self.high))

    @classmethod
    def parse(cls, text: str, max_pip: int = MAX_SUPPORTED_PIP) -> Tile:
        """Read `3-5`, `5-3`, `5|3` or `[5|3]`; raise `TileError` quoting the text."""
        return cls.parse_oriented(text, max_pip)[0]

    @classmethod
    def parse_oriented(cls, text: str, max_pip: int = MAX_SUPPORTED_PIP) -> tuple[Tile, int, int]:
        """Read a tile keeping the order it was written in: (tile, first, second)."""
        if not isinstance(text, str):
            raise TileError(f"{text!r} is not a tile: expected text such as '3-5'")
        match = _NOTATION.match(text)
        if match is None:
            raise TileError(f"{text!r} is not a tile: expected two pip values such as '3-5' or '[5|3]'")
        first, second = int(match.group(1)), int(match.group(2))
        if first > max_pip or second > max_pip:
            raise TileError(f"{text!r} is not a tile of this set: pips run from 0 to {max_pip}")
        return cls(first, second), first, second

    def has(self, pip: int) -> bool:
        return self.low == pip or self.high == pip

    def other(self, pip: int) -> int:
        """The half that shows when the `pip` half is joined to the line."""
        return self.high if self.low == pip else self.low

    def __str__(self) -> str:
        return f"{self.low}-{self.high}"

    def __repr__(self) -> str:
        return f"Tile.parse({str(self)!r})"

    def __lt__(self, other: Tile) -> bool:
        return self.index < other.index

    def __hash__(self) -> int:
        return self.index

    def __eq__(self, other: object) -> bool:
        return self is other


def _index_tables() -> tuple[tuple[Tile, ...], tuple[int, ...]]:
    tiles = full_set(MAX_SUPPORTED_PIP)
    masks = tuple(sum(1 << t.index for t in tiles if t.has(pip)) for pip in range(MAX_SUPPORTED_PIP + 1))
    return tiles, masks


def tiles_in(mask: int) -> list[Tile]:
    """The tiles whose bits are set in `mask`, in index order."""
    found = []
    while mask:
        low_bit = mask & -mask
        found.append(TILE_AT[low_bit.bit_length() - 1])
        mask ^= low_bit
    return found


def mask_of(tiles: Iterable[Tile]) -> int:
    mask = 0
    for tile in tiles:
        mask |= 1 << tile.index
    return mask


def full_set(max_pip: int = 6) -> tuple[Tile, ...]:
    """Every tile of the double-`max_pip` set, in index order (28 tiles for double-six)."""
    if not 0 <= max_pip <= MAX_SUPPORTED_PIP:
        raise TileError(f"max_pip {max_pip} is outside 0..{MAX_SUPPORTED_PIP}")
    found = _SETS.get(max_pip)
    if found is None:
        found = tuple(Tile(low, high) for high in range(max_pip + 1) for low in range(high + 1))
        _SETS[max_pip] = found
    return found


_SETS: dict[int, tuple[Tile, ...]] = {}


def set_size(max_pip: int) -> int:
    return (max_pip + 1) * (max_pip + 2) // 2


def tile_list(tiles: Iterable[Tile]) -> list[str]:
    return [str(tile) for tile in tiles]


def parse_tiles(texts: Iterable[str], max_pip: int = MAX_SUPPORTED_PIP) -> list[Tile]:
    return [Tile.parse(text, max_pip) for text in texts]


# TILE_AT[i] is the tile with index i; PIP_MASK[v] has the bit of every tile showing v.
TILE_AT, PIP_MASK = _index_tables()
