"""A deliberately tiny stand-in referee for the service's own mechanics (queue, log, resume).

It knows a plain line of play and turn order, nothing about scoring: the end-to-end tests use the
real engine. Keeping it lets the service be tested without the engine's many rules in the way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class FakeVerdict:
    ok: bool
    points: int = 0
    error: str = ""
    hand_result: Any = None
    match_result: Any = None
    findings: tuple[str, ...] = ()


@dataclass
class FakeReferee:
    players: tuple[str, ...]
    events: list[dict[str, Any]] = field(default_factory=list)

    def _state(self) -> tuple[list[str], int, tuple[int, int] | None, dict[str, int], bool]:
        line: list[str] = []
        turn = 0
        ends: tuple[int, int] | None = None
        drawn = {name: 0 for name in self.players}
        over = False
        for event in self.events:
            if "play" in event:
                a, b = (int(x) for x in event["play"].split("-"))
                if ends is None:
                    ends = (a, b)
                elif a == ends[1]:
                    ends = (ends[0], b)
                elif b == ends[1]:
                    ends = (ends[0], a)
                elif a == ends[0]:
                    ends = (b, ends[1])
                else:
                    ends = (a, ends[1])
                line.append(event["play"])
                turn = (turn + 1) % len(self.players)
            elif "pass" in event:
                turn = (turn + 1) % len(self.players)
            elif "draw" in event:
                drawn[event["player"]] += 1
            elif "reveal" in event:
                over = True
        return line, turn, ends, drawn, over

    @property
    def turn(self) -> str | None:
        _line, turn, _ends, _drawn, over = self._state()
        return None if over else self.players[turn]

    def legal_ends(self, tile: str) -> list[str]:
        a, b = (int(x) for x in tile.split("-"))
        ends = self._state()[2]
        if ends is None:
            return ["left"]
        return [name for name, value in zip(("left", "right"), ends, strict=True) if value in (a, b)]

    def apply(self, event: dict[str, Any]) -> FakeVerdict:
        if "start" in event or "continue" in event:
            self.events.append(event)
            return FakeVerdict(True)
        line, turn, _ends, _drawn, over = self._state()
        if over:
            return FakeVerdict(False, error="the match is over")
        if "player" in event and event["player"] != self.players[turn] and "play" in event:
            return FakeVerdict(False, error=f"not {event['player']}'s turn")
        if "play" in event:
            if event["play"] in line:
                return FakeVerdict(False, error=f"{event['play']} is already on the table")
            if not self.legal_ends(event["play"]):
                return FakeVerdict(False, error=f"{event['play']} does not match an open end")
            self.events.append(event)
            return FakeVerdict(True, points=len(line) + 1)
        if "reveal" in event:
            self.events.append(event)
            scores = {name: len(line) for name in self.players}
            return FakeVerdict(True, hand_result={"scores": scores}, match_result={"winner": self.players[0]})
        self.events.append(event)
        return FakeVerdict(True)

    def undo(self) -> dict[str, Any]:
        for index in range(len(self.events) - 1, -1, -1):
            if "start" not in self.events[index]:
                return self.events.pop(index)
        raise ValueError("nothing to undo")

    def snapshot(self) -> dict[str, Any]:
        line, _turn, ends, drawn, _over = self._state()
        return {"table": list(line), "open_ends": list(ends or ()), "turn": self.turn,
                "scores": {name: float(len(line)) for name in self.players}, "drawn": drawn,
                "awaiting": "reveal" if line else "move"}

    def record(self) -> dict[str, Any]:
        return {"format": "domino-record", "version": 1, "players": list(self.players),
                "hands": [{"events": list(self.events)}]}
