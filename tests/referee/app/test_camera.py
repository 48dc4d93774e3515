"""The camera device of `run`: frames from a folder source → vision → tracker → table inputs."""

from __future__ import annotations

import queue
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.app.camera import CameraDevice, CameraSettingError, demo_camera, open_camera, quiet_reader
from referee.app.config import parse_config
from referee.app.ports import Input
from tests.vision.conftest import Painted, paint_tile, table


def test_the_cameras_reader_knows_a_game_is_played_with_one_set() -> None:
    # A tile read twice is a misread of another: the service's reader keeps only the likelier.
    image = table(900, 700, seed=3)
    paint_tile(image, Painted(2, 5, (250, 300), 20.0, 30))
    paint_tile(image, Painted(5, 2, (620, 380), 100.0, 30))
    assert [t.tile for t in quiet_reader()(image).tiles] == ["2-5"]


def _filmed_folder(tmp_path: Path, size: tuple[int, int], calibrated_size: tuple[int, int],
                   *plays: tuple[int, str, str | None]) -> tuple[Path, Path, int]:
    """A new hand and `plays` filmed at `size` into a folder of PNGs, and the film's calibration
    saved as made for `calibrated_size` pictures: (folder, calibration file, frames)."""
    from vision.calibration import Calibration

    film, _ = demo_camera(size, seed=5)
    frames = film.new_hand(boneyard=3)
    for seat, tile, end in plays:
        frames += film.play(seat, tile, end)
    shots = tmp_path / "shots"
    shots.mkdir()
    for index, frame in enumerate(frames):
        cv2.imwrite(str(shots / f"{index:04d}.png"), frame.image)
    saved = tmp_path / "calibration.json"
    Calibration(np.linalg.inv(film.renderer.table_to_image), film.layout, calibrated_size).save(saved)
    return shots, saved, len(frames)


def test_camera_device_reads_plays_from_an_image_folder(tmp_path: Path) -> None:
    shots, saved, frames = _filmed_folder(tmp_path, (1280, 720), (1280, 720),
                                          (0, "1-2", None), (1, "1-6", "left"))
    config = parse_config({"camera": {"source": str(shots), "fps": 5, "calibration": "fixed",
                                      "calibration_file": str(saved)}}, environ={})
    device = open_camera(config)
    assert isinstance(device, CameraDevice) and device.calibration_file == str(saved)
    inputs: queue.Queue[Input] = queue.Queue()
    device.start(inputs.put)
    assert device._thread is not None
    device._thread.join(120)
    seen = []
    while not inputs.empty():
        inp = inputs.get()
        seen.append((inp.kind, dict(inp.data)))
    placed = [data for kind, data in seen if kind == "placed"]
    assert [sorted(p["tile"].split("-")) for p in placed] == [["1", "2"], ["1", "6"]], seen
    assert device.frames == frames


def test_fixed_calibration_needs_its_file(tmp_path: Path) -> None:
    config = parse_config({"camera": {"source": "0", "calibration": "fixed"},
                           "storage": {"data_dir": str(tmp_path)}}, environ={})
    with pytest.raises(CameraSettingError, match=r"calibration\.json.*calibrate table"):
        open_camera(config)


def test_a_runtime_variable_that_names_no_runtime_refuses_the_camera_at_start(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOMINO_VISION_RUNTIME", "tensorrt")
    config = parse_config({"camera": {"source": "0"}}, environ={})
    with pytest.raises(CameraSettingError, match=r"camera: DOMINO_VISION_RUNTIME='tensorrt' names no"):
        open_camera(config)


def test_a_calibration_for_another_picture_size_fails_the_camera_once_by_name(tmp_path: Path) -> None:
    from referee.app.health import Health, PartHealth, State

    shots, saved, frames = _filmed_folder(tmp_path, (640, 360), (1280, 720), (0, "1-2", None))
    notes: list[str] = []
    health = Health()
    reports: list[PartHealth] = []
    health.subscribe(reports.append)
    device = CameraDevice(str(shots), 5, lambda: 0.0, notes.append, str(saved), health=health)
    inputs: queue.Queue[Input] = queue.Queue()
    device.start(inputs.put)
    assert device._thread is not None
    device._thread.join(120)
    assert device.frames == frames
    assert inputs.empty() and notes == []  # no frame read through it, and no note on every frame
    failed = [r.why for r in reports if r.part == "camera" and r.state is State.FAILED]
    assert len(failed) == 1 and "1280x720" in failed[0] and "640x360" in failed[0], reports
