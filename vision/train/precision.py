"""How the networks' training steps do their arithmetic: the weights always in float32, the
convolutions and dense layers in bfloat16 where the CPU has native bfloat16 instructions.

On the 2-core machine `make model` is timed on (AVX-512 with BF16), a training step of either
network took about half as long with its activations stored channels-last and its convolutions
run in bfloat16 under `torch.autocast` (the reader, a batch of 256 crops: 208 -> 102 ms; the
finder, 16 patches: 83 -> 44 ms; 1.5-2 times as fast over three runs of
`python -m benchmarks.training_speed` on that busy machine), and the recipe from
nothing took 31 min instead of about 50. Refitted so on the kept finder, the reader read as many
tiles of the tuning tables as the shipped one, fitted in float32 (README). Without native
instructions PyTorch emulates bfloat16 and the step is slower than in float32, so those CPUs fit
in float32, channels-last (about 1.3 times as fast as before). The weights, the optimiser's state
and the losses stay in float32 either way, and the exported ONNX files are float32: the runtime
is the same whichever way a network was fitted.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TypeVar

import torch

Net = TypeVar("Net", bound=torch.nn.Module)

FLOAT32 = "float32"
BFLOAT16 = "bfloat16"
PRECISIONS = (FLOAT32, BFLOAT16)


def native_bfloat16() -> bool:
    """Whether this CPU runs bfloat16 arithmetic in hardware (AVX-512 BF16 or AMX)."""
    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(bool(getattr(torch.cpu, name, lambda: False)()) for name in checks)


def default_precision() -> str:
    return BFLOAT16 if native_bfloat16() else FLOAT32


def checked_precision(precision: str) -> str:
    if precision not in PRECISIONS:
        raise ValueError(f"precision {precision!r}: expected one of {', '.join(PRECISIONS)}")
    return precision


@contextlib.contextmanager
def arithmetic(precision: str) -> Iterator[None]:
    """The forward pass of a training step in `precision` (its backward pass follows it)."""
    if checked_precision(precision) == BFLOAT16:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            yield
    else:
        yield


def channels_last(batch: torch.Tensor) -> torch.Tensor:
    """A (N, C, H, W) batch stored channels-last, the layout oneDNN's CPU convolutions run fastest on."""
    return batch.contiguous(memory_format=torch.channels_last)


def stored_channels_last(model: Net) -> Net:
    """`model` with its convolutions' weights stored channels-last, as the batches are, for training."""
    model.to(memory_format=torch.channels_last)  # type: ignore[call-overload]  # in place
    return model


def stored_contiguous(model: Net) -> Net:
    """`model` back in the usual layout once fitted: the exported file is the same either way."""
    model.to(memory_format=torch.contiguous_format)  # type: ignore[call-overload]  # in place
    return model
