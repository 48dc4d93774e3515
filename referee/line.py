"""The line of play: the tiles on the table, its open ends and what they count.

Ends are numbered 0..3 for `left`, `right`, `up`, `down` (`END_NAMES`). The lead tile belongs to
no arm; every later tile extends one arm. In `all-fives` the first double is the spinner: once both
its `left` and `right` sides are covered, the `up` and `down` arms open (RULES.md "Spinner",
edge case 14). The state is a handful of small lists so a move costs O(1) and undoing it restores
a saved tuple instead of copying anything big.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.tiles import Tile

END_NAMES: tuple[str, ...] = ("left", "right", "up", "down")
END_INDEX: dict[str, int] = {name: index for index, name in enumerate(END_NAMES)}
LEFT, RIGHT, UP, DOWN = 0, 1, 2, 3
CLOSED = -1


@dataclass(frozen=True, slots=True)
class Placement:
    """A tile as it lies: which end it went on (None for the lead), the half joined and the half shown."""

    tile: Tile
    end: int | None
    joined: int
    shown: int

    def as_dict(self) -> dict[str, object]:
        return {
            "tile": str(self.tile),
            "end": "lead" if self.end is None else END_NAMES[self.end],
            "joined": self.joined,
            "shown": self.shown,
        }


LineState = tuple[tuple[int, ...], tuple[bool, ...], tuple[int, ...], int, int, int, bool]


class LineOfPlay:
    """Open ends, counting values and fit tests for one hand's layout."""

    __slots__ = (
        "arm_length", "end_double", "has_spinner_rule", "lead", "mask", "max_pip", "placed",
        "spinner_arm", "spinner_at", "spinner_open", "spinner_pip", "tiles_with", "values",
    )

    def __init__(self, *, spinner: bool = False, max_pip: int = 6) -> None:
        self.has_spinner_rule = spinner
        self.max_pip = max_pip
        self.values: list[int] = [CLOSED, CLOSED, CLOSED, CLOSED]
        self.end_double: list[bool] = [False, False, False, False]
        self.arm_length: list[int] = [0, 0, 0, 0]
        self.lead: Tile | None = None
        # spinner_arm: -1 none yet, 4 the lead, else the arm it lies on at position spinner_at.
        self.spinner_pip = CLOSED
        self.spinner_arm = -1
        self.spinner_at = 0
        self.spinner_open = False
        self.placed: list[Placement] = []
        self.tiles_with: list[int] = [0] * (max_pip + 1)
        self.mask = 0  # bit `tile.index` set for every tile on the table

    # -- reading -------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.placed)

    @property
    def is_empty(self) -> bool:
        return not self.placed

    def open_ends(self) -> dict[str, int]:
        return {END_NAMES[i]: v for i, v in enumerate(self.values) if v != CLOSED}

    def __contains__(self, tile: Tile) -> bool:
        return bool(self.mask >> tile.index & 1)

    def fitting_ends(self, tile: Tile) -> list[int]:
        """End numbers (in order left, right, up, down) where `tile` may be joined."""
        low, high = tile.low, tile.high
        return [i for i, v in enumerate(self.values) if v != CLOSED and v in (low, high)]

    def fits(self, tile: Tile) -> bool:
        low, high = tile.low, tile.high
        # The hot path of every legality test: a plain loop beats any()/in with a tuple here.
        for v in self.values:  # noqa: SIM110
            if v != CLOSED and (v == low or v == high):  # noqa: SIM109
                return True
        return False

    def count(self) -> int:
        """The sum of the open ends as the fives rule sets count them (RULES.md "Counting the ends")."""
        if not self.placed:
            return 0
        values, doubles, lengths = self.values, self.end_double, self.arm_length
        lead = self.lead
        assert lead is not None
        if lengths[LEFT] == 0 and lengths[RIGHT] == 0 and lead.is_double:
            total = 2 * lead.low
        else:
            total = 0
            for i in (LEFT, RIGHT):
                total += values[i] * 2 if doubles[i] else values[i]
        for i in (UP, DOWN):
            if lengths[i]:
                total += values[i] * 2 if doubles[i] else values[i]
        return total

    def blocked_by_table(self) -> bool:
        """True when no tile off the table matches any open end (the table alone proves a block)."""
        if not self.placed:
            return False
        full = self.max_pip + 1
        return all(v == CLOSED or self.tiles_with[v] >= full for v in self.values)

    def signature(self) -> tuple[object, ...]:
        """What the rules can tell about the layout; equal signatures need no named end (edge case 2)."""
        ends = []
        for i, v in enumerate(self.values):
            if v == CLOSED:
                continue
            empty_lead_side = i < UP and self.arm_length[i] == 0
            spinner_end = (self.spinner_arm == 4 and empty_lead_side) or (
                self.spinner_arm == i and self.arm_length[i] == self.spinner_at
            )
            counts = i < UP or self.arm_length[i] > 0
            ends.append((v, self.end_double[i], spinner_end, counts))
        ends.sort()
        return (tuple(ends), self.spinner_open, self.count())

    # -- changing ------------------------------------------------------------------------------
    def save(self) -> LineState:
        return (
            tuple(self.values), tuple(self.end_double), tuple(self.arm_length),
            self.spinner_pip, self.spinner_arm, self.spinner_at, self.spinner_open,
        )

    def restore(self, state: LineState) -> None:
        values, doubles, lengths = state[0], state[1], state[2]
        self.spinner_pip, self.spinner_arm, self.spinner_at, self.spinner_open = state[3:]
        self.values[:] = values
        self.end_double[:] = doubles
        self.arm_length[:] = lengths

    def place_lead(self, tile: Tile, first: int | None = None) -> Placement:
        """Lay the first tile; `first` is the half written first, which lies on the left (edge case 1)."""
        if first is None or not tile.has(first):
            first = tile.low
        second = tile.other(first)
        self.lead = tile
        self.values[LEFT], self.values[RIGHT] = first, second
        self.end_double[LEFT] = self.end_double[RIGHT] = tile.is_double
        if tile.is_double and self.has_spinner_rule:
            self.spinner_pip, self.spinner_arm = tile.low, 4
        placement = Placement(tile, None, first, second)
        self._add(tile, placement)
        return placement

    def place(self, tile: Tile, end: int) -> Placement:
        """Join `tile` on open end `end` (unchecked: the caller made sure it fits)."""
        joined = self.values[end]
        shown = tile.other(joined)
        self.values[end] = shown
        self.end_double[end] = tile.is_double
        self.arm_length[end] += 1
        if self.has_spinner_rule:
            if self.spinner_arm == -1 and tile.is_double:
                self.spinner_pip, self.spinner_arm, self.spinner_at = tile.low, end, self.arm_length[end]
            elif not self.spinner_open and self._spinner_covered():
                self.spinner_open = True
                self.values[UP] = self.values[DOWN] = self.spinner_pip
        placement = Placement(tile, end, joined, shown)
        self._add(tile, placement)
        return placement

    def unplace(self, state: LineState) -> Placement:
        """Take the last tile back and restore the ends saved before it was laid."""
        placement = self.placed.pop()
        tile = placement.tile
        self.mask &= ~(1 << tile.index)
        self.tiles_with[tile.low] -= 1
        if not tile.is_double:
            self.tiles_with[tile.high] -= 1
        if not self.placed:
            self.lead = None
        self.restore(state)
        return placement

    def _spinner_covered(self) -> bool:
        if self.spinner_arm == 4:
            return self.arm_length[LEFT] > 0 and self.arm_length[RIGHT] > 0
        if 0 <= self.spinner_arm < UP:
            return self.arm_length[self.spinner_arm] > self.spinner_at
        return False

    def _add(self, tile: Tile, placement: Placement) -> None:
        self.placed.append(placement)
        self.mask |= 1 << tile.index
        self.tiles_with[tile.low] += 1
        if not tile.is_double:
            self.tiles_with[tile.high] += 1
