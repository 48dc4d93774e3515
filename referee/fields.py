"""Typed, documented settings: one `Field` describes a key, its type, default and allowed values.

Both the table configuration (`referee.app.config`) and the rule-set options (`referee.options`) are
declared as tuples of fields, so one validator gives every key the same one-line error message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.errors import DominoError


class SettingError(DominoError, ValueError):
    """A setting has an unknown key, a wrong type or a value outside what is allowed.

    `key` is the dotted path of the offending key (``mqtt.port``), `found` the value as written.
    """

    def __init__(self, key: str, message: str, *, source: str = "") -> None:
        self.key = key
        self.source = source
        self.detail = message
        where = f"{source}: " if source else ""
        super().__init__(f"{where}{key}: {message}")

    def with_source(self, source: str) -> SettingError:
        return SettingError(self.key, self.detail, source=source)


_TYPE_NAMES: dict[type, str] = {
    bool: "a boolean (true/false)",
    int: "an integer",
    float: "a number",
    str: "a string",
    list: "a list",
    dict: "a table",
}


def _describe(value: object) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


@dataclass(frozen=True)
class Field:
    """One key: `kind` is bool, int, float, str or list; `item` the element type of a list.

    `choices` limits the value to a set; `minimum`/`maximum` bound numbers (and list lengths);
    `multiple_of` asks an integer to be a multiple of it (a target in fives); `check` is a last
    validator that returns an error text or None.
    """

    name: str
    kind: type
    default: Any
    doc: str
    choices: Sequence[Any] | None = None
    minimum: float | None = None
    maximum: float | None = None
    item: type | None = None
    nullable: bool = False
    check: Callable[[Any], str | None] | None = None
    multiple_of: int | None = None

    def allowed(self) -> str:
        if self.choices is not None:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        text = _TYPE_NAMES.get(self.kind, self.kind.__name__)
        if self.kind is list and self.item is not None:
            text = f"a list of {_TYPE_NAMES.get(self.item, self.item.__name__).removeprefix('a ')}s"
        minimum = self.minimum
        if self.multiple_of is not None:
            text = f"a multiple of {self.multiple_of}"
            if minimum is not None and 0 < minimum <= self.multiple_of:
                text, minimum = f"a positive multiple of {self.multiple_of}", None
        if minimum is not None and self.maximum is not None:
            text += f" from {self.minimum:g} to {self.maximum:g}"
        elif minimum is not None:
            text += f" of at least {minimum:g}"
        elif self.maximum is not None:
            text += f" of at most {self.maximum:g}"
        if self.nullable:
            text += " (or empty)"
        return text

    def _fail(self, path: str, value: object) -> SettingError:
        return SettingError(path, f"found {_describe(value)}, allowed {self.allowed()}")

    def validate(self, value: object, path: str) -> Any:
        """Return the value converted to the field's type, or raise `SettingError`."""
        if value is None or (self.nullable and value == ""):
            if self.nullable:
                return None
            raise self._fail(path, value)
        converted = self._convert(value, path)
        if self.choices is not None and converted not in self.choices:
            raise self._fail(path, value)
        size = len(converted) if isinstance(converted, list) else converted
        if isinstance(size, int | float) and not isinstance(size, bool):
            if self.minimum is not None and size < self.minimum:
                raise self._fail(path, value)
            if self.maximum is not None and size > self.maximum:
                raise self._fail(path, value)
        if self.multiple_of is not None and converted % self.multiple_of:
            raise self._fail(path, value)
        if self.check is not None:
            problem = self.check(converted)
            if problem:
                raise SettingError(path, f"found {_describe(value)}: {problem}")
        return converted

    def _convert(self, value: object, path: str) -> Any:
        kind = self.kind
        # bool is an int in Python; a config that says `hands = true` is a mistake, not 1.
        if kind is bool:
            if isinstance(value, bool):
                return value
            raise self._fail(path, value)
        if kind is int:
            if isinstance(value, int) and not isinstance(value, bool):
                return value
            raise self._fail(path, value)
        if kind is float:
            if isinstance(value, int | float) and not isinstance(value, bool):
                return float(value)
            raise self._fail(path, value)
        if kind is str:
            if isinstance(value, str):
                return value
            raise self._fail(path, value)
        if kind is dict:
            if isinstance(value, dict):
                return dict(value)
            raise self._fail(path, value)
        if kind is list:
            if not isinstance(value, list):
                raise self._fail(path, value)
            if self.item is None:
                return list(value)
            element = Field(self.name, self.item, None, self.doc)
            return [element.validate(v, f"{path}[{i}]") for i, v in enumerate(value)]
        raise TypeError(f"unsupported field kind {kind!r}")


def validate_section(
    fields: Sequence[Field], values: Mapping[str, object], prefix: str
) -> dict[str, Any]:
    """Validate a mapping against `fields`: unknown keys are errors, missing keys take defaults."""
    by_name = {f.name: f for f in fields}
    for key in values:
        if key not in by_name:
            known = ", ".join(sorted(by_name)) or "none"
            raise SettingError(f"{prefix}{key}", f"unknown key (known keys: {known})")
    result: dict[str, Any] = {}
    for f in fields:
        path = f"{prefix}{f.name}"
        result[f.name] = f.validate(values[f.name], path) if f.name in values else f.default
    return result
