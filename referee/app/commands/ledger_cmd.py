"""`domino-referee ledger standings|player NAME|record RECORD`: the club ledger.

The ledger is `ledger.sqlite3` in the data directory: `--data-dir DIR`, else the `[storage]
data_dir` of `--config FILE`, else `./data`. `ledger record` referees the record (with the
table side: clocks, absences, leavers and substitutes) and books the finished match once; the
same record run again changes nothing. The record's optional top-level `started_at` (ISO 8601
or seconds since the epoch) dates its abandonments; without it the time of booking is used.
"""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

from referee.app.commands.output import emit
from referee.app.config import load_config
from referee.club.ledger import Ledger, LedgerError, MatchSettlement, Standing, record_hash
from referee.rules import find_rules, validate_options
from referee.table.leaving import LeavingRules, LedgerEntry
from referee.table.observer import replay_table, seat_points


def register(subparsers: Any) -> None:
    ledger = subparsers.add_parser("ledger", help="the club ledger: standings, players, booking matches")
    actions = ledger.add_subparsers(dest="ledger_command", metavar="ACTION", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", help="folder of ledger.sqlite3 (default: the config's "
                                           "storage.data_dir, or ./data)")
    common.add_argument("--config", help="a table configuration whose storage.data_dir to use")
    common.add_argument("--json", action="store_true", help="print one JSON document")
    common.add_argument("--at", metavar="TIME", help="bars as of this ISO 8601 time (default: now)")
    standings = actions.add_parser("standings", parents=[common], help="every player, most points first")
    standings.set_defaults(handler=run_standings)
    player = actions.add_parser("player", parents=[common], help="one player's points, matches, bar")
    player.add_argument("name")
    player.set_defaults(handler=run_player)
    record = actions.add_parser("record", parents=[common], help="book a finished match record (once)")
    record.add_argument("record", help="a domino-record JSON file")
    record.set_defaults(handler=run_record)


def data_dir(args: argparse.Namespace) -> Path:
    if args.data_dir:
        return Path(args.data_dir)
    if args.config:
        return Path(load_config(args.config)["storage"]["data_dir"])
    return Path("data")


def moment(args: argparse.Namespace) -> float:
    """`--at TIME` as seconds since the epoch, or the wall clock (this is the program's edge)."""
    if not args.at:
        return time.time()
    try:
        when = datetime.fromisoformat(args.at)
    except ValueError:
        raise LedgerError(f"--at: found {args.at!r}, allowed an ISO 8601 time such as "
                          "2026-11-04T20:00:00+00:00") from None
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()


def _iso(seconds: float | None) -> str | None:
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds")


def _row(standing: Standing) -> dict[str, Any]:
    row = standing.as_dict()
    row["barred_until"] = _iso(standing.barred_until)
    return row


def run_standings(args: argparse.Namespace) -> int:
    with Ledger.in_directory(data_dir(args)) as ledger:
        table = ledger.standings(now=moment(args))
    lines = [f"{'#':>3}  {'player':<20} {'points':>8} {'matches':>8} {'left':>5}  barred until"]
    for rank, s in enumerate(table, start=1):
        lines.append(f"{rank:>3}  {s.name:<20} {s.points!s:>8} {s.matches:>8} {s.abandonments:>5}  "
                     f"{_iso(s.barred_until) or ''}")
    emit(args, {"standings": [_row(s) for s in table]}, "\n".join(lines) + "\n")
    return 0


def run_player(args: argparse.Namespace) -> int:
    with Ledger.in_directory(data_dir(args)) as ledger:
        standing = ledger.standing(args.name, now=moment(args))
        history = ledger.history(args.name)
    document = {**_row(standing), "history": history}
    text = (f"{standing.name}: {standing.points} points, {standing.matches} matches, "
            f"{standing.abandonments} abandonments"
            + (f", barred until {_iso(standing.barred_until)}" if standing.barred_until else "") + "\n")
    text += "".join(f"  match {h['match']} ({h['rules']}): {h['role']} at {h['seat']}'s seat, "
                    f"{h['points']} points\n" for h in history)
    emit(args, document, text)
    return 0


def started_at(document: dict[str, Any], fallback: float) -> float:
    value = document.get("started_at")
    if value is None:
        return fallback
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            pass
        else:
            return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()
    raise LedgerError(f"started_at: found {value!r}, allowed an ISO 8601 time or seconds since the epoch")


def settlement_for(document: dict[str, Any], *, source: str,
                   now: float) -> tuple[MatchSettlement, dict[str, Any]]:
    """Referee the record and say what the ledger books for it."""
    report, observer, referee = replay_table(document)
    report.setdefault("table", observer.summary(referee))
    rules = report["rules"]
    match = report.get("match") or {}
    options = validate_options(rules, document.get("options", {}) or {})
    entries: list[LedgerEntry]
    if find_rules(rules).ledger_points:
        entries = observer.side.seating.settle(seat_points(referee))
        leaving = LeavingRules.from_options(options)
    else:
        # Ledger points are the turkish club's; other rule sets count matches played.
        entries = [LedgerEntry(p, p, "player", Fraction(0)) for p in report["players"]] if match.get("over") \
            else []
        leaving = LeavingRules()
    settlement = MatchSettlement(record_hash(document), rules, started_at(document, now), tuple(entries),
                                 bool(match.get("over")), source, leaving)
    return settlement, report


def run_record(args: argparse.Namespace) -> int:
    from referee.record import load_record

    document = load_record(args.record)
    now = moment(args)
    settlement, report = settlement_for(document, source=str(args.record), now=now)
    if not settlement.entries:
        raise LedgerError(f"{args.record}: the match is not finished and nobody left it: nothing to book")
    with Ledger.in_directory(data_dir(args)) as ledger:
        # A barred player should not have started: the match still counts, with a warning.
        warnings = [f"{name} was barred until {_iso(until)} when this match started"
                    for name in report["players"]
                    if name in ledger.players()
                    and (until := ledger.barred_until(name, settlement.started_at)) is not None]
        booking = ledger.apply(settlement, applied_at=now)
    document_out = {**booking.as_dict(), "record_hash": settlement.record_hash,
                    "finished": settlement.finished,
                    "bars": {k: _iso(v) for k, v in booking.bars.items()},
                    "warnings": warnings, "table": report["table"]}
    if booking.applied:
        text = f"booked match {booking.match_id} from {args.record}:\n" + "".join(
            f"  {name}: {points}\n" for name, points in booking.points.items())
        text += "".join(f"  {name} is barred until {_iso(until)}\n" for name, until in booking.bars.items())
    else:
        text = f"{args.record} was already booked as match {booking.match_id}: nothing changed\n"
    text += "".join(f"warning: {warning}\n" for warning in warnings)
    emit(args, document_out, text)
    return 0
