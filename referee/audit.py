"""The table-mode audit: what the revealed hands prove about moves the referee could not see.

On a real table a hand is a count until it is revealed. Some rules can only be checked then:
a pass while holding a matching tile, a draw while able to play, a wrong lead, a hand whose size
does not add up. The audit reports findings as sentences; it never refuses anything.
The proofs rely on one fact: a player's hand changes only by their own plays and draws, so the
tiles they play (or reveal) before their next draw were already in their hand.
"""

from __future__ import annotations

from referee.hand import HandState
from referee.moves import DRAW, PASS, PLAY
from referee.tiles import Tile


def _held_after(hand: HandState, seat: int, index: int, revealed: list[Tile]) -> list[Tile]:
    """Tiles `seat` provably held right after history entry `index` (before any later draw)."""
    held: list[Tile] = []
    for move in hand.moves[index + 1:]:
        if move.seat != seat:
            continue
        if move.kind == DRAW:
            return held
        if move.kind == PLAY and move.tile is not None:
            held.append(move.tile)
    return held + revealed


def _fits(tile: Tile, values: tuple[int, ...]) -> bool:
    return any(v >= 0 and tile.has(v) for v in values)


def audit(hand: HandState, revealed: list[list[Tile]]) -> list[str]:
    """Findings about `hand` (table mode) once every hand is `revealed` (one list per seat)."""
    findings: list[str] = []
    names = hand.names
    on_table = {placement.tile for placement in hand.line.placed}
    owners: dict[Tile, int] = {}
    for seat, tiles in enumerate(revealed):
        if len(tiles) != hand.counts[seat]:
            findings.append(f"{names[seat]} revealed {len(tiles)} tiles but should hold {hand.counts[seat]} "
                            f"(dealt, plus {hand.draws[seat]} drawn, minus those played)")
        for tile in tiles:
            if tile in on_table:
                findings.append(f"{names[seat]} revealed {tile}, which is on the table")
            elif tile in owners:
                findings.append(f"{tile} was revealed by both {names[owners[tile]]} and {names[seat]}")
            owners[tile] = seat
    must_play = hand.rules.must_play
    for index, (move, values, count) in enumerate(hand.history):
        if move.kind == PASS:
            if hand.rules.no_scoring_domino and count == 1:
                continue  # the last tile may be one that must not go out: the values alone cannot tell
            held = _held_after(hand, move.seat, index, revealed[move.seat])
            matching = sorted({t for t in held if _fits(t, values)})
            if matching:
                findings.append(f"{names[move.seat]} passed (move {index + 1}) holding "
                                f"{', '.join(map(str, matching))}, which matched an open end")
        elif move.kind == DRAW and must_play and not (hand.rules.no_scoring_domino and count == 1):
            # The drawn tile itself is unknown: two playable tiles prove one was held before.
            held = _held_after(hand, move.seat, index, revealed[move.seat])
            matching = sorted({t for t in held if _fits(t, values)})
            if len(matching) >= 2:
                findings.append(f"{names[move.seat]} drew (move {index + 1}) while able to play "
                                f"(one of {', '.join(map(str, matching))} was already held)")
    findings.extend(_audit_lead(hand, revealed))
    return findings


def _audit_lead(hand: HandState, revealed: list[list[Tile]]) -> list[str]:
    if not (hand.lead_needs_double or (hand.rules.heaviest_leads and hand.first_leader is None)):
        return []
    if not hand.moves or hand.moves[0].kind != PLAY:
        return []
    lead_move = hand.moves[0]
    lead = lead_move.tile
    assert lead is not None

    def rank(tile: Tile) -> tuple[int, int, int]:
        # any double outranks every other tile; without doubles the heaviest leads
        return (1, tile.low, 0) if tile.is_double else (0, tile.pips, tile.high)

    findings = []
    for seat in range(hand.players):
        dealt = _held_after(hand, seat, -1, revealed[seat])
        if seat == lead_move.seat:
            dealt = [t for t in dealt if t is not lead]
        better = sorted((t for t in dealt if rank(t) > rank(lead)), key=rank)
        if better:
            best = better[-1]
            what = "a heavier tile"
            if best.is_double:
                what = "the higher double" if lead.is_double else "a double"
            findings.append(f"{hand.names[lead_move.seat]} led {lead} but {hand.names[seat]} was dealt "
                            f"{best}, {what}")
    return findings
