"""Training data as dataclasses of NumPy arrays: saved to and loaded from .npz files, and (for
rows of samples) joined and indexed field by field, so each kind of data declares only its fields."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields
from typing import Any, Self

import numpy as np


class Saved:
    """A dataclass whose fields are arrays, kept in one .npz file."""

    def save(self, path: str) -> None:
        np.savez(path, **{f.name: getattr(self, f.name) for f in fields(self)})  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: str) -> Self:
        with np.load(path) as data:
            return cls(**{name: data[name] for name in data.files})


class Rows(Saved):
    """A dataclass whose fields are arrays with one row per sample along their first axis."""

    @classmethod
    def concatenate(cls, parts: Iterable[Self]) -> Self:
        parts = list(parts)
        names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
        return cls(**{name: np.concatenate([getattr(p, name) for p in parts]) for name in names})

    def rows(self, index: Any) -> Self:
        return type(self)(**{f.name: getattr(self, f.name)[index] for f in fields(self)})  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(getattr(self, fields(self)[0].name))  # type: ignore[arg-type]
