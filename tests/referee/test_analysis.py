"""Spectator analysis: a double is dead only if it can never be played (issue 16)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.analysis import analyse
from referee.match import Match, deal
from referee.rules import find_rules
from referee.tiles import Tile


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["turkish", "muggins", "all-fives"]), st.integers(2, 4), st.integers(0, 10**6))
def test_a_dead_double_is_never_played_and_a_live_one_has_an_end(rules_name: str, players: int,
                                                                  seed: int) -> None:
    rules = find_rules(rules_name)({})
    rng = random.Random(seed)
    dealt, boneyard = deal(rules, players, rng)
    hand = Match(rules, [f"P{i}" for i in range(players)]).start_hand(dealt, boneyard)
    dead_seen: set[Tile] = set()
    while hand.status is None and not hand.void:
        analysis = analyse(hand)
        dead = {Tile.parse(text) for text in analysis["dead_doubles"]}
        # Once dead, always dead: nothing brings a number back to the ends.
        assert dead_seen <= dead
        dead_seen = dead
        ends = set(hand.line.open_ends().values())
        for v in range(rules.max_pip + 1):
            double = Tile(v, v)
            others_down = hand.line.tiles_with[v] == rules.max_pip
            if double not in hand.line and others_down:
                # All other v tiles down: dead exactly when no end shows v.
                assert (double in dead) == (v not in ends), (double, ends)
        move = rng.choice(hand.legal_moves())
        assert move.tile not in dead, f"{move.tile} was reported dead but is played"
        hand.play(move)
