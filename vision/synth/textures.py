"""Textured and patterned table tops for the widened renderer: leather, knitted and patterned
cloth (gingham, plaid, floral prints), wooden planks with seams and knots, office desks and
cutting mats.

Each surface is an (H, W, 3) float32 BGR image in 0..1 at `ppm` canvas pixels per millimetre,
drawn from `rng` alone. Sizes are real ones in millimetres (a gingham check, a knit stitch, a
plank), so a pattern shrinks with the table as the camera moves away. `SURFACES` names them.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from vision.synth.style import Colour

Surface = Callable[[tuple[int, int], float, np.random.Generator], np.ndarray]


def smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cell: float) -> np.ndarray:
    """Zero-mean noise with features about `cell` pixels wide, unit standard deviation."""
    h, w = shape
    small = rng.standard_normal((max(2, int(h / cell) + 2), max(2, int(w / cell) + 2))).astype(np.float32)
    big = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    return np.asarray(big / max(1e-6, float(big.std())), np.float32)


def _grid_mm(shape: tuple[int, int], ppm: float) -> tuple[np.ndarray, np.ndarray]:
    """Millimetre coordinates of every pixel: (row vector of x, column vector of y)."""
    h, w = shape
    return (np.arange(w, dtype=np.float32) / ppm)[None, :], (np.arange(h, dtype=np.float32) / ppm)[:, None]


def _colour(rng: np.random.Generator, choices: tuple[Colour, ...], jitter: float = 0.05) -> np.ndarray:
    base = np.asarray(choices[int(rng.integers(len(choices)))], np.float32)
    return np.clip(base + rng.uniform(-jitter, jitter, 3).astype(np.float32), 0.0, 1.0)


def _tone(base: np.ndarray, tone: np.ndarray) -> np.ndarray:
    return np.asarray(np.clip(base[None, None, :] * tone[..., None], 0, 1), np.float32)


def _soft_square(phase: np.ndarray, edge: float) -> np.ndarray:
    """0/1 stripes from a phase in cycles, with edges `edge` cycles wide (printed, not aliased)."""
    return np.clip(0.5 + np.sin(2 * np.pi * phase) / (2 * np.pi * max(edge, 1e-3)), 0, 1).astype(np.float32)


# -- cloth and leather ---------------------------------------------------------------------------

LEATHERS: tuple[Colour, ...] = (
    (0.10, 0.20, 0.35),
    (0.06, 0.06, 0.07),
    (0.25, 0.45, 0.65),
    (0.10, 0.08, 0.30),
    (0.20, 0.28, 0.22),
)


def leather(shape: tuple[int, int], ppm: float, rng: np.random.Generator) -> np.ndarray:
    """Pebbled leather: a network of fine creases between grains, mottled, a soft sheen."""
    grain = smooth_noise(rng, shape, max(1.5, 1.3 * ppm))
    creases = np.exp(-((grain / 0.35) ** 2))  # the zero crossings of the grain: a crease network
    fine = smooth_noise(rng, shape, max(1.2, 0.5 * ppm))
    mottle = smooth_noise(rng, shape, 60 * ppm)
    tone = 1.0 - 0.18 * creases + 0.05 * fine + 0.08 * mottle + 0.04 * grain
    return _tone(_colour(rng, LEATHERS), tone)


KNITS: tuple[Colour, ...] = (
    (0.20, 0.20, 0.60),
    (0.55, 0.55, 0.55),
    (0.35, 0.55, 0.70),
    (0.45, 0.30, 0.15),
    (0.25, 0.45, 0.25),
    (0.70, 0.75, 0.80),
    (0.15, 0.12, 0.12),
)


def knit(shape: tuple[int, int], ppm: float, rng: np.random.Generator) -> np.ndarray:
    """Stocking-stitch knit: columns of V-shaped loops, the fabric draped a little, often with
    bands of a second yarn colour."""
    x, y = _grid_mm(shape, ppm)
    stitch_w, stitch_h = float(rng.uniform(3.0, 6.0)), 0.0
    stitch_h = stitch_w * float(rng.uniform(0.7, 0.9))
    drape = smooth_noise(rng, shape, 50 * ppm) * 1.5
    u = (x + drape) / stitch_w
    v = (y + 0.7 * drape) / stitch_h
    lx = u - np.floor(u) - 0.5  # across the column, -0.5..0.5
    ly = v - np.floor(v)  # down the loop, 0..1
    leg = np.abs(np.abs(lx) - 0.24 + 0.28 * (ly - 0.5))  # two legs leaning into a V
    loop = np.exp(-((leg / 0.13) ** 2)) * (0.6 + 0.4 * np.sin(np.pi * ly))
    fibre = smooth_noise(rng, shape, max(1.2, 0.4 * ppm))
    tone = 0.62 + 0.45 * loop + 0.05 * fibre
    base = _colour(rng, KNITS)
    image = _tone(base, tone)
    if rng.random() < 0.5:  # bands of a second yarn
        second = _colour(rng, KNITS)
        band = float(rng.uniform(4, 12)) * stitch_h
        mask = _soft_square(v * stitch_h / band, 0.01)[..., None] * np.ones((1, shape[1], 1), np.float32)
        image = image * (1 - mask) + _tone(second, tone) * mask
    return np.asarray(image, np.float32)


CLOTH_COLOURS: tuple[Colour, ...] = (
    (0.15, 0.15, 0.75),
    (0.55, 0.25, 0.10),
    (0.20, 0.50, 0.15),
    (0.10, 0.10, 0.10),
    (0.55, 0.30, 0.50),
    (0.10, 0.45, 0.80),
)


def _weave(shape: tuple[int, int], ppm: float, rng: np.random.Generator) -> np.ndarray:
    """The fine texture of woven cotton, around 1."""
    return (
        1.0 + 0.04 * smooth_noise(rng, shape, max(1.2, 0.6 * ppm)) + 0.03 * smooth_noise(rng, shape, 30 * ppm)
    )


def gingham(shape: tuple[int, int], ppm: float, rng: np.random.Generator) -> np.ndarray:
    """Gingham: white and one colour in even checks; where both stripes cross, the full colour."""
    x, y = _grid_mm(shape, ppm)
    check = float(rng.uniform(5.0, 25.0))
    drape = smooth_noise(rng, shape, 80 * ppm) * 0.8
    edge = 0.6 / (check * ppm)
    across = _soft_square((x + drape) / (2 * check), edge)
    down = _soft_square((y - drape) / (2 * check), edge)
    share = 0.5 * (across + down)  # 0 white, 0.5 tinted, 1 full colour
    colour = _colour(rng, CLOTH_COLOURS)
    white = np.array([0.93, 0.94, 0.94], np.float32)
    image = white + share[..., None] * (colour - white)
    return np.asarray(np.clip(image * _weave(shape, ppm, rng)[..., None], 0, 1), np.float32)


def plaid(shape: tuple[int, int], ppm: float, rng: np.random.Generator) -> np.ndarray:
    """Tartan: a sett of coloured stripes of several widths, the same across and down, the two
    threads mixed as a twill weave mixes them."""
    h, w = shape
    colours = [
        _colour(rng, (*CLOTH_COLOURS, (0.85, 0.85, 0.85), (0.10, 0.60, 0.75)), 0.08)
        for _ in range(int(rng.integers(3, 6)))
    ]
    widths = rng.uniform(2.0, 20.0, len(colours))
    sett = np.concatenate([np.full(max(1, round(wd * ppm)), i) for i, wd in enumerate(widths)])
    sett = np.concatenate([sett, sett[::-1]])  # tartans mirror their sett
    palette = np.asarray(colours, np.float32)
    offset = int(rng.integers(len(sett)))
    cols = palette[sett[(np.arange(w) + offset) % len(sett)]]  # (W, 3)
    rows = palette[sett[(np.arange(h) + offset) % len(sett)]]  # (H, 3)
    image = 0.5 * (cols[None, :, :] + rows[:, None, :])
    image = cv2.GaussianBlur(image.astype(np.float32), (0, 0), max(0.5, 0.3 * ppm))
    return np.asarray(np.clip(image * _weave(shape, ppm, rng)[..., None], 0, 1), np.float32)


def floral(shape: tuple[int, int], ppm: float, rng: np.random.Generator) -> np.ndarray:
    """A printed floral cloth: a repeating block of flowers and leaves on a ground colour."""
    ground = _colour(
        rng,
        ((0.85, 0.90, 0.93), (0.55, 0.20, 0.10), (0.20, 0.20, 0.20), (0.60, 0.75, 0.85), (0.35, 0.55, 0.35)),
        0.06,
    )
    block_mm = float(rng.uniform(120, 220))
    size = max(8, round(block_mm * ppm))
    motif = np.empty((size, size, 3), np.uint8)
    motif[:] = np.round(ground * 255).astype(np.uint8)
    petals = [
        (0.2, 0.2, 0.85),
        (0.6, 0.4, 0.9),
        (0.7, 0.5, 0.2),
        (0.2, 0.7, 0.95),
        (0.85, 0.85, 0.9),
        (0.45, 0.15, 0.6),
    ]
    scale = size / block_mm
    flowers: list[tuple[float, float, float, int, float, int, float]] = []
    for _ in range(int(rng.integers(10, 30))):
        cx, cy = rng.uniform(0, size, 2)
        radius = float(rng.uniform(4, 16)) * scale
        look = (
            int(rng.integers(len(petals))),
            float(rng.uniform(0, 360)),
            int(rng.integers(4, 7)),
            float(rng.uniform(0, 360)),
        )
        # A flower across the block's edge is drawn again on the far side, so the print repeats
        # without seams.
        reach = size / 2 + 3 * radius
        flowers.extend(
            (cx + dx, cy + dy, radius, *look)
            for dx in (-size, 0, size)
            for dy in (-size, 0, size)
            if abs(cx + dx - size / 2) < reach and abs(cy + dy - size / 2) < reach
        )
    for cx, cy, radius, petal_index, leaf_angle, n, start in flowers:
        petal = np.round(np.asarray(petals[int(petal_index)]) * 255)
        for k in range(2):
            centre = (
                cx + np.cos(np.radians(leaf_angle + 180 * k)) * radius * 1.6,
                cy + np.sin(np.radians(leaf_angle + 180 * k)) * radius * 1.6,
            )
            _ellipse(motif, centre, (radius * 0.9, radius * 0.35), leaf_angle + 180 * k, (40, 110, 45))
        for k in range(int(n)):
            angle = start + 360 * k / n
            centre = (
                cx + np.cos(np.radians(angle)) * radius * 0.55,
                cy + np.sin(np.radians(angle)) * radius * 0.55,
            )
            _ellipse(motif, centre, (radius * 0.55, radius * 0.3), angle, tuple(float(c) for c in petal))
        _ellipse(motif, (cx, cy), (radius * 0.25, radius * 0.25), 0, (30, 170, 220))
    h, w = shape
    tiled = np.tile(motif, (h // size + 1, w // size + 1, 1))[:h, :w]
    image = cv2.GaussianBlur(tiled.astype(np.float32) / 255.0, (0, 0), max(0.5, 0.25 * ppm))
    return np.asarray(np.clip(image * _weave(shape, ppm, rng)[..., None], 0, 1), np.float32)


def _ellipse(
    image: np.ndarray,
    centre: tuple[float, float],
    axes: tuple[float, float],
    angle: float,
    colour: tuple[float, ...],
) -> None:
    cv2.ellipse(
        image,
        (round(centre[0] * 16), round(centre[1] * 16)),
        (max(1, round(axes[0] * 16)), max(1, round(axes[1] * 16))),
        angle,
        0,
        360,
        colour,
        -1,
        cv2.LINE_AA,
        4,
    )


# -- wood, desks and mats --------------------------------------------------------------------------

WOODS: tuple[Colour, ...] = (
    (0.20, 0.36, 0.55),
    (0.35, 0.55, 0.72),
    (0.12, 0.20, 0.32),
    (0.45, 0.62, 0.75),
    (0.10, 0.15, 0.25),
)


def planks(shape: tuple[int, int], ppm: float, rng: np.random.Generator) -> np.ndarray:
    """A plank floor or table top at any angle: boards of their own shade and grain, dark seams
    between them and butt joints where one board ends and the next begins, a few knots."""
    x, y = _grid_mm(shape, ppm)
    angle = float(rng.choice([0.0, 90.0, rng.uniform(0, 180)]))
    c, s = np.float32(np.cos(np.radians(angle))), np.float32(np.sin(np.radians(angle)))
    u = x * c + y * s  # along the boards
    v = -x * s + y * c  # across them
    width = float(rng.uniform(70, 200))
    length = float(rng.uniform(600, 1800))
    warp = smooth_noise(rng, shape, 60 * ppm) * 3.0
    board = np.floor(v / width)
    ids = board.astype(np.int64) % 64
    shade = (1.0 + rng.uniform(-0.14, 0.14, 64)).astype(np.float32)[ids]
    phase = rng.uniform(0, length, 64).astype(np.float32)[ids]
    # Grain: irregular streaks along the boards, a random profile across them read at a position
    # that wanders slowly along each board (and differs from board to board).
    step = float(rng.uniform(0.4, 1.2))  # mm per sample of the profile
    profile = np.cumsum(rng.standard_normal(4096)).astype(np.float32)
    profile = np.asarray(cv2.GaussianBlur(profile[None, :] - profile.mean(), (0, 0), 1.5)[0], np.float32)
    profile = np.sin(profile * float(rng.uniform(0.3, 0.8)))
    wander = 6.0 * np.sin(u / float(rng.uniform(80, 300)) + board) + warp + phase * 0.37
    grain = profile[((v + wander) / step).astype(np.int64) % len(profile)]
    fine = smooth_noise(rng, shape, max(1.2, 0.8 * ppm))
    tone = shade * (1.0 + 0.09 * grain + 0.04 * fine)
    seam_px = float(rng.uniform(0.5, 2.0))
    across = np.abs(v - (board + 0.5) * width)  # distance from the board's middle
    seam = np.clip((across - (width / 2 - seam_px)) / max(seam_px, 0.3), 0, 1)
    along = np.abs(((u + phase) % length) - length / 2)
    joint = np.clip((along - (length / 2 - seam_px)) / max(seam_px, 0.3), 0, 1)
    tone = tone * (1.0 - 0.45 * np.maximum(seam, joint))
    tone = np.asarray(tone, np.float32)
    for _ in range(int(rng.integers(0, 5))):  # knots: dark rings, drawn only where they reach
        kx, ky = rng.uniform(0, shape[1]), rng.uniform(0, shape[0])
        r = float(rng.uniform(4, 14)) * ppm
        x0, x1 = max(0, int(kx - 5 * r)), min(shape[1], int(kx + 5 * r) + 1)
        y0, y1 = max(0, int(ky - 3 * r)), min(shape[0], int(ky + 3 * r) + 1)
        if x1 <= x0 or y1 <= y0:
            continue
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        d = np.sqrt(((xx - kx) / 1.8) ** 2 + (yy - ky) ** 2)
        tone[y0:y1, x0:x1] *= 1.0 - 0.35 * np.exp(-((d / r) ** 2)) * (0.6 + 0.4 * np.sin(d / ppm * 2.5))
    return _tone(_colour(rng, WOODS), tone)


DESKS: tuple[Colour, ...] = (
    (0.80, 0.82, 0.82),
    (0.55, 0.57, 0.58),
    (0.55, 0.70, 0.78),
    (0.30, 0.30, 0.32),
    (0.30, 0.48, 0.65),
)


def desk(shape: tuple[int, int], ppm: float, rng: np.random.Generator) -> np.ndarray:
    """An office desk: laminate with a faint print and the wear of use, lit unevenly."""
    fine = smooth_noise(rng, shape, max(1.2, 0.7 * ppm))
    blotch = smooth_noise(rng, shape, 25 * ppm)
    broad = smooth_noise(rng, shape, 200 * ppm)
    tone = 1.0 + 0.025 * fine + 0.02 * blotch + 0.04 * broad
    return _tone(_colour(rng, DESKS), tone)


def cutting_mat(shape: tuple[int, int], ppm: float, rng: np.random.Generator) -> np.ndarray:
    """A self-healing cutting mat: green or grey, a millimetre grid of thin lines and thicker ones
    every 10 mm: straight dark lines at tile-like spacing, which the reader must not take for
    dividers."""
    x, y = _grid_mm(shape, ppm)
    base = _colour(rng, ((0.35, 0.50, 0.20), (0.40, 0.40, 0.40), (0.55, 0.35, 0.15)), 0.04)
    ink = np.array([0.92, 0.94, 0.92] if rng.random() < 0.7 else [0.1, 0.1, 0.1], np.float32)
    ox, oy = rng.uniform(0, 10, 2)
    line = np.zeros(shape, np.float32)
    for spacing, half_width, weight in ((10.0, 0.35, 0.75), (50.0, 0.6, 0.9)):
        dx = np.abs(((x + ox) % spacing) - spacing / 2) - (spacing / 2 - half_width)
        dy = np.abs(((y + oy) % spacing) - spacing / 2) - (spacing / 2 - half_width)
        lx = np.clip(0.5 + dx * ppm, 0, 1)
        ly = np.clip(0.5 + dy * ppm, 0, 1)
        line = np.maximum(line, weight * np.maximum(lx, ly))
    texture = 1.0 + 0.03 * smooth_noise(rng, shape, max(1.2, 0.7 * ppm))
    image = base[None, None, :] * texture[..., None]
    image = image * (1 - line[..., None]) + ink * line[..., None]
    return np.clip(image, 0, 1).astype(np.float32)


SURFACES: dict[str, Surface] = {
    "leather": leather,
    "knit": knit,
    "gingham": gingham,
    "plaid": plaid,
    "floral": floral,
    "planks": planks,
    "desk": desk,
    "cutting_mat": cutting_mat,
}
