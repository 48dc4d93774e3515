"""The table's web face: the OBS overlay, the table manager's page, the club page and the JSON API.

`Hub` (hub.py) is one more publisher of the service; `WebServer` (server.py) serves it with aiohttp
on a thread of its own; `ClubWatcher` (club.py) follows every table on the broker; `FrameTap`
(frames.py) keeps the newest camera frame with what vision saw drawn on it.
"""

from __future__ import annotations

from referee.app.web.hub import Hub
from referee.app.web.server import WebError, WebServer

__all__ = ["Hub", "WebError", "WebServer"]
