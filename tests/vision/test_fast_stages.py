"""The faster forms of the classical stages give what the plain forms they replaced gave."""

from __future__ import annotations

import warnings

import cv2
import numpy as np

from vision.facedown import table_distance
from vision.marks import Bar, _distinct, _row_medians, components


def _noisy_image(seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    image = np.full((120, 160, 3), (40, 120, 90), np.uint8)
    image[30:80, 40:120] = (220, 220, 210)
    noise = rng.integers(-40, 40, image.shape)
    return np.clip(image.astype(np.int64) + noise, 0, 255).astype(np.uint8)


def test_table_distance_of_uint8_lab_is_the_float_computation_to_the_bit():
    lab = cv2.cvtColor(_noisy_image(), cv2.COLOR_BGR2LAB)
    looked_up = table_distance(lab)
    computed = table_distance(lab.astype(np.float32))
    assert looked_up.dtype == computed.dtype == np.float32
    assert np.array_equal(looked_up, computed)
    assert looked_up.max() > 25  # the bright block stands out from the border's colour


def test_components_match_opencvs_default_labelling():
    mask = (np.random.default_rng(5).random((90, 130)) > 0.6).astype(np.uint8)
    count, labels, stats, centroids = components(mask)
    expected = cv2.connectedComponentsWithStats(mask, connectivity=8)
    assert count == expected[0] > 10
    assert np.array_equal(labels, expected[1]) and np.array_equal(stats, expected[2])
    assert np.allclose(centroids, expected[3])


def test_row_medians_are_nanmedian_over_the_used_entries():
    rng = np.random.default_rng(7)
    values = rng.normal(size=(200, 25))
    use = rng.random((200, 25)) > 0.5
    use[:3] = False  # rows with nothing to use give 0
    use[3, :] = False
    use[3, 4] = True  # one entry
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # nanmedian of an all-nan row
        expected = np.nan_to_num(np.nanmedian(np.where(use, values, np.nan), axis=1), nan=0.0)
    assert np.array_equal(_row_medians(values, use), expected)


def _bar(x: float, y: float, angle_deg: float, length: float) -> Bar:
    theta = np.deg2rad(angle_deg)
    return Bar(np.float32([x, y]), np.float32([np.cos(theta), np.sin(theta)]), length, 2.0, "dark")


def test_distinct_keeps_the_longest_bar_of_each_place_and_direction():
    pip = 10.0
    long_bar = _bar(50, 50, 0, 40)
    near_parallel = _bar(53, 51, 10, 30)     # within half a pip, within 25 degrees: dropped
    near_across = _bar(51, 50, 90, 35)       # same place, across: kept
    shadow_of_dropped = _bar(56, 52, 0, 20)  # near only the dropped one: kept
    far = _bar(200, 50, 0, 45)
    kept = _distinct([near_parallel, long_bar, near_across, shadow_of_dropped, far], pip)
    assert [id(bar) for bar in kept] == [id(far), id(long_bar), id(near_across), id(shadow_of_dropped)]
    assert _distinct([], pip) == []
