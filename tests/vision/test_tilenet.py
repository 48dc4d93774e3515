"""The tile reader: the shipped model matches its manifest, runs in OpenCV, and its crops'
geometry round-trips; the training script stays alive (a few steps, when the `train` extra is in)."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.train_extra import require_torch
from tests.vision.conftest import Painted, paint_tile, table
from vision.crops import CROP_HEIGHT, CROP_WIDTH, crop, geometry_target, refined
from vision.errors import VisionError
from vision.finder import FINDER_FILE, TileFinder
from vision.geometry import TileFrame, frame_from_corners
from vision.tilenet import (
    KINDS,
    MANIFEST_FILE,
    MAX_PIPS,
    MODEL_DIR,
    MODEL_FILE,
    TileNet,
    file_digest,
    shipped,
)

MAX_MODEL_BYTES = 2_000_000  # issue 14: the shipped networks, reader and finder together, under 2 MB


def test_the_shipped_model_is_the_one_its_manifest_describes() -> None:
    manifest = json.loads((MODEL_DIR / MANIFEST_FILE).read_text())
    model = MODEL_DIR / manifest["model"]
    assert file_digest(model) == manifest["sha256"]
    assert model.stat().st_size == manifest["bytes"]
    assert manifest["input"] == [3, CROP_HEIGHT, CROP_WIDTH]
    assert manifest["kinds"] == list(KINDS) and manifest["max_pips"] == MAX_PIPS
    figures = manifest["validation"]
    assert figures["kind_accuracy"] > 0.97 and figures["pips_exact_on_face_up"] > 0.95
    assert manifest["opencv_max_difference"] < 1e-3
    finder = manifest["finder"]
    assert finder["model"] == FINDER_FILE
    assert file_digest(MODEL_DIR / finder["model"]) == finder["sha256"]
    assert (MODEL_DIR / finder["model"]).stat().st_size == finder["bytes"]
    assert manifest["bytes"] + finder["bytes"] < MAX_MODEL_BYTES
    assert finder["validation"]["centre_recall"] > 0.9 and finder["opencv_max_difference"] < 1e-3


def test_the_model_reads_a_batch_in_opencv_with_probabilities() -> None:
    rng = np.random.default_rng(1)
    batch = rng.integers(0, 256, (5, CROP_HEIGHT, CROP_WIDTH, 3), dtype=np.uint8)
    readings = shipped().read(batch)
    assert len(readings) == 5
    for probabilities in (readings.kind, readings.top, readings.bottom):
        np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-4)
    assert readings.geometry.shape == (5, 5)
    assert len(shipped().read(batch[:0])) == 0


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_a_crop_read_four_ways_reads_the_same_turned_half_round_with_its_halves_swapped(seed: int) -> None:
    """`read_mirrored` agrees the four views of a crop, so the crop turned half round (the same four
    views) gives the same answer, its top half's pips now the bottom's."""
    rng = np.random.default_rng(seed)
    image = rng.integers(0, 256, (3, CROP_HEIGHT, CROP_WIDTH, 3), dtype=np.uint8)
    upright = shipped().read_mirrored(image)
    turned = shipped().read_mirrored(np.ascontiguousarray(image[:, ::-1, ::-1]))
    np.testing.assert_allclose(turned.kind, upright.kind, atol=1e-5)
    np.testing.assert_allclose(turned.top, upright.bottom, atol=1e-5)
    np.testing.assert_allclose(turned.bottom, upright.top, atol=1e-5)
    for probabilities in (upright.kind, upright.top, upright.bottom):
        np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-4)


def test_a_painted_tile_read_four_ways_keeps_its_pips() -> None:
    image = table(400, 300, seed=3)
    painted = Painted(2, 5, (200, 150), 0.0, 30)
    paint_tile(image, painted)
    crop_of_tile = crop(image, frame_from_corners(painted.corners().astype(np.float32)))[None]
    read = shipped().read_mirrored(crop_of_tile)
    assert sorted((int(read.top[0].argmax()), int(read.bottom[0].argmax()))) == [2, 5]
    assert int(read.kind[0].argmax()) == KINDS.index("face-up")


def test_a_missing_or_mismatched_model_is_a_vision_error(tmp_path) -> None:
    with pytest.raises(VisionError, match="cannot load the tile reader"):
        TileNet(tmp_path)
    with pytest.raises(VisionError, match="cannot load the tile finder"):
        TileFinder(tmp_path)
    (tmp_path / MODEL_FILE).write_bytes((MODEL_DIR / MODEL_FILE).read_bytes())
    manifest = json.loads((MODEL_DIR / MANIFEST_FILE).read_text())
    manifest["input"] = [3, 32, 32]
    (tmp_path / MANIFEST_FILE).write_text(json.dumps(manifest))
    with pytest.raises(VisionError, match="retrain it"):
        TileNet(tmp_path)


frames = st.builds(
    lambda x, y, angle, w, aspect: TileFrame(
        np.array([x, y], np.float32), np.array([math.cos(angle), math.sin(angle)], np.float32), w, w * aspect
    ),
    st.floats(0, 500),
    st.floats(0, 500),
    st.floats(-math.pi, math.pi),
    st.floats(5, 60),
    st.floats(1.5, 2.5),
)


@given(frames, frames)
def test_a_geometry_target_refines_a_frame_onto_its_truth(frame: TileFrame, truth: TileFrame) -> None:
    target, a_on_top = geometry_target(frame, truth)
    moved = refined(frame, target)
    np.testing.assert_allclose(moved.center, truth.center, atol=1e-2 * truth.half_width + 1e-3)
    assert moved.half_width == pytest.approx(truth.half_width, rel=1e-4)
    assert moved.half_length == pytest.approx(truth.half_length, rel=1e-4)
    along = truth.along if a_on_top else -truth.along
    np.testing.assert_allclose(moved.along, along, atol=1e-4)


def test_a_crop_is_upright_with_the_a_half_on_top() -> None:
    image = np.zeros((200, 200, 3), np.uint8)
    image[50:100] = 255  # the upper band bright: a frame whose a-half points up sees it at the top
    frame = TileFrame(np.array([100, 100], np.float32), np.array([1, 0], np.float32), 20, 40)
    patch = crop(image, frame)
    assert patch.shape == (CROP_HEIGHT, CROP_WIDTH, 3)
    assert patch[: CROP_HEIGHT // 3].mean() > 200 > 50 > patch[-CROP_HEIGHT // 3 :].mean()


def test_the_training_script_runs_a_few_steps_and_exports_a_readable_model(tmp_path) -> None:
    require_torch()
    from vision.train.fit import TIDIED_SHARE, run
    from vision.train.net import READER_DENSE, READER_SQUEEZE, READER_WIDTHS
    from vision.train.precision import BFLOAT16

    # In bfloat16 whatever the CPU (emulated where it has no native bfloat16: slower, still right),
    # with half the tables seen at a slant (`vision.train.fit.as_seen`).
    manifest = run(tmp_path, images=3, reader_images=1, epochs=1, jobs=1, max_steps=3, finder_steps=3,
                   precision=BFLOAT16, turned_share=0.5)
    assert manifest["training"]["images"] == 3 and manifest["training"]["reader_images"] == 1
    assert manifest["training"]["precision"] == manifest["finder"]["precision"] == BFLOAT16
    assert manifest["training"]["turned_share"] == 0.5
    assert manifest["training"]["tidied_share"] == TIDIED_SHARE  # the recipe's boneyards in rows
    # The finder's entry carries the recipe of its own tables, so a kept finder keeps it too.
    finder_tables = manifest["finder"]["tables"]
    assert (finder_tables["turned_share"], finder_tables["tidied_share"]) == (0.5, TIDIED_SHARE)
    assert (finder_tables["images"], finder_tables["validation_images"]) == (3, 1)
    assert manifest["training"]["harvested_by"] == manifest["finder"]["sha256"]
    assert manifest["bytes"] < MAX_MODEL_BYTES
    assert file_digest(tmp_path / MODEL_FILE) == manifest["sha256"]
    assert file_digest(tmp_path / FINDER_FILE) == manifest["finder"]["sha256"]
    assert manifest["widths"] == list(READER_WIDTHS)
    assert (manifest["squeeze"], manifest["dense"]) == (READER_SQUEEZE, READER_DENSE)
    reader = TileNet(tmp_path)
    assert len(reader.read(np.zeros((2, CROP_HEIGHT, CROP_WIDTH, 3), np.uint8))) == 2
    found = TileFinder(tmp_path).find(np.full((120, 200, 3), 128, np.uint8))
    assert all(f.frame.half_width > 0 for f in found)
    # The reader alone, fitted to the finder just made: that finder is kept as it was.
    again = run(tmp_path / "again", images=3, reader_images=0, epochs=1, jobs=1, max_steps=2,
                finder=tmp_path, reader_seed=1)
    assert (manifest["training"]["reader_seed"], again["training"]["reader_seed"]) == (0, 1)
    assert again["finder"] == {**manifest["finder"], "kept": True}
    assert again["training"]["harvested_by"] == manifest["finder"]["sha256"]
    assert file_digest(tmp_path / "again" / FINDER_FILE) == manifest["finder"]["sha256"]
    assert file_digest(tmp_path / "again" / MODEL_FILE) == again["sha256"]


def test_the_shipped_manifest_gives_the_readers_whole_shape() -> None:
    require_torch()
    from vision.train.net import TileReaderNet

    manifest = json.loads((MODEL_DIR / MANIFEST_FILE).read_text())
    net = TileReaderNet(tuple(manifest["widths"]), manifest["squeeze"], manifest["dense"])
    assert sum(p.numel() for p in net.parameters()) == manifest["parameters"]


@pytest.mark.parametrize("spoil", ["no manifest", "another finder"])
def test_a_finder_that_cannot_be_kept_is_refused_before_any_table_is_rendered(tmp_path, spoil) -> None:
    require_torch()
    from vision.train.fit import run

    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / FINDER_FILE).write_bytes((MODEL_DIR / FINDER_FILE).read_bytes() + b"x")
    if spoil == "another finder":  # the manifest names the shipped finder, not this file
        (kept / MANIFEST_FILE).write_text((MODEL_DIR / MANIFEST_FILE).read_text())
    rendered: list[int] = []

    def render(seed, size):
        rendered.append(seed)
        raise AssertionError("a table was rendered")

    with pytest.raises(VisionError, match=re.escape(f"--finder {kept}")):
        run(tmp_path / "out", images=3, reader_images=0, epochs=1, jobs=1, finder=kept, render=render)
    assert rendered == [] and not (tmp_path / "out" / MODEL_FILE).exists()


def test_a_share_of_slanted_tables_outside_0_to_1_is_refused_by_name(tmp_path, capsys) -> None:
    require_torch()
    from vision.train.fit import main, run

    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path), "--turned-share", "1.5"])
    assert "--turned-share must be between 0 and 1, not 1.5" in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"between 0 and 1, not -0\.1"):
        run(tmp_path, images=3, epochs=1, jobs=1, turned_share=-0.1)
    assert not any(tmp_path.iterdir())  # refused before any table is rendered


@pytest.mark.parametrize("kept", ["no recipe", "another recipe", "unreadable recipe"])
def test_a_tables_folder_kept_for_another_recipe_is_refused_before_any_table_is_rendered(tmp_path,
                                                                                        kept) -> None:
    require_torch()
    from vision.train.fit import TABLES_RECIPE_FILE, claimed_tables, render_table, run, tables_recipe

    tables = tmp_path / "tables"
    tables.mkdir()
    (tables / "table-1000000.npz").write_bytes(b"kept by an older recipe")
    rendered: list[int] = []

    def render(seed, size):
        rendered.append(seed)
        raise AssertionError("a table was rendered")

    if kept == "another recipe":  # the same renderer, its boneyards tidied in another share
        (tables / TABLES_RECIPE_FILE).write_text(json.dumps({**tables_recipe(render), "tidied_share": -1.0}))
    elif kept == "unreadable recipe":
        (tables / TABLES_RECIPE_FILE).write_text("{not json")

    with pytest.raises(VisionError, match=re.escape(f"--tables {tables}")):
        run(tmp_path / "out", images=3, reader_images=0, epochs=1, jobs=1, tables=tables, render=render)
    assert rendered == []
    # An empty folder is marked with the recipe, and taken again by the same recipe.
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    claimed_tables(fresh, render_table)
    assert json.loads((fresh / TABLES_RECIPE_FILE).read_text()) == tables_recipe(render_table)
    claimed_tables(fresh, render_table)
    with pytest.raises(VisionError, match="another folder"):
        claimed_tables(fresh, render)


def test_the_finder_is_fitted_on_the_tables_before_the_split_whatever_order_they_come_in(tmp_path) -> None:
    require_torch()
    from vision.train.finder import CELLS, PATCH, FinderSamples
    from vision.train.fit import fitted_finder

    rng = np.random.default_rng(5)
    count = 12  # two patches from each of six tables; tables 4 and 5 are held out
    samples = FinderSamples(
        images=rng.integers(0, 256, (count, PATCH, PATCH, 3), dtype=np.uint8),
        heat=(rng.random((count, 2, CELLS, CELLS)) ** 8).astype(np.float16),
        geometry=rng.normal(size=(count, 6, CELLS, CELLS)).astype(np.float16),
        weight=np.ones((count, CELLS, CELLS), np.float16),
        ignore=np.zeros((count, CELLS, CELLS), bool),
        table=np.repeat(np.arange(6, dtype=np.int32), 2),
    )
    (tmp_path / "in-order").mkdir()
    (tmp_path / "shuffled").mkdir()
    in_order = fitted_finder(samples, 4, 2, tmp_path / "in-order")
    # The tables shuffled, each table's patches kept in their order (`run` passes them in table
    # order; another caller need not): sorted back by table, the same rows in the same order.
    tables_shuffled = (rng.permutation(6)[:, None] * 2 + np.arange(2)).ravel()
    shuffled = fitted_finder(samples.rows(tables_shuffled), 4, 2, tmp_path / "shuffled")
    assert list(samples.rows(tables_shuffled).table) != sorted(samples.table)
    assert shuffled["sha256"] == in_order["sha256"]  # the same finder bit for bit
    assert shuffled["validation"] == in_order["validation"] and in_order["patches"] == count
