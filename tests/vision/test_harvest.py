"""The training harvest: what the reader is shown in training is what it is shown reading, with the
right labels."""

from __future__ import annotations

import numpy as np

from tests.train_extra import require_torch
from tests.vision.conftest import Painted, paint_back, paint_tile, table
from vision.finder import shipped_finder
from vision.geometry import frame_from_corners
from vision.tilenet import BACK, FACE_UP, NOT_A_TILE
from vision.train.harvest import (
    JITTERED_PER_BACK,
    JITTERED_PER_TILE,
    RANDOM_PER_IMAGE,
    Table,
    Truth,
    harvest_table,
    label,
)


def _table_of(image: np.ndarray, tiles: list[Painted], backs: list[Painted]) -> Table:
    corners = np.array([t.corners() for t in tiles + backs], np.float32).reshape(-1, 4, 2)
    everything = tiles + backs
    return Table(image, corners, np.array([True] * len(tiles) + [False] * len(backs)),
                 np.array([t.a for t in everything], np.int8), np.array([t.b for t in everything], np.int8))


def test_a_table_gives_labelled_crops_of_its_tiles_backs_and_bare_cloth() -> None:
    image = table(1280, 720, colour=(60, 110, 40), seed=2)
    tiles = [Painted(1, 3, (300, 250), 0.0, 22), Painted(2, 6, (800, 400), 60.0, 22)]
    backs = [Painted(0, 0, (1000, 200), 30.0, 22)]
    for tile in tiles:
        paint_tile(image, tile)
    for back in backs:
        paint_back(image, back.center, back.angle_deg, back.half_width)
    crops = harvest_table(_table_of(image, tiles, backs), 7, shipped_finder(), np.random.default_rng(0))
    assert crops.crops.shape[1:] == (64, 32, 3) and len(crops.crops) == len(crops.kind)
    assert set(crops.image.tolist()) == {7}
    face_up = crops.kind == FACE_UP
    # Every jittered frame that stays a tile's frame teaches it, with its values on the right halves
    # (or none, from a frame too far along the tile to show both halves whole).
    assert face_up.sum() >= len(tiles) * JITTERED_PER_TILE // 2
    taught = face_up & (crops.top >= 0)
    assert taught.sum() >= len(tiles) * JITTERED_PER_TILE // 3
    assert np.all((crops.top[face_up] >= 0) == (crops.bottom[face_up] >= 0))
    values = zip(crops.top[taught], crops.bottom[taught], strict=True)
    assert {frozenset((int(a), int(b))) for a, b in values} == {frozenset((1, 3)), frozenset((2, 6))}
    assert (crops.kind == BACK).sum() >= JITTERED_PER_BACK // 2
    assert np.all(crops.top[crops.kind != FACE_UP] == -1)
    assert np.all(crops.has_geometry == (crops.kind != NOT_A_TILE))
    assert (crops.kind == NOT_A_TILE).sum() > 0


def test_an_empty_table_gives_bare_cloth_only() -> None:
    image = table(640, 360, colour=(60, 110, 40), seed=3)
    crops = harvest_table(_table_of(image, [], []), 1, shipped_finder(), np.random.default_rng(1))
    assert len(crops.kind) >= RANDOM_PER_IMAGE and np.all(crops.kind == NOT_A_TILE)


def test_a_frame_teaches_the_tile_it_frames_and_near_misses_teach_nothing() -> None:
    truth = Truth(frame_from_corners(Painted(4, 5, (100, 100), 0.0, 20).corners().astype(np.float32)),
                  FACE_UP, 4, 5)
    assert label(truth.frame, [truth]) == (FACE_UP, truth)
    slipped = frame_from_corners(Painted(4, 5, (100 + 14, 100), 0.0, 20).corners().astype(np.float32))
    assert label(slipped, [truth]) == (FACE_UP, truth)  # 0.7 half-widths along: still the tile's frame
    shifted = frame_from_corners(Painted(4, 5, (100 + 22, 100), 0.0, 20).corners().astype(np.float32))
    assert label(shifted, [truth])[0] == -1  # 1.1 half-widths along: neither a tile nor not one
    far = frame_from_corners(Painted(4, 5, (300, 300), 0.0, 20).corners().astype(np.float32))
    assert label(far, [truth]) == (NOT_A_TILE, None)


def test_a_share_of_the_training_tables_is_seen_at_a_slant_with_their_tiles_where_they_appear() -> None:
    """`vision.train.fit.as_seen` turns about the share of the tables it is asked to, the same way
    each time a table is loaded, and moves each tile's corners to where the turned picture shows
    it; a share of none (the shipped recipe's) turns none."""
    require_torch()
    from vision.train.fit import as_seen

    share = 0.3
    image = table(640, 360, colour=(60, 110, 40), seed=5)
    tiles = [Painted(2, 5, (200, 120), 10.0, 16), Painted(4, 4, (450, 250), 75.0, 16)]
    for tile in tiles:
        paint_tile(image, tile, face=(250, 250, 250), pip=(250, 250, 250))  # all face, no pips
    flat = _table_of(image, tiles, [])
    seen = {seed: as_seen(flat, seed, share) for seed in range(120)}
    turned = [s for s in seen.values() if s is not flat]
    assert abs(len(turned) / len(seen) - share) < 0.1
    assert all(np.array_equal(as_seen(flat, seed, share).image, seen[seed].image) for seed in range(5))
    assert all(as_seen(flat, seed, 0.0) is flat for seed in range(120))
    for slanted in turned:
        assert slanted.image.shape != image.shape or not np.array_equal(slanted.image, image)
        assert not np.allclose(slanted.corners, flat.corners, atol=1.0)
        for corners in slanted.corners:
            # The white face, not the green cloth, at its centre and most of the way to each corner.
            centre = corners.mean(axis=0)
            for point in [centre, *(centre + 0.7 * (corners - centre))]:
                x, y = np.round(point).astype(int)
                assert slanted.image[y, x].min() > 200
