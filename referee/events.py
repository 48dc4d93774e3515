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
from enum import StrEnum
from typing import Any

from referee.moves import RecordError

# The game record's format name and version (`referee.record` reads and writes it).
FORMAT, VERSION = "domino-record", 1



class Action(StrEnum):
    """The action key of an event (a `StrEnum`: each equals its record-format key)."""

    PLAY = "play"
    DRAW = "draw"
    PASS = "pass"
    DEAL = "deal"
    REVEAL = "reveal"
    REDEAL = "redeal"
    START = "start"
    AWAY = "away"
    BACK = "back"
    TIMEOUT = "timeout"
    CONTINUE = "continue"
    LEAVE = "leave"
    SUBSTITUTE = "substitute"
    CLOCK = "clock"


# The kinds of action, each list once. Sets of `Action` also match plain keys ("play" in them).
ACTIONS: tuple[Action, ...] = tuple(Action)
GAME_ACTIONS: frozenset[Action] = frozenset({Action.PLAY, Action.DRAW, Action.PASS, Action.DEAL,
                                              Action.REVEAL, Action.REDEAL})
# Time-keeping and table-manager actions: the table side's business (`referee.table`).
TABLE_ACTIONS: frozenset[Action] = frozenset(Action) - GAME_ACTIONS
# Table actions the engine records without any effect on the match (the table side may refuse them).
RECORDED_ONLY: frozenset[Action] = frozenset({Action.START, Action.AWAY, Action.BACK, Action.CONTINUE,
                                               Action.CLOCK})
# Game actions the table side screens before the engine judges them (moves made while away, while
# play waits for Continue, after the flag fell) and times.
SCREENED_ACTIONS: frozenset[Action] = frozenset({Action.PLAY, Action.DRAW, Action.PASS, Action.REVEAL})
_ACTION_KEYS: frozenset[Action] = frozenset(Action)
NEEDS_PLAYER: frozenset[Action] = frozenset({Action.PLAY, Action.DRAW, Action.PASS, Action.AWAY,
                                             Action.BACK, Action.TIMEOUT, Action.LEAVE,
                                             Action.SUBSTITUTE})
EXTRA_FIELDS: dict[Action, frozenset[str]] = {
    Action.PLAY: frozenset({"end"}),
    Action.DEAL: frozenset({"boneyard", "leader"}),
}
COMMON_FIELDS: frozenset[str] = frozenset({"player", "t", "note"})


def is_table_event(event: Mapping[str, Any]) -> bool:
    """Whether `event` is a time-keeping or table-manager event (no check of its fields)."""
    return not TABLE_ACTIONS.isdisjoint(event)


def event_action(event: object) -> Action:
    """The action of `event`; raise `RecordError` naming the field that is wrong."""
    if not isinstance(event, Mapping):
        raise RecordError(f"an event must be an object, found {event!r}")
    actions = [key for key in event if isinstance(key, str) and key in _ACTION_KEYS]
    if not actions:
        raise RecordError(f"event {_short(event)} has no action (one of {', '.join(ACTIONS)})")
    if len(actions) > 1:
        raise RecordError(f"event {_short(event)} has several actions: {', '.join(actions)}")
    action = Action(actions[0])
    allowed = COMMON_FIELDS | EXTRA_FIELDS.get(action, frozenset()) | {action}
    for key in event:
        if key not in allowed:
            raise RecordError(f"event {_short(event)}: unknown field {key!r} for a {str(action)!r} event")
    if action in NEEDS_PLAYER and not isinstance(event.get("player"), str):
        raise RecordError(f"event {_short(event)}: field 'player' (a name) is required for {str(action)!r}")
    t = event.get("t")
    if t is not None and (isinstance(t, bool) or not isinstance(t, int | float) or t < 0):
        raise RecordError(f"event {_short(event)}: field 't' must be seconds since the start, found {t!r}")
    if "end" in event and not isinstance(event["end"], str):
        raise RecordError(f"event {_short(event)}: field 'end' must be text")
    return action


def _short(event: Mapping[str, Any]) -> str:
    text = json.dumps(dict(event), ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."
