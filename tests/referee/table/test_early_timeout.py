"""A `timeout` the move clock contradicts is refused, live and in replay: RULES.md (italian) says
running out of time loses the match, and a player with time left has not run out of it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.app.cli import main
from referee.referee import Referee
from referee.rules import validate_options
from referee.table.observer import TableObserver
from referee.table.tableside import TableSide
from tests.referee.app.clocked import ClockedTable

RECORDS = Path(__file__).resolve().parent / "records"


def italian_referee() -> Referee:
    options = validate_options("italian", {})
    side = TableSide("italian", ["A", "B"], options)
    return Referee("italian", ["A", "B"], options=options, observers=[TableObserver(side)])


def test_an_early_timeout_is_refused_and_the_match_goes_on() -> None:
    referee = italian_referee()
    assert referee.apply({"start": True, "t": 0}).ok
    assert referee.apply({"player": "A", "play": "6-6", "t": 5}).ok
    early = referee.apply({"player": "B", "timeout": True, "t": 19})
    assert not early.ok and early.error == "table: timeout: B still had 6 s at 19 s"
    assert early.match_result is None and not referee.match.over
    assert [event for _, event in referee.accepted][-1] == {"player": "A", "play": "6-6", "t": 5}
    wrong = referee.apply({"player": "A", "timeout": True, "t": 20})
    assert not wrong.ok and wrong.error == "table: timeout: A is not on move (B is)"
    assert referee.apply({"player": "B", "play": "6-2", "t": 21}).ok    # B's move took 16 s of 20
    late = referee.apply({"player": "A", "timeout": True, "t": 47})     # A's 25 s ended at 46 s
    assert late.ok and late.match_result is not None and late.match_result["winners"] == ["B"]


def test_an_untimed_timeout_is_the_tables_word() -> None:
    referee = italian_referee()
    assert referee.apply({"player": "A", "play": "6-6"}).ok
    verdict = referee.apply({"player": "B", "timeout": True})     # no times: nothing contradicts it
    assert verdict.ok and referee.match.over


def test_replay_refuses_a_recorded_early_timeout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record: dict[str, Any] = json.loads((RECORDS / "italian-timeout-event.json").read_text())
    events = record["hands"][-1]["events"]
    assert events[-1] == {"player": "Ayşe", "timeout": True, "t": 45.5}   # 30 s from 15 s: late
    events[-1] = {**events[-1], "t": 40.0}
    path = tmp_path / "early.json"
    path.write_text(json.dumps(record))
    assert main(["replay", "--json", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    last = report["events"][-1]
    assert not last["ok"] and last["error"] == "table: timeout: Ayşe still had 5 s at 40 s"
    assert not report["match"]["over"] and report["table"]["timeouts"] == []


def test_the_service_refuses_an_early_timeout_with_the_time_left(tmp_path: Path) -> None:
    table = ClockedTable(tmp_path / "log.sqlite", origin=100.0)
    service, display, signals, at = table.service, table.display, table.signals, table.at
    service.start(tick_interval=None)

    at(0, "start")
    at(1, "lead", player="Ayşe")
    at(3, "placed", tile="6-6")
    at(10, "timeout", player="Burak")        # a script's (or a wrong) timeout: Burak has 13 s left
    assert not service.match_over.is_set() and signals.played == ["ok", "error"]
    assert display.last.message == "table: timeout: Burak still had 13 s at 10 s"
    at(12, "placed", tile="6-2")
    assert display.last.turn == "Ayşe" and display.last.message == ""
    assert [e["event"] for e in service.log.events() if e["event"] != "findings"] == \
        ["start", "lead-claimed", "play", "refused", "play"]
    service.stop()
