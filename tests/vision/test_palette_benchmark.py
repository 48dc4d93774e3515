"""The palette benchmark (`benchmarks.vision_palette`): every value's colour moves, and a
coloured-pip frame is read both ways."""

from __future__ import annotations

import numpy as np

from benchmarks import vision_palette as bench
from vision.synth.style import PIP_PALETTE
from vision.synth.widened import widened_renderer


def test_every_value_takes_another_values_colour() -> None:
    moved = bench.moved(PIP_PALETTE)
    assert moved[0] == PIP_PALETTE[0]
    assert sorted(moved[1:]) == sorted(PIP_PALETTE[1:])
    assert all(moved[v] != PIP_PALETTE[v] for v in range(1, len(PIP_PALETTE)))


def test_a_style_draws_its_pips_in_its_own_palette() -> None:
    renderer, scene = widened_renderer(_coloured_seed())
    before = renderer.render(scene, 0).image
    style = renderer.style
    renderer.style = style.replace(pip_palette=bench.moved(PIP_PALETTE))
    moved = [PIP_PALETTE[v + bench.SHIFT] for v in range(1, 4)]
    assert [renderer.style.pip_colour(v) for v in range(1, 4)] == moved
    after = renderer.render(scene, 0).image  # the sprites are cached by style: a new palette draws anew
    changed = np.abs(before.astype(int) - after.astype(int)).max(axis=2) > 8  # beyond JPEG's noise
    assert changed.sum() > 500  # the pips of the first coloured-pip tuning frame (a pastel set)


def _coloured_seed() -> int:
    return next(seed for seed in range(10000, 10100)
                if widened_renderer(seed)[0].style.pips == "coloured" and widened_renderer(seed)[1].tiles)


def test_a_coloured_pip_frame_is_read_with_its_palette_and_with_the_colours_moved() -> None:
    coloured = _coloured_seed()
    plain = next(seed for seed in range(10000, 10100) if widened_renderer(seed)[0].style.pips == "black")
    assert bench.read_seed(plain) is None
    result = bench.read_seed(coloured)
    assert result is not None
    both = [result[c] for c in bench.CONDITIONS]
    assert both[0]["labelled"] == both[1]["labelled"] > 0
    summary = bench.summarise([result])
    assert summary["own palette"]["images"] == 1
    assert summary["colours moved"]["tiles_right"] == both[1]["right"]
