"""Run one regression case: a small match written by hand with the verdicts RULES.md implies.

A case (one JSON object per line of `regressions/<rules>.jsonl`):

- `name`, `why`: what it shows and the hand computation behind its expectations;
- `rules`, `players`, optional `options`, `teams`;
- optional `scores`: side name → points already on the board (a match joined mid-way);
- optional `setup_error`: the referee must refuse the setup with this text;
- `hands`: a list of `{"dealt": {...}, "boneyard": [...] | "rest", "events": [...]}`; without
  `dealt` the case is refereed as a real table (knowledge "table"). `"rest"` (the default when
  `dealt` is given) is every undealt tile in index order 0-0, 0-1, 1-1, 0-2, 1-2, 2-2, 0-3, ...,
  the first being the top of the boneyard;
- `expect`: one entry per event across all hands (`null` skips one): `{"ok": true, "points": N}`,
  `{"error": "text"}` (a refusal whose message contains the text), and/or `{"findings": [...]}`;
- optional `hand_results` (a partial dict per hand), `match` (partial `Match.result()`),
  `state` (partial `Referee.snapshot()`);
- optional `replay`: the case is also written as a `domino-record` and replayed
  (`referee.record.replay`); a partial dict of that report (its `events` and `hands`: what
  `replay --json` prints). Not with `scores`, which a record cannot hold.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from referee.errors import DominoError
from referee.events import FORMAT, VERSION
from referee.record import replay
from referee.referee import Referee
from referee.tiles import Tile, full_set


def partial_match(expected: Any, actual: Any, where: str) -> None:
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected an object, got {actual!r}"
        for key, value in expected.items():
            assert key in actual, f"{where}: missing {key!r} in {actual!r}"
            partial_match(value, actual[key], f"{where}.{key}")
    elif isinstance(expected, list) and expected and isinstance(expected[0], dict):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{where}: {actual!r}"
        for i, (want, got) in enumerate(zip(expected, actual, strict=True)):
            partial_match(want, got, f"{where}[{i}]")
    elif isinstance(expected, float | int) and not isinstance(expected, bool):
        assert isinstance(actual, float | int | Fraction), f"{where}: {actual!r} is not a number"
        assert abs(float(actual) - expected) < 1e-9, f"{where}: expected {expected}, got {actual}"
    else:
        assert expected == actual, f"{where}: expected {expected!r}, got {actual!r}"


def rest_of(dealt: dict[str, list[str]], max_pip: int) -> list[str]:
    used = {Tile.parse(text) for tiles in dealt.values() for text in tiles}
    return [str(t) for t in full_set(max_pip) if t not in used]


def run_case(case: dict[str, Any]) -> None:
    name = case["name"]
    hands = case.get("hands", [])
    full = bool(hands) and "dealt" in hands[0]
    try:
        referee = Referee(case["rules"], case["players"], case.get("options", {}), case.get("teams"),
                          knowledge="full" if full else "table")
    except DominoError as error:
        assert "setup_error" in case, f"{name}: unexpected setup error {error}"
        assert case["setup_error"] in str(error), f"{name}: {error}"
        return
    assert "setup_error" not in case, f"{name}: the setup was accepted"
    for side, points in case.get("scores", {}).items():
        referee.match.scores[referee.match.side_names.index(side)] = Fraction(points)
    expectations = list(case.get("expect", []))
    index = 0
    for h, hand in enumerate(hands):
        if full:
            boneyard = hand.get("boneyard", "rest")
            if boneyard == "rest":
                boneyard = rest_of(hand["dealt"], referee.rules.max_pip)
            verdict = referee.apply({"deal": hand["dealt"], "boneyard": boneyard})
            assert verdict.ok, f"{name}: hand {h + 1} deal refused: {verdict.error}"
        for e, event in enumerate(hand["events"]):
            verdict = referee.apply(event)
            where = f"{name}: hand {h + 1} event {e + 1} {event}"
            expected = expectations[index] if index < len(expectations) else None
            index += 1
            if expected is None:
                continue
            if "error" in expected:
                assert not verdict.ok, f"{where}: accepted, expected refusal {expected['error']!r}"
                assert expected["error"] in (verdict.error or ""), f"{where}: {verdict.error!r}"
            else:
                assert verdict.ok, f"{where}: refused: {verdict.error}"
                if "points" in expected:
                    assert verdict.points == expected["points"], f"{where}: points {verdict.points}"
            for text in expected.get("findings", []):
                assert any(text in finding for finding in verdict.findings), f"{where}: {verdict.findings}"
            if expected.get("findings") == []:
                assert verdict.findings == [], f"{where}: unexpected findings {verdict.findings}"
    assert index >= len(expectations), f"{name}: {len(expectations)} expectations for {index} events"
    for h, expected_result in enumerate(case.get("hand_results", [])):
        assert h < len(referee.match.results), f"{name}: hand {h + 1} has no result"
        partial_match(expected_result, referee.match.results[h], f"{name}: hand_results[{h}]")
    if "match" in case:
        partial_match(case["match"], referee.match.result(), f"{name}: match")
    if "state" in case:
        partial_match(case["state"], referee.snapshot(), f"{name}: state")
    if "replay" in case:
        assert "scores" not in case, f"{name}: a record cannot start from `scores`"
        partial_match(case["replay"], replay(as_record(case, referee.rules.max_pip)), f"{name}: replay")


def as_record(case: dict[str, Any], max_pip: int) -> dict[str, Any]:
    """The case as a `domino-record`: its hands, with every `"rest"` boneyard spelled out."""
    hands = []
    for hand in case.get("hands", []):
        entry: dict[str, Any] = {"events": hand["events"]}
        if "dealt" in hand:
            boneyard = hand.get("boneyard", "rest")
            entry["dealt"] = hand["dealt"]
            entry["boneyard"] = rest_of(hand["dealt"], max_pip) if boneyard == "rest" else boneyard
        hands.append(entry)
    document: dict[str, Any] = {"format": FORMAT, "version": VERSION, "rules": case["rules"],
                                "options": case.get("options", {}), "players": case["players"],
                                "hands": hands}
    if case.get("teams"):
        document["teams"] = case["teams"]
    return document
