"""Whole matches per rule set through the service with the real engine (table knowledge), the
emulated scoreboard over a pty and a real mosquitto: the right final scores everywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware_bridge.scoreboard import Scoreboard
from referee.app.assembly import engine_referee
from referee.app.core import MatchSettings
from referee.app.devices import ScoreboardDisplay
from referee.app.eventlog import EventLog
from referee.app.mqtt import MqttLink, MqttSettings
from referee.app.ports import Input, RecordingSignals
from referee.app.script import table_script
from referee.app.service import TableService

from .conftest import USERS, Broker, Watcher
from .matches import NAMES, SHORT, engine_result, simulated_record


def run_script(service: TableService, lines: list[dict[str, object]]) -> None:
    for n, line in enumerate(lines, 1):
        data = {k: v for k, v in line.items() if k not in ("kind", "t")}
        service.feed(Input(str(line["kind"]), {**data, "line": n}, 0.0, t=float(line["t"])))  # type: ignore[arg-type]
    assert service.wait_processed(timeout=60)


@pytest.mark.parametrize("rules", ["turkish", "italian", "muggins", "all-fives"])
def test_a_whole_match_reaches_the_engines_final_scores(rules: str, tmp_path: Path, broker: Broker) -> None:
    record = simulated_record(rules)
    expected = engine_result(record)
    settings = MatchSettings(rules, rules, tuple(NAMES[rules]), options=SHORT[rules])
    log = EventLog(tmp_path / "log.sqlite")
    board = Scoreboard("emulator://", connect_timeout=5).open()
    assert board.emulator is not None
    adapter = ScoreboardDisplay(board, settings.players, lambda: 0.0)
    signals = RecordingSignals()

    class BothSignals:
        def signal(self, name: str) -> None:
            signals.signal(name)
            adapter.signal(name)

    service = TableService(settings, log=log, referee_factory=engine_referee, display=adapter,
                           signals=BothSignals(), records_dir=tmp_path / "records")
    link = MqttLink(MqttSettings.from_url(broker.url, rules, username="referee", password=USERS["referee"]),
                    on_command=service.command, outbox=log)
    service.publisher = link
    events = Watcher(broker, "viewer")
    events.subscribe(f"domino/{rules}/events")
    link.start()
    service.start(tick_interval=None)
    run_script(service, table_script(record))
    service.stop()
    link.stop()

    assert service.core is not None
    refused = [e for e in log.events() if e["event"] in ("refused", "error")]
    assert refused == []
    assert service.match_over.is_set() and service.core.phase == "match-over"
    want = {k: float(v) for k, v in expected["scores"].items()}
    assert service.core.scores() == want
    assert service.core.snapshot()["match"]["winners"] == expected["match"]["winners"]
    assert "match" in signals.played and signals.played.count("error") == 0
    # The board shows the final scores (seat order; sides for partnerships).
    final = tuple(round(v) for v in want.values())
    shown = board.emulator.wait_for(lambda model: tuple(model.state.scores) == final, 10)
    assert shown, board.emulator.text()
    board.close()
    # Every event reached the broker in order, and the retained state is the final one.
    got = [events.next_json("events") for _ in range(len(log.events()))]
    assert [e["seq"] for e in got] == list(range(1, len(got) + 1)) and got[-1]["event"] == "match"
    late = Watcher(broker, "viewer")
    late.subscribe(f"domino/{rules}/state")
    state = late.next_json("state")
    assert state["phase"] == "match-over" and state["scores"] == want
    events.close()
    late.close()
    written = json.loads((tmp_path / "records" / "match-1.json").read_text())
    assert written["rules"] == rules and len(written["hands"]) >= 1
