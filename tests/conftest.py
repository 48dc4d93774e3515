"""Hypothesis profiles: `ci` replays the same generated examples on every run (a red CI run then
points at a fixed, reproducible case); locally every run explores new ones."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# A table serves its web pages on 0.0.0.0:8080 by default. On a shared machine several test runs
# at once would fight over that port, so the tests' tables (and the services they start as
# subprocesses, which inherit this) listen on a free loopback port; tests that name a port keep it.
os.environ.setdefault("DOMINO_REFEREE__WEB__PORT", "0")
os.environ.setdefault("DOMINO_REFEREE__WEB__HOST", "127.0.0.1")
