"""Where tiles go on the table as a line of play grows.

`LineOfPlay` lays tiles as players do: the lead in the middle, each tile end to end with the tile
it matches, doubles crosswise, the arm turning a corner (clockwise) before it would leave the
play zone, and, with a spinner, `up` and `down` arms off the first double's long sides. Each
way a tile could go is looked ahead (`LOOK_AHEAD`) so that no arm runs into a pocket or onto
another arm's next place, and a tile none of the ways takes slides sideways (`SQUEEZE_MM`) as
players squeeze one in: a line of play turns and snakes for as long as a hand lasts.
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
# Before laying a tile, each way it could go is looked ahead: how many more tiles the new end, and
# every other open end, could take in a row (straight or turning, clear of the zone's edge and of
# every tile), up to this many. The preferred way wins unless it leads an arm into a pocket
# shorter than that, or blocks another arm (a spinner's up and down arms beside an edge): then
# the way with the most room does (ties going to the way that leaves its own arm the most), so
# an arm that reaches the table's edge turns or snakes instead of running into a corner it
# cannot leave.
LOOK_AHEAD = 4
SQUEEZE_MM = 2 * L  # how far sideways a tile may slide when no usual way is free


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
    """A line of play in `zone` (mm), led at `origin` (default: the zone's centre).

    With `plan` (the films' default) each tile looks ahead and squeezes in where it must, so a
    hand's line finds room to its end; without, it takes the first way that fits, as the random
    dataset tables (`vision.synth.random_scenes`) were laid when their figures were measured, so
    that seed N stays the same picture."""

    def __init__(self, zone: Rect, origin: tuple[float, float] | None = None, spinner: bool = False,
                 *, plan: bool = True) -> None:
        self.zone = zone
        self.plan = plan
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

    def _free(self, tile: PlacedTile, joined: int, more: tuple[np.ndarray, ...] = ()) -> bool:
        """Whether `tile` lies clear of every tile of the line but the one it joins (which it
        touches), and of the outlines `more` (tiles a look ahead imagines), so an arm that
        turns never lands on another arm."""
        mine = tile.corners().astype(np.float32)
        centre = np.array([tile.x, tile.y])
        others = [o.corners().astype(np.float32) for i, o in enumerate(self.tiles)
                  if i != joined and np.hypot(o.x - centre[0], o.y - centre[1]) < 1.2 * L]
        for other in others + [m for m in more if np.hypot(*(m.mean(axis=0) - centre)) < 1.2 * L]:
            area, _ = cv2.intersectConvexConvex(mine, other)
            if area > 1.0:  # mm²: tiles touching along a side share none
                return False
        return True

    def _next_spot(self, end: OpenEnd, more: tuple[np.ndarray, ...]) -> np.ndarray | None:
        """The outline of the tile `end` would take next (straight on, else turning), if any."""
        for way, reach in ((end.direction, end.reach), (_clockwise(end.direction), end.side),
                           (-_clockwise(end.direction), end.side)):
            tile = self._make(0, 1, (0, 1), end.centre + way * (reach + GAP_MM), way)
            if self._fits(tile) and self._free(tile, end.tile_index, more):
                return tile.corners().astype(np.float32)
        return None

    def _room(self, end: OpenEnd, joined: int, depth: int, more: tuple[np.ndarray, ...] = ()) -> int:
        """How many tiles in a row (up to `depth`) could still be laid from `end`, any way each.

        The imagined tiles are not doubles (a double's crosswise form is shorter); `more` holds
        those already imagined on this path."""
        if depth == 0:
            return 0
        best = 0
        for way, reach in ((end.direction, end.reach), (_clockwise(end.direction), end.side),
                           (-_clockwise(end.direction), end.side)):
            tile = self._make(0, 1, (0, 1), end.centre + way * (reach + GAP_MM), way)
            if not (self._fits(tile) and self._free(tile, joined, more)):
                continue
            centre = np.array([tile.x, tile.y])
            after = OpenEnd(1, centre + way * (L / 4), way, W / 2, W / 2, -1)
            best = max(best, 1 + self._room(after, -1, depth - 1, (*more, tile.corners().astype(np.float32))))
            if best == depth:
                break
        return best

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
        self.ends.update(self._spinner_ends(self.tiles[index], index))

    @staticmethod
    def _spinner_ends(tile: PlacedTile, index: int) -> dict[str, OpenEnd]:
        """The `up` and `down` ends off the long sides of the double `tile` (number `index`)."""
        axis = np.array([math.cos(math.radians(tile.angle)), math.sin(math.radians(tile.angle))])
        centre = np.array([tile.x, tile.y])
        return {name: OpenEnd(tile.a, centre.copy(), d, L / 2, W / 2, index)
                for name, d in zip(("up", "down"), up_and_down(axis), strict=True)}

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
        # The first double of a line with a spinner lies crosswise whatever the room: its long
        # sides are the spinner's up and down ends.
        opens_spinner = self.plan and near == far and self.spinner_allowed and self.spinner_index is None
        forms = (True, False) if near == far and not opens_spinner else (True,)
        index = len(self.tiles)
        chosen: tuple[PlacedTile, np.ndarray, bool] | None = None
        most = (-1, -1)
        for crosswise, (way, reach) in ((c, w) for c in forms for w in ways):
            tile = self._make(near, far, (a, b), open_end.centre + way * (reach + gap), way, crosswise)
            if not (self._fits(tile) and self._free(tile, open_end.tile_index)):
                continue
            if not self.plan:
                chosen = (tile, way, crosswise)
                break
            laid = (tile.corners().astype(np.float32),)
            others = [other for name, other in self.ends.items() if name != end]
            if near == far and crosswise and self.spinner_allowed and self.spinner_index is None:
                others += self._spinner_ends(tile, index).values()  # this double opens two more
            # Every other arm keeps the place of its next tile: this arm looks ahead around them.
            kept = tuple(spot for other in others
                         if (spot := self._next_spot(other, laid)) is not None)
            own = self._room(self._end_after(tile, far, way, near == far and crosswise, index),
                             index, LOOK_AHEAD, laid + kept)
            room = own
            for other in others:  # and the other arms keep room of their own
                if room > 0:
                    room = min(room, self._room(other, other.tile_index, LOOK_AHEAD, laid))
            # The least room any arm keeps decides; among ways that tie on it (another arm's
            # pocket caps them all alike), the one that leaves this arm the most room wins, and
            # among equals the first in order of preference.
            if (room, own) > most:
                chosen, most = (tile, way, crosswise), (room, own)
            if room == LOOK_AHEAD:
                break
        if chosen is None and self.plan:
            chosen = self._squeezed(open_end, near, far, (a, b), forms, ways)
        if chosen is None:
            raise LayoutError(f"no room left on the table for {a}-{b} on end {end!r}")
        tile, d, crosswise = chosen
        if d is open_end.direction:
            self.turned[end] = 0
        else:
            sense = 1 if np.allclose(d, _clockwise(open_end.direction)) else -1
            # The second turn of a U-turn ends it: the new row runs straight on.
            self.turned[end] = 0 if self.turned.get(end, 0) else sense
        self.tiles.append(tile)
        self.joins.append((open_end.tile_index, index))
        self.ends[end] = self._end_after(tile, far, d, near == far and crosswise, index)
        if near == far and crosswise and self.spinner_allowed and self.spinner_index is None:
            self._open_spinner(index)
        return tile

    def _squeezed(self, open_end: OpenEnd, near: int, far: int, first: tuple[int, int],
                  forms: tuple[bool, ...], ways: list[tuple[np.ndarray, float]],
                  ) -> tuple[PlacedTile, np.ndarray, bool] | None:
        """A place for a tile none of the usual ways takes: the same ways slid sideways, nearest
        first, up to a tile's length (players squeeze a tile past a neighbour as they can)."""
        for offset in sorted(np.arange(-SQUEEZE_MM, SQUEEZE_MM + 0.1, W / 4), key=abs):
            for crosswise, (way, reach) in ((c, w) for c in forms for w in ways):
                start = open_end.centre + way * (reach + GAP_MM) + _clockwise(way) * offset
                tile = self._make(near, far, first, start, way, crosswise)
                if self._fits(tile) and self._free(tile, open_end.tile_index):
                    return tile, way, crosswise
        return None

    @staticmethod
    def _end_after(tile: PlacedTile, far: int, d: np.ndarray, crosswise_double: bool, index: int) -> OpenEnd:
        """The open end that `tile`, laid going `d` as tile number `index`, leaves showing `far`."""
        centre = np.array([tile.x, tile.y])
        if crosswise_double:
            return OpenEnd(far, centre, d, W / 2, L / 2, index)
        return OpenEnd(far, centre + d * (L / 4), d, W / 2, W / 2, index)
