from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from referee.app.cli import main
from vision.calibration import (
    Calibration,
    CalibrationError,
    TableLayout,
    calibrate_from_markers,
    find_markers,
)
from vision.synth.random_scenes import random_scene
from vision.synth.scene import Renderer, Scene
from vision.synth.style import random_style


def _grid(layout: TableLayout) -> np.ndarray:
    xs, ys = np.meshgrid(np.linspace(80, layout.width_mm - 80, 6), np.linspace(80, layout.height_mm - 80, 5))
    return np.stack([xs.ravel(), ys.ravel()], axis=1)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_markers_recover_the_rendered_homography(seed: int) -> None:
    rng = np.random.default_rng(seed)
    style = random_style(rng, tilt=0.06)
    scene = random_scene(rng)
    renderer = Renderer(style, (1280, 720), seed=seed, layout=scene.layout)
    frame = renderer.render(scene, seed)
    calibration = calibrate_from_markers(frame.image, scene.layout)
    assert calibration.markers_found == (0, 1, 2, 3)
    points = _grid(scene.layout)
    seen = calibration.to_table(
        cv2.perspectiveTransform(points[None].astype(np.float64), frame.table_to_image)[0]
    )
    error_mm = np.linalg.norm(seen - points, axis=1)
    # One pixel is ~0.75 mm at this size: sub-pixel corners must keep the whole table within 1.5 mm.
    assert error_mm.max() < 1.5, error_mm.max()


def test_no_markers_is_a_clear_error() -> None:
    frame = Renderer(random_style(np.random.default_rng(0)), (640, 360), markers=False).render(Scene())
    with pytest.raises(
        CalibrationError, match=r"found 0 of the 4 table markers \(missing ids \[0, 1, 2, 3\]\)"
    ):
        calibrate_from_markers(frame.image)


def test_saved_calibration_round_trips_and_bad_files_are_named(tmp_path) -> None:
    calibration = Calibration(np.diag([0.5, 0.5, 1.0]), TableLayout(width_mm=800), (640, 480), (0, 1, 2, 3))
    path = tmp_path / "cal.json"
    calibration.save(path)
    loaded = Calibration.load(path)
    assert np.allclose(loaded.image_to_table, calibration.image_to_table)
    assert loaded.layout == calibration.layout and loaded.image_size == (640, 480)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "domino-calibration", "image_to_table": [[1, 0], [0, 1]]}))
    with pytest.raises(CalibrationError, match="invertible 3x3"):
        Calibration.load(bad)
    bad.write_text("{nope")
    with pytest.raises(CalibrationError, match="is not JSON"):
        Calibration.load(bad)
    with pytest.raises(CalibrationError, match="cannot read calibration file"):
        Calibration.load(tmp_path / "missing.json")


def test_cli_prints_a_detectable_sheet_and_calibrates_a_rendered_table(tmp_path, capsys) -> None:
    sheet = tmp_path / "markers.png"
    assert main(["calibrate", "markers", str(sheet)]) == 0
    assert sorted(find_markers(cv2.imread(str(sheet)))) == [0, 1, 2, 3]
    rng = np.random.default_rng(9)
    scene = random_scene(rng)
    frame = Renderer(random_style(rng), (1280, 720), seed=9).render(scene, 9)
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), frame.image)
    out = tmp_path / "cal.json"
    assert main(["calibrate", "table", str(photo), "--out", str(out)]) == 0
    calibration = Calibration.load(out)
    points = _grid(calibration.layout)
    seen = calibration.to_table(cv2.perspectiveTransform(points[None], frame.table_to_image)[0])
    assert np.abs(seen - points).max() < 1.5
    assert main(["calibrate", "table", str(tmp_path / "nothing.png"), "--out", str(out)]) == 1
    assert "cannot read image" in capsys.readouterr().err
