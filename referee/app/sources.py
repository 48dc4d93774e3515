"""Input sources that are not devices: a JSON-lines script of table inputs, and the ticker.

A script line is one input: ``{"kind": "placed", "tile": "3-5", "end": "left"}``,
``{"kind": "boneyard", "count": 13}``, ``{"kind": "pass"}``, ``{"kind": "revealed", "zone": 1,
"tiles": ["1-2"]}``, ``{"kind": "start"}``; an optional ``"t"`` gives the match time in seconds.
`domino-referee run --inputs FILE` drives a table from such a file (or ``-`` for stdin), which is how
a table is replayed without a camera and how the crash tests drive a real service process. Each
input remembers its line number, so a restarted service skips the lines it already logged.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from typing import Any

from referee.app.intake import MAX_SCRIPT_DEPTH, MAX_SCRIPT_LINE_CHARS, json_depth_exceeds, quote
from referee.app.ports import Feed, Input, InputKind
from referee.errors import DominoError

# What a script may say: everything a person or the camera does (a timeout is the clock's own).
SCRIPT_KINDS: tuple[InputKind, ...] = tuple(
    kind for kind in InputKind if kind not in (InputKind.TIMEOUT, InputKind.TICK, InputKind.STOP))


class ScriptError(DominoError, ValueError):
    """A script line that is not an input; the message names the line and quotes it."""


def parse_script_line(text: str, number: int) -> Input | None:
    """One script line as an `Input` (None for a blank line or a ``#`` comment)."""
    stripped = text.strip()
    if not stripped or stripped.startswith("#"):
        return None
    quoted = quote(stripped)
    if len(stripped) > MAX_SCRIPT_LINE_CHARS:
        raise ScriptError(f"line {number}: {quoted!r} is {len(stripped)} characters, allowed at most "
                          f"{MAX_SCRIPT_LINE_CHARS}")
    if json_depth_exceeds(stripped, MAX_SCRIPT_DEPTH):   # before parsing: the parser recurses
        raise ScriptError(f"line {number}: {quoted!r} nests deeper than {MAX_SCRIPT_DEPTH} levels")
    try:
        data: Any = json.loads(stripped)
    except json.JSONDecodeError as error:
        raise ScriptError(f"line {number}: {quoted!r} is not JSON ({error.msg})") from None
    if not isinstance(data, dict) or data.get("kind") not in SCRIPT_KINDS:
        raise ScriptError(f"line {number}: {quoted!r} needs \"kind\", one of {', '.join(SCRIPT_KINDS)}")
    kind = data.pop("kind")
    t = data.pop("t", None)
    if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or t < 0):
        raise ScriptError(f"line {number}: {quoted!r}: \"t\" must be a number of seconds >= 0")
    data["line"] = number
    return Input(InputKind(kind), data, origin="script", t=None if t is None else float(t))


def run_script(lines: Iterable[str], feed: Feed, now: Callable[[], float], *, skip_through: int = 0,
               interval: float = 0.0, stop: threading.Event | None = None,
               on_error: Callable[[str], None] | None = None) -> int:
    """Feed every input of a script (after line `skip_through`); returns the number fed."""
    stop = stop or threading.Event()
    fed = 0
    for number, text in enumerate(lines, 1):
        if stop.is_set():
            break
        if number <= skip_through:
            continue
        try:
            inp = parse_script_line(text, number)
        except ScriptError as error:
            if on_error is not None:
                on_error(str(error))
            continue
        if inp is None:
            continue
        if interval and stop.wait(interval):  # pacing a replay, like a table's real rhythm
            break
        feed(Input(inp.kind, inp.data, now(), inp.origin, inp.t))
        fed += 1
    return fed
