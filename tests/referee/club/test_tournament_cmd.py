"""`domino-referee tournament …`: the buy-in table, prize pools and payouts on the command line."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from referee.app.cli import main
from referee.club.ledger import Ledger, MatchSettlement, record_hash
from referee.table.leaving import LedgerEntry


def run_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_buy_in_table(capsys: pytest.CaptureFixture[str]) -> None:
    rows = run_json(["tournament", "buy-ins"], capsys)["buy_ins"]
    assert len(rows) == 10 and all(row["prize"] + row["rake"] == row["buy_in"] for row in rows)
    seven = next(row for row in rows if row["buy_in"] == 700)
    assert (seven["prize"], seven["rake"], seven["rake_percent"]) == (600, 100, "14.29")
    assert main(["tournament", "buy-ins"]) == 0
    assert "€7.00 = €6.00 prize pool (85.71%) + €1.00 rake (14.29%)" in capsys.readouterr().out


def test_eight_players_share_the_pool_by_the_split(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(["tournament", "payout", "--players", "8", "--buy-in", "€7", "--split", "50/30/20"],
                      capsys)
    assert (report["prize_pool"], report["rake"]) == (4800, 800)
    assert [p["cents"] for p in report["places"]] == [2400, 1440, 960]
    assert report["payouts"] is None and report["house_rule"] is False
    assert main(["tournament", "payout", "--players", "8", "--buy-in", "7", "--splits", "50/30/20"]) == 0
    text = capsys.readouterr().out
    assert "prize pool €48.00 (85.71%), rake €8.00 (14.29%)" in text and "3rd       €9.60" in text


def test_a_ranking_says_who_wins_what(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(["tournament", "payout", "--ranking", "Burak, Ayşe", "--buy-in", "30"], capsys)
    assert report["payouts"] == {"Burak": 5320, "Ayşe": 0}
    assert report["places"] == [{"place": 1, "cents": 5320, "player": "Burak"}]


def test_the_ranking_can_come_from_the_ledgers_standings(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    with Ledger.in_directory(tmp_path) as ledger:
        entries = tuple(LedgerEntry(name, name, "player", Fraction(points))
                        for name, points in [("Ayşe", -11), ("Burak", 11), ("Cem", 5), ("Deniz", -5)])
        ledger.apply(MatchSettlement(record_hash({"m": 1}), "turkish", 0.0, entries), applied_at=0.0)
    standings = tmp_path / "standings.json"
    standings.write_text(json.dumps(run_json(["ledger", "standings", "--data-dir", str(tmp_path)], capsys)),
                         encoding="utf-8")
    report = run_json(["tournament", "payout", "--standings", str(standings), "--buy-in", "10"], capsys)
    assert report["players"] == ["Burak", "Cem", "Deniz", "Ayşe"]
    assert report["payouts"] == {"Burak": 3500, "Cem": 0, "Deniz": 0, "Ayşe": 0}
    names = tmp_path / "names.json"
    names.write_text(json.dumps(["Cem", "Burak"]), encoding="utf-8")
    report = run_json(["tournament", "payout", "--standings", str(names), "--players", "3", "--buy-in", "5"],
                      capsys)
    assert report["players"] == ["Cem", "Burak", "player 3"] and report["payouts"]["Cem"] == 3 * 430


def test_a_house_rake_on_any_buy_in(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(["tournament", "payout", "--players", "5", "--buy-in", "15", "--rake", "10%"], capsys)
    assert (report["buy_in"], report["prize_pool"], report["rake"]) == (1500, 6750, 750)
    assert report["rake_percent"] == "10" and report["house_rule"] is True


@pytest.mark.parametrize(("args", "message"), [
    (["--players", "8", "--buy-in", "7"], "8 players: a payout split must be configured"),
    (["--players", "4", "--buy-in", "7", "--split", "60/40"], "4 players: the winner takes the pool"),
    (["--players", "5", "--buy-in", "15"],
     "buy-in: found '15', allowed one of €1, €2, €3, €5, €7, €10, €20, €30, €50, €100 (or give --rake"),
    (["--players", "5", "--buy-in", "15", "--rake", "100"], "rake: found '100', allowed a percentage"),
    (["--players", "5", "--buy-in", "7.555", "--rake", "5"],
     "buy-in: found '7.555', allowed a positive amount"),
    (["--players", "9", "--buy-in", "7", "--split", "50/30"], "adds up to 80%, allowed exactly 100%"),
    (["--buy-in", "7"], "--players: give how many play"),
    (["--players", "1", "--ranking", "A,B", "--buy-in", "7"], "the ranking names 2 players"),
    (["--players", "A,B", "--ranking", "A,C", "--buy-in", "7"], "ranking names ['C'] who did not play"),
    (["--standings", "missing.json", "--buy-in", "7"], "missing.json: cannot read the standings"),
])
def test_errors_say_what_was_wrong(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "payout", *args]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err
    assert captured.err.startswith("domino-referee: error:")
