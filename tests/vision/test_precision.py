"""The training steps' arithmetic (`vision.train.precision`) and its benchmark: bfloat16 changes
how a step computes, never what the fitted network is laid out as or exports (needs the `train`
extra; CI installs it)."""

from __future__ import annotations

import pytest

from tests.train_extra import require_torch

torch = require_torch(module=True)
from benchmarks.training_speed import WAYS, measure  # noqa: E402
from vision.train.fit import main  # noqa: E402
from vision.train.net import TileReaderNet  # noqa: E402
from vision.train.precision import (  # noqa: E402
    BFLOAT16,
    FLOAT32,
    arithmetic,
    checked_precision,
    default_precision,
    native_bfloat16,
    stored_channels_last,
    stored_contiguous,
)


def test_an_unknown_precision_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="'float16'"):
        checked_precision("float16")
    with pytest.raises(ValueError, match="'half'"), arithmetic("half"):
        pass


def test_the_cli_refuses_an_unknown_precision_before_any_work(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--precision", "float16"])
    assert "float16" in capsys.readouterr().err


def test_bfloat16_runs_the_convolutions_in_bfloat16_and_float32_does_not() -> None:
    convolution = torch.nn.Conv2d(3, 4, 3)
    x = torch.randn(2, 3, 8, 8)
    with arithmetic(FLOAT32):
        assert convolution(x).dtype == torch.float32
    with arithmetic(BFLOAT16):
        assert convolution(x).dtype == torch.bfloat16
    assert default_precision() == (BFLOAT16 if native_bfloat16() else FLOAT32)


def test_a_reader_stored_channels_last_answers_as_it_does_stored_as_usual() -> None:
    torch.manual_seed(0)
    reader = TileReaderNet().eval()
    x = torch.randn(4, 3, 64, 32)
    with torch.no_grad():
        before = reader(x)
        stored_channels_last(reader)
        first = next(p for p in reader.parameters() if p.dim() == 4)
        assert first.is_contiguous(memory_format=torch.channels_last) and not first.is_contiguous()
        during = reader(x.contiguous(memory_format=torch.channels_last))
        stored_contiguous(reader)
        assert first.is_contiguous()
        after = reader(x)
    for a, b, c in zip(before, during, after, strict=True):
        assert torch.allclose(a, b, atol=1e-5) and torch.equal(a, c)


def test_the_training_speed_benchmark_times_every_way_of_both_networks() -> None:
    figures = measure(steps=1)
    assert set(figures) == {"reader", "finder"}
    for ways in figures.values():
        assert len(ways) == len(WAYS) and all(ms > 0 for ms in ways.values())
