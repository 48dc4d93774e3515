"""The one command path: every command from the table manager, whatever carried it, is checked here.

MQTT `cmd/<name>` messages and the web API's commands go through `parse_command` before anything
acts on them; a malformed one raises `CommandError` quoting what was received and changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from referee.errors import DominoError

# name -> (required fields, optional fields); every field is a string naming a player.
COMMANDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "start": ((), ()),
    "continue": ((), ()),
    "pass": ((), ()),
    "undo": ((), ()),
    "sync": ((), ()),
    "lead": (("player",), ()),
    "away": (("player",), ()),
    "back": (("player",), ()),
    "leave": (("player",), ()),
    "substitute": (("player", "substitute"), ()),
    # The table manager's corrections (the web page's "correct"): tiles as "3-5", ends as "left".
    "correct": (("tile",), ("end",)),
    "missed": (("player", "tile"), ("end",)),
}


class CommandError(DominoError, ValueError):
    """A command payload that cannot be acted on; the message quotes what was received."""


@dataclass(frozen=True)
class Command:
    """A checked command from the table manager: `name` and its string arguments."""

    name: str
    args: Mapping[str, str]

    def __str__(self) -> str:
        return self.name + "".join(f" {key}={value}" for key, value in self.args.items())


def parse_command(name: str, payload: bytes) -> Command:
    """Check a ``cmd/<name>`` message: an empty payload or a JSON object with the command's fields."""
    if name not in COMMANDS:
        raise CommandError(f"unknown command {name!r} (known: {', '.join(COMMANDS)})")
    text = payload.decode("utf-8", errors="replace").strip()
    quoted = text if len(text) <= 80 else text[:77] + "..."
    if not text:
        data: object = {}
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise CommandError(f"cmd/{name}: payload {quoted!r} is not JSON ({error.msg})") from None
    if not isinstance(data, dict):
        raise CommandError(f"cmd/{name}: payload {quoted!r} must be a JSON object")
    required, optional = COMMANDS[name]
    unknown = sorted(set(data) - set(required) - set(optional))
    if unknown:
        raise CommandError(f"cmd/{name}: payload {quoted!r} has unknown field(s) {', '.join(unknown)}")
    missing = [key for key in required if key not in data]
    if missing:
        raise CommandError(f"cmd/{name}: payload {quoted!r} lacks field(s) {', '.join(missing)}")
    for key, value in data.items():
        if not isinstance(value, str) or not value.strip():
            raise CommandError(f"cmd/{name}: field {key!r} is {value!r}, expected a player name")
    return Command(name, {key: str(value) for key, value in data.items()})
