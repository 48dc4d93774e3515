"""Where tiles go on the table as a line of play grows.

`LineOfPlay` lays tiles as players do: the lead in the middle, each tile end to end with the tile
it matches, doubles crosswise, the arm turning a corner (clockwise) before it would leave the
play zone, and, with a spinner, `up` and `down` arms off the first double's long sides.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.plane import TILE_LENGTH_MM, TILE_WIDTH_MM
from vision.synth.scene import PlacedTile

Rect = tuple[float, float, float, float]
L, W = TILE_LENGTH_MM, TILE_WIDTH_MM
GAP_MM = 0.6  # tiles pushed together still leave a hair of felt between them


def _clockwise(d: np.ndarray) -> np.ndarray:
    """Quarter turn clockwise on screen (y points down)."""
    return np.array([-d[1], d[0]])


def up_and_down(long_axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The spinner's `up` and `down` directions along its long axis: up is towards smaller y."""
    axis = long_axis / np.linalg.norm(long_axis)
    if abs(axis[1]) < 1e-6:
        axis = axis if axis[0] < 0 else -axis
    elif axis[1] > 0:
        axis = -axis
    return axis, -axis


@dataclass
class OpenEnd:
    """An open end: its value, the centre of the exposed part, outward direction and reach."""

    value: int
    centre: np.ndarray
    direction: np.ndarray
    reach: float  # from `centre` to the edge a new tile touches, along `direction`
    side: float  # half extent of the exposed part across `direction`
    tile_index: int


class LayoutError(ValueError):
    """A play the layout cannot place (unknown end, tile that does not match)."""


class LineOfPlay:
    def __init__(self, zone: Rect, origin: tuple[float, float] | None = None, spinner: bool = False) -> None:
        self.zone = zone
        x0, y0, x1, y1 = zone
        self.origin = np.array(origin if origin is not None else ((x0 + x1) / 2, (y0 + y1) / 2), float)
        self.spinner_allowed = spinner
        self.spinner_index: int | None = None
        self.tiles: list[PlacedTile] = []
        self.joins: list[tuple[int, int]] = []
        self.ends: dict[str, OpenEnd] = {}
        self.turned: dict[str, int] = {}  # per end: +1/-1 when its last tile turned a corner cw/ccw

    # -- helpers -----------------------------------------------------------------------------------

    def _fits(self, tile: PlacedTile) -> bool:
        x0, y0, x1, y1 = self.zone
        c = tile.corners()
        return bool(
            np.all(c[:, 0] >= x0)
            and np.all(c[:, 0] <= x1)
            and np.all(c[:, 1] >= y0)
            and np.all(c[:, 1] <= y1)
        )

    def _free(self, tile: PlacedTile, joined: int) -> bool:
        """Whether `tile` lies clear of every tile of the line but the one it joins (which it
        touches), so an arm that turns never lands on another arm."""
        mine = tile.corners().astype(np.float32)
        for index, other in enumerate(self.tiles):
            if index == joined:
                continue
            area, _ = cv2.intersectConvexConvex(mine, other.corners().astype(np.float32))
            if area > 1.0:  # mm²: tiles touching along a side share none
                return False
        return True

    @staticmethod
    def _angle(direction: np.ndarray) -> float:
        return math.degrees(math.atan2(direction[1], direction[0]))

    def _make(
        self, near: int, far: int, first: tuple[int, int], start: np.ndarray, d: np.ndarray,
        crosswise: bool = True,
    ) -> PlacedTile:
        """A tile whose near edge touches `start`, extending along `d`; `first` is its (a, b).
        A double lies crosswise unless `crosswise` is False."""
        a, b = first
        if near == far and crosswise:
            centre = start + d * (W / 2)
            return PlacedTile(a, b, float(centre[0]), float(centre[1]), self._angle(_clockwise(d)))
        centre = start + d * (L / 2)
        axis = d if a == near else -d
        return PlacedTile(a, b, float(centre[0]), float(centre[1]), self._angle(axis))

    # -- playing -----------------------------------------------------------------------------------

    def lead(self, left: int, right: int) -> PlacedTile:
        """The first tile, `left` value on the left end."""
        if self.tiles:
            raise LayoutError("the line of play already has its lead")
        c = self.origin
        if left == right:
            tile = PlacedTile(left, right, float(c[0]), float(c[1]), 90.0)
            self.tiles.append(tile)
            for name, d in (("left", np.array([-1.0, 0.0])), ("right", np.array([1.0, 0.0]))):
                self.ends[name] = OpenEnd(left, c.copy(), d, W / 2, L / 2, 0)
            if self.spinner_allowed:
                self._open_spinner(0)
        else:
            tile = PlacedTile(left, right, float(c[0]), float(c[1]), 0.0)
            self.tiles.append(tile)
            self.ends["left"] = OpenEnd(
                left, c - np.array([L / 4, 0.0]), np.array([-1.0, 0.0]), W / 2, W / 2, 0
            )
            self.ends["right"] = OpenEnd(
                right, c + np.array([L / 4, 0.0]), np.array([1.0, 0.0]), W / 2, W / 2, 0
            )
        return tile

    def _open_spinner(self, index: int) -> None:
        self.spinner_index = index
        tile = self.tiles[index]
        axis = np.array([math.cos(math.radians(tile.angle)), math.sin(math.radians(tile.angle))])
        centre = np.array([tile.x, tile.y])
        for name, d in zip(("up", "down"), up_and_down(axis), strict=True):
            self.ends[name] = OpenEnd(tile.a, centre.copy(), d, L / 2, W / 2, index)

    def play(self, a: int, b: int, end: str) -> PlacedTile:
        """Lay tile a-b on `end` (left/right/up/down); the matching half touches the end."""
        if end not in self.ends:
            raise LayoutError(f"no open end {end!r} (open: {sorted(self.ends)})")
        open_end = self.ends[end]
        if open_end.value not in (a, b):
            raise LayoutError(f"tile {a}-{b} does not match end {end!r} showing {open_end.value}")
        near = open_end.value
        far = b if a == near else a
        d = open_end.direction
        gap = GAP_MM
        # Straight on, else turn the corner (clockwise first) with the new tile's near half beside
        # the exposed part; never out of the zone or onto another arm.
        # A double that has no room crosswise is laid in line, as players do in a tight corner.
        # Right after a corner the left and right arms turn back the same way (a U-turn), so a
        # long line snakes to and fro instead of running round the zone's border into the other
        # arms; a spinner's short up and down arms run on along the border.
        straight = (d, open_end.reach)
        turns = [(_clockwise(d), open_end.side), (-_clockwise(d), open_end.side)]
        turned = self.turned.get(end, 0) if end in ("left", "right") else 0
        if turned == -1:
            turns.reverse()
        ways = [*turns, straight] if turned else [straight, *turns]
        forms = (True, False) if near == far else (True,)
        for crosswise, (way, reach) in ((c, w) for c in forms for w in ways):
            tile = self._make(near, far, (a, b), open_end.centre + way * (reach + gap), way, crosswise)
            if self._fits(tile) and self._free(tile, open_end.tile_index):
                d = way
                break
        else:
            raise LayoutError(f"no room left on the table for {a}-{b} on end {end!r}")
        if d is open_end.direction:
            self.turned[end] = 0
        else:
            sense = 1 if np.allclose(d, _clockwise(open_end.direction)) else -1
            # The second turn of a U-turn ends it: the new row runs straight on.
            self.turned[end] = 0 if self.turned.get(end, 0) else sense
        index = len(self.tiles)
        self.tiles.append(tile)
        self.joins.append((open_end.tile_index, index))
        centre = np.array([tile.x, tile.y])
        if near == far and crosswise:
            self.ends[end] = OpenEnd(far, centre, d, W / 2, L / 2, index)
            if self.spinner_allowed and self.spinner_index is None:
                self._open_spinner(index)
        else:
            self.ends[end] = OpenEnd(far, centre + d * (L / 4), d, W / 2, W / 2, index)
        return tile
