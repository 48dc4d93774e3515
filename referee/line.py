"""The line of play: the tiles on the table, its open ends and what they count.

Ends are numbered 0..3 for `left`, `right`, `up`, `down` (`END_NAMES`). The lead tile belongs to
no arm; every later tile extends one arm. In `all-fives` the first double is the spinner: once both
its `left` and `right` sides are covered, the `up` and `down` arms open (RULES.md "Spinner",
edge case 14). The state is a handful of small lists; each `Placement` remembers what it covered,
so taking a tile back (`unplace`) needs no saved copy.
"""

from __future__ import annotations

from typing import NamedTuple

from referee.tiles import PIP_MASK, Tile

END_NAMES: tuple[str, ...] = ("left", "right", "up", "down")
END_INDEX: dict[str, int] = {name: index for index, name in enumerate(END_NAMES)}
LEFT, RIGHT, UP, DOWN = 0, 1, 2, 3
CLOSED = -1
LEAD_SPINNER = 4
MADE_SPINNER, OPENED_ARMS = 1, 2


class Placement(NamedTuple):
    """A tile as it lies: its end (None for the lead), the half joined and the half shown.

    `covered_double` and `change` (MADE_SPINNER, OPENED_ARMS or 0) are what `unplace` undoes.
    """

    tile: Tile
    end: int | None
    joined: int
    shown: int
    covered_double: bool = False
    change: int = 0

    def as_dict(self) -> dict[str, object]:
        return {
            "tile": str(self.tile),
            "end": "lead" if self.end is None else END_NAMES[self.end],
            "joined": self.joined,
            "shown": self.shown,
        }


class LineOfPlay:
    """Open ends, counting values and fit tests for one hand's layout."""

    __slots__ = (
        "arm_length", "end_double", "has_spinner_rule", "lead", "mask", "max_pip", "open_mask", "placed",
        "set_mask", "spinner_arm", "spinner_at", "spinner_open", "spinner_pip", "tiles_with", "values",
    )

    def __init__(self, *, spinner: bool = False, max_pip: int = 6) -> None:
        self.has_spinner_rule = spinner
        self.max_pip = max_pip
        self.values: list[int] = [CLOSED, CLOSED, CLOSED, CLOSED]
        self.end_double: list[bool] = [False, False, False, False]
        self.arm_length: list[int] = [0, 0, 0, 0]
        self.lead: Tile | None = None
        # spinner_arm: -1 none yet, LEAD_SPINNER the lead, else the arm it lies on at position spinner_at.
        self.spinner_pip = CLOSED
        self.spinner_arm = -1
        self.spinner_at = 0
        self.spinner_open = False
        self.placed: list[Placement] = []
        self.tiles_with: list[int] = [0] * (max_pip + 1)
        self.mask = 0  # bit `tile.index` set for every tile on the table
        self.set_mask = (1 << ((max_pip + 1) * (max_pip + 2) // 2)) - 1  # the set's tiles: an index prefix
        self.open_mask = 0  # bits of every tile matching an open end, kept current by every change

    # -- reading -------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.placed)

    def __contains__(self, tile: Tile) -> bool:
        return bool(self.mask >> tile.index & 1)

    @property
    def is_empty(self) -> bool:
        return not self.placed

    def open_ends(self) -> dict[str, int]:
        return {END_NAMES[i]: v for i, v in enumerate(self.values) if v != CLOSED}

    def ends_mask(self) -> int:
        """Bits of every tile that matches some open end (0 before the lead)."""
        return self.open_mask

    def _update_open_mask(self) -> None:
        values = self.values
        if values[LEFT] == CLOSED:
            self.open_mask = 0
        elif self.spinner_open:
            self.open_mask = (PIP_MASK[values[LEFT]] | PIP_MASK[values[RIGHT]]
                              | PIP_MASK[values[UP]] | PIP_MASK[values[DOWN]])
        else:
            self.open_mask = PIP_MASK[values[LEFT]] | PIP_MASK[values[RIGHT]]

    def fitting_ends(self, tile: Tile) -> list[int]:
        """End numbers (in order left, right, up, down) where `tile` may be joined."""
        low, high = tile.low, tile.high
        return [i for i, v in enumerate(self.values) if v != CLOSED and v in (low, high)]

    def fits(self, tile: Tile) -> bool:
        return bool(self.open_mask >> tile.index & 1)

    def count(self) -> int:
        """The sum of the open ends as the fives rule sets count them (RULES.md "Counting the ends")."""
        lead = self.lead
        if lead is None:
            return 0
        values, doubles, lengths = self.values, self.end_double, self.arm_length
        if lengths[LEFT] == 0 and lengths[RIGHT] == 0 and lead.is_double:
            total = 2 * lead.low
        else:
            total = (values[LEFT] * 2 if doubles[LEFT] else values[LEFT]) + (
                values[RIGHT] * 2 if doubles[RIGHT] else values[RIGHT])
        if self.spinner_open:
            for i in (UP, DOWN):
                if lengths[i]:
                    total += values[i] * 2 if doubles[i] else values[i]
        return total

    def blocked_by_table(self) -> bool:
        """True when no tile off the table matches any open end (the table alone proves a block)."""
        if not self.placed:
            return False
        return not self.open_mask & self.set_mask & ~self.mask

    def signature(self) -> tuple[object, ...]:
        """What the rules can tell about the layout; equal signatures need no named end (edge case 2)."""
        ends = []
        for i, v in enumerate(self.values):
            if v == CLOSED:
                continue
            empty_lead_side = i < UP and self.arm_length[i] == 0
            spinner_end = (self.spinner_arm == LEAD_SPINNER and empty_lead_side) or (
                self.spinner_arm == i and self.arm_length[i] == self.spinner_at
            )
            counts = i < UP or self.arm_length[i] > 0
            ends.append((v, self.end_double[i], spinner_end, counts))
        ends.sort()
        return (tuple(ends), self.spinner_open, self.count())

    # -- changing ------------------------------------------------------------------------------
    def place_lead(self, tile: Tile, first: int | None = None) -> Placement:
        """Lay the first tile; `first` is the half written first, which lies on the left (edge case 1)."""
        if first is None or not tile.has(first):
            first = tile.low
        second = tile.high if first == tile.low else tile.low
        self.lead = tile
        self.values[LEFT], self.values[RIGHT] = first, second
        self.end_double[LEFT] = self.end_double[RIGHT] = tile.is_double
        if tile.is_double and self.has_spinner_rule:
            self.spinner_pip, self.spinner_arm = tile.low, LEAD_SPINNER
        placement = Placement(tile, None, first, second)
        self._add(tile, placement)
        self._update_open_mask()
        return placement

    def place(self, tile: Tile, end: int) -> Placement:
        """Join `tile` on open end `end` (unchecked: the caller made sure it fits)."""
        # The engine's innermost step: written out flat, no helper calls, for simulation speed.
        values = self.values
        joined = values[end]
        low = tile.low
        shown = tile.high if low == joined else low
        covered = self.end_double[end]
        values[end] = shown
        is_double = tile.is_double
        self.end_double[end] = is_double
        self.arm_length[end] += 1
        change = 0
        if self.has_spinner_rule:
            if self.spinner_arm == -1 and is_double:
                self.spinner_pip, self.spinner_arm, self.spinner_at = low, end, self.arm_length[end]
                change = MADE_SPINNER
            elif not self.spinner_open and self._spinner_covered():
                self.spinner_open = True
                values[UP] = values[DOWN] = self.spinner_pip
                change = OPENED_ARMS
        placement: Placement = tuple.__new__(Placement, (tile, end, joined, shown, covered, change))
        self.placed.append(placement)
        self.mask |= tile.bit
        tiles_with = self.tiles_with
        tiles_with[low] += 1
        if not is_double:
            tiles_with[tile.high] += 1
        if self.spinner_open:
            self._update_open_mask()
        else:
            self.open_mask = PIP_MASK[values[LEFT]] | PIP_MASK[values[RIGHT]]
        return placement

    def unplace(self) -> Placement:
        """Take the last tile back, restoring the ends it changed."""
        placement = self.placed.pop()
        tile, end = placement.tile, placement.end
        self.mask &= ~(1 << tile.index)
        self.tiles_with[tile.low] -= 1
        if not tile.is_double:
            self.tiles_with[tile.high] -= 1
        if end is None:
            self.lead = None
            self.values[:] = [CLOSED] * 4
            self.end_double[:] = [False] * 4
            self.spinner_pip, self.spinner_arm = CLOSED, -1
            self.open_mask = 0
            return placement
        self.values[end] = placement.joined
        self.end_double[end] = placement.covered_double
        self.arm_length[end] -= 1
        if placement.change == MADE_SPINNER:
            self.spinner_pip, self.spinner_arm, self.spinner_at = CLOSED, -1, 0
        elif placement.change == OPENED_ARMS:
            self.spinner_open = False
            self.values[UP] = self.values[DOWN] = CLOSED
        self._update_open_mask()
        return placement

    def _spinner_covered(self) -> bool:
        if self.spinner_arm == LEAD_SPINNER:
            return self.arm_length[LEFT] > 0 and self.arm_length[RIGHT] > 0
        if 0 <= self.spinner_arm < UP:
            return self.arm_length[self.spinner_arm] > self.spinner_at
        return False

    def _add(self, tile: Tile, placement: Placement) -> None:
        self.placed.append(placement)
        self.mask |= tile.bit
        self.tiles_with[tile.low] += 1
        if not tile.is_double:
            self.tiles_with[tile.high] += 1
