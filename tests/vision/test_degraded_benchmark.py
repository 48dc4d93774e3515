"""The degraded-photos benchmark (`benchmarks.vision_degraded`): what each condition does to a
picture, and that a reading it spoils is reported as lost."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from benchmarks import vision_degraded as bench
from tests.vision.conftest import Painted, paint_tile, table


def test_each_condition_does_what_it_says_and_the_same_every_run():
    image = table(800, 400, seed=2)
    shrunk = bench.Degradation("small", long_side=200).apply(image, 0)
    assert shrunk.shape == (100, 200, 3)
    assert bench.Degradation("large", long_side=4000).apply(image, 0) is image  # never enlarged
    flat = bench.Degradation("flat", contrast=0.5).apply(image, 0)
    assert np.std(flat.astype(float)) == pytest.approx(0.5 * np.std(image.astype(float)), rel=0.05)
    noisy = bench.Degradation("noisy", noise=8.0, jpeg_quality=40)
    seed = bench.seed_of("a.png", noisy)
    assert seed == bench.seed_of("a.png", noisy) != bench.seed_of("b.png", noisy)
    first, again = noisy.apply(image, seed), noisy.apply(image, seed)
    assert first.shape == image.shape and first.dtype == np.uint8
    assert np.array_equal(first, again) and not np.array_equal(first, image)
    assert bench.Degradation("small", long_side=200).scale(image) == 0.25


def test_the_light_and_the_lens_do_what_they_say():
    image = table(800, 400, seed=2)
    warm = bench.Degradation("warm", light=(0.5, 1.0, 1.0)).apply(image, 0)
    assert np.mean(warm[:, :, 0]) == pytest.approx(0.5 * np.mean(image[:, :, 0]), rel=0.02)
    assert np.array_equal(warm[:, :, 1:], image[:, :, 1:])
    shade = bench.Degradation("shade", shadow=0.5).apply(image, 0)
    covered = bench.shadowed(image.shape)
    assert 0.2 < covered.mean() < 0.45  # about a third of the picture
    assert np.array_equal(shade[~covered], image[~covered])
    assert np.mean(shade[covered]) == pytest.approx(0.5 * np.mean(image[covered]), rel=0.02)
    for soft in (bench.Degradation("soft", blur=2.0), bench.Degradation("smeared", motion=9)):
        out = soft.apply(image, 0)
        assert out.shape == image.shape and np.std(out.astype(float)) < np.std(image.astype(float))
    smeared = bench.Degradation("smeared", motion=9).apply(image, 0).astype(float)
    # A sideways smear softens across the columns, not down the rows.
    assert np.abs(np.diff(smeared, axis=1)).mean() < 0.5 * np.abs(np.diff(smeared, axis=0)).mean()


def test_a_condition_that_spoils_the_tiles_is_reported_as_tiles_lost(tmp_path, capsys):
    image = table(900, 600, seed=3)
    for tile in (Painted(2, 5, (250, 300), 0, 30), Painted(3, 3, (600, 300), 90, 30)):
        paint_tile(image, tile)
    cv2.imwrite(str(tmp_path / "a.png"), image)
    (tmp_path / "labels.json").write_text(json.dumps({"images": {"a.png": {
        "tiles": [{"tile": "2-5"}, {"tile": "3-3"}]}}}))
    grey = bench.Degradation("no contrast left", contrast=0.0)
    taken, spoiled = bench.run(tmp_path, degradations=(bench.AS_TAKEN, grey))
    assert taken.to_json()["recall"] == 1.0 and taken.to_json()["exact_images"] == 1
    assert taken.to_json()["median_tile_length_px"] == pytest.approx(120, abs=12)
    assert spoiled.to_json()["recall"] == 0.0
    assert spoiled.to_json()["inexact"] == {"a.png": {"extra": {}, "missing": {"2-5": 1, "3-3": 1}}}
    bench.report([taken, spoiled], "painted")
    out = capsys.readouterr().out
    assert "as taken" in out and "a.png -2 +0" in out


def test_without_labelled_photos_it_says_it_skipped(tmp_path, capsys):
    assert bench.main([str(tmp_path)]) == 0
    assert "vision_degraded: skipped" in capsys.readouterr().out
