"""The crash-safe event log: every accepted input is on disk before the referee acts on it.

One SQLite file (WAL, ``synchronous=FULL``: each commit is fsync'd) holds

- ``matches``: one row per match, with the settings it was started with;
- ``inputs``: every accepted input of a match in arrival order, with its match time ``t``;
- ``outbox``: every event the service published, keyed by the input that caused it, and whether
  the broker acknowledged it (PUBACK). Events are keyed by ``(input_seq, n)`` so replaying the log
  after a crash re-creates an event that was lost between logging its input and publishing it,
  without doubling the ones already there.

After a power cut or ``kill -9`` the service replays the last unfinished match's inputs into a fresh
referee and republishes what the broker never acknowledged.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import DominoError

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY, settings TEXT NOT NULL, finished INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS inputs (
    seq INTEGER PRIMARY KEY, match INTEGER NOT NULL REFERENCES matches(id), t REAL NOT NULL,
    kind TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY, input_seq INTEGER, n INTEGER NOT NULL, payload TEXT NOT NULL,
    delivered INTEGER NOT NULL DEFAULT 0, UNIQUE (input_seq, n));
"""


class EventLogError(DominoError, OSError):
    """The event log file cannot be opened or is not one of ours."""


@dataclass(frozen=True)
class LoggedInput:
    seq: int
    t: float
    kind: str
    data: Mapping[str, Any]


@dataclass(frozen=True)
class MatchEntry:
    id: int
    settings: Mapping[str, Any]
    finished: bool


class EventLog:
    """The log file; safe to share between the consumer thread and the MQTT thread."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
        except (sqlite3.Error, OSError) as error:
            raise EventLogError(f"event log {str(self.path)!r}: {error}") from None
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _write(self, sql: str, args: tuple[Any, ...]) -> int:
        with self._lock:
            cursor = self._db.execute(sql, args)
            return int(cursor.lastrowid or 0)

    # -- matches ---------------------------------------------------------------------------------
    def begin_match(self, settings: Mapping[str, Any]) -> int:
        return self._write("INSERT INTO matches (settings) VALUES (?)", (json.dumps(settings),))

    def finish_match(self, match: int) -> None:
        self._write("UPDATE matches SET finished = 1 WHERE id = ?", (match,))

    def last_match(self) -> MatchEntry | None:
        with self._lock:
            row = self._db.execute(
                "SELECT id, settings, finished FROM matches ORDER BY id DESC LIMIT 1").fetchone()
        if row is None:
            return None
        return MatchEntry(int(row[0]), json.loads(row[1]), bool(row[2]))

    # -- inputs ----------------------------------------------------------------------------------
    def append(self, match: int, t: float, kind: str, data: Mapping[str, Any]) -> int:
        """Write one input durably (the commit is fsync'd) and return its sequence number."""
        return self._write("INSERT INTO inputs (match, t, kind, data) VALUES (?, ?, ?, ?)",
                           (match, t, kind, json.dumps(data, ensure_ascii=False, sort_keys=True)))

    def inputs(self, match: int) -> list[LoggedInput]:
        with self._lock:
            rows = self._db.execute("SELECT seq, t, kind, data FROM inputs WHERE match = ? ORDER BY seq",
                                    (match,)).fetchall()
        return [LoggedInput(int(seq), float(t), str(kind), json.loads(data)) for seq, t, kind, data in rows]

    # -- outbox ----------------------------------------------------------------------------------
    def add_event(self, input_seq: int | None, n: int, document: Mapping[str, Any]) -> tuple[int, str, bool]:
        """Store an event (once per ``(input_seq, n)``); returns its seq, payload and whether it is new."""
        with self._lock:
            if input_seq is not None:
                row = self._db.execute("SELECT seq, payload FROM outbox WHERE input_seq = ? AND n = ?",
                                       (input_seq, n)).fetchone()
                if row is not None:
                    return int(row[0]), str(row[1]), False
            seq = int(self._db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM outbox").fetchone()[0])
            payload = json.dumps({"seq": seq, **document}, ensure_ascii=False, sort_keys=True)
            self._db.execute("INSERT INTO outbox (seq, input_seq, n, payload) VALUES (?, ?, ?, ?)",
                             (seq, input_seq, n, payload))
            return seq, payload, True

    def mark_delivered(self, seq: int) -> None:
        self._write("UPDATE outbox SET delivered = 1 WHERE seq = ?", (seq,))

    def undelivered(self) -> list[tuple[int, str]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, payload FROM outbox WHERE delivered = 0 ORDER BY seq").fetchall()
        return [(int(seq), str(payload)) for seq, payload in rows]

    def events(self) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute("SELECT payload FROM outbox ORDER BY seq").fetchall()
        return [json.loads(payload) for (payload,) in rows]
