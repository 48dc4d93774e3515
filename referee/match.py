"""A match: hands in sequence, scores or penalties, and who wins.

Two kinds of match share this class: `turkish` plays N hands and ranks players by penalty
(`RuleSet.penalty_match`); the others play to a target, ending at once when a side reaches it
(mid-hand included, edge case 8) and playing tie-break hands when several sides tie at the top
(edge case 11). A *side* is a partnership, or one player when there are no teams.

Winners. `Match.winners` lists the winning sides: one, or in `turkish` every side tied for the
best place points (co-winners), or none when every side ties (edge case 12) or a forfeit among
more than two sides names nobody. `Match.winner` is the one winning side, None otherwise.
`Match.seated` is who sits in each seat now (a substitute in place of a leaver, None for an
empty seat), so the result can name who finished in the winning seats.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from referee.hand import BLOCKED, OUT, HandState
from referee.moves import IllegalMoveError, Move
from referee.rules import HIGHEST_DOUBLE, RuleSet
from referee.tiles import Tile, full_set


def number(value: Fraction | int) -> int | float:
    """A score as JSON shows it: an int when whole, else a float (the exact value stays a Fraction)."""
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else float(value)
    return value


def deal(rules: RuleSet, players: int, rng: random.Random) -> tuple[list[list[Tile]], list[Tile]]:
    """Shuffle the set with `rng` and deal; re-deal while the rules need a double nobody holds."""
    size = rules.hand_size(players)
    while True:
        tiles = list(full_set(rules.max_pip))
        rng.shuffle(tiles)
        hands = [tiles[i * size:(i + 1) * size] for i in range(players)]
        boneyard = tiles[players * size:]
        if rules.penalty_match or rules.heaviest_leads or any(t.is_double for h in hands for t in h):
            return hands, boneyard


def rank_points(totals: Sequence[int], place_points: Sequence[int]) -> list[Fraction]:
    """Place points by total, lowest first; tied players share their places' points exactly."""
    order = sorted(range(len(totals)), key=lambda s: totals[s])
    points = [Fraction(0)] * len(totals)
    place = 0
    while place < len(order):
        tied = [s for s in order if totals[s] == totals[order[place]]]
        share = Fraction(sum(place_points[place:place + len(tied)]), len(tied))
        for side in tied:
            points[side] = share
        place += len(tied)
    return points


class Match:
    """Scores, hands and the winner of one match; see the module docstring."""

    def __init__(self, rules: RuleSet, players: Sequence[str],
                 teams: Sequence[Sequence[str]] | None = None) -> None:
        self.rules = rules
        self.players = list(players)
        if len(set(self.players)) != len(self.players):
            raise IllegalMoveError(f"player names must differ: {self.players}")
        self.partnerships = bool(teams)
        rules.check_players(len(self.players), self.partnerships)
        if teams:
            self.sides = [0] * len(self.players)
            self.side_names: list[str] = []
            seen: set[str] = set()
            for index, team in enumerate(teams):
                for name in team:
                    if name not in self.players or name in seen:
                        raise IllegalMoveError(f"team member {name!r} is not a player or is in two teams")
                    seen.add(name)
                    self.sides[self.players.index(name)] = index
                self.side_names.append("+".join(team))
            if seen != set(self.players) or len(teams) != 2:
                raise IllegalMoveError("teams must be two partnerships covering all four players")
        else:
            self.sides = list(range(len(self.players)))
            self.side_names = list(self.players)
        self.side_count = len(self.side_names)
        self.scores = [Fraction(0)] * self.side_count
        self.play_points = [Fraction(0)] * self.side_count  # what the current hand's plays scored
        self.penalties = [0] * len(self.players)
        self.hand: HandState | None = None
        self.hand_index = -1
        self.results: list[dict[str, Any]] = []
        self.over = False
        self.winners: list[int] = []
        # who sits in each seat now: the dealt player, a substitute, or None for an empty seat
        self.seated: list[str | None] = list(self.players)
        self.reason = ""
        self.tie_break_left: int | None = None
        self.previous_leader: int | None = None
        self.previous_winner: int | None = None
        self.rank_points: list[Fraction] | None = None

    # -- hands -----------------------------------------------------------------------------------
    def next_lead(self) -> int:
        return self.rules.lead_seat(self.hand_index + 1, len(self.players), self.previous_leader,
                                    self.previous_winner)

    def start_hand(self, dealt: Sequence[Sequence[Tile]] | None = None,
                   boneyard: Sequence[Tile] | None = None, *, replace: bool = False) -> HandState:
        """Begin the next hand (or, with `replace`, re-deal the current one)."""
        if self.over:
            raise IllegalMoveError("the match is over: no more hands")
        if not replace and self.hand is not None and not self.hand_finished:
            raise IllegalMoveError("the current hand is not finished")
        if not replace:
            self.hand_index += 1
        lead = self.rules.lead_seat(self.hand_index, len(self.players), self.previous_leader,
                                    self.previous_winner)
        if dealt is not None:
            size = self.rules.hand_size(len(self.players))
            for seat, hand in enumerate(dealt):
                if len(hand) != size:
                    raise IllegalMoveError(f"{self.players[seat]} was dealt {len(hand)} tiles, not {size}")
        self.hand = HandState(self.rules, self.players, lead=lead, dealt=dealt, boneyard=boneyard)
        self.play_points = [Fraction(0)] * self.side_count
        return self.hand

    @property
    def hand_finished(self) -> bool:
        """The current hand is over and scored (table mode waits for the reveal to score)."""
        return self.hand is not None and len(self.results) > self.hand_index

    def apply(self, move: Move) -> int:
        """Check and apply a move in the current hand; score it; return its points."""
        hand = self._playing_hand()
        points = hand.play(move)
        if points:
            side = self.sides[move.seat]
            self.scores[side] += points
            self.play_points[side] += points
            if self.tie_break_left is None and self.scores[side] >= self.rules.target > 0:
                self._finish_hand(early=True)
                self._end(side, "target")
                return points
        if hand.over and hand.masks is not None:
            self._finish_hand()
        return points

    def _playing_hand(self) -> HandState:
        if self.over:
            raise IllegalMoveError(f"the match is over ({self.reason})")
        if self.hand is None:
            raise IllegalMoveError("no hand has been dealt yet")
        if self.hand_finished:
            raise IllegalMoveError("the hand is over; the next hand has not begun")
        return self.hand

    def reveal(self, revealed: list[list[Tile]]) -> None:
        """Score a table-mode hand once its hands are shown (the audit lives in `referee.audit`)."""
        hand = self.hand
        assert hand is not None
        hand.revealed = revealed
        self._finish_hand()

    def _finish_hand(self, early: bool = False) -> None:
        hand = self.hand
        assert hand is not None
        rules = self.rules
        players = len(self.players)
        # A hand cut short by a target reached mid-hand is not counted (edge case 8), so no pips either.
        known = hand.masks or hand.revealed
        pips = [hand.pips(seat) for seat in range(players)] if known and not early else []
        outcome = hand.status or "stopped"
        if early and outcome == BLOCKED and not hand.line.blocked_by_table():
            # Only the known hands show this block; a real table sees the target reached (edge case 8)
            # and says the same, so a simulated match and its replay on a table agree.
            outcome = "stopped"
        result: dict[str, Any] = {
            "hand": self.hand_index + 1,
            "leader": self.players[hand.lead_seat] if hand.lead_seat is not None else None,
            "outcome": outcome,
            "winner": (self.players[hand.out_seat]
                       if hand.status == OUT and hand.out_seat is not None else None),
        }
        if pips:
            result["pips"] = dict(zip(self.players, pips, strict=True))
        if rules.penalty_match:
            for seat, p in enumerate(pips):
                self.penalties[seat] += p
            result["penalties"] = dict(zip(self.players, pips, strict=True))
            result["total_penalties"] = dict(zip(self.players, self.penalties, strict=True))
        elif not early and pips:
            out = hand.out_seat if hand.status == OUT else None
            points = rules.hand_points(out, pips, self.sides, self.side_count)
            for side, value in enumerate(points):
                self.scores[side] += value
            result["points"] = {self.side_names[s]: number(v) for s, v in enumerate(points)}
        elif early:
            # The target was reached mid-hand: the hand's own points are not added (edge case 8),
            # but every side still gets its entry, so a hand result always has them all.
            result["points"] = dict.fromkeys(self.side_names, 0)
        if not rules.penalty_match:
            # scores = the previous hand's scores + play_points + points
            result["play_points"] = {self.side_names[s]: number(v) for s, v in enumerate(self.play_points)}
            result["scores"] = {self.side_names[s]: number(v) for s, v in enumerate(self.scores)}
        self.results.append(result)
        self.previous_leader = hand.lead_seat
        self.previous_winner = hand.out_seat if hand.status == OUT else None
        if not early:
            self._after_hand()

    def _after_hand(self) -> None:
        if self.rules.penalty_match:
            if self.hand_index + 1 >= int(self.rules.options["hands"]):
                self._rank_penalties()
            return
        target = self.rules.target
        if self.tie_break_left is not None:
            self.tie_break_left -= 1
            if self.tie_break_left > 0:
                return
            contenders = list(range(self.side_count))
        else:
            contenders = [s for s in range(self.side_count) if self.scores[s] >= target]
            if not contenders:
                return
        top = max(self.scores[s] for s in contenders)
        leaders = [s for s in contenders if self.scores[s] == top]
        if len(leaders) == 1:
            self._end(leaders[0], "target")
        else:
            self.tie_break_left = self.rules.tie_break_hands(len(self.players), self.partnerships)

    def _rank_penalties(self) -> None:
        n = int(self.rules.options["hands"])
        totals = [0] * self.side_count
        for seat, p in enumerate(self.penalties):
            totals[self.sides[seat]] += p
        points = [Fraction(0)] * self.side_count
        if self.partnerships:
            if totals[0] != totals[1]:
                loser = 0 if totals[0] > totals[1] else 1
                points[loser], points[1 - loser] = Fraction(-n), Fraction(n)
        else:
            points = rank_points(totals, self.rules.place_points(self.side_count))
        self.rank_points = points
        best = max(points)
        winners = [s for s in range(self.side_count) if points[s] == best]
        # Sides tied for first are co-winners; when every side ties nobody wins (edge case 12).
        self._end(winners if len(winners) < self.side_count else [], "hands played")

    def _end(self, sides: int | Sequence[int] | None, reason: str) -> None:
        if sides is None:
            sides = []
        elif isinstance(sides, int):
            sides = [sides]
        self.over, self.winners, self.reason = True, sorted(sides), reason

    @property
    def winner(self) -> int | None:
        """The winning side when exactly one side wins; None for co-winners or no winner."""
        return self.winners[0] if len(self.winners) == 1 else None

    def forfeit(self, seat: int, reason: str) -> None:
        """A player lost the match by timing out or leaving: with two sides the other side wins."""
        if self.over:
            return
        loser = self.sides[seat]
        winner = 1 - loser if self.side_count == 2 else None
        self._end(winner, f"{self.players[seat]} {reason}")

    # -- reports ---------------------------------------------------------------------------------
    def standings(self) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        for side, name in enumerate(self.side_names):
            members = [p for s, p in zip(self.sides, self.players, strict=True) if s == side]
            row: dict[str, Any] = {"side": name, "players": members}
            if self.rules.penalty_match:
                row["penalty"] = sum(p for s, p in zip(self.sides, self.penalties, strict=True) if s == side)
                if self.rank_points is not None:
                    row["points"] = number(self.rank_points[side])
            else:
                row["score"] = number(self.scores[side])
            rows.append(row)
        return rows

    def result(self) -> dict[str, Any]:
        """`winner`: the one winning side's name (None when first place is shared or nobody wins);
        `winning_sides`: every winning side's name; `winners`: the players dealt into the winning
        seats; `winner_players`: who sat in those seats at the end (a substitute for a leaver)."""
        won = set(self.winners)
        return {
            "over": self.over,
            "winner": self.side_names[self.winner] if self.winner is not None else None,
            "winning_sides": [self.side_names[s] for s in self.winners],
            "winners": [p for s, p in zip(self.sides, self.players, strict=True) if s in won],
            "winner_players": [p for s, p in zip(self.sides, self.seated, strict=True)
                               if s in won and p is not None],
            "reason": self.reason,
            "hands_played": len(self.results),
            "tie_break_hands_left": self.tie_break_left,
            "standings": self.standings(),
        }


__all__ = ["HIGHEST_DOUBLE", "Match", "deal", "number", "rank_points"]
