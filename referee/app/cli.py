"""The `domino-referee` command.

Each group of subcommands lives in its own module with a `register(subparsers)` function that
adds its parsers and sets `handler`; handlers import heavy libraries (OpenCV, numpy) themselves,
so `--help` and the rules commands start fast on a Raspberry Pi.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from firmware_bridge import cli as scoreboard_cli
from firmware_bridge.errors import BridgeError
from referee import __version__
from referee.app.commands import (
    config_cmd,
    demo_cmd,
    ledger_cmd,
    replay_cmd,
    run_cmd,
    simulate_cmd,
    tournament_cmd,
)
from referee.errors import DominoError
from vision import calib_cli
from vision import cli as vision_cli
from vision.errors import VisionError

# Each package's error root: a message for the user, never a traceback (anything else is a bug).
USER_ERRORS: tuple[type[Exception], ...] = (DominoError, VisionError, BridgeError)

# Order is the order of `--help`.
COMMANDS: tuple[Callable[[Any], None], ...] = (
    config_cmd.register,
    replay_cmd.register,
    simulate_cmd.register,
    run_cmd.register,
    demo_cmd.register,
    vision_cli.register,
    calib_cli.register,
    ledger_cmd.register,
    tournament_cmd.register,
    scoreboard_cli.register,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="domino-referee",
        description="Referee real-table domino games: camera, rules, scoreboard, MQTT.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for register in COMMANDS:
        register(subparsers)
    return parser


# Exit status when whoever reads our output stops reading (`domino-referee simulate … | head`):
# 128 + SIGPIPE, what the shell reports for any filter a closed pipe stops, so `set -o pipefail`
# scripts see the output was cut short while nothing is printed.
BROKEN_PIPE_STATUS = 128 + 13


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.handler(args)
        # Flush here, so a reader that is gone shows up as BrokenPipeError below, not at exit.
        sys.stdout.flush()
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except USER_ERRORS as error:
        print(f"domino-referee: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return result


def _quiet_broken_pipe() -> int:
    """Stop quietly once stdout's reader has gone: point stdout at /dev/null, so the output still
    buffered is dropped when Python flushes at exit instead of raising a second time there."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout with no file descriptor (a test's capture): nothing to do
        pass
    return BROKEN_PIPE_STATUS


if __name__ == "__main__":
    sys.exit(main())
