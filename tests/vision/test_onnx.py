"""`vision.onnx.Network`: a network per input shape gives the same answers, within a bound."""

from __future__ import annotations

import numpy as np
import pytest

from vision.errors import VisionError
from vision.finder import FINDER_FILE, MODEL_DIR, OUTPUTS
from vision.onnx import SHAPES_KEPT, Network


def finder(per_shape: bool) -> Network:
    return Network(MODEL_DIR / FINDER_FILE, "tile finder", OUTPUTS, per_shape=per_shape)


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


def test_a_file_that_is_no_network_is_a_vision_error_naming_it(tmp_path) -> None:
    path = tmp_path / "broken.onnx"
    path.write_bytes(b"not a protobuf at all")
    with pytest.raises(VisionError, match=r"cannot load the tile finder from .*broken\.onnx"):
        Network(path, "tile finder", OUTPUTS)
