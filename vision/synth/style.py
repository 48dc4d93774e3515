"""How a table looks: the set's colours, the table's surface, the light and the camera.

A `Style` is an immutable value; `random_style(rng)` draws one from the variety the renderer
supports, and keyword overrides pin any field (`random_style(rng, table="wood")`).
Colours are BGR floats in 0..1, as the renderer composes in float.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

Colour = tuple[float, float, float]

TILE_BODIES: dict[str, Colour] = {
    "ivory": (0.74, 0.87, 0.93),
    "white": (0.93, 0.94, 0.94),
    "black": (0.10, 0.10, 0.11),
}
# Coloured pips as double-nine and double-twelve sets print them, one colour per value.
PIP_PALETTE: tuple[Colour, ...] = (
    (0.0, 0.0, 0.0),
    (0.85, 0.55, 0.15),  # 1 sky blue
    (0.20, 0.55, 0.15),  # 2 green
    (0.15, 0.15, 0.80),  # 3 red
    (0.10, 0.30, 0.50),  # 4 brown
    (0.60, 0.20, 0.10),  # 5 dark blue
    (0.10, 0.65, 0.85),  # 6 yellow
    (0.55, 0.15, 0.50),  # 7 purple
    (0.20, 0.40, 0.20),  # 8 olive
    (0.10, 0.10, 0.10),  # 9 black
    (0.10, 0.45, 0.85),  # 10 orange
    (0.35, 0.35, 0.35),  # 11 grey
    (0.45, 0.15, 0.75),  # 12 crimson
)
# A palette colour whose brightest channel is below this is lost on a black face.
DARK_PIP = 0.3
TABLES = ("felt_green", "felt_blue", "wood", "plain")
PINS = (None, "brass", "steel")


@dataclass(frozen=True)
class Style:
    """Everything about a frame's look that does not depend on where the tiles lie."""

    tile_body: str = "ivory"
    pips: str = "black"  # black, white or coloured
    pin: str | None = "brass"
    back_logo: bool = True
    back_colour: Colour = (0.74, 0.87, 0.93)
    table: str = "felt_green"
    table_colour: Colour = (0.18, 0.42, 0.12)
    corner_radius_mm: float = 2.5
    shadow: float = 0.45  # darkening under a tile's drop shadow
    light_gradient: float = 0.15  # uneven light across the table, 0 = even
    vignetting: float = 0.2
    glare: float = 0.3  # peak of the lamp's reflection, added to 0..1 intensities
    tilt: float = 0.04  # perspective: corner displacement as a fraction of the frame
    blur: float = 0.5  # Gaussian sigma in pixels
    noise: float = 2.0  # sensor noise sigma in 0..255 levels
    jpeg_quality: int = 90  # 0 = no compression
    # The widened renderer's sets (vision.synth.widened); the defaults leave every other style as
    # it always was. `face_colour` paints the face in any colour (a pink or a green set) instead of
    # `tile_body`'s; `pip_ink` is the one colour of every pip when `pips` is "ink"; `pips`
    # "coloured_bright" is the per-value palette with its near-black values in white, as sets with
    # coloured pips on black faces print them; `divider_colour` replaces the divider's usual shade.
    face_colour: Colour | None = None
    pip_ink: Colour | None = None
    divider_colour: Colour | None = None
    # The per-value colours of "coloured" pips, if not `PIP_PALETTE`: sets print other palettes.
    pip_palette: tuple[Colour, ...] | None = None

    @property
    def body_colour(self) -> Colour:
        return self.face_colour if self.face_colour is not None else TILE_BODIES[self.tile_body]

    def pip_colour(self, value: int) -> Colour:
        palette = self.pip_palette or PIP_PALETTE
        if self.pips == "coloured":
            return palette[value % len(palette)]
        if self.pips == "coloured_bright":
            colour = palette[value % len(palette)]
            return (0.92, 0.92, 0.92) if max(colour) < DARK_PIP else colour
        if self.pips == "ink" and self.pip_ink is not None:
            return self.pip_ink
        if self.pips == "white":
            return (0.95, 0.95, 0.95)
        return (0.05, 0.05, 0.05)

    def replace(self, **changes: object) -> Style:
        return replace(self, **changes)  # type: ignore[arg-type]


# A pin-less ivory set with plain backs on a plain blue-grey cloth under even light: the table the
# reader handles best today, filmed by the demo and by the tracker's tests and benchmark. The cloth
# stands well apart from ivory in colour (so backs are counted) yet is light (so it is never
# taken for pips or a divider).
PLAIN_STYLE = Style(table="plain", table_colour=(0.62, 0.52, 0.42), pin=None, back_logo=False, glare=0.0,
                    blur=0.3, noise=1.5, vignetting=0.1, light_gradient=0.05)


def _jitter(rng: np.random.Generator, colour: Colour, amount: float) -> Colour:
    shifted = np.clip(np.asarray(colour) + rng.uniform(-amount, amount, 3), 0.0, 1.0)
    return (float(shifted[0]), float(shifted[1]), float(shifted[2]))


def random_style(rng: np.random.Generator, **overrides: object) -> Style:
    """A style drawn from the whole variety: sets, tables, light and camera."""
    body = str(rng.choice(list(TILE_BODIES), p=[0.45, 0.3, 0.25]))
    pips = (
        str(rng.choice(["white", "coloured"], p=[0.7, 0.3]))
        if body == "black"
        else str(rng.choice(["black", "coloured"], p=[0.7, 0.3]))
    )
    table = str(rng.choice(TABLES))
    table_colours: dict[str, Colour] = {
        "felt_green": (0.16, 0.42, 0.12),
        "felt_blue": (0.45, 0.25, 0.08),
        "wood": (0.20, 0.36, 0.55),
        "plain": (0.55, 0.58, 0.60),
    }
    table_colour = _jitter(rng, table_colours[table], 0.06)
    if table == "plain" and rng.random() < 0.5:
        table_colour = _jitter(rng, (0.35, 0.45, 0.60), 0.08)  # a beige or brown cloth
    back_colour = TILE_BODIES[body] if rng.random() < 0.6 else _jitter(rng, (0.15, 0.20, 0.55), 0.1)
    style = Style(
        tile_body=body,
        pips=pips,
        pin=PINS[int(rng.integers(len(PINS)))],
        back_logo=bool(rng.random() < 0.6),
        back_colour=back_colour,
        table=table,
        table_colour=table_colour,
        corner_radius_mm=float(rng.uniform(1.5, 4.0)),
        shadow=float(rng.uniform(0.2, 0.55)),
        light_gradient=float(rng.uniform(0.0, 0.3)),
        vignetting=float(rng.uniform(0.0, 0.35)),
        glare=float(rng.uniform(0.0, 0.5)),
        tilt=float(rng.uniform(0.0, 0.06)),
        blur=float(rng.uniform(0.0, 1.0)),
        noise=float(rng.uniform(0.5, 5.0)),
        jpeg_quality=int(rng.integers(70, 96)),
    )
    return replace(style, **overrides)  # type: ignore[arg-type]
