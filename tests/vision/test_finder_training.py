"""Training the finder: what it is taught is what reading decodes, turned patches teach turned
tiles (needs the `train` extra; CI installs it)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.train_extra import require_torch
from tests.vision.frames import tile_frame
from vision.finder import LENGTHS, MARGIN, STRIDE, decode
from vision.geometry import TileFrame

torch = require_torch(module=True)
from vision.train.finder import PATCH, Placed, targets, turned  # noqa: E402


def _same_axis(first: TileFrame, second: TileFrame, degrees: float = 1.0) -> bool:
    return abs(float(first.across @ second.across)) > math.cos(math.radians(degrees))


tiles_in_a_patch = st.lists(
    st.tuples(st.floats(16, PATCH - 16), st.floats(16, PATCH - 16), st.floats(4.0, 20.0),
              st.floats(0, 180), st.booleans()),
    min_size=1, max_size=4,
)


def _apart(tiles: list[tuple[float, float, float, float, bool]]) -> bool:
    return all(math.hypot(a[0] - b[0], a[1] - b[1]) > 3 * (a[2] + b[2]) for i, a in enumerate(tiles)
               for b in tiles[i + 1:])


@settings(max_examples=60, deadline=None)
@given(tiles_in_a_patch)
def test_what_training_teaches_decodes_back_to_the_tiles(tiles) -> None:
    """Perfect answers (the training targets themselves) decode to the tiles they were made of."""
    if not _apart(tiles):
        return
    placed = [Placed(tile_frame(x, y, w, d), up) for x, y, w, d, up in tiles]
    heat, geometry, _, _ = targets(placed, 1.0, np.zeros(2, np.float32))
    # The patch's px are the level's own, less the margin `decode` takes off.
    found = decode(heat, geometry, (1.0, 1.0))
    for tile in placed:
        length = 4 * tile.frame.half_width
        matches = [f for f in found if f.face_up == tile.face_up
                   and np.linalg.norm(f.frame.center + MARGIN - tile.frame.center) < 0.01
                   and _same_axis(f.frame, tile.frame)
                   and abs(f.frame.half_width - tile.frame.half_width) < 0.01]
        assert matches if LENGTHS[0] <= length <= LENGTHS[1] else not matches


@settings(max_examples=40, deadline=None)
@given(tiles_in_a_patch, st.integers(0, 7))
def test_a_turned_patch_teaches_the_turned_tiles(tiles, code) -> None:
    """Turning or mirroring a patch and its targets gives the targets of the turned tiles."""
    if not _apart(tiles):
        return
    placed = [Placed(tile_frame(x, y, w, d), up) for x, y, w, d, up in tiles]
    image = np.zeros((1, PATCH, PATCH, 3), np.uint8)
    maps = [torch.from_numpy(m[None]) for m in targets(placed, 1.0, np.zeros(2, np.float32))]
    _, heat, geometry, weight, _ = turned(torch.from_numpy(image), *maps, code)

    def moved(point: np.ndarray) -> np.ndarray:
        x, y = float(point[0]), float(point[1])
        if code & 4:
            x, y = y, x
        if code & 1:
            x = PATCH - x
        if code & 2:
            y = PATCH - y
        return np.array([x, y], np.float32)

    turned_tiles = []
    for tile in placed:
        corners = np.array([moved(c) for c in tile.frame.corners()])
        centre = corners.mean(axis=0)
        axis = corners[3] - corners[0]
        degrees = math.degrees(math.atan2(float(axis[1]), float(axis[0])))
        turned_tiles.append(Placed(tile_frame(*centre, tile.frame.half_width, degrees), tile.face_up))
    want = targets(turned_tiles, 1.0, np.zeros(2, np.float32))
    # Cell centres move onto cell centres, so the maps agree but for a tile centred on a cell's edge.
    on_an_edge = any(min(c % STRIDE, STRIDE - c % STRIDE) < 1e-3
                     for t in turned_tiles for c in t.frame.center)
    assert np.abs(heat[0].numpy() - want[0]).max() < 1e-4 or on_an_edge
    on = (weight[0].numpy() > 0.5) & (want[2] > 0.5)
    assert np.allclose(geometry[0].numpy()[:, on], want[1][:, on], atol=1e-3)


