"""The table-side rules of one match, driven by a record's events and their times `t`.

`TableSide` watches every event of a match: it judges the table-side events itself (`start`,
`clock`, `away`, `back`, `timeout`, `leave`, `substitute`, `continue`) and screens the game
events (`play`, `draw`, `pass`, `reveal`) before the rules engine sees them — a move made after
the flag fell, by a player who is away, or while play waits for Continue is refused, and a move
whose derived duration overran its allowance is a timeout even when the record has no `timeout`
event. After the engine accepts a game event, `accepted` charges the move to the clock.

Timing: a move runs from its turn's start — the previous play or pass, or the hand's `start`
event — to the play or pass that ends it (draws included), absences and suspensions left out.
A hand's first move is timed only when the hand has a `start` event (otherwise nobody knows when
the tiles were dealt). `italian` and the other two-player sets use stepping away (`away`/`back`
with at most `max_absences` absences); `turkish` uses leaving and substitutes, where `away` is an
involuntary drop. A forfeit (timeout, third absence, late return, leaving outside `turkish`)
ends the match: later events are refused.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from referee.errors import DominoError
from referee.events import is_table_event
from referee.fields import validate_section
from referee.rules import find_rules
from referee.table.absences import AbsenceRules, Absences, Forfeit
from referee.table.clocks import CLOCK_FIELDS, ClockPolicy, MoveClock, MoveTiming, clock_from_config
from referee.table.leaving import Departure, LeavingRules, SeatError, Seating


class TableEventError(DominoError, ValueError):
    """A table-side event that is malformed or does not fit the table."""


@dataclass(frozen=True)
class TableVerdict:
    """The table side's judgement of one event; `forfeit` when it ended the match."""

    ok: bool
    error: str = ""
    forfeit: Forfeit | None = None
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {"ok": self.ok}
        if self.error:
            result["error"] = self.error
        if self.forfeit is not None:
            result["forfeit"] = self.forfeit.as_dict()
        if self.note:
            result["note"] = self.note
        return result


@dataclass(frozen=True)
class SavedSide:
    """A `TableSide`'s state before one event (see `TableSide.saved`)."""

    policy: ClockPolicy | None
    clock: MoveClock
    absences: Absences
    seating: Seating
    forfeit: Forfeit | None
    timings: int          # how many moves were timed
    moves_made: int


def _copy_clock(clock: MoveClock) -> MoveClock:
    copied = MoveClock.__new__(MoveClock)
    copied.__dict__.update(clock.__dict__)   # its other fields are immutable values
    copied.standing = dict(clock.standing)
    return copied


@dataclass
class TableSide:
    """Clocks, absences and seats of one match (see the module's docstring)."""

    rules: str
    players: Sequence[str]
    options: Mapping[str, Any] = field(default_factory=dict)
    policy: ClockPolicy | None = None

    def __post_init__(self) -> None:
        self.policy = self.policy or clock_from_config({}, self.rules)
        self.clock = MoveClock(self.policy, self.players)
        self.absences = Absences(AbsenceRules.from_options(self.options), self.players)
        self.seating = Seating(self.players, LeavingRules.from_options(self.options))
        # Substitutes and Continue (turkish) or timed absences and leaving loses (the others).
        self.substitutes = find_rules(self.rules).substitutes
        self.last_t: float | None = None
        self.forfeit: Forfeit | None = None
        self.timings: list[MoveTiming] = []
        self.moves_made = 0

    @classmethod
    def for_record(cls, record: Mapping[str, Any], options: Mapping[str, Any]) -> TableSide:
        """From a record: its `rules`, `players`, full `options`, and optional `clock` section."""
        rules = str(record.get("rules", ""))
        players = [str(p) for p in record.get("players", [])]
        section = record.get("clock")
        policy = None
        if section is not None:
            if not isinstance(section, Mapping):
                raise TableEventError(f"clock: found {section!r}, allowed a [clock] table")
            policy = clock_from_config(validate_section(CLOCK_FIELDS, section, "clock."), rules)
        return cls(rules, players, options, policy)

    # -- undo ------------------------------------------------------------------------------

    def saved(self, event: Mapping[str, Any] | None = None) -> SavedSide:
        """Everything `event` can change here, to put back when it is undone. Only table-side
        events change absences and seats, so a game event's snapshot shares them (cheap enough to
        take before every event)."""
        shared = event is not None and not is_table_event(event)
        return SavedSide(self.policy, _copy_clock(self.clock),
                         self.absences if shared else copy.deepcopy(self.absences),
                         self.seating if shared else copy.deepcopy(self.seating),
                         self.forfeit, len(self.timings), self.moves_made)

    def restore(self, saved: SavedSide) -> None:
        """Back to `saved` (taken before an event that was undone). Time does not go back: events
        after the undo are still checked against the latest time seen."""
        last_clock_t = self.clock.last_t
        self.policy, self.clock = saved.policy, _copy_clock(saved.clock)
        self.clock.last_t = max(self.clock.last_t, last_clock_t)
        if saved.absences is not self.absences:
            self.absences = copy.deepcopy(saved.absences)
        if saved.seating is not self.seating:
            self.seating = copy.deepcopy(saved.seating)
        # Timings are only ever appended, and undo takes back the latest event first.
        del self.timings[saved.timings:]
        self.forfeit, self.moves_made = saved.forfeit, saved.moves_made

    def restart_turn(self, t: float) -> None:
        """The running turn starts again at `t` (after an undone play or pass)."""
        if self.last_t is not None and t < self.last_t:
            raise TableEventError(f"t: found {t!r}, earlier than the previous event's {self.last_t:g}")
        self.last_t = t
        self.clock.restart_turn(t)

    # -- the match's course -------------------------------------------------------------

    def new_hand(self) -> None:
        """A hand begins: no turn runs until its `start` event (or its first timed move)."""
        self.clock.stop_turn()

    @property
    def over(self) -> bool:
        return self.forfeit is not None

    def winner_by_forfeit(self) -> str | None:
        if self.forfeit is None:
            return None
        others = [p for p in self.players if p != self.seat_of(self.forfeit.player)]
        return others[0] if len(others) == 1 else None

    def seat_of(self, name: str) -> str:
        try:
            return self.seating.seat_of(name)
        except SeatError:
            return name

    def engine_event(self, event: Mapping[str, Any]) -> dict[str, Any]:
        """The event as the engine knows the table: a substitute's name becomes the seat's."""
        result = dict(event)
        if isinstance(result.get("player"), str):
            result["player"] = self.seat_of(result["player"])
        if isinstance(result.get("reveal"), Mapping):
            result["reveal"] = {self.seat_of(str(k)): v for k, v in result["reveal"].items()}
        return result

    # -- times ----------------------------------------------------------------------------

    def _time_of(self, event: Mapping[str, Any]) -> float | None:
        if "t" not in event:
            return None
        t = event["t"]
        if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t) or t < 0:
            raise TableEventError(f"t: found {t!r}, allowed seconds since the match started (a number ≥ 0)")
        if self.last_t is not None and t < self.last_t:
            raise TableEventError(f"t: found {t!r}, earlier than the previous event's {self.last_t:g}")
        return float(t)

    def _lose(self, forfeit: Forfeit) -> TableVerdict:
        self.forfeit = forfeit
        self.clock.stop_turn()
        return TableVerdict(False, str(forfeit), forfeit)

    def _timeout_of(self, player: str) -> Forfeit:
        allowance = self.clock.policy.allowance(self.clock.standing.get(player, self.clock.policy.initial()))
        deadline = (self.clock.turn_started or 0.0) + self.clock.paused_total + (allowance or 0.0)
        return Forfeit(player, "timeout", deadline,
                       f"the {allowance:g} s for the move ran out at {deadline:g} s")

    def _flag_check(self, t: float, player: str | None, on_move: str | None) -> TableVerdict | None:
        """Forfeits that time alone proves by `t`: an absence that ran out, a fallen flag (of the
        player on move, or of the player whose event is the first of a running turn)."""
        for forfeit in self.absences.expired(t):
            return self._lose(forfeit)
        who = self.clock.on_move or on_move or player
        if who is not None and self.clock.turn_running and self.clock.would_time_out(who, t):
            return self._lose(self._timeout_of(who))
        return None

    # -- game events ---------------------------------------------------------------------

    def _seat_player(self, event: Mapping[str, Any]) -> str | None:
        """The event's player as the clock knows them: by seat, so a substitute takes over the
        seat's standing as on a chess clock."""
        player = event.get("player")
        return self.seat_of(player) if isinstance(player, str) else None

    def screen(self, event: Mapping[str, Any], on_move: str | None = None) -> TableVerdict | None:
        """Judge a game event before the engine: None lets it through, a verdict refuses it.

        `on_move` is the player the engine expects; without it, the first event of a turn names
        its player."""
        try:
            t = self._time_of(event)
        except TableEventError as error:
            return TableVerdict(False, str(error))
        if self.forfeit is not None:
            return TableVerdict(False, f"the match is over: {self.forfeit}")
        player = self._seat_player(event)
        if t is not None:
            self.last_t = t
            verdict = self._flag_check(t, player, on_move)
            if verdict is not None:
                return verdict
        if self.substitutes and self.seating.suspended:
            return TableVerdict(False, "play is suspended until the table manager presses Continue "
                                       f"(seats: {', '.join(self.seating.occupants())})")
        name = event.get("player")
        if isinstance(name, str) and self.absences.is_away(name):
            return TableVerdict(False, f"{name} is away (since "
                                       f"{self.absences.away_now[name].left_at:g} s); a `back` comes first")
        return None

    def accepted(self, event: Mapping[str, Any], on_move: str | None = None) -> MoveTiming | None:
        """The engine accepted `event`: name the turn's player, or end the move on the clock."""
        t = self._time_of(event)
        player = self._seat_player(event)
        if "reveal" in event:
            self.new_hand()
            return None
        ends_move = "play" in event or "pass" in event
        if t is None:
            # An untimed event: the clock cannot follow this move, nor start the next one.
            if ends_move:
                self.clock.stop_turn()
                self.moves_made += 1
            return None
        self.last_t = t
        if self.clock.turn_running and self.clock.on_move is None and (on_move or player):
            self.clock.claim(on_move or player or "")
        if not ends_move:
            return None
        self.moves_made += 1
        timing = None
        if self.clock.turn_running and self.clock.on_move is not None:
            timing = self.clock.end_move(t)
            self.timings.append(timing)
        self.clock.start_turn(None, t)
        return timing

    # -- table-side events ---------------------------------------------------------------

    def handle(self, event: Mapping[str, Any]) -> TableVerdict:
        """Judge a table-side event; a refused one changes nothing."""
        try:
            t = self._time_of(event)
            if self.forfeit is not None:
                return TableVerdict(False, f"the match is over: {self.forfeit}")
            if t is not None:
                self.last_t = t
                verdict = self._flag_check(t, None, None)
                if verdict is not None and "timeout" not in event:
                    return verdict
                if verdict is not None:
                    return TableVerdict(True, forfeit=verdict.forfeit, note=str(verdict.forfeit))
            return self._handle(event, t)
        except DominoError as error:
            return TableVerdict(False, str(error))

    def _player(self, event: Mapping[str, Any], key: str) -> str:
        player = event.get("player")
        if not isinstance(player, str) or not player:
            raise TableEventError(f"{key}: the event names no player: {dict(event)!r}")
        return self._at_table(player, key)

    def _at_table(self, player: str, key: str) -> str:
        """`player` as named by an event: someone playing in this match (or, in turkish, a seat)."""
        known = self.seating.participants if self.substitutes else self.players
        if player not in known:
            raise TableEventError(f"{key}: {player!r} does not play in this match "
                                  f"(players: {', '.join(known)})")
        return player

    def _need_t(self, t: float | None, key: str) -> float:
        if t is None:
            raise TableEventError(f"{key}: the event has no time `t`")
        return t

    def _handle(self, event: Mapping[str, Any], t: float | None) -> TableVerdict:
        if "start" in event:
            if t is not None and not self.clock.turn_running:
                self.clock.start_turn(None, t)
            return TableVerdict(True)
        if "clock" in event:
            if self.moves_made:
                raise TableEventError("clock: the clock is set before the first move, not during the match")
            section = event["clock"]
            if not isinstance(section, Mapping):
                raise TableEventError(f"clock: found {section!r}, allowed a [clock] table")
            validated = validate_section(CLOCK_FIELDS, section, "clock.")
            self.policy = clock_from_config(validated, self.rules)
            self.clock = MoveClock(self.policy, self.players)
            return TableVerdict(True, note=f"clock: {self.policy.name}")
        if "timeout" in event:
            return self._timeout(self._player(event, "timeout"), t)
        if "away" in event:
            player = self._player(event, "away")
            at = self._need_t(t, "away")
            if self.substitutes:
                departure = self.seating.drop(player, at)
                self.clock.pause(at)
                return TableVerdict(True, note=f"{departure.player} dropped out; play waits for Continue")
            if player not in self.players:
                raise TableEventError(f"away: {player!r} does not play in this match")
            forfeit = self.absences.away(player, at)
            if forfeit is not None:
                return self._lose(forfeit)
            self.clock.pause(at)
            deadline = self.absences.deadline(player)
            return TableVerdict(True, note=f"{player} away until {deadline:g} s at the latest")
        if "back" in event:
            player = self._player(event, "back")
            at = self._need_t(t, "back")
            if self.substitutes:
                displaced = self.seating.back(player, at)
                return TableVerdict(True, note=f"{player} retakes the seat" +
                                    (f" from {displaced}" if displaced else ""))
            forfeit = self.absences.back(player, at)
            if forfeit is not None:
                return self._lose(forfeit)
            if not self.absences.anyone_away:
                self.clock.resume(at)
            return TableVerdict(True)
        if "leave" in event:
            player = self._player(event, "leave")
            at = self._need_t(t, "leave")
            if not self.substitutes:
                if player not in self.players:
                    raise TableEventError(f"leave: {player!r} does not play in this match")
                return self._lose(Forfeit(player, "left", at))
            departure = self.seating.leave(player, at)
            self.clock.pause(at)
            return TableVerdict(True, note=f"{player} leaves: {-self.seating.rules.leave_penalty} points")
        if "substitute" in event:
            if not self.substitutes:
                raise TableEventError("substitute: substitutes are a turkish club rule")
            newcomer = event["substitute"]
            if not isinstance(newcomer, str) or not newcomer.strip():
                raise TableEventError(f"substitute: found {newcomer!r}, allowed the substitute's name")
            seat = self.seating.substitute(self._player(event, "substitute"), newcomer, t or 0.0)
            return TableVerdict(True, note=f"{newcomer} takes the seat of {seat}")
        if "continue" in event:
            if not self.substitutes or not self.seating.suspended:
                raise TableEventError("continue: play is not suspended")
            self.seating.resume(t or 0.0)
            if t is not None:
                self.clock.resume(t)
            return TableVerdict(True)
        raise TableEventError(f"not a table-side event: {dict(event)!r}")

    def _timeout(self, player: str, t: float | None) -> TableVerdict:
        if t is not None and self.clock.turn_running and not self.clock.paused:
            on_move = self.clock.on_move
            if on_move is not None and self.seat_of(on_move) != self.seat_of(player):
                raise TableEventError(f"timeout: {player} is not on move ({on_move} is)")
            standing = self.clock.standing.get(self.seat_of(player), self.clock.policy.initial())
            left = self.clock.policy.time_left(standing, self.clock.elapsed(t))
            if left is not None and left > 0:
                raise TableEventError(f"timeout: {player} still had {left:g} s at {t:g} s")
        at = t if t is not None else self.last_t or 0.0
        forfeit = Forfeit(player, "timeout", at, "the table called time")
        self._lose(forfeit)
        return TableVerdict(True, forfeit=forfeit, note=str(forfeit))

    # -- the results ---------------------------------------------------------------------

    def snapshot(self, now: float) -> dict[str, Any]:
        """What a scoreboard or overlay shows at `now`: the move clock, who is away and until
        when (flagged in their last seconds), whether play waits for Continue, a forfeit."""
        return {
            "clock": self.clock.snapshot(now),
            "away": self.absences.snapshot(now),
            "waiting_for_continue": self.substitutes and self.seating.suspended,
            "empty_seats": self.seating.empty_seats() if self.substitutes else [],
            "forfeit": self.forfeit.as_dict() if self.forfeit else None,
        }

    def departures(self) -> list[Departure]:
        return list(self.seating.departures)

    def summary(self, seat_points: Mapping[str, Fraction | int] | None = None) -> dict[str, Any]:
        """What replay reports: timeouts, forfeits, absences, leavers and the ledger entries."""
        forfeits = self.absences.forfeits[:] if self.forfeit is None else [self.forfeit]
        result: dict[str, Any] = {
            "clock": self.clock.policy.name,
            "moves": [timing.as_dict() for timing in self.timings],
            "timeouts": [f.as_dict() for f in forfeits if f.reason == "timeout"],
            "late_returns": [f.as_dict() for f in forfeits if f.reason == "late-return"],
            "forfeit": self.forfeit.as_dict() if self.forfeit else None,
            "winner_by_forfeit": self.winner_by_forfeit(),
            "absences": {name: count for name, count in self.absences.used.items() if count},
        }
        if self.substitutes:
            penalty = self.seating.rules.leave_penalty
            result["leaving"] = [
                {"player": d.player, "seat": d.seat, "t": d.t, "voluntary": d.voluntary,
                 "penalty": -penalty if d.voluntary else 0}
                for d in self.seating.departures]
            result["ledger"] = [e.as_dict() for e in self.seating.settle(seat_points)]
        return result
