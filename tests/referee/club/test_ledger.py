"""The club ledger in SQLite: persistence across restarts, exactly-once, two writers at once."""

from __future__ import annotations

import multiprocessing
import random
import sqlite3
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.club.ledger import MIGRATIONS, Ledger, LedgerError, MatchSettlement, record_hash
from referee.table.leaving import LeavingRules, LedgerEntry, bar_periods, bar_until

HOUR = 3600.0
DAY = 24 * HOUR
T0 = 1_780_000_000.0


def settlement(tag: str, entries: list[LedgerEntry], started_at: float = T0) -> MatchSettlement:
    return MatchSettlement(record_hash({"match": tag}), "turkish", started_at, tuple(entries))


def four_players(tag: str, points: tuple[int, int, int, int] = (11, 5, -5, -11)) -> MatchSettlement:
    names = ("Ayşe", "Burak", "Cem", "Deniz")
    return settlement(tag, [LedgerEntry(n, n, "player", Fraction(p))
                            for n, p in zip(names, points, strict=True)])


def test_a_restart_keeps_everything(tmp_path: Path) -> None:
    with Ledger.in_directory(tmp_path) as ledger:
        ledger.apply(four_players("one"), applied_at=T0)
        leaver = LedgerEntry("Cem", "Cem", "leaver", Fraction(-22), abandoned_at=50.0)
        ledger.apply(settlement("two", [leaver]), applied_at=T0 + 1)
    with Ledger.in_directory(tmp_path) as again:
        cem = again.standing("Cem", now=T0)
        assert (cem.points, cem.matches, cem.abandonments) == (Fraction(-27), 2, 1)
        assert [s.name for s in again.standings(now=T0)] == ["Ayşe", "Burak", "Deniz", "Cem"]
        assert again.schema_version == len(MIGRATIONS)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:
        assert pool.apply(_points_in_child, (str(tmp_path), "Cem")) == "-27"


def _points_in_child(data_dir: str, name: str) -> str:
    with Ledger.in_directory(data_dir) as ledger:
        return str(ledger.standing(name, now=T0).points)


def test_applying_the_same_record_twice_changes_nothing(tmp_path: Path) -> None:
    with Ledger.in_directory(tmp_path) as ledger:
        first = ledger.apply(four_players("same"), applied_at=T0)
        second = ledger.apply(four_players("same"), applied_at=T0 + 5)
        assert first.applied and not second.applied and second.match_id == first.match_id
        assert ledger.match_count() == 1
        assert ledger.standing("Ayşe", now=T0).points == 11


def test_fractions_from_shared_places_stay_exact(tmp_path: Path) -> None:
    with Ledger.in_directory(tmp_path) as ledger:
        for tag in "abc":
            ledger.apply(four_players(tag, (11, -5, -5, -1)), applied_at=T0)
        ledger.apply(settlement("third", [LedgerEntry("Burak", "Burak", "player", Fraction(-11, 3))]),
                     applied_at=T0)
        assert ledger.standing("Burak", now=T0).points == Fraction(-56, 3)
        assert ledger.standing("Burak", now=T0).as_dict()["points"] == "-56/3"


def test_a_substitute_above_the_gain_limit_gains_nothing(tmp_path: Path) -> None:
    with Ledger.in_directory(tmp_path) as ledger:
        ledger.apply(settlement("rich", [LedgerEntry("Efe", "Efe", "player", Fraction(3001))]), applied_at=T0)
        ledger.apply(settlement("poor", [LedgerEntry("Filiz", "Filiz", "player", Fraction(3000))]),
                     applied_at=T0)
        booking = ledger.apply(settlement("subs", [
            LedgerEntry("Efe", "Ayşe", "substitute", Fraction(11), gain_limit=3000),
            LedgerEntry("Filiz", "Burak", "substitute", Fraction(5), gain_limit=3000),
        ]), applied_at=T0)
        assert booking.points == {"Efe": 0, "Filiz": 5}
        assert ledger.standing("Efe", now=T0).points == 3001
        assert ledger.standing("Filiz", now=T0).points == 3005
        assert ledger.standing("Efe", now=T0).matches == 2


def test_the_third_abandonment_in_seven_days_bars_for_two_hours(tmp_path: Path) -> None:
    rules = LeavingRules()
    with Ledger.in_directory(tmp_path) as ledger:
        for day, tag in [(0, "a"), (3, "b")]:
            booking = ledger.apply(MatchSettlement(record_hash({"m": tag}), "turkish", T0 + day * DAY, (
                LedgerEntry("Cem", "Cem", "leaver", Fraction(-22), abandoned_at=100.0),),
                leaving_rules=rules), applied_at=T0)
            assert booking.bars == {}
        booking = ledger.apply(MatchSettlement(record_hash({"m": "c"}), "turkish", T0 + 6 * DAY, (
            LedgerEntry("Cem", "Cem", "leaver", Fraction(-22), abandoned_at=100.0),), leaving_rules=rules),
            applied_at=T0)
        third = T0 + 6 * DAY + 100.0
        assert booking.bars == {"Cem": third + 2 * HOUR}
        assert ledger.barred_until("Cem", now=third + HOUR) == third + 2 * HOUR
        assert ledger.barred_until("Cem", now=third + 2 * HOUR) is None
        assert ledger.barred_until("Cem", now=third - 1) is None
        cem = ledger.standing("Cem", now=third + 10)
        assert (cem.abandonments, cem.points, cem.barred_until) == (3, -66, third + 2 * HOUR)


def abandonment(tag: str, at: float, name: str = "Cem", rules: LeavingRules | None = None) -> MatchSettlement:
    return MatchSettlement(record_hash({"m": tag}), "turkish", at - 100.0, (
        LedgerEntry(name, name, "leaver", Fraction(-22), abandoned_at=100.0),),
        leaving_rules=rules or LeavingRules())


def test_three_abandonments_booked_third_first_second_still_bar(tmp_path: Path) -> None:
    # Issue 16: booked in this order, the old ledger never saw three within one window.
    times = {"a": T0, "b": T0 + 3 * DAY, "c": T0 + 6 * DAY}
    with Ledger.in_directory(tmp_path) as ledger:
        assert ledger.apply(abandonment("c", times["c"]), applied_at=T0).bars == {}
        assert ledger.apply(abandonment("a", times["a"]), applied_at=T0).bars == {}
        booking = ledger.apply(abandonment("b", times["b"]), applied_at=T0)
        # The bar runs from the abandonment that completes the window: the third, not the last booked.
        assert booking.bars == {"Cem": times["c"] + 2 * HOUR}
        assert ledger.barred_until("Cem", now=times["c"] + HOUR) == times["c"] + 2 * HOUR
        assert ledger.barred_until("Cem", now=times["b"] + HOUR) is None


def _bars(ledger: Ledger) -> list[tuple[str, float, float]]:
    return sorted(ledger.db.execute("SELECT player, since, until FROM bars").fetchall())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(0, 20 * 24), min_size=1, max_size=7), st.randoms(use_true_random=False))
def test_bars_do_not_depend_on_the_booking_order(tmp_path_factory: pytest.TempPathFactory,
                                                 hours: list[int], rng: random.Random) -> None:
    times = [T0 + h * HOUR for h in hours]
    rules = LeavingRules(bar_abandonments=3, bar_window_days=7.0, bar_hours=2.0)
    expected = [("Cem", since, until) for since, until in bar_periods(times, rules)]
    for order in (list(range(len(times))), rng.sample(range(len(times)), len(times))):
        with Ledger.in_directory(tmp_path_factory.mktemp("ledger")) as ledger:
            made: dict[str, float] = {}
            for index in order:
                for name, until in ledger.apply(abandonment(f"m{index}", times[index], rules=rules),
                                                applied_at=T0).bars.items():
                    made[name] = max(until, made.get(name, until))
            assert _bars(ledger) == sorted(expected)
            assert made == ({"Cem": max(u for _, _, u in expected)} if expected else {})
            for _, since, until in expected:
                assert ledger.barred(["Cem", "Zeki"], now=since) == {"Cem": until}


def test_bar_periods_by_hand() -> None:
    rules = LeavingRules(bar_abandonments=3, bar_window_days=7.0, bar_hours=2.0)
    # 0, 3 and 6 days: a bar from day 6; a fourth on day 8 still has 3 (days 3, 6, 8) in the window.
    assert bar_periods([6 * DAY, 0.0, 3 * DAY, 8 * DAY], rules) == [(6 * DAY, 6 * DAY + 2 * HOUR),
                                                                    (8 * DAY, 8 * DAY + 2 * HOUR)]
    # Exactly 7 days between the first and the third is outside the window.
    assert bar_periods([0.0, 3 * DAY, 7 * DAY], rules) == []
    assert bar_until([0.0, 3 * DAY, 6 * DAY], rules) == 6 * DAY + 2 * HOUR


def test_barred_names_who_may_not_start_and_until_when(tmp_path: Path) -> None:
    with Ledger.in_directory(tmp_path) as ledger:
        for tag, day in (("a", 0), ("b", 1), ("c", 2)):
            ledger.apply(abandonment(tag, T0 + day * DAY), applied_at=T0)
        ledger.apply(four_players("plain"), applied_at=T0)
        now = T0 + 2 * DAY + HOUR
        # Start with Cem at the table is refused; the answer says who and until when.
        assert ledger.barred(["Ayşe", "Cem", "Newcomer"], now=now) == {"Cem": T0 + 2 * DAY + 2 * HOUR}
        assert ledger.barred(["Ayşe", "Burak"], now=now) == {}
        assert ledger.barred(["Cem"], now=T0 + 2 * DAY + 2 * HOUR) == {}   # the bar is over


def test_an_old_schema_is_migrated_in_place(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(MIGRATIONS[0])
    db.execute("INSERT INTO players VALUES ('Old', 1.0)")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    with Ledger(path) as ledger:
        assert ledger.schema_version == len(MIGRATIONS) == 2
        assert ledger.players() == ["Old"]
        assert ledger.barred_until("Old", now=T0) is None  # the bars table came with migration 2


def test_a_newer_schema_or_a_file_that_is_no_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.commit()
    db.close()
    with pytest.raises(LedgerError, match="schema version 99 is newer"):
        Ledger(path)
    junk = tmp_path / "junk" / "ledger.sqlite3"
    junk.parent.mkdir()
    junk.write_bytes(b"this is not a database at all, just text" * 100)
    with pytest.raises(LedgerError, match="not a usable ledger"):
        Ledger(junk)


def test_an_unknown_player_is_named(tmp_path: Path) -> None:
    with Ledger.in_directory(tmp_path) as ledger, pytest.raises(LedgerError, match="no player 'Zeki'"):
        ledger.standing("Zeki", now=T0)


def _apply_many(data_dir: str, prefix: str, count: int, barrier: object) -> int:
    barrier.wait()  # type: ignore[attr-defined]
    applied = 0
    with Ledger.in_directory(data_dir) as ledger:
        for i in range(count):
            booking = ledger.apply(settlement(f"{prefix}-{i}", [
                LedgerEntry(f"{prefix}-player", "s", "player", Fraction(1)),
                LedgerEntry("shared", "s", "player", Fraction(1)),
            ]), applied_at=T0)
            applied += booking.applied
    return applied


def test_two_processes_applying_different_records_at_once_lose_nothing(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    count = 40
    with ctx.Manager() as manager:
        barrier = manager.Barrier(2)
        with ctx.Pool(2) as pool:
            results = [pool.apply_async(_apply_many, (str(tmp_path), prefix, count, barrier))
                       for prefix in ("left", "right")]
            assert [r.get(timeout=60) for r in results] == [count, count]
    with Ledger.in_directory(tmp_path) as ledger:
        assert ledger.match_count() == 2 * count
        assert ledger.standing("shared", now=T0).points == 2 * count
        assert ledger.standing("shared", now=T0).matches == 2 * count
        assert ledger.standing("left-player", now=T0).points == count
        assert ledger.standing("right-player", now=T0).points == count


def test_record_hash_ignores_key_order_but_not_content() -> None:
    assert record_hash({"a": 1, "b": [1, 2]}) == record_hash({"b": [1, 2], "a": 1})
    assert record_hash({"a": 1}) != record_hash({"a": 2})
