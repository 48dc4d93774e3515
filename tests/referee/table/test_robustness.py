"""Whatever table-side events a record holds, replay judges them and never crashes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.moves import RecordError
from referee.table.observer import replay_with_table

BASE = json.loads((Path(__file__).resolve().parent / "records" / "base" / "italian-seed-3.json")
                  .read_text(encoding="utf-8"))
TURKISH = json.loads((Path(__file__).resolve().parent / "records" / "base" / "turkish-seed-5.json")
                     .read_text(encoding="utf-8"))

names = st.sampled_from(["Ayşe", "Burak", "Cem", "Deniz", "Efe"])
times = st.floats(min_value=0, max_value=2000, allow_nan=False)
table_events = st.one_of(
    st.fixed_dictionaries({"start": st.just(True), "t": times}),
    st.fixed_dictionaries({"player": names, "away": st.just(True), "t": times}),
    st.fixed_dictionaries({"player": names, "back": st.just(True), "t": times}),
    st.fixed_dictionaries({"player": names, "timeout": st.just(True), "t": times}),
    st.fixed_dictionaries({"player": names, "leave": st.just(True), "t": times}),
    st.fixed_dictionaries({"player": names, "substitute": names, "t": times}),
    st.fixed_dictionaries({"continue": st.just(True), "t": times}),
    st.fixed_dictionaries({"clock": st.sampled_from([{"mode": "fischer"}, {"mode": "x"}, 3]), "t": times}),
)


def mixed(record: dict[str, Any], inserts: list[tuple[int, dict[str, Any]]], step: float) -> dict[str, Any]:
    events = [{**e, "t": round(i * step, 3)} for i, e in enumerate(record["hands"][0]["events"])]
    for position, event in sorted(inserts, key=lambda pair: -pair[0]):
        events.insert(min(position, len(events)), event)
    return {**record, "hands": [{**record["hands"][0], "events": events}]}


@settings(max_examples=100, deadline=None)
@given(base=st.sampled_from([BASE, TURKISH]),
       inserts=st.lists(st.tuples(st.integers(0, 60), table_events), max_size=8),
       step=st.sampled_from([1.0, 12.0, 40.0]))
def test_replay_never_crashes_and_a_lost_match_stays_lost(base: dict[str, Any],
                                                         inserts: list[tuple[int, dict[str, Any]]],
                                                         step: float) -> None:
    try:
        report = replay_with_table(mixed(base, inserts, step))
    except RecordError as error:  # a malformed event: the whole record is refused, naming it
        assert "hands[0].events[" in str(error)
        return
    assert all(isinstance(v["ok"], bool) for v in report["events"])
    assert all(v["ok"] or v["error"] for v in report["events"])
    table = report["table"]
    if table["forfeit"] is not None:
        assert report["match"]["over"]
        ended = next(i for i, v in enumerate(report["events"]) if v.get("match_result"))
        later = [v for v in report["events"][ended + 1:]
                 if any(k in v["input"] for k in ("play", "draw", "pass"))]
        assert not any(v["ok"] for v in later)


@settings(max_examples=30, deadline=None)
@given(bad=st.sampled_from([{"start": True, "t": -1}, {"player": 7, "away": True, "t": 1},
                            {"player": "Ayşe", "back": True, "t": "soon"}, {"continue": True, "t": True}]),
       position=st.integers(0, 30))
def test_a_malformed_table_event_is_named(bad: dict[str, Any], position: int) -> None:
    try:
        replay_with_table(mixed(BASE, [(position, bad)], 1.0))
    except RecordError as error:
        assert "hands[0].events[" in str(error) and "field" in str(error)
    else:
        raise AssertionError(f"{bad} was accepted")
