"""Stepping away (italian) and leaving / substitutes / bars (turkish), as pure rules."""

from __future__ import annotations

from fractions import Fraction

import pytest

from referee.rules import validate_options
from referee.table.absences import AbsenceError, AbsenceRules, Absences
from referee.table.leaving import LeavingRules, SeatError, Seating, bar_until

ITALIAN = AbsenceRules.from_options(validate_options("italian", {}))
TURKISH = LeavingRules.from_options(validate_options("turkish", {}))
DAY = 86400.0


def test_absence_rules_come_from_the_italian_options() -> None:
    assert AbsenceRules(2, 180.0, 30.0) == ITALIAN
    custom = AbsenceRules.from_options(validate_options(
        "italian", {"max_absences": 1, "absence_seconds": 60, "absence_warning_seconds": 10}))
    assert custom == AbsenceRules(1, 60.0, 10.0)


def test_two_absences_in_time_are_allowed_and_the_third_loses() -> None:
    absences = Absences(ITALIAN, ["A", "B"])
    assert absences.away("A", 10.0) is None
    assert absences.back("A", 190.0) is None           # exactly 3 minutes: in time
    assert absences.away("A", 300.0) is None
    assert absences.back("A", 310.0) is None
    forfeit = absences.away("A", 400.0)
    assert forfeit is not None and forfeit.player == "A" and forfeit.reason == "third-absence"
    assert absences.forfeits == [forfeit]


def test_a_late_return_loses_the_match() -> None:
    absences = Absences(ITALIAN, ["A", "B"])
    absences.away("B", 50.0)
    forfeit = absences.back("B", 230.5)
    assert forfeit is not None and forfeit.reason == "late-return" and forfeit.t == 230.5
    assert "0.5 s after the 180 s" in forfeit.detail


def test_an_absence_that_runs_out_is_found_without_a_back() -> None:
    absences = Absences(ITALIAN, ["A", "B"])
    absences.away("A", 0.0)
    assert absences.expired(180.0) == []
    lost = absences.expired(181.0)
    assert [(f.player, f.reason, f.t) for f in lost] == [("A", "late-return", 180.0)]
    assert not absences.is_away("A")


def test_the_last_30_seconds_of_an_absence_are_flagged() -> None:
    absences = Absences(ITALIAN, ["A", "B"])
    absences.away("A", 100.0)
    assert absences.deadline("A") == 280.0
    assert absences.time_left("A", 249.0) == 31.0
    assert not absences.warning_due("A", 249.9)
    assert absences.warning_due("A", 250.0)
    assert absences.snapshot(260.0) == {"A": {"time_left": 20.0, "warning": True, "deadline": 280.0,
                                              "absence": 1}}
    assert absences.time_left("B", 260.0) is None


def test_back_without_away_and_away_twice_are_errors() -> None:
    absences = Absences(ITALIAN, ["A", "B"])
    with pytest.raises(AbsenceError, match="B is back at 5 s but was not away"):
        absences.back("B", 5.0)
    absences.away("A", 1.0)
    with pytest.raises(AbsenceError, match="already away"):
        absences.away("A", 2.0)


SEATS = ["Ayşe", "Burak", "Cem", "Deniz"]
FINAL = {"Ayşe": 11, "Burak": 5, "Cem": -5, "Deniz": -11}


def entries_of(seating: Seating, points: dict[str, int] | None = FINAL) -> dict[tuple[str, str], Fraction]:
    return {(e.player, e.role): e.delta for e in seating.settle(points)}


def test_a_leaver_loses_2n_whatever_the_standing_and_the_abandonment_is_written() -> None:
    seating = Seating(SEATS, TURKISH)
    seating.leave("Ayşe", 280.0)
    seating.substitute("Ayşe", "Efe", 290.0)
    seating.resume(300.0)
    entries = seating.settle(FINAL)
    leaver = next(e for e in entries if e.role == "leaver")
    assert (leaver.player, leaver.delta, leaver.abandoned_at) == ("Ayşe", Fraction(-22), 280.0)
    # Ayşe's seat won (+11): the substitute gains it, subject to the ledger's 3000-point check.
    efe = next(e for e in entries if e.player == "Efe")
    assert (efe.role, efe.delta, efe.gain_limit) == ("substitute", Fraction(11), 3000)


def test_leave_penalty_follows_the_options() -> None:
    rules = LeavingRules.from_options(validate_options("turkish", {"hands": 7, "leave_penalty_hands": 3}))
    seating = Seating(SEATS, rules)
    seating.leave("Cem", 1.0)
    assert entries_of(seating, None) == {("Cem", "leaver"): Fraction(-21)}


def test_a_substitute_gains_only_and_loses_nothing() -> None:
    seating = Seating(SEATS, TURKISH)
    seating.leave("Deniz", 10.0)
    seating.substitute("Deniz", "Efe", 20.0)
    seating.resume(30.0)
    assert entries_of(seating)[("Efe", "substitute")] == 0
    assert entries_of(seating)[("Deniz", "leaver")] == -22


def test_a_dropped_players_loss_is_charged_when_their_substitute_loses() -> None:
    seating = Seating(SEATS, TURKISH)
    seating.drop("Cem", 100.0)
    seating.substitute("Cem", "Efe", 110.0)
    seating.resume(120.0)
    entries = entries_of(seating)
    assert entries[("Efe", "substitute")] == 0
    assert entries[("Cem", "dropped")] == -5
    assert not any(role == "leaver" for _, role in entries)


def test_a_dropped_player_gets_nothing_when_their_substitute_wins() -> None:
    seating = Seating(SEATS, TURKISH)
    seating.drop("Burak", 100.0)
    seating.substitute("Burak", "Efe", 110.0)
    seating.resume(120.0)
    entries = entries_of(seating)
    assert entries[("Efe", "substitute")] == 5
    assert entries[("Burak", "dropped")] == 0


def test_a_dropped_player_who_comes_back_retakes_the_seat_and_its_result() -> None:
    seating = Seating(SEATS, TURKISH)
    seating.drop("Cem", 100.0)
    seating.substitute("Cem", "Efe", 110.0)
    seating.resume(120.0)
    assert seating.back("Cem", 200.0) == "Efe"
    assert seating.suspended
    seating.resume(210.0)
    entries = entries_of(seating)
    assert entries[("Cem", "player")] == -5
    assert entries[("Efe", "substitute")] == 0


def test_continue_needs_every_seat_taken_and_a_seat_takes_one_substitute() -> None:
    seating = Seating(SEATS, TURKISH)
    seating.leave("Burak", 5.0)
    with pytest.raises(SeatError, match=r"Continue at 6 s with an empty seat \(Burak\)"):
        seating.resume(6.0)
    seating.substitute("Burak", "Efe", 7.0)
    with pytest.raises(SeatError, match="not empty"):
        seating.substitute("Burak", "Filiz", 8.0)
    seating.leave("Cem", 9.0)
    with pytest.raises(SeatError, match="'Ayşe' already sits"):
        seating.substitute("Cem", "Ayşe", 9.5)
    with pytest.raises(SeatError, match="left this match by choice"):
        seating.substitute("Cem", "Burak", 10.0)


def test_names_resolve_to_seats_and_strangers_are_refused() -> None:
    seating = Seating(SEATS, TURKISH)
    seating.leave("Ayşe", 1.0)
    seating.substitute("Ayşe", "Efe", 2.0)
    assert seating.seat_of("Efe") == "Ayşe"
    with pytest.raises(SeatError, match="'Zeki' is not seated"):
        seating.leave("Zeki", 3.0)
    with pytest.raises(SeatError, match="'Zeki' is back at 4 s but had not dropped"):
        seating.back("Zeki", 4.0)


def test_a_substitute_who_leaves_is_a_leaver_too() -> None:
    seating = Seating(SEATS, TURKISH)
    seating.leave("Ayşe", 1.0)
    seating.substitute("Ayşe", "Efe", 2.0)
    seating.leave("Efe", 3.0)
    seating.substitute("Ayşe", "Filiz", 4.0)
    seating.resume(5.0)
    entries = entries_of(seating)
    assert entries[("Ayşe", "leaver")] == -22
    assert entries[("Efe", "leaver")] == -22
    assert entries[("Filiz", "substitute")] == 11


def test_three_abandonments_within_seven_days_bar_for_two_hours() -> None:
    assert bar_until([0.0, 2 * DAY], TURKISH) is None
    assert bar_until([0.0, 2 * DAY, 6.9 * DAY], TURKISH) == 6.9 * DAY + 7200
    assert bar_until([0.0, 2 * DAY, 7 * DAY], TURKISH) is None      # the first fell out of the window
    assert bar_until([0.0, 1.0, 2.0, 3.0], TURKISH) == 3.0 + 7200   # the latest bar counts
    strict = LeavingRules.from_options(validate_options(
        "turkish", {"bar_abandonments": 2, "bar_window_days": 1, "bar_hours": 24}))
    assert bar_until([0.0, 0.5 * DAY], strict) == 0.5 * DAY + DAY
