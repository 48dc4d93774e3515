"""`replay --json` numbers hands the way the match does (issue 16): a re-deal keeps the number,
and a hand that ended the match mid-hand still reports every side's points."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.app.cli import main
from referee.players import find_strategy
from referee.record import dump_record, replay
from referee.rules import find_rules
from referee.simulate import simulate_match
from referee.tiles import full_set

SET = [str(t) for t in full_set(6)]


def void_deal(players: list[str], size: int, rng: random.Random) -> dict[str, Any]:
    """A record hand where nobody holds a double: the referee re-deals it (edge case 3)."""
    plain = [t for t in SET if t[0] != t[2]]
    rng.shuffle(plain)
    dealt = {name: plain[i * size:(i + 1) * size] for i, name in enumerate(players)}
    used = {t for tiles in dealt.values() for t in tiles}
    return {"dealt": dealt, "boneyard": [t for t in SET if t not in used], "events": []}


def check_numbers(report: dict[str, Any]) -> None:
    numbers = [result["hand"] for result in report["hands"]]
    assert numbers == list(range(1, len(numbers) + 1))
    for verdict in report["events"]:
        if "hand_result" in verdict:
            assert verdict["hand_result"]["hand"] == verdict["hand"], verdict
        assert 1 <= verdict["hand"] <= max(numbers, default=1)
    for result in report["hands"]:
        assert "points" in result and set(result["points"]) == set(result["scores"])


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["muggins", "all-fives", "italian"]), st.integers(0, 10_000),
       st.lists(st.booleans(), min_size=1, max_size=6))
def test_event_and_result_hand_numbers_agree_with_void_deals(rules: str, seed: int,
                                                             voids: list[bool]) -> None:
    rng = random.Random(seed)
    players = ["A", "B"]
    ruleset = find_rules(rules)({"target": 30} if rules != "italian" else {"target": 20})
    strategies = [find_strategy("greedy"), find_strategy("random")]
    _, record = simulate_match(ruleset, players, strategies, rng)
    assert record is not None
    plain = replay(record)
    # Put a void deal before some of the hands the highest double leads (italian's every hand;
    # elsewhere the first and those after a blocked hand): the next record hand replaces it.
    hands: list[dict[str, Any]] = []
    for index, hand in enumerate(record["hands"]):
        needs_double = rules == "italian" or index == 0 or plain["hands"][index - 1]["winner"] is None
        if needs_double and voids[index % len(voids)]:
            hands.append(void_deal(players, ruleset.hand_size(2), rng))
        hands.append(hand)
    with_voids = {**record, "hands": hands}
    report = replay(with_voids)
    assert report["hands"] == plain["hands"] and report["match"] == plain["match"]
    assert all(v["ok"] for v in report["events"]) and report["warnings"] == []
    check_numbers(report)
    # The same events, the same numbers: only `record_hand` tells the void deals apart.
    assert [v["hand"] for v in report["events"]] == [v["hand"] for v in plain["events"]]


def test_a_target_reached_mid_hand_reports_every_sides_points(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    rest = [t for t in SET if t not in ("5-5", "1-2")]
    record = {"format": "domino-record", "version": 1, "rules": "all-fives",
              "options": {"hand_size": 1, "target": 10}, "players": ["A", "B"],
              "hands": [void_deal(["A", "B"], 1, random.Random(1)),
                        {"dealt": {"A": ["5-5"], "B": ["1-2"]}, "boneyard": rest,
                         "events": [{"player": "A", "play": "5-5"}]}]}
    path = tmp_path / "early.json"
    dump_record(record, path)
    assert main(["replay", "--json", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    [verdict] = report["events"]
    assert (verdict["hand"], verdict["record_hand"]) == (1, 2)
    [result] = report["hands"]
    # Edge case 8: B's 1-2 is not added; the lead's 10 is the hand's play points.
    assert result["points"] == {"A": 0, "B": 0} and result["play_points"] == {"A": 10, "B": 0}
    assert result["scores"] == {"A": 10, "B": 0}
    assert main(["replay", str(path)]) == 0
    assert "hand 1 over: A went out; points A 0, B 0; plays scored A 10" in capsys.readouterr().out
