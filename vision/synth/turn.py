"""A picture as a camera turned away from straight down would have taken it.

`camera_turn(image, degrees, axis)` warps a picture by the homography K R K^-1 of a pinhole camera
turned by `degrees` about an axis in the picture's plane through its centre, K with a focal length
of `FOCAL_SHARE` of the picture's longer side (a phone's). It is how the slant benchmark
(`benchmarks.vision_slant`) photographs rendered tables and real photos at a slant, and how the
training recipe (`vision.train.fit`) shows the networks tables seen at a slant.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

FOCAL_SHARE = 0.9  # the camera's focal length over the picture's longer side


def camera_turn(image: np.ndarray, degrees: float, axis_radians: float) -> tuple[np.ndarray, np.ndarray]:
    """`image` as its camera would see the scene turned by `degrees` about the axis in the picture's
    plane at `axis_radians` from its x axis, scaled to fit in the longer side it had (never
    enlarged); and the (3, 3) homography from `image`'s px to the new picture's."""
    height, width = image.shape[:2]
    focal = FOCAL_SHARE * max(width, height)
    camera = np.array([[focal, 0, width / 2], [0, focal, height / 2], [0, 0, 1]])
    rotation, _ = cv2.Rodrigues(np.array([math.cos(axis_radians), math.sin(axis_radians), 0.0])
                                * math.radians(degrees))
    turn = camera @ rotation @ np.linalg.inv(camera)
    corners = cv2.perspectiveTransform(
        np.array([[[0, 0], [width, 0], [width, height], [0, height]]], np.float64), turn)[0]
    low, high = corners.min(axis=0), corners.max(axis=0)
    scale = min(1.0, max(width, height) / float(max(high - low)))
    fit = np.array([[scale, 0, -low[0] * scale], [0, scale, -low[1] * scale], [0, 0, 1]])
    size = (max(1, int((high[0] - low[0]) * scale)), max(1, int((high[1] - low[1]) * scale)))
    homography = fit @ turn
    turned = cv2.warpPerspective(image, homography, size, flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(turned, np.uint8), homography
