"""The root of every error vision raises on bad input; it imports nothing.

Like gpiozero's root error, `VisionError` lets a caller catch everything vision refuses in one
clause; each leaf also subclasses the builtin it refines (`ValueError`), so callers may catch
either. `vision` imports nothing from `referee`: the command line catches this root beside the
engine's `DominoError` and the bridge's `BridgeError`.
"""

from __future__ import annotations


class VisionError(ValueError):
    """A frame, image file, calibration or source that cannot be used: the message names what was wrong."""
