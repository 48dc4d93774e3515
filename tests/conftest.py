"""Hypothesis profiles: `ci` replays the same generated examples on every run (a red CI run then
points at a fixed, reproducible case); locally every run explores new ones."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
