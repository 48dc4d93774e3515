"""`domino-referee ledger …` as a user runs it: separate processes on one ledger file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
RECORDS = Path(__file__).resolve().parents[1] / "table" / "records"


def ledger(*args: str, cwd: Path | None = None, ok: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-m", "referee.app.cli",
                             "ledger", *args], cwd=cwd or ROOT, env=env,
                            capture_output=True, text=True, timeout=60, check=False)
    assert (result.returncode == 0) == ok, result.stderr
    return result


def as_json(result: subprocess.CompletedProcess[str]) -> Any:
    return json.loads(result.stdout)


def points(data: Path) -> dict[str, Any]:
    table = as_json(ledger("standings", "--data-dir", str(data), "--json"))["standings"]
    return {row["name"]: row["points"] for row in table}


def test_record_books_a_match_once_and_a_new_process_sees_it(tmp_path: Path) -> None:
    record = str(RECORDS / "turkish-leave-substitute-gains.json")
    first = as_json(ledger("record", record, "--data-dir", str(tmp_path), "--json"))
    assert first["applied"] and first["finished"]
    assert first["points"] == {"Cem": -4, "Ayşe": 2, "Burak": -1, "Efe": 1, "Deniz": -2}
    again = as_json(ledger("record", record, "--data-dir", str(tmp_path), "--json"))
    assert not again["applied"] and again["match_id"] == first["match_id"]
    assert points(tmp_path) == {"Ayşe": 2, "Efe": 1, "Burak": -1, "Deniz": -2, "Cem": -4}
    text = ledger("record", record, "--data-dir", str(tmp_path)).stdout
    assert "was already booked as match 1: nothing changed" in text


def test_player_shows_points_matches_abandonments_and_history(tmp_path: Path) -> None:
    for name in ("turkish-leave-substitute-gains.json", "turkish-dropped-charged.json"):
        ledger("record", str(RECORDS / name), "--data-dir", str(tmp_path))
    efe = as_json(ledger("player", "Efe", "--data-dir", str(tmp_path), "--json"))
    assert (efe["points"], efe["matches"], efe["abandonments"]) == (1, 2, 0)
    assert [h["role"] for h in efe["history"]] == ["substitute", "substitute"]
    cem = ledger("player", "Cem", "--data-dir", str(tmp_path)).stdout
    assert cem.startswith("Cem: -3 points, 2 matches, 1 abandonments")
    burak = as_json(ledger("player", "Burak", "--data-dir", str(tmp_path), "--json"))
    assert [h["role"] for h in burak["history"]] == ["player", "dropped"] and burak["points"] == -2
    missing = ledger("player", "Zeki", "--data-dir", str(tmp_path), ok=False)
    assert "no player 'Zeki'" in missing.stderr


def test_three_abandonments_within_a_week_bar_the_player(tmp_path: Path) -> None:
    third = json.loads((RECORDS / "turkish-leave-unfinished.json").read_text(encoding="utf-8"))
    third["started_at"] = "2026-11-04T19:00:00+00:00"
    third_path = tmp_path / "third.json"
    third_path.write_text(json.dumps(third), encoding="utf-8")
    data = tmp_path / "data"
    for record in (RECORDS / "turkish-leave-substitute-gains.json",
                   RECORDS / "turkish-leave-unfinished.json"):
        assert as_json(ledger("record", str(record), "--data-dir", str(data), "--json"))["bars"] == {}
    booked = as_json(ledger("record", str(third_path), "--data-dir", str(data), "--json"))
    assert booked["bars"] == {"Cem": "2026-11-04T21:00:20+00:00"}  # left at 20 s, barred for 2 hours
    during = as_json(ledger("player", "Cem", "--data-dir", str(data), "--json",
                            "--at", "2026-11-04T20:00:00Z"))
    assert during["barred_until"] == "2026-11-04T21:00:20+00:00" and during["abandonments"] == 3
    after = as_json(ledger("player", "Cem", "--data-dir", str(data), "--json",
                           "--at", "2026-11-04T21:00:21Z"))
    assert after["barred_until"] is None
    table = ledger("standings", "--data-dir", str(data), "--at", "2026-11-04T20:00:00Z").stdout
    assert "2026-11-04T21:00:20+00:00" in table
    # A match Cem started while barred is booked, with a warning.
    fourth = {**third, "started_at": "2026-11-04T20:30:00+00:00"}
    third_path.write_text(json.dumps(fourth), encoding="utf-8")
    warned = as_json(ledger("record", str(third_path), "--data-dir", str(data), "--json"))
    assert warned["applied"]
    assert warned["warnings"] == ["Cem was barred until 2026-11-04T21:00:20+00:00 when this match started"]


def test_the_data_directory_comes_from_the_config_or_defaults_to_data(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(f"[storage]\ndata_dir = '{tmp_path / 'club'}'\n", encoding="utf-8")
    ledger("record", str(RECORDS / "turkish-dropped-comes-back.json"), "--config", str(config))
    assert (tmp_path / "club" / "ledger.sqlite3").exists()
    ledger("record", str(RECORDS / "turkish-dropped-comes-back.json"), cwd=tmp_path)
    assert (tmp_path / "data" / "ledger.sqlite3").exists()
    assert points(tmp_path / "club") == points(tmp_path / "data")


def test_two_processes_booking_at_once_lose_nothing(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    names = ["turkish-leave-substitute-gains.json", "turkish-dropped-charged.json",
             "turkish-leave-substitute-loses-nothing.json", "turkish-dropped-comes-back.json"]
    runs = [subprocess.Popen([sys.executable, "-m", "referee.app.cli",
                              "ledger", "record", str(RECORDS / name),
                              "--data-dir", str(tmp_path), "--json"], env=env, cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for name in names]
    outputs = [run.communicate(timeout=60) for run in runs]
    assert all(run.returncode == 0 for run in runs), [err for _, err in outputs]
    assert all(json.loads(out)["applied"] for out, _ in outputs)
    table = as_json(ledger("standings", "--data-dir", str(tmp_path), "--json"))["standings"]
    by_name = {row["name"]: row for row in table}
    assert by_name["Ayşe"]["matches"] == 4 and by_name["Ayşe"]["points"] == 8
    assert by_name["Efe"]["matches"] == 4 and by_name["Efe"]["points"] == 1


def test_an_italian_match_counts_as_played_without_points(tmp_path: Path) -> None:
    booked = as_json(ledger("record", str(RECORDS / "italian-clock-in-time.json"),
                            "--data-dir", str(tmp_path), "--json"))
    assert booked["applied"] and booked["points"] == {"Ayşe": 0, "Burak": 0}
    assert as_json(ledger("player", "Ayşe", "--data-dir", str(tmp_path), "--json"))["matches"] == 1


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ("italian-away-back.json", "not finished and nobody left it: nothing to book"),
        ("missing.json", "cannot read the record"),
    ],
)
def test_what_cannot_be_booked_is_named(tmp_path: Path, record: str, message: str) -> None:
    result = ledger("record", str(RECORDS / record), "--data-dir", str(tmp_path), ok=False)
    assert message in result.stderr and result.stdout == ""


def test_a_bad_started_at_or_at_is_named(tmp_path: Path) -> None:
    bad = json.loads((RECORDS / "turkish-leave-unfinished.json").read_text(encoding="utf-8"))
    bad["started_at"] = "yesterday"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    assert "started_at: found 'yesterday'" in ledger("record", str(path), "--data-dir", str(tmp_path),
                                                     ok=False).stderr
    assert "--at: found 'soon'" in ledger("standings", "--data-dir", str(tmp_path), "--at", "soon",
                                          ok=False).stderr


def test_a_substitute_above_3000_points_gains_nothing(tmp_path: Path) -> None:
    from fractions import Fraction

    from referee.club.ledger import Ledger, MatchSettlement
    from referee.table.leaving import LedgerEntry

    with Ledger.in_directory(tmp_path) as book:
        rich = LedgerEntry("Efe", "Efe", "player", Fraction(3001))
        book.apply(MatchSettlement("seed", "turkish", 0.0, (rich,)), applied_at=0.0)
    booked = as_json(ledger("record", str(RECORDS / "turkish-leave-substitute-gains.json"),
                            "--data-dir", str(tmp_path), "--json"))
    assert booked["points"]["Efe"] == 0   # the seat's +1 would be his below the limit
    assert points(tmp_path)["Efe"] == 3001


def test_the_bar_does_not_depend_on_the_order_matches_are_booked(tmp_path: Path) -> None:
    # Cem's three abandonments (Nov 2, 3, 4) booked third, first, second: still barred from the third.
    data = str(tmp_path / "data")
    for name in ("turkish-leave-third-in-a-week.json", "turkish-leave-substitute-gains.json"):
        assert as_json(ledger("record", str(RECORDS / name), "--data-dir", data, "--json"))["bars"] == {}
    booked = as_json(ledger("record", str(RECORDS / "turkish-leave-unfinished.json"), "--data-dir", data,
                            "--json"))
    assert booked["bars"] == {"Cem": "2026-11-04T21:00:20+00:00"}
    during = as_json(ledger("player", "Cem", "--data-dir", data, "--json", "--at", "2026-11-04T20:00:00Z"))
    assert during["barred_until"] == "2026-11-04T21:00:20+00:00" and during["abandonments"] == 3
