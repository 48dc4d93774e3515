"""Simulated matches for the service tests: engine players, small targets so a match stays short."""

from __future__ import annotations

import random
from typing import Any

from referee.players import find_strategy
from referee.record import replay_with_referee
from referee.rules import find_rules
from referee.simulate import simulate_match

SHORT = {"turkish": {"hands": 2}, "italian": {"target": 20}, "muggins": {"target": 150},
         "all-fives": {"target": 100}}
NAMES = {"turkish": ["Ayşe", "Burak", "Cem", "Deniz"], "italian": ["Ayşe", "Burak"],
         "muggins": ["Ayşe", "Burak", "Cem"], "all-fives": ["Ayşe", "Burak"]}


def simulated_record(rules_name: str, seed: int = 7) -> dict[str, Any]:
    rules = find_rules(rules_name)(SHORT[rules_name])
    names = NAMES[rules_name]
    strategies = [find_strategy("greedy" if seat % 2 == 0 else "random") for seat in range(len(names))]
    _, record = simulate_match(rules, names, strategies, random.Random(seed))
    assert record is not None
    return record


def engine_result(record: dict[str, Any]) -> dict[str, Any]:
    """The engine's own replay of the record: final standings to compare the service against."""
    referee, result = replay_with_referee(record)
    assert referee.match.over
    snap = referee.snapshot()
    return {"scores": snap.get("scores") or snap.get("penalties"), "match": result["match"]}
