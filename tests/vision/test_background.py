"""The empty table as background: a face-up reading where nothing changed since is the table's own."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.vision.conftest import Painted, paint_back, paint_tile, table
from tests.vision.frames import tile_frame
from vision.background import MIN_CHANGED_SHARE, UNCHANGED, Changes, changed, differs
from vision.debug import draw_view
from vision.errors import VisionError
from vision.read import read_image

LEFT_ON_THE_TABLE = Painted(2, 5, (300, 300), 20.0, 30)  # in the background and the frame alike
PLAYED = Painted(1, 3, (650, 420), 75.0, 30)  # laid after the background was taken
BACK = ((250, 560), 0.0, 30)


def _filmed(image: np.ndarray, seed: int, gain: float = 1.0) -> np.ndarray:
    """`image` as a camera gives it at one moment: its own sensor noise, its own exposure."""
    noise = np.random.default_rng(seed).normal(0, 3, image.shape)
    return np.asarray(np.clip(image.astype(np.float32) * gain + noise, 0, 255), np.uint8)


@pytest.fixture(scope="module")
def pictures() -> tuple[np.ndarray, np.ndarray]:
    """(the empty table, the same table once a tile was played), one camera at two moments."""
    cloth = table(900, 700, colour=(70, 105, 140), texture="wood", seed=5)
    paint_tile(cloth, LEFT_ON_THE_TABLE)
    paint_back(cloth, *BACK)
    later = cloth.copy()
    paint_tile(later, PLAYED)
    return _filmed(cloth, 1), _filmed(later, 2, gain=1.12)


def test_only_what_was_laid_since_has_changed(pictures: tuple[np.ndarray, np.ndarray]) -> None:
    empty, frame = pictures
    mask = changed(frame, empty)
    assert mask.mean() < 0.05  # sensor noise and a brighter exposure are no change
    changes = Changes(frame, empty)
    played = tile_frame(*PLAYED.center, PLAYED.half_width, PLAYED.angle_deg)
    left = tile_frame(*LEFT_ON_THE_TABLE.center, LEFT_ON_THE_TABLE.half_width, LEFT_ON_THE_TABLE.angle_deg)
    assert changes.share(played) > 0.5
    assert changes.share(left) < MIN_CHANGED_SHARE
    # A frame reaching off the image counts its cells there as unchanged.
    assert changes.share(tile_frame(0, 0, 30, 0)) == 0.0


def test_a_reading_of_the_unchanged_table_goes_and_backs_stay(
        pictures: tuple[np.ndarray, np.ndarray]) -> None:
    empty, frame = pictures
    plain = read_image(frame)
    assert sorted(t.tile for t in plain.tiles) == ["1-3", "2-5"] and plain.face_down == 1
    given = read_image(frame, background=empty)
    assert [t.tile for t in given.tiles] == ["1-3"]
    assert given.face_down == 1  # the boneyard is on the table when the hand starts
    played = next(t for t in plain.tiles if t.tile == "1-3")
    assert np.array_equal(given.tiles[0].corners, played.corners)
    # The dropped reading is in the verdicts `--debug` draws, with the share of its cells changed.
    unchanged = [v for v in given.candidates if v.kind == UNCHANGED]
    assert len(unchanged) == 1 and unchanged[0].confidence < MIN_CHANGED_SHARE
    assert np.linalg.norm(unchanged[0].corners.mean(axis=0) - LEFT_ON_THE_TABLE.center) < 10
    drawn = draw_view(frame, given)
    x0, y0 = np.floor(unchanged[0].corners.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(unchanged[0].corners.max(axis=0)).astype(int) + 3
    assert np.any(np.all(drawn[y0:y1, x0:x1] == (0, 120, 255), axis=2))  # its outline, in orange


def test_a_textured_table_read_as_a_tile_reads_as_nothing_beside_its_empty_picture() -> None:
    pytest.importorskip("vision.synth.widened", reason="vision.synth is not in this checkout")
    from vision.synth.widened import (
        render_widened,
        render_widened_empty,
        render_widened_empty_of,
        widened_renderer,
    )

    # Tuning frame 10063: planks and a low-resolution webcam, no tile. The reader alone takes a
    # knot in the wood for a blank double; its empty picture shows the knot was always there.
    frame, empty = render_widened(10063), render_widened_empty(10063)
    # The benchmark draws both from one renderer (`widened_renderer`): the same pictures.
    renderer, scene = widened_renderer(10063)
    together = renderer.render(scene, 10063), render_widened_empty_of(renderer, scene, 10063)
    assert np.array_equal(together[0].image, frame.image) and np.array_equal(together[1].image, empty.image)
    assert frame.labels["tiles"] == [] and frame.image.shape == empty.image.shape
    assert not np.array_equal(frame.image, empty.image)  # another moment's sensor noise
    assert read_image(frame.image, background=empty.image).tiles == ()


def test_a_background_of_another_size_or_kind_is_refused(pictures: tuple[np.ndarray, np.ndarray]) -> None:
    empty, frame = pictures
    with pytest.raises(VisionError, match="background is 450x350 px but the image is 900x700"):
        read_image(frame, background=empty[::2, ::2])
    with pytest.raises(VisionError, match="background: expected dtype uint8"):
        read_image(frame, background=empty.astype(np.float32))
    with pytest.raises(VisionError, match="background: expected a numpy array"):
        read_image(frame, background="empty.png")  # type: ignore[arg-type]
    # Grey and BGRA pictures are converted, as for the image.
    assert "1-3" in [t.tile for t in read_image(frame, background=empty[..., 0]).tiles]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([np.uint8, np.int16]), st.sampled_from([(), (3,)]), st.integers(1, 40),
       st.integers(1, 40), st.integers(0, 255), st.integers(0, 2**32 - 1))
def test_differs_is_the_largest_channel_difference_over_the_level(dtype: type, channels: tuple[int, ...],
                                                                  height: int, width: int, level: int,
                                                                  seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, b = (rng.integers(0, 256, (height, width, *channels)).astype(dtype) for _ in range(2))
    difference = np.abs(a.astype(np.int32) - b.astype(np.int32))
    expected = (difference.max(axis=2) if channels else difference) > level
    assert np.array_equal(differs(a, b, level), expected)
