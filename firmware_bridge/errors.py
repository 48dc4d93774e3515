"""The root of every error the scoreboard bridge raises; it imports nothing.

Each leaf also subclasses the builtin it refines (`ValueError` for bad values and frames,
`ConnectionError` for a lost link, `RuntimeError` for the simulator), as gpiozero's errors do.
`firmware_bridge` imports nothing from `referee`: the command line catches this root beside the
engine's `DominoError` and vision's `VisionError`.
"""

from __future__ import annotations


class BridgeError(Exception):
    """The scoreboard, its serial link, the GPIO or the simulator was given or gave something wrong."""
