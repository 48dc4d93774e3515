"""A habitual leaver barred by the club ledger cannot be seated at Start (issue 16): the table
manager is told who and until when, no match begins, and once the bar is over Start works."""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path

from referee.app.assembly import build_table, engine_referee, ledger_bar_check
from referee.app.config import parse_config
from referee.app.core import MatchSettings
from referee.app.eventlog import EventLog
from referee.app.ports import Input, InputKind, RecordingDisplay, RecordingSignals
from referee.app.service import TableService
from referee.club.ledger import Ledger, MatchSettlement, record_hash
from referee.table.leaving import LeavingRules, LedgerEntry

DAY, HOUR = 86400.0, 3600.0
T0 = 1_780_000_000.0
PLAYERS = ("Ayşe", "Burak", "Cem", "Deniz")


def book_three_abandonments(data_dir: Path, name: str = "Cem", t0: float = T0) -> float:
    """Three abandonments within a week, booked third, first, second; returns the bar's end."""
    with Ledger.in_directory(data_dir) as ledger:
        for tag, day in (("c", 6), ("a", 0), ("b", 3)):
            ledger.apply(MatchSettlement(record_hash({"m": tag}), "turkish", t0 + day * DAY - 100.0, (
                LedgerEntry(name, name, "leaver", Fraction(-22), abandoned_at=100.0),),
                leaving_rules=LeavingRules()), applied_at=t0)
    return t0 + 6 * DAY + 2 * HOUR


def service_at(data_dir: Path, wall: float) -> tuple[TableService, RecordingDisplay, RecordingSignals]:
    display, signals = RecordingDisplay(), RecordingSignals()
    settings = MatchSettings("t1", "turkish", PLAYERS)
    service = TableService(settings, log=EventLog(data_dir / "events.sqlite"), referee_factory=engine_referee,
                           display=display, signals=signals, now=lambda: 10.0,
                           bar_check=ledger_bar_check(data_dir, wall=lambda: wall))
    return service, display, signals


def test_a_barred_player_cannot_be_seated_at_start(tmp_path: Path) -> None:
    until = book_three_abandonments(tmp_path)
    service, display, signals = service_at(tmp_path, wall=until - HOUR)
    assert service.handle(Input(InputKind.START, {}, 10.0)) is False
    assert service.core is None and service.log.last_match() is None
    message = display.last.message
    assert message.startswith("Cem is barred until ")
    assert message.endswith("(habitual leaver): no match starts")
    assert signals.played == ["error"]
    service.log.close()


def test_start_works_once_the_bar_is_over_and_for_a_table_without_a_ledger(tmp_path: Path) -> None:
    until = book_three_abandonments(tmp_path / "club")
    service, _, _ = service_at(tmp_path / "club", wall=until)
    assert service.handle(Input(InputKind.START, {}, 10.0)) is True and service.core is not None
    service.log.close()
    fresh, _, _ = service_at(tmp_path / "new", wall=until - HOUR)
    assert fresh.handle(Input(InputKind.START, {}, 10.0)) is True
    fresh.log.close()


def test_build_table_checks_the_ledger_in_its_data_directory(tmp_path: Path) -> None:
    # The third abandonment an hour ago by the wall clock the service reads: the bar runs now.
    until = book_three_abandonments(tmp_path, t0=time.time() - 6 * DAY - HOUR)
    config = parse_config({"table": {"players": list(PLAYERS)}, "storage": {"data_dir": str(tmp_path)},
                           "mqtt": {"enabled": False}}, environ={})
    table = build_table(config)
    assert table.service.bar_check is not None
    assert table.service.bar_check(PLAYERS) == {"Cem": until}
    table.service.log.close()


def test_an_unreadable_ledger_is_said_and_the_match_starts(tmp_path: Path) -> None:
    (tmp_path / "ledger.sqlite3").write_bytes(b"not a database" * 100)
    service, display, _ = service_at(tmp_path, wall=T0)
    assert service.handle(Input(InputKind.START, {}, 10.0)) is True and service.core is not None
    assert any(view.message.startswith("bars not checked: ") for view in display.views)
    service.log.close()
