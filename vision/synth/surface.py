"""Table surfaces (felt, wood, plain cloth) and what the lamp and the camera do to a frame."""

from __future__ import annotations

import functools

import cv2
import numpy as np

from vision.synth.style import Style


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cell: float) -> np.ndarray:
    """Zero-mean noise with features about `cell` pixels wide, roughly unit amplitude."""
    h, w = shape
    small = rng.standard_normal((max(2, int(h / cell) + 2), max(2, int(w / cell) + 2))).astype(np.float32)
    big = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    return big / max(1e-6, float(big.std()))


def table_surface(style: Style, shape: tuple[int, int], ppm: float, rng: np.random.Generator) -> np.ndarray:
    """The bare table as an (H, W, 3) float32 BGR image at `ppm` pixels per millimetre."""
    h, w = shape
    base = np.asarray(style.table_colour, np.float32)
    if style.table.startswith("felt"):
        grain = rng.standard_normal((h, w)).astype(np.float32)
        fine = np.asarray(cv2.GaussianBlur(grain, (0, 0), 0.6), np.float32)
        fine /= max(1e-6, float(fine.std()))
        mottle = _smooth_noise(rng, shape, 40 * ppm)
        tone = 1.0 + 0.07 * fine + 0.05 * mottle
    elif style.table == "wood":
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        warp = _smooth_noise(rng, shape, 60 * ppm) * 6 * ppm
        plank = 140 * ppm
        plank_id = np.floor((yy + 0.5 * warp) / plank)
        plank_tint = 1.0 + 0.08 * np.sin(plank_id * 2.3 + rng.uniform(0, 6))
        grain = np.sin((yy + warp) / (1.3 * ppm) + 0.02 * xx / ppm * rng.uniform(0.2, 1.0))
        fine = _smooth_noise(rng, shape, 0.8 * ppm)
        tone = plank_tint * (1.0 + 0.10 * grain + 0.04 * fine)
        seams = np.abs(((yy + 0.5 * warp) % plank) - plank / 2) > plank / 2 - 0.7 * ppm
        tone = np.where(seams, tone * 0.7, tone)
    else:
        tone = 1.0 + 0.03 * _smooth_noise(rng, shape, 80 * ppm) + 0.015 * _smooth_noise(rng, shape, 1.5 * ppm)
    return np.clip(base[None, None, :] * tone[..., None], 0, 1).astype(np.float32)


def light_field(
    style: Style, shape: tuple[int, int], rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """(gain, glare) images: uneven light and vignetting multiply, the lamp's glare adds."""
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xn, yn = (xx - w / 2) / (w / 2), (yy - h / 2) / (h / 2)
    angle = rng.uniform(0, 2 * np.pi)
    gain = 1.0 + style.light_gradient * 0.5 * (np.cos(angle) * xn + np.sin(angle) * yn)
    gain *= 1.0 - style.vignetting * 0.5 * (xn**2 + yn**2)
    cx, cy = rng.uniform(0.15, 0.85) * w, rng.uniform(0.15, 0.85) * h
    sigma = rng.uniform(0.06, 0.18) * w
    glare = style.glare * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma**2))
    return gain.astype(np.float32), glare.astype(np.float32)


@functools.lru_cache(maxsize=4)
def _noise_bank(shape: tuple[int, ...]) -> np.ndarray:
    """Unit Gaussian noise twice the frame's size each way, drawn once: each frame takes its own
    window of it at a random offset, so sensor noise differs from frame to frame at the cost of a
    slice instead of millions of fresh draws."""
    h, w = shape[:2]
    rng = np.random.default_rng(h * 100_003 + w)
    bank = rng.standard_normal((2 * h, 2 * w, *shape[2:]), dtype=np.float32)
    bank.flags.writeable = False  # shared by every frame of this size
    return bank


def camera_effects(image: np.ndarray, style: Style, rng: np.random.Generator) -> np.ndarray:
    """Blur, sensor noise and JPEG compression: float 0..1 in, uint8 BGR out."""
    out = image
    if style.blur > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), style.blur)
    h, w = out.shape[:2]
    dy, dx = int(rng.integers(h)), int(rng.integers(w))
    noise = out * 255.0
    noise += _noise_bank(out.shape)[dy:dy + h, dx:dx + w] * np.float32(style.noise)
    frame = np.clip(noise, 0, 255).astype(np.uint8)
    if style.jpeg_quality > 0:
        ok, encoded = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(style.jpeg_quality)])
        decoded = cv2.imdecode(encoded, cv2.IMREAD_COLOR) if ok else None
        if decoded is not None:
            frame = np.asarray(decoded, np.uint8)
    return frame
