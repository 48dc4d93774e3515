"""Tournament prize pools (`italian`, RULES.md "Tournaments"), in exact integer cents.

A buy-in splits into the prize pool and the house's rake by the table of RULES.md. The table's
percentages are rounded (a €7 buy-in is €6.00 + €1.00 = 85.71 % / 14.29 %), so each player's
share of the pool is the buy-in times the prize percentage rounded to the cent (half to even)
and the rake is the rest: the two always add up to the buy-in exactly. Head-to-head and small
tournaments (under 8 players) pay the whole pool to the winner; from 8 players the split is
configured per tournament and must add up to 100 %. A head-to-head tournament where a player has
not pressed Start within 2 minutes of its opening refunds both buy-ins in full.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any

from referee.errors import DominoError


class TournamentError(DominoError, ValueError):
    """A buy-in not in the table, a payout split that is not valid, an unknown player."""


# Buy-in in euros → the prize pool's percentage (the rake is the rest), as RULES.md states it.
PRIZE_PERCENT: dict[int, Decimal] = {
    1: Decimal("85"), 2: Decimal("85"), 3: Decimal("85"), 5: Decimal("86"), 7: Decimal("85.71"),
    10: Decimal("87.5"), 20: Decimal("88"), 30: Decimal("88.67"), 50: Decimal("89"),
    100: Decimal("89.5"),
}
SPLIT_FROM_PLAYERS = 8
START_WINDOW_SECONDS = 120.0


def format_cents(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}€{abs(cents) // 100}.{abs(cents) % 100:02d}"


def _decimal(value: object, what: str) -> Decimal:
    try:
        number = Decimal(str(value).strip().rstrip("%").replace("€", ""))
    except InvalidOperation:
        raise TournamentError(f"{what}: found {value!r}, allowed a number") from None
    if not number.is_finite():
        raise TournamentError(f"{what}: found {value!r}, allowed a finite number")
    return number


@dataclass(frozen=True)
class BuyIn:
    """One row of the buy-in table, in cents."""

    cents: int
    prize_cents: int
    rake_cents: int
    prize_percent: Decimal

    @property
    def rake_percent(self) -> Decimal:
        return Decimal(100) - self.prize_percent

    @classmethod
    def lookup(cls, euros: object) -> BuyIn:
        """The table's row for a buy-in in euros (`7`, `"7"`, `"€7"`, `Decimal("7.00")`)."""
        amount = _decimal(euros, "buy-in")
        if amount != amount.to_integral_value() or int(amount) not in PRIZE_PERCENT:
            allowed = ", ".join(f"€{e}" for e in PRIZE_PERCENT)
            raise TournamentError(f"buy-in: found {euros!r}, allowed one of {allowed}")
        whole = int(amount)
        percent = PRIZE_PERCENT[whole]
        cents = whole * 100
        prize = int((Decimal(cents) * percent / 100).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))
        return cls(cents, prize, cents - prize, percent)

    @classmethod
    def with_rake(cls, euros: object, rake_percent: object) -> BuyIn:
        """A club's house rule instead of the table: any buy-in in whole cents, with its own rake
        percentage (at least 0, under 100); the prize share is rounded to the cent as above."""
        amount = _decimal(euros, "buy-in")
        cents = amount * 100
        if amount <= 0 or cents != cents.to_integral_value():
            raise TournamentError(f"buy-in: found {euros!r}, allowed a positive amount in whole cents")
        rake = _decimal(rake_percent, "rake")
        if not Decimal(0) <= rake < Decimal(100):
            raise TournamentError(f"rake: found {rake_percent!r}, allowed a percentage from 0 to under 100")
        percent = Decimal(100) - rake
        prize = int((cents * percent / 100).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))
        return cls(int(cents), prize, int(cents) - prize, percent)

    def __str__(self) -> str:
        return (f"{format_cents(self.cents)} = {format_cents(self.prize_cents)} prize pool "
                f"({self.prize_percent}%) + {format_cents(self.rake_cents)} rake ({self.rake_percent}%)")


@dataclass(frozen=True)
class PayoutSplit:
    """Percentages of the pool for 1st, 2nd, … place; they add up to exactly 100."""

    percents: tuple[Decimal, ...]

    def __post_init__(self) -> None:
        text = "/".join(str(p) for p in self.percents)
        if not self.percents:
            raise TournamentError("payout split: empty, allowed one or more percentages adding up to 100")
        if any(p <= 0 for p in self.percents):
            raise TournamentError(f"payout split {text}: every place's share must be above 0%")
        if any(later > earlier for earlier, later in zip(self.percents, self.percents[1:], strict=False)):
            raise TournamentError(f"payout split {text}: a lower place may not get more than a higher one")
        total = sum(self.percents, Decimal(0))
        if total != 100:
            raise TournamentError(f"payout split {text}: adds up to {total}%, allowed exactly 100%")

    @classmethod
    def parse(cls, text: str | Sequence[object]) -> PayoutSplit:
        """`"50/30/20"`, `"50, 30, 20"`, `"50%/30%/20%"` or a list of numbers."""
        parts: Sequence[object]
        if isinstance(text, str):
            parts = [p for p in text.replace(",", "/").replace(" ", "/").split("/") if p]
        else:
            parts = text
        return cls(tuple(_decimal(p, f"payout split {text!r}") for p in parts))

    def __str__(self) -> str:
        return "/".join(f"{p}%" for p in self.percents)

    def shares(self, pool_cents: int) -> list[int]:
        """The pool in cents per place: rounded down, leftover cents one each to the places with
        the largest remainders (higher places first on equal remainders). Sums to the pool."""
        exact = [Decimal(pool_cents) * p / 100 for p in self.percents]
        shares = [int(e) for e in exact]
        leftover = pool_cents - sum(shares)
        order = sorted(range(len(exact)), key=lambda i: (-(exact[i] - shares[i]), i))
        for index in order[:leftover]:
            shares[index] += 1
        return shares


@dataclass(frozen=True)
class Tournament:
    buy_in: BuyIn
    players: tuple[str, ...]
    split: PayoutSplit | None = None

    def __post_init__(self) -> None:
        if len(self.players) < 2:
            raise TournamentError(f"a tournament needs at least 2 players, found {len(self.players)}")
        if len(set(self.players)) != len(self.players):
            raise TournamentError(f"player names must be distinct: {list(self.players)}")
        count = len(self.players)
        if count >= SPLIT_FROM_PLAYERS and self.split is None:
            raise TournamentError(f"{count} players: a payout split must be configured "
                                  f"(from {SPLIT_FROM_PLAYERS} players)")
        if count < SPLIT_FROM_PLAYERS and self.split is not None:
            raise TournamentError(f"{count} players: the winner takes the pool; a payout split "
                                  f"({self.split}) applies from {SPLIT_FROM_PLAYERS} players")
        if self.split is not None and len(self.split.percents) > count:
            raise TournamentError(f"payout split {self.split} pays {len(self.split.percents)} places "
                                  f"but only {count} players take part")

    @property
    def prize_pool_cents(self) -> int:
        return self.buy_in.prize_cents * len(self.players)

    @property
    def rake_cents(self) -> int:
        return self.buy_in.rake_cents * len(self.players)

    def payouts(self, ranking: Sequence[str]) -> dict[str, int]:
        """Cents won by each player, given the final ranking (winner first)."""
        unknown = [name for name in ranking if name not in self.players]
        if unknown:
            raise TournamentError(f"ranking names {unknown} who did not play ({list(self.players)})")
        if len(set(ranking)) != len(ranking):
            raise TournamentError(f"ranking names a player twice: {list(ranking)}")
        shares = self.split.shares(self.prize_pool_cents) if self.split else [self.prize_pool_cents]
        if len(ranking) < len(shares):
            raise TournamentError(f"ranking has {len(ranking)} places, the split pays {len(shares)}")
        result = dict.fromkeys(self.players, 0)
        for name, cents in zip(ranking, shares, strict=False):
            result[name] = cents
        return result

    def refunds(self) -> dict[str, int]:
        """Every player's buy-in back, in full."""
        return dict.fromkeys(self.players, self.buy_in.cents)

    def as_dict(self) -> dict[str, Any]:
        return {"buy_in": self.buy_in.cents, "prize_pool": self.prize_pool_cents, "rake": self.rake_cents,
                "players": list(self.players), "split": [str(p) for p in self.split.percents]
                if self.split else None}


@dataclass(frozen=True)
class HeadToHeadOpening:
    """A head-to-head tournament opened at `opened_at`; each player must press Start within
    `window_seconds` (pressing at exactly 2:00 is in time)."""

    tournament: Tournament
    opened_at: float
    window_seconds: float = START_WINDOW_SECONDS

    def __post_init__(self) -> None:
        if len(self.tournament.players) != 2:
            raise TournamentError(f"head-to-head needs 2 players, found {len(self.tournament.players)}")

    @property
    def deadline(self) -> float:
        return self.opened_at + self.window_seconds

    def status(self, starts: Mapping[str, float], now: float) -> str:
        """`started`, `waiting` or `refunded`, given when each player pressed Start (if they did)."""
        for name in starts:
            if name not in self.tournament.players:
                raise TournamentError(f"{name!r} pressed Start but plays no part in "
                                      f"{self.tournament.players}")
        in_time = [name for name in self.tournament.players
                   if name in starts and self.opened_at <= starts[name] <= self.deadline]
        if len(in_time) == len(self.tournament.players):
            return "started"
        return "refunded" if now > self.deadline else "waiting"

    def settle(self, starts: Mapping[str, float], now: float) -> dict[str, int]:
        """Refunds in cents (empty unless the opening lapsed)."""
        return self.tournament.refunds() if self.status(starts, now) == "refunded" else {}
