"""One hand of play: the state machine every rule set shares.

`HandState` knows either everything (simulation: dealt hands and the boneyard order) or only the
table (`dealt=None`: hands are counts, draws are counts, hands are revealed at the end). `check`
raises an `IllegalMoveError` saying why a move is refused; `push` applies a move unchecked and
`pop` takes the last one back (the table manager correcting a misread). Nothing here knows
players' names beyond quoting them, or match scores: the match adds up what a hand reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.line import END_NAMES, LineOfPlay, LineState
from referee.moves import DRAW, PASS, PLAY, AmbiguousMoveError, IllegalMoveError, Move
from referee.rules import HIGHEST_DOUBLE, RuleSet
from referee.tiles import Tile, set_size

OUT, BLOCKED = "out", "blocked"


def describe_ends(line: LineOfPlay) -> str:
    parts = [f"{value} ({name})" for name, value in line.open_ends().items()]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def heaviest(tiles: Sequence[Tile]) -> Tile:
    return max(tiles, key=lambda tile: (tile.pips, tile.high))


@dataclass(slots=True)
class _Undo:
    move: Move
    line_state: LineState
    turn: int | None
    passes: int
    drawn_playable: Tile | None
    status: str | None
    out_seat: int | None
    lead_seat: int | None
    taken: Tile | None = None
    taken_at: int = -1


class HandState:
    """The tiles, turn and status of one hand; see the module docstring."""

    def __init__(self, rules: RuleSet, names: Sequence[str], *, lead: int,
                 dealt: Sequence[Sequence[Tile]] | None = None,
                 boneyard: Sequence[Tile] | None = None) -> None:
        self.rules = rules
        self.names = list(names)
        players = len(self.names)
        self.players = players
        self.full = dealt is not None
        self.hands: list[set[Tile]] | None = None
        # The boneyard is kept reversed so the top tile (the list's first) pops off the end.
        self.stack: list[Tile] = []
        if dealt is not None:
            self.hands = [set(hand) for hand in dealt]
            self.stack = list(reversed(list(boneyard or ())))
            self.counts = [len(hand) for hand in dealt]
            self.boneyard_count = len(self.stack)
        else:
            size = rules.hand_size(players)
            self.counts = [size] * players
            self.boneyard_count = set_size(rules.max_pip) - size * players
        self.reserve = rules.reserve(players)
        self.line = LineOfPlay(spinner=rules.spinner, max_pip=rules.max_pip)
        self.void = ""  # why the hand cannot be played (nobody holds a double: re-deal)
        self.lead_tile: Tile | None = None
        self.lead_needs_double = False
        self.lead_seat: int | None = lead if lead >= 0 else None
        if lead == HIGHEST_DOUBLE:
            self._find_lead()
        self.first_leader = self.lead_seat
        self.turn: int | None = self.lead_seat
        self.passes = 0
        self.drawn_playable: Tile | None = None
        self.status: str | None = None
        self.out_seat: int | None = None
        self.draws = [0] * players
        # (move, open end values when it was made, points it scored)
        self.history: list[tuple[Move, tuple[int, ...], int]] = []
        self._undo: list[_Undo] = []
        self.revealed: list[list[Tile]] | None = None

    def _find_lead(self) -> None:
        if self.hands is None:
            self.lead_needs_double = not self.rules.heaviest_leads
            return
        best: tuple[int, int] | None = None
        for seat, hand in enumerate(self.hands):
            for tile in hand:
                if tile.is_double and (best is None or tile.low > best[0]):
                    best = (tile.low, seat)
        if best is not None:
            self.lead_seat, self.lead_tile = best[1], Tile(best[0], best[0])
        elif self.rules.heaviest_leads:
            tile = heaviest([t for hand in self.hands for t in hand])
            self.lead_tile = tile
            self.lead_seat = next(seat for seat, hand in enumerate(self.hands) if tile in hand)
        else:
            self.void = "nobody holds a double: the hand must be re-dealt"

    # -- reading ---------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.status is not None

    @property
    def drawable(self) -> int:
        return max(0, self.boneyard_count - self.reserve)

    def name(self, seat: int) -> str:
        return self.names[seat]

    def pips(self, seat: int) -> int:
        """Pip count of a hand as the rule set counts it (needs a known or revealed hand)."""
        hand = self.known_hand(seat)
        value = self.rules.tile_value
        return sum(value(tile) for tile in hand)

    def known_hand(self, seat: int) -> list[Tile]:
        if self.hands is not None:
            return sorted(self.hands[seat])
        if self.revealed is not None:
            return list(self.revealed[seat])
        raise IllegalMoveError(f"{self.names[seat]}'s hand is not known until it is revealed")

    def playable_tiles(self, seat: int) -> list[Tile]:
        """Tiles of a known hand that may be played now (the going-out restriction included)."""
        assert self.hands is not None
        line = self.line
        if not line.placed:
            if self.lead_tile is not None:
                return [self.lead_tile] if self.lead_tile in self.hands[seat] else []
            return sorted(self.hands[seat])
        tiles = [tile for tile in self.hands[seat] if line.fits(tile)]
        if tiles and self.rules.no_scoring_domino and self.counts[seat] == 1:
            tiles = [t for t in tiles if not any(self._forbidden_out(t, e) for e in line.fitting_ends(t))]
        return tiles

    def can_play(self, seat: int) -> bool:
        assert self.hands is not None
        fits = self.line.fits
        for tile in self.hands[seat]:
            if fits(tile):
                if self.rules.no_scoring_domino and self.counts[seat] == 1:
                    return bool(self.playable_tiles(seat))
                return True
        return False

    def legal_moves(self) -> list[Move]:
        """Every legal move of the player to move (known hands only): plays with each fitting end."""
        if self.over or self.void or self.turn is None or self.hands is None:
            return []
        seat = self.turn
        moves: list[Move] = []
        if not self.line.placed:
            return [Move(PLAY, seat, tile) for tile in self.playable_tiles(seat)]
        candidates = [self.drawn_playable] if self.drawn_playable is not None else self.playable_tiles(seat)
        forbid = self.rules.no_scoring_domino and self.counts[seat] == 1
        for tile in candidates:
            for end in self.line.fitting_ends(tile):
                if not (forbid and self._forbidden_out(tile, end)):
                    moves.append(Move(PLAY, seat, tile, end))
        if self.drawable and self.drawn_playable is None and (not moves or not self.rules.must_play):
            moves.append(Move(DRAW, seat))
        if not moves:
            moves.append(Move(PASS, seat))
        return moves

    # -- checking --------------------------------------------------------------------------------
    def check(self, move: Move) -> Move:
        """Return `move` with its end resolved, or raise `IllegalMoveError` saying why not."""
        who = self.names[move.seat] if 0 <= move.seat < self.players else str(move.seat)
        if self.void:
            raise IllegalMoveError(self.void)
        if self.status is not None:
            how = (f"{self.names[self.out_seat]} went out" if self.status == OUT and self.out_seat is not None
                   else "blocked")
            raise IllegalMoveError(f"the hand is over ({how}): {who}'s {move} comes too late")
        if self.turn is not None and move.seat != self.turn:
            raise IllegalMoveError(f"it is {self.names[self.turn]}'s turn, not {who}'s")
        if move.kind == PLAY:
            return self._check_play(move, who)
        if not self.line.placed:
            leader = self.names[self.turn] if self.turn is not None else "the leader"
            raise IllegalMoveError(f"{who} may not {move.kind} before the lead: {leader} must lead")
        if self.drawn_playable is not None and self.rules.must_play:
            raise IllegalMoveError(f"{who} must play the drawn {self.drawn_playable}")
        if move.kind == DRAW:
            return self._check_draw(move, who)
        if self.drawable:
            raise IllegalMoveError(f"{who} must draw: {self.drawable} tiles in the boneyard")
        if self.hands is not None and self.can_play(move.seat):
            playable = ", ".join(str(t) for t in sorted(self.playable_tiles(move.seat)))
            raise IllegalMoveError(f"{who} may not pass holding a playable tile ({playable})")
        return move

    def _check_draw(self, move: Move, who: str) -> Move:
        if not self.drawable:
            if self.boneyard_count:
                raise IllegalMoveError(f"{who} may not draw: the last {self.boneyard_count} boneyard "
                                       f"tiles are reserved")
            raise IllegalMoveError(f"{who} may not draw: the boneyard is empty")
        if self.hands is not None:
            if self.rules.must_play and self.can_play(move.seat):
                playable = ", ".join(str(t) for t in sorted(self.playable_tiles(move.seat)))
                raise IllegalMoveError(f"{who} must play, not draw: {playable} fits")
            if move.tile is not None:
                reachable = self.stack[self.reserve:] if self.reserve else self.stack
                if move.tile not in reachable:
                    raise IllegalMoveError(f"{who} cannot draw {move.tile}: it is not in the boneyard")
        return move

    def _check_play(self, move: Move, who: str) -> Move:
        tile = move.tile
        assert tile is not None
        if tile in self.line:
            raise IllegalMoveError(f"{tile} is already on the table")
        if self.hands is not None and tile not in self.hands[move.seat]:
            raise IllegalMoveError(f"{who} does not hold {tile}")
        if self.counts[move.seat] <= 0:
            raise IllegalMoveError(f"{who} has no tiles left to play {tile}")
        line = self.line
        if not line.placed:
            if self.lead_tile is not None and tile != self.lead_tile:
                why = "the highest double" if self.lead_tile.is_double else "the heaviest tile"
                raise IllegalMoveError(f"{who} must lead {self.lead_tile}, {why}, not {tile}")
            if self.lead_needs_double and not tile.is_double:
                raise IllegalMoveError(f"the lead must be the highest double, and {tile} is not a double")
            return Move(PLAY, move.seat, tile, None, move.first)
        if self.drawn_playable is not None and tile != self.drawn_playable and self.rules.must_play:
            raise IllegalMoveError(f"{who} must play the drawn {self.drawn_playable}, not {tile}")
        ends = line.fitting_ends(tile)
        if not ends:
            raise IllegalMoveError(f"{tile} does not match the open ends {describe_ends(line)}")
        end = move.end
        if end is not None:
            if line.values[end] < 0:
                raise IllegalMoveError(f"{tile} cannot go {END_NAMES[end]}: that end is not open")
            if end not in ends:
                raise IllegalMoveError(f"{tile} does not match the {END_NAMES[end]} end ({line.values[end]})")
        elif len(ends) == 1:
            end = ends[0]
        else:
            signatures = set()
            for candidate in ends:
                state = line.save()
                line.place(tile, candidate)
                signatures.add(line.signature())
                line.unplace(state)
            if len(signatures) > 1:
                names = [END_NAMES[e] for e in ends]
                listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
                raise AmbiguousMoveError(f"{tile} fits {listed}: name the end")
            end = ends[0]
        if self.rules.no_scoring_domino and self.counts[move.seat] == 1 and self._forbidden_out(tile, end):
            what = "a double" if tile.is_double else "a scoring tile"
            raise IllegalMoveError(f"{who} may not go out with {what} ({tile}): draw or pass instead")
        return Move(PLAY, move.seat, tile, end, move.first)

    def _forbidden_out(self, tile: Tile, end: int) -> bool:
        if tile.is_double:
            return True
        line = self.line
        state = line.save()
        line.place(tile, end)
        scores = self.rules.play_points(line.count()) > 0
        line.unplace(state)
        return scores

    # -- changing --------------------------------------------------------------------------------
    def play(self, move: Move) -> int:
        """Check and apply `move`; return the points it scored."""
        return self.push(self.check(move))

    def push(self, move: Move) -> int:
        """Apply a checked move without checking it again; return the points it scored."""
        seat = move.seat
        saved = _Undo(move, self.line.save(), self.turn, self.passes, self.drawn_playable,
                      self.status, self.out_seat, self.lead_seat)
        points = 0
        values = tuple(self.line.values)
        taken: Tile | None = None
        if move.kind == PLAY:
            tile = move.tile
            assert tile is not None
            if self.hands is not None:
                self.hands[seat].discard(tile)
            self.counts[seat] -= 1
            if not self.line.placed:
                self.line.place_lead(tile, move.first)
                self.lead_seat = seat
            else:
                assert move.end is not None
                self.line.place(tile, move.end)
            if self.rules.fives:
                points = self.rules.play_points(self.line.count())
            self.passes = 0
            self.drawn_playable = None
            if self.counts[seat] == 0:
                self.status, self.out_seat, self.turn = OUT, seat, None
            elif self.line.blocked_by_table():
                self.status, self.turn = BLOCKED, None
            else:
                again = self.rules.play_again and (points > 0 or tile.is_double)
                self.turn = seat if again else (seat + 1) % self.players
        elif move.kind == DRAW:
            if self.hands is not None:
                if move.tile is not None:
                    taken = move.tile
                    saved.taken_at = self.stack.index(taken)
                    del self.stack[saved.taken_at]
                else:
                    taken = self.stack.pop()
                self.hands[seat].add(taken)
                if self.line.fits(taken):
                    self.drawn_playable = taken
            self.boneyard_count -= 1
            self.counts[seat] += 1
            self.draws[seat] += 1
        else:
            self.passes += 1
            self.turn = (seat + 1) % self.players
            if self.hands is None and (self.passes >= self.players or self.rules.stuck_ends_hand):
                self.status, self.turn = BLOCKED, None
        if self.hands is not None and self.status is None and self.drawable == 0:
            self._detect_block()
        saved.taken = taken
        self._undo.append(saved)
        recorded = move if taken is None else Move(DRAW, seat, taken)
        self.history.append((recorded, values, points))
        return points

    def _detect_block(self) -> None:
        turn = self.turn
        assert turn is not None
        if self.rules.stuck_ends_hand and self.line.placed and not self.can_play(turn):
            self.status, self.turn = BLOCKED, None
            return
        if self.can_play(turn):
            return
        if not any(self.can_play(seat) for seat in range(self.players) if seat != turn):
            self.status, self.turn = BLOCKED, None

    def pop(self) -> Move:
        """Take back the last move pushed; return it."""
        undo = self._undo.pop()
        self.history.pop()
        move = undo.move
        seat = move.seat
        if move.kind == PLAY:
            assert move.tile is not None
            self.line.unplace(undo.line_state)
            if self.hands is not None:
                self.hands[seat].add(move.tile)
            self.counts[seat] += 1
        elif move.kind == DRAW:
            if self.hands is not None and undo.taken is not None:
                self.hands[seat].discard(undo.taken)
                if undo.taken_at >= 0:
                    self.stack.insert(undo.taken_at, undo.taken)
                else:
                    self.stack.append(undo.taken)
            self.boneyard_count += 1
            self.counts[seat] -= 1
            self.draws[seat] -= 1
        self.turn, self.passes, self.drawn_playable = undo.turn, undo.passes, undo.drawn_playable
        self.status, self.out_seat, self.lead_seat = undo.status, undo.out_seat, undo.lead_seat
        return move
