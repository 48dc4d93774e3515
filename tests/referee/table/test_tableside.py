"""The table side of a match driven by record event dicts (DESIGN.md "Game record")."""

from __future__ import annotations

from typing import Any

import pytest

from referee.events import is_table_event
from referee.rules import validate_options
from referee.table.clocks import FischerClock
from referee.table.tableside import TableSide, TableVerdict


def drive(side: TableSide, events: list[dict[str, Any]]) -> list[TableVerdict | None]:
    """What replay does, with an engine that accepts every game event."""
    verdicts: list[TableVerdict | None] = []
    for event in events:
        if is_table_event(event):
            verdicts.append(side.handle(event))
            continue
        verdict = side.screen(event)
        if verdict is None:
            side.accepted(event)
        verdicts.append(verdict)
    return verdicts


def italian(**options: Any) -> TableSide:
    return TableSide("italian", ["A", "B"], validate_options("italian", options))


def turkish() -> TableSide:
    return TableSide("turkish", ["Ayşe", "Burak", "Cem", "Deniz"], validate_options("turkish", {}))


def test_moves_are_timed_from_the_turn_start_draws_included() -> None:
    side = italian()
    verdicts = drive(side, [
        {"start": True, "t": 0},
        {"player": "A", "play": "6-6", "t": 5},
        {"player": "B", "draw": 1, "t": 8},
        {"player": "B", "play": "6-3", "t": 12},
        {"player": "A", "play": "3-3", "t": 37},   # 25 s of A's 25: in time, 0 left
        {"player": "B", "pass": True, "t": 40},
    ])
    assert all(v is None or v.ok for v in verdicts)
    assert [(m.player, m.used, m.allowance) for m in side.timings] == [
        ("A", 5.0, 20.0), ("B", 7.0, 20.0), ("A", 25.0, 25.0), ("B", 3.0, 25.0)]
    assert side.clock.standing["A"].main == 15.0 and side.clock.standing["B"].main == 30.0
    assert side.summary()["timeouts"] == []


def test_a_move_that_overran_is_a_timeout_without_a_timeout_event() -> None:
    side = italian()
    verdicts = drive(side, [
        {"start": True, "t": 0},
        {"player": "A", "play": "6-6", "t": 5},
        {"player": "B", "play": "6-3", "t": 26},    # 21 s of 20
        {"player": "A", "play": "3-3", "t": 30},
    ])
    refused = verdicts[2]
    assert refused is not None and not refused.ok and refused.forfeit is not None
    assert (refused.forfeit.player, refused.forfeit.reason, refused.forfeit.t) == ("B", "timeout", 25.0)
    assert verdicts[3] is not None and "the match is over" in verdicts[3].error
    summary = side.summary()
    assert summary["winner_by_forfeit"] == "A"
    assert summary["timeouts"][0]["player"] == "B"


def test_a_draw_after_the_deadline_already_proves_the_timeout() -> None:
    side = italian()
    verdicts = drive(side, [{"start": True, "t": 0}, {"player": "A", "draw": 1, "t": 20.5}])
    assert verdicts[1] is not None and verdicts[1].forfeit is not None
    assert verdicts[1].forfeit.player == "A"


def test_a_timeout_event_is_checked_against_the_clock() -> None:
    side = italian()
    early = drive(side, [{"start": True, "t": 0}, {"player": "A", "play": "6-6", "t": 5},
                         {"player": "B", "timeout": True, "t": 19}])
    assert early[2] is not None and not early[2].ok
    assert "B still had 6 s at 19 s" in early[2].error
    assert not side.over
    late = side.handle({"player": "B", "timeout": True, "t": 25})
    assert late.ok and side.forfeit is not None and side.forfeit.player == "B"


def test_an_untimed_record_accepts_the_tables_timeout() -> None:
    side = italian()
    verdicts = drive(side, [{"player": "A", "play": "6-6"}, {"player": "B", "timeout": True}])
    assert verdicts[1] is not None and verdicts[1].ok and verdicts[1].forfeit is not None
    assert side.forfeit is not None and side.forfeit.player == "B"


def test_the_move_clock_stops_while_a_player_is_away() -> None:
    side = italian()
    verdicts = drive(side, [
        {"start": True, "t": 0},
        {"player": "A", "play": "6-6", "t": 5},
        {"player": "B", "away": True, "t": 10},      # 5 s into B's move
        {"player": "B", "back": True, "t": 150},
        {"player": "B", "play": "6-1", "t": 160},    # 15 s used: slow, 5 left + 15
    ])
    assert all(v is None or v.ok for v in verdicts)
    assert side.timings[-1].used == 15.0 and side.clock.standing["B"].main == 20.0
    assert side.summary()["absences"] == {"B": 1}


def test_a_player_who_is_away_cannot_move() -> None:
    side = italian()
    verdicts = drive(side, [{"player": "A", "away": True, "t": 1}, {"player": "A", "play": "6-6", "t": 2}])
    assert verdicts[1] is not None and "A is away (since 1 s)" in verdicts[1].error


def test_a_late_return_loses_the_match() -> None:
    side = italian()
    verdicts = drive(side, [{"player": "A", "away": True, "t": 10},
                            {"player": "A", "back": True, "t": 190.5}])
    assert verdicts[1] is not None and verdicts[1].forfeit is not None
    assert verdicts[1].forfeit.reason == "late-return"
    assert side.summary()["late_returns"][0]["player"] == "A"
    assert side.winner_by_forfeit() == "B"


def test_an_absence_that_runs_out_is_found_at_the_next_event() -> None:
    side = italian(absence_seconds=60)
    verdicts = drive(side, [{"player": "B", "away": True, "t": 10},
                            {"player": "A", "play": "6-6", "t": 71}])
    assert verdicts[1] is not None and verdicts[1].forfeit is not None
    assert (verdicts[1].forfeit.player, verdicts[1].forfeit.t) == ("B", 70.0)


def test_the_third_absence_loses_the_match() -> None:
    side = italian()
    verdicts = drive(side, [
        {"player": "A", "away": True, "t": 1}, {"player": "A", "back": True, "t": 2},
        {"player": "A", "away": True, "t": 3}, {"player": "A", "back": True, "t": 4},
        {"player": "A", "away": True, "t": 5},
    ])
    assert verdicts[4] is not None and verdicts[4].forfeit is not None
    assert verdicts[4].forfeit.reason == "third-absence"


def test_leaving_outside_turkish_forfeits() -> None:
    side = italian()
    verdict = side.handle({"player": "A", "leave": True, "t": 3})
    assert verdict.forfeit is not None and verdict.forfeit.reason == "left"
    assert side.winner_by_forfeit() == "B"


def test_turkish_leave_substitute_continue_and_names() -> None:
    side = turkish()
    verdicts = drive(side, [
        {"start": True, "t": 0},
        {"player": "Ayşe", "play": "6-6", "t": 5},
        {"player": "Burak", "leave": True, "t": 10},
        {"player": "Cem", "play": "6-1", "t": 12},          # refused: waiting for Continue
        {"continue": True, "t": 13},                         # refused: Burak's seat is empty
        {"player": "Burak", "substitute": "Efe", "t": 20},
        {"continue": True, "t": 25},
        {"player": "Efe", "play": "6-2", "t": 30},
    ])
    assert [v.ok if v else None for v in verdicts] == [True, None, True, False, False, True, True, None]
    assert verdicts[3] is not None and "Continue" in verdicts[3].error
    assert verdicts[4] is not None and "empty seat (Burak)" in verdicts[4].error
    assert side.engine_event({"player": "Efe", "play": "6-2"}) == {"player": "Burak", "play": "6-2"}
    assert side.engine_event({"reveal": {"Efe": ["1-1"]}}) == {"reveal": {"Burak": ["1-1"]}}
    summary = side.summary({"Ayşe": 11, "Burak": 5, "Cem": -5, "Deniz": -11})
    assert summary["leaving"] == [{"player": "Burak", "seat": "Burak", "t": 10.0, "voluntary": True,
                                   "penalty": -22}]
    ledger = {(e["player"], e["role"]): e["points"] for e in summary["ledger"]}
    assert ledger[("Burak", "leaver")] == -22 and ledger[("Efe", "substitute")] == 5


def test_turkish_away_is_an_involuntary_drop() -> None:
    side = turkish()
    drive(side, [{"player": "Cem", "away": True, "t": 5}, {"player": "Cem", "substitute": "Efe", "t": 6},
                 {"continue": True, "t": 7}])
    ledger = {(e["player"], e["role"]): e["points"] for e in side.summary({"Cem": -11})["ledger"]}
    assert ledger[("Cem", "dropped")] == -11 and ledger[("Efe", "substitute")] == 0


def test_substitutes_and_continue_are_turkish_only() -> None:
    side = italian()
    assert "turkish club rule" in side.handle({"player": "A", "substitute": "C", "t": 1}).error
    assert "not suspended" in side.handle({"continue": True, "t": 2}).error


def test_time_going_back_and_bad_times_are_refused() -> None:
    side = italian()
    drive(side, [{"player": "A", "play": "6-6", "t": 50}])
    back = side.screen({"player": "B", "play": "6-1", "t": 40})
    assert back is not None and "earlier than the previous event's 50" in back.error
    bad = side.handle({"player": "B", "away": True, "t": "soon"})
    assert "t: found 'soon'" in bad.error


def test_a_clock_event_sets_the_clock_before_the_first_move_only() -> None:
    side = italian()
    verdict = side.handle({"clock": {"mode": "fischer", "initial_seconds": 60, "increment_seconds": 2},
                           "t": 0})
    assert verdict.ok and isinstance(side.clock.policy, FischerClock)
    drive(side, [{"start": True, "t": 0}, {"player": "A", "play": "6-6", "t": 10}])
    assert side.clock.standing["A"].main == 52.0
    later = side.handle({"clock": {"mode": "none"}, "t": 11})
    assert not later.ok and "before the first move" in later.error
    wrong = TableSide("italian", ["A", "B"]).handle({"clock": {"mode": "sandglass"}})
    assert "clock.mode: found 'sandglass'" in wrong.error


def test_a_hand_without_a_start_event_leaves_its_first_move_untimed() -> None:
    side = italian()
    drive(side, [{"start": True, "t": 0}, {"player": "A", "play": "6-6", "t": 5},
                 {"player": "B", "play": "6-1", "t": 6}, {"reveal": {"A": [], "B": ["1-1"]}, "t": 7}])
    side.new_hand()
    drive(side, [{"player": "B", "play": "5-5", "t": 400}, {"player": "A", "play": "5-1", "t": 405}])
    assert [(m.player, m.used) for m in side.timings] == [("A", 5.0), ("B", 1.0), ("A", 5.0)]


@pytest.mark.parametrize("event", [{"player": "A", "away": True}, {"away": True, "t": 1}])
def test_incomplete_table_events_are_named(event: dict[str, Any]) -> None:
    verdict = italian().handle(event)
    assert not verdict.ok and ("no time" in verdict.error or "names no player" in verdict.error)


def test_a_scoreboard_can_count_down_from_the_deadline() -> None:
    side = TableSide("muggins", ["A", "B", "C"], validate_options("muggins", {}), FischerClock(30.0, 2.0))
    drive(side, [{"start": True, "t": 100}, {"player": "A", "play": "5-5", "t": 110}])
    side.clock.claim("B")
    assert side.clock.deadline == 140.0
    assert side.clock.snapshot(135.0)["time_left"] == 5.0
    assert side.clock.snapshot(135.0)["warning"] is True


def test_the_display_snapshot_counts_down_the_move_and_the_absence() -> None:
    side = italian()
    drive(side, [{"start": True, "t": 0}, {"player": "A", "play": "6-6", "t": 5}])
    side.clock.claim("B")
    shown = side.snapshot(20.0)
    assert shown["clock"]["on_move"] == "B" and shown["clock"]["time_left"] == 5.0
    assert shown["clock"]["warning"] and shown["clock"]["deadline"] == 25.0
    side.handle({"player": "B", "away": True, "t": 21})
    away = side.snapshot(171.0)
    assert away["clock"]["deadline"] is None and away["clock"]["time_left"] == 4.0
    assert away["away"] == {"B": {"time_left": 30.0, "warning": True, "deadline": 201.0, "absence": 1}}
    assert away["forfeit"] is None and not away["waiting_for_continue"]
    table = turkish()
    table.handle({"player": "Cem", "leave": True, "t": 3})
    assert table.snapshot(4.0)["waiting_for_continue"] and table.snapshot(4.0)["empty_seats"] == ["Cem"]
