"""Who wins a match: `turkish` co-winners (edge case 12) and who finished in a winning seat."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.app.cli import main
from referee.events import FORMAT, VERSION
from referee.match import Match
from referee.record import dump_record
from referee.referee import Referee
from referee.rules import find_rules

NAMES = ["A", "B", "C", "D"]


def ranked(totals: list[int], teams: list[list[str]] | None = None) -> Match:
    """A `turkish` match whose N = 1 hands ended with these penalty totals (one per player)."""
    match = Match(find_rules("turkish")({"hands": 1}), NAMES[:len(totals)], teams)
    match.penalties = list(totals)
    match.hand_index = 0
    match._rank_penalties()
    return match


@given(st.lists(st.integers(0, 60), min_size=2, max_size=4))
def test_every_player_tied_for_the_lowest_total_wins_unless_all_tie(totals: list[int]) -> None:
    match = ranked(totals)
    result = match.result()
    lowest = [NAMES[seat] for seat, total in enumerate(totals) if total == min(totals)]
    expected = lowest if len(lowest) < len(totals) else []
    assert result["winners"] == result["winning_sides"] == expected
    # `winner` names a side only when it is the only winner.
    assert result["winner"] == (expected[0] if len(expected) == 1 else None)
    # Co-winners shared the best place points: nobody outside them has as many.
    points = {row["side"]: row["points"] for row in result["standings"]}
    assert all(points[name] == max(points.values()) for name in expected)


def test_two_tied_for_first_of_four_are_co_winners() -> None:
    # With N = 1 the places pay +1, 0, 0, -1; A and B share 1st and 2nd.
    result = ranked([28, 28, 33, 37]).result()
    assert result["winner"] is None and result["winners"] == ["A", "B"]
    assert [row["points"] for row in result["standings"]] == [0.5, 0.5, 0, -1]


def test_partnerships_with_equal_totals_have_no_winner() -> None:
    teams = [["A", "C"], ["B", "D"]]
    assert ranked([34, 31, 29, 32], teams).result()["winners"] == []
    result = ranked([34, 31, 29, 40], teams).result()
    assert result["winner"] == "A+C" and result["winners"] == ["A", "C"]


def test_the_result_names_the_substitute_who_finished_a_winning_seat() -> None:
    referee = Referee("turkish", NAMES, {"hands": 1})
    assert referee.apply({"player": "A", "play": "0-0"}).ok
    assert referee.match.result()["winner_players"] == []   # nothing won yet
    referee.apply({"player": "A", "leave": True})
    assert referee.match.seated == [None, "B", "C", "D"]
    referee.apply({"player": "A", "substitute": "Efe"})
    assert referee.match.seated == ["Efe", "B", "C", "D"]
    # A leaver who comes back does not retake the seat; a dropped player does.
    referee.apply({"player": "A", "back": True})
    assert referee.match.seated[0] == "Efe"
    referee.apply({"player": "C", "away": True})
    referee.apply({"player": "C", "substitute": "Gül"})
    referee.apply({"player": "C", "back": True})
    assert referee.match.seated == ["Efe", "B", "C", "D"]
    # An undo rebuilds the seating from the events.
    referee.undo()
    assert referee.match.seated == ["Efe", "B", "Gül", "D"]


def record(events: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "rules": "turkish", "options": {"hands": 1, **options},
            "players": NAMES, "hands": [{"events": events}]}


BLOCK = [{"player": "A", "play": "0-0"}, {"player": "B", "play": "0-1", "end": "left"},
         {"player": "C", "play": "1-3", "end": "left"}, {"player": "D", "play": "3-0", "end": "left"},
         {"player": "A", "play": "0-2", "end": "right"}, {"player": "B", "play": "2-4", "end": "right"},
         {"player": "C", "play": "4-0", "end": "right"}, {"player": "D", "play": "0-5", "end": "right"},
         {"player": "A", "play": "5-6", "end": "right"}, {"player": "B", "play": "6-0", "end": "right"}]
TIED = {"A": ["1-6", "2-2", "4-4", "4-5"], "B": ["1-4", "2-3", "3-5", "5-5"],
        "C": ["1-2", "1-5", "2-6", "3-4", "3-6"], "D": ["1-1", "2-5", "3-3", "4-6", "6-6"]}


def test_replay_prints_co_winners(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "tie.json"
    dump_record(record([*BLOCK, {"reveal": TIED}]), path)
    assert main(["replay", str(path)]) == 0
    assert "co-winners: A and B (hands played, 1 hands)" in capsys.readouterr().out
    assert main(["replay", "--json", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["match"]["winners"] == ["A", "B"]
