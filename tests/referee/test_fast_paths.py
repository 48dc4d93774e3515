"""The engine's fast paths against plain restatements of the rules.

`legal_moves` answers from shared, cached move tuples and `push` takes a short path for the common
play; these tests recompute the same answers the slow, obvious way at every turn of random hands
(every rule set and option), and check that what callers receive is theirs to keep.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import referee.hand as hand_module
from referee.hand import HandState
from referee.line import CLOSED, LineOfPlay, Placement
from referee.match import deal
from referee.moves import DRAW, PASS, PLAY, Move
from referee.rules import RuleSet, find_rules
from referee.tiles import Tile, full_set
from tests.referee.conftest import rule_setups
from tests.referee.test_properties import examples

NAMES = ["A", "B", "C", "D"]


def listed_by_rules(hand: HandState) -> list[Move]:
    """The legal moves in the engine's order (ends left, right, up, down; tiles low to high)."""
    rules = hand.rules
    seat = hand.turn
    assert seat is not None and hand.hands is not None
    held = sorted(hand.hands[seat])
    line = hand.line
    if not line.placed:
        return [Move(PLAY, seat, t) for t in held if hand.lead_tile is None or t == hand.lead_tile]

    def forbidden(tile: Tile, end: int) -> bool:
        if not (rules.no_scoring_domino and len(held) == 1):
            return False
        if tile.is_double:
            return True
        line.place(tile, end)
        scoring = rules.play_points(line.count()) > 0
        line.unplace()
        return scoring

    candidates = [hand.drawn_playable] if hand.drawn_playable is not None else held
    moves = [Move(PLAY, seat, tile, end) for end, value in enumerate(line.values) if value != CLOSED
             for tile in candidates if tile.has(value) and not forbidden(tile, end)]
    may_draw = hand.boneyard_count > hand.reserve and hand.drawn_playable is None
    if may_draw and (not moves or not rules.must_play):
        moves.append(Move(DRAW, seat))
    if not moves:
        moves.append(Move(PASS, seat))
    return moves


def play_out(rules: RuleSet, players: int, rng: random.Random, check: Any) -> HandState:
    dealt, boneyard = deal(rules, players, rng)
    hand = HandState(rules, NAMES[:players], lead=rules.lead_seat(0, players, None, None),
                     dealt=dealt, boneyard=boneyard)
    while hand.status is None and not hand.void:
        check(hand)
        hand.push(rng.choice(hand.legal_moves()))
    return hand


@settings(max_examples=examples(40), deadline=None)
@given(setup=rule_setups(), seed=st.integers(0, 2**32 - 1))
def test_legal_moves_are_exactly_the_rules_listing(setup: tuple[str, int, dict[str, Any]], seed: int) -> None:
    name, players, options = setup
    rng = random.Random(seed)

    def check(hand: HandState) -> None:
        assert hand.legal_moves() == listed_by_rules(hand), (hand.line.open_ends(), hand.hands)
        if rng.random() < 0.1:  # taking a move back and making it again lists the same moves
            move = rng.choice(hand.legal_moves())
            before = hand.legal_moves()
            hand.push(move)
            hand.pop()
            assert hand.legal_moves() == before

    rules = find_rules(name)(options)
    hand = play_out(rules, players, rng, check)
    assert hand.legal_moves() == []
    assert hand.hands is not None
    for seat, held in enumerate(hand.hands):  # counted from the bitmask and the rules' value table
        assert hand.pips(seat) == sum(rules.tile_value(tile) for tile in held)


def test_the_double_blank_counts_as_turkish_options_say() -> None:
    for double_blank in (0, 20):
        rules = find_rules("turkish")({"double_blank": double_blank})
        hand = HandState(rules, NAMES, lead=0, dealt=[[Tile(0, 0), Tile(2, 3)], [Tile(1, 1)], [], []],
                         boneyard=[])
        assert hand.pips(0) == double_blank + 5 and hand.pips(1) == 2 and hand.pips(2) == 0


def test_each_call_returns_a_list_of_its_own() -> None:
    rules = find_rules("turkish")()
    rng = random.Random(7)

    def check(hand: HandState) -> None:
        first = hand.legal_moves()
        expected = list(first)
        first.append(Move(PASS, 3))
        first.reverse()
        assert hand.legal_moves() == expected

    for _ in range(20):
        play_out(rules, 4, rng, check)


def test_a_cleared_play_cache_gives_the_same_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache of per-end plays empties itself at its bound; answers do not change."""
    monkeypatch.setattr(hand_module, "_END_PLAYS_LIMIT", 3)
    caches = [known for seat in hand_module._END_PLAYS for known in seat]
    for known in caches:
        known.clear()
    rules = find_rules("all-fives")()
    rng = random.Random(11)

    def check(hand: HandState) -> None:
        assert hand.legal_moves() == listed_by_rules(hand)
        assert all(len(known) <= 3 for known in caches)

    for _ in range(20):
        play_out(rules, 4, rng, check)
    for known in caches:
        known.clear()


@pytest.mark.parametrize("spinner", [False, True])
def test_shared_placements_are_the_placements_made(spinner: bool) -> None:
    """Every placement on the table says what was joined and shown, and what it covered."""
    rng = random.Random(5)
    for _ in range(200):
        line = LineOfPlay(spinner=spinner, max_pip=6)
        tiles = list(full_set(6))
        rng.shuffle(tiles)
        line.place_lead(tiles.pop())
        for tile in tiles:
            ends = line.fitting_ends(tile)
            if not ends:
                continue
            end = rng.choice(ends)
            joined, covered = line.values[end], line.end_double[end]
            placement = line.place(tile, end)
            assert placement == Placement(tile, end, joined, tile.other(joined), covered, placement.change)
            assert line.placed[-1] is placement and line.values[end] == tile.other(joined)
        on_table = [p.tile for p in line.placed]
        assert line.tiles_with == [sum(1 for t in on_table if t.has(v)) for v in range(7)]
        while line.placed:
            line.unplace()
        assert line.open_mask == 0 and line.mask == 0 and line.tiles_with == [0] * 7


def test_nothing_to_list_in_a_void_deal_or_a_finished_hand() -> None:
    rules = find_rules("muggins")()  # the highest double leads; no double dealt means a re-deal
    no_doubles = [t for t in full_set(6) if not t.is_double]
    hand = HandState(rules, NAMES[:2], lead=rules.lead_seat(0, 2, None, None),
                     dealt=[no_doubles[:7], no_doubles[7:14]], boneyard=no_doubles[14:])
    assert hand.void and hand.legal_moves() == []
    blocked = HandState(find_rules("turkish")(), NAMES[:2], lead=0,
                        dealt=[[Tile(0, 0), Tile(5, 5)], [Tile(1, 1), Tile(6, 6)]], boneyard=[])
    blocked.push(blocked.legal_moves()[0])
    assert blocked.status == "blocked" and blocked.legal_moves() == []
