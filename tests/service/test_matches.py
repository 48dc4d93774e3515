"""Whole matches through the service with the real engine (table knowledge), per rule set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.service.app import engine_referee
from referee.service.eventlog import EventLog
from referee.service.ports import Input, RecordingDisplay, RecordingSignals
from referee.service.script import table_script
from referee.service.service import TableService
from referee.service.table import MatchSettings

from .matches import NAMES, SHORT, engine_result, simulated_record


def run_script(service: TableService, lines: list[dict[str, object]]) -> None:
    for n, line in enumerate(lines, 1):
        data = {k: v for k, v in line.items() if k not in ("kind", "t")}
        service.feed(Input(str(line["kind"]), {**data, "line": n}, 0.0, t=float(line["t"])))  # type: ignore[arg-type]
    assert service.wait_processed(timeout=60)


@pytest.mark.parametrize("rules", ["turkish", "italian", "muggins", "all-fives"])
def test_a_whole_match_reaches_the_engines_final_scores(rules: str, tmp_path: Path) -> None:
    record = simulated_record(rules)
    expected = engine_result(record)
    settings = MatchSettings("t1", rules, tuple(NAMES[rules]), options=SHORT[rules])
    display, signals = RecordingDisplay(), RecordingSignals()
    service = TableService(settings, log=EventLog(tmp_path / "log.sqlite"), referee_factory=engine_referee,
                           display=display, signals=signals, records_dir=tmp_path / "records")
    service.start(tick_interval=None)
    run_script(service, table_script(record))
    service.stop()
    assert service.core is not None
    refused = [e for e in service.log.events() if e["event"] in ("refused", "error")]
    assert refused == []
    assert service.match_over.is_set() and service.core.phase == "match-over"
    assert service.core.scores() == {k: float(v) for k, v in expected["scores"].items()}
    assert service.core.snapshot()["match"]["winners"] == expected["match"]["winners"]
    assert "match" in signals.played and signals.played.count("error") == 0
    written = json.loads((tmp_path / "records" / "match-1.json").read_text())
    assert written["rules"] == rules and len(written["hands"]) >= 1
