"""Where the pips of a half lie, as real sets print them.

Positions are in half-widths: (u, v) with u along the tile's long axis, v across it, both in
[-1, 1] relative to the centre of the half (a square of side W). Double-six faces use the 3 x 3
grid every set shares; 7-9 fill the same grid (double-nine sets), 10-12 use a 4 x 3 grid
(double-twelve sets).
"""

from __future__ import annotations

from functools import cache

GRID = 0.56  # offset of the outer pips from the centre of a half, in half-widths
GRID_12 = 0.42  # row spacing of the 4 x 3 grid used above nine


@cache
def pip_positions(value: int) -> tuple[tuple[float, float], ...]:
    """The centres of the pips for one half showing `value` (0..12)."""
    if not 0 <= value <= 12:
        raise ValueError(f"pip value {value!r} is outside 0..12")
    g = GRID
    centre = (0.0, 0.0)
    corners = ((-g, -g), (g, g), (-g, g), (g, -g))
    sides = ((0.0, -g), (0.0, g))  # the middle of the two long rows (columns along u)
    ends = ((-g, 0.0), (g, 0.0))
    table: dict[int, tuple[tuple[float, float], ...]] = {
        0: (),
        1: (centre,),
        2: (corners[0], corners[1]),
        3: (corners[0], centre, corners[1]),
        4: corners,
        5: (*corners, centre),
        6: (*corners, *sides),
        7: (*corners, *sides, centre),
        8: (*corners, *sides, *ends),
        9: (*corners, *sides, *ends, centre),
    }
    if value in table:
        return table[value]
    rows = (-1.5 * GRID_12, -0.5 * GRID_12, 0.5 * GRID_12, 1.5 * GRID_12)
    columns = (-g, 0.0, g)
    full = tuple((u, v) for u in rows for v in columns)
    if value == 12:
        return full
    if value == 11:
        return tuple(p for p in full if p != (rows[1], 0.0))
    return tuple(p for p in full if p not in ((rows[1], 0.0), (rows[2], 0.0)))


def pip_radius(max_value: int) -> float:
    """Pip radius in half-widths: smaller pips on sets with more of them."""
    if max_value <= 6:
        return 0.19
    if max_value <= 9:
        return 0.16
    return 0.13
