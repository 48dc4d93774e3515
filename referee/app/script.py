"""A simulated match as the inputs a real table would give the service.

`table_script(record)` turns a full-knowledge record (from self-play) into script lines: what the
camera would report (tiles placed with their end, the boneyard's face-down count after each draw,
the hands revealed at each hand's end), the Pass button, and the leader's seat button. Tests and the
demo's camera-less mode feed these lines; the demo proper renders the same plays as video instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.referee import Referee


def table_script(record: Mapping[str, Any], *, seconds_per_move: float = 2.0) -> list[dict[str, Any]]:
    """Script lines (dicts with ``kind``) for a record; ``t`` grows by `seconds_per_move`.

    A hand the simulation ended as blocked because it knew every hand, but whose block the table
    alone does not prove, gets the Pass presses a real table would need (found by following the
    hand with a table-knowledge referee).
    """
    players: list[str] = list(record["players"])
    table = Referee(record["rules"], players, options=record.get("options", {}), teams=record.get("teams"),
                    knowledge="table")
    lines: list[dict[str, Any]] = [{"kind": "start", "t": 0.0}]
    t = 0.0
    for hand in record["hands"]:
        held = {name: list(tiles) for name, tiles in hand.get("dealt", {}).items()}
        boneyard = list(hand.get("boneyard", []))
        events = hand["events"]
        if not any("play" in event for event in events):
            continue
        t += seconds_per_move
        lines.append({"kind": "boneyard", "count": len(boneyard), "t": t})
        if hand.get("leader"):
            lines.append({"kind": "lead", "player": hand["leader"], "t": t})
        for event in events:
            player = event.get("player")
            t += seconds_per_move
            _follow(table, event)
            if "play" in event:
                tile = str(event["play"])
                held[player].remove(_canonical(tile, held[player]))
                line: dict[str, Any] = {"kind": "placed", "tile": tile, "t": t}
                if event.get("end"):
                    line["end"] = event["end"]
                lines.append(line)
            elif "draw" in event:
                drawn = event["draw"]
                tile = boneyard.pop(0) if not isinstance(drawn, str) else drawn
                if isinstance(drawn, str):
                    boneyard.remove(drawn)
                held[player].append(tile)
                lines.append({"kind": "boneyard", "count": len(boneyard), "t": t})
            elif "pass" in event:
                lines.append({"kind": "pass", "t": t})
        while table.snapshot().get("awaiting") == "move" and table.turn is not None and not table.match.over:
            t += seconds_per_move
            if not table.apply({"player": table.turn, "pass": True}).ok:
                break
            lines.append({"kind": "pass", "t": t})
        if table.match.over:
            break
        t += seconds_per_move
        table.apply({"reveal": {name: tiles for name, tiles in held.items() if tiles}})
        for seat, name in enumerate(players):
            if held.get(name):
                lines.append({"kind": "revealed", "zone": seat, "tiles": sorted(held[name]), "t": t})
        for tile in _on_table(events):
            lines.append({"kind": "removed", "tile": tile, "t": t})
    return lines


def _follow(table: Referee, event: Mapping[str, Any]) -> None:
    """Apply a simulated event to the table-knowledge referee as the table would report it."""
    if "draw" in event:
        table.apply({"player": event["player"], "draw": 1})
    else:
        table.apply({key: value for key, value in event.items() if key != "t"})


def _canonical(tile: str, held: list[str]) -> str:
    a, b = tile.split("-")
    for candidate in (tile, f"{b}-{a}"):
        if candidate in held:
            return candidate
    raise ValueError(f"{tile} was played but not held ({held})")


def _on_table(events: list[Mapping[str, Any]]) -> list[str]:
    return [str(event["play"]) for event in events if "play" in event]
