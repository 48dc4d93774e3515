"""`domino-referee demo`: a whole refereed match on simulated hardware, with no setup."""

from __future__ import annotations

import argparse
from typing import Any

from referee.rules import RULE_SETS


def register(subparsers: Any) -> None:
    demo = subparsers.add_parser(
        "demo", help="a whole refereed match on simulated hardware (no setup needed)",
        description="Engine players lay tiles in front of a rendered camera view, vision reads the "
                    "pixels, the referee judges, an emulated scoreboard is drawn in the terminal; "
                    "MQTT goes to a broker when the config enables it. Writes the game record.")
    demo.add_argument("--config", help="a table configuration (default: the settings of "
                                       "config/examples/demo.toml)")
    demo.add_argument("--rules", choices=tuple(RULE_SETS), help="rule set")
    demo.add_argument("--players", type=int, choices=(2, 3, 4), help="number of players")
    demo.add_argument("--seed", type=int, default=1, help="shuffle and strategy seed (default 1)")
    demo.add_argument("--speed", type=float, default=0.0,
                      help="playback speed: 1 = real time, 0 = as fast as possible (default)")
    demo.add_argument("--hands", type=int,
                      help="turkish: hands in the match (default: the config file's hands, else 1)")
    demo.add_argument("--target", type=int,
                      help="italian/muggins/all-fives: points that win (default: the config file's "
                           "target, else 20, 150, 100)")
    demo.add_argument("--out", default="demo-out", help="directory for the record and the event log")
    demo.add_argument("--video", metavar="FILE", help="also write the rendered video with what vision saw")
    demo.add_argument("--no-vision", action="store_true",
                      help="feed the table inputs directly instead of through the camera (faster)")
    demo.add_argument("--resume", action="store_true",
                      help="go on with an interrupted demo's match in --out (same options and seed)")
    demo.add_argument("--quiet", action="store_true", help="no terminal scoreboard, only the summary")
    demo.add_argument("--linger", action="store_true",
                      help="keep the web pages (overlay, manager's page) up after the match until Ctrl-C")
    demo.set_defaults(handler=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    from referee.app.demo import run_demo_from_args

    status: int = run_demo_from_args(args)
    return status
