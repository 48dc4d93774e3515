"""Every table-side rule as a record replayed with `domino-referee replay --json`."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from referee.app.cli import main
from referee.record import load_record, replay

RECORDS = Path(__file__).resolve().parent / "records"


def replay_json(name: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["replay", "--json", str(RECORDS / name)]) == 0
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def events_of(name: str) -> list[dict[str, Any]]:
    return [e for hand in load_record(RECORDS / name)["hands"] for e in hand["events"]]


def ledger_points(report: dict[str, Any]) -> dict[str, Fraction]:
    points: dict[str, Fraction] = {}
    for entry in report["table"]["ledger"]:
        points[entry["player"]] = points.get(entry["player"], Fraction(0)) + Fraction(entry["points"])
    return points


def test_a_whole_match_in_time_keeps_the_italian_clock(capsys: pytest.CaptureFixture[str]) -> None:
    report = replay_json("italian-clock-in-time.json", capsys)
    table = report["table"]
    assert table["clock"] == "italian" and table["timeouts"] == [] and table["forfeit"] is None
    # 4 s, 4 s, 16 s, 16 s, … per player pair: 20 → 25 → 24 (9 left + 15) → 29 → …
    assert [m["allowance"] for m in table["moves"][:8]] == [20, 20, 25, 25, 24, 24, 29, 29]
    assert all(not m["timed_out"] and m["next_allowance"] <= 30 for m in table["moves"])
    assert len(table["moves"]) == sum(1 for e in events_of("italian-clock-in-time.json")
                                      if "play" in e or "pass" in e)
    # In time, the table side changes nothing in the match.
    assert report["match"] == replay(load_record(RECORDS / "italian-clock-in-time.json"))["match"]
    assert report["match"]["over"] and all(v["ok"] for v in report["events"])


def test_a_move_that_overran_loses_without_a_timeout_event(capsys: pytest.CaptureFixture[str]) -> None:
    assert not any("timeout" in e for e in events_of("italian-derived-timeout.json"))
    report = replay_json("italian-derived-timeout.json", capsys)
    [timeout] = report["table"]["timeouts"]
    assert (timeout["player"], timeout["t"]) == ("Ayşe", 45.0)
    assert report["match"]["over"] and report["match"]["winner"] == "Burak"
    assert "Ayşe ran out of time" in report["match"]["reason"]
    late = next(v for v in report["events"] if not v["ok"])
    assert late["input"]["player"] == "Ayşe" and late["input"]["t"] > 45.0
    assert any("timeout" in finding for finding in late["findings"])


def test_the_tables_timeout_event_loses_the_match(capsys: pytest.CaptureFixture[str]) -> None:
    report = replay_json("italian-timeout-event.json", capsys)
    assert [t["player"] for t in report["table"]["timeouts"]] == ["Ayşe"]
    assert report["match"]["winner"] == "Burak"


def test_a_fischer_clock_named_by_the_record_runs_out(capsys: pytest.CaptureFixture[str]) -> None:
    report = replay_json("italian-fischer-timeout.json", capsys)
    table = report["table"]
    assert table["clock"] == "fischer"
    assert [m["allowance"] for m in table["moves"]] == [10, 10, 7, 7]
    assert table["timeouts"][0]["player"] == "Burak" and report["match"]["winner"] == "Ayşe"


def test_the_move_clock_stops_while_away(capsys: pytest.CaptureFixture[str]) -> None:
    report = replay_json("italian-away-back.json", capsys)
    table = report["table"]
    assert table["absences"] == {"Ayşe": 1} and table["forfeit"] is None
    assert ("Ayşe", 12.0, 25.0) in [(m["player"], m["used"], m["allowance"]) for m in table["moves"]]
    assert all(v["ok"] for v in report["events"])


def test_a_late_return_loses_the_match(capsys: pytest.CaptureFixture[str]) -> None:
    report = replay_json("italian-late-return.json", capsys)
    [late] = report["table"]["late_returns"]
    assert late["player"] == "Ayşe"
    assert report["match"]["winner"] == "Burak" and "came back late" in report["match"]["reason"]
    back = next(v for v in report["events"] if "back" in v["input"])
    assert not back["ok"] and "late-return" in back["error"]


def test_an_absence_that_ran_out_loses_at_its_deadline(capsys: pytest.CaptureFixture[str]) -> None:
    report = replay_json("italian-absence-ran-out.json", capsys)
    [late] = report["table"]["late_returns"]
    away = next(e for e in events_of("italian-absence-ran-out.json") if "away" in e)
    assert (late["player"], late["t"]) == ("Ayşe", away["t"] + 180)
    assert report["match"]["winner"] == "Burak"


def test_a_third_absence_loses_the_match(capsys: pytest.CaptureFixture[str]) -> None:
    report = replay_json("italian-third-absence.json", capsys)
    assert report["table"]["forfeit"]["reason"] == "third-absence"
    assert report["table"]["absences"] == {"Ayşe": 3}
    assert report["match"]["winner"] == "Burak"
    third = [v for v in report["events"] if "away" in v["input"]][2]
    assert not third["ok"] and "third-absence" in third["error"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # Cem leaves (−2N, N = 2); his substitute Efe finishes with the seat's +1.
        ("turkish-leave-substitute-gains.json", {"Cem": -4, "Efe": 1, "Ayşe": 2, "Burak": -1, "Deniz": -2}),
        # Deniz leaves; the seat finishes −2, and the substitute loses nothing.
        ("turkish-leave-substitute-loses-nothing.json",
         {"Deniz": -4, "Efe": 0, "Ayşe": 2, "Burak": -1, "Cem": 1}),
        # Burak dropped out involuntarily and never came back: the seat's −1 is charged to him.
        ("turkish-dropped-charged.json", {"Burak": -1, "Efe": 0, "Ayşe": 2, "Cem": 1, "Deniz": -2}),
        # Deniz dropped out and came back: the seat is his again, the substitute has nothing.
        ("turkish-dropped-comes-back.json", {"Deniz": -2, "Efe": 0, "Ayşe": 2, "Burak": -1, "Cem": 1}),
        ("turkish-continue-needs-a-substitute.json",
         {"Ayşe": -4, "Efe": 2, "Burak": -1, "Cem": 1, "Deniz": -2}),
        # The match never finished: only the leaver's penalty is booked.
        ("turkish-leave-unfinished.json", {"Cem": -4}),
    ],
)
def test_leaving_and_substitutes(name: str, expected: dict[str, int],
                                 capsys: pytest.CaptureFixture[str]) -> None:
    report = replay_json(name, capsys)
    assert ledger_points(report) == {k: Fraction(v) for k, v in expected.items()}
    leavers = [e for e in events_of(name) if "leave" in e]
    assert [(d["player"], d["penalty"]) for d in report["table"]["leaving"] if d["voluntary"]] == \
        [(e["player"], -4) for e in leavers]


def test_continue_with_an_empty_seat_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    report = replay_json("turkish-continue-needs-a-substitute.json", capsys)
    continues = [v for v in report["events"] if "continue" in v["input"]]
    assert not continues[0]["ok"] and "empty seat (Ayşe)" in continues[0]["error"]
    assert continues[1]["ok"]


def test_replay_for_people_names_the_table_side(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(RECORDS / "italian-derived-timeout.json")]) == 0
    out = capsys.readouterr().out
    assert "timeout: Ayşe at 45 s (the 30 s for the move ran out at 45 s)" in out
    assert main(["replay", str(RECORDS / "turkish-leave-substitute-gains.json")]) == 0
    assert "Cem left at 113 s: -4 points" in capsys.readouterr().out


def test_a_player_who_is_away_cannot_move_until_back(capsys: pytest.CaptureFixture[str]) -> None:
    report = replay_json("italian-away-player-cannot-move.json", capsys)
    refused = [v for v in report["events"] if not v["ok"]]
    assert len(refused) == 1 and "Ayşe is away (since 10 s)" in refused[0]["error"]
    replayed = [v for v in report["events"] if v["input"].get("play") == refused[0]["input"]["play"]]
    assert [v["ok"] for v in replayed] == [False, True]   # the same tile, after `back`
    assert ("Ayşe", 14.0) in [(m["player"], m["used"]) for m in report["table"]["moves"]]


def test_play_waits_for_continue(capsys: pytest.CaptureFixture[str]) -> None:
    report = replay_json("turkish-play-waits-for-continue.json", capsys)
    refused = [v for v in report["events"] if not v["ok"]]
    assert len(refused) == 1 and "suspended until the table manager presses Continue" in refused[0]["error"]
    # Refused, it changed nothing: the match ends as the one without the table events.
    base = replay(load_record(RECORDS / "base" / "turkish-seed-5.json"))["match"]
    assert report["match"]["standings"] == base["standings"]
    assert ledger_points(report)["Efe"] == 2


def test_a_record_with_nothing_for_the_table_side_replays_as_before(
        capsys: pytest.CaptureFixture[str]) -> None:
    report = replay_json("base/turkish-seed-5.json", capsys)
    assert "table" not in report
    assert report == json.loads(json.dumps(replay(load_record(RECORDS / "base" / "turkish-seed-5.json"))))


def test_the_substitute_who_finished_the_winning_seat_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    # Ayşe leaves, Efe takes her seat and finishes it in first place: the seat wins, Efe finished.
    match = replay_json("turkish-continue-needs-a-substitute.json", capsys)["match"]
    assert match["winner"] == "Ayşe" and match["winners"] == ["Ayşe"] and match["winner_players"] == ["Efe"]
