"""`domino-referee config check FILE`: validate a table configuration and print it in full."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import tomli_w

from referee.app.config import load_config


def register(subparsers: Any) -> None:
    config = subparsers.add_parser("config", help="check table configuration files")
    actions = config.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    check = actions.add_parser("check", help="validate FILE and print the effective configuration")
    check.add_argument("file", help="a table configuration (TOML)")
    check.add_argument("--json", action="store_true", help="print the configuration as JSON")
    check.set_defaults(handler=run_check)


def run_check(args: argparse.Namespace) -> int:
    config = load_config(args.file)
    document = config.as_dict()
    if args.json:
        json.dump(document, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(f"# {config.source}: valid\n")
        sys.stdout.write(tomli_w.dumps(_without_empty(document)))
    return 0


def _without_empty(document: dict[str, Any]) -> dict[str, Any]:
    """TOML has no null: an unset key (None) is printed as absent, which is how it is written."""
    return {
        key: _without_empty(value) if isinstance(value, dict) else value
        for key, value in document.items()
        if value is not None
    }
