"""`domino-referee simulate --rules NAME ...`: self-play with the engine's players; writes records."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from referee.fields import SettingError
from referee.players import STRATEGIES, find_strategy
from referee.record import dump_record
from referee.rules import RULE_SETS, find_rules
from referee.simulate import DEFAULT_NAMES, simulate_match


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("simulate",
                                   help="self-play games with the engine's players; writes records")
    parser.add_argument("--rules", required=True, choices=sorted(RULE_SETS), help="rule set")
    parser.add_argument("--players", type=int, default=None,
                        help="2, 3 or 4 (default: 2 for italian, else 4)")
    parser.add_argument("--games", type=int, default=1, help="matches to play (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the shuffles and players (default 0)")
    parser.add_argument("--out", default=None, help="write each match's record into this folder")
    parser.add_argument("--strategy", default="greedy,random",
                        help=f"comma-separated, one per seat, repeated ({', '.join(STRATEGIES)}; "
                             "default greedy,random)")
    parser.add_argument("--teams", action="store_true", help="4 players as two partnerships (seats 0+2, 1+3)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a rule option (JSON value), e.g. --option target=100")
    parser.add_argument("--json", action="store_true", help="print a JSON summary")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    options: dict[str, object] = {}
    for text in args.option:
        key, sep, value = text.partition("=")
        if not sep:
            raise SettingError("--option", f"expected KEY=VALUE, found {text!r}")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    rules = find_rules(args.rules)(options)
    count = args.players or rules.default_players
    if args.games < 1:
        raise SettingError("--games", f"must be at least 1, found {args.games}")
    names = list(DEFAULT_NAMES[:count]) if count <= 4 else [f"Player {i + 1}" for i in range(count)]
    teams = [[names[0], names[2]], [names[1], names[3]]] if args.teams and count == 4 else None
    kinds = [find_strategy(name.strip()) for name in args.strategy.split(",") if name.strip()]
    if not kinds:
        raise SettingError("--strategy", "name at least one strategy")
    strategies = [kinds[seat % len(kinds)] for seat in range(count)]
    rng = random.Random(args.seed)
    out = Path(args.out) if args.out else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    wins: Counter[str] = Counter()
    games = []
    for game in range(args.games):
        match, record = simulate_match(rules, names, strategies, rng, teams, with_record=out is not None)
        result = match.result()
        # Co-winners (a shared first place in turkish) are counted together, as one outcome.
        wins[" = ".join(result["winning_sides"]) or "(no winner)"] += 1
        path = None
        if out is not None and record is not None:
            path = out / f"{args.rules}-{args.seed}-{game + 1:04d}.json"
            dump_record(record, path)
        games.append({"game": game + 1, "record": str(path) if path else None, **result})
    if args.json:
        json.dump({"rules": args.rules, "players": names, "games": games, "wins": dict(wins)},
                  sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
        return 0
    for game_result in games:
        sides = game_result["winning_sides"]
        winner = (f"{' and '.join(sides)} {'share first place' if len(sides) > 1 else 'wins'}"
                  if sides else "nobody wins")
        where = f" -> {game_result['record']}" if game_result["record"] else ""
        sys.stdout.write(f"game {game_result['game']}: {winner} after {game_result['hands_played']} "
                         f"hands ({game_result['reason']}){where}\n")
    sys.stdout.write("wins: " + ", ".join(f"{k} {v}" for k, v in wins.most_common()) + "\n")
    return 0
