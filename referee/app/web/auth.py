"""Who may command the table from the web: the PIN (the manager's page) or the token (scripts).

A correct PIN at ``POST /login`` gives a session cookie: an HMAC, under a key made at start-up, of
the word ``manager`` (so sessions end when the service restarts and no session is stored). Scripts
send ``Authorization: Bearer <token>`` (the PIN works there too). Secrets are compared in constant
time; more than `WRONG_SECRETS_PER_MINUTE` wrong ones in a minute and every attempt is answered
"too many attempts" until the minute has passed.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import time
from collections import deque
from collections.abc import Callable, Mapping

from referee.app.web.limits import WRONG_SECRETS_PER_MINUTE
from referee.errors import DominoError

COOKIE = "domino_session"


class WebAuthError(DominoError, PermissionError):
    """A request without the right PIN or token; `status` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 403) -> None:
        super().__init__(message)
        self.status = status


class Gate:
    """Checks PINs, tokens and session cookies; thread-safe enough for one event loop."""

    def __init__(self, pin: str | None, token: str | None, *,
                 now: Callable[[], float] = time.monotonic) -> None:
        self.pin = pin or None
        self.token = token or None
        self._key = os.urandom(32)
        self._now = now
        self._wrong: deque[float] = deque()

    @property
    def open_to_commands(self) -> bool:
        return self.pin is not None or self.token is not None

    def session(self) -> str:
        return hmac.new(self._key, b"manager", hashlib.sha256).hexdigest()

    def _throttled(self) -> bool:
        now = self._now()
        while self._wrong and now - self._wrong[0] > 60.0:
            self._wrong.popleft()
        return len(self._wrong) >= WRONG_SECRETS_PER_MINUTE

    def _matches(self, secret: str) -> bool:
        given = secret.encode("utf-8", errors="replace")
        return any(hmac.compare_digest(given, known.encode("utf-8"))
                   for known in (self.pin, self.token) if known is not None)

    def login(self, pin: str) -> str:
        """The session cookie's value for a correct PIN or token; else `WebAuthError`."""
        if not self.open_to_commands:
            raise WebAuthError("this table has no [web] pin or token: commands from the web are off")
        if self._throttled():
            raise WebAuthError(f"too many wrong PINs (more than {WRONG_SECRETS_PER_MINUTE} a minute): "
                               "wait a minute", 429)
        if not self._matches(pin):
            self._wrong.append(self._now())
            raise WebAuthError("wrong PIN")
        return self.session()

    def check(self, headers: Mapping[str, str], cookies: Mapping[str, str]) -> None:
        """Let a request through with a session cookie or a bearer token; else `WebAuthError`."""
        if not self.open_to_commands:
            raise WebAuthError("this table has no [web] pin or token: commands from the web are off")
        cookie = cookies.get(COOKIE)
        if cookie is not None and hmac.compare_digest(cookie.encode(), self.session().encode()):
            return
        header = headers.get("Authorization", "")
        if not header and cookie is None:
            raise WebAuthError("sign in with the PIN (POST /login) or send Authorization: Bearer <token>",
                               401)
        scheme, _, secret = header.partition(" ")
        if scheme.lower() != "bearer" or not secret:
            raise WebAuthError("the session has ended: sign in again" if cookie is not None else
                               f"Authorization must be 'Bearer <token>', found {scheme!r}", 401)
        if self._throttled():
            raise WebAuthError(f"too many wrong tokens (more than {WRONG_SECRETS_PER_MINUTE} a minute)", 429)
        if not self._matches(secret.strip()):
            self._wrong.append(self._now())
            raise WebAuthError("wrong token")
