"""Bad input of every kind gets a `VisionError` naming what was wrong, at a bounded cost: sizes,
channel counts and dtypes of arrays, empty, corrupt and truncated files, and files whose header
declares an image far larger than vision takes (checked before a pixel is decoded)."""

from __future__ import annotations

import resource
import struct
import time
import zlib

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.errors import VisionError
from vision.image import MAX_IMAGE_PIXELS, declared_size, decode_image, load_image
from vision.read import read_image

SMALL = np.random.default_rng(0).integers(0, 255, (37, 53, 3), np.uint8)


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def huge_png(width: int = 100_000, height: int = 100_000) -> bytes:
    """A valid PNG header declaring `width` x `height` RGB pixels, with one tiny compressed row."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header)
            + _png_chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + _png_chunk(b"IEND", b""))


def huge_jpeg() -> bytes:
    """A real JPEG whose frame header is rewritten to declare 65535 x 65535 pixels."""
    ok, encoded = cv2.imencode(".jpg", SMALL)
    assert ok
    data = bytearray(encoded.tobytes())
    at = data.find(b"\xff\xc0")
    data[at + 5:at + 9] = struct.pack(">HH", 65535, 65535)
    return bytes(data)


@pytest.mark.parametrize(("bad", "says"), [
    (np.zeros((50, 50, 3), np.uint16), "uint16"), (np.zeros((50, 50, 3), np.float64), "float64"),
    (np.zeros((50, 50, 3), bool), "bool"), (np.zeros((50, 50, 5), np.uint8), "(50, 50, 5)"),
    (np.zeros((50, 50, 3, 1), np.uint8), "(50, 50, 3, 1)"), (np.zeros(50, np.uint8), "(50,)"),
    (np.zeros((0, 50, 3), np.uint8), "empty"), (np.zeros((50, 0), np.uint8), "empty"),
    (np.zeros((15, 4000, 3), np.uint8), "too small"), ([[1, 2], [3, 4]], "list"),
])
def test_arrays_of_every_wrong_kind_are_refused(bad, says):
    with pytest.raises(VisionError) as info:
        read_image(bad)
    assert says in str(info.value)


def test_an_array_beyond_the_pixel_limit_is_refused_before_any_work():
    side = int(MAX_IMAGE_PIXELS ** 0.5) + 1
    # A broadcast view: the array declares side x side pixels but holds one; nothing is copied
    # before the check refuses it.
    huge = np.broadcast_to(np.zeros((1, 1, 3), np.uint8), (side, side, 3))
    with pytest.raises(VisionError, match="megapixels"):
        read_image(huge)


@pytest.mark.parametrize("channels", [None, 1, 4])
def test_grey_single_channel_and_bgra_arrays_are_read(channels):
    image = np.full((120, 160, 3), 40, np.uint8)
    frame = {None: cv2.cvtColor(image, cv2.COLOR_BGR2GRAY),
             1: cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)[:, :, None],
             4: cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)}[channels]
    assert read_image(frame).tiles == ()


def test_an_empty_frame_reads_as_an_empty_table_quickly():
    started = time.process_time()
    for frame in (np.zeros((480, 640, 3), np.uint8), np.full((480, 640, 3), 255, np.uint8)):
        view = read_image(frame)
        assert view.tiles == () and view.face_down == 0
    assert time.process_time() - started < 10  # a bound against a hang, not a speed figure


@pytest.mark.parametrize(("make", "says"), [
    (lambda: huge_png(), "100000x100000 px"),
    (lambda: huge_jpeg(), "65535x65535 px"),
    (lambda: huge_png(0, 10), "declares an image of 0x10 px"),
    (lambda: b"\x89PNG\r\n\x1a\n\x00\x00", "not a readable image"),
    (lambda: b"\xff\xd8 not really a jpeg", "not a readable image"),
    (lambda: b"GIF89a" + bytes(100), "declares an image of 0x0 px"),
    (lambda: b"GIF89a\xff\xff\xff\xff" + bytes(100), "65535x65535 px"),
    (lambda: b"GIF89a\x20\x00\x20\x00" + bytes(100), "not a readable image"),
    (lambda: b"plain text, no image at all", "not a readable image"),
])
def test_bad_files_are_refused_without_decoding(tmp_path, make, says):
    path = tmp_path / "bad.img"
    path.write_bytes(make())
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(VisionError) as info:
        load_image(path)
    assert "bad.img" in str(info.value) and says in str(info.value)
    # No multi-gigabyte allocation: the peak grew by less than 100 MB.
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000


@pytest.mark.parametrize("extension", [".png", ".jpg", ".webp", ".tiff", ".bmp", ".gif"])
def test_truncated_files_are_refused(tmp_path, extension):
    ok, encoded = cv2.imencode(extension, np.tile(SMALL, (8, 8, 1)))
    assert ok
    data = encoded.tobytes()
    path = tmp_path / f"cut{extension}"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(VisionError, match=r"cut\.\w+: not a readable image"):
        load_image(path)


def test_empty_and_missing_files(tmp_path):
    (tmp_path / "empty.png").write_bytes(b"")
    with pytest.raises(VisionError, match="empty file"):
        load_image(tmp_path / "empty.png")
    with pytest.raises(VisionError, match="no such image file"):
        load_image(tmp_path / "absent.png")
    with pytest.raises(VisionError, match="empty file"):
        decode_image(b"")


@settings(max_examples=40, deadline=None)
@given(width=st.integers(16, 300), height=st.integers(16, 300),
       extension=st.sampled_from([".png", ".jpg", ".bmp", ".webp", ".ppm", ".pgm", ".tiff", ".gif"]))
def test_declared_size_is_the_encoded_size(width, height, extension):
    image = np.random.default_rng(width * 301 + height).integers(0, 255, (height, width, 3), np.uint8)
    ok, encoded = cv2.imencode(extension, image[:, :, 0] if extension == ".pgm" else image)
    assert ok
    assert declared_size(encoded.tobytes()) == (width, height)
    assert decode_image(encoded.tobytes()).shape == (height, width, 3)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.sampled_from([b"", b"\x89PNG\r\n\x1a\n", b"\xff\xd8", b"BM",
                                                 b"RIFF\x00\x00\x00\x00WEBP", b"P6", b"II*\x00",
                                                 b"MM\x00*", b"GIF89a", b"GIF87a"]))
def test_any_bytes_give_a_size_or_none_never_another_error(tail, magic):
    size = declared_size(magic + tail)
    assert size is None or (isinstance(size[0], int) and isinstance(size[1], int))
    try:
        image = decode_image(magic + tail)
    except VisionError as error:  # the only error bad bytes may raise, and it names the input
        assert str(error).startswith("image: ")
    else:
        assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
