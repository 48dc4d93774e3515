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
        """The parts' rows, in order, field by field (as `np.concatenate`, dtypes promoted alike).

        Each part is let go as soon as it is copied, and the result's pages are touched only as
        they are filled (`np.empty`): given an iterator rather than a list the caller keeps, the
        parts and the result are never all held at once (make model's harvest: 2.1 GB of crops
        once, not twice)."""
        held = list(parts)
        if not held:
            raise ValueError(f"{cls.__name__}.concatenate: no parts to join")
        names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
        for number, part in enumerate(held):
            if uneven := {name for name in names if len(getattr(part, name)) != len(part)}:
                raise ValueError(f"part {number}: fields {sorted(uneven)} have other row counts than "
                                 f"{names[0]!r}'s {len(part)}")
        joined = {name: _rows_for(name, [getattr(p, name) for p in held]) for name in names}
        ends = np.cumsum([len(p) for p in held])
        while held:
            part = held.pop()  # from the end: the list held its last reference, so it is freed once copied
            end = int(ends[len(held)])
            for name in names:
                joined[name][end - len(part):end] = getattr(part, name)
        del part
        return cls(**joined)

    def rows(self, index: Any) -> Self:
        return type(self)(**{f.name: getattr(self, f.name)[index] for f in fields(self)})  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(getattr(self, fields(self)[0].name))  # type: ignore[arg-type]


def _rows_for(name: str, columns: list[np.ndarray]) -> np.ndarray:
    """An empty array for `columns` joined along their first axis; they must agree past it."""
    shapes = {column.shape[1:] for column in columns}
    if len(shapes) > 1:
        raise ValueError(f"field {name!r}: parts have rows of different shapes {sorted(shapes)}")
    dtype = np.result_type(*{column.dtype for column in columns})
    return np.empty((sum(len(column) for column in columns), *shapes.pop()), dtype)
