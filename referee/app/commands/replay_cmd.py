"""`domino-referee replay RECORD [--json]`: referee a recorded game event by event."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from referee.record import load_record
from referee.table.observer import format_table, replay_with_table


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("replay", help="referee a recorded game: a verdict for every event")
    parser.add_argument("record", help="a domino-record JSON file")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    report = replay_with_table(load_record(args.record))
    if args.json:
        json.dump(report, sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(format_report(report) + format_table(report.get("table")))
    return 0


def format_report(report: dict[str, Any]) -> str:
    lines = [f"{report['rules']}: {', '.join(report['players'])}"]
    results = {result["hand"]: result for result in report["hands"]}
    current = 0
    for verdict in report["events"]:
        if verdict["hand"] != current:
            current = verdict["hand"]
            lines.append(f"hand {current}")
        where = f"  {verdict['event']:>3}. {describe_event(verdict.get('input', {}))}:"
        if verdict["ok"]:
            text = f"{where} ok" + (f", {verdict['points']} points" if verdict["points"] else "")
        else:
            text = f"{where} REFUSED: {verdict['error']}"
        lines.append(text)
        lines.extend(f"       finding: {finding}" for finding in verdict.get("findings", []))
        result = verdict.get("hand_result")
        if result is not None:
            lines.append("       " + describe_hand(result))
    for hand_no in sorted(set(results) - {v["hand"] for v in report["events"]}):
        lines.append(f"hand {hand_no}: " + describe_hand(results[hand_no]))
    lines.extend(f"warning: {warning}" for warning in report["warnings"])
    match = report["match"]
    lines.append("standings:")
    for row in match["standings"]:
        value = (f"penalty {row['penalty']}" + (f", {row['points']:+g} points" if "points" in row else "")
                 if "penalty" in row else f"{row['score']:g} points")
        lines.append(f"  {row['side']}: {value}")
    if match["over"]:
        sides = match.get("winning_sides") or []
        label = "co-winners" if len(sides) > 1 else "winner"
        winner = " and ".join(sides) or "nobody (a tie)"
        if sorted(match.get("winner_players", [])) != sorted(match.get("winners", [])):
            winner += f" (finished by {', '.join(match['winner_players']) or 'nobody'})"
        lines.append(f"{label}: {winner} ({match['reason']}, {match['hands_played']} hands)")
    else:
        lines.append(f"match not finished after {match['hands_played']} hands")
    return "\n".join(lines) + "\n"


def describe_event(event: dict[str, Any]) -> str:
    player = event.get("player", "table")
    for action in ("play", "draw", "pass", "reveal", "deal"):
        if action in event:
            if action == "play":
                return f"{player} plays {event['play']}" + (f" {event['end']}" if "end" in event else "")
            if action == "draw":
                return f"{player} draws {event['draw']}"
            if action == "reveal":
                return "reveal " + "; ".join(f"{k} {' '.join(v)}" for k, v in event["reveal"].items())
            return f"{player} {action}es" if action == "pass" else action
    others = [k for k in event if k not in ("player", "t")]
    return f"{player} {others[0] if others else '?'}"


def describe_hand(result: dict[str, Any]) -> str:
    how = f"{result['winner']} went out" if result["outcome"] == "out" else str(result["outcome"])
    parts = [f"hand {result['hand']} over: {how}"]
    if "penalties" in result:
        parts.append("penalties " + ", ".join(f"{k} {v}" for k, v in result["penalties"].items()))
    if "points" in result:
        parts.append("points " + ", ".join(f"{k} {v:g}" for k, v in result["points"].items()))
    if any(result.get("play_points", {}).values()):
        parts.append("plays scored " + ", ".join(f"{k} {v:g}" for k, v in result["play_points"].items()))
    return "; ".join(parts)
