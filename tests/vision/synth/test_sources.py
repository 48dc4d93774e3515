from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.sources import CaptureSource, ImageFolderSource, SourceError, SyntheticSource
from vision.synth.film import GameFilm
from vision.synth.source import open_source
from vision.synth.style import Style


def _frames(count: int) -> list[np.ndarray]:
    frames = []
    for i in range(count):
        frame = np.zeros((120, 160, 3), np.uint8)
        cv2.rectangle(frame, (10 + 10 * i, 20), (40 + 10 * i, 60), (255, 255, 255), -1)
        frames.append(frame)
    return frames


def test_video_file_frames_come_with_the_files_own_times(tmp_path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (160, 120))
    assert writer.isOpened()
    for frame in _frames(6):
        writer.write(frame)
    writer.release()
    source = open_source(str(path))
    assert isinstance(source, CaptureSource)
    read = list(source)
    source.close()
    assert len(read) == 6
    times = [t for t, _ in read]
    assert times == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4, 0.5], abs=0.011)
    # The white box moved 10 px per frame: the pixels are the ones written.
    for k, (_, frame) in enumerate(read):
        assert frame[40, 25 + 10 * k].mean() > 200 and frame[40, 5 + 10 * k].mean() < 60


def test_image_folder_in_name_order_at_its_frame_rate_skipping_unreadable_files(tmp_path) -> None:
    for i, frame in enumerate(_frames(3)):
        cv2.imwrite(str(tmp_path / f"shot-{i}.png"), frame)
    (tmp_path / "shot-9.jpg").write_bytes(b"not an image")
    (tmp_path / "notes.txt").write_text("ignored")
    source = open_source(str(tmp_path), fps=2.0)
    assert isinstance(source, ImageFolderSource)
    read = list(source)
    assert [t for t, _ in read] == [0.0, 0.5, 1.0]
    assert [p.name for p in source.unreadable] == ["shot-9.jpg"]


def test_synthetic_source_yields_film_frames_with_their_times() -> None:
    film = GameFilm(Style(), seed=1, size=(320, 180))
    frames = film.still(3)
    read = list(SyntheticSource(frames))
    assert [t for t, _ in read] == [0.0, 0.2, 0.4]
    assert all(np.array_equal(image, frame.image) for (_, image), frame in zip(read, frames, strict=True))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "empty frame source"),
        ("/no/such/file.mp4", "no such file or folder"),
        ("synth:x", "the seed must be a whole number"),
        ("99", "cannot open camera index 99"),
    ],
)
def test_bad_sources_are_named(spec: str, message: str) -> None:
    with pytest.raises(SourceError, match=message):
        open_source(spec)


def test_unopenable_files_and_empty_folders(tmp_path) -> None:
    bogus = tmp_path / "bogus.mp4"
    bogus.write_bytes(b"\x00" * 64)
    with pytest.raises(SourceError, match="cannot open video source"):
        open_source(str(bogus))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SourceError, match="holds no images"):
        open_source(str(empty))
    with pytest.raises(SourceError, match="does not exist or is not a folder"):
        ImageFolderSource(tmp_path / "missing")


def test_synth_spec_films_a_game() -> None:
    source = open_source("synth:3")
    frames = []
    for t, image in source:
        frames.append((t, image))
        if len(frames) == 3:
            break
    assert [t for t, _ in frames] == [0.0, 0.2, 0.4]
    assert frames[0][1].shape == (720, 1280, 3)
