"""Bounded input on the one command path (issue 17): sizes, depth, names, rates, players, and
`cmd/errors` only ever answering a command; over a real mosquitto where it matters."""

from __future__ import annotations

import contextlib
import json
import queue
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.app.intake import (
    COMMAND_BURST,
    COMMANDS,
    MAX_JSON_DEPTH,
    MAX_NAME_CHARS,
    MAX_PAYLOAD_BYTES,
    Command,
    CommandError,
    RateLimiter,
    json_depth_exceeds,
    parse_command,
)
from referee.app.mqtt import MqttLink

from .mqtt_table import HAND, Broker, Clock, Watcher, broker, serve, settings_for

__all__ = ["broker"]   # the fixture, imported for the tests below

NAMES = sorted(COMMANDS)
BRACKETS = b"[" * 1024 + b"]" * 1024     # the 2 kB payload that killed the MQTT thread


# -- the parser ----------------------------------------------------------------------------------
@pytest.mark.parametrize("payload", [BRACKETS, b"{" * 3000, b'{"player": ' + b"[" * 5000,
                                     b'{"a": {"b": {"c": 1}}}'])
def test_deep_nesting_is_refused_without_recursion(payload: bytes) -> None:
    with pytest.raises(CommandError) as error:
        parse_command("pass", payload)
    assert "nests deeper" in str(error.value) or "bytes, allowed at most" in str(error.value)


def test_depth_is_measured_by_a_scan_not_by_parsing() -> None:
    deep = "[" * 100_000     # far beyond the interpreter's recursion limit
    assert json_depth_exceeds(deep, MAX_JSON_DEPTH)
    assert not json_depth_exceeds('{"player": "[[[[{{{{"}', 1)   # brackets inside a string
    assert not json_depth_exceeds('{"player": "a\\"[[["}', 1)    # an escaped quote stays inside


def test_size_and_name_limits() -> None:
    huge = json.dumps({"player": "x" * 1_000_000}).encode()
    with pytest.raises(CommandError, match=f"allowed at most {MAX_PAYLOAD_BYTES}"):
        parse_command("away", huge)
    with pytest.raises(CommandError, match=f"at most {MAX_NAME_CHARS} characters"):
        parse_command("substitute", json.dumps({"player": "Cem", "substitute": "E" * 41}).encode())
    for bad in ["Efe\x00", "Efe\n", "\u200bEfe", " Efe", "\ud800"]:
        with pytest.raises(CommandError, match="name"):
            parse_command("substitute", json.dumps({"player": "Cem", "substitute": bad}).encode())
    with pytest.raises(CommandError, match="not UTF-8"):
        parse_command("away", b'{"player": "\xff"}')
    assert parse_command("substitute", '{"player": "Cem", "substitute": "Efe Ömer-Şen"}'.encode()) == \
        Command("substitute", {"player": "Cem", "substitute": "Efe Ömer-Şen"})


def test_players_are_checked_against_the_table() -> None:
    with pytest.raises(CommandError, match=r"'Zed' is not a player at this table \(players: Ayşe, Burak\)"):
        parse_command("lead", b'{"player": "Zed"}', players=("Ayşe", "Burak"))
    assert parse_command("lead", '{"player": "Ayşe"}'.encode(), players=("Ayşe", "Burak")).args == \
        {"player": "Ayşe"}
    # A substitute is a newcomer: only the seat's player must be at the table.
    assert parse_command("substitute", b'{"player": "Burak", "substitute": "Efe"}',
                         players=("Ayşe", "Burak")).args["substitute"] == "Efe"


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=50),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8),
                                                                                       inner, max_size=4),
                           max_leaves=20)


@given(st.sampled_from([*NAMES, "errors", "", "x" * 300]),
       st.one_of(st.binary(max_size=700), json_values.map(lambda v: json.dumps(v).encode()),
                 st.integers(0, 5000).map(lambda n: b"[" * n + b"]" * n)))
def test_parse_command_refuses_anything_with_a_command_error(name: str, payload: bytes) -> None:
    try:
        command = parse_command(name, payload, players=("Ayşe", "Burak"))
    except CommandError as error:
        assert len(str(error)) < 600     # the message quotes, it does not copy
        return
    assert command.name == name and len(payload) <= MAX_PAYLOAD_BYTES
    required, optional = COMMANDS[name]
    assert set(required) <= set(command.args) <= set(required) | set(optional)
    assert all(len(value) <= MAX_NAME_CHARS and value.isprintable() for value in command.args.values())


@given(st.sampled_from(NAMES), st.dictionaries(st.sampled_from(["player", "substitute"]),
                                               st.sampled_from(["Ayşe", "Burak", "Efe"]), max_size=2))
def test_well_formed_commands_round_trip(name: str, args: dict[str, str]) -> None:
    payload = json.dumps(args, ensure_ascii=False).encode()
    with contextlib.suppress(CommandError):
        assert parse_command(name, payload).args == args


def test_rate_limiter_per_origin_with_injected_time() -> None:
    clock = Clock()
    limiter = RateLimiter(rate=2.0, burst=3, now=clock, max_origins=2)
    assert [limiter.allow("mqtt") for _ in range(4)] == [True, True, True, False]
    assert limiter.allow("web:1")        # each origin has its own bucket
    clock.t += 0.5                       # one token back at 2 per second
    assert limiter.allow("mqtt") and not limiter.allow("mqtt")
    clock.t += 10                        # never more than the burst
    assert sum(limiter.allow("mqtt") for _ in range(10)) == 3
    limiter.allow("web:2")
    limiter.allow("web:3")               # beyond max_origins the least recently seen is forgotten
    assert len(limiter._buckets) == 2
    assert "at most 3 at once, then 2 per second" in str(limiter.refusal("mqtt", "pass"))


# -- over the broker -----------------------------------------------------------------------------
def test_nested_brackets_do_not_kill_the_mqtt_thread(broker: Broker, tmp_path: Path) -> None:
    table = serve(broker, tmp_path)
    for _ in range(3):
        table.command("pass", BRACKETS.decode())
        assert "payload of 2048 bytes" in table.answer()["error"]
    table.command("pass", "[" * 200 + "]" * 200)    # under the size limit: the depth check answers
    assert "nests deeper than 2 levels" in table.answer()["error"]
    table.command("start")                           # the link still hands commands on
    inp, logged = table.processed.get(timeout=10)
    assert inp.kind == "start" and logged
    assert table.link.client._thread is not None and table.link.client._thread.is_alive()
    table.close()


def test_a_player_not_at_the_table_is_refused_at_once(broker: Broker, tmp_path: Path) -> None:
    table = serve(broker, tmp_path)
    table.command("start")
    table.command("lead", '{"player": "Zed"}')
    answer = table.answer()
    assert answer["error"] == "cmd/lead: 'Zed' is not a player at this table (players: Ayşe, Burak)"
    assert answer["received"] == '{"player": "Zed"}'
    table.feed("placed", tile=HAND[0])               # the next legal tile is accepted
    events = [event["event"] for event in table.log.events()]
    assert events == ["start", "play"], events       # no lead-claimed for Zed was ever logged
    table.command("lead", '{"player": "Burak"}')     # a real player is still accepted
    inp, logged = table.processed.get(timeout=10)
    while inp.data.get("player") != "Burak":
        inp, logged = table.processed.get(timeout=10)
    assert inp.kind == "lead" and logged
    table.close()


def test_a_megabyte_name_is_refused_and_stored_nowhere(broker: Broker, tmp_path: Path) -> None:
    table = serve(broker, tmp_path)
    table.command("start")
    table.command("away", json.dumps({"player": "x" * 1_000_000}))
    answer = table.answer()
    assert "allowed at most 512" in answer["error"] and len(answer["received"]) <= 200
    table.command("substitute", json.dumps({"player": "Burak", "substitute": "y" * 100}))
    assert "at most 40 characters" in table.answer()["error"]
    assert table.service.wait_processed(timeout=10)
    assert all(len(json.dumps(event)) < 1000 for event in table.log.events())
    assert all(len(json.dumps(dict(entry.data))) < 1000 for entry in table.log.inputs(table.service.match_id))
    table.close()


def test_every_refusal_is_answered_once(broker: Broker, tmp_path: Path) -> None:
    table = serve(broker, tmp_path)
    table.command("pass")                    # no match yet
    assert table.answer()["error"] == "cmd/pass: press Start to begin a match"
    table.command("start")
    table.command("start")                   # a match is running
    assert "cmd/start: a match is running" in table.answer()["error"]
    table.command("undo")                    # nothing to undo (Start is never undone)
    assert table.answer()["error"].startswith("cmd/undo: nothing to undo")
    table.command("continue")                # the engine refuses: nobody sat down
    assert table.answer()["error"].startswith("cmd/continue: ")
    assert table.no_answer()                 # and each was answered exactly once
    table.close()


def test_commands_beyond_the_rate_are_answered_not_acted_on(broker: Broker, tmp_path: Path) -> None:
    table = serve(broker, tmp_path)
    for _ in range(COMMAND_BURST + 10):
        table.manager.client.publish("domino/t1/cmd/sync", b"", qos=1)
    for _ in range(COMMAND_BURST + 10):
        table.manager.acks.get(timeout=10)
    answers = [table.answer()["error"] for _ in range(10)]
    assert all("too many commands from mqtt" in text for text in answers)
    assert table.no_answer()                 # the burst itself was acted on, not answered
    table.close()


def test_clearing_the_table_after_a_match_answers_nobody(broker: Broker, tmp_path: Path) -> None:
    table = serve(broker, tmp_path)
    table.command("start")
    table.processed.get(timeout=10)
    for tile in HAND:
        table.feed("placed", tile=tile)
    table.feed("revealed", zone=1, tiles=["0-0"])   # Burak shows his last tile: the match is over
    assert table.service.match_over.is_set()
    for tile in HAND:                        # the players sweep the tiles off the table
        table.feed("removed", tile=tile)
    table.feed("placed", tile="5-5")         # and a stray tile before Start
    assert table.display.last.message == "the match is over: press Start for a new one"
    assert table.no_answer()                 # the probe's answer is the first cmd/errors message
    table.close()


def test_an_exception_in_the_command_handler_is_answered_and_the_thread_lives(
        broker: Broker, tmp_path: Path) -> None:
    got: queue.Queue[Command] = queue.Queue()

    def handler(command: Command) -> None:
        if command.name == "undo":
            raise RuntimeError("the handler broke")
        got.put(command)

    link = MqttLink(settings_for(broker), on_command=handler, say=lambda line: None)
    link.start()
    assert link.subscribed.wait(10)
    errors = Watcher(broker, "viewer")
    errors.subscribe("domino/t1/cmd/errors")
    manager = Watcher(broker, "manager")
    assert not manager.publish("domino/t1/cmd/undo", "").is_failure
    answer = errors.next_json("cmd/errors")["error"]
    assert "internal error while handling this command: RuntimeError" in answer
    assert not manager.publish("domino/t1/cmd/pass", "").is_failure
    assert got.get(timeout=10).name == "pass"
    for client in (errors, manager):
        client.close()
    link.stop()


def test_a_script_line_of_nested_brackets_is_refused_too() -> None:
    # `run --inputs` is the other input path that parses JSON: bounded the same way, before parsing.
    from referee.app.sources import ScriptError, parse_script_line

    with pytest.raises(ScriptError, match="nests deeper than 8 levels"):
        parse_script_line('{"kind": "placed", "tile": ' + "[" * 5000 + "]" * 5000 + "}", 3)
    with pytest.raises(ScriptError, match="characters, allowed at most 65536"):
        parse_script_line(json.dumps({"kind": "lead", "player": "x" * 70_000}), 4)
    line = parse_script_line('{"kind": "placed", "tile": "3-4", "corners": [[[1, 2], [3, 4]]]}', 5)
    assert line is not None and line.data["tile"] == "3-4"
