"""The line of play as it lies on the table: where each tile is and which way it points.

The engine keeps the line as the order of placements (`tile`, `end`, `joined`, `shown`); a drawing
needs positions. `lay_out` turns the placements into boxes on a grid whose unit is half a tile's
length (a tile is 2×1 units, a double lies crosswise, 1 unit along its arm): the lead sits at the
origin, `left` grows towards −x, `right` towards +x, and the spinner's `up` and `down` arms grow
towards −y and +y from the spinner (the first double, where the rule set has one). Every box names
the pips at its low-coordinate half (`a`: left or top) and its high-coordinate half (`b`), so the
overlay's SVG is drawn from the state alone. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# How far along its arm a tile reaches, in half-tile units: a double lies across the arm.
ALONG = {True: 1.0, False: 2.0}


def _pips(tile: str) -> tuple[int, int] | None:
    low, sep, high = tile.partition("-")
    if not sep or not low.isdigit() or not high.isdigit():
        return None
    return int(low), int(high)


def lay_out(placements: Sequence[Mapping[str, Any]], *, spinner_rule: bool) -> dict[str, Any]:
    """Boxes for the overlay: ``{"tiles": [...], "spinner": {...} | None, "bounds": [x0, y0, x1, y1]}``.

    Each tile is ``{"tile", "arm", "n", "x", "y", "dir", "a", "b", "double"}``: ``n`` is its place in
    the order of play, ``x``/``y`` its centre, ``dir`` ``"h"`` (2 wide, 1 high) or ``"v"``."""
    tiles: list[dict[str, Any]] = []
    spinner: dict[str, Any] | None = None
    # Where the next tile of each arm starts (the edge of the last one), and the spinner's centre.
    reach = {"left": 0.0, "right": 0.0, "up": 0.0, "down": 0.0}
    spinner_x = 0.0
    for n, placed in enumerate(placements):
        pips = _pips(str(placed.get("tile", "")))
        if pips is None:
            continue
        double = pips[0] == pips[1]
        arm = str(placed.get("end", "lead"))
        joined, shown = int(placed.get("joined", pips[0])), int(placed.get("shown", pips[1]))
        along = ALONG[double]
        if arm == "lead":
            x = y = 0.0
            direction = "v" if double else "h"
            a, b = joined, shown          # the lead's first half lies on the left
            reach["left"], reach["right"] = -along / 2, along / 2
        elif arm in ("left", "right"):
            sign = -1.0 if arm == "left" else 1.0
            x, y = reach[arm] + sign * along / 2, 0.0
            reach[arm] += sign * along
            direction = "v" if double else "h"
            a, b = (shown, joined) if arm == "left" else (joined, shown)
        elif arm in ("up", "down"):
            sign = -1.0 if arm == "up" else 1.0
            start = reach[arm] if reach[arm] else sign * 1.0   # the spinner lies across: 2 units tall
            x, y = spinner_x, start + sign * along / 2
            reach[arm] = start + sign * along
            direction = "h" if double else "v"
            a, b = (shown, joined) if arm == "up" else (joined, shown)
        else:
            continue
        box: dict[str, Any] = {"tile": f"{pips[0]}-{pips[1]}", "arm": arm, "n": n, "x": x, "y": y,
                               "dir": direction, "a": a, "b": b, "double": double}
        tiles.append(box)
        if spinner_rule and double and spinner is None:
            spinner = {"tile": box["tile"], "arm": arm, "n": n, "x": x, "y": y}
            spinner_x = x
    bounds = [0.0, 0.0, 0.0, 0.0]
    for box in tiles:
        half_w, half_h = (1.0, 0.5) if box["dir"] == "h" else (0.5, 1.0)
        bx, by = float(box["x"]), float(box["y"])
        bounds = [min(bounds[0], bx - half_w), min(bounds[1], by - half_h),
                  max(bounds[2], bx + half_w), max(bounds[3], by + half_h)]
    return {"tiles": tiles, "spinner": spinner, "bounds": bounds}
