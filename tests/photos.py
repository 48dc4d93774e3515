"""Where the shared real photos are, and what a test does when they are not there.

The photos live beside the project (`../shared/datasets/real-photos`, as CI lays them out) or at
`$DOMINO_REAL_PHOTOS`. A user's clone has neither: the tests that read them skip with a one-line
reason. In CI (`CI=true`) the photos must be there, and their absence fails the run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ENV_VAR = "DOMINO_REAL_PHOTOS"
ROOT = Path(__file__).resolve().parents[1]


def _locate() -> Path | None:
    configured = os.environ.get(ENV_VAR)
    candidate = Path(configured) if configured else ROOT.parent / "shared" / "datasets" / "real-photos"
    return candidate if (candidate / "labels.json").is_file() else None


REAL_PHOTOS: Path | None = _locate()
MISSING = (f"the shared real photos are not here (set {ENV_VAR}, or put shared/datasets/real-photos "
           f"beside the clone)")


def require_real_photos(*, module: bool = False) -> Path:
    """The photos' folder; skips (fails in CI) the test, or the whole module, when it is missing."""
    if REAL_PHOTOS is not None:
        return REAL_PHOTOS
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI: {MISSING}", pytrace=False)
    pytest.skip(MISSING, allow_module_level=module)
    raise AssertionError("unreachable")  # pytest.skip raises
