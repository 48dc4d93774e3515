"""The façade (`Referee`), the table hook, records on disk and the replay/simulate commands."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.app.cli import main
from referee.moves import RecordError
from referee.record import dump_record, load_record, replay, validate_record
from referee.referee import Referee, Verdict
from referee.tiles import full_set


def test_bad_input_gets_a_verdict_never_an_exception() -> None:
    referee = Referee("turkish", ["A", "B", "C", "D"])
    for event in (None, [], "play 3-4", {"player": "A", "play": 34}, {"player": "A", "play": "3-9"},
                  {"player": "A", "draw": True}, {"player": "A", "pass": "yes"},
                  {"player": "A", "t": -1, "pass": True},
                  {"reveal": ["3-4"]}, {"deal": {}}):
        verdict = referee.apply(event)  # type: ignore[arg-type]
        assert not verdict.ok and verdict.error, event
    assert referee.snapshot()["table"] == [] and referee.record()["hands"][0]["events"] == []


def test_snapshot_is_json_and_tells_what_the_table_awaits() -> None:
    referee = Referee("muggins", ["A", "B"], {"hand_size": 2}, knowledge="full")
    assert referee.snapshot()["awaiting"] == "deal"
    dealt = {"A": ["5-5", "5-0"], "B": ["1-2", "3-4"]}
    refused = referee.apply({"deal": dealt, "boneyard": []})
    assert "lack 24 tiles of the set: 0-0, 0-1" in (refused.error or "")
    rest = [str(t) for t in full_set(6) if str(t) not in ("5-5", "0-5", "1-2", "3-4")]
    assert referee.apply({"deal": dealt, "boneyard": rest}).ok
    state = referee.snapshot()
    assert state["awaiting"] == "move" and state["turn"] == "A" and state["boneyard"] == 24
    assert referee.legal_ends("5-0") == ["lead"] and referee.turn == "A"
    assert referee.apply({"player": "A", "play": "5-5"}).points == 10
    assert referee.legal_ends("0-5") == ["left", "right"] and referee.legal_ends("1-2") == []
    state = json.loads(json.dumps(referee.snapshot()))
    assert state["scores"] == {"A": 10, "B": 0} and state["count"] == 10
    assert state["table"] == [{"tile": "5-5", "end": "lead", "joined": 5, "shown": 5}]
    assert state["analysis"]["unseen"]["5"] == 6
    assert state["analysis"]["ends_taken"] == {"left": "A", "right": "A"}


def test_dead_doubles_for_spectators() -> None:
    referee = Referee("turkish", ["A", "B", "C", "D"])
    for tile, end in (("0-1", None), ("1-2", "right"), ("2-3", "right"), ("3-0", "right"), ("0-2", "left"),
                      ("2-4", "left"), ("4-0", "left"), ("0-5", "left"), ("5-6", "left")):
        event: dict[str, Any] = {"player": referee.turn, "play": tile}
        if end:
            event["end"] = end
        assert referee.apply(event).ok, event
    referee.apply({"player": referee.turn, "play": "6-0", "end": "left"})
    analysis = referee.snapshot()["analysis"]
    # The six other 0-tiles are down, but both ends show 0: 0-0 can still be played, so it is not
    # dead (issue 16; it was reported dead).
    assert referee.open_ends == {"left": 0, "right": 0} and referee.legal_ends("0-0") == ["left", "right"]
    assert analysis["dead_doubles"] == []
    assert analysis["unseen"]["0"] == 1


class Clock:
    """A stand-in for the clocks helper: derives a timeout when a move comes after t = 30."""

    def __init__(self) -> None:
        self.seen: list[tuple[Mapping[str, Any], bool]] = []
        self.undone: list[Mapping[str, Any]] = []

    def before_event(self, referee: Referee, event: Mapping[str, Any],
                     t: float | None) -> list[dict[str, Any]]:
        if t is not None and t > 30 and "player" in event and referee.turn == event["player"]:
            return [{"player": event["player"], "timeout": True, "t": t}]
        return []

    def after_event(self, referee: Referee, event: Mapping[str, Any], verdict: Verdict) -> None:
        self.seen.append((event, verdict.ok))

    def on_undo(self, referee: Referee, event: Mapping[str, Any]) -> None:
        self.undone.append(event)


def test_observers_see_every_event_and_may_derive_a_timeout() -> None:
    clock = Clock()
    referee = Referee("italian", ["A", "B"], observers=[clock])
    assert referee.apply({"start": True, "t": 0}).ok
    assert referee.apply({"player": "A", "play": "6-6", "t": 5}).ok
    referee.undo()
    assert clock.undone == [{"player": "A", "play": "6-6", "t": 5}]
    referee.apply({"player": "A", "play": "6-6", "t": 5})
    verdict = referee.apply({"player": "B", "play": "6-1", "t": 41})
    assert not verdict.ok and "the match is over (B ran out of time)" in (verdict.error or "")
    assert [ok for _, ok in clock.seen] == [True, True, True, True, False]
    assert clock.seen[3][0] == {"player": "B", "timeout": True, "t": 41}
    assert referee.match.result()["winner"] == "A"
    events = referee.record()["hands"][0]["events"]
    assert events[-1] == {"player": "B", "timeout": True, "t": 41}  # the derived event is recorded


def test_record_validation_names_the_place(tmp_path: Path) -> None:
    good = {"format": "domino-record", "version": 1, "rules": "turkish", "options": {"hands": 1},
            "players": ["A", "B", "C", "D"], "hands": [{"events": [{"player": "A", "play": "3-4"}]}]}
    validate_record(good)
    bad_cases = [
        ({**good, "format": "pgn"}, "format: expected 'domino-record'"),
        ({**good, "options": {"hands": 0}}, "options.hands"),
        ({**good, "hands": [{"events": [{"player": "A", "play": "3-4"}, {"player": "A"}]}]},
         "hands[0].events[1]: event {\"player\": \"A\"} has no action"),
        ({**good, "hands": [{"dealt": {"A": ["0-0"]}, "events": []}]}, "hands[0].dealt: must give the tiles"),
        ({**good, "hands": [{"leader": "Z", "events": []}]}, "hands[0].leader: 'Z' is not a player"),
    ]
    for document, message in bad_cases:
        with pytest.raises(RecordError) as caught:
            validate_record(document)
        assert message in str(caught.value)
    path = tmp_path / "match.json"
    dump_record(good, path)
    assert load_record(path) == good
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(RecordError, match=r"match\.json: not JSON"):
        load_record(path)


def test_simulate_then_replay_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    command = ["simulate", "--rules", "all-fives", "--games", "2", "--seed", "7", "--out", str(tmp_path)]
    assert main(command) == 0
    out = capsys.readouterr().out
    assert "game 2:" in out and "wins:" in out
    records = sorted(tmp_path.glob("*.json"))
    assert len(records) == 2
    assert main(["replay", str(records[0]), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert all(v["ok"] for v in report["events"]) and report["match"]["over"]
    assert report == json.loads(json.dumps(replay(load_record(records[0]))))
    assert main(["replay", str(records[0])]) == 0
    human = capsys.readouterr().out
    assert "hand 1" in human and "standings:" in human and f"winner: {report['match']['winner']}" in human


def test_replay_reports_refusals_and_command_errors(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    document = {"format": "domino-record", "version": 1, "rules": "turkish", "players": ["A", "B", "C", "D"],
                "hands": [{"events": [{"player": "A", "play": "3-4"}, {"player": "B", "play": "5-6"}]}]}
    path = tmp_path / "r.json"
    dump_record(document, path)
    assert main(["replay", str(path), "--json"]) == 0
    events = json.loads(capsys.readouterr().out)["events"]
    assert events[1] == {"hand": 1, "record_hand": 1, "event": 2, "input": {"player": "B", "play": "5-6"},
                         "ok": False, "error": "5-6 does not match the open ends 3 (left) and 4 (right)"}
    assert main(["replay", str(tmp_path / "missing.json")]) == 1
    assert "cannot read the record" in capsys.readouterr().err
    assert main(["simulate", "--rules", "italian", "--players", "3"]) == 1
    assert "italian is played by 2 players" in capsys.readouterr().err


SCALARS = (st.none() | st.booleans() | st.integers(-3, 30) | st.floats(allow_nan=False)
           | st.sampled_from(["3-4", "6-6", "0-0", "9|9", "left", "up", "A", "B", "x"]))
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["A", "B"]), inner,
                                                                max_size=2),
    max_leaves=6,
)
KEYS = ["player", "play", "draw", "pass", "end", "t", "deal", "boneyard", "reveal", "redeal", "start",
        "timeout", "leave", "substitute", "away", "back", "continue", "clock", "leader", "note", "other"]


@settings(max_examples=200, deadline=None)
@given(events=st.lists(st.dictionaries(st.sampled_from(KEYS), JSON, max_size=4), max_size=12),
       rules=st.sampled_from(["turkish", "italian", "muggins", "all-fives"]),
       knowledge=st.sampled_from(["table", "full"]))
def test_garbage_events_never_crash_the_referee(events: list[dict[str, Any]], rules: str,
                                                knowledge: str) -> None:
    referee = Referee(rules, ["A", "B"], knowledge=knowledge)
    for event in events:
        before = referee.snapshot()
        verdict = referee.apply(event)
        if not verdict.ok:
            assert verdict.error and referee.snapshot() == before  # edge case 6: refusals change nothing
    json.dumps(referee.snapshot())
    json.dumps(referee.record())


def test_an_undo_takes_every_attribute_the_events_decide() -> None:
    referee = Referee("turkish", ["A", "B", "C", "D"])
    assert referee.apply({"player": "A", "play": "0-0"}).ok
    assert set(vars(referee)) == set(Referee.EVENT_STATE) | set(Referee.SETTINGS)
    assert referee.undo() == {"player": "A", "play": "0-0"}
    assert referee.open_ends == {} and referee.turn == "A" and referee.accepted == []
