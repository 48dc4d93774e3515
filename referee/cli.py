"""The `domino-referee` command.

Each group of subcommands lives in its own module with a `register(subparsers)` function that
adds its parsers and sets `handler`; handlers import heavy libraries (OpenCV, numpy) themselves,
so `--help` and the rules commands start fast on a Raspberry Pi.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from referee import __version__
from referee.errors import DominoError

# Order is the order of `--help`.
COMMAND_MODULES: tuple[str, ...] = (
    "referee.commands.config_cmd",
    "referee.commands.replay_cmd",
    "referee.commands.simulate_cmd",
    "referee.commands.run_cmd",
    "referee.commands.demo_cmd",
    "vision.cli",
    "vision.calib_cli",
    "referee.commands.ledger_cmd",
    "firmware_bridge.cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="domino-referee",
        description="Referee real-table domino games: camera, rules, scoreboard, MQTT.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.handler(args)
    except DominoError as error:
        print(f"domino-referee: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return result


if __name__ == "__main__":
    sys.exit(main())
