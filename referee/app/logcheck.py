"""Checking an event log before it is trusted: the files, the rows, and the high-water mark.

SQLite by itself hides the faults that matter here: with its write-ahead log (WAL) deleted, cut or
overwritten, it silently opens the older state of the main file, and with the main file cut to
0 bytes it opens an empty database. Resuming from such a file restarts the match from an earlier
input and hands out `seq` numbers again. So before a log is opened for writing, it is read
**read-only** (a damaged file is never changed) and checked:

1. the files: the main file is an SQLite file (or absent / empty only when nothing was ever
   logged), and a WAL beside it starts with SQLite's WAL magic;
2. the rows: SQLite's own ``quick_check``; the header (format, version, the log's random id); a
   digest over each match's settings and each event; a hash chain over the inputs (each row's
   ``chain`` is the SHA-256 of the previous row's chain and this row), so an edited, reordered or
   missing input in the middle breaks it;
3. the high-water mark: `HighWater`, a small file beside the log (``events.sqlite.seq``), rewritten
   (fsync'd, then renamed over the old one) after every commit that handed out a number, holds the
   highest input, event and match number and the log's id. A log whose rows end below it lost its
   tail (a deleted or cut WAL, a restored old copy), and a log whose id differs is another file.
   It survives losing the log, so a new log goes on numbering after it: no `seq` is ever reused.

A log that fails is refused with `EventLogDamaged`, which names the file, says what is wrong and
what to do (run again with ``--new-log``: the damaged files are renamed aside, never deleted).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from dataclasses import dataclass, replace
from pathlib import Path

from referee.errors import DominoError

FORMAT = "domino-eventlog"
VERSION = 2
SQLITE_MAGIC = b"SQLite format 3\x00"
WAL_MAGIC = (0x377F0682, 0x377F0683)
WAL_HEADER_BYTES = 32


class EventLogError(DominoError, OSError):
    """The event log file cannot be opened or is not one of ours."""


class EventLogDamaged(EventLogError):
    """The event log is damaged or lost rows: the service refuses to resume from it."""

    @classmethod
    def about(cls, path: Path, problem: str, mark: HighWater.Mark) -> EventLogDamaged:
        return cls(
            f"event log {str(path)!r} is damaged: {problem}. It was not changed. Keep it (a copy "
            f"for inspection, or restore a good one), then run again with --new-log: the damaged "
            f"files are renamed to {path.name}.damaged-<time> and a new log starts, numbering "
            f"inputs after {mark.input} and events after {mark.event} (no number is reused)")


def _digest(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).hexdigest()


def input_chain(previous: str, seq: int, match: int, t: float, kind: str, data: str) -> str:
    """An input row's link in the hash chain (the first row's `previous` is the log's id)."""
    return _digest(previous, seq, match, repr(float(t)), kind, data)


def match_digest(log_id: str, match: int, settings: str) -> str:
    return _digest(log_id, "match", match, settings)


def event_digest(log_id: str, seq: int, input_seq: int | None, n: int, payload: str) -> str:
    return _digest(log_id, "event", seq, input_seq, n, payload)


class HighWater:
    """``<log>.seq``: the highest numbers ever handed out by the log beside it, and its id."""

    @dataclass(frozen=True)
    class Mark:
        log: str = ""
        input: int = 0
        event: int = 0
        match: int = 0

        def with_log(self, log_id: str) -> HighWater.Mark:
            return replace(self, log=log_id)

        def raised(self, inputs: int, events: int, matches: int) -> HighWater.Mark:
            return replace(self, input=max(self.input, inputs), event=max(self.event, events),
                           match=max(self.match, matches))

        @property
        def anything(self) -> bool:
            return bool(self.input or self.event or self.match)

    def __init__(self, log_path: Path) -> None:
        self.path = log_path.with_name(log_path.name + ".seq")
        self._written: HighWater.Mark | None = None

    def read(self, notes: list[str]) -> HighWater.Mark:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return HighWater.Mark()
        except OSError as error:
            raise EventLogError(
                f"high-water file {str(self.path)!r}: cannot read: {error.strerror}") from None
        try:
            data = json.loads(text)
            mark = HighWater.Mark(str(data["log"]), int(data["input"]), int(data["event"]),
                                  int(data["match"]))
        except (ValueError, KeyError, TypeError):
            notes.append(f"high-water file {self.path.name} was unreadable ({text[:40]!r}); rewritten "
                         "from the log")
            return HighWater.Mark()
        self._written = mark
        return mark

    def write(self, mark: HighWater.Mark) -> None:
        """Replace the file atomically (write, fsync, rename): either the old or the new mark."""
        if mark == self._written:
            return
        tmp = self.path.with_name(self.path.name + ".tmp")
        text = json.dumps({"log": mark.log, "input": mark.input, "event": mark.event, "match": mark.match})
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, text.encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.path)
        self._written = mark


SQLITE_SUFFIXES = ("", "-wal", "-shm")  # the log's own file, its write-ahead log, its shared memory


def wal_path(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


def remove_log(path: Path) -> None:
    """Delete the log at `path` with its SQLite files and its high-water file, for a scratch log
    that starts afresh (the demo's): left behind, the high-water file would make the next open
    take the missing log for a deleted one, and refuse it, as it must for a real table."""
    for suffix in SQLITE_SUFFIXES:
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    HighWater(path).path.unlink(missing_ok=True)


def check_files(path: Path, mark: HighWater.Mark) -> str | None:
    """What is wrong with the log's files as files (None: nothing)."""
    wal = wal_path(path)
    size = path.stat().st_size if path.exists() else 0
    wal_size = wal.stat().st_size if wal.exists() else 0
    if size == 0:
        what = "missing" if not path.exists() else "empty (0 bytes)"
        if wal_size:
            return f"the main file is {what} but its write-ahead log {wal.name} holds {wal_size} bytes"
        if mark.anything:
            return (f"the file is {what} but its high-water file {path.name}.seq says input {mark.input} "
                    f"and event {mark.event} were logged: the log was deleted or cut")
        return None
    with open(path, "rb") as file:
        if file.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
            return "it is not an SQLite file (its first bytes were overwritten?)"
    if wal_size:
        with open(wal, "rb") as file:
            head = file.read(WAL_HEADER_BYTES)
        if len(head) < WAL_HEADER_BYTES or int.from_bytes(head[:4], "big") not in WAL_MAGIC:
            return (f"its write-ahead log {wal.name} does not start with SQLite's WAL header "
                    "(overwritten or cut)")
    return None


def check_rows(path: Path, mark: HighWater.Mark) -> str | None:
    """Read the log read-only and check its header, digests, chain and high-water mark. SQLite
    creates an empty WAL and its shared-memory index to read a WAL file: those it made are removed,
    so a refused log's folder is left exactly as it was found."""
    made = [path.with_name(path.name + suffix) for suffix in SQLITE_SUFFIXES[1:]
            if not path.with_name(path.name + suffix).exists()]
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as error:
        return f"SQLite cannot open it ({error})"
    try:
        return _check_rows(db, path, mark)
    except sqlite3.Error as error:
        return f"SQLite cannot read it ({error})"
    finally:
        db.close()
        for extra in made:
            if extra.exists() and (extra.name.endswith("-shm") or extra.stat().st_size == 0):
                extra.unlink()


def _check_rows(db: sqlite3.Connection, path: Path, mark: HighWater.Mark) -> str | None:
    verdict = db.execute("PRAGMA quick_check").fetchone()
    if verdict is None or verdict[0] != "ok":
        return f"SQLite's quick_check says {verdict[0] if verdict else 'nothing'!r}"
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        if mark.anything:
            return (f"it holds no tables but its high-water file says input {mark.input} was logged: "
                    "the rows were lost (the write-ahead log deleted?)")
        return None
    if not {"matches", "inputs", "outbox"} <= tables:
        return f"it is not an event log (tables {sorted(tables)})"
    if "header" in tables:
        problem = _check_digests(db, mark)
        if problem is not None:
            return problem
    elif mark.log:
        return "its header is missing, but its high-water file names a log"
    inputs, events, matches = db.execute(
        "SELECT (SELECT COALESCE(MAX(seq), 0) FROM inputs), (SELECT COALESCE(MAX(seq), 0) FROM outbox), "
        "(SELECT COALESCE(MAX(id), 0) FROM matches)").fetchone()
    seq_file = f"{path.name}.seq"
    for what, have, logged in (("inputs", inputs, mark.input), ("events", events, mark.event),
                               ("matches", matches, mark.match)):
        if have < logged:
            return (f"its {what} end at {have}, but {logged} was logged (high-water file {seq_file}): "
                    f"the last {logged - have} {what} were lost, as when the write-ahead log is "
                    "deleted, cut or overwritten, or an old copy is restored")
    return None


def _check_digests(db: sqlite3.Connection, mark: HighWater.Mark) -> str | None:
    header = dict(db.execute("SELECT key, value FROM header").fetchall())
    if header.get("format") != FORMAT or not str(header.get("version", "")).isdigit():
        return f"its header is not an event log's ({header!r})"
    if int(header["version"]) > VERSION:
        return (f"it was written by a newer version (log version {header['version']}, "
                f"this one reads {VERSION})")
    log_id = str(header.get("log_id", ""))
    if mark.log and log_id != mark.log:
        return (f"it is log {log_id[:8]}…, but its high-water file belongs to log {mark.log[:8]}…: "
                "another log was copied over it")
    for id_, settings, digest in db.execute("SELECT id, settings, digest FROM matches ORDER BY id"):
        if digest != match_digest(log_id, id_, settings):
            return f"match {id_}'s settings do not match their digest"
    chain = log_id
    for seq, match, t, kind, data, stored in db.execute(
            "SELECT seq, match, t, kind, data, chain FROM inputs ORDER BY seq"):
        chain = input_chain(chain, seq, match, t, kind, data)
        if stored != chain:
            return f"the hash chain breaks at input {seq} (a row changed, or one before it is missing)"
    for seq, input_seq, n, payload, digest in db.execute(
            "SELECT seq, input_seq, n, payload, digest FROM outbox ORDER BY seq"):
        if digest != event_digest(log_id, seq, input_seq, n, payload):
            return f"event {seq} does not match its digest"
    return None


def set_aside(path: Path) -> Path:
    """Rename the log and its WAL/shared-memory files to ``<name>.damaged-<time>`` (kept together,
    so SQLite can still read the pair); returns the main file's new path."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while any(target.with_name(target.name + suffix).exists() for suffix in SQLITE_SUFFIXES):
        n += 1
        target = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    for suffix in SQLITE_SUFFIXES:
        source = path.with_name(path.name + suffix)
        if source.exists():
            source.replace(target.with_name(target.name + suffix))
    return target
