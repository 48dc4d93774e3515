"""Move clocks: one interface, one small policy per kind of clock, time always passed in.

A *policy* (`ItalianClock`, `FischerClock`, …) is an immutable set of parameters that says how
much time a player has for a move and what is left after it; a player's standing is a
`PlayerTime` value. `MoveClock` keeps the match: whose move runs since when, pauses (a player
stepping away stops the clock), and what a display needs at a given `now` — time left, whether
the warning is due, and the deadline so a scoreboard can count down by itself.

A move runs from the turn's start to the tile being laid (draws included) or Pass. A move whose
duration exceeds its allowance is a timeout; a move made with exactly 0 s left is in time.
Nothing here reads the wall clock: every time is a number of seconds passed in by the caller.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from referee.errors import DominoError
from referee.fields import Field, SettingError
from referee.rules import find_rules

CLOCK_MODES: tuple[str, ...] = ("rules", "italian", "fischer", "bronstein", "byoyomi", "per-move", "none")

# The `[clock]` section of a table configuration (and of a record's `clock`), key by key.
CLOCK_FIELDS: tuple[Field, ...] = (
    Field("mode", str, "rules", "move clock: 'rules' uses the rule set's own (italian) or none",
          choices=CLOCK_MODES),
    Field("initial_seconds", float, 20.0, "time for a player's first move, or the main time",
          minimum=0),
    Field("increment_seconds", float, 5.0, "fischer increment per move", minimum=0),
    Field("delay_seconds", float, 5.0, "bronstein delay per move", minimum=0),
    Field("period_seconds", float, 30.0, "byo-yomi period / per-move limit", minimum=0),
    Field("periods", int, 1, "byo-yomi periods", minimum=1, maximum=10),
    Field("warning_seconds", float, 10.0, "beep when this much time is left", minimum=0),
)


class ClockError(DominoError, ValueError):
    """A clock was driven out of order (a move ended with no turn running, time going back)."""


@dataclass(frozen=True)
class PlayerTime:
    """One player's standing on a clock.

    `main` is the allowance for the next move (italian, per-move) or the main time left
    (Fischer, Bronstein, byo-yomi); `periods` the byo-yomi periods left; `moves` the moves made.
    """

    main: float
    periods: int = 0
    moves: int = 0

    def __str__(self) -> str:
        text = f"{self.main:g} s"
        return f"{text} + {self.periods} periods" if self.periods else text


@dataclass(frozen=True)
class MoveTiming:
    """How one move went on the clock: `used` of `allowance` seconds (None: no limit)."""

    player: str
    started: float
    ended: float
    used: float
    allowance: float | None
    timed_out: bool
    after: PlayerTime

    @property
    def overrun(self) -> float:
        """Seconds past the allowance (0 when in time)."""
        if self.allowance is None:
            return 0.0
        return max(0.0, self.used - self.allowance)

    def as_dict(self) -> dict[str, Any]:
        return {
            "player": self.player, "started": self.started, "ended": self.ended,
            "used": round(self.used, 3), "allowance": self.allowance, "timed_out": self.timed_out,
            "next_allowance": self.after.main,
        }


class ClockPolicy(ABC):
    """How much time a move gets. Subclasses are frozen dataclasses of their parameters."""

    name: ClassVar[str]
    warning_seconds: float

    @abstractmethod
    def initial(self) -> PlayerTime:
        """A player's standing before their first move of the match."""

    @abstractmethod
    def allowance(self, time: PlayerTime) -> float | None:
        """Seconds from the turn's start until the flag falls; None for no limit."""

    @abstractmethod
    def after_move(self, time: PlayerTime, used: float) -> PlayerTime:
        """The standing after a move made in time that took `used` seconds."""

    @property
    def ceiling(self) -> float | None:
        """The most time a single move can ever be granted, or None when unbounded."""
        return None

    def time_left(self, time: PlayerTime, elapsed: float) -> float | None:
        allowance = self.allowance(time)
        if allowance is None:
            return None
        return max(0.0, allowance - elapsed)

    def warning_due(self, time: PlayerTime, elapsed: float) -> bool:
        left = self.time_left(time, elapsed)
        return left is not None and left <= self.warning_seconds

    def timed_out(self, time: PlayerTime, used: float) -> bool:
        allowance = self.allowance(time)
        return allowance is not None and used > allowance

    def __str__(self) -> str:
        return self.name


def _check_used(used: float) -> None:
    if not math.isfinite(used) or used < 0:
        raise ClockError(f"a move cannot take {used!r} seconds")


@dataclass(frozen=True)
class ItalianClock(ClockPolicy):
    """The `italian` rule set's clock (RULES.md).

    The first move has 20 s. A move made in under 15 s gives the next move the previous
    allowance + 5 s, at most 30 s; a move of 15 s or more gives what was left + 15 s.
    """

    name: ClassVar[str] = "italian"
    first_seconds: float = 20.0
    cap_seconds: float = 30.0
    fast_under_seconds: float = 15.0
    fast_bonus_seconds: float = 5.0
    slow_bonus_seconds: float = 15.0
    warning_seconds: float = 10.0

    def __post_init__(self) -> None:
        if self.first_seconds > self.cap_seconds:
            raise SettingError("clock.initial_seconds",
                               f"found {self.first_seconds!r}, allowed at most {self.cap_seconds:g} "
                               "for the italian clock (its cap)")

    def initial(self) -> PlayerTime:
        return PlayerTime(self.first_seconds)

    def allowance(self, time: PlayerTime) -> float:
        return time.main

    @property
    def ceiling(self) -> float:
        return self.cap_seconds

    def after_move(self, time: PlayerTime, used: float) -> PlayerTime:
        _check_used(used)
        if used < self.fast_under_seconds:
            nxt = min(time.main + self.fast_bonus_seconds, self.cap_seconds)
        else:
            # What was left + 15 s; the cap holds too (it cannot bind while 15 s + 15 s ≤ 30 s,
            # but a club that changes the parameters keeps its ceiling).
            nxt = min(max(0.0, time.main - used) + self.slow_bonus_seconds, self.cap_seconds)
        return PlayerTime(nxt, moves=time.moves + 1)


@dataclass(frozen=True)
class FischerClock(ClockPolicy):
    """Main time plus a fixed increment added after every move made in time (FIDE art. 6)."""

    name: ClassVar[str] = "fischer"
    initial_seconds: float = 300.0
    increment_seconds: float = 5.0
    warning_seconds: float = 10.0

    def initial(self) -> PlayerTime:
        return PlayerTime(self.initial_seconds)

    def allowance(self, time: PlayerTime) -> float:
        return time.main

    def after_move(self, time: PlayerTime, used: float) -> PlayerTime:
        _check_used(used)
        return PlayerTime(max(0.0, time.main - used) + self.increment_seconds, moves=time.moves + 1)


@dataclass(frozen=True)
class BronsteinClock(ClockPolicy):
    """Main time with a delay per move: the first `delay_seconds` of a move cost nothing and
    unused delay is lost, so the main time never grows (Bronstein and simple delay give the
    same flag times; they differ only in what the display shows during the delay)."""

    name: ClassVar[str] = "bronstein"
    initial_seconds: float = 300.0
    delay_seconds: float = 5.0
    warning_seconds: float = 10.0

    def initial(self) -> PlayerTime:
        return PlayerTime(self.initial_seconds)

    def allowance(self, time: PlayerTime) -> float:
        return time.main + self.delay_seconds

    @property
    def ceiling(self) -> float:
        return self.initial_seconds + self.delay_seconds

    def after_move(self, time: PlayerTime, used: float) -> PlayerTime:
        _check_used(used)
        return PlayerTime(max(0.0, time.main - max(0.0, used - self.delay_seconds)), moves=time.moves + 1)


@dataclass(frozen=True)
class ByoYomiClock(ClockPolicy):
    """Main time, then `periods` periods of `period_seconds` each. Once in byo-yomi a move made
    within the running period keeps that period; overrunning a period uses it up and the next
    one starts; the flag falls when the last period runs out (Japanese byo-yomi)."""

    name: ClassVar[str] = "byoyomi"
    initial_seconds: float = 300.0
    period_seconds: float = 30.0
    periods: int = 1
    warning_seconds: float = 10.0

    def initial(self) -> PlayerTime:
        return PlayerTime(self.initial_seconds, periods=self.periods)

    def allowance(self, time: PlayerTime) -> float:
        return time.main + time.periods * self.period_seconds

    @property
    def ceiling(self) -> float:
        return self.initial_seconds + self.periods * self.period_seconds

    def after_move(self, time: PlayerTime, used: float) -> PlayerTime:
        _check_used(used)
        if used <= time.main:
            return PlayerTime(time.main - used, time.periods, time.moves + 1)
        overflow = used - time.main
        # A move ending exactly as a period runs out was made within it.
        spent = max(0, math.ceil(overflow / self.period_seconds) - 1) if self.period_seconds else 0
        return PlayerTime(0.0, max(0, time.periods - spent), time.moves + 1)

    def period_left(self, time: PlayerTime, elapsed: float) -> float:
        """What a byo-yomi display shows: the main time left, or the running period's rest."""
        if elapsed < time.main:
            return time.main - elapsed
        if not self.period_seconds:
            return 0.0
        overflow = elapsed - time.main
        return max(0.0, self.period_seconds - (overflow % self.period_seconds)) \
            if overflow < time.periods * self.period_seconds else 0.0


@dataclass(frozen=True)
class PerMoveClock(ClockPolicy):
    """A fixed limit for every move; nothing carries over."""

    name: ClassVar[str] = "per-move"
    period_seconds: float = 30.0
    warning_seconds: float = 10.0

    def initial(self) -> PlayerTime:
        return PlayerTime(self.period_seconds)

    def allowance(self, time: PlayerTime) -> float:
        return self.period_seconds

    @property
    def ceiling(self) -> float:
        return self.period_seconds

    def after_move(self, time: PlayerTime, used: float) -> PlayerTime:
        _check_used(used)
        return PlayerTime(self.period_seconds, moves=time.moves + 1)


@dataclass(frozen=True)
class NoClock(ClockPolicy):
    """No move clock: moves are timed for the record but never run out."""

    name: ClassVar[str] = "none"
    warning_seconds: float = 0.0

    def initial(self) -> PlayerTime:
        return PlayerTime(math.inf)

    def allowance(self, time: PlayerTime) -> None:
        return None

    def after_move(self, time: PlayerTime, used: float) -> PlayerTime:
        _check_used(used)
        return replace(time, moves=time.moves + 1)


def clock_from_config(section: Mapping[str, Any], rules: str) -> ClockPolicy:
    """The policy selected by a validated `[clock]` section for a table playing `rules`.

    Mode `rules` means the rule set's own clock (`RuleSet.own_clock`: the italian clock for
    `italian`, none otherwise).
    """
    mode = section.get("mode", "rules")
    warning = float(section.get("warning_seconds", 10.0))
    initial = float(section.get("initial_seconds", 20.0))
    if mode == "rules":
        mode = find_rules(rules).own_clock
    if mode == "italian":
        return ItalianClock(first_seconds=initial, warning_seconds=warning)
    if mode == "fischer":
        return FischerClock(initial, float(section.get("increment_seconds", 5.0)), warning)
    if mode == "bronstein":
        return BronsteinClock(initial, float(section.get("delay_seconds", 5.0)), warning)
    if mode == "byoyomi":
        return ByoYomiClock(initial, float(section.get("period_seconds", 30.0)),
                            int(section.get("periods", 1)), warning)
    if mode == "per-move":
        return PerMoveClock(float(section.get("period_seconds", 30.0)), warning)
    if mode == "none":
        return NoClock()
    raise SettingError("clock.mode", f"found {mode!r}, allowed one of rules, italian, fischer, bronstein, "
                                     "byoyomi, per-move, none")


class MoveClock:
    """The move clock of one match: every player's standing, the running turn and pauses.

    Drive it with `start_turn(player, t)`, `end_move(t)` (a tile laid or Pass), and
    `pause(t)`/`resume(t)` while a player is away; read it with `time_left(now)`,
    `warning_due(now)` and `deadline`.
    """

    def __init__(self, policy: ClockPolicy, players: Iterable[str]) -> None:
        self.policy = policy
        self.standing: dict[str, PlayerTime] = {name: policy.initial() for name in players}
        self.on_move: str | None = None
        self.turn_started: float | None = None
        self.paused_at: float | None = None
        self.paused_total = 0.0
        self.last_t = -math.inf

    def _advance(self, t: float) -> None:
        if not math.isfinite(t):
            raise ClockError(f"time {t!r} is not a number of seconds")
        if t < self.last_t:
            raise ClockError(f"time goes back: {t:g} s after {self.last_t:g} s")
        self.last_t = t

    def add_player(self, name: str) -> None:
        """A new name at the table (a substitute) starts with a fresh standing."""
        self.standing.setdefault(name, self.policy.initial())

    def transfer(self, seat: str, occupant: str) -> None:
        """A substitute takes over the seat's standing, as on a chess clock."""
        self.standing[occupant] = self.standing.get(seat, self.policy.initial())
        if self.on_move == seat:
            self.on_move = occupant

    def start_turn(self, player: str | None, t: float) -> None:
        """A turn starts at `t`; its player may be named later with `claim` (replay learns who
        was on move from the first event of the move)."""
        self._advance(t)
        if player is not None:
            self.add_player(player)
        self.on_move = player
        self.turn_started = t
        self.paused_total = 0.0
        self.paused_at = t if self.paused_at is not None else None

    def claim(self, player: str) -> None:
        """Name the player of a running turn started with no player."""
        if self.turn_started is None:
            raise ClockError(f"{player} cannot claim a turn: no turn is running")
        self.add_player(player)
        self.on_move = player

    def restart_turn(self, t: float) -> None:
        """Run the current turn again from `t`, its player's standing as it is (a move the table
        manager undid: the mover lays the tile again from the undo on). Nothing runs: no change."""
        self._advance(t)
        if self.turn_started is not None:
            self.turn_started = t
            self.paused_total = 0.0
            if self.paused_at is not None:
                self.paused_at = t

    def stop_turn(self) -> None:
        """Forget the running turn without charging it (an untimed move, a hand's end)."""
        self.on_move = None
        self.turn_started = None
        self.paused_total = 0.0

    @property
    def turn_running(self) -> bool:
        return self.turn_started is not None

    def would_time_out(self, player: str, now: float) -> bool:
        """Whether the running move, if it is `player`'s, overran its allowance by `now`."""
        time = self.standing.get(player, self.policy.initial())
        return self.turn_started is not None and self.policy.timed_out(time, self.elapsed(now))

    @property
    def paused(self) -> bool:
        return self.paused_at is not None

    def pause(self, t: float) -> None:
        self._advance(t)
        if self.paused_at is None:
            self.paused_at = t

    def resume(self, t: float) -> None:
        self._advance(t)
        if self.paused_at is not None:
            if self.turn_started is not None:
                self.paused_total += t - max(self.paused_at, self.turn_started)
            self.paused_at = None

    def elapsed(self, now: float) -> float:
        """Seconds the running move has used at `now`, pauses left out."""
        if self.turn_started is None:
            return 0.0
        running_pause = now - max(self.paused_at, self.turn_started) if self.paused_at is not None else 0.0
        return max(0.0, now - self.turn_started - self.paused_total - running_pause)

    def allowance(self) -> float | None:
        if self.on_move is None:
            return None
        return self.policy.allowance(self.standing[self.on_move])

    def time_left(self, now: float) -> float | None:
        """Time left for the player on move at `now` (None: no turn running, or no limit)."""
        if self.on_move is None:
            return None
        return self.policy.time_left(self.standing[self.on_move], self.elapsed(now))

    def warning_due(self, now: float) -> bool:
        if self.on_move is None:
            return False
        return self.policy.warning_due(self.standing[self.on_move], self.elapsed(now))

    def flag_fallen(self, now: float) -> bool:
        """True once the running move has overrun its allowance."""
        if self.on_move is None:
            return False
        return self.policy.timed_out(self.standing[self.on_move], self.elapsed(now))

    @property
    def deadline(self) -> float | None:
        """When the flag falls for the player on move (None while paused, idle or unlimited)."""
        allowance = self.allowance()
        if allowance is None or self.turn_started is None or self.paused:
            return None
        return self.turn_started + self.paused_total + allowance

    @property
    def warning_at(self) -> float | None:
        """When the warning becomes due for the player on move (same conditions as `deadline`)."""
        deadline = self.deadline
        if deadline is None:
            return None
        return max(self.turn_started or 0.0, deadline - self.policy.warning_seconds)

    def end_move(self, t: float) -> MoveTiming:
        """The player on move laid a tile or passed at `t`: charge the move and stop the turn."""
        if self.on_move is None or self.turn_started is None:
            raise ClockError(f"a move ended at {t:g} s but no turn was running")
        self._advance(t)
        player, before = self.on_move, self.standing[self.on_move]
        used = self.elapsed(t)
        timed_out = self.policy.timed_out(before, used)
        after = before if timed_out else self.policy.after_move(before, used)
        self.standing[player] = after
        timing = MoveTiming(player, self.turn_started, t, used, self.policy.allowance(before),
                            timed_out, after)
        self.stop_turn()
        return timing

    def snapshot(self, now: float) -> dict[str, Any]:
        """What a scoreboard or overlay shows at `now`."""
        return {
            "mode": self.policy.name,
            "on_move": self.on_move,
            "time_left": self.time_left(now),
            "warning": self.warning_due(now),
            "deadline": self.deadline,
            "paused": self.paused,
            "allowances": {name: self.policy.allowance(time) for name, time in self.standing.items()},
        }
