"""Data-driven regressions: hand-computed cases per rule set (see `regress.py` for the format)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.referee.regress import run_case

HERE = Path(__file__).resolve().parent / "regressions"


def load_cases() -> list[Any]:
    cases = []
    for path in sorted(HERE.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                case = json.loads(line)
                cases.append(pytest.param(case, id=f"{path.stem}:{number}:{case['name']}"))
    return cases


@pytest.mark.parametrize("case", load_cases())
def test_regression(case: dict[str, Any]) -> None:
    assert case.get("why"), "every case says why its expectations hold"
    run_case(case)


def test_every_rule_set_has_twenty_cases() -> None:
    counts = {path.stem: sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
              for path in HERE.glob("*.jsonl")}
    assert set(counts) == {"turkish", "italian", "muggins", "all-fives"}
    assert all(count >= 20 for count in counts.values()), counts
