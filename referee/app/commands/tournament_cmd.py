"""`domino-referee tournament buy-ins|payout`: prize pools, rake and payouts (`referee.club.tournament`).

`payout` prices a tournament: the buy-in's row of RULES.md's table (or, with `--rake`, a club's
own rake on any buy-in), the prize pool and the house's rake for the players, and what each place
wins: the whole pool under 8 players, the `--split` from 8. With a final ranking (`--ranking`
names, or `--standings FILE`: the output of `ledger standings --json`, or a JSON list of names,
winner first) it also says what each player wins. Amounts in `--json` are integer cents.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from referee.app.commands.output import emit
from referee.club.tournament import (
    PRIZE_PERCENT,
    BuyIn,
    PayoutSplit,
    Tournament,
    TournamentError,
    format_cents,
)


def register(subparsers: Any) -> None:
    tournament = subparsers.add_parser("tournament", help="tournament prize pools, rake and payouts")
    actions = tournament.add_subparsers(dest="tournament_command", metavar="ACTION", required=True)
    table = actions.add_parser("buy-ins", help="the buy-in table: prize pool and rake per buy-in")
    table.add_argument("--json", action="store_true", help="print one JSON document")
    table.set_defaults(handler=run_buy_ins)
    payout = actions.add_parser("payout", help="the prize pool, the rake and what each place wins")
    payout.add_argument("--players", metavar="N|NAMES",
                        help="how many play, or their names comma-separated (default: the ranking's)")
    payout.add_argument("--buy-in", required=True, metavar="EUROS", help="the buy-in in euros, e.g. 7 or €7")
    payout.add_argument("--rake", metavar="PCT",
                        help="the house's share in percent instead of the buy-in table's (a house rule)")
    payout.add_argument("--split", "--splits", dest="split", metavar="P1/P2/...",
                        help="percent of the pool per place, e.g. 50/30/20 (needed from 8 players)")
    ranking = payout.add_mutually_exclusive_group()
    ranking.add_argument("--ranking", metavar="NAMES",
                         help="the final ranking, winner first, comma-separated")
    ranking.add_argument("--standings", metavar="FILE",
                         help="the final ranking from a JSON file: `ledger standings --json`, "
                              "or a list of names")
    payout.add_argument("--json", action="store_true", help="print one JSON document")
    payout.set_defaults(handler=run_payout)


def _names(text: str, what: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise TournamentError(f"{what}: found {text!r}, allowed names separated by commas")
    return names


def read_standings(path: str) -> list[str]:
    """A ranking from a file: `ledger standings --json` (most points first) or a list of names."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise TournamentError(f"{path}: cannot read the standings: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise TournamentError(f"{path}: not JSON: {error.msg} at line {error.lineno}") from None
    rows = document.get("standings") if isinstance(document, dict) else document
    if isinstance(rows, list) and all(isinstance(row, str) for row in rows):
        return list(rows)
    if isinstance(rows, list) and all(isinstance(row, dict) and isinstance(row.get("name"), str)
                                      for row in rows):
        return [row["name"] for row in rows]
    raise TournamentError(f"{path}: expected `ledger standings --json` output or a list of names")


def tournament_of(args: argparse.Namespace) -> tuple[Tournament, list[str] | None]:
    """The tournament the command line describes, and the final ranking if one was given."""
    ranking = (_names(args.ranking, "--ranking") if args.ranking
               else read_standings(args.standings) if args.standings else None)
    if args.players is None:
        if ranking is None:
            raise TournamentError("--players: give how many play (or their names), or a ranking")
        players = list(ranking)
    elif args.players.strip().isdigit():
        count = int(args.players)
        known = ranking or []
        if len(known) > count:
            raise TournamentError(f"--players: found {count}, but the ranking names {len(known)} players")
        # Unnamed players are numbered; only the ranking's names can win something by name.
        players = known + [f"player {i}" for i in range(len(known) + 1, count + 1)]
    else:
        players = _names(args.players, "--players")
    if args.rake is not None:
        buy_in = BuyIn.with_rake(args.buy_in, args.rake)
    else:
        try:
            buy_in = BuyIn.lookup(args.buy_in)
        except TournamentError as error:
            raise TournamentError(f"{error} (or give --rake PCT for a house rule)") from None
    split = PayoutSplit.parse(args.split) if args.split else None
    return Tournament(buy_in, tuple(players), split), ranking


def ordinal(place: int) -> str:
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


def run_payout(args: argparse.Namespace) -> int:
    tournament, ranking = tournament_of(args)
    buy_in = tournament.buy_in
    pool = tournament.prize_pool_cents
    shares = tournament.split.shares(pool) if tournament.split else [pool]
    payouts = tournament.payouts(ranking) if ranking is not None else None
    winners = [ranking[i] if ranking and i < len(ranking) else None for i in range(len(shares))]
    count = len(tournament.players)
    document: dict[str, Any] = {
        **tournament.as_dict(), "prize_percent": str(buy_in.prize_percent),
        "rake_percent": str(buy_in.rake_percent), "house_rule": args.rake is not None,
        "places": [{"place": i + 1, "cents": cents, "player": name}
                   for i, (cents, name) in enumerate(zip(shares, winners, strict=True))],
        "payouts": payouts,
    }
    lines = [f"buy-in {format_cents(buy_in.cents)} x {count} players = {format_cents(buy_in.cents * count)}",
             f"prize pool {format_cents(pool)} ({buy_in.prize_percent}%), "
             f"rake {format_cents(tournament.rake_cents)} ({buy_in.rake_percent}%)"
             + (" (house rule)" if args.rake is not None else ""),
             f"split {tournament.split}" if tournament.split else "the winner takes the pool"]
    lines += [f"  {ordinal(i + 1):>4}  {format_cents(cents):>10}" + (f"  {name}" if name else "")
              for i, (cents, name) in enumerate(zip(shares, winners, strict=True))]
    emit(args, document, "\n".join(lines) + "\n")
    return 0


def run_buy_ins(args: argparse.Namespace) -> int:
    rows = [BuyIn.lookup(euros) for euros in PRIZE_PERCENT]
    document = {"buy_ins": [{"buy_in": row.cents, "prize": row.prize_cents, "rake": row.rake_cents,
                             "prize_percent": str(row.prize_percent), "rake_percent": str(row.rake_percent)}
                            for row in rows]}
    text = "".join(f"{row}\n" for row in rows)
    emit(args, document, text)
    return 0
