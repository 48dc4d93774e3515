"""The widened renderer: the tables, sets, cameras and clutter the plain dataset never shows.

`render_widened(seed)` draws one frame from a wider variety than `dataset.render_example`:
textured and patterned surfaces (`textures.SURFACES`: leather, knit, gingham, plaid, floral
prints, wooden planks, desks, cutting mats) besides felt, wood and plain cloth; sets with pink,
green, yellow, blue or red faces and pips of every colour (white on colour, coloured on black,
one ink or a pastel palette on ivory); double-nine and double-twelve sets; shrink-wrapped or
glossy tiles with a specular band across them; a hard shadow edge across part of the table;
poor webcams (`webcam.Webcam`); objects on the table (`clutter`), some of them tile-like; and
scenes of clutter with no tile at all. It draws from its own random stream, so
`render_example(seed)` and every other renderer path are untouched.

Labels stay exact: every face-up tile (corners, a, b) and the face-down count, as `render_example`
gives them; standing clutter and hands never cover a tile, flat clutter (cards, paper) only lies
under tiles, and no clutter is labelled. Each frame's labels also say what family it comes from:
`surface` (its name), `textured` (a surface of `SURFACES`), `clutter` (the kinds on the table),
`family` ("table", or "clutter-only" with no tile), `camera`, `set`, `max_pip`, `shadow_edge`,
`wrapped` (tiles under shrink-wrap or a sheen).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.calibration import TableLayout
from vision.synth import clutter, textures, webcam
from vision.synth.hands import hand_masks
from vision.synth.random_scenes import Occupancy, random_layout, random_scene
from vision.synth.scene import Frame, PlacedTile, Renderer, Scene
from vision.synth.style import PINS, PIP_PALETTE, TILE_BODIES, Colour, Style, random_style
from vision.synth.surface import table_surface

# Widened frames draw from this stream of a seed (numpy SeedSequence entropy [seed, STREAM]), so
# widened seed N shares nothing with the plain dataset's seed N.
STREAM = 0x71DE
MAX_PIPS = ((6, 0.6), (9, 0.25), (12, 0.15))  # the sets' mix when no max_pip is asked for
FACES: dict[str, Colour] = {  # BGR, as style.TILE_BODIES
    "pink": (0.72, 0.62, 0.95),
    "green": (0.35, 0.62, 0.22),
    "yellow": (0.25, 0.82, 0.95),
    "blue": (0.72, 0.40, 0.12),
    "light_blue": (0.92, 0.78, 0.55),
    "red": (0.16, 0.14, 0.72),
}
INKS: dict[str, Colour] = {
    "red": (0.12, 0.12, 0.75),
    "blue": (0.65, 0.25, 0.08),
    "green": (0.20, 0.50, 0.12),
    "gold": (0.15, 0.65, 0.88),
    "black": (0.05, 0.05, 0.05),
    "white": (0.95, 0.95, 0.95),
}
# Pips must differ from the face by at least this much luminance (0..1) to be printed on it: a
# set maker does not put yellow pips on a yellow face.
MIN_PIP_CONTRAST = 0.28
# Share of ivory and white sets with coloured pips whose palette is pastel (`pastel_palette`):
# light blue, yellow or pink pips that differ from the face in hue far more than in brightness,
# as some sets print them and as a lamp or a lens pales small coloured pips. Of the pips the
# training recipe draws (4,000 styles), 0.8 % lay within 0.15 luma of their face without them,
# 1.7 % with them.
PASTEL_SHARE = 0.5
PASTEL_FADE = (0.5, 0.95)  # how far each colour is mixed toward the face, drawn per set
# A pastel pip still differs from its face by at least this distance in BGR (0..1 per channel),
# a colour an eye finds plainly at a glance (a white face's light blue or pale yellow pip).
MIN_PASTEL_DISTANCE = 0.25
# Labels name only pips an eye can find, and a pastel pip is lost where a black one stays:
# - where its face burns out (under a lamp's reflection or a shrink-wrap's sheen, face and pip
#   both clip to white), so a pastel set is lit by a lamp whose reflection peaks at most this
#   high and is never wrapped;
# - under a poor webcam (`webcam`), whose flat tone curve halves its contrast and whose grain and
#   JPEG blocks bury it, so a pastel set is filmed by the camera.
# Measured with `vision.synth.legibility`: on widened seeds 20000-20399 with the lamp capped and
# no wrap, 16 of the pastel sets' 206 tiles were illegible, every one under a webcam (0 of the
# other coloured sets' 189); on seeds 20400-20999 filmed by the camera, 0 of 256 (7 of 293).
PASTEL_MAX_GLARE = 0.1
CLUTTERED = frozenset({"desk", "cutting_mat"})  # surfaces that come with more objects on them
SHEEN_SHARE = 0.3  # share of frames whose tiles are shrink-wrapped or glossy
SHADOW_EDGE_SHARE = 0.35  # share of frames with a hard shadow edge across the table
WEBCAM_SHARE = 0.45  # share of frames filmed by a poor webcam
CLUTTER_ONLY_SHARE = 0.12  # share of frames with clutter (or only a textured table) and no tile
EMPTY_NOISE_SEED = 1 << 40  # added to a frame's seed for its empty table's sensor noise


def _luma(colour: Colour) -> float:
    return 0.114 * colour[0] + 0.587 * colour[1] + 0.299 * colour[2]


def _jitter(rng: np.random.Generator, colour: Colour, amount: float) -> Colour:
    c = np.clip(np.asarray(colour) + rng.uniform(-amount, amount, 3), 0, 1)
    return (float(c[0]), float(c[1]), float(c[2]))


@dataclass(frozen=True)
class Widening:
    """What a widened frame adds to its `Style`."""

    surface: str
    set_name: str
    max_pip: int
    shadow_edge: bool = False
    sheen: float = 0.0  # peak of the specular band over a wrapped or glossy tile, 0 = none
    wrap_share: float = 0.0  # share of tiles that get it
    clutter: int = 0  # objects asked for (fewer when the table has no room)
    clutter_only: bool = False

    @property
    def pastel(self) -> bool:
        """Whether the set's pips are a pastel palette (`pastel_palette`)."""
        return self.set_name.endswith("/pastel")


def pastel_palette(face: Colour, fade: float) -> tuple[Colour, ...]:
    """`PIP_PALETTE` with each colour mixed `fade` of the way toward `face`, but never nearer to
    it than `MIN_PASTEL_DISTANCE`."""
    base = np.asarray(face, dtype=np.float64)
    palette = []
    for colour in PIP_PALETTE:
        away = np.asarray(colour, dtype=np.float64) - base
        distance = float(np.linalg.norm(away))
        keep = 1.0 if distance <= MIN_PASTEL_DISTANCE else max(1.0 - fade, MIN_PASTEL_DISTANCE / distance)
        mixed = base + away * keep
        palette.append((float(mixed[0]), float(mixed[1]), float(mixed[2])))
    return tuple(palette)


def widened_set(rng: np.random.Generator) -> tuple[str, dict[str, object]]:
    """A set's name ("pink/white") and the Style fields that draw it."""
    family = str(rng.choice(["ivory", "white", "black", "colour"], p=[0.2, 0.15, 0.15, 0.5]))
    fields: dict[str, object] = {}
    if family == "colour":
        name = str(rng.choice(list(FACES)))
        face = _jitter(rng, FACES[name], 0.05)
        fields.update(tile_body="white", face_colour=face)
        pips = str(rng.choice(["white", "black", "ink"], p=[0.45, 0.35, 0.2]))
    else:
        name, face = family, TILE_BODIES[family]
        fields["tile_body"] = family
        pips = (
            str(rng.choice(["white", "coloured_bright", "ink"], p=[0.4, 0.35, 0.25]))
            if family == "black"
            else str(rng.choice(["black", "coloured", "ink"], p=[0.4, 0.3, 0.3]))
        )
    if pips in ("white", "black") and abs(_luma(INKS[pips]) - _luma(face)) < MIN_PIP_CONTRAST:
        pips = "black" if pips == "white" else "white"
    pip_name = pips
    if pips == "ink":
        readable = [k for k, c in INKS.items() if abs(_luma(c) - _luma(face)) >= MIN_PIP_CONTRAST]
        pip_name = str(rng.choice(readable))
        fields["pip_ink"] = INKS[pip_name]
    fields["pips"] = pips
    if pips == "coloured" and rng.random() < PASTEL_SHARE:
        fields["pip_palette"] = pastel_palette(face, float(rng.uniform(*PASTEL_FADE)))
        pip_name = "pastel"
    if pips in ("ink", "white") and family == "colour" and rng.random() < 0.5:
        fields["divider_colour"] = fields.get("pip_ink", INKS["white"])
    if rng.random() < 0.5:
        fields["back_colour"] = face if rng.random() < 0.6 else _jitter(rng, (0.15, 0.20, 0.55), 0.1)
    return f"{name}/{pip_name}", fields


def widened_style(rng: np.random.Generator, max_pip: int | None = None) -> tuple[Style, Widening]:
    """A style and its widening drawn from the whole widened variety."""
    base = random_style(rng)  # light, lamp and camera ranges of the plain dataset, then widened
    drawn = int(rng.choice([m for m, _ in MAX_PIPS], p=[p for _, p in MAX_PIPS]))
    max_pip = drawn if max_pip is None else max_pip  # drawn either way: the rest of the frame stays
    set_name, fields = widened_set(rng)
    textured = rng.random() < 0.75
    # Felt, wood and plain cloth keep the plain dataset's colours for them (`base.table_colour`).
    surface = str(rng.choice(list(textures.SURFACES))) if textured else base.table
    style = replace(
        base,
        **fields,  # type: ignore[arg-type]
        table=base.table,
        pin=PINS[int(rng.integers(len(PINS)))],
        light_gradient=float(rng.uniform(0.0, 0.45)),
        vignetting=float(rng.uniform(0.0, 0.5)),
        glare=float(rng.uniform(0.0, 0.8)),
        tilt=float(rng.uniform(0.0, 0.08)),
    )
    clutter_only = bool(rng.random() < CLUTTER_ONLY_SHARE)
    many = surface in CLUTTERED or clutter_only
    count = int(rng.integers(3, 10)) if many else int(rng.choice([0, 0, 1, 2, 3, 4]))
    wrapped = rng.random() < SHEEN_SHARE
    widening = Widening(
        surface=surface,
        set_name=set_name,
        max_pip=max_pip,
        shadow_edge=bool(rng.random() < SHADOW_EDGE_SHARE),
        sheen=float(rng.uniform(0.15, 0.5)) if wrapped else 0.0,
        wrap_share=float(rng.uniform(0.3, 1.0)) if wrapped else 0.0,
        clutter=count,
        clutter_only=clutter_only,
    )
    if widening.pastel:  # drawn as every other set, then lit so that its pips read
        style = replace(style, glare=min(style.glare, PASTEL_MAX_GLARE))
        widening = replace(widening, sheen=0.0, wrap_share=0.0)
    return style, widening


class WidenedRenderer(Renderer):
    """A `Renderer` with a textured surface, clutter, a hard shadow, wrapped tiles and a webcam."""

    def __init__(
        self,
        style: Style,
        widening: Widening,
        size: tuple[int, int],
        seed: int,
        layout: TableLayout,
        occupancy: Occupancy,
        markers: bool = True,
    ) -> None:
        self.widening = widening
        self._seed = seed
        super().__init__(style, size, seed=seed, layout=layout, markers=markers)
        rng = np.random.default_rng([seed, STREAM, 1])
        ends = np.array([[0.0, 0.0], [48.0, 0.0]])
        self.tile_px = float(
            np.linalg.norm(
                np.diff(
                    cv2.perspectiveTransform(ends[None].astype(np.float64), self.table_to_image)[0], axis=0
                )
            )
        )
        if widening.shadow_edge:
            self.gain = self.gain * webcam.hard_shadow(self.gain.shape, rng)
        self.camera = (
            webcam.random_webcam(rng, self.tile_px, widening.max_pip) if rng.random() < WEBCAM_SHARE else None
        )
        if widening.pastel:  # drawn as for every set, so the stream stays; see PASTEL_MAX_GLARE
            self.camera = None
        self.placed = self._lay_clutter(rng, occupancy)

    def _surface(self, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
        make = textures.SURFACES.get(self.widening.surface)
        return make(shape, self.ppm, rng) if make else table_surface(self.style, shape, self.ppm, rng)

    def _lay_clutter(self, rng: np.random.Generator, occupancy: Occupancy) -> list[clutter.Placed]:
        """Place and draw up to `widening.clutter` objects where they cover no tile, hand or marker."""
        kinds = list(clutter.WEIGHTS)
        weights = np.array([clutter.WEIGHTS[k] for k in kinds])
        markers_only = Occupancy(self.layout).grid
        taken = np.zeros_like(occupancy.grid)  # clutter already placed
        placed: list[clutter.Placed] = []
        h, w = occupancy.grid.shape
        for _ in range(self.widening.clutter):
            kind = str(rng.choice(kinds, p=weights / weights.sum()))
            item = clutter.MAKERS[kind](rng, self.ppm)
            flat = kind in clutter.FLAT
            # Flat things may lie under tiles; standing ones keep off tiles and hands entirely.
            blocked = markers_only | taken | (0 if flat else occupancy.grid)
            for _ in range(40):
                pose = clutter.Placed(
                    item, float(rng.uniform(0, w)), float(rng.uniform(0, h)), float(rng.uniform(0, 360))
                )
                box = np.zeros_like(occupancy.grid)
                corners = pose.corners()
                centre = corners.mean(axis=0)
                grown = (
                    centre
                    + (corners - centre) * (1 + 4.0 / np.linalg.norm(corners - centre, axis=1))[:, None]
                )
                cv2.fillPoly(box, [np.round(grown).astype(np.int32)], 1)
                if not np.any(box & blocked):
                    taken |= box
                    placed.append(pose)
                    break
        # Flat things first: a card or a sheet lies under a pen or a coin, never over it.
        placed.sort(key=lambda p: p.item.kind not in clutter.FLAT)
        for pose in placed:
            clutter.lay(self.background, pose, self.to_canvas, self.style.shadow)
        return placed

    def _paste(self, canvas: np.ndarray, gloss: np.ndarray, tile: PlacedTile) -> None:
        super()._paste(canvas, gloss, tile)
        if self.widening.sheen <= 0:
            return
        rng = np.random.default_rng([self._seed, STREAM, 2, round(tile.x * 100), round(tile.y * 100)])
        if rng.random() >= self.widening.wrap_share:
            return
        self._sheen(canvas, tile, rng)

    def _sheen(self, canvas: np.ndarray, tile: PlacedTile, rng: np.random.Generator) -> None:
        """A specular band across the tile, crinkled as shrink-wrap is, and the wrap's haze."""
        to3 = np.vstack([self.to_canvas, [0, 0, 1]])
        pts = (tile.corners() @ to3[:2, :2].T) + to3[:2, 2]
        x0, y0 = np.floor(pts.min(axis=0)).astype(int)
        x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 1
        ch, cw = canvas.shape[:2]
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(cw, x1), min(ch, y1)
        if x1 - x0 < 2 or y1 - y0 < 2:
            return
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(mask, [np.round((pts - (x0, y0)) * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
        inside = mask.astype(np.float32) / 255.0
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        centre = pts.mean(axis=0)
        a = rng.uniform(0, np.pi)
        across = ((xx - centre[0]) * np.cos(a) + (yy - centre[1]) * np.sin(a)) / (48.0 * self.ppm)
        width = float(rng.uniform(0.06, 0.2))
        # Wrinkles of the film: thin bright creases (the noise's zero crossings) inside the band.
        wrinkles = np.exp(-((textures.smooth_noise(rng, inside.shape, max(2.0, 2.5 * self.ppm)) / 0.3) ** 2))
        band = np.exp(-(((across - rng.uniform(-0.4, 0.4)) / width) ** 2)) * (0.4 + 0.6 * wrinkles)
        haze = float(rng.uniform(0.0, 0.12))
        roi = canvas[y0:y1, x0:x1]
        roi *= 1 - (haze * inside)[..., None]
        roi += ((haze + self.widening.sheen * band) * inside)[..., None]

    def _camera(self, image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return webcam.film(image, self.camera, rng) if self.camera else super()._camera(image, rng)

    def render(self, scene: Scene, seed: int = 0, t: float = 0.0) -> Frame:
        frame = super().render(scene, seed, t)
        labels = dict(frame.labels)
        labels.update(
            surface=self.widening.surface,
            textured=self.widening.surface in textures.SURFACES,
            clutter=sorted(p.item.kind for p in self.placed),
            family="clutter-only" if not scene.tiles else "table",
            camera=self.camera.name if self.camera else "camera",
            set=self.widening.set_name,
            max_pip=self.widening.max_pip,
            shadow_edge=self.widening.shadow_edge,
            wrapped=sum(1 for t in scene.tiles if self._wrapped(t)),
        )
        return replace(frame, labels=labels)

    def _wrapped(self, tile: PlacedTile) -> bool:
        if self.widening.sheen <= 0:
            return False
        rng = np.random.default_rng([self._seed, STREAM, 2, round(tile.x * 100), round(tile.y * 100)])
        return bool(rng.random() < self.widening.wrap_share)


def occupied(scene: Scene) -> Occupancy:
    """The table's occupancy by the scene's tiles and hands (as `random_scenes` keeps it)."""
    occupancy = Occupancy(scene.layout)
    for tile in scene.tiles:
        occupancy.take(tile.corners())
    to_grid = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    for hand in scene.hands:
        skin, sleeve = hand_masks(hand, to_grid, occupancy.grid.shape)
        cover = ((skin + sleeve) > 0.01).astype(np.uint8)
        occupancy.take_mask(np.asarray(cv2.dilate(cover, np.ones((9, 9), np.uint8)), np.uint8))
    return occupancy


def widened_renderer(seed: int, size: tuple[int, int] = (1920, 1080), max_pip: int | None = None,
                     tidied_share: float = 0.0) -> tuple[WidenedRenderer, Scene]:
    """Widened image number `seed`'s renderer (style, table, camera, clutter) and scene:
    `renderer.render(scene, seed)` is `render_widened(seed, size, max_pip, tidied_share)`."""
    rng = np.random.default_rng([seed, STREAM])
    style, widening = widened_style(rng, max_pip)
    layout = random_layout(rng)
    scene = random_scene(rng, layout, max_pip=widening.max_pip, tidied_share=tidied_share)
    if widening.clutter_only:
        scene = Scene((), scene.hands, (), layout)
    markers = bool(rng.random() < 0.7)
    renderer = WidenedRenderer(
        style, widening, size, int(rng.integers(1 << 31)), layout, occupied(scene), markers=markers
    )
    return renderer, scene


def render_widened(seed: int, size: tuple[int, int] = (1920, 1080), max_pip: int | None = None,
                   tidied_share: float = 0.0) -> Frame:
    """Widened image number `seed`: a widened style, table, scene and clutter. `max_pip` None
    draws the set from `MAX_PIPS`' mix (double-six, -nine, -twelve); labels["max_pip"] says which.
    `tidied_share`: see `vision.synth.random_scenes.random_scene` (none in every benchmark)."""
    renderer, scene = widened_renderer(seed, size, max_pip, tidied_share)
    return renderer.render(scene, seed)


def render_widened_empty_of(renderer: WidenedRenderer, scene: Scene, seed: int) -> Frame:
    """`render_widened_empty` from the renderer and scene `widened_renderer` gave for `seed`."""
    return renderer.render(Scene(layout=scene.layout), seed + EMPTY_NOISE_SEED)


def render_widened_empty(seed: int, size: tuple[int, int] = (1920, 1080),
                         max_pip: int | None = None) -> Frame:
    """The table of widened image number `seed` as the hand started: the same camera, cloth,
    light and clutter with no tile and no hand on it, filmed at another moment (its own sensor
    noise): the background `read_image` may be given (`vision.background`)."""
    return render_widened_empty_of(*widened_renderer(seed, size, max_pip), seed)


__all__ = [
    "WidenedRenderer", "Widening", "occupied", "render_widened", "render_widened_empty",
    "render_widened_empty_of", "widened_renderer", "widened_style",
]
