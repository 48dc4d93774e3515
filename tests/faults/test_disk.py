"""A full disk or a read-only data directory mid-match: the match stops visibly, every accepted
input is kept (never acted on before it is logged) and the match resumes when writing works again.

Both run on a small real tmpfs: filled to the last byte by a file, then freed; remounted read-only,
then read-write. (A tmpfs cannot be remounted read-only while SQLite holds the log open for
writing: the kernel answers EBUSY. So the read-only case is the one a restart meets: the service
starts on a data directory that became read-only, mid-match.) Before, the consumer thread died
with a traceback and the process hung with status `online`, ignoring every input.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from referee.app.eventlog import EventLogDamaged, EventLogError
from referee.app.health import State

from .kit import Table, fill, logged, match_lines, reference, tmpfs, without_time

LINES = match_lines()


def assert_stopped_visibly(table: Table) -> None:
    service = table.service
    assert service.halted
    part = table.health.get("eventlog")
    assert part is not None and part.state == State.FAILED and "match is stopped" in part.why
    assert table.display.last.message == "eventlog FAIL"         # the scoreboard's message line
    assert "error" in table.signals.played                       # the error tone
    assert not table.capture.errors                              # no cmd/errors without a command
    assert table.capture.states[-1]["health"]["parts"]["eventlog"]["state"] == "failed"


def test_a_full_disk_stops_the_match_keeps_every_input_and_resumes(tmp_path: Path) -> None:
    want_inputs, want_events = reference(tmp_path, LINES)
    with tmpfs(tmp_path / "disk", "8m") as disk:
        table = Table(disk / "events.sqlite").start()
        table.feed(LINES[:20])
        before = logged(table.log)
        filler = fill(disk)
        table.feed(LINES[20:40], first=21)
        assert_stopped_visibly(table)
        assert logged(table.log) == before                       # nothing logged while full...
        assert len(table.service.held) == 20                     # ...and nothing lost
        core = table.service.core
        assert core is not None
        frozen = core.state(core.last_t)
        table.tick(5.0)                                          # still full: still stopped
        assert table.service.halted and core.state(core.last_t) == frozen   # nothing acted on
        filler.unlink()                                          # space returns
        table.tick(5.0)
        assert not table.service.halted and not table.service.held
        assert table.health.get("eventlog").state == State.OK    # type: ignore[union-attr]
        assert table.display.last.message in ("match resumed", "")
        table.feed(LINES[40:], first=41)
        assert table.service.match_over.is_set()
        assert logged(table.log) == want_inputs                  # not one lost, not one doubled
        assert without_time(table.log.events()) == without_time(want_events)
        table.stop()


def test_a_data_dir_that_became_read_only_is_one_clear_line_and_the_match_resumes_after(
        tmp_path: Path) -> None:
    """The service restarts (systemd) on a data directory remounted read-only mid-match."""
    want_inputs, want_events = reference(tmp_path, LINES)
    with tmpfs(tmp_path / "disk", "8m") as disk:
        table = Table(disk / "events.sqlite").start()
        table.feed(LINES[:20])
        table.stop()
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        with pytest.raises(EventLogError) as refused:
            Table(disk / "events.sqlite", clock=table.clock)
        assert str(disk / "events.sqlite") in str(refused.value) and "read-only" in str(refused.value)
        assert not isinstance(refused.value, EventLogDamaged)    # not damaged: nothing to set aside
        subprocess.run(["mount", "-o", "remount,rw", str(disk)], check=True)
        again = Table(disk / "events.sqlite", clock=table.clock).start()
        again.feed(LINES[20:], first=21)
        assert again.service.match_over.is_set()
        assert logged(again.log) == want_inputs
        assert without_time(again.log.events()) == without_time(want_events)
        again.stop()


def test_sqlite_refusing_writes_mid_match_stops_it_the_same_way(tmp_path: Path) -> None:
    """A file system that turns read-only under an open log (ext4's errors=remount-ro) cannot be
    made here (a tmpfs with a writer open refuses to remount: EBUSY), so SQLite itself is told to
    refuse writes (``PRAGMA query_only``): its real SQLITE_READONLY error, through the same path."""
    want_inputs, want_events = reference(tmp_path, LINES)
    table = Table(tmp_path / "data" / "events.sqlite").start()
    table.feed(LINES[:20])
    table.log._db.execute("PRAGMA query_only = 1")
    table.feed(LINES[20:30], first=21)
    assert_stopped_visibly(table)
    assert "readonly" in table.service.halted
    table.log._db.execute("PRAGMA query_only = 0")
    table.tick(5.0)
    assert not table.service.halted
    table.feed(LINES[30:], first=31)
    assert logged(table.log) == want_inputs
    assert without_time(table.log.events()) == without_time(want_events)
    table.stop()
