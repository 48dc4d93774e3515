"""Self-play: whole matches between engine players, dealt from a seeded shuffle, as records."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from referee.events import FORMAT, VERSION
from referee.line import END_NAMES
from referee.match import Match, deal
from referee.moves import DRAW, PASS, Move
from referee.players import Strategy
from referee.rules import RuleSet

DEFAULT_NAMES: tuple[str, ...] = ("Ayşe", "Burak", "Cem", "Deniz")
MAX_HANDS = 10_000  # a safety stop: every rule set's match ends long before


def event_of(move: Move, names: Sequence[str]) -> dict[str, Any]:
    """The record event of a move as played (draws name the tile drawn)."""
    player = names[move.seat]
    if move.kind == PASS:
        return {"player": player, "pass": True}
    if move.kind == DRAW:
        return {"player": player, "draw": str(move.tile) if move.tile is not None else 1}
    event: dict[str, Any] = {"player": player, "play": str(move.tile)}
    if move.end is not None:
        event["end"] = END_NAMES[move.end]
    return event


def simulate_match(rules: RuleSet, names: Sequence[str], strategies: Sequence[Strategy],
                   rng: random.Random, teams: Sequence[Sequence[str]] | None = None,
                   with_record: bool = True) -> tuple[Match, dict[str, Any] | None]:
    """Play one match; return it and (unless `with_record` is false) its record."""
    match = Match(rules, names, teams)
    hands: list[dict[str, Any]] = []
    players = len(names)
    while not match.over and len(match.results) < MAX_HANDS:
        dealt, boneyard = deal(rules, players, rng)
        hand = match.start_hand(dealt, boneyard)
        while not hand.over and not match.over:
            seat = hand.turn
            assert seat is not None
            match.apply(strategies[seat].choose(hand, rng))
        if with_record:
            hands.append({
                "leader": names[hand.lead_seat] if hand.lead_seat is not None else None,
                "dealt": {name: [str(t) for t in tiles] for name, tiles in zip(names, dealt, strict=True)},
                "boneyard": [str(t) for t in boneyard],
                "events": [event_of(move, names) for move in hand.moves],
            })
    if not with_record:
        return match, None
    record: dict[str, Any] = {"format": FORMAT, "version": VERSION, "rules": rules.name,
                              "options": dict(rules.options), "players": list(names)}
    if teams:
        record["teams"] = [list(team) for team in teams]
    record["hands"] = hands
    return match, record
