"""`vision.onnx.Network`: a network per input shape gives the same answers, within a bound; the
two runtimes answer alike, and the choice between them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from vision.crops import CROP_HEIGHT, CROP_WIDTH
from vision.errors import VisionError
from vision.finder import FINDER_FILE, MODEL_DIR, OUTPUTS, shipped_finder
from vision.onnx import (
    RUNTIME_ONNXRUNTIME,
    RUNTIME_OPENCV,
    RUNTIME_VARIABLE,
    SHAPES_KEPT,
    Network,
    chosen_runtime,
    onnxruntime_installed,
)
from vision.read import read_image
from vision.tilenet import MODEL_FILE, shipped
from vision.tilenet import OUTPUTS as READER_OUTPUTS


def finder(per_shape: bool, runtime: str = RUNTIME_OPENCV) -> Network:
    return Network(MODEL_DIR / FINDER_FILE, "tile finder", OUTPUTS, per_shape=per_shape, runtime=runtime)


def inputs(count: int) -> list[np.ndarray]:
    """`count` finder inputs of distinct shapes (sides multiples of 16)."""
    rng = np.random.default_rng(3)
    return [rng.normal(size=(1, 3, 32, 32 + 16 * i)).astype(np.float32) for i in range(count)]


def test_a_network_per_shape_answers_as_one_network_does() -> None:
    shared, per_shape = finder(per_shape=False), finder(per_shape=True)
    xs = inputs(3)
    for x in [*xs, *xs[::-1]]:  # shapes alternating, as a pyramid's levels do frame after frame
        for ours, theirs in zip(per_shape.run(x), shared.run(x), strict=True):
            np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-5)
    assert len(per_shape.nets) == 3
    assert len(shared.nets) == 1


def test_the_networks_kept_are_bounded_and_the_least_recently_used_goes() -> None:
    network = finder(per_shape=True)
    xs = inputs(SHAPES_KEPT + 2)
    for x in xs:
        network.run(x)
    network.run(xs[2])  # used again: kept
    network.run(inputs(SHAPES_KEPT + 3)[-1])
    kept = set(network.nets)
    assert len(kept) == SHAPES_KEPT
    assert tuple(xs[2].shape) in kept
    assert tuple(xs[3].shape) not in kept  # the least recently used of those left


# The two runtimes (`vision.onnx`: OpenCV's cv2.dnn, ONNX Runtime when installed). The `dev`
# extra installs ONNX Runtime, so the suite runs both; a clone without it tests OpenCV alone.
needs_onnxruntime = pytest.mark.skipif(not onnxruntime_installed(),
                                       reason="onnxruntime is not installed (pip install -e '.[fast]')")
BOTH = [RUNTIME_OPENCV, pytest.param(RUNTIME_ONNXRUNTIME, marks=needs_onnxruntime)]


def reader(runtime: str) -> Network:
    return Network(MODEL_DIR / MODEL_FILE, "tile reader", READER_OUTPUTS, runtime=runtime)


@needs_onnxruntime
def test_both_runtimes_answer_alike_for_every_network() -> None:
    rng = np.random.default_rng(5)
    cases: list[tuple[Callable[[str], Network], np.ndarray]] = [
        (lambda runtime: finder(False, runtime), rng.normal(size=(1, 3, 96, 160))),
        (reader, rng.normal(size=(16, 3, CROP_HEIGHT, CROP_WIDTH)))]
    for build, x in ((build, x.astype(np.float32)) for build, x in cases):
        ours, theirs = build(RUNTIME_ONNXRUNTIME).run(x), build(RUNTIME_OPENCV).run(x)
        assert [o.shape for o in ours] == [t.shape for t in theirs]
        for o, t in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(o, t, rtol=0, atol=1e-4)  # measured: 2e-5 at most


@needs_onnxruntime
def test_both_runtimes_read_the_same_tiles_on_rendered_tables() -> None:
    from vision.synth.widened import render_widened

    for seed in (10000, 10002):  # tuning tables with face-up tiles (10001 shows clutter alone)
        frame = render_widened(seed)
        tiles = {}
        for runtime in (RUNTIME_OPENCV, RUNTIME_ONNXRUNTIME):
            with pytest.MonkeyPatch.context() as patch:
                patch.setenv(RUNTIME_VARIABLE, runtime)
                shipped_finder.cache_clear()
                shipped.cache_clear()
                view = read_image(frame.image, max_pip=int(str(frame.labels["max_pip"])), one_set=True)
                tiles[runtime] = sorted(t.tile for t in view.tiles)
        shipped_finder.cache_clear()
        shipped.cache_clear()
        assert tiles[RUNTIME_OPENCV] == tiles[RUNTIME_ONNXRUNTIME]
        assert tiles[RUNTIME_OPENCV]  # the tables show face-up tiles


@pytest.mark.parametrize("runtime", BOTH)
def test_a_file_that_is_no_network_is_a_vision_error_naming_it(tmp_path: Path, runtime: str) -> None:
    path = tmp_path / "broken.onnx"
    path.write_bytes(b"not a protobuf at all")
    with pytest.raises(VisionError, match=r"cannot load the tile reader from .*broken\.onnx"):
        Network(path, "tile reader", READER_OUTPUTS, runtime=runtime)


def test_the_runtime_is_chosen_by_the_variable_else_by_what_is_there(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(RUNTIME_VARIABLE, raising=False)
    assert chosen_runtime() == (RUNTIME_ONNXRUNTIME if onnxruntime_installed() else RUNTIME_OPENCV)
    monkeypatch.setenv(RUNTIME_VARIABLE, " OpenCV ")
    assert chosen_runtime() == RUNTIME_OPENCV
    assert Network(MODEL_DIR / MODEL_FILE, "tile reader", READER_OUTPUTS).runtime == RUNTIME_OPENCV
    monkeypatch.setenv(RUNTIME_VARIABLE, "tensorflow")
    with pytest.raises(VisionError, match=r"DOMINO_VISION_RUNTIME='tensorflow' names no runtime: use one of"):
        chosen_runtime()
    monkeypatch.setenv(RUNTIME_VARIABLE, RUNTIME_ONNXRUNTIME)
    monkeypatch.setattr("vision.onnx.onnxruntime_installed", lambda: False)
    with pytest.raises(VisionError, match=r"onnxruntime package is not installed: pip install"):
        chosen_runtime()
