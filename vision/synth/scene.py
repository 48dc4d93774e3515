"""Render a table scene to a camera frame with exact labels.

A `Scene` is what lies on the table (tiles face up or down, tiles carried above it, hands) in
table millimetres; a `Renderer` holds what stays fixed while a game is filmed (style, frame size,
camera pose, table texture, lamp) and turns scenes into `Frame`s: the BGR image and its labels in
the `labels.json` shape (tiles with corners in image pixels, the face-down count, joins).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.calibration import MARKER_IDS, TableLayout, marker_image
from vision.plane import TILE_LENGTH_MM, TILE_WIDTH_MM, project, tile_corners
from vision.synth.hands import Hand, draw_hand
from vision.synth.sprites import Sprite, back_sprite, face_sprite
from vision.synth.style import Style
from vision.synth.surface import camera_effects, light_field, table_surface

__all__ = ["Frame", "Hand", "PlacedTile", "Renderer", "Scene", "render_scene"]


@dataclass(frozen=True)
class PlacedTile:
    """Tile a-b lying at (x, y) mm, long axis at `angle` degrees, a-half towards -axis."""

    a: int
    b: int
    x: float
    y: float
    angle: float
    face_up: bool = True
    lifted_mm: float = 0.0  # > 0 while carried by a hand: not on the table, not labelled

    @property
    def name(self) -> str:
        return f"{min(self.a, self.b)}-{max(self.a, self.b)}"

    def corners(self) -> np.ndarray:
        return tile_corners((self.x, self.y), self.angle)


@dataclass(frozen=True)
class Scene:
    """What lies on (and above) the table. `joins` pairs indices into `tiles` that touch in play."""

    tiles: tuple[PlacedTile, ...] = ()
    hands: tuple[Hand, ...] = ()
    joins: tuple[tuple[int, int], ...] = ()
    layout: TableLayout = field(default_factory=TableLayout)

    def labels(self, table_to_image: np.ndarray) -> dict[str, object]:
        """The ground truth of this scene as one image entry of labels.json."""
        tiles = []
        for tile in self.tiles:
            if tile.face_up and tile.lifted_mm == 0:
                corners = project(table_to_image, tile.corners())
                tiles.append(
                    {
                        "tile": tile.name,
                        "a": tile.a,
                        "b": tile.b,
                        "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in corners],
                    }
                )
        joins = []
        for i, j in self.joins:
            first, second = self.tiles[i], self.tiles[j]
            joins.append({"tiles": [first.name, second.name], "match": _touching_halves_match(first, second)})
        face_down = sum(1 for t in self.tiles if not t.face_up and t.lifted_mm == 0)
        return {"tiles": tiles, "face_down": face_down, "joins": joins}


def _half_centres(tile: PlacedTile) -> list[tuple[int, np.ndarray]]:
    c = tile.corners()
    centre = c.mean(axis=0)
    return [(tile.a, ((c[0] + c[1]) / 2 + centre) / 2), (tile.b, ((c[2] + c[3]) / 2 + centre) / 2)]


def _touching_halves_match(first: PlacedTile, second: PlacedTile) -> bool:
    """Whether the nearest halves of two joined tiles show the same value."""
    pairs = [
        (float(np.linalg.norm(p - q)), va == vb)
        for va, p in _half_centres(first)
        for vb, q in _half_centres(second)
    ]
    return min(pairs, key=lambda pair: pair[0])[1]


@dataclass(frozen=True)
class Frame:
    """One rendered frame: pixels, labels, and the homography table mm -> image pixels."""

    image: np.ndarray
    labels: dict[str, object]
    table_to_image: np.ndarray
    scene: Scene
    t: float = 0.0


def camera_pose(
    layout: TableLayout, size: tuple[int, int], tilt: float, rng: np.random.Generator
) -> np.ndarray:
    """A homography table mm -> image pixels: the table fills the frame, tilted by up to `tilt`."""
    width, height = size
    scale = min(width * 0.88 / layout.width_mm, height * 0.88 / layout.height_mm)
    w, h = layout.width_mm * scale, layout.height_mm * scale
    x0, y0 = (width - w) / 2, (height - h) / 2
    quad = np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], dtype=np.float64)
    quad += rng.uniform(-tilt, tilt, (4, 2)) * min(width, height) * 0.5
    table = np.array(
        [[0, 0], [layout.width_mm, 0], [layout.width_mm, layout.height_mm], [0, layout.height_mm]]
    )
    return cv2.getPerspectiveTransform(table.astype(np.float32), quad.astype(np.float32)).astype(np.float64)


class Renderer:
    """Renders scenes for one camera: style, frame size, pose, table and lamp stay fixed."""

    def __init__(
        self,
        style: Style,
        size: tuple[int, int] = (1920, 1080),
        seed: int = 0,
        layout: TableLayout | None = None,
        table_to_image: np.ndarray | None = None,
        markers: bool = True,
    ) -> None:
        self.style, self.size = style, size
        self.layout = layout or TableLayout()
        rng = np.random.default_rng(seed)
        self.table_to_image = (
            table_to_image if table_to_image is not None else camera_pose(self.layout, size, style.tilt, rng)
        )
        # The canvas covers the part of the table plane the camera sees, a little finer than the frame.
        corners = np.array([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]], dtype=np.float64)
        seen = project(np.linalg.inv(self.table_to_image), corners)
        self.origin = seen.min(axis=0) - 5.0
        extent = seen.max(axis=0) + 5.0 - self.origin
        ends = project(self.table_to_image, np.array([[0.0, 0.0], [100.0, 0.0]]))
        image_ppm = float(np.linalg.norm(ends[1] - ends[0]) / 100)
        self.ppm = round(image_ppm * 1.3, 3)
        self.canvas_size = (math.ceil(extent[0] * self.ppm), math.ceil(extent[1] * self.ppm))
        # canvas pixel (integer centres) <- table mm
        self.to_canvas = np.array(
            [[self.ppm, 0, -self.origin[0] * self.ppm], [0, self.ppm, -self.origin[1] * self.ppm]]
        )
        to_canvas3 = np.vstack([self.to_canvas, [0, 0, 1]])
        self.canvas_to_image = self.table_to_image @ np.linalg.inv(to_canvas3)
        shape = (self.canvas_size[1], self.canvas_size[0])
        self.background = self._surface(shape, rng)
        self.gloss_base = np.zeros(shape, np.float32)
        if markers:
            self._draw_markers()
        self.gain, self.glare = light_field(style, (size[1], size[0]), rng)
        # What a film's frames share (`_table_with`): the bare table's layers, and the flat tiles
        # of the last frame (None before the first) with the layers they were drawn on.
        self._bare: np.ndarray | None = None
        self._last_flat: tuple[PlacedTile, ...] | None = None
        self._kept: tuple[tuple[PlacedTile, ...], np.ndarray] | None = None
        self._lit: tuple[np.ndarray, np.ndarray] | None = None

    def _surface(self, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
        """The bare table (H, W, 3) float32 at the canvas's scale; a subclass may lay another."""
        return table_surface(self.style, shape, self.ppm, rng)

    def _draw_markers(self) -> None:
        white = np.full((1,), 1.0, np.float32)
        for marker_id in MARKER_IDS:
            corners = self.layout.marker_corners(marker_id)
            margin = self.layout.marker_mm / 4
            x0, y0 = self.to_canvas[:, :2] @ (corners[0] - margin) + self.to_canvas[:, 2]
            x1, y1 = self.to_canvas[:, :2] @ (corners[2] + margin) + self.to_canvas[:, 2]
            cv2.rectangle(
                self.background, (round(x0), round(y0)), (round(x1), round(y1)), (0.92, 0.93, 0.93), -1
            )
            cells = 6  # 4 x 4 bits plus the black border
            side = cells * 16
            img = marker_image(marker_id, side).astype(np.float32) / 255.0
            src = np.array([[-0.5, -0.5], [side - 0.5, -0.5], [side - 0.5, side - 0.5]], np.float32)
            dst = (corners[:3] @ self.to_canvas[:, :2].T + self.to_canvas[:, 2]).astype(np.float32)
            affine = cv2.getAffineTransform(src, dst)
            h, w = self.background.shape[:2]
            warped = cv2.warpAffine(img, affine, (w, h), flags=cv2.INTER_LINEAR, borderValue=-1.0)
            # Only the marker's box is blended: the rest of the canvas stays as it is.
            bx, by, bw, bh = cv2.boundingRect((warped >= 0).view(np.uint8))
            box = (slice(by, by + bh), slice(bx, bx + bw))
            inside = warped[box] >= 0
            ink = np.where(inside, warped[box], 0.0)[..., None] * white
            self.background[box] = np.where(inside[..., None], ink * 0.92 + 0.03, self.background[box])

    # -- drawing ---------------------------------------------------------------------------------

    def _tile_affine(self, tile: PlacedTile, sprite: Sprite) -> np.ndarray:
        """2 x 3 affine: sprite pixel -> canvas pixel."""
        sh, sw = sprite.alpha.shape
        sx, sy = TILE_LENGTH_MM / sw, TILE_WIDTH_MM / sh
        local = np.array(
            [[sx, 0, 0.5 * sx - TILE_LENGTH_MM / 2], [0, sy, 0.5 * sy - TILE_WIDTH_MM / 2], [0, 0, 1]]
        )
        a = math.radians(tile.angle)
        place = np.array([[math.cos(a), -math.sin(a), tile.x], [math.sin(a), math.cos(a), tile.y], [0, 0, 1]])
        affine: np.ndarray = (np.vstack([self.to_canvas, [0, 0, 1]]) @ place @ local)[:2]
        return affine

    def _paste(self, canvas: np.ndarray, gloss: np.ndarray, tile: PlacedTile) -> None:
        sprite = (
            face_sprite(self.style, tile.a, tile.b, self.ppm)
            if tile.face_up
            else back_sprite(self.style, self.ppm)
        )
        affine = self._tile_affine(tile, sprite)
        pts = project(np.vstack([self.to_canvas, [0, 0, 1]]), tile.corners())
        x0, y0 = np.floor(pts.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 3
        h, w = canvas.shape[:2]
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 <= x0 or y1 <= y0:
            return
        shifted = affine.copy()
        shifted[:, 2] -= (x0, y0)
        size = (int(x1 - x0), int(y1 - y0))
        colour = cv2.warpAffine(
            sprite.colour, shifted, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        alpha = cv2.warpAffine(sprite.alpha, shifted, size, flags=cv2.INTER_LINEAR)[..., None]
        roi = canvas[y0:y1, x0:x1]
        roi *= 1 - alpha
        roi += alpha * colour
        gloss[y0:y1, x0:x1] = np.maximum(gloss[y0:y1, x0:x1], alpha[..., 0])

    def _shadows(self, canvas: np.ndarray, tiles: list[PlacedTile] | tuple[PlacedTile, ...]) -> None:
        """Darken (H, W, 3) `canvas` under `tiles`: each tile's outline dropped away from the lamp
        and blurred.

        Drawn and blurred in the band of rows the blur can reach, not over the whole canvas (a
        film's tile carried by a hand darkens a band a tenth of it): outside the band the blurred
        mask is exactly 0, and inside it the same to the bit, since the band keeps twice the
        kernel's reach above and below the outlines (its mirrored border mirrors zeros) and
        every row keeps the canvas's width. A box narrower than the canvas was not: OpenCV's
        blur adds up a row's last few pixels in another order than the rest, so pixels near a
        box's right edge came out a float's last bit apart."""
        if not tiles:
            return
        to3 = np.vstack([self.to_canvas, [0, 0, 1]])
        outlines = []
        for tile in tiles:
            drop = 1.2 + tile.lifted_mm * 0.35
            pts = project(to3, tile.corners() + np.array([drop * 0.6, drop]))
            outlines.append(np.round(pts * 16).astype(np.int32))
        sigma = self.ppm * 1.2
        reach = 2 * (blur_radius(sigma) + 2)
        rows = np.concatenate(outlines)[:, 1] // 16
        top, bottom = max(int(rows.min()) - reach, 0), min(int(rows.max()) + 1 + reach, canvas.shape[0])
        if bottom <= top:
            return
        mask = np.zeros((bottom - top, canvas.shape[1]), np.uint8)
        shift = np.array([0, top * 16], np.int32)
        for outline in outlines:
            cv2.fillPoly(mask, [outline - shift], 255, cv2.LINE_AA, 4)
        soft = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), sigma)
        canvas[top:bottom] *= (1 - self.style.shadow * soft)[..., None]

    def _table_with(self, flat: tuple[PlacedTile, ...]) -> np.ndarray:
        """A new float32 (H, W, 4) canvas for one frame: the table's colour and the tiles' gloss,
        with the `flat` tiles and their shadows drawn.

        A film's frames between two moves lie the same tiles flat, so from the second frame that
        asks for the same tiles their layers are kept and copied (one set of layers, the last);
        likewise the bare table's from the second frame (the two cost 50 MB for a 1280x720 film,
        112 MB for a 1920x1080 one). A renderer used for one frame (the datasets) keeps nothing.
        The table and the lamp must not change once it has drawn (the class's docstring). The
        pixels are those drawn anew: the same operations on the same arrays."""
        if self._kept is not None and self._kept[0] == flat:
            return self._kept[1].copy()
        if self._bare is not None:
            layers = self._bare.copy()
        else:
            layers = np.dstack([self.background, self.gloss_base])
            if self._last_flat is not None:  # not the renderer's first frame
                self._bare = layers.copy()
        canvas, gloss = layers[..., :3], layers[..., 3]
        self._shadows(canvas, flat)
        for tile in flat:
            self._paste(canvas, gloss, tile)
        if flat == self._last_flat:
            self._kept = (flat, layers.copy())
        self._last_flat = flat
        return layers

    def render(self, scene: Scene, seed: int = 0, t: float = 0.0) -> Frame:
        """One frame of `scene`; `seed` varies the sensor noise between frames."""
        rng = np.random.default_rng(seed)
        layers = self._table_with(tuple(t for t in scene.tiles if t.lifted_mm == 0))
        canvas, gloss = layers[..., :3], layers[..., 3]
        lifted = [t for t in scene.tiles if t.lifted_mm > 0]
        self._shadows(canvas, lifted)
        for tile in lifted:
            self._paste(canvas, gloss, tile)
        for hand in scene.hands:
            cover, box = draw_hand(canvas, hand, self.to_canvas, self.style.shadow)
            gloss[box] *= 1 - cover[box]  # 1 - 0 outside the box: nothing to multiply there
        width, height = self.size
        warped = cv2.warpPerspective(
            layers,
            self.canvas_to_image,
            (width, height),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        # Lit by the lamp: colour * gain + glare * (0.25 + 0.75 gloss), each channel. Computed on
        # contiguous three-channel arrays (numpy broadcasts over a strided channel slice at a
        # fifth of the speed: 30 ms against 12 for a 720p frame); the same operations, the same bits.
        image = cv2.cvtColor(warped, cv2.COLOR_BGRA2BGR)
        image *= self._gain3()
        light = self.glare * (0.25 + 0.75 * warped[..., 3])
        image += cv2.merge([light, light, light])
        pixels = self._camera(np.clip(image, 0, 1.2, out=image), rng)
        return Frame(pixels, scene.labels(self.table_to_image), self.table_to_image, scene, t)

    def _gain3(self) -> np.ndarray:
        """The lamp's gain (H, W) repeated for each channel (H, W, 3), made again if `gain` was
        replaced (the widened renderer's hard shadow)."""
        if self._lit is None or self._lit[0] is not self.gain:
            self._lit = (self.gain, np.repeat(self.gain[..., None], 3, axis=2))
        return self._lit[1]

    def _camera(self, image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The camera's own marks on the lit float frame (H, W, 3) -> uint8 BGR; a subclass may
        film through another camera (the widened renderer's webcams)."""
        return camera_effects(image, self.style, rng)


def blur_radius(sigma: float) -> int:
    """The reach in px of OpenCV's Gaussian kernel for a float image and `sigma` (kernel size 0):
    its size is round(8 sigma + 1), made odd."""
    return (round(sigma * 8 + 1) | 1) // 2


def render_scene(scene: Scene, style: Style, size: tuple[int, int] = (1920, 1080), seed: int = 0) -> Frame:
    """Render one scene with a camera pose and table drawn from `seed`."""
    return Renderer(style, size, seed, scene.layout).render(scene, seed)
