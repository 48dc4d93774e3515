"""Where frames come from: a camera, a video file, a folder of images, a network stream, or the
synthetic table. Every source is an iterable of `(t, frame)`: `t` in seconds from the source's own
clock where it has one (a file's position, an image's index over the folder's frame rate, a
synthetic frame's time), the BGR frame as a uint8 array.

Open one from a text spec with `open_source("0" | "game.mp4" | "shots/" | "rtsp://…")`; the
synthetic table's `"synth:7"` opens through `vision.synth.source.open_source`, which adds it (the
renderer lives in `vision.synth`, which imports vision and never the other way round).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable

import cv2
import numpy as np

from vision.errors import VisionError
from vision.image import load_image

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
STREAM_SCHEMES = ("rtsp://", "rtsps://", "http://", "https://", "udp://", "tcp://")


class SourceError(VisionError):
    """A frame source that cannot be opened or read."""


@runtime_checkable
class FrameSource(Protocol):
    """Frames with their times; `close()` releases the device."""

    def __iter__(self) -> Iterator[tuple[float, np.ndarray]]: ...

    def close(self) -> None: ...


class CaptureSource:
    """A camera index, a video file or a stream URL, read through cv2.VideoCapture.

    Files and most streams report each frame's position (`CAP_PROP_POS_MSEC`); a camera that
    reports none gets times from a monotonic clock started when the source opened.
    """

    def __init__(self, target: int | str, *, describe: str | None = None) -> None:
        self.describe = describe or repr(target)
        self._capture = cv2.VideoCapture(target)
        if not self._capture.isOpened():
            self._capture.release()
            kind = "camera" if isinstance(target, int) else "video source"
            raise SourceError(
                f"cannot open {kind} {self.describe}: no such device, file or stream, or no codec"
            )
        self._is_file = isinstance(target, str) and not target.startswith(STREAM_SCHEMES)
        self._start = time.monotonic()
        self.frames_read = 0

    def __iter__(self) -> Iterator[tuple[float, np.ndarray]]:
        last_t = -1.0
        while True:
            ok, frame = self._capture.read()
            if not ok or frame is None:
                return
            position = float(self._capture.get(cv2.CAP_PROP_POS_MSEC)) / 1000.0
            t = position if self._is_file or position > 0 else time.monotonic() - self._start
            if self._is_file and t <= last_t:
                fps = float(self._capture.get(cv2.CAP_PROP_FPS)) or 25.0
                t = last_t + 1.0 / fps  # some containers repeat the position of the first frames
            last_t = t
            self.frames_read += 1
            yield t, frame

    def close(self) -> None:
        self._capture.release()


class ImageFolderSource:
    """Images of a folder in name order, `fps` of them per second of source time."""

    def __init__(self, folder: str | Path, fps: float = 1.0) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise SourceError(f"image folder {str(folder)!r} does not exist or is not a folder")
        if fps <= 0:
            raise SourceError(f"frame rate must be positive, got {fps!r}")
        self.fps = fps
        self.paths = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise SourceError(f"image folder {str(folder)!r} holds no images ({', '.join(IMAGE_SUFFIXES)})")
        self.unreadable: list[Path] = []

    def __iter__(self) -> Iterator[tuple[float, np.ndarray]]:
        for index, path in enumerate(self.paths):
            try:
                frame = load_image(path)
            except VisionError:
                self.unreadable.append(path)  # kept for the caller to report; the game goes on
                continue
            yield index / self.fps, frame

    def close(self) -> None:
        pass


class SyntheticSource:
    """Frames from the synthetic table (anything yielding objects with `.t` and `.image`)."""

    def __init__(self, frames: Iterable[object]) -> None:
        self._frames = frames

    def __iter__(self) -> Iterator[tuple[float, np.ndarray]]:
        for frame in self._frames:
            yield float(frame.t), frame.image  # type: ignore[attr-defined]

    def close(self) -> None:
        pass


def open_source(spec: str, *, fps: float = 1.0) -> FrameSource:
    """Open a frame source from text: a camera index ("0"), a URL, a folder or a video file.

    "synth:SEED" (a synthetic game) is `vision.synth.source.open_source`'s; here it is refused."""
    text = spec.strip()
    if not text:
        raise SourceError("empty frame source: give a camera index, a file, a folder, a URL or synth:SEED")
    if text.isdigit():
        return CaptureSource(int(text), describe=f"index {text}")
    if text.startswith(STREAM_SCHEMES):
        return CaptureSource(text, describe=repr(text))
    if text.startswith("synth:"):
        raise SourceError(f"frame source {spec!r}: synthetic sources open with "
                          "vision.synth.source.open_source")
    path = Path(text)
    if path.is_dir():
        return ImageFolderSource(path, fps)
    if not path.exists():
        raise SourceError(
            f"frame source {spec!r}: no such file or folder (nor a camera index, URL or synth:SEED)"
        )
    return CaptureSource(str(path), describe=repr(text))
