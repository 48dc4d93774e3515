from __future__ import annotations

import functools
import json

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.plane import polygon_area, project
from vision.synth.dataset import main as dataset_main
from vision.synth.dataset import render_example
from vision.synth.film import GameFilm, small_table
from vision.synth.pips import pip_positions
from vision.synth.scene import PlacedTile, Renderer, Scene
from vision.synth.sprites import _disk
from vision.synth.style import Style


def test_same_seed_same_frame_and_labels() -> None:
    first, second = render_example(7, (640, 360)), render_example(7, (640, 360))
    assert np.array_equal(first.image, second.image)
    assert first.labels == second.labels
    other = render_example(8, (640, 360))
    assert not np.array_equal(first.image, other.image)


@pytest.mark.parametrize("seed", range(6))
def test_labels_are_clockwise_tile_shaped_and_inside_the_frame(seed: int) -> None:
    frame = render_example(seed, (960, 540))
    for entry in frame.labels["tiles"]:
        corners = np.array(entry["corners"])
        assert polygon_area(corners) > 0, "corners must run clockwise on screen"
        short = np.linalg.norm(corners[1] - corners[0])
        long = np.linalg.norm(corners[2] - corners[1])
        assert 1.7 < long / short < 2.3
        assert entry["tile"] == f"{min(entry['a'], entry['b'])}-{max(entry['a'], entry['b'])}"
        assert np.all(corners >= 0) and np.all(corners[:, 0] < 960) and np.all(corners[:, 1] < 540)


def _gray(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(float)


def test_labelled_corners_lie_on_the_rendered_tile_edges(clean_frames: list) -> None:
    for style, frame in clean_frames:
        gray = _gray(frame.image)
        body = gray[frame.image.shape[0] // 2, 0]  # reference: a table pixel
        bright_tiles = style.tile_body != "black"
        for entry in frame.labels["tiles"]:
            c = np.array(entry["corners"])
            centre = c.mean(axis=0)
            for i in range(4):
                p, q = c[i], c[(i + 1) % 4]
                # Between the pips and away from the divider, which come close to the edges.
                for f in (0.36, 0.64) if i % 2 == 0 else (0.18, 0.32, 0.68, 0.82):
                    point = p + (q - p) * f
                    normal = (point - centre) / np.linalg.norm(point - centre)
                    inside = gray[tuple(np.round(point - 1.6 * normal).astype(int))[::-1]]
                    outside = gray[tuple(np.round(point + 2.5 * normal).astype(int))[::-1]]
                    if bright_tiles:
                        assert inside > outside + 40, (entry, i, inside, outside, body)
                    else:
                        assert outside > inside + 40, (entry, i, inside, outside, body)


def _half_point(corners: np.ndarray, half: str, u: float, v: float) -> np.ndarray:
    """Image point at (u, v) half-widths from the centre of a half, through the tile's homography."""
    unit = np.float32([[-1, 1], [-1, -1], [1, -1], [1, 1]])  # (long, across) in half-lengths
    h = cv2.getPerspectiveTransform(unit, corners.astype(np.float32))
    centre_u = -0.5 if half == "a" else 0.5
    local = np.float32([[[centre_u + u * 0.5, v]]])
    return cv2.perspectiveTransform(local, h)[0, 0]


def test_pips_are_at_the_standard_positions(clean_frames: list) -> None:
    grid = [(u, v) for u in (-0.56, 0.0, 0.56) for v in (-0.56, 0.0, 0.56)]
    for style, frame in clean_frames:
        gray = _gray(frame.image)
        for entry in frame.labels["tiles"]:
            corners = np.array(entry["corners"])
            for half in ("a", "b"):
                value = entry[half]
                wanted = {tuple(round(x, 2) for x in p) for p in pip_positions(value)}
                tile_tone = gray[tuple(np.round(_half_point(corners, half, 0.3, 0.85)).astype(int))[::-1]]
                for u, v in grid:
                    x, y = np.round(_half_point(corners, half, u, v)).astype(int)
                    tone = gray[y - 1 : y + 2, x - 1 : x + 2].mean()
                    has_pip = (round(u, 2), round(v, 2)) in wanted
                    # A pip differs from the face around it; an empty place looks like the face.
                    if has_pip:
                        assert abs(tone - tile_tone) > 35, (style.pips, entry, half, (u, v), tone, tile_tone)
                    else:
                        assert abs(tone - tile_tone) < 30, (style.pips, entry, half, (u, v), tone, tile_tone)


def test_face_down_tiles_count_but_carry_no_values() -> None:
    tiles = (
        PlacedTile(1, 2, 300, 300, 0),
        PlacedTile(3, 4, 500, 300, 30, face_up=False),
        PlacedTile(5, 6, 600, 300, 0, lifted_mm=40.0),
    )
    frame = Renderer(Style(), (640, 360)).render(Scene(tiles))
    assert frame.labels["face_down"] == 1
    assert [t["tile"] for t in frame.labels["tiles"]] == ["1-2"]


def test_dataset_command_writes_images_and_labels(tmp_path) -> None:
    assert (
        dataset_main(
            ["--out", str(tmp_path), "--count", "3", "--seed", "11", "--width", "640", "--height", "360"]
        )
        == 0
    )
    labels = json.loads((tmp_path / "labels.json").read_text())
    assert labels["format"] == "domino-vision-labels"
    assert sorted(labels["images"]) == ["synth-000011.jpg", "synth-000012.jpg", "synth-000013.jpg"]
    for name, entry in labels["images"].items():
        image = cv2.imread(str(tmp_path / name))
        assert image.shape == (360, 640, 3)
        assert set(entry) == {"tiles", "face_down", "joins"}


def _disk_over_the_whole_canvas(canvas: np.ndarray, centre: tuple[float, float], radius: float,
                                colour: tuple[float, float, float], weight: float) -> None:
    """The plain way to blend a disk: a mask the canvas's size (what `_disk` must match)."""
    shift = 4
    mask = np.zeros(canvas.shape[:2], np.uint8)
    cv2.circle(mask, (round(centre[0] * 16), round(centre[1] * 16)), round(radius * 16), 255, -1,
               cv2.LINE_AA, shift)
    a = (mask.astype(np.float32) / 255.0 * weight)[..., None]
    canvas *= 1 - a
    canvas += a * np.asarray(colour, np.float32)


@settings(max_examples=200, deadline=None)
@given(
    cx=st.floats(-20, 80), cy=st.floats(-20, 60), radius=st.floats(0.2, 30),
    weight=st.sampled_from([1.0, 0.7, 0.35]), seed=st.integers(0, 2**16),
)
def test_a_disk_blended_in_its_box_is_the_disk_blended_over_the_whole_sprite(
        cx: float, cy: float, radius: float, weight: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    canvas = rng.random((40, 64, 3), dtype=np.float32)
    expected = canvas.copy()
    colour = tuple(float(c) for c in rng.random(3))
    _disk(canvas, (cx, cy), radius, colour, weight)  # type: ignore[arg-type]
    _disk_over_the_whole_canvas(expected, (cx, cy), radius, colour, weight)  # type: ignore[arg-type]
    assert np.array_equal(canvas, expected)


def _shadows_over_the_whole_canvas(renderer: Renderer, canvas: np.ndarray, tiles: list[PlacedTile]) -> None:
    """The shadows as drawn before `Renderer._shadows` kept to the band of rows its blur reaches."""
    mask = np.zeros(canvas.shape[:2], np.uint8)
    to3 = np.vstack([renderer.to_canvas, [0, 0, 1]])
    for tile in tiles:
        drop = 1.2 + tile.lifted_mm * 0.35
        pts = project(to3, tile.corners() + np.array([drop * 0.6, drop]))
        cv2.fillPoly(mask, [np.round(pts * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    soft = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), renderer.ppm * 1.2)
    canvas *= (1 - renderer.style.shadow * soft)[..., None]


@settings(max_examples=100, deadline=None)
@given(x=st.floats(-40, 660), y=st.floats(-40, 390), angle=st.floats(0, 180),
       lifted=st.sampled_from([0.0, 25.0]), count=st.integers(1, 3))
def test_shadows_drawn_in_their_band_of_rows_are_the_shadows_drawn_over_the_whole_canvas(
        x: float, y: float, angle: float, lifted: float, count: int) -> None:
    renderer = _small_renderer()
    tiles = [PlacedTile(1, 2, x + 30 * k, y + 17 * k, angle + 40 * k, lifted_mm=lifted) for k in range(count)]
    canvas = renderer.background.copy()
    expected = canvas.copy()
    renderer._shadows(canvas, tiles)
    _shadows_over_the_whole_canvas(renderer, expected, tiles)
    assert np.array_equal(canvas, expected)


@functools.cache
def _small_renderer() -> Renderer:
    return Renderer(Style(shadow=0.6), (480, 270), seed=5, layout=small_table())


def test_a_films_frames_are_those_a_new_renderer_draws_for_each_scene() -> None:
    """The renderer keeps the layers a film's frames share (`Renderer._table_with`); each frame
    is still the one a renderer that never drew anything before draws for its scene and seed."""
    style, size, layout = Style(shadow=0.6), (480, 270), small_table()
    film = GameFilm(style, seed=2, size=size, layout=layout)
    film.renderer = Renderer(style, size, seed=11, layout=layout)
    first_seed = film._frame_seed  # each frame's noise seed: one more than the frame before's
    frames = film.new_hand(boneyard=4) + film.play(0, "6-6") + film.play(1, "6-3") + film.still(2)
    assert len({len(f.scene.tiles) for f in frames}) >= 3 and any(f.scene.hands for f in frames)
    for number in (0, 1, 5, 8, len(frames) - 7, len(frames) - 2, len(frames) - 1):
        fresh = Renderer(style, size, seed=11, layout=layout)
        again = fresh.render(frames[number].scene, first_seed + number)
        assert np.array_equal(again.image, frames[number].image), f"frame {number}"
