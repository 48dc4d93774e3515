"""A game on film: plays, draws and reveals turned into camera frames with exact ground truth.

    film = GameFilm(style, seed, size)
    frames = film.play(seat, "3-5", "left")   # a hand carries the tile in, lays it, leaves
    frames = film.draw(seat)                  # a hand takes a face-down tile from the boneyard
    frames = film.reveal(seat, ["1-2", "4-4"])  # a hand's tiles laid face up in the seat's zone
    frames = film.new_hand(boneyard=14)       # the table is cleared and a new boneyard laid

Each call returns the `Frame`s it produced, each with its time `t` (seconds from the film's
start at `fps` frames per second) and the labels of what lies on the table. Seats sit around the
table clockwise from the bottom edge: 0 bottom, 1 right, 2 top, 3 left; the tiles of the line of
play follow `vision.synth.layout.LineOfPlay` (corners turned at the play zone's edge, doubles
crosswise, a spinner's arms for all-fives).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.calibration import Calibration, TableLayout
from vision.plane import TILE_LENGTH_MM, TILE_WIDTH_MM
from vision.synth.hands import SKIN_TONES, SLEEVES, Hand
from vision.synth.layout import LineOfPlay
from vision.synth.random_scenes import Occupancy, full_set
from vision.synth.scene import Frame, PlacedTile, Renderer, Scene
from vision.synth.style import Style, random_style

ENDS_ORDER = ("left", "right", "up", "down")


def parse_tile(tile: object) -> tuple[int, int]:
    """(first, second) values of a tile given as "3-5", "5|3", (3, 5) or an object with a, b."""
    if isinstance(tile, tuple | list) and len(tile) == 2:
        return int(tile[0]), int(tile[1])
    if hasattr(tile, "a") and hasattr(tile, "b"):
        return int(tile.a), int(tile.b)
    text = str(tile).strip().strip("[]")
    for sep in ("-", "|", ":"):
        if sep in text:
            left, right = text.split(sep, 1)
            return int(left), int(right)
    raise ValueError(f"not a tile: {tile!r} (expected like '3-5')")


@dataclass
class Truth:
    """What a tracker should report for one call: the event and the frame index it completes at."""

    kind: str
    seat: int | None = None
    tile: str | None = None
    end: str | None = None
    tiles: tuple[str, ...] = ()
    frames: list[Frame] = field(default_factory=list)


class GameFilm:
    """Films a game on one table with one camera; every call advances the film's clock."""

    def __init__(
        self,
        style: Style | None = None,
        seed: int = 0,
        size: tuple[int, int] = (1280, 720),
        *,
        fps: float = 5.0,
        spinner: bool = False,
        layout: TableLayout | None = None,
        approach_frames: int = 4,
        leave_frames: int = 3,
        rest_frames: int = 4,
    ) -> None:
        self.rng = np.random.default_rng(seed)
        self.style = style or random_style(self.rng)
        self.layout = layout or TableLayout()
        self.renderer = Renderer(self.style, size, seed=int(self.rng.integers(1 << 31)), layout=self.layout)
        self.fps, self.spinner = fps, spinner
        self.approach_frames, self.leave_frames, self.rest_frames = approach_frames, leave_frames, rest_frames
        self.t = 0.0
        self._frame_seed = int(self.rng.integers(1 << 31))
        self.skins = [SKIN_TONES[int(self.rng.integers(len(SKIN_TONES)))] for _ in range(4)]
        self.sleeves = [SLEEVES[int(self.rng.integers(len(SLEEVES)))] for _ in range(4)]
        self.line = LineOfPlay(self.layout.zones["play"], spinner=spinner)
        self.boneyard: list[PlacedTile] = []
        self.revealed: list[PlacedTile] = []
        self.history: list[Truth] = []

    # -- scene bookkeeping -----------------------------------------------------------------------

    def scene(self, extra: tuple[PlacedTile, ...] = (), hands: tuple[Hand, ...] = ()) -> Scene:
        tiles = tuple(self.line.tiles) + tuple(self.boneyard) + tuple(self.revealed) + extra
        return Scene(tiles, hands, tuple(self.line.joins), self.layout)

    def _frame(self, scene: Scene) -> Frame:
        frame = self.renderer.render(scene, self._frame_seed, self.t)
        self._frame_seed += 1
        self.t = round(self.t + 1.0 / self.fps, 6)
        return frame

    def still(self, count: int | None = None) -> list[Frame]:
        """Frames of the table with nobody touching it."""
        return [self._frame(self.scene()) for _ in range(self.rest_frames if count is None else count)]

    def _seat_entry(self, seat: int, target: np.ndarray) -> np.ndarray:
        w, h = self.layout.width_mm, self.layout.height_mm
        jitter = self.rng.uniform(-120, 120)
        x, y = float(np.clip(target[0] + jitter, 0, w)), float(np.clip(target[1] + jitter, 0, h))
        return {
            0: np.array([x, h + 260]),
            1: np.array([w + 260, y]),
            2: np.array([x, -260.0]),
            3: np.array([-260.0, y]),
        }[seat % 4]

    def _hand_at(self, seat: int, palm: np.ndarray, entry: np.ndarray, wobble: float = 0.0) -> Hand:
        d = palm - entry
        angle = math.degrees(math.atan2(d[1], d[0])) + wobble
        return Hand(
            float(palm[0]),
            float(palm[1]),
            angle,
            self.skins[seat % 4],
            self.sleeves[seat % 4],
            height_mm=60.0,
        )

    def _sweep(
        self, seat: int, target: np.ndarray, steps: int, inward: bool
    ) -> Iterator[tuple[Hand, np.ndarray]]:
        """Hand positions moving between the seat's edge and `target` (fingertips over it)."""
        entry = self._seat_entry(seat, target)
        direction = (target - entry) / np.linalg.norm(target - entry)
        palm_target = target - direction * 62.0
        for k in range(steps):
            f = (k + 1) / steps if inward else 1 - (k + 1) / steps
            f = 0.5 - 0.5 * math.cos(math.pi * f)  # ease in and out
            palm = entry + (palm_target - entry) * f + self.rng.normal(0, 3.0, 2)
            yield self._hand_at(seat, palm, entry, float(self.rng.normal(0, 4))), direction

    # -- the calls -------------------------------------------------------------------------------

    def play(self, seat: int, tile: object, end: str | None = None) -> list[Frame]:
        """`seat` lays `tile` on `end` (None: the lead, or the first end it fits)."""
        a, b = parse_tile(tile)
        if not self.line.tiles:
            placed = self.line.lead(a, b)
            end_used = None
        else:
            if end is None:
                fitting = [e for e in ENDS_ORDER if e in self.line.ends and self.line.ends[e].value in (a, b)]
                if not fitting:
                    raise ValueError(f"tile {a}-{b} fits no open end {sorted(self.line.ends)}")
                end = fitting[0]
            placed = self.line.play(a, b, end)
            end_used = end
        self.line.tiles.pop()  # shown only once the hand has laid it
        joins = self.line.joins.pop() if end_used is not None else None
        target = np.array([placed.x, placed.y])
        frames: list[Frame] = []
        for hand, direction in self._sweep(seat, target, self.approach_frames, inward=True):
            carried = PlacedTile(
                a, b, hand.x + direction[0] * 62, hand.y + direction[1] * 62, placed.angle, lifted_mm=25.0
            )
            frames.append(self._frame(self.scene((carried,), (hand,))))
        self.line.tiles.append(placed)
        if joins is not None:
            self.line.joins.append(joins)
        for hand, _ in self._sweep(seat, target, self.leave_frames, inward=False):
            frames.append(self._frame(self.scene(hands=(hand,))))
        frames += self.still()
        self.history.append(Truth("play", seat, placed.name, end_used, frames=frames))
        return frames

    def draw(self, seat: int) -> list[Frame]:
        """`seat` takes one face-down tile from the boneyard."""
        if not self.boneyard:
            raise ValueError("the boneyard is empty")
        index = int(self.rng.integers(len(self.boneyard)))
        taken = self.boneyard[index]
        target = np.array([taken.x, taken.y])
        frames = [
            self._frame(self.scene(hands=(hand,)))
            for hand, _ in self._sweep(seat, target, self.approach_frames, True)
        ]
        self.boneyard.pop(index)
        for hand, direction in self._sweep(seat, target, self.leave_frames, inward=False):
            carried = PlacedTile(
                taken.a,
                taken.b,
                hand.x + direction[0] * 62,
                hand.y + direction[1] * 62,
                taken.angle,
                face_up=False,
                lifted_mm=25.0,
            )
            frames.append(self._frame(self.scene((carried,), (hand,))))
        frames += self.still()
        self.history.append(Truth("draw", seat, frames=frames))
        return frames

    def reveal(self, seat: int, tiles: list[object] | tuple[object, ...]) -> list[Frame]:
        """`seat` lays the tiles left in their hand face up in their zone, side by side."""
        x0, y0, x1, y1 = self.layout.zones[f"seat{seat % 4}"]
        horizontal = (x1 - x0) > (y1 - y0)
        values = [parse_tile(t) for t in tiles]
        span = len(values) * (TILE_WIDTH_MM + 1.0)
        placed = []
        for k, (a, b) in enumerate(values):
            if horizontal:
                x = (x0 + x1) / 2 - span / 2 + (k + 0.5) * (TILE_WIDTH_MM + 1.0)
                placed.append(PlacedTile(a, b, x, (y0 + y1) / 2, 90.0))
            else:
                y = (y0 + y1) / 2 - span / 2 + (k + 0.5) * (TILE_WIDTH_MM + 1.0)
                placed.append(PlacedTile(a, b, (x0 + x1) / 2, y, 0.0))
        target = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
        frames = [
            self._frame(self.scene(hands=(hand,)))
            for hand, _ in self._sweep(seat, target, self.approach_frames, True)
        ]
        self.revealed.extend(placed)
        for hand, _ in self._sweep(seat, target, self.leave_frames, inward=False):
            frames.append(self._frame(self.scene(hands=(hand,))))
        frames += self.still()
        self.history.append(Truth("reveal", seat, tiles=tuple(t.name for t in placed), frames=frames))
        return frames

    def new_hand(self, boneyard: int = 14, max_pip: int = 6) -> list[Frame]:
        """Clear the table and lay a fresh boneyard of `boneyard` face-down tiles."""
        frames = []
        centre = np.array([self.layout.width_mm / 2, self.layout.height_mm / 2])
        for hand, _ in self._sweep(0, centre, self.approach_frames, True):
            frames.append(self._frame(self.scene(hands=(hand,))))
        self.line = LineOfPlay(self.layout.zones["play"], spinner=self.spinner)
        self.revealed = []
        pool = full_set(max_pip)
        self.rng.shuffle(pool)
        self.boneyard = self._heap(pool[:boneyard])
        for hand, _ in self._sweep(0, centre, self.leave_frames, inward=False):
            frames.append(self._frame(self.scene(hands=(hand,))))
        frames += self.still()
        self.history.append(Truth("new_hand", frames=frames))
        return frames

    def _heap(self, tiles: list[tuple[int, int]]) -> list[PlacedTile]:
        """Face-down tiles scattered in the boneyard zone; when a scatter does not fit them all,
        laid in loose rows (as players tidy a big boneyard). Raises ValueError if rows do not fit."""
        x0, y0, x1, y1 = self.layout.zones["boneyard"]
        occupancy = Occupancy(self.layout)
        heap: list[PlacedTile] = []
        for a, b in tiles:
            for _ in range(80):
                x, y = self.rng.uniform(x0 + 15, x1 - 15), self.rng.uniform(y0 + 12, y1 - 12)
                probe = PlacedTile(a, b, x, y, self.rng.uniform(0, 180), face_up=False)
                if occupancy.free(probe.corners(), grow=1.5):
                    occupancy.take(probe.corners())
                    heap.append(probe)
                    break
            else:
                break
        if len(heap) == len(tiles):
            return heap
        # Rows as far apart as the zone allows: backs laid end to end across a narrow gap show
        # a dark band between two plain faces, the look of a blank double's divider.
        pitch_x = TILE_WIDTH_MM + 3.0
        columns = int((x1 - x0) // pitch_x)
        rows = max(1, int((y1 - y0 - 4.0) // (TILE_LENGTH_MM + 12.0)) + 1)
        if columns * rows < len(tiles):
            raise ValueError(f"{len(tiles)} boneyard tiles do not fit the boneyard zone "
                             f"({columns * rows} places)")
        pitch_y = (y1 - y0 - 4.0 - TILE_LENGTH_MM) / max(1, rows - 1)
        cells = [(c, r) for r in range(rows) for c in range(columns)]
        chosen = sorted(self.rng.choice(len(cells), size=len(tiles), replace=False))
        left = x0 + (x1 - x0 - columns * pitch_x) / 2 + pitch_x / 2
        top = y0 + 2.0 + TILE_LENGTH_MM / 2
        return [
            PlacedTile(a, b, left + cells[k][0] * pitch_x + self.rng.uniform(-0.8, 0.8),
                       top + cells[k][1] * pitch_y + self.rng.uniform(-1.0, 1.0),
                       90.0 + self.rng.uniform(-3.0, 3.0), face_up=False)
            for (a, b), k in zip(tiles, chosen, strict=True)
        ]

    def nudge(self, seat: int, shift_mm: float = 4.0, turn_deg: float = 3.0) -> list[Frame]:
        """A hand straightens a tile of the line of play: it moves a few millimetres, nothing more."""
        if not self.line.tiles:
            return self.pass_over(seat)
        index = int(self.rng.integers(len(self.line.tiles)))
        old = self.line.tiles[index]
        target = np.array([old.x, old.y])
        frames = [
            self._frame(self.scene(hands=(hand,)))
            for hand, _ in self._sweep(seat, target, self.approach_frames, True)
        ]
        angle = self.rng.uniform(0, 2 * np.pi)
        self.line.tiles[index] = PlacedTile(
            old.a,
            old.b,
            old.x + shift_mm * math.cos(angle),
            old.y + shift_mm * math.sin(angle),
            old.angle + self.rng.uniform(-turn_deg, turn_deg),
        )
        for hand, _ in self._sweep(seat, target, self.leave_frames, inward=False):
            frames.append(self._frame(self.scene(hands=(hand,))))
        frames += self.still()
        self.history.append(Truth("nudge", seat, old.name, frames=frames))
        return frames

    def pass_over(self, seat: int, target: tuple[float, float] | None = None, linger: int = 0) -> list[Frame]:
        """A hand reaches over the table (to point, to think, to straighten the line) and leaves,
        changing nothing; `linger` frames it hovers, still moving a little, over the target."""
        if target is None:
            if self.line.tiles:
                pick = self.line.tiles[int(self.rng.integers(len(self.line.tiles)))]
                target = (pick.x + self.rng.uniform(-30, 30), pick.y + self.rng.uniform(-30, 30))
            else:
                target = (self.layout.width_mm / 2, self.layout.height_mm / 2)
        point = np.asarray(target, float)
        frames = [
            self._frame(self.scene(hands=(hand,)))
            for hand, _ in self._sweep(seat, point, self.approach_frames, True)
        ]
        entry = self._seat_entry(seat, point)
        direction = (point - entry) / np.linalg.norm(point - entry)
        for _ in range(linger):
            palm = point - direction * 62 + self.rng.normal(0, 6.0, 2)
            frames.append(
                self._frame(
                    self.scene(hands=(self._hand_at(seat, palm, entry, float(self.rng.normal(0, 6))),))
                )
            )
        for hand, _ in self._sweep(seat, point, self.leave_frames, inward=False):
            frames.append(self._frame(self.scene(hands=(hand,))))
        frames += self.still()
        self.history.append(Truth("pass_over", seat, frames=frames))
        return frames


def small_table() -> TableLayout:
    """A 620 x 350 mm table seen close up (a camera over the middle of a larger table), as wide as
    a 16:9 frame allows: room for a long line of play and a spinner's four arms, the boneyard in
    a row along the top edge."""
    return TableLayout(
        width_mm=620.0,
        height_mm=350.0,
        marker_mm=36.0,
        inset_mm=8.0,
        zones={
            "boneyard": (55.0, 2.0, 435.0, 56.0),
            "play": (55.0, 60.0, 565.0, 290.0),
            "seat0": (150.0, 294.0, 470.0, 348.0),
            "seat1": (570.0, 60.0, 618.0, 290.0),
            "seat2": (440.0, 2.0, 618.0, 56.0),
            "seat3": (2.0, 60.0, 50.0, 290.0),
        },
    )


def random_plays(
    rng: np.random.Generator, count: int, spinner: bool, max_pip: int = 6
) -> Iterator[tuple[str, str | None]]:
    """A legal sequence of plays (tile, end) drawn at random, as a game engine might produce."""
    line = LineOfPlay((0.0, 0.0, 1e6, 1e6), spinner=spinner)
    pool = full_set(max_pip)
    rng.shuffle(pool)
    first = pool.pop()
    line.lead(*first)
    yield f"{first[0]}-{first[1]}", None
    for _ in range(count - 1):
        options = [(i, e) for i, tile in enumerate(pool) for e, o in line.ends.items() if o.value in tile]
        if not options:
            return
        i, end = options[int(rng.integers(len(options)))]
        a, b = pool.pop(i)
        line.play(a, b, end)
        yield f"{a}-{b}", end


def demo_game_frames(seed: int, plays: int = 12, size: tuple[int, int] = (1280, 720)) -> Iterator[Frame]:
    """A synthetic game from a seed: a boneyard, plays by four seats in turn, hands over the table."""
    rng = np.random.default_rng(seed)
    film = GameFilm(seed=seed, size=size, spinner=bool(rng.random() < 0.3))
    yield from film.new_hand(boneyard=8)
    for turn, (tile, end) in enumerate(random_plays(rng, plays, film.spinner)):
        if rng.random() < 0.3:
            yield from film.pass_over(int(rng.integers(4)))
        yield from film.play(turn % 4, tile, end)


__all__ = ["TILE_LENGTH_MM", "GameFilm", "Truth", "demo_game_frames", "parse_tile", "random_plays"]


def fixed_camera_film(
    style: Style, seed: int, size: tuple[int, int], *, lean: float | None = None, **options: Any
) -> tuple[GameFilm, Calibration]:
    """A film of the small table by a camera that never moves, and that camera's calibration.

    The markers are left out of the picture and the film's exact homography is the calibration,
    as with ``[camera] calibration = "fixed"`` on a real table; `options` go to `GameFilm`. With
    `lean`, the camera leans over the table's near edge (`leaning_camera`) instead of looking
    down with the style's small tilt.
    """
    film = GameFilm(style, seed=seed, size=size, layout=small_table(), **options)
    pose = None if lean is None else leaning_camera(film.layout, size, lean)
    film.renderer = Renderer(style, size, seed=seed, layout=film.layout, table_to_image=pose, markers=False)
    return film, Calibration(np.linalg.inv(film.renderer.table_to_image), film.layout, size)


def leaning_camera(layout: TableLayout, size: tuple[int, int], far_over_near: float) -> np.ndarray:
    """table mm -> image px for a camera leaning over the table's near (bottom) edge: the table
    fills the frame's width at the near edge, and its far edge is `far_over_near` as wide."""
    width, height = size
    near = width * 0.9
    far = near * far_over_near
    image = np.array([[(width - far) / 2, height * 0.06], [(width + far) / 2, height * 0.06],
                      [(width + near) / 2, height * 0.96], [(width - near) / 2, height * 0.96]], np.float32)
    table = np.array([[0, 0], [layout.width_mm, 0], [layout.width_mm, layout.height_mm],
                      [0, layout.height_mm]], np.float32)
    return cv2.getPerspectiveTransform(table, image).astype(np.float64)
