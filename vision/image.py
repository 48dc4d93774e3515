"""Checking and loading frames before any OpenCV call sees them.

OpenCV answers a bad array with an assertion deep inside C++, and decodes whatever size a file's
header declares; callers get a `VisionError` that names what was wrong instead. A file's size is
read from its header (`declared_size`) and checked against `MAX_IMAGE_PIXELS` before a byte is
decoded, so a small file claiming 100000 x 100000 pixels costs nothing.
"""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np

from vision.errors import VisionError

MIN_SIDE = 16
# The largest image vision takes, file or array: 64 megapixels (a 48 MP phone photo fits) is
# 192 MB as uint8 BGR. The reader brings any image to a bounded working scale first
# (`vision.scale`), so the limit bounds only the memory of holding the input itself.
MAX_IMAGE_PIXELS = 64_000_000
MAX_FILE_BYTES = 256 * 1024 * 1024  # no compressed photo of 64 MP comes near this
HEADER_BYTES = 1 << 16  # how far into a file the size is looked for (a JPEG's EXIF comes first)

FORMATS = "PNG, JPEG, BMP, WebP, TIFF, PNM (PPM/PGM/PBM) or GIF (its first frame)"
_CHANNELS = {1: cv2.COLOR_GRAY2BGR, 4: cv2.COLOR_BGRA2BGR}


def checked_bgr(image: object, *, name: str = "image") -> np.ndarray:
    """Return `image` as a contiguous uint8 (H, W, 3) BGR array, or raise `VisionError`.

    Accepts uint8 (H, W, 3) BGR, and converts uint8 (H, W) or (H, W, 1) grey and (H, W, 4) BGRA.
    Anything else (None, other dtypes, other channel counts or shapes, fewer than 16 pixels a side,
    more than `MAX_IMAGE_PIXELS`) is refused with its description.
    """
    if image is None:
        raise VisionError(f"{name}: no image (got None)")
    if not isinstance(image, np.ndarray):
        raise VisionError(f"{name}: expected a numpy array, got {type(image).__name__}")
    if image.dtype != np.uint8:
        raise VisionError(f"{name}: expected dtype uint8, got {image.dtype} with shape {image.shape}")
    if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (1, 3, 4)):
        raise VisionError(f"{name}: expected shape (H, W, 3) (or grey (H, W), (H, W, 1) or BGRA "
                          f"(H, W, 4)), got {image.shape}")
    if image.size == 0:
        raise VisionError(f"{name}: empty image with shape {image.shape}")
    height, width = image.shape[:2]
    if min(height, width) < MIN_SIDE:
        raise VisionError(f"{name}: image of {width}x{height} px is too small "
                          f"(at least {MIN_SIDE} px a side)")
    check_pixels(width, height, name=name)
    if image.ndim == 3 and image.shape[2] == 1:
        image = image[:, :, 0]
    if image.ndim == 2 or image.shape[2] == 4:
        image = cv2.cvtColor(np.ascontiguousarray(image), _CHANNELS[1 if image.ndim == 2 else 4])
    return np.ascontiguousarray(image)


def check_pixels(width: int, height: int, *, name: str = "image") -> None:
    """Raise `VisionError` when a `width` x `height` image exceeds `MAX_IMAGE_PIXELS`."""
    if width * height > MAX_IMAGE_PIXELS:
        raise VisionError(f"{name}: image of {width}x{height} px ({width * height / 1e6:.0f} "
                          f"megapixels) is larger than vision takes ({MAX_IMAGE_PIXELS / 1e6:.0f} "
                          f"megapixels)")


def load_image(path: str | Path) -> np.ndarray:
    """Read an image file as uint8 BGR, raising `VisionError` for missing, empty, oversized,
    corrupt or undecodable files. The size its header declares is checked before decoding."""
    path = Path(path)
    return decode_image(image_file_bytes(path), name=str(path))


def image_file_bytes(path: str | Path) -> np.ndarray:
    """The bytes of an image file, undecoded (uint8 (N,)), refusing a missing, empty or oversized
    file (`MAX_FILE_BYTES`) before reading it."""
    path = Path(path)
    if not path.is_file():
        raise VisionError(f"{path}: no such image file")
    size = path.stat().st_size
    if size == 0:
        raise VisionError(f"{path}: empty file")
    if size > MAX_FILE_BYTES:
        raise VisionError(f"{path}: file of {size} bytes is larger than vision takes "
                          f"({MAX_FILE_BYTES} bytes)")
    return np.fromfile(path, dtype=np.uint8)


def decode_image(data: bytes | np.ndarray, *, name: str = "image") -> np.ndarray:
    """Decode an encoded image (the bytes of a file) as uint8 BGR, checking its declared size first."""
    buffer = np.frombuffer(data, np.uint8) if isinstance(data, bytes) else data
    if buffer.size == 0:
        raise VisionError(f"{name}: empty file")
    declared = declared_size(buffer)
    if declared is None:
        raise VisionError(f"{name}: not a readable image (not {FORMATS}, or its header is corrupt)")
    width, height = declared
    if width < 1 or height < 1:
        raise VisionError(f"{name}: its header declares an image of {width}x{height} px")
    check_pixels(width, height, name=name)
    image = cv2.imdecode(buffer, cv2.IMREAD_COLOR)
    if image is None:
        raise VisionError(f"{name}: not a readable image (corrupt or truncated {width}x{height} file)")
    return checked_bgr(image, name=name)


def declared_size(data: bytes | np.ndarray) -> tuple[int, int] | None:
    """(width, height) that the header of an image file (its bytes, or uint8 array) declares, or
    None when the bytes are none of `FORMATS` or the header is cut short or corrupt.

    Only the header is read (its first `HEADER_BYTES`; a TIFF's directory wherever it points),
    never the pixels; the decoder checks the rest."""
    buffer = np.frombuffer(data, np.uint8) if isinstance(data, bytes) else data
    head = buffer[:HEADER_BYTES].tobytes()
    try:
        if head.startswith(b"\x89PNG\r\n\x1a\n"):
            if head[12:16] != b"IHDR":
                return None
            width, height = struct.unpack(">II", head[16:24])
            return int(width), int(height)
        if head.startswith(b"\xff\xd8"):
            return _jpeg_size(head)
        if head.startswith(b"BM"):
            width, height = struct.unpack("<ii", head[18:26])
            return int(width), abs(int(height))  # a negative height is a top-down bitmap
        if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
            return _webp_size(head)
        if head[:1] == b"P" and head[1:2] in b"123456" and len(head) > 2:
            return _pnm_size(head)
        if head[:4] in (b"II*\x00", b"MM\x00*"):
            return _tiff_size(buffer, "<" if head[:2] == b"II" else ">")
        if head[:6] in (b"GIF87a", b"GIF89a"):
            # The logical screen: every frame is drawn on it, and the decoder refuses a frame
            # that reaches beyond it, so it is the size decoded.
            width, height = struct.unpack("<HH", head[6:10])
            return int(width), int(height)
    except struct.error:
        return None  # the header is cut short
    return None


# JPEG start-of-frame markers: SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC).
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg_size(head: bytes) -> tuple[int, int] | None:
    at = 2
    while at + 4 <= len(head):
        if head[at] != 0xFF:
            return None
        marker = head[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            at += 2
            continue
        (length,) = struct.unpack(">H", head[at + 2:at + 4])
        if marker in _SOF:
            height, width = struct.unpack(">HH", head[at + 5:at + 9])
            return int(width), int(height)
        if marker == 0xDA or length < 2:  # scan data before any frame header: corrupt
            return None
        at += 2 + length
    return None


def _webp_size(head: bytes) -> tuple[int, int] | None:
    chunk = head[12:16]
    if chunk == b"VP8X":
        width = int.from_bytes(head[24:27], "little") + 1
        height = int.from_bytes(head[27:30], "little") + 1
        return (width, height) if len(head) >= 30 else None
    if chunk == b"VP8L":
        (bits,) = struct.unpack("<I", head[21:25])
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", head[26:30])
        return int(width) & 0x3FFF, int(height) & 0x3FFF
    return None


def _tiff_size(buffer: np.ndarray, order: str) -> tuple[int, int] | None:
    """The first image's ImageWidth (tag 256) and ImageLength (257) from its directory."""
    (directory,) = struct.unpack(order + "I", buffer[4:8].tobytes())
    (count,) = struct.unpack(order + "H", buffer[directory:directory + 2].tobytes())
    entries = buffer[directory + 2:directory + 2 + 12 * min(count, 4096)].tobytes()
    sizes: dict[int, int] = {}
    for at in range(0, len(entries) - 11, 12):
        tag, kind = struct.unpack(order + "HH", entries[at:at + 4])
        if tag in (256, 257) and kind in (3, 4):  # SHORT or LONG
            value = entries[at + 8:at + 10] if kind == 3 else entries[at + 8:at + 12]
            (sizes[tag],) = struct.unpack(order + ("H" if kind == 3 else "I"), value)
    return (sizes[256], sizes[257]) if len(sizes) == 2 else None


def _pnm_size(head: bytes) -> tuple[int, int] | None:
    words: list[bytes] = []
    for line in head[2:].split(b"\n"):
        words += line.split(b"#", 1)[0].split()
        if len(words) >= 2:
            break
    if len(words) < 2 or not (words[0].isdigit() and words[1].isdigit()):
        return None
    return int(words[0]), int(words[1])
