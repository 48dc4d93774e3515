"""The error vision raises for frames it cannot read."""

from __future__ import annotations

from referee.errors import DominoError


class VisionError(DominoError, ValueError):
    """A frame or image file that cannot be read: None, wrong dtype or shape, empty, corrupt."""
