"""The line of play as the renderer lays it: tiles stay in the play zone and never lie on each
other, however the arms turn; every play of a hand's line finds room on the demo's table. A
tidied boneyard is laid in rows of backs side by side, apart from everything else."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from vision.calibration import TableLayout
from vision.plane import TILE_WIDTH_MM
from vision.synth.film import random_plays, small_table
from vision.synth.layout import LayoutError, LineOfPlay
from vision.synth.random_scenes import (
    TIDIED_BACK_DEGREES,
    TIDIED_GAP_MM,
    TIDIED_ROW_DEGREES,
    full_set,
    random_layout,
    random_scene,
)
from vision.synth.scene import Scene


def _overlap(first: np.ndarray, second: np.ndarray) -> float:
    area, _ = cv2.intersectConvexConvex(first.astype(np.float32), second.astype(np.float32))
    return float(area)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), spinner=st.booleans())
@example(seed=3300451783, spinner=True)  # a tile 0.6 mm into a crosswise double once got through
def test_a_long_line_stays_in_its_zone_and_its_tiles_never_overlap(seed: int, spinner: bool) -> None:
    rng = np.random.default_rng(seed)
    zone = small_table().zones["play"]
    line = LineOfPlay(zone, spinner=spinner)
    pool = full_set()
    rng.shuffle(pool)
    line.lead(*pool.pop())
    while True:
        options = [(i, end) for i, tile in enumerate(pool) for end, o in line.ends.items() if o.value in tile]
        if not options:
            break
        i, end = options[int(rng.integers(len(options)))]
        try:
            line.play(*pool[i], end)
        except LayoutError as error:
            assert "no room" in str(error)
            break
        pool.pop(i)
    x0, y0, x1, y1 = zone
    for k, tile in enumerate(line.tiles):
        corners = tile.corners()
        assert corners[:, 0].min() >= x0 - 1e-6 and corners[:, 0].max() <= x1 + 1e-6
        assert corners[:, 1].min() >= y0 - 1e-6 and corners[:, 1].max() <= y1 + 1e-6
        for other in line.tiles[:k]:
            assert _overlap(corners, other.corners()) < 2.0, (tile, other)
    assert len(line.tiles) >= 8  # a 510 x 164 mm zone holds a real hand's line


def _lay_random_line(seed: int, spinner: bool, plays: int) -> tuple[LineOfPlay, int]:
    """A random legal line of up to `plays` tiles (`random_plays`, as an engine might play them)
    laid on the demo's table; returns the line and how many plays it took."""
    line = LineOfPlay(small_table().zones["play"], spinner=spinner)
    laid = 0
    for tile, end in random_plays(np.random.default_rng(seed), plays, spinner):
        a, b = (int(v) for v in tile.split("-"))
        if end is None:
            line.lead(a, b)
        else:
            line.play(a, b, end)  # raises LayoutError when the table has no room
        laid += 1
    return line, laid


ALWAYS_LAID = 15  # the fewest tiles any measured random line laid before it ran out of room


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), spinner=st.booleans())
@example(seed=217, spinner=True)  # a spinner at the zone's edge: its up arm was blocked at play 9
@example(seed=143, spinner=True)  # a spinner right after a corner: its down arm had no room
@example(seed=5, spinner=True)    # the first double once fell back to lying in line: no spinner
@example(seed=477672, spinner=True)  # the down arm boxed in at the zone's corner after 19 tiles
@example(seed=330, spinner=True)  # a spinner against the zone's edge: its left end shut, 15 laid
def test_a_random_line_finds_room_for_a_hands_worth_of_tiles(seed: int, spinner: bool) -> None:
    """Every play of a hand's line finds room on the demo's table up to `ALWAYS_LAID` tiles, and
    mostly to 20 (longer than the demo's matches reach): an arm at the table's edge turns or
    snakes, and keeps clear of the other arms' next places. Past that a spinner's four arms can
    box one in on a 510 x 230 mm zone (3 of 2,001 twenty-tile lines: seeds 0..999 with and without
    a spinner, and 477672; the earliest after 15 tiles); the tiles laid still never overlap."""
    try:
        line, laid = _lay_random_line(seed, spinner, 20)
        assert laid == len(line.tiles) >= 8
    except LayoutError:
        line, laid = _lay_random_line(seed, spinner, ALWAYS_LAID)
        assert laid == len(line.tiles) == ALWAYS_LAID
    for k, tile in enumerate(line.tiles):
        for other in line.tiles[:k]:
            assert _overlap(tile.corners(), other.corners()) < 2.0, (tile, other)


def test_nearly_every_full_random_line_is_laid_to_its_end() -> None:
    """The longest lines a double-six set makes (every tile the random walk can lay, up to 28):
    at most one in thirty runs out of room (of 2,500 such lines, seeds 0..449 and 1000..1799 with
    and without a spinner, 21 did, each after at least 21 tiles; 26 before ties between ways went to
    the one that leaves the arm itself most room). No demo match comes near: 0 of 19,099 plays of
    360 demo matches, seeds 1..60 of the four rule sets with 2 and 4 players, went unlaid (25 did
    before the look ahead; measured before the tie rule)."""
    stuck = []
    for seed in range(30):
        try:
            _lay_random_line(seed, seed % 2 == 1, 28)
        except LayoutError:
            stuck.append(seed)
    assert len(stuck) <= 1, stuck


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_tidied_boneyard_lies_in_rows_of_backs_side_by_side_touching_nothing(seed: int) -> None:
    layout = random_layout(np.random.default_rng([seed, 1]))
    scene = random_scene(np.random.default_rng(seed), layout, tidied_share=1.0)
    backs = [tile for tile in scene.tiles if not tile.face_up]
    square = TIDIED_ROW_DEGREES + TIDIED_BACK_DEGREES + 1e-6
    for tile in backs:  # every back square to its row
        assert abs((tile.angle - 90.0 + 90.0) % 180.0 - 90.0) <= square
    nearest = [min(np.hypot(t.x - u.x, t.y - u.y) for u in backs if u is not t) for t in backs
               if len(backs) > 1]
    # Backs are one width and a gap apart at the closest (TIDIED_JITTER_MM each; a row goes round
    # a tile in its way, leaving a wider gap).
    assert all(d >= TILE_WIDTH_MM + TIDIED_GAP_MM[0] - 1.5 for d in nearest), nearest
    for k, tile in enumerate(scene.tiles):
        corners = tile.corners()
        assert corners.min() >= 0
        assert corners[:, 0].max() <= layout.width_mm and corners[:, 1].max() <= layout.height_mm
        for other in scene.tiles[:k]:
            assert _overlap(corners, other.corners()) < 1.0, (tile, other)


def test_a_tidied_boneyard_lays_backs_beside_each_other_where_a_jumbled_one_seldom_does() -> None:
    jumbled = [random_scene(np.random.default_rng(seed), TableLayout()) for seed in range(30)]
    tidied = [random_scene(np.random.default_rng(seed), TableLayout(), tidied_share=1.0)
              for seed in range(30)]
    assert _beside(tidied) >= 30 and _beside(tidied) > 3 * _beside(jumbled)


def _beside(scenes: list[Scene]) -> int:
    """Pairs of backs side by side, a gap apart."""
    beside = 0
    for scene in scenes:
        backs = [tile for tile in scene.tiles if not tile.face_up]
        beside += sum(np.hypot(t.x - u.x, t.y - u.y) <= TILE_WIDTH_MM + TIDIED_GAP_MM[1] + 1.0
                      for k, t in enumerate(backs) for u in backs[:k])
    return beside
