"""Random tables for the dataset: a line of play, loose tiles, a boneyard heap, revealed hands,
hands reaching over empty parts of the table. Exact ground truth comes with every scene.
"""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np

from vision.calibration import TableLayout
from vision.plane import TILE_LENGTH_MM, TILE_WIDTH_MM
from vision.synth.hands import SKIN_TONES, SLEEVES, Hand, hand_masks
from vision.synth.layout import LayoutError, LineOfPlay
from vision.synth.scene import PlacedTile, Scene


def full_set(max_pip: int = 6) -> list[tuple[int, int]]:
    return [(a, b) for a in range(max_pip + 1) for b in range(a, max_pip + 1)]


class Occupancy:
    """A 1 px/mm map of the table telling which parts are covered, to keep tiles apart."""

    def __init__(self, layout: TableLayout) -> None:
        self.layout = layout
        self.grid = np.zeros((math.ceil(layout.height_mm), math.ceil(layout.width_mm)), np.uint8)
        for marker_id in range(4):
            c = layout.marker_corners(marker_id)
            pad = layout.marker_mm / 4 + 3
            cv2.rectangle(
                self.grid, tuple(int(v) for v in c[0] - pad), tuple(int(v) for v in c[2] + pad), 1, -1
            )

    def _poly(self, corners: np.ndarray, grow: float) -> np.ndarray:
        centre = corners.mean(axis=0)
        grown = centre + (corners - centre) * (
            1 + grow / np.linalg.norm(corners - centre, axis=1, keepdims=True)
        )
        mask = np.zeros_like(self.grid)
        cv2.fillPoly(mask, [np.round(grown).astype(np.int32)], 1)
        return mask

    def free(self, corners: np.ndarray, grow: float = 1.0) -> bool:
        h, w = self.grid.shape
        if np.any(corners < 2) or np.any(corners[:, 0] > w - 2) or np.any(corners[:, 1] > h - 2):
            return False
        return not np.any(self._poly(corners, grow) & self.grid)

    def take(self, corners: np.ndarray) -> None:
        self.grid |= self._poly(corners, 0.0)

    def take_mask(self, mask: np.ndarray) -> None:
        self.grid |= mask


def random_layout(rng: np.random.Generator, smallest: float = 0.5) -> TableLayout:
    """The default table scaled by a random factor: the camera sees tiles from ~65 to ~130 px long
    at 1920 x 1080."""
    base = TableLayout()
    f = float(rng.uniform(smallest, 1.0))
    zones = {name: (x0 * f, y0 * f, x1 * f, y1 * f) for name, (x0, y0, x1, y1) in base.zones.items()}
    return TableLayout(
        width_mm=base.width_mm * f,
        height_mm=base.height_mm * f,
        marker_mm=max(30.0, base.marker_mm * f),
        inset_mm=base.inset_mm * f,
        zones=zones,
    )


def random_chain(
    rng: np.random.Generator, layout: TableLayout, pool: list[tuple[int, int]], plays: int, spinner: bool
) -> LineOfPlay:
    """A legal line of play of up to `plays` tiles drawn from `pool` (which loses them)."""
    zone = layout.zones["play"]
    cx = rng.uniform(zone[0] + 0.35 * (zone[2] - zone[0]), zone[0] + 0.65 * (zone[2] - zone[0]))
    cy = rng.uniform(zone[1] + 0.35 * (zone[3] - zone[1]), zone[1] + 0.65 * (zone[3] - zone[1]))
    # Laid without the films' look ahead: the dataset's seed N stays the table it always was.
    line = LineOfPlay(zone, (cx, cy), spinner=spinner, plan=False)
    first = pool.pop(int(rng.integers(len(pool))))
    line.lead(*(first if rng.random() < 0.5 else first[::-1]))
    for _ in range(plays - 1):
        options = [
            (i, end)
            for i, tile in enumerate(pool)
            for end, open_end in line.ends.items()
            if open_end.value in tile
        ]
        if not options:
            break
        i, end = options[int(rng.integers(len(options)))]
        a, b = pool[i]
        try:
            line.play(a, b, end)
        except LayoutError:
            continue
        pool.pop(i)
    return line


def _scatter(
    rng: np.random.Generator, occupancy: Occupancy, region: tuple[float, float, float, float], tries: int = 60
) -> tuple[float, float, float] | None:
    x0, y0, x1, y1 = region
    for _ in range(tries):
        x, y, angle = rng.uniform(x0, x1), rng.uniform(y0, y1), rng.uniform(0, 360)
        probe = PlacedTile(0, 0, x, y, angle)
        if occupancy.free(probe.corners(), grow=2.0):
            return x, y, angle
    return None


# A tidied boneyard (`tidied_boneyard`): backs side by side this far apart (mm), rows this far
# apart end to end (mm), each row turned up to this many degrees from the zone's long side, each
# back up to this many degrees from its row's square and up to this many mm off its place, and
# the first back this far (mm, x and y) in from the zone's corner beyond its own half-size. The
# films lay a new hand's boneyard 3 mm apart (`vision.synth.film.GameFilm.new_hand`); players
# push theirs closer or leave more.
TIDIED_GAP_MM = (0.8, 5.0)
TIDIED_ROW_GAP_MM = (2.0, 15.0)
TIDIED_ROW_DEGREES = 6.0
TIDIED_BACK_DEGREES = 1.0
TIDIED_JITTER_MM = 0.3
TIDIED_INSET_MM = ((2.0, 12.0), (2.0, 8.0))


def tidied_boneyard(rng: np.random.Generator, occupancy: Occupancy, zone: tuple[float, float, float, float],
                    pool: list[tuple[int, int]], count: int) -> list[PlacedTile]:
    """Up to `count` tiles of `pool` (which loses them) laid face down side by side in rows from
    `zone`'s top left corner, as players tidy a boneyard: each row and each back starts within the
    zone, wherever `occupancy` has room (a small table's zone is narrower than a tile is long);
    `occupancy` takes them."""
    x0, y0, x1, y1 = zone
    turn = math.radians(rng.uniform(-TIDIED_ROW_DEGREES, TIDIED_ROW_DEGREES))
    along = np.array([math.cos(turn), math.sin(turn)])
    across = np.array([-math.sin(turn), math.cos(turn)])
    pitch = TILE_WIDTH_MM + rng.uniform(*TIDIED_GAP_MM)
    row_pitch = TILE_LENGTH_MM + rng.uniform(*TIDIED_ROW_GAP_MM)
    (in_x, in_y) = TIDIED_INSET_MM
    first = np.array([x0 + TILE_WIDTH_MM / 2 + rng.uniform(*in_x),
                      y0 + TILE_LENGTH_MM / 2 + rng.uniform(*in_y)])
    laid: list[PlacedTile] = []
    for row in itertools.count():
        start = first + across * row * row_pitch
        if start[1] > y1 or len(laid) >= count or not pool:
            return laid
        for column in itertools.count():
            x, y = start + along * column * pitch + rng.uniform(-TIDIED_JITTER_MM, TIDIED_JITTER_MM, 2)
            angle = 90.0 + math.degrees(turn) + rng.uniform(-TIDIED_BACK_DEGREES, TIDIED_BACK_DEGREES)
            if x > x1:
                break
            tile = PlacedTile(*pool[-1], float(x), float(y), angle, face_up=False)
            if not occupancy.free(tile.corners(), grow=-1.0):  # a row goes round what lies in its way
                continue
            pool.pop()
            occupancy.take(tile.corners())
            laid.append(tile)
            if len(laid) >= count or not pool:
                return laid
    return laid  # (never reached: the rows run out of zone, tiles or count)


def random_scene(rng: np.random.Generator, layout: TableLayout | None = None, max_pip: int = 6,
                 tidied_share: float = 0.0) -> Scene:
    """A table in the middle of a game, or a pile of loose tiles, with exact ground truth. A share
    `tidied_share` of the boneyards is laid in rows (`tidied_boneyard`) instead of jumbled; with
    none, `rng` is drawn from exactly as before, so every seed stays the table it always was."""
    layout = layout or TableLayout()
    pool = full_set(max_pip)
    rng.shuffle(pool)
    occupancy = Occupancy(layout)
    tiles: list[PlacedTile] = []
    joins: list[tuple[int, int]] = []
    kind = rng.choice(["game", "game", "loose", "sparse"])
    if kind == "game":
        line = random_chain(rng, layout, pool, int(rng.integers(1, 16)), spinner=bool(rng.random() < 0.35))
        for tile in line.tiles:
            occupancy.take(tile.corners())
        tiles.extend(line.tiles)
        joins.extend(line.joins)
    loose = int(rng.integers(0, 4)) if kind == "game" else int(rng.integers(1, 15))
    whole = (40.0, 40.0, layout.width_mm - 40.0, layout.height_mm - 40.0)
    for _ in range(min(loose, len(pool))):
        spot = _scatter(rng, occupancy, whole)
        if spot is None:
            break
        a, b = pool.pop()
        if rng.random() < 0.5:
            a, b = b, a
        tile = PlacedTile(a, b, *spot)
        occupancy.take(tile.corners())
        tiles.append(tile)
    # Revealed hands: rows of tiles pressed side by side in a seat's zone.
    if kind == "game" and rng.random() < 0.4 and pool:
        seat = str(rng.choice(["seat0", "seat2"]))
        x0, y0, _, y1 = layout.zones[seat]
        x = x0 + 20 + rng.uniform(0, 60)
        for _ in range(int(rng.integers(1, 6))):
            if not pool:
                break
            tile = PlacedTile(*pool.pop(), x, (y0 + y1) / 2, 90.0 + 180.0 * float(rng.integers(2)))
            if not occupancy.free(tile.corners(), grow=-1.0):
                break
            occupancy.take(tile.corners())
            tiles.append(tile)
            x += TILE_WIDTH_MM + 0.8
    # The boneyard: face-down tiles jumbled in their zone, or a share of them tidied into rows.
    heap = int(rng.integers(0, 15)) if kind != "loose" else int(rng.integers(0, 4))
    if tidied_share > 0 and heap and rng.random() < tidied_share:
        tiles.extend(tidied_boneyard(rng, occupancy, layout.zones["boneyard"], pool, heap))
        heap = 0
    for _ in range(min(heap, len(pool))):
        spot = _scatter(rng, occupancy, layout.zones["boneyard"])
        if spot is None:
            break
        tile = PlacedTile(*pool.pop(), *spot, face_up=False)
        occupancy.take(tile.corners())
        tiles.append(tile)
    hands = random_hands(rng, layout, occupancy, int(rng.choice([0, 0, 1, 1, 2])))
    return Scene(tuple(tiles), tuple(hands), tuple(joins), layout)


def random_hand(rng: np.random.Generator, layout: TableLayout, x: float, y: float) -> Hand:
    """A hand at (x, y) reaching in from the nearest table edge."""
    toward = np.array([x - layout.width_mm / 2, y - layout.height_mm / 2])
    edge_angle = math.degrees(math.atan2(-toward[1], -toward[0])) + rng.uniform(-35, 35)
    return Hand(
        x,
        y,
        edge_angle,
        skin=SKIN_TONES[int(rng.integers(len(SKIN_TONES)))],
        sleeve=SLEEVES[int(rng.integers(len(SLEEVES)))],
        scale=float(rng.uniform(0.9, 1.15)),
        height_mm=float(rng.uniform(30, 120)),
    )


def random_hands(
    rng: np.random.Generator, layout: TableLayout, occupancy: Occupancy, count: int
) -> list[Hand]:
    """Hands over the table that cover no tile (a covered tile has no exact label)."""
    hands: list[Hand] = []
    to_grid = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    for _ in range(count):
        for _ in range(30):
            x, y = rng.uniform(0, layout.width_mm), rng.uniform(0, layout.height_mm)
            hand = random_hand(rng, layout, x, y)
            skin, sleeve = hand_masks(hand, to_grid, occupancy.grid.shape)
            cover = ((skin + sleeve) > 0.01).astype(np.uint8)
            cover = np.asarray(cv2.dilate(cover, np.ones((9, 9), np.uint8)), np.uint8)
            if not np.any(cover & occupancy.grid):
                hands.append(hand)
                occupancy.take_mask(cover)
                break
    return hands


__all__ = ["TILE_LENGTH_MM", "Occupancy", "full_set", "random_chain", "random_hand", "random_scene"]
