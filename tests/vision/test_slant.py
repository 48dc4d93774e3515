"""A photo taken at a slant: its tiles' plane fitted from their sizes and shapes, and read again."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from vision.geometry import TileFrame, frame_from_corners
from vision.image import checked_bgr
from vision.pipeline import MIN_CONFIDENCE, read_checked
from vision.plane import project
from vision.read import read_image
from vision.slant import MAX_SLANT, SLANT_QUORUM, slant_of, vanishing_line
from vision.synth.turn import camera_turn
from vision.types import SeenTile, TableView

SHAPE = (1080, 1920, 3)


def _tiles_on_a_plane(count: int, seed: int = 0) -> list[np.ndarray]:
    """(4, 2) corners of `count` tiles 48 px long, at random places and angles, on a plane seen
    from straight above (in a 1920x1080 picture)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        centre = rng.uniform((300, 200), (1620, 880))
        angle = rng.uniform(0, 2 * math.pi)
        across = np.array([math.cos(angle), math.sin(angle)], np.float32)
        out.append(TileFrame(centre.astype(np.float32), across, 12.0, 24.0).corners())
    return out


def _turned(corners: list[np.ndarray], degrees: float, axis: float) -> tuple[list[np.ndarray], np.ndarray]:
    _, homography = camera_turn(np.zeros(SHAPE, np.uint8), degrees, axis)
    return [project(homography, c.astype(np.float64)).astype(np.float32) for c in corners], homography


def _view(corners: list[np.ndarray]) -> TableView:
    return TableView(tiles=tuple(SeenTile("1-2", 1, 2, c, 1.0) for c in corners))


def _lengths_and_aspects(plane: np.ndarray, corners: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    frames = [frame_from_corners(project(plane, c.astype(np.float64))) for c in corners]
    return (np.array([2 * f.half_length for f in frames]),
            np.array([f.half_length / f.half_width for f in frames]))


@pytest.mark.parametrize(("degrees", "axis"), [(35.0, 0.0), (40.0, 1.2), (30.0, 2.5)])
def test_the_plane_of_tiles_seen_at_a_slant_brings_them_nearer_one_size_and_shape(degrees: float,
                                                                                  axis: float) -> None:
    """The fitted plane is shrunk towards none (`GRADIENT_RIDGE`), so it undoes part of the
    slant, not all of it: each tile's length and shape comes at least a third of the way back."""
    seen, _ = _turned(_tiles_on_a_plane(12), degrees, axis)
    lengths, aspects = _lengths_and_aspects(np.eye(3), seen)
    assert lengths.max() / lengths.min() > 1.4  # the slant: near tiles are larger
    plane = slant_of(_view(seen), [], SHAPE)
    assert plane is not None
    on_plane, aspects_on_plane = _lengths_and_aspects(plane, seen)
    assert math.log(on_plane.max() / on_plane.min()) < 2 / 3 * math.log(lengths.max() / lengths.min())
    assert np.abs(aspects_on_plane - 2.0).max() < 2 / 3 * np.abs(aspects - 2.0).max()


@pytest.mark.parametrize("axis", [0.0, 1.2, 2.5])
def test_the_vanishing_line_lies_where_the_tiles_shrink(axis: float) -> None:
    seen, homography = _turned(_tiles_on_a_plane(12, seed=3), 35.0, axis)
    line = vanishing_line([frame_from_corners(c) for c in seen], SHAPE)
    assert line is not None
    # The true line is the image of the plane's line at infinity, H^-T (0, 0, 1): the fitted one
    # falls towards it from the same side, shrunk towards none (more so across the tiles'
    # narrower spread).
    truth = np.linalg.inv(homography).T @ np.array([0.0, 0.0, 1.0])
    fitted, true = line[:2] / line[2], truth[:2] / truth[2]
    assert float(fitted @ true) / float(np.linalg.norm(fitted) * np.linalg.norm(true)) > 0.75
    assert 0.2 < np.linalg.norm(fitted) / np.linalg.norm(true) < 1.05


def test_tiles_seen_from_above_are_read_once() -> None:
    assert slant_of(_view(_tiles_on_a_plane(12)), [], SHAPE) is None


def test_too_few_tiles_tell_no_slant() -> None:
    seen, _ = _turned(_tiles_on_a_plane(SLANT_QUORUM - 1), 40.0, 0.0)
    assert slant_of(_view(seen), [], SHAPE) is None


def test_sizes_no_plane_gives_are_bounded() -> None:
    """Tiles five times larger at one side than the other fit a line in the picture: it is
    pulled back so that the plane changes a tile's length by at most MAX_SLANT."""
    corners = []
    for i, x in enumerate(np.linspace(100, 1800, 8)):
        scale = 1 + 4 * i / 7
        centre = np.array([x, 540.0 + 100 * (i % 2)], np.float32)
        across = np.array([1.0, 0.0], np.float32)
        corners.append(TileFrame(centre, across, 6.0 * scale, 12.0 * scale).corners())
    line = vanishing_line([frame_from_corners(c) for c in corners], SHAPE)
    assert line is not None
    depth = np.array([[0, 0, 1], [1920, 0, 1], [1920, 1080, 1], [0, 1080, 1]], np.float64) @ line
    assert np.all(depth > 0) and (depth.max() / depth.min()) ** 1.5 <= MAX_SLANT * 1.001


def test_a_table_photographed_at_a_slant_is_read_on_its_plane() -> None:
    """A rendered table seen by a camera turned 40 degrees: the read on the plane finds tiles the
    first read lost, and makes none up."""
    from vision.synth.widened import render_widened

    frame = render_widened(20018)
    image, _ = camera_turn(frame.image, 40.0, 0.9)
    max_pip = int(frame.labels["max_pip"])
    want = Counter(t["tile"] for t in frame.labels["tiles"])
    first = Counter(t.tile for t in read_checked(checked_bgr(image), max_pip=max_pip,
                                                 min_confidence=MIN_CONFIDENCE, one_set=True).tiles)
    both = Counter(t.tile for t in read_image(image, max_pip=max_pip, one_set=True).tiles)
    assert not both - want
    assert sum((both & want).values()) > sum((first & want).values())


def test_a_camera_turned_by_nothing_sees_the_same_picture() -> None:
    image = np.random.default_rng(0).integers(0, 256, (90, 160, 3), np.uint8)
    same, homography = camera_turn(image, 0.0, 0.7)
    assert np.allclose(homography, np.eye(3)) and np.array_equal(same, image)


def test_a_turned_picture_holds_the_whole_scene_within_its_longer_side() -> None:
    image = np.zeros((1080, 1920, 3), np.uint8)
    turned, homography = camera_turn(image, 40.0, 1.0)
    corners = project(homography, np.array([[0, 0], [1920, 0], [1920, 1080], [0, 1080]], np.float64))
    assert max(turned.shape[:2]) <= 1920
    assert np.all(corners >= -1) and np.all(corners <= np.array(turned.shape[1::-1]) + 1)


def test_the_slant_benchmark_reads_each_picture_both_ways(tmp_path: Path) -> None:
    from benchmarks.vision_slant import main

    report = tmp_path / "slant.json"
    assert main([str(tmp_path), "--degrees", "40", "--count", "2", "--json", str(report)]) == 0
    figures = json.loads(report.read_text())["widened, 40 degrees"]
    assert set(figures) == {"first read only", "with the slant read"}
    for way in figures.values():
        assert way["images"] == 2 and 0 <= way["tiles_right"] <= way["labelled"]
        assert way["cpu_median_s"] > 0
