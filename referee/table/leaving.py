"""Leaving a running match and substitutes (`turkish`, RULES.md "Leaving and substitutes").

A seat is named by the player dealt into it (the record's `players`); whoever sits there now is
its *occupant*. A player who leaves by choice (`leave`) loses `leave_penalty_hands` × N points
whatever the standing, and the abandonment goes on their record. A player who drops out
involuntarily (`away`) loses nothing while away. A substitute may take an empty seat and the
table manager's Continue resumes play. When the match ends the seat's points go to its final
occupant, except that a substitute only gains (and gains nothing when above
`substitute_gain_limit` ledger points — checked by the ledger, which knows the points), and a
loss of a seat whose substitute replaced a player who dropped involuntarily and never came back
is charged to that player.

**Decisions** (documented in the README): a dropped player who comes back retakes the seat and
the substitute goes (with nothing either way); play waits for Continue after every leave, drop,
substitution or return; a substitute who leaves by choice is a leaver like anyone else.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from referee.errors import DominoError


class SeatError(DominoError, ValueError):
    """A leave/away/back/substitute/continue event that does not fit who sits where."""


@dataclass(frozen=True)
class LeavingRules:
    hands: int = 11
    leave_penalty_hands: int = 2
    substitute_gain_limit: int = 3000
    bar_abandonments: int = 3
    bar_window_days: float = 7.0
    bar_hours: float = 2.0

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> LeavingRules:
        """From the `turkish` options of a table config or a record."""
        defaults = cls()
        return cls(
            int(options.get("hands", defaults.hands)),
            int(options.get("leave_penalty_hands", defaults.leave_penalty_hands)),
            int(options.get("substitute_gain_limit", defaults.substitute_gain_limit)),
            int(options.get("bar_abandonments", defaults.bar_abandonments)),
            float(options.get("bar_window_days", defaults.bar_window_days)),
            float(options.get("bar_hours", defaults.bar_hours)),
        )

    @property
    def leave_penalty(self) -> int:
        return self.leave_penalty_hands * self.hands


@dataclass(frozen=True)
class Departure:
    player: str
    seat: str
    t: float
    voluntary: bool


@dataclass(frozen=True)
class LedgerEntry:
    """One person's part in a match, as the club ledger books it.

    `role` is player, substitute, leaver or dropped. A substitute's positive `delta` is booked only
    while their ledger points are at most `gain_limit`. `abandoned_at` is the `t` of a leave.
    """

    player: str
    seat: str
    role: str
    delta: Fraction
    gain_limit: int | None = None
    abandoned_at: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"player": self.player, "seat": self.seat, "role": self.role,
                "points": _number(self.delta), "gain_limit": self.gain_limit,
                "abandoned_at": self.abandoned_at}


def _number(value: Fraction) -> int | float | str:
    if value.denominator == 1:
        return int(value)
    return str(value)


@dataclass
class _Seat:
    name: str
    occupant: str | None
    departures: list[Departure] = field(default_factory=list)
    # who stood up since the seat's last occupant sat down (the replaced player, for charging)
    replaced: Departure | None = None


class Seating:
    """Who sits where during one match, driven by the record's table-side events."""

    def __init__(self, players: Iterable[str], rules: LeavingRules | None = None) -> None:
        self.rules = rules or LeavingRules()
        self.seats: dict[str, _Seat] = {name: _Seat(name, name) for name in players}
        self.suspended = False
        self.departures: list[Departure] = []
        self.participants: dict[str, str] = {name: name for name in self.seats}  # person → seat

    def seat_of(self, name: str) -> str:
        """The seat `name` occupies now; a seat's own name works for an empty seat too."""
        for seat in self.seats.values():
            if seat.occupant == name:
                return seat.name
        if name in self.seats:
            return name
        raise SeatError(f"{name!r} sits at no seat of this table ({', '.join(self.occupants())})")

    def occupant(self, seat: str) -> str | None:
        return self.seats[seat].occupant

    def occupants(self) -> list[str]:
        return [seat.occupant or f"<empty seat of {seat.name}>" for seat in self.seats.values()]

    def empty_seats(self) -> list[str]:
        return [seat.name for seat in self.seats.values() if seat.occupant is None]

    def _occupied_by(self, player: str) -> _Seat:
        for seat in self.seats.values():
            if seat.occupant == player:
                return seat
        raise SeatError(f"{player!r} is not seated at this table (seated: {', '.join(self.occupants())})")

    def _stand_up(self, player: str, t: float, voluntary: bool) -> Departure:
        seat = self._occupied_by(player)
        departure = Departure(player, seat.name, t, voluntary)
        seat.occupant = None
        seat.departures.append(departure)
        seat.replaced = departure
        self.departures.append(departure)
        self.suspended = True
        return departure

    def leave(self, player: str, t: float) -> Departure:
        """`player` leaves the running match by choice at `t`."""
        return self._stand_up(player, t, voluntary=True)

    def drop(self, player: str, t: float) -> Departure:
        """`player` dropped out involuntarily (stepped away, connection lost) at `t`."""
        return self._stand_up(player, t, voluntary=False)

    def back(self, player: str, t: float) -> str | None:
        """A dropped player returns and retakes their seat; returns the substitute who goes."""
        for seat in self.seats.values():
            replaced = seat.replaced
            if replaced is None or replaced.player != player or replaced.voluntary:
                continue
            displaced = seat.occupant
            if displaced is not None:
                seat.departures.append(Departure(displaced, seat.name, t, voluntary=False))
            seat.occupant = player
            seat.replaced = None
            self.suspended = True
            return displaced
        raise SeatError(f"{player!r} is back at {t:g} s but had not dropped out of a seat")

    def substitute(self, seat_or_player: str, newcomer: str, t: float) -> str:
        """`newcomer` takes the empty seat named by its seat name or the player who left it."""
        seat = self.seats.get(seat_or_player)
        if seat is None or (seat.occupant is not None and seat.occupant != seat_or_player):
            candidates = [s for s in self.seats.values()
                          if s.occupant is None and any(d.player == seat_or_player for d in s.departures)]
            seat = candidates[-1] if candidates else seat
        if seat is None:
            raise SeatError(f"no seat for {seat_or_player!r} (seats: {', '.join(self.seats)})")
        if seat.occupant is not None:
            raise SeatError(f"the seat of {seat.name} is not empty ({seat.occupant} sits there)")
        if any(s.occupant == newcomer for s in self.seats.values()):
            raise SeatError(f"substitute {newcomer!r} already sits at this table")
        if any(d.player == newcomer and d.voluntary for d in self.departures):
            raise SeatError(f"{newcomer!r} left this match by choice and cannot come back as a substitute")
        seat.occupant = newcomer
        self.participants.setdefault(newcomer, seat.name)
        self.suspended = True
        return seat.name

    def resume(self, t: float) -> None:
        """The table manager presses Continue."""
        empty = self.empty_seats()
        if empty:
            raise SeatError(f"Continue at {t:g} s with an empty seat ({', '.join(empty)}): "
                            "a substitute or the player must take it first")
        self.suspended = False

    def settle(self, seat_points: Mapping[str, Fraction | int] | None) -> list[LedgerEntry]:
        """Ledger entries for this match; `seat_points` is None when the match did not finish."""
        entries = [LedgerEntry(d.player, d.seat, "leaver", Fraction(-self.rules.leave_penalty),
                               abandoned_at=d.t)
                   for d in self.departures if d.voluntary]
        if seat_points is None:
            return entries
        booked = {e.player for e in entries}
        for seat in self.seats.values():
            points = Fraction(seat_points.get(seat.name, 0))
            occupant = seat.occupant
            if occupant is None:
                continue
            if occupant == seat.name:
                entries.append(LedgerEntry(occupant, seat.name, "player", points))
            else:
                entries.append(LedgerEntry(occupant, seat.name, "substitute", max(points, Fraction(0)),
                                           gain_limit=self.rules.substitute_gain_limit))
                replaced = seat.replaced
                if points < 0 and replaced is not None and not replaced.voluntary:
                    entries.append(LedgerEntry(replaced.player, seat.name, "dropped", points))
                    booked.add(replaced.player)
            booked.add(occupant)
        for person, seat_name in self.participants.items():
            if person not in booked:
                entries.append(LedgerEntry(person, seat_name, "dropped" if person == seat_name
                                           else "substitute", Fraction(0)))
        return entries


def bar_periods(abandonments: Iterable[float], rules: LeavingRules) -> list[tuple[float, float]]:
    """Every bar a player's abandonments make, as `(since, until)` in seconds, earliest first.

    A bar runs `bar_hours` from each abandonment that completes `bar_abandonments` within
    `bar_window_days` (strictly less than the window between the first and the last counted).
    It depends on the set of times alone, never on the order they were booked in: a match
    booked late can complete a window that an earlier-booked abandonment closes.
    """
    times = sorted(abandonments)
    window = rules.bar_window_days * 86400.0
    needed = rules.bar_abandonments
    bars: list[tuple[float, float]] = []
    for index, t in enumerate(times):
        # times[: index + 1] holds every abandonment up to t (equal times included by the last of them)
        recent = sum(1 for u in times[: index + 1] if t - u < window)
        bar = (t, t + rules.bar_hours * 3600.0)
        if recent >= needed and bar not in bars:
            bars.append(bar)
    return bars


def bar_until(abandonments: Sequence[float], rules: LeavingRules) -> float | None:
    """When a player's last bar ends, given the times (seconds) of all their abandonments."""
    bars = bar_periods(abandonments, rules)
    return max(until for _, until in bars) if bars else None
