"""Record-format events: their kinds, fields and a parser that says exactly what is wrong.

An event is a JSON object with one action key. Tile-game actions: `play` (a tile, with `end`
when needed), `draw` (a tile name in simulation, or a count), `pass`, `deal` (simulation: the
hands, with `boneyard`), `reveal` (the hands at a hand's end), `redeal`. Time-keeping and
table-manager actions (`start`, `away`, `back`, `timeout`, `continue`, `leave`, `substitute`,
`clock`) are the clocks' business; the engine records them. Any event may carry `t`, seconds
since the match started.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from referee.moves import RecordError

# The game record's format name and version (`referee.record` reads and writes it).
FORMAT, VERSION = "domino-record", 1

GAME_ACTIONS: tuple[str, ...] = ("play", "draw", "pass", "deal", "reveal", "redeal")
TABLE_ACTIONS: tuple[str, ...] = (
    "start", "away", "back", "timeout", "continue", "leave", "substitute", "clock",
)
ACTIONS: tuple[str, ...] = GAME_ACTIONS + TABLE_ACTIONS
NEEDS_PLAYER: frozenset[str] = frozenset({"play", "draw", "pass", "away", "back", "timeout", "leave",
                                          "substitute"})
EXTRA_FIELDS: dict[str, frozenset[str]] = {
    "play": frozenset({"end"}),
    "deal": frozenset({"boneyard", "leader"}),
}
COMMON_FIELDS: frozenset[str] = frozenset({"player", "t", "note"})


def event_action(event: object) -> str:
    """The action of `event`; raise `RecordError` naming the field that is wrong."""
    if not isinstance(event, Mapping):
        raise RecordError(f"an event must be an object, found {event!r}")
    actions = [key for key in event if key in ACTIONS]
    if not actions:
        raise RecordError(f"event {_short(event)} has no action (one of {', '.join(ACTIONS)})")
    if len(actions) > 1:
        raise RecordError(f"event {_short(event)} has several actions: {', '.join(actions)}")
    action: str = actions[0]
    allowed = COMMON_FIELDS | EXTRA_FIELDS.get(action, frozenset()) | {action}
    for key in event:
        if key not in allowed:
            raise RecordError(f"event {_short(event)}: unknown field {key!r} for a {action!r} event")
    if action in NEEDS_PLAYER and not isinstance(event.get("player"), str):
        raise RecordError(f"event {_short(event)}: field 'player' (a name) is required for {action!r}")
    t = event.get("t")
    if t is not None and (isinstance(t, bool) or not isinstance(t, int | float) or t < 0):
        raise RecordError(f"event {_short(event)}: field 't' must be seconds since the start, found {t!r}")
    if "end" in event and not isinstance(event["end"], str):
        raise RecordError(f"event {_short(event)}: field 'end' must be text")
    return action


def _short(event: Mapping[str, Any]) -> str:
    text = json.dumps(dict(event), ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."
