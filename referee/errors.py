"""The root of every error the product raises on bad input.

Each leaf also subclasses the builtin it refines (mostly `ValueError`), as python-chess and
gpiozero do, so callers may catch either. The command line catches `DominoError` and prints its
message on one line; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations


class DominoError(Exception):
    """Something the user, a file, a device or the table gave us was wrong."""
