"""Tournament prize pools: every row of RULES.md's buy-in table, refunds and payout splits."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.club.tournament import (
    BuyIn,
    HeadToHeadOpening,
    PayoutSplit,
    Tournament,
    TournamentError,
    format_cents,
)

# The table as RULES.md writes it: buy-in € → (prize pool %, rake %).
RULES_TABLE = [
    (1, "85", "15"), (2, "85", "15"), (3, "85", "15"), (5, "86", "14"), (7, "85.71", "14.29"),
    (10, "87.5", "12.5"), (20, "88", "12"), (30, "88.67", "11.33"), (50, "89", "11"),
    (100, "89.5", "10.5"),
]


@pytest.mark.parametrize(("euros", "prize", "rake"), RULES_TABLE)
def test_every_row_of_the_buy_in_table(euros: int, prize: str, rake: str) -> None:
    row = BuyIn.lookup(euros)
    assert row.cents == euros * 100
    assert row.prize_cents + row.rake_cents == row.cents           # not a cent lost or made
    assert row.prize_percent == Decimal(prize) and row.rake_percent == Decimal(rake)
    # the cents, expressed as percentages rounded like the table, give the table back
    shown = (Decimal(row.prize_cents) * 100 / row.cents).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    assert shown == Decimal(prize)


def test_rounded_rows_come_out_as_whole_euros_and_cents() -> None:
    assert (BuyIn.lookup(7).prize_cents, BuyIn.lookup(7).rake_cents) == (600, 100)
    assert (BuyIn.lookup("30").prize_cents, BuyIn.lookup("€30").rake_cents) == (2660, 340)
    assert (BuyIn.lookup(Decimal("10.00")).prize_cents, BuyIn.lookup(10).rake_cents) == (875, 125)
    assert str(BuyIn.lookup(7)) == "€7.00 = €6.00 prize pool (85.71%) + €1.00 rake (14.29%)"


@pytest.mark.parametrize("bad", [4, "7.5", 0, 1000, "-1"])
def test_a_buy_in_outside_the_table_is_refused(bad: object) -> None:
    with pytest.raises(TournamentError, match=r"buy-in: found .*allowed one of €1, €2, €3, €5, €7"):
        BuyIn.lookup(bad)


def test_a_buy_in_that_is_no_number_is_refused() -> None:
    with pytest.raises(TournamentError, match=r"buy-in: found 'abc', allowed a number"):
        BuyIn.lookup("abc")


def test_head_to_head_winner_takes_the_pool() -> None:
    tournament = Tournament(BuyIn.lookup(7), ("A", "B"))
    assert tournament.prize_pool_cents == 1200 and tournament.rake_cents == 200
    assert tournament.payouts(["B", "A"]) == {"B": 1200, "A": 0}


def test_small_tournaments_pay_the_winner_and_refuse_a_split() -> None:
    tournament = Tournament(BuyIn.lookup(30), tuple("ABCDEFG"))
    assert tournament.payouts(list("GFEDCBA"))["G"] == 7 * 2660
    with pytest.raises(TournamentError, match="7 players: the winner takes the pool"):
        Tournament(BuyIn.lookup(30), tuple("ABCDEFG"), PayoutSplit.parse("60/40"))


def test_eight_or_more_players_split_the_pool_to_the_cent() -> None:
    players = tuple(f"P{i}" for i in range(9))
    tournament = Tournament(BuyIn.lookup(7), players, PayoutSplit.parse("50/30/20"))
    assert tournament.prize_pool_cents == 5400
    payouts = tournament.payouts(list(players))
    assert [payouts[p] for p in players[:4]] == [2700, 1620, 1080, 0]
    assert sum(payouts.values()) == tournament.prize_pool_cents


def test_split_remainders_go_to_the_largest_fractions_and_nothing_is_lost() -> None:
    split = PayoutSplit.parse("33.34, 33.33, 33.33")
    assert split.shares(100) == [34, 33, 33]
    assert split.shares(101) == [34, 34, 33]
    assert PayoutSplit.parse(["40", "35%", 25]).shares(1001) == [401, 350, 250]  # 400.4, 350.35, 250.25
    for pool in range(0, 2000, 37):
        assert sum(split.shares(pool)) == pool


def test_eight_players_need_a_split() -> None:
    with pytest.raises(TournamentError, match="8 players: a payout split must be configured"):
        Tournament(BuyIn.lookup(5), tuple("ABCDEFGH"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("50/30/10", r"50/30/10: adds up to 90%, allowed exactly 100%"),
        ("60/30/20", r"adds up to 110%"),
        ("50/50/0", r"every place's share must be above 0%"),
        ("30/70", r"a lower place may not get more"),
        ("50/x", r"found 'x', allowed a number"),
        ("", r"empty"),
        ("33.33/33.33/33.33", r"adds up to 99.99%"),
    ],
)
def test_invalid_splits_are_refused_with_the_reason(text: str, message: str) -> None:
    with pytest.raises(TournamentError, match=message):
        PayoutSplit.parse(text)


def test_a_split_paying_more_places_than_players_is_refused() -> None:
    with pytest.raises(TournamentError, match="pays 9 places but only 8 players"):
        Tournament(BuyIn.lookup(5), tuple("ABCDEFGH"), PayoutSplit.parse("20/20/10/10/10/10/10/5/5"))


def test_rankings_must_name_players_once() -> None:
    tournament = Tournament(BuyIn.lookup(1), ("A", "B"))
    with pytest.raises(TournamentError, match="did not play"):
        tournament.payouts(["C", "A"])
    with pytest.raises(TournamentError, match="twice"):
        tournament.payouts(["A", "A"])


def test_head_to_head_refunds_both_when_a_player_does_not_press_start_within_two_minutes() -> None:
    opening = HeadToHeadOpening(Tournament(BuyIn.lookup(10), ("A", "B")), opened_at=1000.0)
    assert opening.status({"A": 1005.0}, now=1100.0) == "waiting"
    assert opening.status({"A": 1005.0, "B": 1120.0}, now=1120.0) == "started"   # 2:00 exactly
    assert opening.status({"A": 1005.0}, now=1120.5) == "refunded"
    assert opening.status({"A": 1005.0, "B": 1121.0}, now=1121.0) == "refunded"  # too late
    assert opening.settle({"A": 1005.0}, now=1200.0) == {"A": 1000, "B": 1000}
    assert opening.settle({"A": 1005.0, "B": 1010.0}, now=1200.0) == {}
    with pytest.raises(TournamentError, match="'C' pressed Start"):
        opening.status({"C": 1001.0}, now=1002.0)
    with pytest.raises(TournamentError, match="head-to-head needs 2 players"):
        HeadToHeadOpening(Tournament(BuyIn.lookup(10), ("A", "B", "C")), 0.0)


def test_cents_format_as_euros() -> None:
    assert format_cents(599) == "€5.99"
    assert format_cents(-5) == "-€0.05"


@given(st.integers(1, 1_000_000), st.decimals(0, "99.99", places=2))
def test_a_house_rake_never_loses_or_makes_a_cent(cents: int, rake: Decimal) -> None:
    row = BuyIn.with_rake(Decimal(cents) / 100, rake)
    assert row.cents == cents and row.prize_cents + row.rake_cents == cents
    assert row.rake_percent == rake and abs(row.prize_cents - cents * (100 - rake) / 100) <= Decimal("0.5")
