"""Poor cameras and hard light for the widened renderer.

`Webcam` is a cheap, low-resolution, low-contrast camera: a flat tone curve and a colour cast,
soft optics, a sensor of fewer pixels than the frame (its image scaled back up, as a streaming
tool or a viewer would), heavy noise made at the sensor's own resolution, oversharpening,
subsampled chroma and strong JPEG. `hard_shadow` is the sharp-edged shadow of something between
the lamp and the table (a lamp's arm, a shelf, a person), falling across part of the table.

The degradations are bounded so that none of them alone makes a tile unreadable: the sensor is
never so small that a tile shrinks below `MIN_SENSOR_TILE_PX` (more for sets with more pips), and
the tone curve keeps at least `MIN_CONTRAST` of the range between black and white. Together with
the widened renderer's glare on shrink-wrap they can still wipe pips out (a burnt-out exposure
under the sheen, grain over pale pips): `vision.synth.legibility` measures what each frame shows.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# Shortest tile, in sensor pixels, a webcam may film, per set (double-six, -nine, -twelve): the
# pips of a half are about a tenth of a tile long (less on larger sets), so below this they blur
# into one another at the sensor's resolution.
MIN_SENSOR_TILE_PX = {6: 48.0, 9: 60.0, 12: 72.0}
MIN_CONTRAST = 0.45  # the tone curve's white level minus its black level, in 0..1
DARKEST_SHADOW = 0.35  # a hard shadow keeps at least this share of the light


@dataclass(frozen=True)
class Webcam:
    """One poor camera. `scale` is the sensor's size as a share of the frame's (1 = full size)."""

    scale: float = 0.5
    black: float = 0.1  # the tone curve's output for black, 0..1
    white: float = 0.75  # and for white
    gamma: float = 1.0
    exposure: float = 1.0  # > 1 burns the highlights out
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0)  # BGR gains: a white balance gone wrong
    blur: float = 1.0  # optics, Gaussian sigma in sensor pixels
    noise: float = 8.0  # luma noise sigma in 0..255 levels, at the sensor
    chroma_noise: float = 4.0  # colour noise sigma, blotchy (blurred) as a sensor's is
    sharpen: float = 0.0  # unsharp-mask amount: the halos of a webcam's oversharpening
    chroma_step: int = 2  # chroma kept once per this many pixels each way (2 = 4:2:0)
    jpeg_quality: int = 35

    @property
    def name(self) -> str:
        return "webcam-low-res" if self.scale < 0.6 else "webcam"


def random_webcam(rng: np.random.Generator, tile_px: float, max_pip: int) -> Webcam:
    """A poor camera for a frame whose tiles are `tile_px` long at full size."""
    shortest = MIN_SENSOR_TILE_PX.get(max_pip, MIN_SENSOR_TILE_PX[12])
    floor = min(1.0, shortest / max(tile_px, 1.0))
    scale = float(np.clip(rng.uniform(0.3, 1.0), floor, 1.0))
    black = float(rng.uniform(0.0, 0.22))
    white = float(rng.uniform(black + MIN_CONTRAST, min(1.0, black + 0.95)))
    cast = tuple(float(g) for g in 1.0 + rng.uniform(-0.12, 0.12, 3))
    return Webcam(
        scale=scale,
        black=black,
        white=white,
        gamma=float(rng.uniform(0.7, 1.4)),
        exposure=float(rng.uniform(0.8, 1.35)),
        cast=(cast[0], cast[1], cast[2]),
        blur=float(rng.uniform(0.3, 1.3)),
        noise=float(rng.uniform(3.0, 12.0)),
        chroma_noise=float(rng.uniform(1.0, 7.0)),
        sharpen=float(rng.choice([0.0, rng.uniform(0.3, 1.2)])),
        chroma_step=int(rng.choice([1, 2, 2, 4])),
        jpeg_quality=int(rng.integers(18, 60)),
    )


def film(image: np.ndarray, cam: Webcam, rng: np.random.Generator) -> np.ndarray:
    """Film a lit float frame (H, W, 3), 0..1.2, through `cam`: uint8 BGR (H, W, 3) out."""
    h, w = image.shape[:2]
    sensor = (max(16, round(w * cam.scale)), max(16, round(h * cam.scale)))
    out = np.asarray(image, np.float32) * np.float32(cam.exposure) * np.asarray(cam.cast, np.float32)
    if sensor != (w, h):
        out = np.asarray(cv2.resize(out, sensor, interpolation=cv2.INTER_AREA), np.float32)
    if cam.blur > 0.05:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), cam.blur), np.float32)
    out = np.clip(out, 0, 1) ** np.float32(cam.gamma)
    out = cam.black + (cam.white - cam.black) * out
    sh, sw = out.shape[:2]
    luma = rng.standard_normal((sh, sw, 1), dtype=np.float32) * np.float32(cam.noise / 255.0)
    small = (max(2, sw // 3), max(2, sh // 3))
    chroma = cv2.resize(rng.standard_normal((small[1], small[0], 3), dtype=np.float32), (sw, sh))
    out = out + luma + chroma * np.float32(cam.chroma_noise / 255.0)
    if cam.sharpen > 0:
        soft = cv2.GaussianBlur(out, (0, 0), 1.5)
        out = out + np.float32(cam.sharpen) * (out - soft)
    frame = np.clip(out * 255.0 + 0.5, 0, 255).astype(np.uint8)
    if cam.chroma_step > 1:
        ycc = cv2.cvtColor(frame, cv2.COLOR_BGR2YCrCb)
        low = (max(1, sw // cam.chroma_step), max(1, sh // cam.chroma_step))
        chroma_planes = cv2.resize(cv2.resize(ycc[..., 1:], low, interpolation=cv2.INTER_AREA), (sw, sh))
        ycc[..., 1:] = chroma_planes
        frame = cv2.cvtColor(ycc, cv2.COLOR_YCrCb2BGR)
    ok, encoded = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(cam.jpeg_quality)])
    decoded = cv2.imdecode(encoded, cv2.IMREAD_COLOR) if ok else None
    if decoded is not None:
        frame = np.asarray(decoded, np.uint8)
    if frame.shape[:2] != (h, w):
        frame = np.asarray(cv2.resize(frame, (w, h), interpolation=cv2.INTER_LINEAR), np.uint8)
    result: np.ndarray = frame
    return result


def hard_shadow(shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """An (H, W) float32 light gain: 1 in the light, less beyond one sharp edge (or inside a band
    between two), the edge a few pixels soft as a lamp's penumbra is."""
    h, w = shape
    angle = rng.uniform(0, np.pi)
    nx, ny = np.float32(np.cos(angle)), np.float32(np.sin(angle))
    x = np.arange(w, dtype=np.float32)[None, :] - np.float32(rng.uniform(0.2, 0.8) * w)
    y = np.arange(h, dtype=np.float32)[:, None] - np.float32(rng.uniform(0.2, 0.8) * h)
    d = x * nx + y * ny  # signed distance from the edge, in pixels
    penumbra = np.float32(rng.uniform(1.0, 6.0))
    if rng.random() < 0.4:  # a band: the shadow of an arm or a rod
        half = np.float32(rng.uniform(0.04, 0.15) * min(h, w))
        inside = 1 / (1 + np.exp(np.clip((np.abs(d) - half) / penumbra, -50, 50)))
    else:
        inside = 1 / (1 + np.exp(np.clip(-d / penumbra, -50, 50)))
    depth = np.float32(rng.uniform(0.25, 1 - DARKEST_SHADOW))
    return np.asarray(1 - depth * inside, np.float32)
