"""RULES.md's worked examples and edge cases, each checked directly on the engine's parts."""

from __future__ import annotations

from fractions import Fraction

import pytest

from referee.errors import DominoError
from referee.hand import HandState
from referee.line import DOWN, LEFT, RIGHT, UP, LineOfPlay
from referee.match import rank_points
from referee.moves import AmbiguousMoveError, IllegalMoveError
from referee.rules import find_rules, round_to_five
from referee.tiles import Tile, TileError, full_set, parse_tiles


def t(text: str) -> Tile:
    return Tile.parse(text)


def test_tile_notation_and_value_semantics() -> None:
    assert str(Tile(5, 3)) == "3-5"
    for text in ("3-5", "5-3", "5|3", "[5|3]", " [ 5 | 3 ] "):
        assert Tile.parse(text) is Tile(3, 5)
    assert Tile.parse_oriented("5-3") == (Tile(3, 5), 5, 3)
    assert Tile(2, 2).is_double and Tile(2, 4).pips == 6
    assert {Tile(1, 2), Tile(2, 1)} == {Tile(1, 2)}
    assert Tile.parse("12-11", max_pip=12) is Tile(11, 12)
    assert len(full_set(6)) == 28 and len(full_set(9)) == 55 and len(full_set(12)) == 91
    with pytest.raises(AttributeError):
        Tile(1, 2).low = 3  # type: ignore[misc]


@pytest.mark.parametrize(("text", "why"), [
    ("3-7", "pips run from 0 to 6"), ("35", "expected two pip values"),
    ("a-b", "expected two pip values"), ("13-1", "pips run from 0 to 12"),
])
def test_tile_errors_quote_the_input(text: str, why: str) -> None:
    max_pip = 12 if text.startswith("13") else 6
    with pytest.raises(TileError, match=why) as caught:
        Tile.parse(text, max_pip)
    assert text in str(caught.value)
    assert isinstance(caught.value, DominoError) and isinstance(caught.value, ValueError)


def test_turkish_penalty_with_ayaz_is_53() -> None:
    rules = find_rules("turkish")()
    left = parse_tiles(["0-0", "1-2", "0-5", "3-3", "4-4", "5-6"])
    assert sum(rules.tile_value(tile) for tile in left) == 53
    assert find_rules("italian")().tile_value(t("0-0")) == 0  # edge case 15


def test_turkish_place_points_for_eleven_hands() -> None:
    rules = find_rules("turkish")({"hands": 11})
    assert rules.place_points(4) == [11, 5, -5, -11]
    assert rank_points([30, 10, 20, 40], rules.place_points(4)) == [-5, 11, 5, -11]
    # edge case 12: a three-way tie for 2nd-4th shares 5 - 5 - 11 = -11 exactly
    assert rank_points([10, 20, 20, 20], rules.place_points(4)) == [11] + [Fraction(-11, 3)] * 3
    assert rank_points([7, 7, 7, 7], rules.place_points(4)) == [0, 0, 0, 0]
    assert rules.place_points(3) == [11, 0, -11] and rules.place_points(2) == [11, -11]


def test_italian_scores_the_difference() -> None:
    rules = find_rules("italian")()
    assert rules.hand_points(0, [0, 11], [0, 1], 2) == [11, 0]  # A out, B holds 4-4 and 0-3
    assert rules.hand_points(None, [21, 12], [0, 1], 2) == [0, 9]  # blocked: B scores 9
    assert rules.hand_points(None, [12, 12], [0, 1], 2) == [0, 0]


def test_rounding_to_the_nearest_five() -> None:
    assert [round_to_five(p) for p in (1, 2, 3, 7, 8, 12, 13)] == [0, 0, 5, 5, 10, 10, 15]
    muggins = find_rules("muggins")()
    assert muggins.hand_points(0, [0, 13], [0, 1], 2) == [15, 0]
    assert find_rules("muggins")({"points_per_five": True}).hand_points(0, [0, 13], [0, 1], 2) == [3, 0]
    # edge case 9: two tie for lowest of three; the third's 13 -> 15 -> 7.5 each
    assert muggins.hand_points(None, [4, 4, 13], [0, 1, 2], 3) == [Fraction(15, 2), Fraction(15, 2), 0]
    assert muggins.hand_points(None, [4, 4], [0, 1], 2) == [0, 0]
    assert muggins.hand_points(None, [4, 9], [0, 1], 2) == [10, 0]  # the others' pips, not the difference


def test_counting_the_ends_with_a_spinner() -> None:
    line = LineOfPlay(spinner=True)
    line.place_lead(t("5-5"))
    assert line.count() == 10  # a led 5-5 scores 10
    line.place(t("5-3"), LEFT)
    assert line.count() == 13 and not line.spinner_open  # the bare right side still counts both halves
    line.place(t("5-6"), RIGHT)
    assert line.spinner_open and line.count() == 9  # covered: the spinner counts nothing itself
    assert line.open_ends() == {"left": 3, "right": 6, "up": 5, "down": 5}  # up/down count nothing yet
    line.place(t("5-1"), UP)
    assert line.count() == 10
    line.place(t("1-1"), UP)
    assert line.count() == 3 + 6 + 2
    line.unplace()
    line.unplace()
    line.unplace()
    assert not line.spinner_open and line.open_ends() == {"left": 3, "right": 5} and line.count() == 13


def test_arms_six_six_three_count_fifteen() -> None:
    line = LineOfPlay(spinner=True)
    line.place_lead(t("0-0"))
    line.place(t("0-6"), LEFT)
    line.place(t("0-3"), RIGHT)
    line.place(t("0-2"), DOWN)
    line.place(t("2-6"), DOWN)
    assert line.count() == 15


def test_lead_orientation_and_naming_the_end() -> None:
    rules = find_rules("turkish")()
    hand = HandState(rules, ["A", "B", "C", "D"], lead=0)
    from referee.moves import PLAY, Move

    hand.play(Move(PLAY, 0, t("3-5"), None, 5))
    assert hand.line.open_ends() == {"left": 5, "right": 3}
    with pytest.raises(IllegalMoveError, match="it is B's turn, not A's"):
        hand.play(Move(PLAY, 0, t("3-4")))
    hand.play(Move(PLAY, 1, t("3-4")))
    with pytest.raises(AmbiguousMoveError, match="4-5 fits left and right: name the end"):
        hand.play(Move(PLAY, 2, t("4-5")))
    hand.play(Move(PLAY, 2, t("4-5"), RIGHT))
    assert hand.line.open_ends() == {"left": 5, "right": 5}
    assert DOWN == 3
