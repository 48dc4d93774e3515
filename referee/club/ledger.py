"""The club ledger: players, points, matches played, abandonments and bars, in one SQLite file.

Safe with several processes writing: the database runs in WAL mode with a busy timeout, and
every change is one `BEGIN IMMEDIATE` transaction, so writers queue instead of failing. The
schema grows by an ordered list of migrations tracked in `PRAGMA user_version`. A match is
applied at most once: it is keyed on a SHA-256 of the record's canonical JSON, checked inside
the same transaction that books it. Points are exact fractions (ties share place points), stored
as numerator and denominator. Times are seconds since the Unix epoch, passed in by the caller.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from referee.errors import DominoError
from referee.table.leaving import LeavingRules, LedgerEntry, bar_periods

LEDGER_FILE = "ledger.sqlite3"

# Each entry moves the schema one version up; never edit a released entry, append a new one.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE players (
        name TEXT PRIMARY KEY,
        first_seen REAL NOT NULL
    );
    CREATE TABLE matches (
        id INTEGER PRIMARY KEY,
        record_hash TEXT NOT NULL UNIQUE,
        rules TEXT NOT NULL,
        started_at REAL NOT NULL,
        applied_at REAL NOT NULL,
        finished INTEGER NOT NULL,
        source TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE entries (
        match_id INTEGER NOT NULL REFERENCES matches(id),
        seq INTEGER NOT NULL,
        player TEXT NOT NULL REFERENCES players(name),
        seat TEXT NOT NULL,
        role TEXT NOT NULL,
        points_num INTEGER NOT NULL,
        points_den INTEGER NOT NULL,
        PRIMARY KEY (match_id, seq)
    );
    CREATE TABLE abandonments (
        id INTEGER PRIMARY KEY,
        player TEXT NOT NULL REFERENCES players(name),
        match_id INTEGER NOT NULL REFERENCES matches(id),
        at REAL NOT NULL
    );
    """,
    """
    CREATE TABLE bars (
        player TEXT NOT NULL REFERENCES players(name),
        since REAL NOT NULL,
        until REAL NOT NULL,
        match_id INTEGER NOT NULL REFERENCES matches(id)
    );
    CREATE INDEX abandonments_by_player ON abandonments (player, at);
    CREATE INDEX entries_by_player ON entries (player);
    """,
)


class LedgerError(DominoError, ValueError):
    """The ledger file is unusable (newer schema, not a database) or a request names nobody."""


def record_hash(record: Mapping[str, Any]) -> str:
    """SHA-256 of the record's canonical JSON: the same match written twice has one hash."""
    canonical = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class MatchSettlement:
    """What one finished (or abandoned) match books: from `referee.table.leaving.Seating.settle`."""

    record_hash: str
    rules: str
    started_at: float
    entries: tuple[LedgerEntry, ...]
    finished: bool = True
    source: str = ""
    leaving_rules: LeavingRules = field(default_factory=LeavingRules)


@dataclass(frozen=True)
class Booking:
    """The outcome of `Ledger.apply`: `applied` is False when the match was already booked.

    `bars` maps each player to the end of the latest bar this booking completed (a late-booked
    match can complete a window in the past, so that bar may already be over)."""

    applied: bool
    match_id: int
    points: dict[str, Fraction]
    bars: dict[str, float]

    def as_dict(self) -> dict[str, Any]:
        return {"applied": self.applied, "match_id": self.match_id,
                "points": {k: _number(v) for k, v in self.points.items()},
                "bars": dict(self.bars)}


@dataclass(frozen=True)
class Standing:
    name: str
    points: Fraction
    matches: int
    abandonments: int
    barred_until: float | None

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "points": _number(self.points), "matches": self.matches,
                "abandonments": self.abandonments, "barred_until": self.barred_until}


def _number(value: Fraction) -> int | str:
    return int(value) if value.denominator == 1 else str(value)


class Ledger:
    """One ledger file. Open it with `Ledger(path)`; close it (or use `with`) when done."""

    def __init__(self, path: str | Path, *, busy_timeout: float = 30.0) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Switching a new file to WAL takes a lock SQLite's busy handler does not wait for, so
            # two processes opening a new ledger at once queue on a lock file instead.
            with open(self.path.with_name(self.path.name + ".lock"), "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                self.db = sqlite3.connect(self.path, timeout=busy_timeout, isolation_level=None)
                self.db.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
                self.db.execute("PRAGMA journal_mode = WAL")
                self.db.execute("PRAGMA foreign_keys = ON")
                self._migrate()
        except sqlite3.DatabaseError as error:
            raise LedgerError(f"{self.path}: not a usable ledger ({error})") from None
        except OSError as error:
            raise LedgerError(f"{self.path}: cannot open the ledger ({error.strerror})") from None

    @classmethod
    def in_directory(cls, data_dir: str | Path) -> Ledger:
        return cls(Path(data_dir) / LEDGER_FILE)

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    @property
    def schema_version(self) -> int:
        version: int = self.db.execute("PRAGMA user_version").fetchone()[0]
        return version

    def _migrate(self) -> None:
        with self._write() as db:
            version = self.schema_version
            if version > len(MIGRATIONS):
                raise LedgerError(f"{self.path}: schema version {version} is newer than this program's "
                                  f"{len(MIGRATIONS)}; upgrade domino-referee")
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                for statement in script.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version = {number}")

    def _points(self, name: str) -> Fraction:
        rows = self.db.execute("SELECT points_num, points_den FROM entries WHERE player = ?", (name,))
        return sum((Fraction(n, d) for n, d in rows), Fraction(0))

    def is_applied(self, hash_: str) -> bool:
        return self.db.execute("SELECT 1 FROM matches WHERE record_hash = ?", (hash_,)).fetchone() is not None

    def apply(self, settlement: MatchSettlement, *, applied_at: float) -> Booking:
        """Book a match once; a second call with the same record hash changes nothing."""
        with self._write() as db:
            row = db.execute("SELECT id FROM matches WHERE record_hash = ?",
                             (settlement.record_hash,)).fetchone()
            if row is not None:
                return Booking(False, int(row[0]), {}, {})
            cursor = db.execute(
                "INSERT INTO matches (record_hash, rules, started_at, applied_at, finished, source) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (settlement.record_hash, settlement.rules, settlement.started_at, applied_at,
                 int(settlement.finished), settlement.source))
            match_id = int(cursor.lastrowid or 0)
            points: dict[str, Fraction] = {}
            bars: dict[str, float] = {}
            leavers: list[str] = []
            for seq, entry in enumerate(settlement.entries):
                db.execute("INSERT OR IGNORE INTO players (name, first_seen) VALUES (?, ?)",
                           (entry.player, settlement.started_at))
                delta = entry.delta
                limit = entry.gain_limit
                if limit is not None and delta > 0 and self._points(entry.player) > limit:
                    delta = Fraction(0)
                db.execute("INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?)",
                           (match_id, seq, entry.player, entry.seat, entry.role,
                            delta.numerator, delta.denominator))
                points[entry.player] = points.get(entry.player, Fraction(0)) + delta
                if entry.abandoned_at is not None:
                    at = settlement.started_at + entry.abandoned_at
                    db.execute("INSERT INTO abandonments (player, match_id, at) VALUES (?, ?, ?)",
                               (entry.player, match_id, at))
                    if entry.player not in leavers:
                        leavers.append(entry.player)
            for name in leavers:
                for _since, until in self._new_bars(name, settlement.leaving_rules):
                    bars[name] = max(until, bars.get(name, until))
            return Booking(True, match_id, points, bars)

    def _new_bars(self, name: str, rules: LeavingRules) -> list[tuple[float, float]]:
        """Book the bars the player's abandonments make that are not booked yet, and return them.

        Bars come from all the player's abandonment times, whatever order their matches were
        booked in: a match booked late may complete a window whose last abandonment was booked
        earlier, and the bar then runs from that abandonment (`referee.table.leaving.bar_periods`)."""
        times = [t for (t,) in self.db.execute("SELECT at FROM abandonments WHERE player = ?", (name,))]
        booked = set(self.db.execute("SELECT since, until FROM bars WHERE player = ?", (name,)).fetchall())
        new: list[tuple[float, float]] = []
        for since, until in bar_periods(times, rules):
            if (since, until) in booked:
                continue
            (match_id,) = self.db.execute(
                "SELECT match_id FROM abandonments WHERE player = ? AND at = ? ORDER BY id LIMIT 1",
                (name, since)).fetchone()
            self.db.execute("INSERT INTO bars VALUES (?, ?, ?, ?)", (name, since, until, match_id))
            new.append((since, until))
        return new

    def barred_until(self, name: str, now: float) -> float | None:
        """The end of the player's bar running at `now`, or None."""
        row = self.db.execute("SELECT MAX(until) FROM bars WHERE player = ? AND since <= ? AND until > ?",
                              (name, now, now)).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def barred(self, names: Iterable[str], now: float) -> dict[str, float]:
        """The players among `names` barred at `now`, each with the end of their bar (seconds).

        For the table's Start: a non-empty answer means the match must not start, and says who is
        barred and until when. Names the ledger has never seen are not barred."""
        barred: dict[str, float] = {}
        for name in names:
            until = self.barred_until(name, now)
            if until is not None:
                barred[name] = until
        return barred

    def standing(self, name: str, now: float) -> Standing:
        if self.db.execute("SELECT 1 FROM players WHERE name = ?", (name,)).fetchone() is None:
            raise LedgerError(f"no player {name!r} in the ledger {self.path}")
        matches = self.db.execute("SELECT COUNT(DISTINCT match_id) FROM entries WHERE player = ?",
                                  (name,)).fetchone()[0]
        abandonments = self.db.execute("SELECT COUNT(*) FROM abandonments WHERE player = ?",
                                       (name,)).fetchone()[0]
        return Standing(name, self._points(name), int(matches), int(abandonments),
                        self.barred_until(name, now))

    def standings(self, now: float) -> list[Standing]:
        """Every player, most points first (then fewer matches, then name)."""
        names = [n for (n,) in self.db.execute("SELECT name FROM players")]
        table = [self.standing(name, now) for name in names]
        return sorted(table, key=lambda s: (-s.points, s.matches, s.name))

    def history(self, name: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT m.id, m.rules, m.started_at, e.role, e.seat, e.points_num, e.points_den "
            "FROM entries e JOIN matches m ON m.id = e.match_id WHERE e.player = ? ORDER BY m.id, e.seq",
            (name,))
        return [{"match": mid, "rules": rules, "started_at": started, "role": role, "seat": seat,
                 "points": _number(Fraction(num, den))}
                for mid, rules, started, role, seat, num, den in rows]

    def match_count(self) -> int:
        count: int = self.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        return count

    def players(self) -> Sequence[str]:
        return [n for (n,) in self.db.execute("SELECT name FROM players ORDER BY name")]
