"""One hand of play: the state machine every rule set shares.

`HandState` knows either everything (simulation: dealt hands and the boneyard order) or only the
table (`dealt=None`: hands are counts, draws are counts, hands are revealed at the end). `check`
raises an `IllegalMoveError` saying why a move is refused; `push` applies a move unchecked and
`pop` takes the last one back (the table manager correcting a misread). Known hands are bitmasks
over tile indexes, so finding the playable tiles is one AND with the open ends' mask.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.line import END_NAMES, LineOfPlay
from referee.moves import DRAW, PASS, PLAY, AmbiguousMoveError, IllegalMoveError, Move
from referee.rules import HIGHEST_DOUBLE, RuleSet
from referee.tiles import PIP_MASK, TILE_AT, Tile, mask_of, set_size, tiles_in

OUT, BLOCKED = "out", "blocked"
MAX_SEATS = 4
# Moves are immutable values, so the engine hands out shared ones instead of allocating:
# _PLAYS[seat][tile.index * 4 + end], _PASSES[seat], _DRAWS[seat].
_PLAYS: list[list[Move]] = [
    [Move(PLAY, seat, tile, end) for tile in TILE_AT for end in range(4)] for seat in range(MAX_SEATS)
]
_PASSES: list[Move] = [Move(PASS, seat) for seat in range(MAX_SEATS)]
_DRAWS: list[Move] = [Move(DRAW, seat) for seat in range(MAX_SEATS)]


def describe_ends(line: LineOfPlay) -> str:
    parts = [f"{value} ({name})" for name, value in line.open_ends().items()]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def heaviest(tiles: Sequence[Tile]) -> Tile:
    return max(tiles, key=lambda tile: (tile.pips, tile.high))


def _listing(tiles: Sequence[Tile]) -> str:
    return ", ".join(str(t) for t in sorted(tiles))


class HandState:
    """The tiles, turn and status of one hand; see the module docstring."""

    __slots__ = (
        "_fives", "_forbid_out", "_must_play", "_next", "_play_again", "_undo", "boneyard_count", "counts",
        "drawn_playable", "draws", "ends_before", "first_leader", "full", "lead_needs_double", "lead_seat",
        "lead_tile", "line", "masks", "moves", "names", "out_seat", "passes", "players", "reserve",
        "revealed", "rules", "stack", "status", "turn", "void",
    )

    def __init__(self, rules: RuleSet, names: Sequence[str], *, lead: int,
                 dealt: Sequence[Sequence[Tile]] | None = None,
                 boneyard: Sequence[Tile] | None = None) -> None:
        self.rules = rules
        self.names = list(names)
        players = len(self.names)
        self.players = players
        self.full = dealt is not None
        # Known hands as bitmasks (None on a real table); the boneyard reversed: its top pops off the end.
        self.masks: list[int] | None = None
        self.stack: list[Tile] = []
        if dealt is not None:
            self.masks = [mask_of(hand) for hand in dealt]
            self.stack = list(boneyard or ())[::-1]
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
        self.moves: list[Move] = []
        # the open end values and the mover's tile count before each move (for the table-mode audit)
        self.ends_before: list[tuple[tuple[int, ...], int]] = []
        self._undo: list[tuple[int | None, int, Tile | None, int]] = []
        self.revealed: list[list[Tile]] | None = None
        self._fives = rules.fives
        self._forbid_out = rules.no_scoring_domino
        self._play_again = rules.play_again
        self._must_play = rules.must_play
        self._next = [*range(1, players), 0]

    def _find_lead(self) -> None:
        if self.masks is None:
            self.lead_needs_double = not self.rules.heaviest_leads
            return
        for pip in range(self.rules.max_pip, -1, -1):
            double = Tile(pip, pip)
            for seat, mask in enumerate(self.masks):
                if mask >> double.index & 1:
                    self.lead_seat, self.lead_tile = seat, double
                    return
        if self.rules.heaviest_leads:
            tile = heaviest([t for mask in self.masks for t in tiles_in(mask)])
            self.lead_tile = tile
            self.lead_seat = next(s for s, mask in enumerate(self.masks) if mask >> tile.index & 1)
        else:
            self.void = "nobody holds a double: the hand must be re-dealt"

    # -- reading ---------------------------------------------------------------------------------
    @property
    def hands(self) -> list[list[Tile]] | None:
        """The known hands as tile lists (None on a real table before the reveal)."""
        return None if self.masks is None else [tiles_in(mask) for mask in self.masks]

    @property
    def history(self) -> list[tuple[Move, tuple[int, ...], int]]:
        """Moves with the open end values and the mover's tile count before each (on a real table)."""
        pairs = zip(self.moves, self.ends_before, strict=True)
        return [(move, values, count) for move, (values, count) in pairs]

    @property
    def over(self) -> bool:
        return self.status is not None

    @property
    def drawable(self) -> int:
        return max(0, self.boneyard_count - self.reserve)

    def holds(self, seat: int, tile: Tile) -> bool:
        assert self.masks is not None
        return bool(self.masks[seat] >> tile.index & 1)

    def pips(self, seat: int) -> int:
        """Pip count of a hand as the rule set counts it (needs a known or revealed hand)."""
        value = self.rules.tile_value
        return sum(value(tile) for tile in self.known_hand(seat))

    def known_hand(self, seat: int) -> list[Tile]:
        if self.masks is not None:
            return tiles_in(self.masks[seat])
        if self.revealed is not None:
            return list(self.revealed[seat])
        raise IllegalMoveError(f"{self.names[seat]}'s hand is not known until it is revealed")

    def playable_tiles(self, seat: int) -> list[Tile]:
        """Tiles of a known hand that may be played now (the going-out restriction included)."""
        assert self.masks is not None
        mask = self.masks[seat]
        if not self.line.placed:
            if self.lead_tile is not None:
                return [self.lead_tile] if mask >> self.lead_tile.index & 1 else []
            return tiles_in(mask)
        tiles = tiles_in(mask & self.line.open_mask)
        if tiles and self._forbid_out and self.counts[seat] == 1:
            ends = self.line.fitting_ends
            tiles = [t for t in tiles if not all(self._forbidden_out(t, e) for e in ends(t))]
        return tiles

    def can_play(self, seat: int) -> bool:
        assert self.masks is not None
        if not self.masks[seat] & self.line.open_mask:
            return False
        if self._forbid_out and self.counts[seat] == 1:
            return bool(self.playable_tiles(seat))
        return True

    def legal_moves(self) -> list[Move]:
        """Every legal move of the player to move (known hands only): plays with each fitting end."""
        seat = self.turn
        if self.status is not None or self.void or seat is None or self.masks is None:
            return []
        line = self.line
        if not line.placed:
            return [Move(PLAY, seat, tile) for tile in self.playable_tiles(seat)]
        moves: list[Move] = []
        drawn = self.drawn_playable
        playable = (1 << drawn.index) if drawn is not None else self.masks[seat] & line.open_mask
        if playable:
            plays, append = _PLAYS[seat], moves.append
            values = line.values
            for end in (0, 1, 2, 3) if line.spinner_open else (0, 1):
                fitting = playable & PIP_MASK[values[end]]
                while fitting:
                    bit = fitting & -fitting
                    fitting ^= bit
                    append(plays[(bit.bit_length() - 1) * 4 + end])
            if self._forbid_out and self.counts[seat] == 1:
                moves = [m for m in moves if not self._forbidden_out(m.tile, m.end)]  # type: ignore[arg-type]
        if self.boneyard_count > self.reserve and drawn is None and (not moves or not self._must_play):
            moves.append(_DRAWS[seat])
        if not moves:
            moves.append(_PASSES[seat])
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
        if self.masks is not None and self.can_play(move.seat):
            raise IllegalMoveError(f"{who} may not pass holding a playable tile "
                                   f"({_listing(self.playable_tiles(move.seat))})")
        return move

    def _check_draw(self, move: Move, who: str) -> Move:
        if not self.drawable:
            if self.boneyard_count:
                raise IllegalMoveError(f"{who} may not draw: the last {self.boneyard_count} boneyard "
                                       f"tiles are reserved")
            raise IllegalMoveError(f"{who} may not draw: the boneyard is empty")
        if self.masks is not None:
            if self.rules.must_play and self.can_play(move.seat):
                raise IllegalMoveError(f"{who} must play, not draw: "
                                       f"{_listing(self.playable_tiles(move.seat))} fits")
            # the reserve is the bottom of the boneyard: the start of the reversed stack
            if move.tile is not None and move.tile not in self.stack[self.reserve:]:
                raise IllegalMoveError(f"{who} cannot draw {move.tile}: it is not in the boneyard")
        return move

    def _check_play(self, move: Move, who: str) -> Move:
        tile = move.tile
        assert tile is not None
        line = self.line
        written = f"{move.first}-{tile.other(move.first)}" if move.first is not None else str(tile)
        if tile in line:
            raise IllegalMoveError(f"{written} is already on the table")
        if self.masks is not None and not self.holds(move.seat, tile):
            raise IllegalMoveError(f"{who} does not hold {written}")
        if self.counts[move.seat] <= 0:
            raise IllegalMoveError(f"{who} has no tiles left to play {written}")
        if not line.placed:
            if self.lead_tile is not None and tile != self.lead_tile:
                why = "the highest double" if self.lead_tile.is_double else "the heaviest tile"
                raise IllegalMoveError(f"{who} must lead {self.lead_tile}, {why}, not {written}")
            if self.lead_needs_double and not tile.is_double:
                raise IllegalMoveError(f"the lead must be the highest double, and {written} is not a double")
            return Move(PLAY, move.seat, tile, None, move.first)
        if self.drawn_playable is not None and tile != self.drawn_playable and self.rules.must_play:
            raise IllegalMoveError(f"{who} must play the drawn {self.drawn_playable}, not {written}")
        ends = line.fitting_ends(tile)
        if not ends:
            raise IllegalMoveError(f"{written} does not match the open ends {describe_ends(line)}")
        end = move.end
        if end is not None:
            if line.values[end] < 0:
                raise IllegalMoveError(f"{written} cannot go {END_NAMES[end]}: that end is not open")
            if end not in ends:
                raise IllegalMoveError(
                    f"{written} does not match the {END_NAMES[end]} end ({line.values[end]})")
        elif len(ends) == 1:
            end = ends[0]
        else:
            signatures = set()
            for candidate in ends:
                line.place(tile, candidate)
                signatures.add(line.signature())
                line.unplace()
            if len(signatures) > 1:
                names = [END_NAMES[e] for e in ends]
                listed = ", ".join(names[:-1]) + " and " + names[-1]
                raise AmbiguousMoveError(f"{written} fits {listed}: name the end")
            end = ends[0]
        if self._forbid_out and self.counts[move.seat] == 1 and self._forbidden_out(tile, end):
            what = "a double" if tile.is_double else "a scoring tile"
            raise IllegalMoveError(f"{who} may not go out with {what} ({written}): draw or pass instead")
        return Move(PLAY, move.seat, tile, end, move.first)

    def _forbidden_out(self, tile: Tile, end: int) -> bool:
        if tile.is_double:
            return True
        line = self.line
        line.place(tile, end)
        scores = self.rules.play_points(line.count()) > 0
        line.unplace()
        return scores

    # -- changing --------------------------------------------------------------------------------
    def play(self, move: Move) -> int:
        """Check and apply `move`; return the points it scored."""
        return self.push(self.check(move))

    def push(self, move: Move) -> int:
        """Apply a checked move without checking it again; return the points it scored."""
        kind, seat, tile, end, first = move
        line = self.line
        masks = self.masks
        self._undo.append((self.turn, self.passes, self.drawn_playable, -1))
        if masks is None:
            self.ends_before.append((tuple(line.values), self.counts[seat]))
        points = 0
        if kind == PLAY:
            assert tile is not None
            if masks is not None:
                masks[seat] &= ~tile.bit
            counts = self.counts
            counts[seat] -= 1
            if line.lead is None:
                line.place_lead(tile, first)
                self.lead_seat = seat
            else:
                assert end is not None
                line.place(tile, end)
            if self._fives:
                points = self.rules.play_points(line.count())
            self.passes = 0
            self.drawn_playable = None
            if counts[seat] == 0:
                self.status, self.out_seat, self.turn = OUT, seat, None
            elif not line.open_mask & line.set_mask & ~line.mask:
                self.status, self.turn = BLOCKED, None
            elif self._play_again and (points > 0 or tile.is_double):
                self.turn = seat
            else:
                self.turn = self._next[seat]
        elif kind == DRAW:
            if masks is not None:
                if tile is not None:
                    at = self.stack.index(tile)
                    del self.stack[at]
                    self._undo[-1] = (self.turn, self.passes, self.drawn_playable, at)
                else:
                    tile = self.stack.pop()
                    move = Move(DRAW, seat, tile)
                masks[seat] |= tile.bit
                if self._must_play and line.open_mask & tile.bit:
                    self.drawn_playable = tile
            self.boneyard_count -= 1
            self.counts[seat] += 1
            self.draws[seat] += 1
        else:
            self.passes += 1
            self.turn = self._next[seat]
            if masks is None and (self.passes >= self.players or self.rules.stuck_ends_hand):
                self.status, self.turn = BLOCKED, None
        self.moves.append(move)
        if masks is not None and self.status is None and self.boneyard_count <= self.reserve:
            turn = self.turn
            assert turn is not None
            if self._forbid_out or not masks[turn] & line.open_mask:
                self._detect_block()
        return points

    def _detect_block(self) -> None:
        turn = self.turn
        assert turn is not None
        if self.can_play(turn):
            return
        if (self.rules.stuck_ends_hand and self.line.placed) or not any(
                self.can_play(seat) for seat in range(self.players) if seat != turn):
            self.status, self.turn = BLOCKED, None

    def pop(self) -> Move:
        """Take back the last move pushed; return it."""
        move = self.moves.pop()
        if self.masks is None:
            self.ends_before.pop()
        turn, passes, drawn, taken_at = self._undo.pop()
        kind, seat, tile = move[0], move[1], move[2]
        if kind == PLAY:
            assert tile is not None
            placement = self.line.unplace()
            if placement.end is None:
                self.lead_seat = self.first_leader
            if self.masks is not None:
                self.masks[seat] |= tile.bit
            self.counts[seat] += 1
        elif kind == DRAW:
            if self.masks is not None and tile is not None:
                self.masks[seat] &= ~tile.bit
                if taken_at >= 0:
                    self.stack.insert(taken_at, tile)
                else:
                    self.stack.append(tile)
            self.boneyard_count += 1
            self.counts[seat] -= 1
            self.draws[seat] -= 1
        self.turn, self.passes, self.drawn_playable = turn, passes, drawn
        self.status, self.out_seat = None, None
        return move
