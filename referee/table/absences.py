"""Stepping away from the table (`italian`): at most 2 absences per match, 3 minutes each.

While a player is away the move clock stops and an away clock runs; its last 30 s are flagged
for display. A third absence, or coming back after the away clock ran out, loses the match. An
absence that runs out with no `back` at all is found by `expired(now)` the next time anything
happens at the table. Times are seconds passed in by the caller.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from referee.errors import DominoError


class AbsenceError(DominoError, ValueError):
    """An away/back event that does not fit the table (back without away, away twice)."""


@dataclass(frozen=True)
class Forfeit:
    """A player lost the match off the board: `reason` is timeout, third-absence, late-return or left."""

    player: str
    reason: str
    t: float
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.player} loses the match ({self.reason}) at {self.t:g} s" + \
            (f": {self.detail}" if self.detail else "")

    def as_dict(self) -> dict[str, Any]:
        return {"player": self.player, "reason": self.reason, "t": self.t, "detail": self.detail}


@dataclass(frozen=True)
class AbsenceRules:
    max_absences: int = 2
    absence_seconds: float = 180.0
    warning_seconds: float = 30.0

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> AbsenceRules:
        """From the `italian` options (`max_absences`, `absence_seconds`, `absence_warning_seconds`)."""
        return cls(
            int(options.get("max_absences", 2)),
            float(options.get("absence_seconds", 180.0)),
            float(options.get("absence_warning_seconds", 30.0)),
        )


@dataclass(frozen=True)
class Absence:
    player: str
    left_at: float
    deadline: float
    number: int


class Absences:
    """Who is away since when, and how many absences each player has used in this match."""

    def __init__(self, rules: AbsenceRules, players: Iterable[str] = ()) -> None:
        self.rules = rules
        self.used: dict[str, int] = {name: 0 for name in players}
        self.away_now: dict[str, Absence] = {}
        self.forfeits: list[Forfeit] = []

    def away(self, player: str, t: float) -> Forfeit | None:
        """`player` steps away at `t`; returns the forfeit when this absence is one too many."""
        if player in self.away_now:
            raise AbsenceError(f"{player} is already away (since {self.away_now[player].left_at:g} s)")
        number = self.used.get(player, 0) + 1
        self.used[player] = number
        if number > self.rules.max_absences:
            return self._forfeit(Forfeit(player, "third-absence" if number == 3 else "too-many-absences",
                                         t, f"absence {number} of at most {self.rules.max_absences}"))
        self.away_now[player] = Absence(player, t, t + self.rules.absence_seconds, number)
        return None

    def back(self, player: str, t: float) -> Forfeit | None:
        """`player` is back at `t`; returns the forfeit when they came back too late."""
        absence = self.away_now.pop(player, None)
        if absence is None:
            raise AbsenceError(f"{player} is back at {t:g} s but was not away")
        if t > absence.deadline:
            return self._forfeit(Forfeit(player, "late-return", t,
                                         f"back {t - absence.deadline:g} s after the "
                                         f"{self.rules.absence_seconds:g} s allowed"))
        return None

    def expired(self, now: float) -> list[Forfeit]:
        """Absences whose away clock ran out by `now` with the player still away."""
        lost = [a for a in self.away_now.values() if now > a.deadline]
        forfeits = []
        for absence in lost:
            del self.away_now[absence.player]
            forfeits.append(self._forfeit(Forfeit(absence.player, "late-return", absence.deadline,
                                                  f"not back within {self.rules.absence_seconds:g} s")))
        return forfeits

    def _forfeit(self, forfeit: Forfeit) -> Forfeit:
        self.forfeits.append(forfeit)
        return forfeit

    @property
    def anyone_away(self) -> bool:
        return bool(self.away_now)

    def is_away(self, player: str) -> bool:
        return player in self.away_now

    def time_left(self, player: str, now: float) -> float | None:
        absence = self.away_now.get(player)
        return None if absence is None else max(0.0, absence.deadline - now)

    def warning_due(self, player: str, now: float) -> bool:
        """True in the last `warning_seconds` of an absence (what the display flags)."""
        left = self.time_left(player, now)
        return left is not None and left <= self.rules.warning_seconds

    def deadline(self, player: str) -> float | None:
        absence = self.away_now.get(player)
        return None if absence is None else absence.deadline

    def snapshot(self, now: float) -> dict[str, Any]:
        return {
            name: {"time_left": self.time_left(name, now), "warning": self.warning_due(name, now),
                   "deadline": absence.deadline, "absence": absence.number}
            for name, absence in self.away_now.items()
        }
