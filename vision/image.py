"""Checking and loading frames before any OpenCV call sees them.

OpenCV answers a bad array with an assertion deep inside C++; callers get a `VisionError` that
names what was wrong instead.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.errors import VisionError

MIN_SIDE = 16


def checked_bgr(image: object, *, name: str = "image") -> np.ndarray:
    """Return `image` as a contiguous uint8 (H, W, 3) BGR array, or raise `VisionError`.

    Accepts uint8 (H, W, 3) BGR, and converts uint8 (H, W) grey and (H, W, 4) BGRA. Anything else
    (None, other dtypes, other shapes, fewer than 16 pixels a side) is refused with its description.
    """
    if image is None:
        raise VisionError(f"{name}: no image (got None)")
    if not isinstance(image, np.ndarray):
        raise VisionError(f"{name}: expected a numpy array, got {type(image).__name__}")
    if image.dtype != np.uint8:
        raise VisionError(f"{name}: expected dtype uint8, got {image.dtype} with shape {image.shape}")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR) if image.size else image
    elif image.ndim == 3 and image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR) if image.size else image
    elif not (image.ndim == 3 and image.shape[2] == 3):
        raise VisionError(f"{name}: expected shape (H, W, 3), got {image.shape}")
    if image.size == 0:
        raise VisionError(f"{name}: empty image with shape {image.shape}")
    if min(image.shape[:2]) < MIN_SIDE:
        raise VisionError(f"{name}: image of {image.shape[1]}x{image.shape[0]} px is too small "
                          f"(at least {MIN_SIDE} px a side)")
    return np.ascontiguousarray(image)


def load_image(path: str | Path) -> np.ndarray:
    """Read an image file as uint8 BGR, raising `VisionError` for missing or undecodable files."""
    path = Path(path)
    if not path.is_file():
        raise VisionError(f"{path}: no such image file")
    data = np.fromfile(path, dtype=np.uint8)
    if data.size == 0:
        raise VisionError(f"{path}: empty file")
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if image is None:
        raise VisionError(f"{path}: not a readable image (corrupt or unknown format)")
    return checked_bgr(image, name=str(path))
