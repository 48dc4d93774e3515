"""The façade other parts code against: `Referee.apply(event) -> Verdict`, never raising on input.

A `Referee` judges one match event by event in the record format (`referee.events`).

Knowledge. ``knowledge="full"`` (simulation) starts each hand with a ``{"deal": {name: [tiles]},
"boneyard": [tiles]}`` event. ``knowledge="table"`` (a real table) knows only the table: the
first hand begins at once; draws are counts; when a hand ends (a player goes out or it is
blocked) the referee waits for ``{"reveal": {name: [tiles]}}``, scores the hand, audits it
(`Verdict.findings`) and begins the next hand. A hand that ends the match mid-hand (a target
reached) needs no reveal, though one is accepted and audited.

Hook for time-keeping and the table manager. Pass ``observers=[...]``, each a `RefereeObserver`
(subclass `Observer` to define only the callbacks you need):

* ``before_event(referee, event, t) -> Sequence[Mapping]``: called with every event before it is
  judged; the events it returns (e.g. a ``timeout`` its clock derived from ``t``) are applied
  first, as if they had come in that order;
* ``after_event(referee, event, verdict) -> None``: called with every event and its verdict;
* ``on_undo(referee, event) -> None``: the last accepted event was taken back.

Table events (`start`, `away`, `back`, `continue`, `substitute`, `clock`) are accepted and
recorded with no effect on the tiles; `timeout` loses an `italian` match, `leave` ends a match
of any rule set but `turkish` (where a substitute may take the seat).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from referee.analysis import analyse
from referee.audit import audit
from referee.errors import DominoError
from referee.events import FORMAT, TABLE_ACTIONS, VERSION, event_action
from referee.hand import HandState
from referee.line import END_INDEX, END_NAMES
from referee.match import Match, number
from referee.moves import DRAW, PASS, PLAY, IllegalMoveError, Move, RecordError
from referee.rules import RuleSet, find_rules
from referee.tiles import Tile, full_set


@dataclass
class Verdict:
    """The referee's answer to one event."""

    ok: bool
    points: int | float = 0
    error: str | None = None
    hand_result: dict[str, Any] | None = None
    match_result: dict[str, Any] | None = None
    findings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": self.ok}
        if self.ok:
            out["points"] = self.points
        else:
            out["error"] = self.error
        if self.findings:
            out["findings"] = list(self.findings)
        if self.hand_result is not None:
            out["hand_result"] = self.hand_result
        if self.match_result is not None:
            out["match_result"] = self.match_result
        return out


class RefereeObserver(Protocol):
    """What the referee calls around every event (see the module docstring)."""

    def before_event(self, referee: Referee, event: Mapping[str, Any],
                     t: object) -> Sequence[Mapping[str, Any]]: ...

    def after_event(self, referee: Referee, event: Mapping[str, Any], verdict: Verdict) -> None: ...

    def on_undo(self, referee: Referee, event: Mapping[str, Any]) -> None: ...


class Observer:
    """A `RefereeObserver` that does nothing: subclass it and override what you need."""

    def before_event(self, referee: Referee, event: Mapping[str, Any],
                     t: object) -> Sequence[Mapping[str, Any]]:
        return ()

    def after_event(self, referee: Referee, event: Mapping[str, Any], verdict: Verdict) -> None:
        return None

    def on_undo(self, referee: Referee, event: Mapping[str, Any]) -> None:
        return None


class Referee:
    """Judge a match event by event; see the module docstring."""

    # The attributes the events decide (an undo replays the events and takes these); every other
    # attribute is a setting given to the constructor (tests check that the two lists cover all).
    EVENT_STATE: ClassVar[tuple[str, ...]] = ("match", "aliases", "substitutes", "leavers", "accepted",
                                              "deals", "last_hand_result", "_replacing")
    SETTINGS: ClassVar[tuple[str, ...]] = ("rules", "knowledge", "players", "teams", "observers")

    def __init__(self, rules: str | RuleSet = "turkish", players: Sequence[str] = (),
                 options: Mapping[str, object] | None = None, teams: Sequence[Sequence[str]] | None = None,
                 knowledge: str = "table", observers: Sequence[RefereeObserver] = ()) -> None:
        if knowledge not in ("table", "full"):
            raise RecordError(f"knowledge must be 'table' or 'full', found {knowledge!r}")
        self.rules: RuleSet = rules if isinstance(rules, RuleSet) else find_rules(rules)(options)
        self.knowledge = knowledge
        self.players = list(players)
        self.teams = [list(team) for team in teams] if teams else None
        self.observers = list(observers)
        self.match = Match(self.rules, self.players, self.teams)
        self.aliases: dict[str, int] = {name: seat for seat, name in enumerate(self.players)}
        self.substitutes: dict[str, str] = {}
        self.leavers: set[str] = set()
        # accepted events with the hand (0-based) they belong to; deals are kept per hand
        self.accepted: list[tuple[int, dict[str, Any]]] = []
        self.deals: dict[int, dict[str, Any]] = {}
        self.last_hand_result: dict[str, Any] | None = None
        self._replacing = False
        if knowledge == "table":
            self.match.start_hand()

    # -- the façade --------------------------------------------------------------------------------
    @property
    def hand(self) -> HandState | None:
        return self.match.hand

    @property
    def turn(self) -> str | None:
        hand = self.match.hand
        if hand is None or self.match.over or self.match.hand_finished or hand.turn is None:
            return None
        return self.players[hand.turn]

    @property
    def open_ends(self) -> dict[str, int]:
        hand = self.match.hand
        return hand.line.open_ends() if hand is not None else {}

    def legal_ends(self, tile: Tile | str) -> list[str]:
        try:
            value = tile if isinstance(tile, Tile) else Tile.parse(tile, self.rules.max_pip)
        except DominoError:
            return []
        hand = self.match.hand
        if hand is None or value in hand.line:
            return []
        if not hand.line.placed:
            return ["lead"]
        return [END_NAMES[e] for e in hand.line.fitting_ends(value)]

    def apply(self, event: Mapping[str, Any]) -> Verdict:
        """Judge one event; a refused event changes nothing (edge case 6)."""
        t = event.get("t") if isinstance(event, Mapping) else None
        for observer in self.observers:
            for derived in observer.before_event(self, event, t):
                self._judge(derived)
        return self._judge(event)

    def undo(self) -> dict[str, Any] | None:
        """Take back the last accepted event (the table manager fixing a misread); return it.

        Why this replays the accepted events instead of popping the last move, as
        `HandState.pop` does: an event may have done more than one move. It can end a hand (scored,
        the next hand dealt or begun), end the match, re-deal, seat a substitute or be a reveal
        that was audited; undoing each of those by hand would be a second, inverse copy of every
        rule. `HandState.pop` stays the engine's cheap unchecked undo of one move inside a hand
        (self-play and search push and pop millions); a table manager's undo is rare, so one
        replay of the match's events (milliseconds) keeps a single source of truth for the
        rules. The observers are not replayed: each keeps its own state per accepted event and
        is told by `on_undo`.
        """
        if not self.accepted:
            return None
        kept = [event for _, event in self.accepted[:-1]]
        _, undone = self.accepted[-1]
        fresh = Referee(self.rules, self.players, self.rules.options, self.teams, self.knowledge)
        for event in kept:
            fresh._judge(event)
        self._take_state_of(fresh)
        for observer in self.observers:
            observer.on_undo(self, undone)
        return undone

    def _take_state_of(self, other: Referee) -> None:
        """Become `other`'s match (everything the events decided), keeping these observers."""
        for name in self.EVENT_STATE:
            setattr(self, name, getattr(other, name))

    # -- judging -----------------------------------------------------------------------------------
    def _judge(self, event: Mapping[str, Any]) -> Verdict:
        hand_no = max(self.match.hand_index, 0)
        try:
            verdict = self._dispatch(event)
        except DominoError as error:
            verdict = Verdict(ok=False, error=str(error))
        if verdict.ok:
            if isinstance(event, Mapping) and "deal" in event:
                hand_no = self.match.hand_index
            self.accepted.append((hand_no, dict(event)))
        for observer in self.observers:
            observer.after_event(self, event, verdict)
        return verdict

    def seat_of(self, name: object) -> int:
        if not isinstance(name, str) or name not in self.aliases:
            known = ", ".join(self.players)
            raise IllegalMoveError(f"unknown player {name!r} (players: {known})")
        return self.aliases[name]

    def _dispatch(self, event: Mapping[str, Any]) -> Verdict:
        action = event_action(event)
        if action in TABLE_ACTIONS:
            return self._table_event(action, event)
        if action == "deal":
            return self._deal(event)
        if action == "reveal":
            return self._reveal(event["reveal"])
        if action == "redeal":
            return self._redeal()
        seat = self.seat_of(event["player"])
        match = self.match
        if self.knowledge == "full" and (match.hand is None or match.hand_finished) and not match.over:
            raise IllegalMoveError("no hand in play: the next hand needs a 'deal' event")
        if self.knowledge == "table" and match.hand_finished and not match.over:
            raise IllegalMoveError("the hand is over: waiting for the next hand")
        hand = match.hand
        if hand is not None and hand.over and hand.masks is None and not match.over:
            raise IllegalMoveError(f"the hand is over ({hand.status}): waiting for the 'reveal' event")
        moves = self._moves(action, seat, event)
        before = len(match.results)
        done = 0
        points = 0
        try:
            for move in moves:
                points += match.apply(move)
                done += 1
        except DominoError:
            assert match.hand is not None
            for _ in range(done):
                match.hand.pop()
            raise
        return self._verdict(points, before)

    def _verdict(self, points: int, hands_before: int, findings: list[str] | None = None) -> Verdict:
        match = self.match
        hand_result = None
        if match.hand_finished and match.results and len(match.results) > hands_before:
            hand_result = match.results[-1]
            self.last_hand_result = hand_result
        return Verdict(ok=True, points=points, hand_result=hand_result,
                       match_result=match.result() if match.over else None, findings=findings or [])

    def _moves(self, action: str, seat: int, event: Mapping[str, Any]) -> list[Move]:
        max_pip = self.rules.max_pip
        value = event[action]
        if action == PASS:
            if value is not True:
                raise RecordError(f"'pass' must be true, found {value!r}")
            return [Move(PASS, seat)]
        if action == DRAW:
            if isinstance(value, bool) or not isinstance(value, int | str):
                raise RecordError(f"'draw' must be a tile or a count, found {value!r}")
            if isinstance(value, int):
                if value < 1:
                    raise RecordError(f"'draw' count must be at least 1, found {value}")
                return [Move(DRAW, seat)] * value
            tile = Tile.parse(value, max_pip)
            if self.knowledge == "table":
                hand = self.match.hand
                if hand is not None and tile in hand.line:
                    raise IllegalMoveError(f"{tile} cannot be drawn: it is on the table")
                return [Move(DRAW, seat)]
            return [Move(DRAW, seat, tile)]
        tile, first, _ = Tile.parse_oriented(value, max_pip)
        end_name = event.get("end")
        end = None
        if end_name is not None:
            if end_name not in END_INDEX:
                raise RecordError(f"'end' must be one of {', '.join(END_NAMES)}, found {end_name!r}")
            end = END_INDEX[end_name]
        return [Move(PLAY, seat, tile, end, first)]

    def _deal(self, event: Mapping[str, Any]) -> Verdict:
        if self.knowledge != "full":
            raise IllegalMoveError("a 'deal' event needs knowledge='full' (simulation)")
        match = self.match
        hand = match.hand
        replace = hand is not None and not match.hand_finished and (self._replacing or bool(hand.void))
        if hand is not None and not match.hand_finished and not replace:
            raise IllegalMoveError("the current hand is not finished: no new deal yet")
        dealt_field = event["deal"]
        if not isinstance(dealt_field, Mapping):
            raise RecordError(f"'deal' must map each player to their tiles, found {dealt_field!r}")
        for name in dealt_field:
            self.seat_of(name)
        dealt: list[list[Tile]] = []
        seen: set[Tile] = set()
        for name in self.players:
            tiles = self._tiles(dealt_field.get(name), f"deal.{name}")
            dealt.append(tiles)
        boneyard = self._tiles(event.get("boneyard", []), "boneyard")
        for tile in [t for hand_tiles in dealt for t in hand_tiles] + boneyard:
            if tile in seen:
                raise RecordError(f"{tile} is dealt twice")
            seen.add(tile)
        missing = [str(t) for t in full_set(self.rules.max_pip) if t not in seen]
        if missing:
            raise RecordError(f"the deal and boneyard lack {len(missing)} tiles of the set: "
                              f"{', '.join(missing)}")
        match.start_hand(dealt, boneyard, replace=replace)
        self._replacing = False
        index = match.hand_index
        findings = [match.hand.void] if match.hand is not None and match.hand.void else []
        self.deals[index] = {
            "dealt": {n: [str(t) for t in h] for n, h in zip(self.players, dealt, strict=True)},
            "boneyard": [str(t) for t in boneyard],
        }
        return Verdict(ok=True, findings=findings)

    def _tiles(self, value: object, where: str) -> list[Tile]:
        if not isinstance(value, list):
            raise RecordError(f"{where} must be a list of tiles, found {value!r}")
        return [Tile.parse(text, self.rules.max_pip) for text in value]

    def _redeal(self) -> Verdict:
        match = self.match
        hand = match.hand
        if hand is None or match.hand_finished or hand.moves:
            raise IllegalMoveError("a hand may be re-dealt only before its lead")
        if self.knowledge == "table":
            match.start_hand(replace=True)
        else:
            self._replacing = True
        return Verdict(ok=True)

    def _reveal(self, shown: object) -> Verdict:
        match = self.match
        hand = match.hand
        if not isinstance(shown, Mapping):
            raise RecordError(f"'reveal' must map players to their tiles, found {shown!r}")
        if hand is None or not (hand.over or match.hand_finished):
            raise IllegalMoveError("nothing to reveal: the hand is not over")
        revealed: list[list[Tile]] = [[] for _ in self.players]
        # A seat's hand may be shown under its player's name or its substitute's.
        shown_seats: set[int] = set()
        for name, tiles in shown.items():
            seat = self.seat_of(name)
            revealed[seat] = self._tiles(tiles, f"reveal.{name}")
            shown_seats.add(seat)
        known = hand.hands
        if known is not None or match.hand_finished:
            if known is not None:
                findings = [f"{self.players[s]} revealed {', '.join(map(str, sorted(revealed[s])))} "
                            f"but holds {', '.join(map(str, known[s]))}"
                            for s in range(len(self.players)) if s in shown_seats
                            and sorted(revealed[s]) != known[s]]
            else:
                findings = audit(hand, revealed)
            return Verdict(ok=True, findings=findings, match_result=match.result() if match.over else None)
        missing = [self.players[s] for s in range(len(self.players))
                   if hand.counts[s] > 0 and s not in shown_seats]
        if missing:
            raise IllegalMoveError(f"the reveal lacks the hand of {', '.join(missing)}")
        findings = audit(hand, revealed)
        before = len(match.results)
        match.reveal(revealed)
        verdict = self._verdict(0, before, findings)
        if not match.over:
            match.start_hand()
        return verdict

    def _table_event(self, action: str, event: Mapping[str, Any]) -> Verdict:
        match = self.match
        if action in ("away", "back", "timeout", "leave", "substitute"):
            seat = self.seat_of(event["player"])
            if action == "substitute":
                name = event["substitute"]
                if not isinstance(name, str) or not name or name in self.aliases:
                    raise RecordError(f"'substitute' must be a new player's name, found {name!r}")
                self.aliases[name] = seat
                self.substitutes[self.players[seat]] = name
                match.seated[seat] = name
            elif action == "timeout" and self.rules.timeout_loses:
                match.forfeit(seat, "ran out of time")
            elif action == "leave" and not self.rules.substitutes:
                match.forfeit(seat, "left the match")
            elif action == "leave":
                # The seat stays empty until a substitute takes it; a leaver never comes back.
                self.leavers.add(str(event["player"]))
                match.seated[seat] = None
            elif action == "back" and event["player"] not in self.leavers:
                # A player who dropped out retakes the seat from their substitute (RULES.md).
                match.seated[seat] = str(event["player"])
        return Verdict(ok=True, match_result=match.result() if match.over and action in
                       ("timeout", "leave") else None)

    # -- reports -----------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The state as a JSON-able document (the MQTT `state`)."""
        match = self.match
        hand = match.hand
        state: dict[str, Any] = {
            "rules": self.rules.name,
            "options": dict(self.rules.options),
            "players": list(self.players),
            "teams": self.teams,
            "substitutes": dict(self.substitutes),
            "knowledge": self.knowledge,
            "hand": match.hand_index + 1,
            "turn": self.turn,
            "open_ends": self.open_ends,
            "count": hand.line.count() if hand is not None else 0,
            "table": [p.as_dict() for p in hand.line.placed] if hand is not None else [],
            "boneyard": hand.boneyard_count if hand is not None else None,
            "hand_sizes": dict(zip(self.players, hand.counts, strict=True)) if hand is not None else {},
            "hand_over": bool(hand is not None and hand.over),
            "awaiting": self._awaiting(),
            "last_hand_result": self.last_hand_result,
            "match": match.result(),
        }
        if self.rules.penalty_match:
            state["penalties"] = dict(zip(self.players, match.penalties, strict=True))
        else:
            state["scores"] = {name: number(v)
                               for name, v in zip(match.side_names, match.scores, strict=True)}
        if hand is not None:
            state["analysis"] = analyse(hand)
        return state

    def _awaiting(self) -> str | None:
        match, hand = self.match, self.match.hand
        if match.over:
            return None
        if hand is None or match.hand_finished or (self._replacing and self.knowledge == "full"):
            return "deal"
        if hand.over:
            return "reveal"
        return "move"

    def record(self) -> dict[str, Any]:
        """The `domino-record` v1 document of the accepted events so far (`referee.record` reads it)."""
        match = self.match
        last = max([hand_no for hand_no, _ in self.accepted] + [match.hand_index, 0])
        hands: list[dict[str, Any]] = []
        for index in range(last + 1):
            entry: dict[str, Any] = {}
            leader = None
            if index < len(match.results):
                leader = match.results[index]["leader"]
            elif index == match.hand_index and match.hand is not None and match.hand.lead_seat is not None:
                leader = self.players[match.hand.lead_seat]
            if leader is not None:
                entry["leader"] = leader
            if index in self.deals:
                entry.update(self.deals[index])
            entry["events"] = [dict(event) for hand_no, event in self.accepted
                               if hand_no == index and "deal" not in event]
            hands.append(entry)
        while len(hands) > 1 and not hands[-1]["events"] and "dealt" not in hands[-1]:
            hands.pop()
        document: dict[str, Any] = {
            "format": FORMAT, "version": VERSION,
            "rules": self.rules.name, "options": dict(self.rules.options),
            "players": list(self.players),
        }
        if self.teams:
            document["teams"] = [list(team) for team in self.teams]
        document["hands"] = hands
        return document
