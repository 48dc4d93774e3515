"""Move clocks against their definitions: the italian clock of RULES.md and the chess-clock modes."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.app.config import parse_config
from referee.fields import SettingError
from referee.table.clocks import (
    BronsteinClock,
    ByoYomiClock,
    ClockError,
    ClockPolicy,
    FischerClock,
    ItalianClock,
    MoveClock,
    NoClock,
    PerMoveClock,
    PlayerTime,
    clock_from_config,
)

# (seconds the move took, allowance of the next move) — worked by hand from RULES.md:
# under 15 s → previous allowance + 5 (at most 30); 15 s or more → what was left + 15.
ITALIAN_WALK = [
    (5.0, 25.0),     # 20 → fast → 25
    (3.0, 30.0),     # fast → 30
    (1.0, 30.0),     # fast, capped
    (14.9, 30.0),    # just under 15 s is fast, still capped
    (15.0, 30.0),    # slow: 30 − 15 = 15 left, + 15
    (20.0, 25.0),    # slow: 10 left + 15
    (24.0, 16.0),    # slow: 1 left + 15
    (10.0, 21.0),    # fast: 16 + 5
    (16.0, 20.0),    # slow: 5 left + 15
    (20.0, 15.0),    # used the whole allowance, in time: 0 left + 15
    (15.0, 15.0),    # slow again with exactly 15: 0 + 15
    (14.0, 20.0),    # fast
    (0.0, 25.0),     # instant
    (12.5, 30.0),    # fast, capped at 30
    (29.0, 16.0),    # slow: 1 left + 15
    (2.0, 21.0),
    (2.0, 26.0),
    (2.0, 30.0),
    (2.0, 30.0),
]


def test_italian_first_move_has_20_seconds() -> None:
    clock = ItalianClock()
    assert clock.initial() == PlayerTime(20.0)
    assert clock.allowance(clock.initial()) == 20.0


def test_italian_clock_walks_a_long_sequence_of_fast_and_slow_moves() -> None:
    clock = ItalianClock()
    time = clock.initial()
    for number, (used, expected) in enumerate(ITALIAN_WALK, start=1):
        assert not clock.timed_out(time, used), f"move {number} took {used} of {time.main}"
        time = clock.after_move(time, used)
        assert time.main == pytest.approx(expected), f"after move {number} ({used} s)"
        assert time.moves == number
        assert time.main <= 30.0


def test_italian_clock_warns_at_10_seconds_left_and_times_out_past_the_allowance() -> None:
    clock = ItalianClock()
    time = clock.after_move(clock.initial(), 5.0)  # 25 s
    assert not clock.warning_due(time, 14.9)
    assert clock.warning_due(time, 15.0)
    assert clock.time_left(time, 15.0) == 10.0
    assert not clock.timed_out(time, 25.0)  # 0 s left is still in time
    assert clock.timed_out(time, 25.01)
    assert clock.time_left(time, 40.0) == 0.0


def test_italian_clock_from_the_table_config() -> None:
    config = parse_config({"table": {"rules": "italian", "players": ["A", "B"]},
                           "clock": {"warning_seconds": 8}}, environ={})
    clock = clock_from_config(config["clock"], "italian")
    assert isinstance(clock, ItalianClock)
    assert clock.first_seconds == 20.0 and clock.warning_seconds == 8.0
    assert isinstance(clock_from_config(config["clock"], "turkish"), NoClock)


def test_italian_first_move_above_the_cap_is_refused() -> None:
    with pytest.raises(SettingError, match=r"clock.initial_seconds: found 40.0, allowed at most 30"):
        clock_from_config({"mode": "italian", "initial_seconds": 40.0}, "italian")


@pytest.mark.parametrize(
    ("section", "kind", "attrs"),
    [
        ({"mode": "fischer", "initial_seconds": 300, "increment_seconds": 3}, FischerClock,
         {"initial_seconds": 300.0, "increment_seconds": 3.0}),
        ({"mode": "bronstein", "initial_seconds": 120, "delay_seconds": 4}, BronsteinClock,
         {"initial_seconds": 120.0, "delay_seconds": 4.0}),
        ({"mode": "byoyomi", "initial_seconds": 60, "period_seconds": 20, "periods": 3}, ByoYomiClock,
         {"initial_seconds": 60.0, "period_seconds": 20.0, "periods": 3}),
        ({"mode": "per-move", "period_seconds": 45}, PerMoveClock, {"period_seconds": 45.0}),
        ({"mode": "none"}, NoClock, {}),
        ({"mode": "italian", "warning_seconds": 5}, ItalianClock, {"warning_seconds": 5.0}),
    ],
)
def test_every_config_mode_selects_its_policy(section: dict[str, object], kind: type,
                                              attrs: dict[str, object]) -> None:
    config = parse_config({"clock": section}, environ={})
    clock = clock_from_config(config["clock"], "turkish")
    assert isinstance(clock, kind)
    for name, value in attrs.items():
        assert getattr(clock, name) == value


def test_fischer_adds_the_increment_after_every_move() -> None:
    clock = FischerClock(60.0, 5.0)
    time = clock.initial()
    for used, expected in [(10, 55), (3, 57), (0, 62), (62, 5), (4.5, 5.5)]:
        time = clock.after_move(time, used)
        assert time.main == pytest.approx(expected)
    assert clock.timed_out(time, 5.6)
    assert not clock.timed_out(time, 5.5)


def test_bronstein_delay_is_free_and_unused_delay_is_lost() -> None:
    clock = BronsteinClock(60.0, 5.0)
    time = clock.initial()
    assert clock.allowance(time) == 65.0
    time = clock.after_move(time, 3.0)   # within the delay: main time untouched, nothing gained
    assert time.main == 60.0
    time = clock.after_move(time, 8.0)   # 3 s past the delay
    assert time.main == 57.0
    time = clock.after_move(time, 62.0)  # the whole main time and the delay
    assert time.main == 0.0
    assert clock.allowance(time) == 5.0
    assert clock.timed_out(time, 5.01)


def test_byoyomi_keeps_a_period_made_in_time_and_spends_overrun_ones() -> None:
    clock = ByoYomiClock(10.0, 30.0, 3)
    time = clock.initial()
    assert clock.allowance(time) == 100.0
    time = clock.after_move(time, 5.0)
    assert (time.main, time.periods) == (5.0, 3)
    time = clock.after_move(time, 20.0)    # 15 s into the first period: kept
    assert (time.main, time.periods) == (0.0, 3)
    time = clock.after_move(time, 30.0)    # exactly at the period's end: kept
    assert time.periods == 3
    time = clock.after_move(time, 31.0)    # one period spent
    assert time.periods == 2
    assert clock.period_left(time, 10.0) == 20.0
    time = clock.after_move(time, 45.0)    # overran one of the two
    assert time.periods == 1
    assert clock.allowance(time) == 30.0
    assert clock.timed_out(time, 30.5)


def test_per_move_limit_resets_every_move() -> None:
    clock = PerMoveClock(30.0)
    time = clock.initial()
    for used in (29.0, 30.0, 1.0):
        assert not clock.timed_out(time, used)
        time = clock.after_move(time, used)
        assert clock.allowance(time) == 30.0
    assert clock.timed_out(time, 30.01)


def test_no_clock_never_runs_out_or_warns() -> None:
    clock = NoClock()
    time = clock.after_move(clock.initial(), 1e6)
    assert clock.allowance(time) is None
    assert clock.time_left(time, 1e9) is None
    assert not clock.warning_due(time, 1e9)
    assert not clock.timed_out(time, 1e9)


def test_a_negative_move_time_is_an_error() -> None:
    with pytest.raises(ClockError, match="-1"):
        ItalianClock().after_move(PlayerTime(20.0), -1.0)


def test_move_clock_pauses_while_away_and_gives_the_display_a_deadline() -> None:
    clock = MoveClock(ItalianClock(), ["A", "B"])
    clock.start_turn("A", 100.0)
    assert clock.deadline == 120.0
    assert clock.warning_at == 110.0
    assert clock.time_left(104.0) == 16.0
    clock.pause(105.0)
    assert clock.deadline is None
    assert clock.time_left(190.0) == 15.0   # the move clock stops while away
    clock.resume(200.0)
    assert clock.deadline == 215.0
    assert not clock.warning_due(204.9)
    assert clock.warning_due(205.0)
    timing = clock.end_move(210.0)
    assert timing.used == pytest.approx(15.0)
    assert not timing.timed_out
    assert timing.after.main == pytest.approx(20.0)  # slow: 5 left + 15
    assert clock.on_move is None and clock.deadline is None


def test_move_clock_reports_a_timeout_and_leaves_the_standing() -> None:
    clock = MoveClock(ItalianClock(), ["A", "B"])
    clock.start_turn(None, 0.0)
    clock.claim("B")
    assert clock.flag_fallen(20.5)
    timing = clock.end_move(21.0)
    assert timing.timed_out and timing.overrun == pytest.approx(1.0)
    assert clock.standing["B"] == PlayerTime(20.0)


def test_move_clock_refuses_time_going_back_and_moves_without_a_turn() -> None:
    clock = MoveClock(FischerClock(), ["A"])
    with pytest.raises(ClockError, match="no turn"):
        clock.end_move(1.0)
    clock.start_turn("A", 10.0)
    with pytest.raises(ClockError, match="time goes back"):
        clock.end_move(9.0)


POLICIES: list[ClockPolicy] = [
    ItalianClock(), ItalianClock(first_seconds=10.0, warning_seconds=3.0), FischerClock(60.0, 5.0),
    BronsteinClock(60.0, 5.0), ByoYomiClock(10.0, 20.0, 3), PerMoveClock(25.0), NoClock(),
]


@settings(max_examples=150, deadline=None)
@given(index=st.integers(0, len(POLICIES) - 1),
       moves=st.lists(st.floats(min_value=0.0, max_value=120.0, allow_nan=False), max_size=60))
def test_a_clock_never_goes_negative_and_never_grants_more_than_its_cap(index: int,
                                                                      moves: list[float]) -> None:
    policy = POLICIES[index]
    time = policy.initial()
    grown = 0.0
    for used in moves:
        allowance = policy.allowance(time)
        if allowance is not None:
            assert allowance >= 0.0
            cap = policy.ceiling
            if cap is not None:
                assert allowance <= cap + 1e-9
            else:  # Fischer: never more than the main time plus every increment earned
                assert allowance <= 60.0 + grown + 1e-9
        left = policy.time_left(time, used)
        assert left is None or left >= 0.0
        if policy.timed_out(time, used):
            assert allowance is not None and used > allowance
            break
        time = policy.after_move(time, used)
        grown += 5.0
        assert time.main >= 0.0 and not math.isnan(time.main)
        assert time.periods >= 0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 30.0), st.booleans()), max_size=40))
def test_italian_clock_matches_its_rule_move_by_move(moves: list[tuple[float, bool]]) -> None:
    clock = ItalianClock()
    time = clock.initial()
    for used, _ in moves:
        if used > time.main:
            assert clock.timed_out(time, used)
            return
        expected = min(time.main + 5, 30) if used < 15 else time.main - used + 15
        time = clock.after_move(time, used)
        assert time.main == pytest.approx(expected)
        assert 0 < time.main <= 30


@settings(max_examples=150, deadline=None)
@given(index=st.integers(0, len(POLICIES) - 1),
       steps=st.lists(st.tuples(st.sampled_from(["pause", "resume", "end", "look"]),
                                st.floats(min_value=0.0, max_value=50.0, allow_nan=False)), max_size=40))
def test_a_move_clock_with_pauses_never_counts_more_than_the_time_that_ran(
        index: int, steps: list[tuple[str, float]]) -> None:
    clock = MoveClock(POLICIES[index], ["A", "B"])
    now = 0.0
    clock.start_turn("A", now)
    turn_start, players = now, iter(["B", "A"] * 40)
    for action, gap in steps:
        now += gap
        elapsed = clock.elapsed(now)
        assert 0.0 <= elapsed <= now - turn_start + 1e-9
        left = clock.time_left(now)
        assert left is None or left >= 0.0
        if clock.deadline is not None:
            assert clock.deadline >= turn_start
        if action == "pause":
            clock.pause(now)
        elif action == "resume":
            clock.resume(now)
        elif action == "end":
            timing = clock.end_move(now)
            assert timing.used == pytest.approx(elapsed)
            assert timing.timed_out == (timing.allowance is not None and timing.used > timing.allowance)
            clock.start_turn(next(players), now)
            turn_start = now
