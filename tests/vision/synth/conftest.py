from __future__ import annotations

import numpy as np
import pytest

from vision.synth.scene import PlacedTile, Renderer, Scene
from vision.synth.style import Style

# A clean camera (no noise, blur, glare or compression) so pixel tests see the drawing itself.
CLEAN = Style(glare=0.0, blur=0.0, noise=0.0, jpeg_quality=0, vignetting=0.0, light_gradient=0.0, tilt=0.05)


def spread_tiles(rng: np.random.Generator, count: int) -> tuple[PlacedTile, ...]:
    """Tiles on a grid with room between them, each at a random angle and with random values."""
    tiles = []
    for i in range(count):
        col, row = i % 6, i // 6
        a, b = (int(v) for v in rng.integers(0, 7, 2))
        tiles.append(PlacedTile(a, b, 200 + 120 * col, 220 + 110 * row, float(rng.uniform(0, 360))))
    return tuple(tiles)


@pytest.fixture(scope="module")
def clean_frames() -> list:
    """Frames of spread tiles for three sets: ivory/black, white/coloured, black/white."""
    frames = []
    for k, (body, pips, table) in enumerate(
        [("ivory", "black", "felt_green"), ("white", "coloured", "felt_blue"), ("black", "white", "plain")]
    ):
        rng = np.random.default_rng(100 + k)
        style = CLEAN.replace(
            tile_body=body,
            pips=pips,
            table=table,
            table_colour={
                "felt_green": (0.16, 0.42, 0.12),
                "felt_blue": (0.45, 0.25, 0.08),
                "plain": (0.55, 0.58, 0.60),
            }[table],
        )
        scene = Scene(spread_tiles(rng, 18))
        frames.append((style, Renderer(style, (1280, 720), seed=k).render(scene, seed=k)))
    return frames
