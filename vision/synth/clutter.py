"""Things on a table that are not tiles: playing cards, paper with text or a score sheet, coins,
cups seen from above, pens, dice, erasers in their sleeves and phones.

Several are deliberately tile-like (a card or an eraser is a light rectangle, a phone a dark one
of about a tile's aspect, a die shows a tile-half's pips): negatives a reader must learn to
reject. Each object is drawn once, seen from straight above in its own millimetre frame, as an
`Item` (colour, alpha, height), then laid on a canvas at a pose with a soft drop shadow like a
tile's. `FLAT` items (cards, paper) lie flat and tiles may rest on them; the others stand up and
never touch a tile, so every tile keeps its exact label.
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.pips import pip_positions
from vision.synth.style import Colour

SUPERSAMPLE = 2  # items are drawn this much finer than the canvas, then shrunk (anti-aliased)
_SHIFT = 4  # fixed-point bits of sub-pixel OpenCV drawing


@dataclass(frozen=True)
class Item:
    """An object seen from above: `colour` (H, W, 3) float32 BGR, `alpha` (H, W) float32, drawn at
    `ppm` pixels per millimetre with its centre in the middle; `height_mm` sets its shadow."""

    kind: str
    colour: np.ndarray
    alpha: np.ndarray
    ppm: float
    height_mm: float

    @property
    def size_mm(self) -> tuple[float, float]:
        h, w = self.alpha.shape
        return w / self.ppm, h / self.ppm


class _Pad:
    """A drawing pad in millimetres: fills shapes into a colour image and an alpha mask."""

    def __init__(self, width_mm: float, height_mm: float, ppm: float, supersample: int = SUPERSAMPLE) -> None:
        self.supersample = supersample
        self.ppm = ppm * supersample
        self.shape = (max(2, round(height_mm * self.ppm)), max(2, round(width_mm * self.ppm)))
        self.colour = np.zeros((*self.shape, 3), np.float32)
        self.alpha = np.zeros(self.shape, np.float32)

    def _p(self, x: float, y: float) -> tuple[int, int]:
        return round(x * self.ppm * (1 << _SHIFT)), round(y * self.ppm * (1 << _SHIFT))

    def _paint(
        self, mask: np.ndarray, colour: Colour | np.ndarray, weight: float = 1.0, body: bool = True
    ) -> None:
        a = (mask.astype(np.float32) / 255.0 * weight)[..., None]
        self.colour *= 1 - a
        self.colour += a * np.asarray(colour, np.float32)
        if body:
            self.alpha = np.maximum(self.alpha, a[..., 0])

    def mask(self) -> np.ndarray:
        return np.zeros(self.shape, np.uint8)

    def rounded_rect(
        self,
        x0: float,
        y0: float,
        x1: float,
        y1: float,
        r: float,
        colour: Colour,
        weight: float = 1.0,
        body: bool = True,
    ) -> None:
        m = self.mask()
        r = max(r, 0.01)
        for a, b in (((x0 + r, y0), (x1 - r, y1)), ((x0, y0 + r), (x1, y1 - r))):
            cv2.rectangle(m, self._p(*a), self._p(*b), 255, -1, cv2.LINE_AA, _SHIFT)
        for cx, cy in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x0 + r, y1 - r), (x1 - r, y1 - r)):
            cv2.circle(m, self._p(cx, cy), round(r * self.ppm * (1 << _SHIFT)), 255, -1, cv2.LINE_AA, _SHIFT)
        self._paint(m, colour, weight, body)

    def circle(
        self,
        cx: float,
        cy: float,
        r: float,
        colour: Colour,
        weight: float = 1.0,
        body: bool = True,
        thickness: float = 0.0,
    ) -> None:
        m = self.mask()
        t = -1 if thickness <= 0 else max(1, round(thickness * self.ppm))
        cv2.circle(m, self._p(cx, cy), round(r * self.ppm * (1 << _SHIFT)), 255, t, cv2.LINE_AA, _SHIFT)
        self._paint(m, colour, weight, body)

    def poly(
        self, points: list[tuple[float, float]], colour: Colour, weight: float = 1.0, body: bool = False
    ) -> None:
        m = self.mask()
        pts = np.array([self._p(x, y) for x, y in points], np.int32)
        cv2.fillPoly(m, [pts], 255, cv2.LINE_AA, _SHIFT)
        self._paint(m, colour, weight, body)

    def line(self, p: tuple[float, float], q: tuple[float, float], width: float, into: np.ndarray) -> None:
        """A line into the mask `into` (painted later, with the others, by `ink`)."""
        cv2.line(into, self._p(*p), self._p(*q), 255, max(1, round(width * self.ppm)), cv2.LINE_AA, _SHIFT)

    def ink(self, mask: np.ndarray, colour: Colour, weight: float = 1.0) -> None:
        self._paint(mask, colour, weight, body=False)

    def text(
        self,
        text: str,
        x: float,
        y: float,
        height_mm: float,
        into: np.ndarray,
        thickness_mm: float = 0.3,
        font: int = cv2.FONT_HERSHEY_SIMPLEX,
    ) -> None:
        """Text into the mask `into`, its baseline starting at (x, y) mm."""
        scale = height_mm * self.ppm / 22.0  # Hershey simplex capitals are ~22 px tall at scale 1
        cv2.putText(
            into,
            text,
            (round(x * self.ppm), round(y * self.ppm)),
            font,
            scale,
            255,
            max(1, round(thickness_mm * self.ppm)),
            cv2.LINE_AA,
        )

    def shade(self, factor: np.ndarray) -> None:
        self.colour *= factor[..., None]

    def item(self, kind: str, ppm: float, height_mm: float) -> Item:
        h, w = self.shape
        size = (max(1, round(w / self.supersample)), max(1, round(h / self.supersample)))
        premult = cv2.resize(self.colour * self.alpha[..., None], size, interpolation=cv2.INTER_AREA)
        alpha = cv2.resize(self.alpha, size, interpolation=cv2.INTER_AREA)
        colour = np.clip(premult / np.maximum(alpha, 1e-3)[..., None], 0, 1).astype(np.float32)
        return Item(kind, colour, alpha.astype(np.float32), ppm, height_mm)

    def radial(self, cx: float, cy: float) -> np.ndarray:
        """Distance in mm of every pad pixel from (cx, cy)."""
        yy, xx = np.mgrid[0 : self.shape[0], 0 : self.shape[1]].astype(np.float32) / self.ppm
        return np.asarray(np.hypot(xx - cx, yy - cy), np.float32)


def _pick(rng: np.random.Generator, colours: tuple[Colour, ...], jitter: float = 0.04) -> Colour:
    c = np.clip(np.asarray(colours[int(rng.integers(len(colours)))]) + rng.uniform(-jitter, jitter, 3), 0, 1)
    return (float(c[0]), float(c[1]), float(c[2]))


RED, INK_BLACK = (0.12, 0.10, 0.78), (0.08, 0.08, 0.08)


def _suit(pad: _Pad, suit: str, cx: float, cy: float, size: float, colour: Colour) -> None:
    s = size / 2
    if suit in ("heart", "spade"):
        flip = 1.0 if suit == "heart" else -1.0
        pad.circle(cx - 0.5 * s, cy - 0.25 * s * flip, 0.55 * s, colour, body=False)
        pad.circle(cx + 0.5 * s, cy - 0.25 * s * flip, 0.55 * s, colour, body=False)
        pad.poly(
            [
                (cx - 1.02 * s, cy - 0.05 * s * flip),
                (cx + 1.02 * s, cy - 0.05 * s * flip),
                (cx, cy + 1.0 * s * flip),
            ],
            colour,
        )
        if suit == "spade":
            pad.poly([(cx, cy + 0.2 * s), (cx - 0.35 * s, cy + s), (cx + 0.35 * s, cy + s)], colour)
    elif suit == "diamond":
        pad.poly([(cx, cy - s), (cx + 0.7 * s, cy), (cx, cy + s), (cx - 0.7 * s, cy)], colour)
    else:  # club
        for dx, dy in ((0.0, -0.45), (-0.5, 0.2), (0.5, 0.2)):
            pad.circle(cx + dx * s, cy + dy * s, 0.45 * s, colour, body=False)
        pad.poly([(cx, cy), (cx - 0.35 * s, cy + s), (cx + 0.35 * s, cy + s)], colour)


def card(rng: np.random.Generator, ppm: float) -> Item:
    """A playing card, face up (rank, suit and the suit's pips) or face down (a patterned back)."""
    w, h = 63.0, 88.0
    pad = _Pad(w, h, ppm)
    pad.rounded_rect(0, 0, w, h, 3.0, _pick(rng, ((0.95, 0.96, 0.96), (0.88, 0.93, 0.95)), 0.02))
    if rng.random() < 0.3:
        back = _pick(rng, (RED, (0.55, 0.25, 0.10), (0.15, 0.35, 0.15)), 0.05)
        pad.rounded_rect(4, 4, w - 4, h - 4, 2.0, back, body=False)
        lines = pad.mask()
        for k in range(-28, 24):
            pad.line((4 + k * 3.0, 4), (4 + k * 3.0 + 80, 84), 0.5, lines)
            pad.line((4 + k * 3.0, 84), (4 + k * 3.0 + 80, 4), 0.5, lines)
        pad.ink(lines, (0.9, 0.9, 0.9), 0.6)
        pad.rounded_rect(0, 0, 4, h, 0.01, (0.95, 0.96, 0.96), body=False)
        pad.rounded_rect(w - 4, 0, w, h, 0.01, (0.95, 0.96, 0.96), body=False)
        pad.rounded_rect(0, 0, w, 4, 0.01, (0.95, 0.96, 0.96), body=False)
        pad.rounded_rect(0, h - 4, w, h, 0.01, (0.95, 0.96, 0.96), body=False)
        return pad.item("card", ppm, 0.3)
    suit = str(rng.choice(["heart", "diamond", "club", "spade"]))
    ink = RED if suit in ("heart", "diamond") else INK_BLACK
    rank = int(rng.integers(1, 11))
    label = {1: "A"}.get(rank, str(rank))
    index = pad.mask()
    pad.text(label, 3.5, 11.0, 7.0, index, 0.8)
    pad.ink(index, ink)
    _suit(pad, suit, 6.5, 16.5, 5.0, ink)
    for u, v in pip_positions(min(rank, 9)):
        _suit(pad, suit, w / 2 + v * 17.0, h / 2 + u * 26.0, 9.0 if rank > 1 else 20.0, ink)
    return pad.item("card", ppm, 0.3)


def paper(rng: np.random.Generator, ppm: float) -> Item:
    """A sheet of paper: lines of printed or handwritten text, or a ruled score sheet with numbers."""
    w, h = (148.0, 210.0) if rng.random() < 0.5 else (210.0, 297.0)
    pad = _Pad(w, h, ppm, supersample=1)  # large and flat: drawn at the canvas's own scale
    pad.rounded_rect(
        0, 0, w, h, 0.5, _pick(rng, ((0.96, 0.97, 0.97), (0.82, 0.93, 0.96), (0.60, 0.95, 0.98)), 0.02)
    )
    ink = _pick(rng, ((0.15, 0.15, 0.15), (0.55, 0.20, 0.10), (0.35, 0.35, 0.35)), 0.05)
    letters = string.ascii_lowercase
    if rng.random() < 0.5:  # a score sheet: a ruled table of columns and rows, numbers in it
        cols, rows = int(rng.integers(2, 5)), int(rng.integers(8, 20))
        x0, y0, x1, y1 = 12.0, 25.0, w - 12, h - 15
        ruling, numbers = pad.mask(), pad.mask()
        pad.text("".join(rng.choice(list(letters), 8)).upper(), 14.0, 18.0, 6.0, ruling, 0.6)
        for i in range(cols + 1):
            pad.line((x0 + (x1 - x0) * i / cols, y0), (x0 + (x1 - x0) * i / cols, y1), 0.4, ruling)
        for j in range(rows + 1):
            pad.line((x0, y0 + (y1 - y0) * j / rows), (x1, y0 + (y1 - y0) * j / rows), 0.4, ruling)
        pad.ink(ruling, ink, 0.8)
        for i in range(cols):
            for j in range(int(rng.integers(1, rows))):
                number = str(int(rng.integers(0, 200)))
                pad.text(
                    number,
                    x0 + (x1 - x0) * i / cols + 3,
                    y0 + (y1 - y0) * (j + 0.8) / rows,
                    (y1 - y0) / rows * 0.6,
                    numbers,
                    0.5,
                    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
                )
        pad.ink(numbers, _pick(rng, ((0.55, 0.15, 0.05), (0.10, 0.10, 0.10), (0.10, 0.10, 0.65))))
    else:
        size = float(rng.uniform(2.5, 5.0))
        font = cv2.FONT_HERSHEY_SCRIPT_SIMPLEX if rng.random() < 0.3 else cv2.FONT_HERSHEY_SIMPLEX
        y = 15.0 + size
        lines = pad.mask()
        while y < h - 12:
            words = " ".join(
                "".join(rng.choice(list(letters), int(rng.integers(2, 9))))
                for _ in range(int(w / (size * 5)))
            )
            pad.text(words, 12.0, y, size, lines, size * 0.09, font)
            y += size * float(rng.uniform(1.6, 2.2))
        pad.ink(lines, ink)
    return pad.item("paper", ppm, 0.1)


def coin(rng: np.random.Generator, ppm: float) -> Item:
    """A coin: a metal disk lit from one side, a raised rim, an embossed face."""
    d = float(rng.uniform(16.0, 28.0))
    pad = _Pad(d + 1, d + 1, ppm)
    metal = _pick(rng, ((0.25, 0.60, 0.80), (0.70, 0.70, 0.68), (0.20, 0.35, 0.65)), 0.05)
    c = (d + 1) / 2
    pad.circle(c, c, d / 2, metal)
    r = pad.radial(c - d * 0.15, c - d * 0.15)
    relief = cv2.GaussianBlur(
        np.random.default_rng(int(rng.integers(1 << 31))).standard_normal(pad.shape).astype(np.float32),
        (0, 0),
        pad.ppm * 0.6,
    )
    relief = np.asarray(relief, np.float32) / max(1e-6, float(np.std(relief)))
    pad.shade(np.clip(1.25 - 0.5 * r / d + 0.08 * relief, 0.5, 1.3))
    pad.circle(c, c, d / 2 - 0.9, tuple(x * 0.7 for x in metal), thickness=0.5)  # type: ignore[arg-type]
    return pad.item("coin", ppm, 2.0)


def cup(rng: np.random.Generator, ppm: float) -> Item:
    """A cup or mug from above: its rim, coffee, tea or nothing inside, the handle to one side."""
    d = float(rng.uniform(70.0, 90.0))
    handle = d * 0.28
    pad = _Pad(d + handle + 2, d + 2, ppm)
    c = (d + 2) / 2
    body = _pick(
        rng,
        ((0.93, 0.94, 0.94), (0.15, 0.15, 0.70), (0.55, 0.30, 0.10), (0.15, 0.15, 0.15), (0.30, 0.65, 0.85)),
        0.03,
    )
    pad.circle(d + handle * 0.35, c, handle * 0.62, body, thickness=handle * 0.3)
    pad.circle(c, c, d / 2, body)
    pad.circle(c, c, d / 2 - 0.8, tuple(x * 0.8 for x in body), thickness=0.6)  # type: ignore[arg-type]
    inside = rng.choice(["coffee", "tea", "empty"])
    fill = {"coffee": (0.06, 0.12, 0.20), "tea": (0.10, 0.35, 0.60)}.get(
        str(inside), tuple(x * 0.75 for x in body)
    )
    pad.circle(c, c, d / 2 - 4.0, fill, body=False)  # type: ignore[arg-type]
    r = pad.radial(c + d * 0.2, c + d * 0.2)
    pad.shade(np.clip(1.1 - 0.25 * r / d, 0.6, 1.1))
    pad.circle(c - d * 0.15, c - d * 0.15, d * 0.08, (1.0, 1.0, 1.0), weight=0.35, body=False)
    return pad.item("cup", ppm, float(rng.uniform(80, 110)))


def pen(rng: np.random.Generator, ppm: float) -> Item:
    """A pen: a long round barrel, shaded as a cylinder, a clip and a metal tip."""
    length, dia = float(rng.uniform(125, 150)), float(rng.uniform(8, 11))
    pad = _Pad(length, dia + 1, ppm)
    barrel = _pick(
        rng,
        ((0.60, 0.20, 0.05), (0.10, 0.10, 0.10), (0.15, 0.15, 0.75), (0.92, 0.92, 0.92), (0.70, 0.70, 0.70)),
    )
    c = (dia + 1) / 2
    pad.rounded_rect(8, c - dia / 2, length, c + dia / 2, dia / 2, barrel)
    pad.poly([(0.5, c), (9, c - dia * 0.35), (9, c + dia * 0.35)], (0.65, 0.65, 0.65), body=True)
    yy = (np.arange(pad.shape[0], dtype=np.float32) / pad.ppm - c) / (dia / 2)
    pad.shade(
        np.broadcast_to(
            (1.0 + 0.35 * np.exp(-(((yy + 0.35) / 0.18) ** 2)) - 0.35 * yy**2)[:, None], pad.shape
        ).astype(np.float32)
    )
    pad.rounded_rect(length * 0.62, c - 1.2, length * 0.95, c + 1.2, 1.0, (0.75, 0.75, 0.75), body=False)
    return pad.item("pen", ppm, dia)


def dice(rng: np.random.Generator, ppm: float) -> Item:
    """A die showing one to six pips on top: a tile-half's pips on a small rounded square."""
    s = float(rng.uniform(12, 19))
    pad = _Pad(s, s, ppm)
    body, pip = [
        ((0.93, 0.94, 0.94), INK_BLACK),
        ((0.15, 0.15, 0.75), (0.95, 0.95, 0.95)),
        ((0.10, 0.10, 0.10), (0.95, 0.95, 0.95)),
        ((0.74, 0.87, 0.93), INK_BLACK),
        ((0.60, 0.35, 0.10), (0.95, 0.95, 0.95)),
    ][int(rng.integers(5))]
    pad.rounded_rect(0, 0, s, s, s * 0.18, body)
    edge = cv2.distanceTransform((pad.alpha > 0.5).astype(np.uint8), cv2.DIST_L2, 3) / pad.ppm
    pad.shade((1.0 - 0.3 * np.exp(-edge / (0.08 * s))).astype(np.float32))
    for u, v in pip_positions(int(rng.integers(1, 7))):
        pad.circle(s / 2 + u * s * 0.3, s / 2 + v * s * 0.3, s * 0.09, pip, body=False)
    return pad.item("dice", ppm, s)


def eraser(rng: np.random.Generator, ppm: float) -> Item:
    """An eraser about a tile's size and shape, half in a printed card sleeve."""
    length, width = float(rng.uniform(40, 62)), float(rng.uniform(18, 24))
    pad = _Pad(length, width, ppm)
    pad.rounded_rect(0, 0, length, width, 1.5, _pick(rng, ((0.93, 0.94, 0.94), (0.75, 0.70, 0.95)), 0.02))
    sleeve = _pick(rng, ((0.60, 0.30, 0.05), (0.10, 0.10, 0.10), (0.20, 0.60, 0.20), (0.15, 0.15, 0.75)))
    start = length * float(rng.uniform(0.3, 0.5))
    pad.rounded_rect(start, 0, length, width, 0.5, sleeve, body=False)
    brand = pad.mask()
    pad.text(
        "".join(rng.choice(list(string.ascii_uppercase), 5)),
        start + 3,
        width * 0.65,
        width * 0.35,
        brand,
        0.7,
    )
    pad.ink(brand, (0.95, 0.95, 0.95))
    return pad.item("eraser", ppm, 10.0)


def phone(rng: np.random.Generator, ppm: float) -> Item:
    """A phone, screen up (dark glass reflecting the room) or back up (a camera bump)."""
    w, length = float(rng.uniform(68, 78)), float(rng.uniform(140, 162))
    pad = _Pad(length, w, ppm)
    case = _pick(rng, ((0.10, 0.10, 0.10), (0.25, 0.25, 0.27), (0.70, 0.70, 0.72), (0.45, 0.25, 0.15)))
    pad.rounded_rect(0, 0, length, w, 9.0, case)
    if rng.random() < 0.6:
        pad.rounded_rect(3, 3, length - 3, w - 3, 7.0, (0.06, 0.06, 0.07), body=False)
        xx = np.arange(pad.shape[1], dtype=np.float32)[None, :] / pad.shape[1]
        yy = np.arange(pad.shape[0], dtype=np.float32)[:, None] / pad.shape[0]
        sheen = np.exp(-(((xx * 0.7 + yy * 0.5 - float(rng.uniform(0.3, 0.9))) / 0.12) ** 2))
        pad.colour += (0.25 * sheen * pad.alpha)[..., None].astype(np.float32)
    else:
        pad.rounded_rect(6, 6, 36, 36, 7.0, tuple(x * 0.7 for x in case), body=False)  # type: ignore[arg-type]
        for cx, cy in ((14, 14), (28, 14), (14, 28)):
            pad.circle(cx, cy, 5.0, (0.05, 0.05, 0.05), body=False)
    return pad.item("phone", ppm, 8.0)


MAKERS: dict[str, Callable[[np.random.Generator, float], Item]] = {
    "card": card,
    "paper": paper,
    "coin": coin,
    "cup": cup,
    "pen": pen,
    "dice": dice,
    "eraser": eraser,
    "phone": phone,
}
FLAT = frozenset({"card", "paper"})
# How often each kind is drawn: the tile-like negatives (cards, dice, erasers, phones) often.
WEIGHTS = {
    "card": 3.0,
    "paper": 1.5,
    "coin": 2.0,
    "cup": 1.0,
    "pen": 1.5,
    "dice": 2.0,
    "eraser": 1.5,
    "phone": 1.0,
}


@dataclass(frozen=True)
class Placed:
    """An item lying at (x, y) mm on the table, turned by `angle` degrees."""

    item: Item
    x: float
    y: float
    angle: float

    def corners(self) -> np.ndarray:
        """Its bounding box on the table in mm, (4, 2)."""
        w, h = self.item.size_mm
        a = math.radians(self.angle)
        along, across = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        centre = np.array([self.x, self.y])
        return np.array(
            [
                centre + sx * w / 2 * along + sy * h / 2 * across
                for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))
            ]
        )


def lay(canvas: np.ndarray, placed: Placed, to_canvas: np.ndarray, shadow: float) -> None:
    """Draw `placed` with its drop shadow on a float canvas whose pixels are `to_canvas` (2 x 3) of mm."""
    item = placed.item
    ppm = float(math.hypot(to_canvas[0, 0], to_canvas[1, 0]))
    h, w = item.alpha.shape
    a = math.radians(placed.angle)
    k = ppm / item.ppm
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]) * k
    centre = to_canvas[:, :2] @ np.array([placed.x, placed.y]) + to_canvas[:, 2]
    offset = centre - rot @ np.array([(w - 1) / 2, (h - 1) / 2])
    drop = (0.5 + 0.35 * item.height_mm) * ppm
    pts = project_box(rot, offset, w, h)
    x0, y0 = np.floor(pts.min(axis=0)).astype(int) - 3
    x1, y1 = np.ceil(pts.max(axis=0) + drop * 1.2 + 3 * (1 + 0.1 * item.height_mm) * ppm).astype(int) + 3
    ch, cw = canvas.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(cw, x1), min(ch, y1)
    if x1 <= x0 or y1 <= y0:
        return
    affine = np.hstack([rot, (offset - (x0, y0))[:, None]])
    size = (int(x1 - x0), int(y1 - y0))
    colour = cv2.warpAffine(
        item.colour, affine, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    alpha = cv2.warpAffine(item.alpha, affine, size, flags=cv2.INTER_LINEAR)
    roi = canvas[y0:y1, x0:x1]
    shift = np.array([[1, 0, drop * 0.6], [0, 1, drop]], np.float32)
    cast = cv2.warpAffine(alpha, shift, size)
    cast = cv2.GaussianBlur(cast, (0, 0), max(0.8, (0.8 + 0.12 * item.height_mm) * ppm))
    roi *= (1 - shadow * cast)[..., None]
    roi *= 1 - alpha[..., None]
    roi += alpha[..., None] * colour


def project_box(rot: np.ndarray, offset: np.ndarray, w: int, h: int) -> np.ndarray:
    box = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    result: np.ndarray = box @ rot.T + offset
    return result
