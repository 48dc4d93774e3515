"""What a command prints: one JSON document with `--json`, else text for people."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def emit(args: argparse.Namespace, document: Any, text: str) -> None:
    """`document` as JSON on stdout when `args.json`, else `text` as it is."""
    if args.json:
        json.dump(document, sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(text)
