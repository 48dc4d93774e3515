"""Legibility of rendered tiles (`vision.synth.legibility`): a tile whose pips the frame no longer
shows is illegible, whatever its label says; a clean tile is not."""

from __future__ import annotations

import math

import numpy as np

from vision.geometry import TileFrame
from vision.synth.hands import Hand
from vision.synth.legibility import LEGIBLE_CONTRAST, illegible, pip_contrasts, tile_contrast
from vision.synth.pips import pip_positions, pip_radius
from vision.synth.scene import PlacedTile, Renderer, Scene
from vision.synth.style import Style


def test_a_tile_under_a_hand_is_illegible_and_the_tiles_beside_it_are_not() -> None:
    tiles = (PlacedTile(3, 5, -80, 0, 0.0), PlacedTile(6, 2, 80, 0, 0.0), PlacedTile(0, 0, -80, 70, 90.0))
    renderer = Renderer(Style(), (960, 540), seed=1)
    frame = renderer.render(Scene(tiles, hands=(Hand(80, 0, 90.0),)), 1)
    contrasts = pip_contrasts(renderer, frame, 1)
    by_name = dict(zip((t["tile"] for t in frame.labels["tiles"]), contrasts, strict=True))  # type: ignore[attr-defined]
    assert by_name["3-5"] > 10 * LEGIBLE_CONTRAST
    assert by_name["2-6"] < LEGIBLE_CONTRAST  # the hand lies over it: the label still names it
    assert by_name["0-0"] == math.inf  # no pip to lose
    assert illegible(frame, contrasts) == ["2-6"]


def _tile(a: int, b: int) -> tuple[dict[str, object], TileFrame]:
    frame = TileFrame(np.array([100.0, 80.0], np.float32), np.array([0.6, 0.8], np.float32), 20.0, 40.0)
    return {"tile": f"{a}-{b}", "a": a, "b": b, "corners": frame.corners().tolist()}, frame


def _pips(frame: TileFrame, a: int, b: int, mirror: float) -> list[tuple[np.ndarray, float]]:
    radius = pip_radius(max(a, b, 6)) * frame.half_width
    return [(frame.center + frame.along * ((middle + u) * frame.half_width)
             + frame.across * (mirror * v * frame.half_width), radius)
            for value, middle in ((a, -1.0), (b, 1.0)) for u, v in pip_positions(value)]


def _painted(pips: list[tuple[np.ndarray, float]], level: float) -> np.ndarray:
    import cv2

    signal = np.zeros((200, 200), np.float32)
    for centre, radius in pips:
        cv2.circle(signal, (round(float(centre[0])), round(float(centre[1]))), round(radius), level, -1)
    return signal


def test_the_weakest_pip_decides_either_way_the_face_is_mirrored() -> None:
    label, frame = _tile(2, 3)
    noise = np.full((200, 200), 4.0 * math.sqrt(2), np.float32)  # a noise of 4 levels each frame
    for mirror in (1.0, -1.0):
        pips = _pips(frame, 2, 3, mirror)
        # about the pips' level over the noise (the discs are drawn to whole pixels here)
        assert tile_contrast(label, _painted(pips, 40.0), noise) > 0.75 * 40.0 / 4.0
        assert tile_contrast(label, _painted(pips[:-1], 40.0), noise) < 0.2  # the 3's last pip wiped out
    assert tile_contrast(label, _painted(_pips(frame, 2, 3, 1.0), 40.0), 2 * noise) < 0.6 * 40.0 / 4.0
