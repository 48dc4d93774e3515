"""A calibrated camera's picture read on the table's plane, where every tile has one size.

A camera at an angle sees the tiles near it larger than those far away: on a table filmed so
that its far edge is 60 % as wide as its near edge, a tile is 1.7 times as long at the front as at
the back. One tile length for the whole picture then fits only part of the table, and a reader
told that length drops the rest (`vision.pipeline.CALIBRATED_LENGTH`). With a calibration
(`vision.calibration.Calibration`: image px -> table mm) the part of the table in view is warped
to a picture of the table seen from straight above (`rectify`), read there with the one tile
length the layout gives, and every corner is taken back to the input's pixels (`read_on_table`).
The table's edge bounds what is read: nothing beyond it is in play.

Scale: the rectified picture keeps the finest detail the camera has anywhere on the table (its
largest px per mm), within the bounds that hold for any read: a tile at most
`vision.scale.WORK_TILE_LENGTH_PX` long and at most `vision.scale.MAX_WORK_PIXELS` in all. Where
that means shrinking the input, it is first averaged down (`vision.scale.shrink`), so that the
warp's bilinear samples skip no pixel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.errors import VisionError
from vision.geometry import OUTSIDE
from vision.image import MIN_SIDE, checked_bgr
from vision.pipeline import checked_background, read_checked
from vision.plane import project
from vision.scale import MAX_WORK_PIXELS, WORK_TILE_LENGTH_PX, shrink
from vision.types import TableView

# px: no side of the rectified picture is longer, whatever the layout says (a table 4 m long is
# read at 1 px a millimetre); with `MAX_WORK_PIXELS` this bounds the picture however thin it is.
MAX_RECTIFIED_SIDE = 4096


@dataclass(frozen=True)
class Rectified:
    """The table part of an input picture seen from straight above."""

    image: np.ndarray  # uint8 (h, w, 3) BGR, grey (`OUTSIDE`) where the table is out of view
    tile_length_px: float  # a tile's length in `image`, everywhere
    factor: float  # the input was first shrunk by this (`vision.scale.shrink`; 1: not shrunk)
    warp_matrix: np.ndarray  # (3, 3): shrunk input px -> rectified px
    to_rectified: np.ndarray  # (3, 3): input px -> rectified px

    def warp(self, other: np.ndarray) -> np.ndarray:
        """Another picture of the input's size (the empty table) rectified the same way."""
        warped: np.ndarray = cv2.warpPerspective(
            shrink(other, self.factor), self.warp_matrix, (self.image.shape[1], self.image.shape[0]),
            flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=OUTSIDE)
        return warped

    def to_input(self, points: np.ndarray) -> np.ndarray:
        """(..., 2) rectified px -> float32 input px."""
        points = np.asarray(points, np.float64)
        back = project(np.linalg.inv(self.to_rectified), points.reshape(-1, 2))
        return back.reshape(points.shape).astype(np.float32)

    def flips_winding(self) -> bool:
        """Whether going back to the input mirrors the picture (the calibration of a mirrored
        camera): corners clockwise here are then anticlockwise there."""
        x, y = self.image.shape[1] / 2, self.image.shape[0] / 2
        here, right, down = self.to_input(np.array([[x, y], [x + 1, y], [x, y + 1]]))
        (ax, ay), (bx, by) = right - here, down - here
        return bool(ax * by - ay * bx < 0)


def _visible_region(calibration: Calibration, width: int,
                    height: int) -> tuple[float, float, float, float] | None:
    """The table's rectangle (x0, y0, x1, y1, mm) within the picture's bounds, or None when the
    picture shows none of it. A picture holding the horizon (a corner behind the camera) bounds
    nothing, and the whole table is kept."""
    layout = calibration.layout
    corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float64)
    homogeneous = np.hstack([corners, np.ones((4, 1))]) @ np.asarray(calibration.image_to_table).T
    x0, y0, x1, y1 = 0.0, 0.0, float(layout.width_mm), float(layout.height_mm)
    if np.all(homogeneous[:, 2] > 0) or np.all(homogeneous[:, 2] < 0):
        seen = homogeneous[:, :2] / homogeneous[:, 2:3]
        x0, y0 = max(x0, float(seen[:, 0].min())), max(y0, float(seen[:, 1].min()))
        x1, y1 = min(x1, float(seen[:, 0].max())), min(y1, float(seen[:, 1].max()))
    if x1 - x0 <= 0 or y1 - y0 <= 0:
        return None
    return x0, y0, x1, y1


def _px_per_mm(table_to_image: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The picture's scale (px per mm, the root of the area ratio) at each table point (N, 2)."""
    here = project(table_to_image, points)
    right = project(table_to_image, points + np.array([1.0, 0.0])) - here
    down = project(table_to_image, points + np.array([0.0, 1.0])) - here
    scale: np.ndarray = np.sqrt(np.abs(right[:, 0] * down[:, 1] - right[:, 1] * down[:, 0]))
    return scale


def rectify(image: np.ndarray, calibration: Calibration) -> Rectified | None:
    """uint8 (H, W, 3) `image` warped onto the table's plane (see the module), or None when it
    shows nothing of the calibrated table."""
    height, width = image.shape[:2]
    region = _visible_region(calibration, width, height)
    if region is None:
        return None
    x0, y0, x1, y1 = region
    table_to_image = np.linalg.inv(np.asarray(calibration.image_to_table, np.float64))
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
    depth = (np.hstack([corners, np.ones((4, 1))]) @ table_to_image.T)[:, 2]
    scales = _px_per_mm(table_to_image, corners)
    if not (np.all(depth > 0) or np.all(depth < 0)) or not np.all(np.isfinite(scales) & (scales > 0)):
        raise VisionError(f"the calibration puts a corner of the table ({corners.tolist()!r} mm) on or "
                          "behind the camera's horizon: calibrate it again with the table in view")
    finest = float(scales.max())
    tile_mm = float(calibration.layout.tile_length_mm)
    scale = min(finest, WORK_TILE_LENGTH_PX / tile_mm, math.sqrt(MAX_WORK_PIXELS / ((x1 - x0) * (y1 - y0))),
                MAX_RECTIFIED_SIDE / max(x1 - x0, y1 - y0))
    shrunk, factor = image, min(1.0, scale / finest)
    to_shrunk = np.eye(3)
    if factor < 1.0:
        shrunk = shrink(image, factor)
        fx, fy = shrunk.shape[1] / width, shrunk.shape[0] / height  # as cv2.resize maps centres
        to_shrunk = np.array([[fx, 0, 0.5 * fx - 0.5], [0, fy, 0.5 * fy - 0.5], [0, 0, 1]])
    to_pixels = np.array([[scale, 0, -x0 * scale], [0, scale, -y0 * scale], [0, 0, 1]])
    warp = to_pixels @ np.asarray(calibration.image_to_table, np.float64) @ np.linalg.inv(to_shrunk)
    size = (max(MIN_SIDE, math.ceil((x1 - x0) * scale)), max(MIN_SIDE, math.ceil((y1 - y0) * scale)))
    rectified = cv2.warpPerspective(shrunk, warp, size, flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_CONSTANT, borderValue=OUTSIDE)
    return Rectified(np.asarray(rectified, np.uint8), tile_mm * scale, factor, warp, warp @ to_shrunk)


def checked_calibration(calibration: object, width: int, height: int) -> Calibration:
    """`calibration` if it can be used on a `width` x `height` picture, else `VisionError`."""
    if not isinstance(calibration, Calibration):
        raise VisionError(f"calibration must be a vision.calibration.Calibration, got {calibration!r}")
    matrix = np.asarray(calibration.image_to_table, np.float64)
    if matrix.shape != (3, 3) or not np.all(np.isfinite(matrix)) or abs(np.linalg.det(matrix)) < 1e-12:
        raise VisionError(f"the calibration's homography is no invertible 3x3 matrix: {matrix.tolist()!r}")
    if calibration.image_size not in ((0, 0), (width, height)):
        known_w, known_h = calibration.image_size
        raise VisionError(f"the calibration is for {known_w}x{known_h} pictures, "
                          f"this one is {width}x{height}")
    return calibration


def cropped(calibration: Calibration, x0: int, y0: int, width: int, height: int) -> Calibration:
    """The calibration of the part of its picture from (x0, y0), `width` x `height` px."""
    shift = np.array([[1.0, 0.0, x0], [0.0, 1.0, y0], [0.0, 0.0, 1.0]])
    matrix = np.asarray(calibration.image_to_table, np.float64) @ shift
    return replace(calibration, image_to_table=matrix, image_size=(width, height))


def _corners_back(rectified: Rectified, corners: np.ndarray) -> np.ndarray:
    """(4, 2) rectified corners in the input's px, still clockwise on screen with the a-half's
    edge first (a mirrored camera's are reordered: the same edge first, the other way round)."""
    back = rectified.to_input(corners)
    return back[[1, 0, 3, 2]] if rectified.flips_winding() else back


def view_on_input(rectified: Rectified, view: TableView) -> TableView:
    """`view`, read on `rectified`, with every corner in the input's px."""
    tiles = tuple(replace(t, corners=_corners_back(rectified, t.corners)) for t in view.tiles)
    candidates = tuple(replace(v, corners=_corners_back(rectified, v.corners)) for v in view.candidates)
    backs = tuple(_corners_back(rectified, c) for c in view.face_down_corners)
    return replace(view, tiles=tiles, face_down_corners=backs, candidates=candidates)


def read_on_table(image_bgr: object, calibration: object, *, max_pip: int, min_confidence: float,
                  background: object = None, one_set: bool = False) -> TableView:
    """`read_image` of a calibrated camera's picture: read rectified (see the module), with
    corners in `image_bgr`'s px. A picture that shows nothing of the table shows no tile."""
    checked = checked_bgr(image_bgr)
    height, width = checked.shape[:2]
    table = checked_calibration(calibration, width, height)
    empty = None if background is None else checked_background(background, checked.shape)
    rectified = rectify(checked, table)
    if rectified is None:
        return TableView(tiles=())
    return read_rectified(rectified, max_pip=max_pip, min_confidence=min_confidence,
                          tile_length_px=rectified.tile_length_px, empty=empty, one_set=one_set)


def read_rectified(rectified: Rectified, *, max_pip: int, min_confidence: float,
                   tile_length_px: float | None, empty: np.ndarray | None, one_set: bool) -> TableView:
    """`read_checked` of `rectified`'s picture, told `tile_length_px` (None: no length) and given
    the checked empty table `empty` (of the input's size) rectified the same way, with every
    corner in the input's px."""
    view = read_checked(rectified.image, max_pip=max_pip, min_confidence=min_confidence,
                        tile_length_px=tile_length_px,
                        background=None if empty is None else rectified.warp(empty), one_set=one_set)
    return view_on_input(rectified, view)
