"""The one command path: every command from the table manager, whatever carried it, is checked here.

MQTT `cmd/<name>` messages and the web API's commands go through `parse_command` before anything
acts on them; a malformed one raises `CommandError` quoting what was received and changes nothing.

Every input is bounded before it is parsed (the limits below are the only place they are named,
and the README's "Limits on commands" lists them): the payload's size and its JSON nesting depth
are checked by a linear scan, so no payload can make the JSON parser recurse (a 2 kB ``[[[[…]]]]``
is refused with a message, never a `RecursionError`); names have a length and a character check;
`RateLimiter` bounds the commands per second of each origin. Player names are checked against the
table's own players by `check_players` (the service does it in its consumer thread, where the names
are current, substitutes included); `parse_command(..., players=...)` does both at once.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from referee.errors import DominoError

# -- limits (named once; documented in the README, "Limits on commands") ----------------------------
MAX_PAYLOAD_BYTES = 512          # a command is at most two short names in a JSON object
MAX_JSON_DEPTH = 2               # a command is a flat object (depth 1); depth 2 is refused by its type
MAX_NAME_CHARS = 40              # a player's or substitute's name (also checked in the table config)
COMMANDS_PER_SECOND = 10.0       # sustained rate per origin (the MQTT link, each web client)
COMMAND_BURST = 20               # commands an origin may send at once before the rate applies
MAX_ORIGINS = 256                # rate-limited origins remembered (the least recently seen are forgotten)
QUOTE_CHARS = 80                 # how much of a refused payload an error message quotes
ECHO_CHARS = 200                 # how much of a refused payload `cmd/errors` echoes as "received"
MAX_SCRIPT_LINE_CHARS = 65536    # one line of a `run --inputs` script (a revealed hand is a few hundred)
MAX_SCRIPT_DEPTH = 8             # its JSON nesting (an input with tile corners is 4 deep)

# name -> (required fields, optional fields); every field is a string naming a player, except
# ``substitute``, which names a newcomer (checked for length and characters only).
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
# Fields that must name someone already at the table; the others name a newcomer.
PLAYER_FIELDS = ("player",)


class CommandError(DominoError, ValueError):
    """A command payload that cannot be acted on; the message quotes what was received."""


Reply = Callable[[str], None]


@dataclass(frozen=True)
class Command:
    """A checked command from the table manager: `name` and its string arguments.

    Whoever carried it may attach `origin` (``mqtt``, ``web``) and `reply`, which the table calls
    once with the reason if it refuses the command (a player not at the table, a match running);
    a command the table acts on is answered by its events instead."""

    name: str
    args: Mapping[str, str]
    origin: str = field(default="", compare=False)
    reply: Reply | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return self.name + "".join(f" {key}={value}" for key, value in self.args.items())


def quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """`text` shortened for an error message (a refused payload may be of any size)."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


def json_depth_exceeds(text: str, limit: int) -> bool:
    """Whether `text` nests JSON arrays/objects deeper than `limit`, by one linear scan without
    recursion (brackets inside strings do not count). Malformed text is the parser's to refuse."""
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def name_problem(value: str) -> str | None:
    """Why `value` cannot be a player's name (None when it can): length and characters."""
    if not value.strip():
        return "a name must not be empty"
    if len(value) > MAX_NAME_CHARS:
        return f"a name is at most {MAX_NAME_CHARS} characters, found {len(value)}"
    if not value.isprintable():
        bad = next(c for c in value if not c.isprintable())
        return f"a name must be printable characters, found {bad!r}"
    if value != value.strip():
        return "a name must not start or end with spaces"
    return None


def parse_command(name: str, payload: bytes, *, players: Collection[str] | None = None) -> Command:
    """Check a ``cmd/<name>`` message: an empty payload or a JSON object with the command's fields.

    `payload` is the raw body (bytes, at most `MAX_PAYLOAD_BYTES`, UTF-8 JSON nested at most
    `MAX_JSON_DEPTH` deep). With `players` (the table's names, substitutes included) every field
    naming a player is also checked against them (`check_players`). Raises `CommandError` naming
    what was wrong; never anything else, whatever the payload."""
    if name not in COMMANDS:
        raise CommandError(f"unknown command {quote(name)!r} (known: {', '.join(COMMANDS)})")
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise CommandError(f"cmd/{name}: payload of {len(payload)} bytes, allowed at most "
                           f"{MAX_PAYLOAD_BYTES}")
    try:
        text = payload.decode("utf-8").strip()
    except UnicodeDecodeError as error:
        raise CommandError(f"cmd/{name}: payload is not UTF-8 (byte {error.start}: "
                           f"{payload[error.start:error.start + 1]!r})") from None
    quoted = quote(text)
    if not text:
        data: object = {}
    else:
        if json_depth_exceeds(text, MAX_JSON_DEPTH):
            raise CommandError(f"cmd/{name}: payload {quoted!r} nests deeper than {MAX_JSON_DEPTH} "
                               "levels; a command is a flat JSON object")
        try:
            data = json.loads(text)
        except ValueError as error:   # JSONDecodeError, and int() conversions that are too long
            reason = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
            raise CommandError(f"cmd/{name}: payload {quoted!r} is not JSON ({reason})") from None
    if not isinstance(data, dict):
        raise CommandError(f"cmd/{name}: payload {quoted!r} must be a JSON object")
    required, optional = COMMANDS[name]
    unknown = sorted(set(data) - set(required) - set(optional))
    if unknown:
        raise CommandError(f"cmd/{name}: payload {quoted!r} has unknown field(s) "
                           f"{quote(', '.join(unknown))}")
    missing = [key for key in required if key not in data]
    if missing:
        raise CommandError(f"cmd/{name}: payload {quoted!r} lacks field(s) {', '.join(missing)}")
    args: dict[str, str] = {}
    for key, value in data.items():
        what = "a player name" if key in PLAYER_FIELDS else "a name"
        if not isinstance(value, str):
            raise CommandError(f"cmd/{name}: field {key!r} is {quote(repr(value))}, expected {what}")
        problem = name_problem(value)
        if problem is not None:
            raise CommandError(f"cmd/{name}: field {key!r} is {quote(repr(value))}: {problem}")
        args[key] = value
    command = Command(name, args)
    if players is not None:
        check_players(command, players)
    return command


def check_players(command: Command, players: Collection[str]) -> None:
    """Refuse a command whose player field names nobody at the table; the error lists who is."""
    for key in PLAYER_FIELDS:
        value = command.args.get(key)
        if value is not None and value not in players:
            raise CommandError(f"cmd/{command.name}: {value!r} is not a player at this table "
                               f"(players: {', '.join(players)})")


class RateLimiter:
    """A token bucket per origin: `burst` commands at once, then `rate` per second.

    Thread-safe; time comes from `now` (monotonic seconds). At most `MAX_ORIGINS` origins are
    remembered, so a stream of new origins cannot grow it without bound."""

    def __init__(self, rate: float = COMMANDS_PER_SECOND, burst: int = COMMAND_BURST, *,
                 now: Callable[[], float] = time.monotonic, max_origins: int = MAX_ORIGINS) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError(f"rate limiter: rate {rate!r} and burst {burst!r} must be positive")
        self.rate = rate
        self.burst = burst
        self._now = now
        self._max_origins = max_origins
        self._lock = threading.Lock()
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # origin -> (tokens, at)

    def allow(self, origin: str) -> bool:
        """Take one token for `origin`; False when it has sent more than the rate allows."""
        now = self._now()
        with self._lock:
            tokens, at = self._buckets.pop(origin, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + max(0.0, now - at) * self.rate)
            allowed = tokens >= 1.0
            if allowed:
                tokens -= 1.0
            self._buckets[origin] = (tokens, now)
            while len(self._buckets) > self._max_origins:
                self._buckets.popitem(last=False)
            return allowed

    def refusal(self, origin: str, name: str) -> CommandError:
        """The error that answers a command refused by `allow`."""
        return CommandError(f"cmd/{name}: too many commands from {origin} (at most {self.burst} at once, "
                            f"then {self.rate:g} per second); this one was not acted on")
