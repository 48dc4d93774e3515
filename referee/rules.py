"""The four rule sets as small classes over one hand/match state machine.

As python-chess's variants do, each class sets class-level facts (spinner, per-play scoring,
kind of match) and overrides only the hooks where its rules differ; `find_rules(name)` finds one.
Scores are `Fraction`s so shared places and split blocks keep exact fractions (edge cases 9, 12).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cached_property
from types import MappingProxyType
from typing import Any, ClassVar

from referee.fields import Field, SettingError, validate_section
from referee.options import ALL_FIVES_OPTIONS, ITALIAN_OPTIONS, MUGGINS_OPTIONS, TURKISH_OPTIONS
from referee.tiles import TILE_AT, Tile

HIGHEST_DOUBLE = -1  # lead policy: the holder of the highest double leads it (edge case 3)


def round_to_five(pips: int) -> int:
    """Nearest multiple of 5, halves up: 1-2 → 0, 3-7 → 5, 8-12 → 10."""
    return (pips + 2) // 5 * 5


class RuleSet:
    """Base rule set: a block/draw game with no per-play scoring.

    Every difference between the rule sets is a class attribute or a hook method here, overridden
    by the rule set's subclass; nothing outside this module tests a rule set's name.
    """

    name: ClassVar[str] = ""
    option_fields: ClassVar[tuple[Field, ...]] = ()   # the options a table or record may set
    spinner: ClassVar[bool] = False         # the first double is a spinner (four arms)
    fives: ClassVar[bool] = False           # plays score the open ends' multiples of five
    penalty_match: ClassVar[bool] = False   # N hands ranked by penalty, not a race to a target
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    default_players: ClassVar[int] = 4      # seats when a command is not told how many
    # What sets a match's length: the number of "hands" played, or the "target" to reach.
    length_option: ClassVar[str] = "target"
    # A short match for a demonstration: its players and the options that keep it short.
    short_match_players: ClassVar[int] = 4
    short_match_options: ClassVar[Mapping[str, object]] = MappingProxyType({})

    # -- time and people at the table (referee/table/) ------------------------------------------
    # The move clock that a table's `[clock] mode = "rules"` means.
    own_clock: ClassVar[str] = "none"
    # A `timeout` event loses the match by itself (the rule set's own clock rule).
    timeout_loses: ClassVar[bool] = False
    # An emptied seat is taken by a substitute while play waits for Continue, and `away` is an
    # involuntary drop; without this, leaving loses the match and `away` is a timed absence.
    substitutes: ClassVar[bool] = False
    # A finished match books place points in the club ledger (else it counts matches played).
    ledger_points: ClassVar[bool] = False

    @classmethod
    def checked_options(cls, options: Mapping[str, object], prefix: str = "options.") -> dict[str, Any]:
        """The complete option set, defaults filled in; raise `SettingError` naming the key."""
        return validate_section(cls.option_fields, options, prefix)

    @classmethod
    def players_allowed(cls) -> str:
        """The allowed number of players, as a message says it: "2", "2 to 4"."""
        return f"{cls.min_players}" if cls.min_players == cls.max_players else \
            f"{cls.min_players} to {cls.max_players}"

    def __init__(self, options: Mapping[str, object] | None = None) -> None:
        self.options: dict[str, Any] = self.checked_options(options or {})
        self.max_pip: int = self.options["max_pip"]
        self.must_play: bool = bool(self.options.get("must_play", True))
        self.play_again: bool = bool(self.options.get("play_again", False))
        self.no_scoring_domino: bool = bool(self.options.get("no_scoring_domino", False))
        self.stuck_ends_hand: bool = bool(self.options.get("stuck_ends_hand", False))
        self.per_five: bool = bool(self.options.get("points_per_five", False))
        self.heaviest_leads: bool = self.options.get("no_double", "redeal") == "heaviest"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.options!r})"

    # -- seating and dealing ---------------------------------------------------------------------
    def check_players(self, players: int, partnerships: bool) -> None:
        if not self.min_players <= players <= self.max_players:
            raise SettingError("players", f"{self.name} is played by {self.players_allowed()} players, "
                                          f"found {players}")
        if partnerships and players != 4:
            raise SettingError("teams", f"partnerships need 4 players, found {players}")
        needed = players * self.hand_size(players)
        total = (self.max_pip + 1) * (self.max_pip + 2) // 2
        if needed > total:
            raise SettingError("options.hand_size", f"{players} hands of {self.hand_size(players)} need "
                               f"{needed} tiles but the set has {total}")

    def default_hand_size(self, players: int) -> int:
        return 7

    def hand_size(self, players: int) -> int:
        size = self.options.get("hand_size")
        return int(size) if size is not None else self.default_hand_size(players)

    def reserve(self, players: int) -> int:
        """Boneyard tiles that may never be drawn."""
        return 0

    def tile_value(self, tile: Tile) -> int:
        """Pips a tile left in a hand counts (the double blank counts 0 except in `turkish`)."""
        return tile.pips

    @cached_property
    def tile_values(self) -> tuple[int, ...]:
        """`tile_value` of every tile, by tile index (for counting a hand's bitmask)."""
        return tuple(self.tile_value(tile) for tile in TILE_AT)

    # -- leads -------------------------------------------------------------------------------------
    def lead_seat(self, hand_index: int, players: int, previous_leader: int | None,
                  previous_winner: int | None) -> int:
        """The seat that leads, or HIGHEST_DOUBLE; `previous_winner` is None after a block."""
        if hand_index == 0 or previous_winner is None:
            return HIGHEST_DOUBLE
        return previous_winner

    # -- scoring -----------------------------------------------------------------------------------
    def play_points(self, count: int) -> int:
        """Points a play scores from the count of the open ends."""
        if not self.fives or count <= 0 or count % 5:
            return 0
        return count // 5 if self.per_five else count

    def bonus(self, pips: int, rounded: bool = True) -> Fraction:
        if self.per_five:
            return Fraction(round_to_five(pips), 5)
        return Fraction(round_to_five(pips) if rounded else pips)

    def hand_points(self, out_seat: int | None, pips: Sequence[int], sides: Sequence[int],
                    side_count: int) -> list[Fraction]:
        """Points per side at the end of a hand; `out_seat` None means the hand was blocked."""
        return [Fraction(0)] * side_count

    def going_out_points(self, out_seat: int, pips: Sequence[int], sides: Sequence[int],
                         side_count: int, rounded: bool) -> list[Fraction]:
        winner = sides[out_seat]
        opponents = sum(p for seat, p in enumerate(pips) if sides[seat] != winner)
        points = [Fraction(0)] * side_count
        points[winner] = self.bonus(opponents, rounded)
        return points

    def blocked_lowest_scores(self, pips: Sequence[int], sides: Sequence[int],
                              side_count: int) -> list[Fraction]:
        """Muggins' blocked hand (edge case 9): the lowest side scores the others' pips, rounded."""
        totals = [0] * side_count
        for seat, p in enumerate(pips):
            totals[sides[seat]] += p
        points = [Fraction(0)] * side_count
        lowest = min(totals)
        low_sides = [s for s, total in enumerate(totals) if total == lowest]
        if len(low_sides) == 1:
            points[low_sides[0]] = self.bonus(sum(totals) - lowest)
        elif (side_count == 3 and len(low_sides) == 2
              and self.options.get("blocked_tie", "split") == "split"):
            third = sum(totals) - 2 * lowest
            share = self.bonus(third) / 2
            for side in low_sides:
                points[side] = share
        return points

    # -- matches -------------------------------------------------------------------------------
    @property
    def target(self) -> int:
        return int(self.options.get("target", 0))

    def place_points(self, players: int) -> list[int]:
        """Points for 1st, 2nd, ... place (`turkish`: +N, +⌊N/2⌋, −⌊N/2⌋, −N with four)."""
        n = int(self.options.get("hands", 0))
        if players == 4:
            return [n, n // 2, -(n // 2), -n]
        if players == 3:
            return [n, 0, -n]
        return [n, -n]

    def tie_break_hands(self, players: int, partnerships: bool) -> int:
        return 4 if partnerships else players


class Turkish(RuleSet):
    """Club block/draw game: penalties per hand, rank points after N hands."""

    name = "turkish"
    option_fields = TURKISH_OPTIONS
    penalty_match = True
    length_option = "hands"
    short_match_options = MappingProxyType({"hands": 1})
    substitutes = True
    ledger_points = True

    def default_hand_size(self, players: int) -> int:
        return int(self.options["hand_size"])

    def tile_value(self, tile: Tile) -> int:
        if tile.low == 0 and tile.high == 0:
            return int(self.options["double_blank"])
        return tile.pips

    def lead_seat(self, hand_index: int, players: int, previous_leader: int | None,
                  previous_winner: int | None) -> int:
        return hand_index % players

class Italian(RuleSet):
    """Two-player draw game; the hand's low count scores the difference; match to 50."""

    name = "italian"
    option_fields = ITALIAN_OPTIONS
    min_players = max_players = default_players = short_match_players = 2
    short_match_options = MappingProxyType({"target": 20})
    own_clock = "italian"
    timeout_loses = True

    def lead_seat(self, hand_index: int, players: int, previous_leader: int | None,
                  previous_winner: int | None) -> int:
        return HIGHEST_DOUBLE

    def hand_points(self, out_seat: int | None, pips: Sequence[int], sides: Sequence[int],
                    side_count: int) -> list[Fraction]:
        points = [Fraction(0)] * side_count
        a, b = pips[0], pips[1]
        if a != b:
            points[0 if a < b else 1] = Fraction(abs(a - b))
        return points


class Muggins(RuleSet):
    """Multiples of five on every play, no spinner; game to 200."""

    name = "muggins"
    option_fields = MUGGINS_OPTIONS
    fives = True
    short_match_options = MappingProxyType({"target": 150})

    def default_hand_size(self, players: int) -> int:
        return 7 if players == 2 else 5

    def reserve(self, players: int) -> int:
        if not self.options["reserve"]:
            return 0
        return 2 if players == 2 else 1

    def hand_points(self, out_seat: int | None, pips: Sequence[int], sides: Sequence[int],
                    side_count: int) -> list[Fraction]:
        if out_seat is not None:
            return self.going_out_points(out_seat, pips, sides, side_count, rounded=True)
        return self.blocked_lowest_scores(pips, sides, side_count)


class AllFives(RuleSet):
    """All Fives with a spinner; game to 250."""

    name = "all-fives"
    option_fields = ALL_FIVES_OPTIONS
    spinner = True
    fives = True
    short_match_players = 2
    short_match_options = MappingProxyType({"target": 100})

    def default_hand_size(self, players: int) -> int:
        return {2: 7, 3: 6}.get(players, 5)

    def hand_points(self, out_seat: int | None, pips: Sequence[int], sides: Sequence[int],
                    side_count: int) -> list[Fraction]:
        if out_seat is not None:
            rounded = bool(self.options["round_going_out"])
            return self.going_out_points(out_seat, pips, sides, side_count, rounded=rounded)
        if self.options["blocked"] == "muggins":
            return self.blocked_lowest_scores(pips, sides, side_count)
        return [Fraction(0)] * side_count


RULE_SETS: dict[str, type[RuleSet]] = {cls.name: cls for cls in (Turkish, Italian, Muggins, AllFives)}
RULE_SET_NAMES: tuple[str, ...] = tuple(RULE_SETS)


def find_rules(name: str) -> type[RuleSet]:
    """The rule-set class called `name`; raise `SettingError` listing the known names."""
    try:
        return RULE_SETS[name]
    except (KeyError, TypeError):
        raise SettingError("rules", f"found {name!r}, allowed one of {', '.join(RULE_SETS)}") from None


def validate_options(rules: str, options: Mapping[str, object], prefix: str = "options.") -> dict[str, Any]:
    """The complete option set for the rule set called `rules`; raise `SettingError` naming the key."""
    return find_rules(rules).checked_options(options, prefix)
