"""The newest camera frame for the manager's page, with what vision saw drawn on it.

The camera thread calls `offer(image, tracker)` for every frame; at most once per `FRAME_EVERY`
seconds the frame is drawn on (the tracker's tiles outlined: green in the line, orange loose, with
their names) and encoded as JPEG. Reading (`latest`) never waits for the camera.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from referee.app.web.limits import FRAME_EVERY

# The manager's page shows the frame this wide at most (a phone needs no more).
FRAME_WIDTH = 960
# The camera's rate is measured over this many of its latest frames.
FPS_WINDOW = 30


class FrameTap:
    def __init__(self, *, now: Callable[[], float] = time.monotonic, every: float = FRAME_EVERY) -> None:
        self._now = now
        self._every = every
        self._lock = threading.Lock()
        self._jpeg: bytes | None = None
        self._last = -float("inf")
        self.frames = 0
        self.seen = 0
        self._arrivals: deque[float] = deque(maxlen=FPS_WINDOW)

    def offer(self, image: Any, tracker: Any = None) -> bool:
        """Keep this frame if the last one kept is old enough; returns whether it was kept."""
        now = self._now()
        with self._lock:
            self.seen += 1
            self._arrivals.append(now)
        if now - self._last < self._every:
            return False
        self._last = now
        import cv2
        import numpy as np

        canvas = image.copy()
        for tile in getattr(tracker, "tiles", ()) or ():
            corners = np.asarray(tile.image_corners, np.int32).reshape(-1, 1, 2)
            colour = (0, 200, 0) if getattr(tile, "in_line", False) else (0, 160, 255)
            cv2.polylines(canvas, [corners], True, colour, 2)
            x, y = corners.reshape(-1, 2).mean(axis=0).astype(int)
            cv2.putText(canvas, str(tile.name), (int(x) - 14, int(y) + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                        (0, 0, 255), 2)
        height, width = canvas.shape[:2]
        if width > FRAME_WIDTH:
            canvas = cv2.resize(canvas, (FRAME_WIDTH, round(height * FRAME_WIDTH / width)))
        ok, encoded = cv2.imencode(".jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, 80])
        if not ok:
            return False
        with self._lock:
            self._jpeg = encoded.tobytes()
            self.frames += 1
        return True

    def stats(self) -> dict[str, float | int | None]:
        """The camera as the manager's page shows it: frames seen, its rate, the last one's age."""
        with self._lock:
            arrivals = list(self._arrivals)
            seen = self.seen
        span = arrivals[-1] - arrivals[0] if len(arrivals) > 1 else 0.0
        return {"frames": seen, "fps": round((len(arrivals) - 1) / span, 1) if span > 0 else None,
                "last_frame_age": round(self._now() - arrivals[-1], 1) if arrivals else None}

    def latest(self) -> bytes | None:
        with self._lock:
            return self._jpeg
