"""The table: one ordered queue of inputs, one consumer that logs each input and then acts on it.

Devices (camera tracker, buttons, scoreboard buttons, MQTT commands, the ticker) run on their own
threads and only call `TableService.feed`. The consumer thread is the only code that touches the
engine. Time comes from an injected clock (``time.monotonic`` in production, a controlled one in
tests); the engine is given match time ``t`` (seconds since Start) as an argument.

Order of work for every input: decide whether it matters (`TableCore.admit`), write it to the event
log (fsync'd), act on it (`TableCore.act`), store the resulting events in the outbox, then tell the
scoreboard, buzzer/LEDs and MQTT. A restart replays the log through the same `act`, so the table
resumes exactly where it was.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, is_dataclass
from typing import Any

from referee.app.config import Config
from referee.app.lineview import lay_out
from referee.app.ports import BoardView, Input, InputKind
from referee.errors import DominoError
from referee.referee import Referee, Verdict
from referee.table.tableside import TableSide
from referee.tiles import Tile


@dataclass(frozen=True)
class MatchSettings:
    """What a match is played with; stored with the match so a resume rebuilds the same referee."""

    table_id: str
    rules: str
    players: tuple[str, ...]
    teams: tuple[tuple[str, ...], ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    clock: Mapping[str, Any] = field(default_factory=dict)   # the [clock] section

    def as_dict(self) -> dict[str, Any]:
        return {"table_id": self.table_id, "rules": self.rules, "players": list(self.players),
                "teams": [list(team) for team in self.teams], "options": dict(self.options),
                "clock": dict(self.clock)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchSettings:
        return cls(str(data["table_id"]), str(data["rules"]), tuple(data["players"]),
                   tuple(tuple(team) for team in data.get("teams", ())), dict(data.get("options", {})),
                   dict(data.get("clock", {})))

    @classmethod
    def from_config(cls, config: Config) -> MatchSettings:
        table = config["table"]
        return cls(table["id"], table["rules"], tuple(table["players"]),
                   tuple(tuple(team) for team in table["teams"]), dict(config.rule_options),
                   dict(config["clock"]))


# The engine for one match: the referee, with the table side (clocks, absences, seats) attached
# to it as its observer, and that table side.
RefereeFactory = Callable[[MatchSettings], tuple[Referee, TableSide]]


def jsonable(value: Any) -> Any:
    """Engine results (dataclasses, tiles, tuples) as JSON values."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if is_dataclass(value) and not isinstance(value, type):
        return jsonable(asdict(value))
    if isinstance(value, Mapping):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(item) for item in value]
    to_dict = getattr(value, "to_dict", None) or getattr(value, "as_dict", None)
    if callable(to_dict):
        return jsonable(to_dict())
    return str(value)


def hand_popup_kind(result: object) -> str:
    """The overlay's popup for a hand's end: ``domino`` (someone went out), ``block`` or ``hand``."""
    outcome = result.get("outcome") if isinstance(result, Mapping) else None
    return {"out": "domino", "blocked": "block"}.get(str(outcome), "hand")


@dataclass
class Outcome:
    """What acting on one input produced: events to publish and signals/messages for the table."""

    events: list[dict[str, Any]] = field(default_factory=list)
    signals: list[str] = field(default_factory=list)
    changed: bool = True


class TableCore:
    """The referee's side of a match: turns table inputs into engine events. No I/O, no threads."""

    def __init__(self, settings: MatchSettings, referee: Referee, side: TableSide) -> None:
        self.settings = settings
        self.referee = referee
        # The engine's table side (move clock, absences, seats), attached to `referee` as its observer.
        self.side = side
        self.phase = "playing"
        self.pending: str | None = None
        self.boneyard: int | None = None
        self.hand_started = False
        self.hand = 1
        self.message = ""
        self.revealed: dict[str, list[str]] = {}
        self.claimed: str | None = None
        self.warned = False
        self.last_t = 0.0
        # What the overlay shows besides the engine's snapshot: the last play and what it scored,
        # the latest popup (a domino, a block, a hand's or the match's end) and the corrections made.
        self.last_play: dict[str, Any] | None = None
        self.popup: dict[str, Any] | None = None
        self.corrections: list[dict[str, Any]] = []

    # -- what the table looks like -----------------------------------------------------------
    def turn(self) -> str | None:
        return self.referee.turn if self.phase == "playing" else None

    def snapshot(self) -> dict[str, Any]:
        return self.referee.snapshot()

    def scores(self) -> dict[str, float]:
        """Points per player or side (`turkish`: penalties), as the engine keeps them."""
        snap = self.snapshot()
        points = snap["penalties"] if "penalties" in snap else snap["scores"]
        return {str(name): float(value) for name, value in points.items()}

    def engine_boneyard(self) -> int | None:
        hand = self.referee.hand
        return None if hand is None else hand.boneyard_count

    def on_table(self) -> set[str]:
        hand = self.referee.hand
        return set() if hand is None else {str(placed.tile) for placed in hand.line.placed}

    def canonical(self, tile: object) -> str:
        """A tile as the engine names it ("5-3" is "3-5"); text that is no tile, as it is."""
        try:
            return str(Tile.parse(str(tile), self.referee.rules.max_pip))
        except DominoError:
            return str(tile)

    def remaining(self, t: float) -> float | None:
        if self.turn() is None:
            return None
        left = self.side.clock.time_left(t)
        return None if left is None else float(left)

    def view(self, t: float) -> BoardView:
        scores = self.scores()
        since = self.side.clock.turn_started
        return BoardView(scores=tuple(scores.items()), turn=self.turn(), clock=self.remaining(t),
                         boneyard=self.engine_boneyard(), message=self.message, hand=self.hand,
                         phase=self.phase, clock_since=since)

    def state(self, t: float) -> dict[str, Any]:
        snap = self.snapshot()
        view = self.view(t)
        return {
            "table": self.settings.table_id, "rules": self.settings.rules,
            "players": list(self.settings.players), "teams": [list(team) for team in self.settings.teams],
            "options": jsonable(self.settings.options), "phase": self.phase, "hand": self.hand,
            "turn": view.turn, "scores": dict(view.scores), "open_ends": jsonable(snap.get("open_ends")),
            "table_tiles": sorted(self.on_table()), "boneyard": self.engine_boneyard(),
            "hand_sizes": jsonable(snap.get("hand_sizes")), "awaiting": snap.get("awaiting"),
            "clock": None if view.turn is None else {
                "player": view.turn, "remaining": view.clock, "warning_seconds": self.warning_seconds(),
                "running": view.clock is not None and snap.get("awaiting") == "move"},
            "table_side": jsonable(self.side.snapshot(t)),
            "message": self.message, "waiting_for_removal": self.pending, "t": round(self.last_t, 3),
            "line": lay_out(snap.get("table") or [], spinner_rule=self.spinner_rule()),
            "last_play": self.last_play, "popup": self.popup, "corrections": list(self.corrections),
            "engine": jsonable(snap),
        }

    def warning_seconds(self) -> float | None:
        """When the move clock's warning sounds (seconds left), for the overlay's warning colour."""
        value = getattr(self.side.clock.policy, "warning_seconds", None)
        return float(value) if isinstance(value, (int, float)) else None

    def spinner_rule(self) -> bool:
        return bool(self.referee.rules.spinner)

    # -- deciding and acting -------------------------------------------------------------------
    def admit(self, inp: Input) -> tuple[bool, str]:
        """Whether the input changes the match (and so is logged); else a note for the table."""
        kind, data = inp.kind, inp.data
        if self.phase == "match-over":
            return False, "the match is over: press Start for a new one"
        if kind == "start":
            return False, "a match is running"
        if kind == "placed":
            if self.pending is not None:
                return False, f"take back {self.pending} first"
            if self.canonical(data.get("tile")) in self.on_table():
                return False, ""
            return True, ""
        if kind == "removed":
            tile = self.canonical(data.get("tile"))
            if self.pending is not None and tile == self.canonical(self.pending):
                return True, ""
            if self.phase == "playing" and tile in self.on_table():
                return False, f"{data.get('tile')} left the table: press Undo if it was misread"
            return False, ""
        if kind == "revealed" and self.snapshot().get("awaiting") != "reveal":
            return False, "no hand is waiting to be revealed"
        if kind == "boneyard":
            known = self.engine_boneyard()
            count = data.get("count")
            if not isinstance(count, int) or isinstance(count, bool):
                return False, f"boneyard count {count!r} is not a number"
            # More face-down tiles than the referee counts is a deal in progress, not a draw.
            return known is not None and count < known, ""
        return InputKind(kind).changes_the_match, ""

    def act(self, kind: str, data: Mapping[str, Any], t: float) -> Outcome:
        """Apply one logged input at match time ``t`` (live or while replaying the log)."""
        self.last_t = t
        handlers: dict[InputKind, Callable[[Mapping[str, Any], float], Outcome]] = {
            InputKind.START: self._on_start, InputKind.PLACED: self._on_placed,
            InputKind.REMOVED: self._on_removed, InputKind.BONEYARD: self._on_boneyard,
            InputKind.REVEALED: self._on_revealed, InputKind.LEAD: self._on_lead,
            InputKind.PASS: self._on_pass, InputKind.CONTINUE: self._on_continue,
            InputKind.TIMEOUT: self._on_timeout, InputKind.AWAY: self._on_away,
            InputKind.BACK: self._on_back, InputKind.LEAVE: self._on_leave,
            InputKind.SUBSTITUTE: self._on_substitute, InputKind.UNDO: self._on_undo,
            InputKind.CORRECT: self._on_correct, InputKind.MISSED: self._on_missed,
        }
        return handlers[InputKind(kind)](data, t)

    def _engine(self, event: dict[str, Any], t: float, outcome: Outcome, *, describe: dict[str, Any]) -> bool:
        before = self.turn()
        verdict = self.referee.apply({**event, "t": round(t, 3)})   # never raises on input
        ok, error = verdict.ok, verdict.error or "refused"
        name = describe.pop("event")
        if not ok:
            outcome.events.append({"event": "refused", "refused": name, **describe, "error": error,
                                   "t": round(t, 3)})
            outcome.signals.append("error")
            self.message = error
            return False
        points = jsonable(verdict.points)
        outcome.events.append({"event": name, **describe, "points": points, "t": round(t, 3)})
        if "play" in event:
            self.last_play = {"player": event.get("player"), "tile": event["play"],
                              "end": self._placed_end(event["play"]), "points": points, "t": round(t, 3)}
        self.message = ""
        findings = jsonable(verdict.findings)
        if findings:
            outcome.events.append({"event": "findings", "findings": findings, "t": round(t, 3)})
        self._results(verdict, t, outcome)
        self._claim_clock()
        if self.turn() != before:
            self.warned = False
        return True

    def _claim_clock(self) -> None:
        """Name the running move's player on the table side's clock as soon as the engine knows it
        (the table side itself learns it only from that player's next event)."""
        clock = self.side.clock
        turn = self.turn()
        if turn is not None and clock.turn_running and clock.on_move is None:
            clock.claim(turn)

    def _results(self, verdict: Verdict, t: float, outcome: Outcome) -> None:
        hand = verdict.hand_result
        if hand is not None:
            outcome.events.append({"event": "hand", "hand": self.hand, "result": jsonable(hand),
                                   "t": round(t, 3)})
            self.popup = {"kind": hand_popup_kind(jsonable(hand)), "hand": self.hand,
                          "result": jsonable(hand), "t": round(t, 3)}
            outcome.signals.append("hand")
            self.hand += 1
            self.hand_started = False
            self.revealed = {}
            self.boneyard = None
        match = verdict.match_result
        if match is not None:
            outcome.events.append({"event": "match", "result": jsonable(match), "t": round(t, 3)})
            self.popup = {"kind": "match", "result": jsonable(match), "t": round(t, 3)}
            outcome.signals.append("match")
            self.phase = "match-over"
            self.message = "match over"

    def _on_start(self, data: Mapping[str, Any], t: float) -> Outcome:
        outcome = Outcome()
        self.referee.apply({"start": True, "t": round(t, 3)})
        self._claim_clock()
        outcome.events.append({"event": "start", "players": list(self.settings.players),
                               "rules": self.settings.rules, "t": round(t, 3)})
        return outcome

    def _on_placed(self, data: Mapping[str, Any], t: float) -> Outcome:
        outcome = Outcome()
        tile, player = str(data["tile"]), self.turn() or self.claimed
        if player is None:
            self.pending = tile
            self.message = f"who leads {tile}? the leader presses their seat button - take it back"
            outcome.events.append({"event": "refused", "refused": "play", "tile": tile,
                                   "error": "nobody claimed the lead", "t": round(t, 3)})
            outcome.signals.append("error")
            return outcome
        event: dict[str, Any] = {"player": player, "play": tile}
        end = data.get("end")
        ends = self.referee.legal_ends(tile)   # [] for an unreadable tile: apply refuses it
        if end and len(ends) > 1:
            event["end"] = str(end)
        if self._engine(event, t, outcome, describe={"event": "play", "player": player, "tile": tile,
                                                     "end": event.get("end")}):
            self.hand_started = True
            self.claimed = None
            outcome.signals.insert(0, "ok")
        else:
            self.pending = tile
            self.message = f"{tile}: {self.message} - take it back"
        return outcome

    def _placed_end(self, tile: str) -> str | None:
        """The end `tile` was laid on, as the engine's line has it (None when it is not there)."""
        for placed in reversed(self.snapshot().get("table") or []):
            if isinstance(placed, Mapping) and placed.get("tile") in (tile, "-".join(tile.split("-")[::-1])):
                end = placed.get("end")
                return None if end is None else str(end)
        return None

    # -- the table manager's corrections -------------------------------------------------------
    def _refuse_correction(self, kind: str, error: str, t: float, **fields: Any) -> Outcome:
        self.message = error
        return Outcome(events=[{"event": "refused", "refused": kind, **fields, "error": error,
                                "t": round(t, 3)}], signals=["error"])

    def _on_correct(self, data: Mapping[str, Any], t: float) -> Outcome:
        """"The tile just played is 3-5, not 3-6": the last accepted play is taken back and the
        right tile is played by the same player at the same end (or `end`). When the right tile
        does not fit there, the misread play stays and the correction is refused."""
        tile = str(data["tile"])
        accepted = self.referee.accepted
        last = accepted[-1][1] if accepted else None
        if not isinstance(last, Mapping) or "play" not in last or not isinstance(last.get("player"), str):
            return self._refuse_correction("correct", "the last accepted event is not a play: nothing "
                                           "to correct (use a missed play or undo)", t, tile=tile)
        was, player = str(last["play"]), str(last["player"])
        end = str(data.get("end") or self._placed_end(was) or "")
        undone = self.referee.undo()
        if undone is None:
            return self._refuse_correction("correct", "nothing to correct: no accepted play", t, tile=tile)
        try:
            fits = list(self.referee.legal_ends(tile))
        except Exception as error:  # an unreadable tile: the play stays as it was
            fits, why = [], str(error)
        else:
            why = f"{tile} does not fit the line before {was}" if not fits else (
                f"{tile} does not fit the {end} end (it fits {', '.join(fits)})" if end and end != "lead"
                and len(fits) > 1 and end not in fits else "")
        verdict = self.referee.apply(dict(undone))   # put the misread play back before deciding
        if why or not verdict.ok:
            return self._refuse_correction("correct", f"cannot correct {was} to {tile}: {why or 'refused'}",
                                           t, tile=tile, was=was, player=player)
        outcome = self._on_undo({}, t)
        if outcome.events and outcome.events[-1]["event"] == "refused":
            return outcome
        outcome.events.pop()   # the undo is part of the correction, not an event of its own
        event: dict[str, Any] = {"player": player, "play": tile}
        if end and end != "lead" and len(fits) > 1:
            event["end"] = end
        if self._engine(event, t, outcome, describe={"event": "correct", "player": player, "tile": tile,
                                                     "end": event.get("end"), "was": was}):
            self.claimed = None
            self.corrections.append({"kind": "correct", "player": player, "tile": tile, "was": was,
                                     "end": self.last_play and self.last_play.get("end"), "t": round(t, 3)})
            outcome.signals.insert(0, "ok")
            self.message = f"corrected: {player} played {tile}, not {was}"
        return outcome

    def _on_missed(self, data: Mapping[str, Any], t: float) -> Outcome:
        """"This play was not seen: Cem played 2-4 on the right": a play the camera missed, entered
        by the table manager for the player on move (or the one who claimed the lead)."""
        tile, player = str(data["tile"]), str(data["player"])
        on_move = self.turn() or self.claimed
        if on_move is not None and player != on_move:
            return self._refuse_correction("missed", f"it is {on_move}'s move, not {player}'s", t,
                                           tile=tile, player=player)
        event: dict[str, Any] = {"player": player, "play": tile}
        if data.get("end"):
            event["end"] = str(data["end"])
        outcome = Outcome()
        if self._engine(event, t, outcome, describe={"event": "play", "player": player, "tile": tile,
                                                     "end": event.get("end"), "missed": True}):
            self.hand_started = True
            self.claimed = None
            self.pending = None
            self.corrections.append({"kind": "missed", "player": player, "tile": tile,
                                     "end": self.last_play and self.last_play.get("end"), "t": round(t, 3)})
            outcome.signals.insert(0, "ok")
        return outcome

    def _on_removed(self, data: Mapping[str, Any], t: float) -> Outcome:
        self.pending = None
        self.message = ""
        return Outcome(events=[{"event": "taken-back", "tile": data["tile"], "t": round(t, 3)}])

    def _on_boneyard(self, data: Mapping[str, Any], t: float) -> Outcome:
        outcome = Outcome()
        count = int(data["count"])
        known = self.engine_boneyard()
        drawn = 0 if known is None else known - count
        for _ in range(max(drawn, 0)):
            player = self.turn()
            if not self._engine({"player": player, "draw": 1}, t, outcome,
                                describe={"event": "draw", "player": player}):
                break
        self.boneyard = count
        return outcome

    def _on_revealed(self, data: Mapping[str, Any], t: float) -> Outcome:
        outcome = Outcome()
        player = self.zone_player(data.get("zone"))
        tiles = [str(tile) for tile in data.get("tiles", ())]
        self.revealed[player] = tiles
        sizes = self.snapshot().get("hand_sizes") or {}
        waiting = [name for name, count in sizes.items() if count and name not in self.revealed]
        if waiting:
            outcome.events.append({"event": "revealed", "player": player, "tiles": tiles,
                                   "waiting_for": waiting, "t": round(t, 3)})
            return outcome
        shown = dict(self.revealed)
        self._engine({"reveal": shown}, t, outcome, describe={"event": "reveal", "hands": shown})
        self.revealed = {}
        return outcome

    def _on_lead(self, data: Mapping[str, Any], t: float) -> Outcome:
        self.claimed = str(data["player"])
        return Outcome(events=[{"event": "lead-claimed", "player": self.claimed, "t": round(t, 3)}])

    def zone_player(self, zone: object) -> str:
        players = self.settings.players
        if isinstance(zone, str) and zone in players:
            return zone
        text = str(zone).rsplit("-", 1)[-1].removeprefix("seat")
        if text.isdigit() and int(text) < len(players):
            return players[int(text)]
        return str(zone)

    def _on_pass(self, data: Mapping[str, Any], t: float) -> Outcome:
        outcome = Outcome()
        player = self.turn()
        self._engine({"player": player, "pass": True}, t, outcome,
                     describe={"event": "pass", "player": player})
        return outcome

    def _on_continue(self, data: Mapping[str, Any], t: float) -> Outcome:
        outcome = Outcome()
        self._engine({"continue": True}, t, outcome, describe={"event": "continue"})
        return outcome

    def _on_timeout(self, data: Mapping[str, Any], t: float) -> Outcome:
        outcome = Outcome()
        player = str(data["player"])
        if self._engine({"player": player, "timeout": True}, t, outcome,
                        describe={"event": "timeout", "player": player}):
            outcome.signals.insert(0, "timeout")
        return outcome

    def _player_event(self, kind: str, data: Mapping[str, Any], t: float) -> Outcome:
        outcome = Outcome()
        self._engine({"player": data["player"], kind: True}, t, outcome,
                     describe={"event": kind, "player": data["player"]})
        return outcome

    def _on_away(self, data: Mapping[str, Any], t: float) -> Outcome:
        return self._player_event("away", data, t)

    def _on_back(self, data: Mapping[str, Any], t: float) -> Outcome:
        return self._player_event("back", data, t)

    def _on_leave(self, data: Mapping[str, Any], t: float) -> Outcome:
        return self._player_event("leave", data, t)

    def _on_substitute(self, data: Mapping[str, Any], t: float) -> Outcome:
        outcome = Outcome()
        self._engine({"player": data["player"], "substitute": data["substitute"]}, t, outcome,
                     describe={"event": "substitute", "player": data["player"],
                               "substitute": data["substitute"]})
        return outcome

    def _on_undo(self, data: Mapping[str, Any], t: float) -> Outcome:
        outcome = Outcome()
        accepted = self.referee.accepted
        # Start is the manager's own press, never a misread: it is not taken back.
        refusal = ("no accepted event" if not accepted else
                   "only the match's start is behind us" if "start" in accepted[-1][1] else None)
        undone = self.referee.undo() if refusal is None else None
        if undone is None:   # nothing to undo is the table manager's mistake, not a crash
            self.message = f"nothing to undo ({refusal})"
            outcome.events.append({"event": "refused", "command": "undo", "error": self.message,
                                   "t": round(t, 3)})
            outcome.signals.append("error")
            return outcome
        self.pending = None
        self.message = "undone"
        self.last_play = None
        if "play" in undone and isinstance(undone.get("player"), str):
            self.claimed = undone["player"]   # a lead taken back is led again by the same player
        if "play" in undone or "pass" in undone:
            # The engine's observer put the mover's clock back to before the move; the move runs
            # again from now, so the time the misread cost is not charged.
            self.side.restart_turn(round(t, 3))   # the engine's times are rounded so
            self._claim_clock()
        if self.phase == "match-over":
            self.phase = "playing"
        outcome.events.append({"event": "undo", "undone": jsonable(undone), "t": round(t, 3)})
        self.warned = False
        return outcome

    def tick(self, t: float) -> tuple[str | None, float | None]:
        """The clock's view at ``t``: ("warning"|"timeout"|None, seconds left)."""
        left = self.remaining(t)
        if left is None or self.phase != "playing":
            return None, left
        if self.side.clock.flag_fallen(t):
            return "timeout", left
        if not self.warned and self.side.clock.warning_due(t):
            self.warned = True
            return "warning", left
        return None, left
