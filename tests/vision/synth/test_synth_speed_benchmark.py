"""The renderers' speed benchmark, run small: it renders each kind of frame and reports each."""

from __future__ import annotations

import re

import pytest

from benchmarks import synth_speed


def test_the_benchmark_times_both_renderers_and_a_filmed_game(capsys: pytest.CaptureFixture[str]) -> None:
    code = synth_speed.main(["--count", "1", "--width", "320", "--height", "180",
                             "--films", "1", "--plays", "1"])
    out = capsys.readouterr().out
    assert code in (0, 1)  # 1: the widened frame cost more than BUDGET plain ones
    assert re.search(r"^plain +320x180: median \d+\.\d+ s", out, re.M), out
    assert re.search(r"^widened +320x180: median \d+\.\d+ s", out, re.M), out
    ratio = re.search(r"^widened / plain: ([\d.]+)x \(budget", out, re.M)
    assert ratio, out
    if abs(float(ratio.group(1)) - synth_speed.BUDGET) > 0.01:  # printed to two decimals
        assert (code == 0) == (float(ratio.group(1)) <= synth_speed.BUDGET), out
    film = re.search(r"^film +1280x720: median (\d+\.\d) ms of CPU per frame over 1 games of 1 plays",
                     out, re.M)
    assert film and float(film.group(1)) > 0, out
