"""Differential test against the PyPI `dominoes` engine on the game both implement.

`dominoes.Game` is 4 players, all 28 tiles dealt, no boneyard, block play, the first player
leading any tile: our `turkish` hand with 4 players. Both engines get the same deals; at every
turn the legal plays must agree, and each game must end the same way.
"""

from __future__ import annotations

import random

import dominoes

from referee.hand import BLOCKED, OUT, HandState
from referee.moves import PASS, PLAY, Move
from referee.rules import find_rules
from referee.tiles import Tile, full_set

GAMES = 1000


def ours_as_theirs(hand: HandState) -> set[tuple[Tile, bool]]:
    """Our legal plays in `dominoes`' terms: (tile, left?), the right end dropped when both show the same."""
    plays = set()
    values = hand.line.values
    for move in hand.legal_moves():
        assert move.kind == PLAY and move.tile is not None
        if move.end is None:
            plays.add((move.tile, True))
        elif move.end == 0 or values[0] != values[1]:
            plays.add((move.tile, move.end == 0))
    return plays


def test_same_deals_same_legal_plays_same_endings() -> None:
    rng = random.Random(20261129)
    rules = find_rules("turkish")({"double_blank": 0})
    endings = {OUT: 0, BLOCKED: 0}
    for _ in range(GAMES):
        tiles = list(full_set(6))
        rng.shuffle(tiles)
        hands = [tiles[i:i + 7] for i in range(0, 28, 7)]
        their_hands = [dominoes.Hand([dominoes.Domino(t.low, t.high) for t in hand]) for hand in hands]
        theirs = dominoes.Game(dominoes.Board(), their_hands, [], 0,
                               tuple((d, True) for d in their_hands[0]), 0, None)
        ours = HandState(rules, ["a", "b", "c", "d"], lead=0, dealt=hands, boneyard=[])
        while theirs.result is None:
            while ours.turn != theirs.turn:  # `dominoes` skips a player who cannot play; we record a pass
                assert ours.turn is not None
                assert ours.legal_moves() == [Move(PASS, ours.turn)]
                ours.play(Move(PASS, ours.turn))
            expected = {(Tile(d.first, d.second), left) for d, left in theirs.valid_moves}
            assert ours_as_theirs(ours) == expected
            domino, left = rng.choice(theirs.valid_moves)
            tile = Tile(domino.first, domino.second)
            ours.play(Move(PLAY, ours.turn, tile, None if not ours.line.placed else (0 if left else 1)))
            theirs.make_move(domino, left)
        assert ours.status == (OUT if theirs.result.won else BLOCKED)
        if theirs.result.won:  # their points: every pip left in the other hands
            assert ours.out_seat == theirs.result.player
            assert sum(ours.pips(seat) for seat in range(4)) == abs(theirs.result.points)
        endings[ours.status] += 1
    assert endings[OUT] > 0 and endings[BLOCKED] > 0
