"""Whether the optional `train` extra (PyTorch) is here, and what a test does when it is not.

`make test` does not install it: in a user's clone the tests that fit, export or time a network
skip with a one-line reason. CI installs it (`CI=true`), and there its absence fails the run.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

MISSING = "the train extra is not installed (pip install -e '.[train]')"


def require_torch(*, module: bool = False) -> ModuleType:
    """`torch`; skips (fails in CI) the test, or the whole module, when it is not installed."""
    try:
        return importlib.import_module("torch")
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI: {MISSING}", pytrace=False)
        pytest.skip(MISSING, allow_module_level=module)
        raise AssertionError("unreachable") from None  # pytest.skip raises
