"""Engine players for self-play: `random` and `greedy` (best-scoring, then heaviest tile)."""

from __future__ import annotations

import random
from typing import Protocol

from referee.hand import HandState
from referee.moves import PLAY, Move


class Strategy(Protocol):
    name: str

    def choose(self, hand: HandState, rng: random.Random) -> Move: ...


class RandomPlayer:
    """Any legal move, uniformly."""

    name = "random"

    def choose(self, hand: HandState, rng: random.Random) -> Move:
        moves = hand.legal_moves()
        return moves[0] if len(moves) == 1 else rng.choice(moves)


class GreedyPlayer:
    """The play scoring most points (fives rule sets), then the heaviest tile; draws only when stuck."""

    name = "greedy"

    def choose(self, hand: HandState, rng: random.Random) -> Move:
        moves = hand.legal_moves()
        plays = [move for move in moves if move.kind == PLAY]
        if not plays:
            return moves[0]
        if len(plays) == 1:
            return plays[0]
        line, rules = hand.line, hand.rules
        best: Move = plays[0]
        best_key = (-1, -1)
        for move in plays:
            assert move.tile is not None
            points = 0
            if rules.fives and move.end is not None:
                line.place(move.tile, move.end)
                points = rules.play_points(line.count())
                line.unplace()
            key = (points, rules.tile_value(move.tile))
            if key > best_key:
                best, best_key = move, key
        return best


STRATEGIES: dict[str, type[RandomPlayer] | type[GreedyPlayer]] = {
    "random": RandomPlayer, "greedy": GreedyPlayer,
}


def find_strategy(name: str) -> Strategy:
    from referee.fields import SettingError

    try:
        return STRATEGIES[name]()
    except KeyError:
        raise SettingError("strategy", f"found {name!r}, allowed one of {', '.join(STRATEGIES)}") from None
