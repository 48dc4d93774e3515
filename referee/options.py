"""The options of each rule set, with the defaults RULES.md decides.

A club's house rule is one key in `[table.options]` of the table's TOML file, or in a game
record's `options`. Each rule set names its tuple here as its `RuleSet.option_fields`, and
`referee.rules.validate_options` checks both places with the same messages.
"""

from __future__ import annotations

from referee.fields import Field


def _max_pip() -> Field:
    return Field("max_pip", int, 6, "highest pip value of the set (6, 9, 12)", minimum=6, maximum=12)


def _hand_size() -> Field:
    return Field(
        "hand_size", int, None, "tiles dealt to each player; empty = the rule set's default",
        minimum=1, maximum=21, nullable=True,
    )


def _points_per_five() -> Field:
    return Field(
        "points_per_five", bool, False,
        "score 1 point per 5 instead of the full multiple (going-out bonus rounded first)",
    )


def _blocked_tie() -> Field:
    return Field(
        "blocked_tie", str, "split",
        "blocked hand with three players and two tied lowest: split the third's pips, or nobody scores",
        choices=("split", "nobody"),
    )


def _no_double_lead() -> Field:
    return Field(
        "no_double", str, "redeal", "when nobody holds a double: redeal, or the heaviest tile leads",
        choices=("redeal", "heaviest"),
    )


TURKISH_OPTIONS: tuple[Field, ...] = (
    _max_pip(),
    Field("hand_size", int, 7, "tiles dealt to each player (the source allows 5)", choices=(5, 7)),
    Field("hands", int, 11, "hands in a match (N)", minimum=1, maximum=99),
    Field("double_blank", int, 20, "penalty points of the double blank (ayaz)", minimum=0, maximum=100),
    Field("lead", str, "rotate", "who leads a hand: the seat after last hand's leader",
          choices=("rotate",)),
    Field("leave_penalty_hands", int, 2, "a leaver loses this many times N", minimum=0, maximum=10),
    Field("substitute_gain_limit", int, 3000,
          "a substitute above this many ledger points gains nothing", minimum=0),
    Field("bar_abandonments", int, 3, "abandonments within the window that bar a player",
          minimum=1, maximum=100),
    Field("bar_window_days", float, 7.0, "window for counting abandonments, in days", minimum=0),
    Field("bar_hours", float, 2.0, "how long a habitual leaver is barred, in hours", minimum=0),
)

ITALIAN_OPTIONS: tuple[Field, ...] = (
    _max_pip(),
    _hand_size(),
    Field("target", int, 50, "points that win the match (any positive whole number)", minimum=1),
    _no_double_lead(),
    Field("max_absences", int, 2, "times a player may step away per match", minimum=0, maximum=10),
    Field("absence_seconds", float, 180.0, "time allowed to come back", minimum=1),
    Field("absence_warning_seconds", float, 30.0, "last seconds of an absence shown", minimum=0),
)

MUGGINS_OPTIONS: tuple[Field, ...] = (
    _max_pip(),
    _hand_size(),
    # The source's 150, 200 and 250 are examples; a club may play to any multiple of 5.
    Field("target", int, 200,
          "points that win the game (a multiple of 5; the source plays 150, 200, 250)",
          minimum=5, multiple_of=5),
    _points_per_five(),
    _no_double_lead(),
    Field("reserve", bool, False, "the last boneyard tiles (2 with two players, else 1) stay"),
    Field("must_play", bool, True, "a player able to play must play"),
    Field("play_again", bool, False, "after a scoring play or a double the same player plays again"),
    Field("no_scoring_domino", bool, False,
          "a player may not go out with a scoring tile or a double"),
    _blocked_tie(),
)

ALL_FIVES_OPTIONS: tuple[Field, ...] = (
    _max_pip(),
    _hand_size(),
    Field("target", int, 250,
          "points that win the game (a multiple of 5; the source plays 100, 250, 500, 1000)",
          minimum=5, multiple_of=5),
    _points_per_five(),
    _no_double_lead(),
    Field("round_going_out", bool, False, "round the going-out bonus to the nearest 5"),
    Field("blocked", str, "nobody", "blocked hand: nobody scores, or score it as in muggins",
          choices=("nobody", "muggins")),
    Field("stuck_ends_hand", bool, False,
          "the source's literal rule: a player who cannot play with an empty boneyard ends the hand"),
    _blocked_tie(),
)
