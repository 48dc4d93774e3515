"""The crash-safe event log: every accepted input is on disk before the referee acts on it.

One SQLite file (WAL, ``synchronous=FULL``: each commit is fsync'd) holds

- ``header``: what the file is (format, version) and its identity: a random ``log_id``, the table
  and when it was created;
- ``matches``: one row per match, with the settings it was started with;
- ``inputs``: every accepted input of a match in arrival order, with its match time ``t``;
- ``outbox``: every event the service published, keyed by the input that caused it, and whether
  the broker acknowledged it (PUBACK). Events are keyed by ``(input_seq, n)`` so replaying the log
  after a crash re-creates an event that was lost between logging its input and publishing it,
  without doubling the ones already there.

After a power cut or ``kill -9`` the service replays the last unfinished match's inputs into a fresh
referee and republishes what the broker never acknowledged.

A log that cannot lie: `logcheck` checks the file before anything is read from it or written to
it (see there), and the high-water file beside it (`HighWater`) remembers the highest input, event
and match numbers ever handed out, so a log that lost rows is refused and a new log never reuses
a number. A write that fails (disk full, read-only) raises `LogWriteError` and leaves the file as
it was: the caller keeps the input and tries again.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.app.logcheck import (
    FORMAT,
    VERSION,
    EventLogDamaged,
    EventLogError,
    HighWater,
    check_files,
    check_rows,
    event_digest,
    input_chain,
    match_digest,
    set_aside,
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS header (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY, settings TEXT NOT NULL, finished INTEGER NOT NULL DEFAULT 0,
    digest TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS inputs (
    seq INTEGER PRIMARY KEY, match INTEGER NOT NULL REFERENCES matches(id), t REAL NOT NULL,
    kind TEXT NOT NULL, data TEXT NOT NULL, chain TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY, input_seq INTEGER, n INTEGER NOT NULL, payload TEXT NOT NULL,
    delivered INTEGER NOT NULL DEFAULT 0, digest TEXT NOT NULL DEFAULT '', UNIQUE (input_seq, n));
"""

__all__ = ["EventLog", "EventLogDamaged", "EventLogError", "LogWriteError", "LoggedInput", "MatchEntry"]


class LogWriteError(EventLogError):
    """A write to the event log failed (disk full, read-only, I/O error); nothing was written."""


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
    """The log file; safe to share between the consumer thread and the MQTT thread.

    `new_log=True` is the user's answer to a refused log: the damaged file is renamed aside (never
    deleted) and a new log starts, its numbers going on after the high-water mark. `table_id` is
    written in a new log's header. `on_problem` hears what went wrong that is not the caller's to
    handle (a delivery mark that could not be written, a missing high-water file recreated).
    """

    def __init__(self, path: str | Path, *, new_log: bool = False, table_id: str = "",
                 on_problem: Callable[[str], None] | None = None) -> None:
        self.path = Path(path)
        self.on_problem = on_problem
        self.set_aside: Path | None = None
        self.notes: list[str] = []
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise EventLogError(f"event log {str(self.path)!r}: cannot create its folder: {error}") from None
        if not os.access(self.path.parent, os.W_OK):
            # SQLite cannot even read a WAL log without writing its shared-memory index beside it.
            raise EventLogError(f"event log {str(self.path)!r}: its folder is read-only: make it writable "
                                "again (remount the disk read-write); the match resumes from the log")
        self.high_water = HighWater(self.path)
        mark = self.high_water.read(self.notes)
        problem = check_files(self.path, mark)
        if problem is None and self.path.exists() and self.path.stat().st_size > 0:
            problem = check_rows(self.path, mark)
        if problem is not None:
            if not new_log:
                raise EventLogDamaged.about(self.path, problem, mark)
            self.set_aside = set_aside(self.path)
            self.notes.append(f"the damaged event log was kept as {self.set_aside.name}: {problem}")
        self._lock = threading.Lock()
        self._undelivered_marks: set[int] = set()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
            self.log_id = self._header(table_id)
        except (sqlite3.Error, OSError) as error:
            raise EventLogError(f"event log {str(self.path)!r}: {error}") from None
        self._floor = mark.with_log(self.log_id).raised(*self._maxima())
        self._chain = self._last_chain()
        self.on_problem = on_problem or self.notes.append
        self._save_high_water()
        self.on_problem = on_problem

    def _header(self, table_id: str) -> str:
        rows = dict(self._db.execute("SELECT key, value FROM header").fetchall())
        if rows:
            return str(rows["log_id"])
        # A new file, or a log of version 1 (no header, no digests): give it its identity now.
        log_id = uuid.uuid4().hex
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for key, value in (("format", FORMAT), ("version", str(VERSION)), ("log_id", log_id),
                               ("table", table_id), ("created", f"{time.time():.3f}")):
                self._db.execute("INSERT INTO header (key, value) VALUES (?, ?)", (key, value))
            self._upgrade(log_id)
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        return log_id

    def _upgrade(self, log_id: str) -> None:
        """Digests for the rows of a version-1 log (columns added by ALTER when missing)."""
        for table, column in (("matches", "digest"), ("inputs", "chain"), ("outbox", "digest")):
            columns = [row[1] for row in self._db.execute(f"PRAGMA table_info({table})")]
            if column not in columns:
                self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT NOT NULL DEFAULT ''")
        for id_, settings in self._db.execute("SELECT id, settings FROM matches").fetchall():
            self._db.execute("UPDATE matches SET digest = ? WHERE id = ?",
                             (match_digest(log_id, id_, settings), id_))
        chain = log_id
        for seq, match, t, kind, data in self._db.execute(
                "SELECT seq, match, t, kind, data FROM inputs ORDER BY seq").fetchall():
            chain = input_chain(chain, seq, match, t, kind, data)
            self._db.execute("UPDATE inputs SET chain = ? WHERE seq = ?", (chain, seq))
        for seq, input_seq, n, payload in self._db.execute(
                "SELECT seq, input_seq, n, payload FROM outbox").fetchall():
            self._db.execute("UPDATE outbox SET digest = ? WHERE seq = ?",
                             (event_digest(log_id, seq, input_seq, n, payload), seq))

    def _last_chain(self) -> str:
        row = self._db.execute("SELECT chain FROM inputs ORDER BY seq DESC LIMIT 1").fetchone()
        return self.log_id if row is None else str(row[0])

    def _maxima(self) -> tuple[int, int, int]:
        inputs, events, matches = self._db.execute(
            "SELECT (SELECT COALESCE(MAX(seq), 0) FROM inputs), (SELECT COALESCE(MAX(seq), 0) FROM outbox), "
            "(SELECT COALESCE(MAX(id), 0) FROM matches)").fetchone()
        return int(inputs), int(events), int(matches)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- writing ---------------------------------------------------------------------------------
    def _transaction(self, work: Callable[[sqlite3.Connection], Any]) -> Any:
        """Run `work` in one fsync'd transaction; a failure rolls it back and raises `LogWriteError`.
        The high-water file follows every commit that handed out a number."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    result = work(self._db)
                    self._db.execute("COMMIT")
                except BaseException:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
            except (sqlite3.Error, OSError) as error:
                raise LogWriteError(f"event log {str(self.path)!r}: cannot write: {error}") from None
            self._floor = self._floor.raised(*self._maxima())
            marks, self._undelivered_marks = self._undelivered_marks, set()
        self._save_high_water()
        for seq in sorted(marks):   # delivery marks that failed while the disk was full
            self.mark_delivered(seq)
        return result

    def _save_high_water(self) -> None:
        try:
            self.high_water.write(self._floor)
        except OSError as error:
            # The input is committed: failing it now would log it twice on retry. The mark is
            # rewritten with the next commit; until then a lost tail goes unnoticed.
            self._problem(f"high-water file {self.high_water.path.name}: cannot write: {error.strerror}")

    def _problem(self, text: str) -> None:
        if self.on_problem is not None:
            self.on_problem(text)

    # -- matches ---------------------------------------------------------------------------------
    def begin_match(self, settings: Mapping[str, Any]) -> int:
        text = json.dumps(settings)

        def work(db: sqlite3.Connection) -> int:
            match = max(self._maxima()[2], self._floor.match) + 1
            db.execute("INSERT INTO matches (id, settings, digest) VALUES (?, ?, ?)",
                       (match, text, match_digest(self.log_id, match, text)))
            return match
        result: int = self._transaction(work)
        return result

    def start_match(self, settings: Mapping[str, Any], data: Mapping[str, Any]) -> tuple[int, int]:
        """A new match and its ``start`` input (match time 0) in one transaction: a match is never
        left without its start. Returns the match's id and the input's seq."""
        settings_text = json.dumps(settings)
        text = json.dumps(data, ensure_ascii=False, sort_keys=True)

        def work(db: sqlite3.Connection) -> tuple[int, int, str]:
            most_inputs, _, most_matches = self._maxima()
            match = max(most_matches, self._floor.match) + 1
            seq = max(most_inputs, self._floor.input) + 1
            chain = input_chain(self._chain, seq, match, 0.0, "start", text)
            db.execute("INSERT INTO matches (id, settings, digest) VALUES (?, ?, ?)",
                       (match, settings_text, match_digest(self.log_id, match, settings_text)))
            db.execute("INSERT INTO inputs (seq, match, t, kind, data, chain) VALUES (?, ?, ?, ?, ?, ?)",
                       (seq, match, 0.0, "start", text, chain))
            return match, seq, chain
        match, seq, self._chain = self._transaction(work)
        return int(match), int(seq)

    def finish_match(self, match: int) -> None:
        self._transaction(lambda db: db.execute("UPDATE matches SET finished = 1 WHERE id = ?", (match,)))

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
        text = json.dumps(data, ensure_ascii=False, sort_keys=True)

        def work(db: sqlite3.Connection) -> tuple[int, str]:
            seq = max(self._maxima()[0], self._floor.input) + 1
            chain = input_chain(self._chain, seq, match, t, kind, text)
            db.execute("INSERT INTO inputs (seq, match, t, kind, data, chain) VALUES (?, ?, ?, ?, ?, ?)",
                       (seq, match, t, kind, text, chain))
            return seq, chain
        seq, self._chain = self._transaction(work)
        return int(seq)

    def inputs(self, match: int) -> list[LoggedInput]:
        with self._lock:
            rows = self._db.execute("SELECT seq, t, kind, data FROM inputs WHERE match = ? ORDER BY seq",
                                    (match,)).fetchall()
        return [LoggedInput(int(seq), float(t), str(kind), json.loads(data)) for seq, t, kind, data in rows]

    # -- outbox ----------------------------------------------------------------------------------
    def add_event(self, input_seq: int | None, n: int, document: Mapping[str, Any]) -> tuple[int, str, bool]:
        """Store an event (once per ``(input_seq, n)``); returns its seq, payload and whether it is new."""
        return self.add_events(input_seq, [document], first=n)[0]

    def add_events(self, input_seq: int | None, documents: Iterable[Mapping[str, Any]], *,
                   first: int = 0) -> list[tuple[int, str, bool]]:
        """Store one input's events in one transaction (numbered ``first``, ``first + 1``, …)."""
        items = list(documents)

        def work(db: sqlite3.Connection) -> list[tuple[int, str, bool]]:
            stored: list[tuple[int, str, bool]] = []
            for n, document in enumerate(items, first):
                if input_seq is not None:
                    row = db.execute("SELECT seq, payload FROM outbox WHERE input_seq = ? AND n = ?",
                                     (input_seq, n)).fetchone()
                    if row is not None:
                        stored.append((int(row[0]), str(row[1]), False))
                        continue
                seq = max(self._maxima()[1], self._floor.event) + 1
                payload = json.dumps({"seq": seq, **document}, ensure_ascii=False, sort_keys=True)
                db.execute("INSERT INTO outbox (seq, input_seq, n, payload, digest) VALUES (?, ?, ?, ?, ?)",
                           (seq, input_seq, n, payload,
                            event_digest(self.log_id, seq, input_seq, n, payload)))
                stored.append((seq, payload, True))
            return stored
        if not items:
            return []
        result: list[tuple[int, str, bool]] = self._transaction(work)
        return result

    def mark_delivered(self, seq: int) -> None:
        """Note the broker's PUBACK (the MQTT thread calls this: it never raises). A mark that
        cannot be written now is kept and written with the next commit."""
        with self._lock:
            try:
                self._db.execute("UPDATE outbox SET delivered = 1 WHERE seq = ?", (seq,))
                return
            except sqlite3.Error as error:
                self._undelivered_marks.add(seq)
                reason = str(error)
        self._problem(f"event log {self.path.name}: cannot mark event {seq} delivered: {reason}")

    def undelivered(self) -> list[tuple[int, str]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, payload FROM outbox WHERE delivered = 0 ORDER BY seq").fetchall()
        return [(int(seq), str(payload)) for seq, payload in rows]

    def events(self) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute("SELECT payload FROM outbox ORDER BY seq").fetchall()
        return [json.loads(payload) for (payload,) in rows]

