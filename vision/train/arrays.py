"""Training data as dataclasses of NumPy arrays: saved to and loaded from .npz files, and (for
rows of samples) joined and indexed field by field, so each kind of data declares only its fields."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import fields
from typing import Any, Self

import numpy as np

# Joining rows reserves this many times the rows of `expected_parts` parts the size of the first:
# parts up to twice the first's size on average fit before the arrays are copied larger.
RESERVED_ROWS = 2.0


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
    def concatenate(cls, parts: Iterable[Self], *, expected_parts: int = 1) -> Self:
        """The parts' rows, in order, field by field (as `np.concatenate`, dtypes promoted alike).

        Each part is copied as it comes and let go before the next is taken, into arrays reserved
        for `RESERVED_ROWS` times the rows of `expected_parts` parts the size of the first (grown
        by copying if they run out). Pages of a reservation that no row reaches are never touched,
        so on Linux they cost no memory; given an iterator, not a list the caller keeps, the parts
        and the result are never all held at once (make model's harvest: its 2.1 GB of crops once,
        not twice). Freeing the parts only once all had come did not do that: glibc's malloc kept
        their memory for the process (4.3 GB at the peak for 2.1 GB of crops, against 2.2)."""
        names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
        joined: dict[str, np.ndarray] = {}
        filled = number = 0
        # Not enumerate(): its reused tuple would hold each part until the next had been made.
        for part in parts:
            rows = len(part)
            if uneven := [name for name in names if len(getattr(part, name)) != rows]:
                raise ValueError(f"part {number}: fields {uneven} have other row counts than "
                                 f"{names[0]!r}'s {rows}")
            if not joined:
                capacity = math.ceil(RESERVED_ROWS * max(1, rows) * max(1, expected_parts))
                joined = {name: _reserved(getattr(part, name), capacity) for name in names}
            for name in names:
                joined[name] = _room_for(name, joined[name], getattr(part, name), filled)
                joined[name][filled:filled + rows] = getattr(part, name)
            filled += rows
            number += 1  # noqa: SIM113 (see above)
            del part  # before the next part is taken: its memory then serves the next one
        if not joined:
            raise ValueError(f"{cls.__name__}.concatenate: no parts to join")
        return cls(**{name: array[:filled] for name, array in joined.items()})

    def rows(self, index: Any) -> Self:
        return type(self)(**{f.name: getattr(self, f.name)[index] for f in fields(self)})  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(getattr(self, fields(self)[0].name))  # type: ignore[arg-type]


def _reserved(column: np.ndarray, capacity: int) -> np.ndarray:
    return np.empty((capacity, *column.shape[1:]), column.dtype)


def _room_for(name: str, joined: np.ndarray, column: np.ndarray, filled: int) -> np.ndarray:
    """`joined` (its first `filled` rows kept), with room for `column`'s rows after them and a dtype
    that holds both: the same array when it has them, else a larger or wider copy."""
    if column.shape[1:] != joined.shape[1:]:
        raise ValueError(f"field {name!r}: a part's rows are {column.shape[1:]}, the rows before "
                         f"it {joined.shape[1:]}")
    dtype = np.result_type(joined.dtype, column.dtype)
    needed = filled + len(column)
    if needed <= len(joined) and dtype == joined.dtype:
        return joined
    capacity = len(joined) if needed <= len(joined) else max(needed, len(joined) * 3 // 2)
    grown = np.empty((capacity, *joined.shape[1:]), dtype)
    grown[:filled] = joined[:filled]
    return grown
