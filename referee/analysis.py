"""Spectator analysis for the overlay: counting, dead doubles and ends one player can take.

These are the strategy notions of the Turkish source (ölü taş, counting, kafa), not rules.
Counting and dead doubles (a double that can never be played) need only the table; which ends
only one player can still answer needs the hands, so it is given in simulation only.
"""

from __future__ import annotations

from typing import Any

from referee.hand import HandState
from referee.tiles import PIP_MASK, Tile


def analyse(hand: HandState) -> dict[str, Any]:
    line = hand.line
    max_pip = hand.rules.max_pip
    unseen = {str(v): max_pip + 1 - line.tiles_with[v] for v in range(max_pip + 1)}
    # A double v-v is dead when it can never be played: no open end shows v, and no tile off the
    # table could make one show v, which holds once all the other v tiles are on the table (a
    # closed spinner arm opens on the spinner's own number, never v, since v-v is not down).
    # With all six laid but an end still showing v, the double is playable there, not dead.
    showing = set(line.open_ends().values())
    dead = [str(Tile(v, v)) for v in range(max_pip + 1)
            if Tile(v, v) not in line and line.tiles_with[v] == max_pip and v not in showing]
    result: dict[str, Any] = {"unseen": unseen, "dead_doubles": dead}
    if hand.masks is not None and line.placed:
        taken: dict[str, str] = {}
        for end, value in line.open_ends().items():
            holders = [seat for seat, mask in enumerate(hand.masks) if mask & PIP_MASK[value]]
            if len(holders) == 1:
                taken[end] = hand.names[holders[0]]
        result["ends_taken"] = taken
    return result
