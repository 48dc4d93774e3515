"""A close-up of a tile turned 45 degrees: the picture read again, turned an eighth.

A dataset of single tiles, a phone held over one tile or a robot's camera over the tile it picks
up shows a tile that fills its picture. Upright or on its side such a tile is read like any
other; turned about 45 degrees, in a real photo enlarged to fill the picture, the finder frames
it about half its size and across, and the read sees no tile at all (the finder learnt from
tables, where a tile is a small part of the picture; `benchmarks.vision_cropped`). Turned an
eighth, that tile lies upright or on its side.

So a picture whose read saw no face-up tile is read once more turned an eighth (`TURN_DEGREES`),
as a plane (`vision.rectify.rectify`, the turn as its calibration, `vision.slant.plane_calibration`)
shrunk so that its longer side is `SIDE_PX` long: a tile filling it is then about as long as
the tile reader's crop (`vision.crops.CROP_HEIGHT`), so the reader loses nothing it would see,
and the finder's pyramid over so small a picture costs a few milliseconds. Corners come back in
the input's pixels. Each face-up tile that read sees is then looked at where it lies in the
picture itself, by the reader's usual looks (`confirmed`): a picture shrunk to 80 px and turned
can show the reader a tile where there is none (a pen between two dice on a cloth, seen as a
tile's divider and pips), which the picture at its own scale does not. The tiles so confirmed
are the read, with the first read's backs but those lying on them, and both reads' candidates
for `--debug`; with none, the first read is kept as it was.

A picture with any face-up tile read, a calibrated camera's and a picture told its tiles' length
are read once, as before: a tile filling its picture is a close-up's case, never a table's.
"""

from __future__ import annotations

import numpy as np

from vision.geometry import frame_from_corners, inside_any
from vision.pipeline import choose, coarse, face_up_readings, first_look, joined_view
from vision.plane import rotation
from vision.rectify import read_rectified, rectify
from vision.scale import WORK_TILE_LENGTH_PX
from vision.slant import plane_calibration
from vision.tilenet import shipped
from vision.types import SeenTile, TableView, tile_name

# Degrees the picture is turned: a tile at 45 degrees then lies upright or on its side, and one
# at 30 or 60 lies 15 degrees off them, as the finder reads it either way.
TURN_DEGREES = 45.0
# px, the turned picture's scale: the input's longer side is shrunk to this (never enlarged). A
# tile filling a picture cut to it (a tenth of its length round it, or none) is then 64-75 px
# long, the tile reader's 64-px crop (`vision.crops.CROP_HEIGHT`). On the 63 tiles of the shared
# photos cut 120 and 300 px long and turned 45 degrees (`benchmarks.vision_cropped`, four
# conditions): 249 of 252 read; at 120 px, 242; at 240 px, 246; none misread at any. A turned read
# of a 1080p table costs 12-28 ms at 80 px, 42-60 at 240 (most of it the pyramid over more px).
SIDE_PX = 80.0


def read_close_up(image: np.ndarray, view: TableView, *, max_pip: int, min_confidence: float,
                  background: np.ndarray | None = None, one_set: bool = False) -> TableView:
    """`view`, the read of the checked uint8 (H, W, 3) `image`, or, when it holds no face-up tile,
    the read of `image` turned `TURN_DEGREES` with corners in `image`'s px, if that one holds
    one. `background` is the empty table already checked against `image`
    (`vision.pipeline.checked_background`), or None."""
    if view.tiles:
        return view
    height, width = image.shape[:2]
    turn = np.eye(3)
    turn[:2, :2] = rotation(TURN_DEGREES)  # about the picture's centre
    turn = turn @ np.array([[1.0, 0.0, -width / 2], [0.0, 1.0, -height / 2], [0.0, 0.0, 1.0]])
    longer = float(max(height, width))
    # `rectify` shrinks a plane so that its tile is at most `WORK_TILE_LENGTH_PX` long (and never
    # enlarges it): told a tile is this long, it brings the picture's longer side to `SIDE_PX`.
    told_length = longer * WORK_TILE_LENGTH_PX / SIDE_PX
    turned = rectify(image, plane_calibration(turn, image.shape, told_length))
    if turned is None:
        return view
    again = read_rectified(turned, max_pip=max_pip, min_confidence=min_confidence, tile_length_px=None,
                           empty=background, one_set=one_set)
    tiles = confirmed(image, again.tiles, max_pip=max_pip, min_confidence=min_confidence)
    if not tiles:
        return view
    frames = [frame_from_corners(tile.corners) for tile in tiles]
    # The first read's backs, at the picture's own scale, less any it saw where a tile now lies.
    backs = [c for c in view.face_down_corners if not inside_any(np.mean(c, axis=0)[None, :], frames)[0]]
    return joined_view(tiles, frames, tuple(backs), view.candidates + again.candidates)


def confirmed(image: np.ndarray, tiles: tuple[SeenTile, ...], *, max_pip: int,
              min_confidence: float) -> tuple[SeenTile, ...]:
    """The tiles of `tiles` (corners in `image`'s px) that the reader, looking from each one's frame
    in the checked `image` at its working scale (`first_look`, `face_up_readings`, `choose`),
    reads as the same tile with its centre inside that frame."""
    if not tiles:  # the turned read saw none: no picture to bring to scale, no look
        return ()
    net = shipped()
    picture = coarse(image)
    frames = [frame_from_corners(np.asarray(t.corners, np.float32) * picture.factor) for t in tiles]
    readings, _ = face_up_readings(net, picture, first_look(net, picture, frames), max_pip=max_pip)
    kept = choose(readings, min_confidence)
    return tuple(tile for tile, frame in zip(tiles, frames, strict=True)
                 if any(tile_name(r.top, r.bottom) == tile.tile
                        and inside_any(r.frame.center[None, :], [frame])[0] for r in kept))
