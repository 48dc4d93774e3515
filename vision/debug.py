"""A picture of what `read_image` saw, for checking a real table by eye."""

from __future__ import annotations

import cv2
import numpy as np

from vision.background import UNCHANGED
from vision.geometry import frame_from_corners
from vision.pipeline import OFF_SIZE, REPEAT
from vision.types import TableView


def draw_view(image_bgr: np.ndarray, view: TableView) -> np.ndarray:
    """A copy of the image with every candidate's verdict and confidence (thin), the tiles read
    (green, a-half edge thicker) with values and confidence, the backs and the joins."""
    out = image_bgr.copy()
    scale = max(1.0, min(out.shape[:2]) / 600)
    thick = max(1, round(2 * scale))
    # Every candidate the reader looked at, thin, coloured by its verdict: grey for not a tile,
    # purple for a back, yellow for a face-up tile it did not keep (a kept one is drawn over it),
    # orange for a tile read where nothing changed since the background was taken, red for a
    # second reading of a tile the set holds once, blue for a reading not the set's size.
    colours = {"not a tile": (150, 150, 150), "face-down": (160, 0, 160), "face-up": (0, 220, 255),
               UNCHANGED: (0, 120, 255), REPEAT: (0, 0, 230),
               OFF_SIZE: (255, 90, 0)}
    for verdict in view.candidates:
        corners = np.round(verdict.corners).astype(np.int32)
        colour = colours.get(verdict.kind, (255, 255, 255))
        cv2.polylines(out, [corners], True, colour, 1, cv2.LINE_AA)
        at = corners.mean(axis=0).astype(int)
        cv2.putText(out, f"{verdict.confidence:.2f}", (int(at[0]) - 12, int(at[1])), cv2.FONT_HERSHEY_SIMPLEX,
                    0.35 * scale, colour, 1, cv2.LINE_AA)
    for tile in view.tiles:
        corners = np.round(tile.corners).astype(np.int32)
        colour = (0, 200, 0) if tile.confidence >= 0.5 else (0, 200, 255)
        cv2.polylines(out, [corners], True, colour, thick)
        cv2.line(out, tuple(corners[0]), tuple(corners[1]), (255, 0, 255), thick * 2)
        frame = frame_from_corners(tile.corners)
        for value, sign in ((tile.a, -1), (tile.b, 1)):
            at = frame.center + sign * frame.along * frame.half_length * 0.5
            cv2.putText(out, str(value), (int(at[0]), int(at[1])), cv2.FONT_HERSHEY_SIMPLEX,
                        0.8 * scale, (0, 0, 255), thick, cv2.LINE_AA)
        label = f"{tile.tile} {tile.confidence:.2f}"
        at = corners.min(axis=0)
        cv2.putText(out, label, (int(at[0]), int(at[1]) - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale,
                    (255, 0, 0), thick, cv2.LINE_AA)
    for corners in view.face_down_corners:
        cv2.polylines(out, [np.round(corners).astype(np.int32)], True, (128, 0, 128), thick)
    for first, _, second, _ in view.join_halves:
        p = frame_from_corners(view.tiles[first].corners).center
        q = frame_from_corners(view.tiles[second].corners).center
        cv2.line(out, (int(p[0]), int(p[1])), (int(q[0]), int(q[1])), (255, 255, 0), thick)
    cv2.putText(out, f"face-up {len(view.tiles)}  face-down {view.face_down}", (10, int(30 * scale)),
                cv2.FONT_HERSHEY_SIMPLEX, 0.8 * scale, (0, 0, 255), thick, cv2.LINE_AA)
    return out
