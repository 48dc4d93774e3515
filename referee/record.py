"""The game record (`domino-record` version 1): write, read, validate, replay.

How hands are delimited. A record's `hands` list holds one object per hand, in order. With
known hands (simulation) each hand has `dealt` (and `boneyard`, top first) and replay starts it
with a `deal` event. On a real table (no `dealt`) a hand ends with its `reveal` event, after
which the next hand begins; a hand that ended the match mid-hand needs no reveal. Events before
the first deal belong to the first hand, events after the match ended to the last.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from referee.errors import DominoError
from referee.events import FORMAT, VERSION, event_action
from referee.fields import SettingError
from referee.moves import RecordError
from referee.referee import Referee, RefereeObserver
from referee.rules import RULE_SET_NAMES, validate_options
from referee.tiles import Tile


def load_record(source: str | Path) -> dict[str, Any]:
    """Read and validate a record file; raise `RecordError` naming the file and the field."""
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise RecordError(f"{path}: cannot read the record: {error.strerror}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(f"{path}: not JSON: {error.msg} at line {error.lineno}, "
                          f"column {error.colno}") from None
    try:
        validate_record(document)
    except RecordError as error:
        raise RecordError(f"{path}: {error}") from None
    return dict(document)


def dump_record(document: Mapping[str, Any], path: str | Path) -> None:
    Path(path).write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def validate_record(document: object) -> None:
    """Check a record's shape; raise `RecordError` naming the hand/event index and the field."""
    if not isinstance(document, Mapping):
        raise RecordError("a record must be a JSON object")
    if document.get("format") != FORMAT:
        raise RecordError(f"format: expected {FORMAT!r}, found {document.get('format')!r}")
    if document.get("version") != VERSION:
        raise RecordError(f"version: expected {VERSION}, found {document.get('version')!r}")
    rules = document.get("rules")
    if rules not in RULE_SET_NAMES:
        raise RecordError(f"rules: found {rules!r}, allowed one of {', '.join(RULE_SET_NAMES)}")
    options = document.get("options", {})
    if not isinstance(options, Mapping):
        raise RecordError(f"options: must be an object, found {options!r}")
    try:
        max_pip = validate_options(str(rules), options)["max_pip"]
    except SettingError as error:
        raise RecordError(str(error)) from None
    players = document.get("players")
    if (not isinstance(players, list) or not all(isinstance(p, str) and p for p in players)
            or len(set(players)) != len(players)):
        raise RecordError(f"players: must be a list of distinct names, found {players!r}")
    teams = document.get("teams")
    if teams is not None and (not isinstance(teams, list) or not all(
            isinstance(team, list) and all(name in players for name in team) for team in teams)):
        raise RecordError(f"teams: must be lists of player names, found {teams!r}")
    hands = document.get("hands")
    if not isinstance(hands, list):
        raise RecordError(f"hands: must be a list, found {hands!r}")
    known = None
    for h, hand in enumerate(hands):
        where = f"hands[{h}]"
        if not isinstance(hand, Mapping):
            raise RecordError(f"{where}: must be an object")
        for key in hand:
            if key not in ("leader", "dealt", "boneyard", "events"):
                raise RecordError(f"{where}: unknown field {key!r}")
        if "leader" in hand and hand["leader"] not in players:
            raise RecordError(f"{where}.leader: {hand['leader']!r} is not a player")
        has_deal = "dealt" in hand
        if known is not None and has_deal != known:
            raise RecordError(f"{where}.dealt: either every hand has 'dealt' or none has")
        known = has_deal
        if has_deal:
            dealt = hand["dealt"]
            if not isinstance(dealt, Mapping) or set(dealt) != set(players):
                raise RecordError(f"{where}.dealt: must give the tiles of every player")
            for name, tiles in dealt.items():
                _check_tiles(tiles, f"{where}.dealt.{name}", max_pip)
            _check_tiles(hand.get("boneyard", []), f"{where}.boneyard", max_pip)
        events = hand.get("events", [])
        if not isinstance(events, list):
            raise RecordError(f"{where}.events: must be a list")
        for e, event in enumerate(events):
            try:
                event_action(event)
            except RecordError as error:
                raise RecordError(f"{where}.events[{e}]: {error}") from None


def _check_tiles(tiles: object, where: str, max_pip: int) -> None:
    if not isinstance(tiles, list):
        raise RecordError(f"{where}: must be a list of tiles, found {tiles!r}")
    for i, text in enumerate(tiles):
        try:
            Tile.parse(text, max_pip)
        except DominoError as error:
            raise RecordError(f"{where}[{i}]: {error}") from None


def replay(document: Mapping[str, Any], observers: tuple[RefereeObserver, ...] = ()) -> dict[str, Any]:
    """Referee a whole record: a verdict per event, each hand's result, standings and winner."""
    return replay_with_referee(document, observers)[1]


def replay_with_referee(document: Mapping[str, Any],
                        observers: tuple[RefereeObserver, ...] = ()) -> tuple[Referee, dict[str, Any]]:
    """`replay`, also returning the referee in its final state."""
    validate_record(document)
    hands = document["hands"]
    full = bool(hands) and "dealt" in hands[0]
    referee = Referee(document["rules"], document["players"], document.get("options", {}),
                      document.get("teams"), knowledge="full" if full else "table", observers=observers)
    verdicts: list[dict[str, Any]] = []
    warnings: list[str] = []
    # Every verdict's `hand` is the match's hand number, the one its hand result carries; a
    # re-deal (a void deal replaced by the next record hand) keeps the number, so it can differ
    # from the record's hand: `record_hand` (1-based) says where the event is in the file.
    # (`referee.match` is read afresh each time: an undo by an observer replaces the match.)
    for h, hand in enumerate(hands):
        if full:
            deal = {"deal": hand["dealt"], "boneyard": hand.get("boneyard", [])}
            replacing = referee.match.hand is not None and not referee.match.hand_finished
            verdict = referee.apply(deal)
            if not verdict.ok:
                number = referee.match.hand_index + (1 if replacing else 2)
                verdicts.append({"hand": number, "record_hand": h + 1, "event": 0, "deal": True,
                                 **verdict.as_dict()})
        elif h > 0 and referee.match.hand_index != h and not referee.match.over:
            warnings.append(f"hands[{h}] begins but the referee is still in hand "
                            f"{referee.match.hand_index + 1} (a missing reveal?)")
        number = max(referee.match.hand_index, 0) + 1
        for e, event in enumerate(hand.get("events", [])):
            number = max(referee.match.hand_index, 0) + 1  # a reveal belongs to the hand it ends
            verdict = referee.apply(event)
            verdicts.append({"hand": number, "record_hand": h + 1, "event": e + 1, "input": event,
                             **verdict.as_dict()})
        leader = hand.get("leader")
        results = referee.match.results
        led = results[number - 1]["leader"] if number <= len(results) else None
        if leader is not None and led not in (None, leader):
            warnings.append(f"hands[{h}].leader: the record says {leader} but {led} led")
    return referee, {
        "rules": referee.rules.name,
        "players": referee.players,
        "events": verdicts,
        "hands": list(referee.match.results),
        "match": referee.match.result(),
        "warnings": warnings,
    }
